"""A command that proves its output is read while it runs: it prints a line, then waits (20 s at
most) for a flag file that only a reader of that line creates, then prints another line."""

from __future__ import annotations

import shlex
from pathlib import Path


def handshake_command(flag: str, wait_s: int = 20) -> str:
    q = shlex.quote(flag)
    return (
        "echo 'first line' >&2; "
        f"for i in $(seq {wait_s * 10}); do [ -e {q} ] && break; sleep 0.1; done; "
        f"[ -e {q} ] || exit 7; echo 'second line'"
    )


class Reader:
    """The listener: notes each piece of output, and creates the flag once it has read the first line."""

    def __init__(self, flag: Path) -> None:
        self.flag = flag
        self.heard: list[tuple[str, str]] = []

    def __call__(self, stream: str, text: str) -> None:
        self.heard.append((stream, text))
        if "first line" in text:
            self.flag.write_text("read")
