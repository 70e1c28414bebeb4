"""sqlite3: its dot-commands run shell commands (`.shell CMD`, `.system CMD`), load native code
(`.load`) or read further commands from a file (`.read F`), in its SQL arguments and `-cmd`."""

from __future__ import annotations

import re

from agent.policy.invocation import Hook

_DOT = re.compile(r"(?m)^\s*\.(shell|system|load|read)\b[ \t]*(.*)$")


def sqlite_hooks(name: str, args: list[str]) -> list[Hook]:
    found: list[Hook] = []
    for text in args:
        for m in _DOT.finditer(text):
            command, rest = m.group(1), m.group(2)
            if command in ("shell", "system"):
                found.append(Hook(f"sqlite3 .{command}", code=rest))
            else:
                found.append(Hook(f"sqlite3 .{command}", opaque=f"sqlite3 .{command} runs what the gate cannot see"))
    return found
