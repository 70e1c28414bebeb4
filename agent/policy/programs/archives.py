"""Archivers and compressors: where what unzip, cpio, ar (and mktemp) make lands, the files zip
-m and gzip replace or delete, the commands and recursion in zip's options."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from agent.policy.facts import DYN, GLOB
from agent.policy.invocation import DEVNULL, Ctx, Invocation, Scope, WriteEffect
from agent.policy.options import operands
from agent.policy.programs.base import option_outputs
from agent.policy.programs.generic import generic_reads

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


# options whose value is a directory it writes files into (outputs.py, through programs/table.py)
OUTPUT_DIR_OPTIONS: dict[str, frozenset[str]] = {"unzip": frozenset(("-d",)), "mktemp": frozenset(("-p", "--tmpdir"))}
CLUSTERED_OPTIONS = frozenset(("unzip", "mktemp"))  # their short options cluster (`unzip -od DIR`)
# variables it takes options from as if given first (commands.py, through programs/table.py)
ENV_OPTIONS: dict[str, tuple[str, ...]] = {
    "unzip": ("UNZIP", "UNZIPOPT"),
    "zip": ("ZIPOPT",),
    "gzip": ("GZIP",),
    "xz": ("XZ_DEFAULTS", "XZ_OPT"),
    "bzip2": ("BZIP2", "BZIP"),
}
# options whose value is a command it runs (hooks.py, through programs/table.py)
COMMAND_OPTIONS: dict[str, dict[str, str]] = {"zip": {"-TT": "", "--unzip-command": ""}}
# the letters of a short-option cluster that make it recurse, and the long options (recursive.py)
RECURSIVE_FLAGS: dict[str, tuple[str, frozenset[str]]] = {
    "zip": ("rR", frozenset(("--recurse-paths", "--recurse-patterns")))
}
_UNZIP_NO_FILES = frozenset(("-l", "-t", "-p", "-Z", "-v", "-z"))


def unzip(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """The files unpacked are unseen text: Python or git started there may load them."""
    generic_reads(an, inv)
    args = argv[1:]
    written = option_outputs(args, frozenset(), OUTPUT_DIR_OPTIONS["unzip"], clustered=True) + unzip_outputs(args)
    for raw in written:
        an._unpacked(posixpath.dirname(raw) or ".")


def mktemp(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
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


# -- files replaced or deleted once packed (commands.py asks for them)

# compressors replace each file operand with its (de)compressed twin unless told to keep or print
COMPRESSORS: dict[str, str] = {
    "gzip": ".gz",
    "bzip2": ".bz2",
    "xz": ".xz",
    "lzma": ".lzma",
    "gunzip": "",
    "bunzip2": "",
    "unxz": "",
    "unlzma": "",
}


# archivers and compressors that delete what they pack when told to: `zip -m`, `zstd --rm`
MOVERS = frozenset(("zip", "zstd", "lz4", "brotli", "7z"))


def moved_files(name: str, args: list[str]) -> list[str]:
    """The files `zip -m ARCHIVE F...` or `zstd --rm F...` deletes once packed."""
    if name == "zip":
        if any(a in ("--move",) or (a.startswith("-") and not a.startswith("--") and "m" in a) for a in args):
            return operands(args, ("-b", "-n", "-t", "-tt", "-x", "-i", "-P", "-O", "--out"))[1:]
        return []
    if name == "7z":
        return operands(args, ())[2:] if "-sdel" in args else []
    if "--rm" in args:
        return [f for f in operands(args, ("-o", "-D", "--patch-from")) if f != "-"]
    return []


def replaced_files(name: str, args: list[str]) -> list[tuple[str | None, str]]:
    """(file deleted, file written) for each operand a compressor turns into its twin: `gzip F`
    leaves F.gz and no F, `gunzip F.gz` leaves F, `gzip -k F` keeps F (None deleted); `-c`,
    `-l` and `-t` write no file."""
    flags = [a for a in args if a.startswith("-") and a != "-"]
    short = "".join(a[1:] for a in flags if not a.startswith("--"))
    if any(a in ("--stdout", "--to-stdout", "--list", "--test") for a in flags) or any(c in short for c in "clt"):
        return []
    keep = "--keep" in flags or "k" in short
    decompress = COMPRESSORS[name] == "" or "--decompress" in flags or "--uncompress" in flags or "d" in short
    suffix = COMPRESSORS[name] or ".gz"
    out: list[tuple[str | None, str]] = []
    for f in operands(args, ("-S", "--suffix")):
        if f == "-":
            continue
        stem, dot, _ = f.rpartition(".")
        twin = (stem if dot and "/" not in f[len(stem) :] else f) if decompress else f + suffix
        out.append((None if keep else f, twin))
    return out


# what its output is, to a reader of the pipe (redirects.py, through programs/table.py)
PRODUCES = dict.fromkeys(("gzip", "gunzip", "zcat", "bzcat", "xzcat"), "decompressed")
