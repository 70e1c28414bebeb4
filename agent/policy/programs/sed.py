"""sed: files it edits in place (`-i`), writes (`w FILE`), reads, and commands it runs (`e`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.policy.facts import DYN
from agent.policy.invocation import Ctx, Invocation, Scope, WriteEffect
from agent.policy.sed import read_sed, sed_commands

if TYPE_CHECKING:
    from agent.policy.effects import Analyser


def sed(an: Analyser, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    opts = read_sed(argv[1:])
    for script in opts.scripts:
        commands = None if DYN in script else sed_commands(script)
        if commands is None:
            inv.opaque = "a sed script the gate cannot read (from a file, or only known at run time)"
            return
        for command, arg in commands:
            if opts.sandbox:
                continue  # `--sandbox` rejects e, r and w
            if command == "e":
                inv.opaque = "sed's e command runs a shell command"
                return
            if command in "wW" and arg not in ("/dev/stdout", "/dev/stderr"):
                inv.writes.append(WriteEffect(an._path(arg)))
            elif command in "rR":
                inv.reads.append(an._path(arg))
    for f in opts.files:
        ref = an._path(f)
        inv.reads.append(ref)
        if opts.in_place:
            inv.writes.append(WriteEffect(ref))
