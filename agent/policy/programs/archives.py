"""unzip and mktemp: where what they make lands (their written files come from outputs.py's
option tables, as for every program that writes through its options)."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from agent.policy.facts import GLOB
from agent.policy.invocation import DEVNULL, Ctx, Invocation, Scope, WriteEffect
from agent.policy.outputs import written_paths
from agent.policy.programs.generic import generic_reads

if TYPE_CHECKING:
    from agent.policy.effects import Analyser


def unzip(an: Analyser, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """The files unpacked are unseen text: Python or git started there may load them."""
    generic_reads(an, inv)
    for raw in written_paths("unzip", argv[1:]):
        an._unpacked(posixpath.dirname(raw) or ".")


def mktemp(an: Analyser, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """`TMPDIR=/models mktemp` makes its file there."""
    generic_reads(an, inv)
    if "TMPDIR" in env:
        ref = an._path(env["TMPDIR"].rstrip("/") + "/" + GLOB)
        if ref.aliases[0] not in DEVNULL:
            inv.writes.append(WriteEffect(ref))
