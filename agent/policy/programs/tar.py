"""tar's arguments as GNU tar reads them: its mode (create, extract, append, ...), archive,
`-C` directories and member operands, in the old form (`tar czf A DIR`), in clusters with a
value attached or at their end (`-czf/x.tar`, `-C/dir`), and in long options and their
abbreviations (`--dir=` is `--directory=`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.policy.facts import DYN, GLOB
from agent.policy.invocation import Ctx, Invocation, Scope, WriteEffect
from agent.policy.options import long_option

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


# options whose value is a command it runs, and the prefix the value must have ("" for any):
# found and judged by hooks.py as if the command ran where it stands
COMMAND_OPTIONS: dict[str, dict[str, str]] = {
    "tar": {
        "-I": "",
        "--use-compress-program": "",
        "--to-command": "",
        "--info-script": "",
        "--new-volume-script": "",
        "-F": "",
        "--rsh-command": "",
        "--rmt-command": "",
        "--checkpoint-action": "exec=",
    },
}
CLUSTERED_OPTIONS = frozenset(("tar",))  # its short options cluster (`tar -xzI CMD`)
# options whose value is a file it reads (and may print) whatever it does (commands.py, through
# programs/table.py), and variables it takes options from as if given first
CONTENT_OPTIONS: dict[str, tuple[str, ...]] = {"tar": ("-T", "--files-from", "-X", "--exclude-from")}
ENV_OPTIONS: dict[str, tuple[str, ...]] = {"tar": ("TAR_OPTIONS",)}


def old_form(args: list[str]) -> bool:
    """`tar xf A`: its first word is read before the options TAR_OPTIONS adds, so they cannot be
    placed in front (commands.py, through programs/table.py)."""
    return bool(args) and not args[0].startswith("-")


ENV_OPTIONS_UNPLACEABLE = {"tar": old_form}


@dataclass(slots=True)
class TarArgs:
    modes: set[str]  # c x t r u A d, or --delete
    archive: str | None
    directories: list[str]  # every `-C DIR`
    members: list[tuple[str | None, str]]  # (the -C in force, operand)
    lists: list[str]  # `-T FILE`
    absolute: bool
    remove_files: bool
    top_level: list[str]


# tar's short options that take a value, and its long ones this reading needs (`--dir=` is an
# abbreviation of `--directory=`: getopt takes any unambiguous one)
_TAR_SHORT_VALUES = frozenset("fCbTXKNgLVIFH")  # not `s`: that is --preserve-order
_TAR_LONG = (
    "--file", "--directory", "--files-from", "--exclude-from", "--one-top-level", "--extract", "--get",
    "--create", "--append", "--update", "--catenate", "--concatenate", "--delete", "--list", "--diff",
    "--compare", "--absolute-names", "--remove-files", "--use-compress-program", "--to-command", "--exclude",
    "--transform", "--xform", "--owner", "--group", "--mode", "--mtime", "--format", "--blocking-factor",
    "--record-size", "--label", "--newer", "--newer-mtime", "--after-date", "--starting-file",
    "--listed-incremental", "--tape-length", "--info-script", "--new-volume-script", "--rsh-command",
    "--rmt-command", "--checkpoint-action", "--strip-components", "--index-file", "--suffix", "--volno-file",
)  # fmt: skip
_TAR_LONG_VALUES = frozenset(
    ("--file", "--directory", "--files-from", "--exclude-from", "--use-compress-program", "--to-command",
     "--exclude", "--transform", "--xform", "--owner", "--group", "--mode", "--mtime", "--format",
     "--blocking-factor", "--record-size", "--label", "--newer", "--newer-mtime", "--after-date", "--starting-file",
     "--listed-incremental", "--tape-length", "--info-script", "--new-volume-script", "--rsh-command",
     "--rmt-command", "--checkpoint-action", "--strip-components", "--index-file", "--suffix", "--volno-file")
)  # fmt: skip
_TAR_MODE_LONG = {
    "--extract": "x", "--get": "x", "--create": "c", "--append": "r", "--update": "u", "--catenate": "A",
    "--concatenate": "A", "--delete": "--delete", "--list": "t", "--diff": "d", "--compare": "d",
}  # fmt: skip


def read_tar(args: list[str]) -> TarArgs:
    """tar's arguments as GNU tar reads them: the old form (`tar czf A DIR`), clusters with a
    value at their end or attached (`-czf/x.tar`, `-C/dir`), long options and their abbreviations."""
    t = TarArgs(set(), None, [], [], [], False, False, [])
    where: str | None = None
    queue: list[str] = []  # old form: the letters whose values the next words are
    i = 0

    def value_of(letter: str, value: str) -> None:
        nonlocal where
        if letter == "f":
            t.archive = value
        elif letter == "C":
            where = value if value.startswith("/") or where is None else where.rstrip("/") + "/" + value
            t.directories.append(where)
        elif letter == "T":
            t.lists.append(value)

    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else DYN
        if i == 0 and not a.startswith("-"):  # the old form: `tar czf A ...`
            for letter in a:
                if letter in "cxtruAd":
                    t.modes.add(letter)
                elif letter == "P":
                    t.absolute = True
                elif letter in _TAR_SHORT_VALUES:
                    queue.append(letter)
            i += 1
            continue
        if queue:  # the old form's values come first, in the letters' order, `-` included
            value_of(queue.pop(0), a)
            i += 1
            continue
        if a == "--":
            t.members += [(where, m) for m in args[i + 1 :]]
            break
        if a.startswith("--"):
            key, eq, val = a.partition("=")
            key = long_option(key, _TAR_LONG)
            value = val if eq else nxt
            if key in _TAR_MODE_LONG:
                t.modes.add(_TAR_MODE_LONG[key])
            elif key == "--absolute-names":
                t.absolute = True
            elif key == "--remove-files":
                t.remove_files = True
            elif key == "--one-top-level":
                if eq:
                    t.top_level.append(val)
            elif key in ("--file", "--directory", "--files-from"):
                value_of({"--file": "f", "--directory": "C", "--files-from": "T"}[key], value)
                i += 1 if eq else 2
                continue
            elif key in _TAR_LONG_VALUES and not eq:
                i += 2
                continue
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            for k, letter in enumerate(a[1:], 1):
                if letter in "cxtruAd":
                    t.modes.add(letter)
                elif letter == "P":
                    t.absolute = True
                elif letter in _TAR_SHORT_VALUES:
                    rest = a[k + 1 :]
                    value_of(letter, rest or nxt)
                    i += 0 if rest else 1
                    break
            i += 1
            continue
        t.members.append((where, a))
        i += 1
    return t


def tar(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
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


def archives_tree(args: Sequence[str]) -> bool:
    """Whether tar reads its operands recursively: when it archives (recursive.py)."""
    return bool(read_tar(list(args)).modes & {"c", "r", "u"})


RECURSES = {"tar": archives_tree}  # read by recursive.py through programs/table.py
