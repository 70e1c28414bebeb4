"""Coreutils that change files: `rm`, `cp`/`mv`/`install`/`ln`/`rsync`/`scp`, `tee`, `dd`,
`touch`/`mkdir`/`chmod`/`chown`/`truncate`...; `printf` text."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from agent.policy.facts import DYN, GLOB
from agent.policy.invocation import DEVNULL, Ctx, Invocation, PathRef, Scope, WriteEffect
from agent.policy.options import cluster_option, long_option, operands, option_values
from agent.policy.programs.base import recurses_by_flags
from agent.policy.shellparse import decode_ansi_c

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


# options whose value is a command it runs, and the prefix the value must have ("" for any):
# found and judged by hooks.py as if the command ran where it stands
COMMAND_OPTIONS: dict[str, dict[str, str]] = {
    "rsync": {"-e": "", "--rsh": "", "--rsync-path": ""},
    "scp": {"-S": ""},
    "install": {"--strip-program": ""},
}
CLUSTERED_OPTIONS = frozenset(("rsync", "scp"))  # their short options cluster (`rsync -avze CMD`)
SSH_OPTIONS = frozenset(("rsync", "scp"))  # they take ssh's `-o ProxyCommand=CMD` (hooks.py)
# options whose value is a file it reads (and may print) whatever it does (commands.py, through
# programs/table.py)
CONTENT_OPTIONS: dict[str, tuple[str, ...]] = {"rsync": ("--files-from", "--exclude-from", "--include-from")}
# variables whose value it runs as a command line (hooks.py, through programs/table.py)
COMMAND_ENV = frozenset(("RSYNC_RSH", "RSYNC_CONNECT_PROG"))  # the latter run to reach an rsync:// daemon
# the letters of a short-option cluster that make it copy a tree, and the long options: a
# recursive read (recursive.py, through programs/table.py)
RECURSIVE_FLAGS: dict[str, tuple[str, frozenset[str]]] = {
    "cp": ("rRa", frozenset(("--recursive", "--archive"))),
    "rsync": ("ra", frozenset(("--recursive", "--archive"))),
    "scp": ("r", frozenset()),
}


# options of the copying programs that take a value (short ones may end a cluster: `-ft/models`)
_COPY_VALUES: dict[str, frozenset[str]] = {
    "cp": frozenset(("-S", "--suffix", "-t", "--target-directory", "--sparse", "--no-preserve")),
    "install": frozenset(
        ("-S", "--suffix", "-t", "--target-directory", "-m", "--mode", "-o", "--owner", "-g", "--group",
         "--strip-program")
    ),
    "scp": frozenset(("-c", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X", "-D")),
    "rsync": frozenset(
        ("-e", "--rsh", "-B", "--block-size", "-T", "--temp-dir", "-f", "--filter", "-M", "--remote-option",
         "--exclude", "--include", "--exclude-from", "--include-from", "--files-from", "--rsync-path", "--log-file",
         "--log-file-format", "--password-file", "--partial-dir", "--backup-dir", "--suffix", "--compare-dest",
         "--copy-dest", "--link-dest", "--chmod", "--chown", "--usermap", "--groupmap", "--timeout", "--contimeout",
         "--address", "--port", "--sockopts", "--out-format", "--bwlimit", "--max-size", "--min-size",
         "--max-delete", "--max-alloc", "--modify-window", "--iconv", "--write-batch", "--only-write-batch",
         "--read-batch", "--protocol", "--checksum-choice", "--cc", "--compress-choice", "--zc",
         "--compress-level", "--zl", "--skip-compress", "--info", "--debug", "--stderr", "--outbuf",
         "--copy-as", "--stop-after", "--stop-at", "--time-limit", "--checksum-seed", "--early-input")
    ),
}  # fmt: skip


_COPY_VALUES["mv"] = _COPY_VALUES["ln"] = frozenset(("-S", "--suffix", "-t", "--target-directory"))


# rsync options naming a file or directory it writes
RSYNC_WRITTEN_OPTIONS = frozenset(
    ("--log-file", "-T", "--temp-dir", "--backup-dir", "--partial-dir", "--write-batch", "--only-write-batch")
)


RSYNC_DIRS = frozenset(("-T", "--temp-dir", "--backup-dir", "--partial-dir"))


_GNU_TARGET = "--target-directory"


def _makes_symlinks(args: list[str], long: str) -> bool:
    """`ln -s`/`--sym...`, `cp -s`/`--symbolic-link`: `-s` in a cluster, or `long` abbreviated."""
    return any(a.startswith("-") and not a.startswith("--") and "s" in a for a in args) or any(
        len(a) > 3 and long.startswith(a) for a in args
    )


_PRINTF_SPEC = re.compile(r"%(%|[sbd])")


def printf_text(fmt: str, args: list[str]) -> str | None:
    """What `printf FORMAT ARGS...` prints when FORMAT uses only %s, %b, %d and %%: the format is
    reused until the arguments run out, as bash does; None for anything else."""
    if fmt.startswith("-") or re.search(r"%(?![sbd])", fmt.replace("%%", "")):
        return None
    template = decode_ansi_c(fmt)
    if not _PRINTF_SPEC.search(template.replace("%%", "")):
        return template.replace("%%", "%")
    out: list[str] = []
    rest = list(args)
    while True:

        def fill(m: re.Match[str]) -> str:
            if m.group(1) == "%":
                return "%"
            value = rest.pop(0) if rest else ""
            return decode_ansi_c(value) if m.group(1) == "b" else value

        out.append(_PRINTF_SPEC.sub(fill, template))
        if not rest:
            return "".join(out)


def _cp_keeps_links(args: list[str]) -> bool:
    short = "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
    return any(c in short for c in "PdaRr") or any(
        a.startswith(("--no-dereference", "--archive", "--recursive")) for a in args
    )


def copy_operands(name: str, args: list[str]) -> tuple[list[str], str | None, list[tuple[str, str]]]:
    """(operands, the `-t DIR` target if given, (option, value) pairs) of cp, mv, ln, install, scp
    or rsync, read as their option parsers read them: `-t/models`, `-ft/models`, `--target=/models`
    (GNU takes any unambiguous abbreviation of a long option), `rsync -P` (a flag)."""
    values = _COPY_VALUES.get(name, frozenset(("-S", "--suffix")))
    gnu = name in ("cp", "mv", "ln", "install")
    pos: list[str] = []
    valued: list[tuple[str, str]] = []
    target: str | None = None
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else DYN
        if a == "--":
            pos += args[i + 1 :]
            break
        if a.startswith("--"):
            key, eq, val = a.partition("=")
            if gnu and len(key) > 3 and _GNU_TARGET.startswith(key):
                key = _GNU_TARGET
            if key in values:
                valued.append((key, val if eq else nxt))
                i += 1 if eq else 2
                continue
            i += 1
            continue
        if a.startswith("-") and a != "-":
            hit = cluster_option(a, values)
            if hit is not None:
                opt, rest = hit
                valued.append((opt, rest or nxt))
                i += 0 if rest else 1
            i += 1
            continue
        pos.append(a)
        i += 1
    for opt, value in valued:
        if opt in ("-t", _GNU_TARGET) and name != "scp":
            target = value
    return pos, target, valued


# what `find -exec PROGRAM {}` may run on files found beneath its starting points
CHANGERS = frozenset(("rm", "rmdir", "unlink", "shred", "mv", "truncate", "chmod", "chown", "chgrp", "touch"))


# a symbolic chmod mode, `-w,o=` and `u+x,g-w` included (a leading `-` is not an option there)
_CHMOD_MODE = re.compile(r"^[ugoa]*[-+=][rwxXstugo]*(,[ugoa]*[-+=][rwxXstugo]*)*$")


def rm(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    ends = False
    for a in argv[1:]:
        if a == "--" and not ends:
            ends = True
            continue
        if a.startswith("-") and not ends and a != "-":
            continue
        inv.deletes.append(delete_ref(an, a))


def delete_ref(an: Analysis, raw: str) -> PathRef:
    """A trailing slash (or `/.`) makes rm follow a symlink: the target is what goes."""
    ref = an._path(raw)
    if raw.endswith(("/", "/.")) and len(ref.aliases) == 1 and an.links.get(ref.aliases[0]) is None:
        return ref
    return ref


def copylike(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    name = inv.program
    args = argv[1:]
    pos, target_dir, valued = copy_operands(name, args)
    if target_dir is None and pos:
        dest, sources = pos[-1], pos[:-1]
    else:
        dest, sources = target_dir or DYN, pos
    remote = re.match(r"^[^/]*:", dest) and name in ("scp", "rsync")
    if name in ("cp", "rsync") and not remote and DYN not in dest and recurses_by_flags(args, *RECURSIVE_FLAGS[name]):
        # a tree copied from elsewhere: files the gate has not seen (a `.git/config`, a `json.py`)
        an._unpacked(dest)
        for src in sources:
            an._unpacked(dest.rstrip("/") + "/" + posixpath.basename(src.rstrip("/")))
    if name == "ln":
        symbolic = _makes_symlinks(args, "--symbolic")
        if len(pos) == 1 and target_dir is None:
            dest, sources = posixpath.basename(pos[0]), pos
        inv.writes.append(WriteEffect(an._path(dest)))
        for src in sources:  # what the link points at is read through it later (`ln -s ~/.ssh/id_rsa k`)
            inv.reads.append(
                an._path(src)
                if not symbolic or src.startswith(("/", "~"))
                else an._path(src, cwd=posixpath.dirname(an._path(dest).aliases[0]))
            )
        if symbolic and len(sources) == 1 and DYN not in dest:
            link = an._path(dest).aliases[0]
            an.links[link] = an._path(sources[0], cwd=posixpath.dirname(link)).aliases[0]
        return
    if not remote:
        inv.writes.append(WriteEffect(an._path(dest)))
        if name in ("cp", "mv", "install") and DYN not in dest:
            # into a directory, each source lands as DEST/NAME (a pid file in run/, say)
            for src in sources:
                inside = dest.rstrip("/") + "/" + posixpath.basename(src.rstrip("/"))
                inv.writes.append(WriteEffect(an._path(inside)))
                made = an._path(inside if target_dir is not None or len(sources) > 1 else dest)
                if name == "cp" and _makes_symlinks(args, "--symbolic-link"):  # `cp -s T L` makes L a link to T
                    an.links[made.aliases[0]] = an._path(src).aliases[0]
                elif name in ("cp", "mv"):  # a link copied as a link (`cp -P`, `-a`, `-R`; mv) still points there
                    target = an.links.get(an._path(src).aliases[0])
                    if target is not None and (name == "mv" or _cp_keeps_links(args)):
                        an.links[made.aliases[0]] = target
        backup = any(
            a == "--backup" or a.startswith("--backup=") or (a[:1] == "-" and a[1:2] != "-" and "b" in a) for a in args
        )
        if name in ("cp", "mv", "install", "ln") and (backup or any(o in ("-S", "--suffix") for o, _ in valued)):
            suffix = next((v for o, v in valued if o in ("-S", "--suffix")), "~")
            inv.writes.append(WriteEffect(an._path(dest + suffix)))  # the old DEST is kept as DEST~
        if any(a.startswith("--del") for a in args):  # `--del` is `--delete-during`
            inv.deletes.append(an._path(dest.rstrip("/") + "/" + GLOB))
    for opt, value in valued:
        if opt in RSYNC_WRITTEN_OPTIONS:  # `--log-file=F`, `--temp-dir=D`, `--backup-dir=D`, ...
            inv.writes.append(WriteEffect(an._path(value.rstrip("/") + ("/" + GLOB if opt in RSYNC_DIRS else ""))))
    # rsync's `--remove-sent-files` is the old name of `--remove-source-files`
    moves = name == "mv" or (name == "rsync" and any(a.startswith("--remove-s") for a in args))
    for s in sources:
        if re.match(r"^[^/]*:", s) and name in ("scp", "rsync"):
            continue
        ref = an._path(s)
        inv.reads.append(ref)
        if moves:
            inv.deletes.append(delete_ref(an, s) if name == "rsync" else ref)


def tee(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    content = ctx.stdin.text if ctx.stdin.kind == "literal" and DYN not in ctx.stdin.text else None
    for a in argv[1:]:
        if a.startswith("-") and a != "-":
            continue
        ref = an._path(a)
        if ref.aliases[0] in DEVNULL:
            continue
        inv.writes.append(WriteEffect(ref, content))


def dd(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    content = ctx.stdin.text if ctx.stdin.kind == "literal" else None
    for a in argv[1:]:
        k, _, v = a.partition("=")
        if k == "of":
            ref = an._path(v)
            if ref.aliases[0] not in DEVNULL:
                inv.writes.append(WriteEffect(ref, content))
        elif k == "if":
            inv.reads.append(an._path(v))


def mknod(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """`mknod NAME c|b|u MAJOR MINOR`: NAME is that device from here on (its number, not its name,
    is what the kernel opens), and NAME is written."""
    given = operands(argv[1:], ("-m", "--mode", "-Z", "--context"))
    if not given:
        return
    ref = an._path(given[0])
    inv.writes.append(WriteEffect(ref))
    if len(given) >= 4 and given[1] in ("b", "c", "u") and given[2].isdigit() and given[3].isdigit():
        kind = "b" if given[1] == "b" else "c"
        an.links[ref.aliases[0]] = f"/dev/{'block' if kind == 'b' else 'char'}/{int(given[2])}:{int(given[3])}"
    elif len(given) >= 2 and given[1] != "p":
        an.links[ref.aliases[0]] = "/dev/" + DYN  # a device whose number is only known at run time


def targets_write(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """touch, mkdir, truncate, chmod, chown, shred, mkfs...: their operands are written."""
    name = inv.program
    value_opts = {
        "-s",
        "--size",
        "-r",
        "--reference",
        "-m",
        "--mode",
        "-n",
        "--iterations",
        "-t",
        "-d",
        "--date",
    }
    args = argv[1:]
    # `chmod --reference=F FILE`: the mode comes from F, so every operand is a file
    referenced = name in ("chmod", "chown", "chgrp") and any(
        a.startswith("--") and long_option(a.partition("=")[0], ("--reference",)) == "--reference" for a in args
    )
    skip_first = name in ("chmod", "chown", "chgrp", "setfacl", "chattr") and not referenced
    pos: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in value_opts and name in ("truncate", "shred", "mkdir", "touch", "install"):
            i += 2
            continue
        if referenced and a in ("--reference", "--refer", "--ref"):
            i += 2
            continue
        if not a.startswith("-") or (skip_first and not pos and _CHMOD_MODE.match(a)):
            pos.append(a)
        i += 1
    if skip_first:
        pos = pos[1:]
    for p in pos:
        ref = an._path(p)
        inv.writes.append(WriteEffect(ref))
        if name in ("shred",) and any(a.startswith("-") and "u" in a for a in args):
            inv.deletes.append(ref)


# -- files written beyond their operands (outputs.py asks for them through programs/table.py)

_SPLIT_VALUE_OPTIONS = frozenset(
    ("-a", "--suffix-length", "-b", "--bytes", "-C", "--line-bytes", "-l", "--lines", "-n", "--number", "-t",
     "--separator", "--additional-suffix", "--filter")
)  # fmt: skip


def patch_outputs(args: list[str]) -> list[str]:
    """The files its diff names, under `-d DIR`; or the one `-o FILE`."""
    given = [v for _, v in option_values(args, ("-o", "--output"), clustered=False)]
    where = [v for _, v in option_values(args, ("-d", "--directory"), clustered=False)]
    return given or [(where[-1] if where else ".").rstrip("/") + "/" + GLOB]


def split_outputs(args: list[str]) -> list[str]:
    """Files named PREFIX + a suffix: `split IN PREFIX` (`x` by default)."""
    words = operands(args, _SPLIT_VALUE_OPTIONS)
    return [(words[1] if len(words) > 1 else "x") + GLOB]


def csplit_outputs(args: list[str]) -> list[str]:
    """Files named PREFIX + a number: `csplit -f PREFIX` (`xx` counts as `x` + GLOB)."""
    prefix = [v for _, v in option_values(args, ("-f", "--prefix"), clustered=False)]
    return [(prefix[-1] if prefix else "x") + GLOB]


OUTPUTS = {"patch": patch_outputs, "split": split_outputs, "csplit": csplit_outputs}
