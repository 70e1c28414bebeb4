"""unzip, mktemp, cpio and ar: where what they make lands."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from agent.policy.facts import DYN, GLOB
from agent.policy.invocation import DEVNULL, Ctx, Invocation, Scope, WriteEffect
from agent.policy.options import operands
from agent.policy.programs.base import option_outputs
from agent.policy.programs.generic import generic_reads

if TYPE_CHECKING:
    from agent.policy.effects import Analyser


# options whose value is a directory it writes files into (outputs.py, through programs/table.py)
OUTPUT_DIR_OPTIONS: dict[str, frozenset[str]] = {"unzip": frozenset(("-d",)), "mktemp": frozenset(("-p", "--tmpdir"))}
CLUSTERED_OPTIONS = frozenset(("unzip", "mktemp"))  # their short options cluster (`unzip -od DIR`)
# variables it takes options from as if given first (commands.py, through programs/table.py)
ENV_OPTIONS: dict[str, tuple[str, ...]] = {"unzip": ("UNZIP", "UNZIPOPT")}
_UNZIP_NO_FILES = frozenset(("-l", "-t", "-p", "-Z", "-v", "-z"))


def unzip(an: Analyser, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """The files unpacked are unseen text: Python or git started there may load them."""
    generic_reads(an, inv)
    args = argv[1:]
    written = option_outputs(args, frozenset(), OUTPUT_DIR_OPTIONS["unzip"], clustered=True) + unzip_outputs(args)
    for raw in written:
        an._unpacked(posixpath.dirname(raw) or ".")


def mktemp(an: Analyser, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """`TMPDIR=/models mktemp` makes its file there."""
    generic_reads(an, inv)
    if "TMPDIR" in env:
        ref = an._path(env["TMPDIR"].rstrip("/") + "/" + GLOB)
        if ref.aliases[0] not in DEVNULL:
            inv.writes.append(WriteEffect(ref))


# -- files written beyond their option tables (outputs.py asks for them through programs/table.py)


def unzip_outputs(args: list[str]) -> list[str]:
    """Without `-d`, into the current directory; with `-:` (which keeps `../` in member names),
    anywhere."""
    given = option_outputs(args, frozenset(), OUTPUT_DIR_OPTIONS["unzip"], clustered=True)
    out: list[str] = []
    if not given and not any(a in _UNZIP_NO_FILES for a in args):
        out.append("./" + GLOB)
    if any(a.startswith("-") and ":" in a for a in args):
        out.append(DYN + "/" + GLOB)
    return out


def mktemp_outputs(args: list[str]) -> list[str]:
    """Its template: `mktemp /models/xXXXXX` creates the file there."""
    given = operands(args, ("-p", "--suffix"))
    return given[:1] if given and given[0] != "-" else []


def extracted(args: list[str]) -> list[str]:
    """`cpio -i`, `ar x`: extracted into the current directory."""
    if any((a.startswith("-") and "i" in a) or a in ("x", "-x") for a in args):
        return ["./" + GLOB]
    return []


OUTPUTS = {"unzip": unzip_outputs, "mktemp": mktemp_outputs, "cpio": extracted, "ar": extracted}
