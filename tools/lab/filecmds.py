"""File commands whose answers depend on sizes and trees: `ls`, `stat`, `du`, `find`.

Model shards are sparse entries in the lab (a declared size, a few real bytes), so every size
shown here comes from `files.size_of`, the one place that knows both kinds of entry."""

from __future__ import annotations

import fnmatch
import math
import posixpath
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from tools.lab.shell import Call, Result

if TYPE_CHECKING:
    from tools.lab.shell import Shell

QUICK = 0.05


def _err(sh: Shell, prog: str, msg: str, code: int = 1) -> Result:
    return Result(stderr=f"{prog}: {msg}\n", code=code, duration=QUICK)


def _size(sh: Shell, full: str) -> int:
    """Apparent size: a directory is one 4 KiB block (ext4), a sparse shard its declared size."""
    if sh.fs.is_dir(full):
        return 4096
    entry = sh.host.files.get(sh.fs.canonical(full))
    return entry.size_at(sh.host.clock.now()) if entry is not None else 0


def _blocks(size: int) -> int:
    """Bytes allocated on disk: whole 4 KiB blocks."""
    return -(-size // 4096) * 4096


def human(size: float) -> str:
    """GNU coreutils' -h: powers of 1024, rounded up, one decimal below 10."""
    if size < 1024:
        return str(int(size))
    value = float(size)
    for unit in "KMGTPE":
        value /= 1024
        if value < 1024 or unit == "E":
            if value < 10:
                return f"{math.ceil(value * 10) / 10:.1f}{unit}"
            return f"{math.ceil(value)}{unit}"
    return str(size)


def ls(sh: Shell, c: Call) -> Result:
    opts = "".join(a[1:] for a in c.argv[1:] if a.startswith("-") and not a.startswith("--"))
    readable = "h" in opts or "--human-readable" in c.argv
    paths = [a for a in c.argv[1:] if not a.startswith("-")] or [sh.cwd]
    out, err, code = [], [], 0
    for p in paths:
        full = sh.path(p)
        if not sh.fs.exists(full):
            err.append(f"ls: cannot access '{p}': No such file or directory\n")
            code = 2
            continue
        if sh.fs.is_dir(full) and "d" not in opts:
            names = sh.fs.listdir(full)
            if "a" in opts:
                names = [".", "..", *names]
            if len(paths) > 1:
                out.append(f"{p}:\n")
            if "l" in opts:
                fulls = [posixpath.normpath(posixpath.join(full, n)) for n in names]
                total = sum(_blocks(_size(sh, f)) for f in fulls)
                out.append(f"total {human(total) if readable else total // 1024}\n")
                cells = [human(_size(sh, f)) if readable else str(_size(sh, f)) for f in fulls]
                width = max((len(x) for x in cells), default=1)
                out += [_long(sh, f, n, readable, width) for f, n in zip(fulls, names, strict=True)]
            else:
                out += [n + "\n" for n in names]
        else:
            out.append(_long(sh, full, p, readable) if "l" in opts else p + "\n")
    return Result("".join(out), "".join(err), code, duration=QUICK)


def _long(sh: Shell, full: str, shown: str, readable: bool = False, width: int = 1) -> str:
    entry = sh.host.files.get(sh.fs.canonical(full))
    is_dir = sh.fs.is_dir(full)
    when = entry.content(sh.host.clock.now())[1] if entry else 0.0
    size = _size(sh, full)
    mtime = sh.host.clock.datetime_at(when)
    owner = sh.user if full.startswith(sh.host.home) else "root"
    mode = "drwxr-xr-x" if is_dir else "-rw-r--r--"
    cell = human(size) if readable else str(size)
    return f"{mode} 1 {owner} {owner} {cell:>{width}} {mtime:%b} {mtime.day:>2} {mtime:%H:%M} {shown}\n"


def stat(sh: Shell, c: Call) -> Result:
    paths = [a for a in c.argv[1:] if not a.startswith("-") and not a.startswith("%")]
    fmt = next((c.argv[i + 1] for i, a in enumerate(c.argv) if a in ("-c", "--format") and i + 1 < len(c.argv)), None)
    if fmt is None:
        fmt = next((a.split("=", 1)[1] for a in c.argv[1:] if a.startswith(("--format=", "--printf="))), None)
        paths = [p for p in paths if p != fmt]
    elif fmt in paths:
        paths.remove(fmt)
    out = []
    for p in paths:
        full = sh.path(p)
        entry = sh.host.files.get(sh.fs.canonical(full))
        if entry is None and not sh.fs.is_dir(full):
            return _err(sh, "stat", f"cannot statx '{p}': No such file or directory")
        mtime = entry.content(sh.host.clock.now())[1] if entry else 0.0
        size = _size(sh, full)
        if fmt:
            kind = "directory" if sh.fs.is_dir(full) else "regular file" if size else "regular empty file"
            fields = {
                "%s": str(size),
                "%Y": str(int(sh.host.clock.timestamp(mtime))),
                "%n": p,
                "%b": str(_blocks(size) // 512),
                "%B": "512",
                "%F": kind,
            }
            out.append(_fill(fmt, r"%[sYnbBF]", fields))
        else:
            out.append(f"  File: {p}\n  Size: {size:<15} Blocks: {_blocks(size) // 512:<10} IO Block: 4096")
    return Result("".join(o + "\n" for o in out), duration=QUICK)


def _tree(sh: Shell, full: str) -> list[str]:
    """`full` and everything under it, depth first in name order (directories before their contents)."""
    out = [full]
    if sh.fs.is_dir(full):
        for name in sh.fs.listdir(full):
            out += _tree(sh, posixpath.join(full, name))
    return out


def du(sh: Shell, c: Call) -> Result:
    flags = [a for a in c.argv[1:] if a.startswith("-")]
    short = "".join(a[1:] for a in flags if not a.startswith("--"))
    apparent = "b" in short or "--apparent-size" in flags or "--bytes" in flags
    unit = 1 if ("b" in short or "--bytes" in flags or "-B1" in flags or "--block-size=1" in flags) else 1024
    unit = 1024 * 1024 if "m" in short else unit
    readable = "h" in short or "--human-readable" in flags
    summary = "s" in short or "--summarize" in flags
    out, err, code, grand = [], [], 0, 0

    def cell(n: int) -> str:
        return human(n) if readable else str(-(-n // unit))

    for p in [a for a in c.argv[1:] if not a.startswith("-")] or ["."]:
        full = sh.path(p)
        if not sh.fs.exists(full):
            err.append(f"du: cannot access '{p}': No such file or directory\n")
            code = 1
            continue
        totals: dict[str, int] = {}
        for node in reversed(_tree(sh, full)):
            size = _size(sh, node) if apparent else _blocks(_size(sh, node))
            totals[node] = totals.get(node, 0) + size
            parent = posixpath.dirname(node)
            if node != full:
                totals[parent] = totals.get(parent, 0) + totals[node]
        if not summary:
            for node in reversed(_tree(sh, full)):
                if node != full and sh.fs.is_dir(node):
                    out.append(f"{cell(totals[node])}\t{p.rstrip('/')}/{posixpath.relpath(node, full)}\n")
        out.append(f"{cell(totals[full])}\t{p}\n")
        grand += totals[full]
    if "c" in short or "--total" in flags:
        out.append(f"{cell(grand)}\ttotal\n")
    return Result("".join(out), "".join(err), code, duration=0.5)


FIND_UNITS = {"b": 512, "c": 1, "w": 2, "k": 1024, "M": 1024**2, "G": 1024**3}


def _size_test(spec: str) -> Callable[[int], bool] | None:
    """find's -size: the size rounded up to whole units, compared with N (+N: more, -N: less)."""
    m = re.fullmatch(r"([+-]?)(\d+)([bcwkMG]?)", spec)
    if m is None:
        return None
    sign, n, unit = m.group(1), int(m.group(2)), FIND_UNITS[m.group(3) or "b"]

    def test(size: int) -> bool:
        units = -(-size // unit)
        return units > n if sign == "+" else units < n if sign == "-" else units == n

    return test


def _printf(fmt: str, path: str, size: int) -> str:
    fields = {"%s": str(size), "%p": path, "%f": posixpath.basename(path), "%k": str(_blocks(size) // 1024)}
    text = re.sub(r"%[spfk%]", lambda m: "%" if m.group(0) == "%%" else fields[m.group(0)], fmt)
    return text.replace("\\n", "\n").replace("\\t", "\t")


def _fill(fmt: str, pattern: str, fields: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        return fields[m.group(0)]

    return re.sub(pattern, one, fmt)


FindTest = Callable[[str, str, int], bool]  # (full path, path as shown, size) -> matches


def _name_test(pattern: str, fold: bool) -> FindTest:
    def test(full: str, shown: str, size: int) -> bool:
        name = posixpath.basename(full)
        return fnmatch.fnmatchcase(name.lower(), pattern.lower()) if fold else fnmatch.fnmatchcase(name, pattern)

    return test


def _type_test(sh: Shell, want_dir: bool) -> FindTest:
    def test(full: str, shown: str, size: int) -> bool:
        return sh.fs.is_dir(full) == want_dir

    return test


def _size_pred(size_test: Callable[[int], bool]) -> FindTest:
    def test(full: str, shown: str, size: int) -> bool:
        return size_test(size)

    return test


def find(sh: Shell, c: Call) -> Result:
    args = c.argv[1:]
    roots = []
    while args and not args[0].startswith(("-", "(", "!")):
        roots.append(args.pop(0))
    tests: list[FindTest] = []
    maxdepth, mindepth, printf = 1 << 30, 0, None
    i = 0
    while i < len(args):
        op, val = args[i], args[i + 1] if i + 1 < len(args) else None
        if op == "-print":
            i += 1
            continue
        if val is None:
            return _err(sh, "find", f"missing argument to `{op}'")
        if op == "-maxdepth" and val.isdigit():
            maxdepth = int(val)
        elif op == "-mindepth" and val.isdigit():
            mindepth = int(val)
        elif op in ("-name", "-iname"):
            tests.append(_name_test(val, op == "-iname"))
        elif op == "-type" and val in ("f", "d"):
            tests.append(_type_test(sh, val == "d"))
        elif op == "-size" and (size_test := _size_test(val)) is not None:
            tests.append(_size_pred(size_test))
        elif op == "-printf":
            printf = val
        else:
            return _err(
                sh,
                "find",
                f"unknown predicate `{op}'" if op.startswith("-") else f"paths must precede expression: `{op}'",
            )
        i += 2
    out, err, code = [], [], 0
    for root in roots or ["."]:
        full_root = sh.path(root)
        if not sh.fs.exists(full_root):
            err.append(f"find: '{root}': No such file or directory\n")
            code = 1
            continue
        for full in _tree(sh, full_root):
            rel = posixpath.relpath(full, full_root)
            depth = 0 if rel == "." else rel.count("/") + 1
            if depth > maxdepth or depth < mindepth:
                continue
            shown = root if rel == "." else f"{root.rstrip('/')}/{rel}"
            size = _size(sh, full)
            if all(t(full, shown, size) for t in tests):
                out.append(_printf(printf, shown, size) if printf is not None else shown + "\n")
    return Result("".join(out), "".join(err), code, duration=0.1)
