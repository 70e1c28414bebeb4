"""awk/gawk/mawk: files its program reads and writes, commands it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.policy.awk import awk_effects, read_awk
from agent.policy.invocation import Ctx, Invocation, Scope, WriteEffect

if TYPE_CHECKING:
    from agent.policy.effects import Analyser


def awk(an: Analyser, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    line = read_awk(argv[1:])
    if line.opaque is not None:
        inv.opaque = line.opaque
    for program in line.programs:
        found = awk_effects(program)
        if found.runs:
            inv.opaque = "awk program that runs commands"
        inv.writes += [WriteEffect(an._path(p)) for p in found.writes]
        inv.reads += [an._path(p) for p in found.reads]
    inv.reads += [an._path(f) for f in line.files if f != "-"]
