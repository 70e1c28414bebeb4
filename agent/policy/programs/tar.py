"""tar: what it extracts, creates and deletes, and what it runs (`--to-command`, `-I`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.policy.facts import DYN, GLOB
from agent.policy.invocation import Ctx, Invocation, Scope, WriteEffect
from agent.policy.tar import read_tar

if TYPE_CHECKING:
    from agent.policy.effects import Analyser


def tar(an: Analyser, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    t = read_tar(argv[1:])
    modes = t.modes
    if "x" in modes:
        for d in t.directories or ["."]:
            inv.writes.append(WriteEffect(an._path(d.rstrip("/") + "/" + GLOB)))
            an._unpacked(d)
        if t.absolute:  # `-P`: members keep `/` and `..`, so they land anywhere
            inv.writes.append(WriteEffect(an._path(DYN + "/" + GLOB)))
            an._unpacked(DYN)
        for d in t.top_level:
            inv.writes.append(WriteEffect(an._path(d.rstrip("/") + "/" + GLOB)))
    if t.archive is not None and t.archive != "-" and modes & {"c", "r", "u", "A", "--delete"}:
        inv.writes.append(WriteEffect(an._path(t.archive)))
    if t.archive is not None and t.archive != "-" and modes & {"x", "t", "d", "r", "u", "A", "--delete"}:
        inv.reads.append(an._path(t.archive))
    if modes & {"c", "r", "u"}:
        for where, name in t.members:  # relative to the `-C` in force where each stands
            ref = an._path(name if where is None or name.startswith("/") else where.rstrip("/") + "/" + name)
            inv.reads.append(ref)
            if t.remove_files:
                inv.deletes.append(ref)
        for listed in t.lists:  # `-T FILE`: names only known at run time
            inv.reads.append(an._path(listed))
            inv.reads.append(an._path(DYN))
    elif not modes:
        for _, name in t.members:
            inv.reads.append(an._path(name))
