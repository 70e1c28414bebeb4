"""File commands whose answers depend on sizes and trees: `ls`, `stat`, `du`, `find`.

Model shards are sparse entries in the lab (a declared size, a few real bytes), so every size
shown here comes from `files.size_of`, the one place that knows both kinds of entry."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from tools.lab.shell import Call, Result

if TYPE_CHECKING:
    from tools.lab.shell import Shell

QUICK = 0.05


def _err(sh: Shell, prog: str, msg: str, code: int = 1) -> Result:
    return Result(stderr=f"{prog}: {msg}\n", code=code, duration=QUICK)


def ls(sh: Shell, c: Call) -> Result:
    opts = "".join(a[1:] for a in c.argv[1:] if a.startswith("-") and not a.startswith("--"))
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
                out.append(f"total {len(names) * 4}\n")
                out += [_long(sh, posixpath.join(full, n), n) for n in names]
            else:
                out += [n + "\n" for n in names]
        else:
            out.append(_long(sh, full, p) if "l" in opts else p + "\n")
    return Result("".join(out), "".join(err), code, duration=QUICK)


def _long(sh: Shell, full: str, shown: str) -> str:
    entry = sh.host.files.get(sh.fs.canonical(full))
    is_dir = sh.fs.is_dir(full)
    data, when = entry.content(sh.host.clock.now()) if entry else (b"", 0.0)
    size = 4096 if is_dir else len(data)
    mtime = sh.host.clock.datetime_at(when)
    owner = sh.user if full.startswith(sh.host.home) else "root"
    mode = "drwxr-xr-x" if is_dir else "-rw-r--r--"
    return f"{mode} 1 {owner} {owner} {size:>8} {mtime:%b} {mtime.day:>2} {mtime:%H:%M} {shown}\n"


def stat(sh: Shell, c: Call) -> Result:
    paths = [a for a in c.argv[1:] if not a.startswith("-") and not a.startswith("%")]
    fmt = next((c.argv[i + 1] for i, a in enumerate(c.argv) if a in ("-c", "--format") and i + 1 < len(c.argv)), None)
    out = []
    for p in paths:
        full = sh.path(p)
        entry = sh.host.files.get(full)
        if entry is None and not sh.fs.is_dir(full):
            return _err(sh, "stat", f"cannot statx '{p}': No such file or directory")
        data, mtime = entry.content(sh.host.clock.now()) if entry else (b"", 0.0)
        if fmt:
            text = fmt.replace("%s", str(len(data))).replace("%Y", str(int(sh.host.clock.timestamp(mtime))))
            out.append(text.replace("%n", p))
        else:
            out.append(f"  File: {p}\n  Size: {len(data)}")
    return Result("".join(o + "\n" for o in out), duration=QUICK)


def du(sh: Shell, c: Call) -> Result:
    out, err, code = [], [], 0
    for p in [a for a in c.argv[1:] if not a.startswith("-")] or ["."]:
        full = sh.path(p)
        model = sh.host.scenario.model(full)
        if model is not None:
            size = f"{model.size_gb / 1.073741824:.0f}G"
        elif sh.fs.exists(full):
            size = "4.0K"
        else:
            err.append(f"du: cannot access '{p}': No such file or directory\n")
            code = 1
            continue
        out.append(f"{size}\t{p}\n")
    return Result("".join(out), "".join(err), code, duration=0.5)
