"""Handlers for the commands the lab answers: coreutils the tools use, process and socket
listings, signals, power and VM commands, and the GPU-facing programs (nvidia-smi, lspci, dmesg,
systemd-detect-virt). Python and curl live in `pyexec` and `curl`."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from tools.lab import curl, diskcmds, filecmds, kernelcmds, nvidia, proccmds, pyexec, sglang_flags, sysfs
from tools.lab.shell import Call, Handler, Result
from tools.lab.sysfs import FsError

if TYPE_CHECKING:
    from tools.lab.shell import Shell

QUICK = 0.05


def _err(sh: Shell, prog: str, msg: str, code: int = 1) -> Result:
    return Result(stderr=f"{prog}: {msg}\n", code=code, duration=QUICK)


# ---- text tools ---------------------------------------------------------------------------------


def _true(sh: Shell, c: Call) -> Result:
    return Result(duration=0.01)


def _false(sh: Shell, c: Call) -> Result:
    return Result(code=1, duration=0.01)


def _echo(sh: Shell, c: Call) -> Result:
    args, newline = c.argv[1:], True
    while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
        newline = newline and "n" not in args[0]
        args = args[1:]
    return Result(" ".join(args) + ("\n" if newline else ""), duration=0.01)


def _printf(sh: Shell, c: Call) -> Result:
    if len(c.argv) < 2:
        return _err(sh, "printf", "usage: printf [-v var] format [arguments]", 2)
    fmt = c.argv[1].replace("\\n", "\n").replace("\\t", "\t")
    args = c.argv[2:]
    try:
        text = fmt.replace("%s", "{}").format(*args) if args else fmt
    except IndexError:
        text = fmt
    return Result(text, duration=0.01)


def _read(sh: Shell, prog: str, path: str) -> str | Result:
    try:
        return sh.fs.read(sh.path(path)).decode(errors="replace")
    except FsError as exc:
        return _err(sh, prog, f"{path}: {exc.reason}")


def _inputs(sh: Shell, c: Call, prog: str, files: list[str]) -> tuple[str, str, int]:
    if not files:
        return c.stdin, "", 0
    out, err, code = [], [], 0
    for f in files:
        r = _read(sh, prog, f)
        if isinstance(r, Result):
            err.append(r.stderr)
            code = 1
        else:
            out.append(r)
    return "".join(out), "".join(err), code


def _cat(sh: Shell, c: Call) -> Result:
    files = [a for a in c.argv[1:] if not a.startswith("-") or a == "-"]
    out, err, code = _inputs(sh, c, "cat", files)
    return Result(out, err, code, duration=QUICK)


def _count_arg(args: list[str], default: int) -> tuple[int, list[str], bool]:
    """(-n N | -N | -nN | --lines=N), the remaining args, and whether it was `+N` (tail from line N)."""
    n, rest, plus = default, list[str](), False
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-n", "--lines") and i + 1 < len(args):
            value = args[i + 1]
            plus = value.startswith("+")
            n = int(value.lstrip("+-"))
            i += 2
            continue
        if a.startswith("--lines="):
            n = int(a.split("=", 1)[1].lstrip("+-"))
        elif re.fullmatch(r"-n[+-]?\d+", a):
            plus = a[2] == "+"
            n = int(a[2:].lstrip("+-"))
        elif re.fullmatch(r"-\d+", a):
            n = int(a[1:])
        elif a in ("-q", "-f", "--follow"):
            pass
        else:
            rest.append(a)
        i += 1
    return n, rest, plus


def _bytes_arg(args: list[str]) -> tuple[int | None, list[str]]:
    """`-c N` / `-cN` / `--bytes=N` for head and tail, and the remaining args."""
    rest: list[str] = []
    count: int | None = None
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-c", "--bytes") and i + 1 < len(args):
            count = int(args[i + 1].lstrip("+-"))
            i += 2
            continue
        if re.fullmatch(r"-c\d+", a) or a.startswith("--bytes="):
            count = int(a.split("=", 1)[1] if "=" in a else a[2:])
        else:
            rest.append(a)
        i += 1
    return count, rest


def _head(sh: Shell, c: Call) -> Result:
    nbytes, args = _bytes_arg(c.argv[1:])
    n, files, _ = _count_arg(args, 10)
    text, err, code = _inputs(sh, c, "head", files)
    if nbytes is not None:
        return Result(text.encode()[:nbytes].decode(errors="replace"), err, code, duration=QUICK)
    lines = text.splitlines(keepends=True)[:n]
    return Result("".join(lines), err, code, duration=QUICK)


def _tail(sh: Shell, c: Call) -> Result:
    nbytes, args = _bytes_arg(c.argv[1:])
    n, files, plus = _count_arg(args, 10)
    text, err, code = _inputs(sh, c, "tail", files)
    if nbytes is not None:
        data = text.encode()
        return Result(data[-nbytes:].decode(errors="replace") if nbytes else "", err, code, duration=QUICK)
    lines = text.splitlines(keepends=True)
    chosen = lines[n - 1 :] if plus else (lines[-n:] if n else [])
    return Result("".join(chosen), err, code, duration=QUICK)


def _grep(sh: Shell, c: Call) -> Result:
    flags: set[str] = set()
    rest: list[str] = []
    max_count: int | None = None
    patterns: list[str] = []
    args = c.argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-e", "--regexp") and i + 1 < len(args):
            patterns.append(args[i + 1])
            i += 2
            continue
        if a == "-m" and i + 1 < len(args):
            max_count = int(args[i + 1])
            i += 2
            continue
        if a.startswith("-") and len(a) > 1 and not rest and not a.startswith("--"):
            flags |= set(a[1:])
        elif a.startswith("--"):
            flags.add(a)
        else:
            rest.append(a)
        i += 1
    if not patterns:
        if not rest:
            return _err(sh, "grep", "Usage: grep [OPTION]... PATTERNS [FILE]...", 2)
        patterns, rest = [rest[0]], rest[1:]
    text, err, code = _inputs(sh, c, "grep", rest)
    reflags = re.IGNORECASE if "i" in flags else 0
    fixed = "F" in flags
    regexes = []
    for p in patterns:
        if fixed:
            regexes.append(re.compile(re.escape(p), reflags))
        else:
            # basic regex: \| is alternation, bare | and + are literals; -E makes them operators
            q = p if "E" in flags else p.replace("\\|", "\x00").replace("|", "\\|").replace("\x00", "|")
            if "E" not in flags:
                q = q.replace("\\+", "\x01").replace("+", "\\+").replace("\x01", "+")
            try:
                regexes.append(re.compile(q, reflags))
            except re.error:
                return _err(sh, "grep", "Invalid regular expression", 2)
    hits = []
    for line in text.splitlines():
        found = any(r.search(line) for r in regexes)
        if found != ("v" in flags):
            hits.append(line)
            if max_count is not None and len(hits) >= max_count:
                break
    status = 0 if hits else 1
    if code and not hits:
        status = 2
    if "q" in flags:
        return Result("", err, status, duration=QUICK)
    if "c" in flags:
        return Result(f"{len(hits)}\n", err, status, duration=QUICK)
    return Result("".join(h + "\n" for h in hits), err, status, duration=QUICK)


def _wc(sh: Shell, c: Call) -> Result:
    files = [a for a in c.argv[1:] if not a.startswith("-")]
    text, err, code = _inputs(sh, c, "wc", files)
    opts = "".join(a[1:] for a in c.argv[1:] if a.startswith("-"))
    counts = {"l": text.count("\n"), "w": len(text.split()), "c": len(text.encode())}
    chosen = [counts[k] for k in "lwc" if k in opts] or [counts["l"], counts["w"], counts["c"]]
    if len(chosen) == 1 and not files:
        return Result(f"{chosen[0]}\n", err, code, duration=QUICK)
    return Result(
        " ".join(f"{n:>7}" for n in chosen) + (f" {files[0]}" if files else "") + "\n",
        err,
        code,
        duration=QUICK,
    )


def _leading_number(line: str) -> float:
    m = re.match(r"\s*(-?\d+(?:\.\d+)?)", line)
    return float(m.group(1)) if m else 0.0


def _sort(sh: Shell, c: Call) -> Result:
    files = [a for a in c.argv[1:] if not a.startswith("-")]
    text, err, code = _inputs(sh, c, "sort", files)
    lines = text.splitlines()
    if any("n" in a for a in c.argv[1:] if a.startswith("-")):
        lines.sort(key=_leading_number)
    else:
        lines.sort()
    if any("r" in a for a in c.argv[1:] if a.startswith("-")):
        lines.reverse()
    return Result("".join(line + "\n" for line in lines), err, code, duration=QUICK)


def _fields(line: str, sep: str | None) -> list[str]:
    return line.split(sep) if sep is not None else line.split()


def _cut(sh: Shell, c: Call) -> Result:
    delim, spec, files = "\t", "", []
    args = c.argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-d", "-f") and i + 1 < len(args):
            delim, spec = (args[i + 1], spec) if a == "-d" else (delim, args[i + 1])
            i += 2
            continue
        if a.startswith("-d") and len(a) > 2:
            delim = a[2:]
        elif a.startswith("-f") and len(a) > 2:
            spec = a[2:]
        else:
            files.append(a)
        i += 1
    if not spec:
        return _err(sh, "cut", "you must specify a list of bytes, characters, or fields")
    wanted: set[int] = set()
    for part in spec.split(","):
        lo, dash, hi = part.partition("-")
        wanted |= set(range(int(lo or 1), int(hi or 999) + 1)) if dash else {int(part)}
    text, err, code = _inputs(sh, c, "cut", files)
    out = []
    for line in text.splitlines():
        parts = line.split(delim)
        out.append(delim.join(p for n, p in enumerate(parts, 1) if n in wanted) if len(parts) > 1 else line)
    return Result("".join(o + "\n" for o in out), err, code, duration=QUICK)


def _awk(sh: Shell, c: Call) -> Result:
    """awk for field printing only: `awk [-F SEP] '{print $N, $M}' [FILE]` (and `$NF`, `$0`)."""
    args = c.argv[1:]
    sep: str | None = None
    if args and args[0].startswith("-F"):
        sep, args = (args[0][2:], args[1:]) if len(args[0]) > 2 else (args[1], args[2:])
    if not args:
        return _err(sh, "awk", "usage: awk [POSIX or GNU style options] -f progfile [--] file ...", 2)
    program, files = args[0].strip(), args[1:]
    m = re.fullmatch(r"\{\s*print\s+([$\w\s,]+?)\s*;?\s*\}", program)
    if m is None:
        return _err(sh, "awk", f"the lab only simulates '{{print $N}}' programs, not {program!r}", 2)
    refs = [r.strip() for r in m.group(1).split(",")]
    text, err, code = _inputs(sh, c, "awk", files)
    out = []
    for line in text.splitlines():
        fields = _fields(line, sep)
        values = []
        for ref in refs:
            key = ref.lstrip("$")
            if key == "0":
                values.append(line)
            elif key == "NF":
                values.append(fields[-1] if fields else "")
            elif key.isdigit():
                n = int(key)
                values.append(fields[n - 1] if 0 < n <= len(fields) else "")
        out.append(" ".join(values))
    return Result("".join(o + "\n" for o in out), err, code, duration=QUICK)


def _tr(sh: Shell, c: Call) -> Result:
    args = c.argv[1:]
    if args and args[0] == "-d":
        chars = (args[1] if len(args) > 1 else "").replace("\\n", "\n")
        return Result("".join(ch for ch in c.stdin if ch not in chars), duration=QUICK)
    if len(args) == 2:
        src, dst = args[0].replace("\\n", "\n"), args[1].replace("\\n", "\n")
        table = {ord(a): dst[min(i, len(dst) - 1)] for i, a in enumerate(src)} if dst else {}
        return Result(c.stdin.translate(table), duration=QUICK)
    return _err(sh, "tr", "missing operand")


def _uniq(sh: Shell, c: Call) -> Result:
    text, err, code = _inputs(sh, c, "uniq", [a for a in c.argv[1:] if not a.startswith("-")])
    out: list[str] = []
    for line in text.splitlines():
        if not out or out[-1] != line:
            out.append(line)
    return Result("".join(o + "\n" for o in out), err, code, duration=QUICK)


def _basename(sh: Shell, c: Call) -> Result:
    if len(c.argv) < 2:
        return _err(sh, c.argv[0], "missing operand")
    path = c.argv[1].rstrip("/") or "/"
    name = posixpath.basename(path) if c.argv[0] == "basename" else posixpath.dirname(path)
    return Result((name or ".") + "\n", duration=0.01)


def _seq(sh: Shell, c: Call) -> Result:
    nums = [int(a) for a in c.argv[1:] if a.lstrip("-").isdigit()]
    lo, hi = (1, nums[0]) if len(nums) == 1 else (nums[0], nums[-1]) if nums else (1, 0)
    return Result("".join(f"{n}\n" for n in range(lo, hi + 1)), duration=0.01)


# ---- files ------------------------------------------------------------------------------------


def _test(sh: Shell, c: Call) -> Result:
    args = c.argv[1:]
    if c.argv[0] == "[":
        if not args or args[-1] != "]":
            return _err(sh, "bash: line 1: [", "missing `]'", 2)
        args = args[:-1]
    negate = bool(args) and args[0] == "!"
    if negate:
        args = args[1:]
    ok = False
    if len(args) == 2 and args[0] in ("-e", "-f", "-d", "-s", "-r", "-x", "-w", "-L"):
        full = sh.path(args[1])
        op = args[0]
        if op == "-d":
            ok = sh.fs.is_dir(full)
        elif op == "-f":
            ok = sh.fs.exists(full) and not sh.fs.is_dir(full)
        elif op == "-s":
            try:
                ok = bool(sh.fs.read(full))
            except FsError:
                ok = False
        elif op == "-L":
            ok = sh.fs.readlink(full) is not None
        else:
            ok = sh.fs.exists(full)
    elif len(args) == 2 and args[0] in ("-z", "-n"):
        ok = (args[1] == "") == (args[0] == "-z")
    elif len(args) == 3 and args[1] in ("=", "==", "!="):
        ok = (args[0] == args[2]) == (args[1] != "!=")
    elif len(args) == 3 and args[1] in ("-eq", "-ne", "-gt", "-lt", "-ge", "-le"):
        a, b = int(args[0]), int(args[2])
        ok = {"-eq": a == b, "-ne": a != b, "-gt": a > b, "-lt": a < b, "-ge": a >= b, "-le": a <= b}[args[1]]
    elif len(args) == 1:
        ok = args[0] != ""
    return Result(code=0 if ok != negate else 1, duration=0.01)


def _mkdir(sh: Shell, c: Call) -> Result:
    parents = any(a in ("-p", "--parents") for a in c.argv[1:])
    for p in [a for a in c.argv[1:] if not a.startswith("-")]:
        full = sh.path(p)
        allowed = full.startswith(sh.host.home) or full.startswith("/tmp") or c.root
        if sh.lab.sandbox is not None and sh.lab.sandbox.blocks_write(full) and not sh.fs.is_dir(full):
            return _err(sh, "mkdir", f"cannot create directory '{p}': Read-only file system")
        if not allowed:
            return _err(sh, "mkdir", f"cannot create directory '{p}': Permission denied")
        if sh.fs.is_dir(full):
            if not parents:
                return _err(sh, "mkdir", f"cannot create directory '{p}': File exists")
            continue
        if not parents and not sh.fs.is_dir(posixpath.dirname(full)):
            return _err(sh, "mkdir", f"cannot create directory '{p}': No such file or directory")
        sh.host.mkdir(full)
    return Result(duration=QUICK)


def _touch(sh: Shell, c: Call) -> Result:
    for p in [a for a in c.argv[1:] if not a.startswith("-")]:
        full = sh.path(p)
        if full not in sh.host.files:
            error = sh.write_path(p, b"", append=True, root=c.root, program="touch")
            if error:
                return Result(stderr=error.replace("touch: ", "touch: cannot touch ", 1), code=1, duration=QUICK)
    return Result(duration=QUICK)


def _rm(sh: Shell, c: Call) -> Result:
    force = any(a.startswith("-") and "f" in a for a in c.argv[1:])
    recursive = any(a.startswith("-") and not a.startswith("--") and ("r" in a or "R" in a) for a in c.argv[1:])
    for p in [a for a in c.argv[1:] if not a.startswith("-")]:
        full = sh.path(p)
        if sh.host.is_dir(full) and full != "/":
            if not recursive:
                return _err(sh, "rm", f"cannot remove '{p}': Is a directory")
            if not (full.startswith(sh.host.home + "/") or full.startswith("/tmp/") or c.root):
                return _err(sh, "rm", f"cannot remove '{p}': Permission denied")
            diskcmds.remove_tree(sh.host, full)  # frees the space its files held
        elif full in sh.host.files:
            if sh.lab.sandbox is not None and sh.lab.sandbox.blocks_write(full):
                return _err(sh, "rm", f"cannot remove '{p}': Read-only file system")
            if not (full.startswith(sh.host.home) or full.startswith("/tmp") or c.root):
                return _err(sh, "rm", f"cannot remove '{p}': Permission denied")
            del sh.host.files[full]
        elif not force:
            return _err(sh, "rm", f"cannot remove '{p}': No such file or directory")
    return Result(duration=QUICK)


def _tee(sh: Shell, c: Call) -> Result:
    append = any(a in ("-a", "--append") for a in c.argv[1:])
    err, code = [], 0
    for p in [a for a in c.argv[1:] if not a.startswith("-")]:
        sh.check_write(p)
        error = sh.write_path(p, c.stdin.encode(), append=append, root=c.root, program="tee")
        if error:
            err.append(error)
            code = 1
    return Result(c.stdin, "".join(err), code, duration=QUICK)


def _dd(sh: Shell, c: Call) -> Result:
    for a in c.argv[1:]:
        if a.startswith("of="):
            sh.check_write(a[3:])
            error = sh.write_path(a[3:], c.stdin.encode(), append=False, root=c.root, program="dd")
            if error:
                return Result(stderr=error, code=1, duration=QUICK)
    return Result(stderr="0+1 records in\n0+1 records out\n", duration=QUICK)


def _cp(sh: Shell, c: Call) -> Result:
    args = [a for a in c.argv[1:] if not a.startswith("-")]
    if len(args) < 2:
        return _err(sh, c.argv[0], "missing destination file operand", 1)
    sh.check_write(args[-1])
    data = _read(sh, c.argv[0], args[0])
    if isinstance(data, Result):
        return data
    error = sh.write_path(args[-1], data.encode(), append=False, root=c.root, program=c.argv[0])
    if error:
        return Result(stderr=error, code=1, duration=QUICK)
    if c.argv[0] == "mv":
        sh.host.files.pop(sh.path(args[0]), None)
    return Result(duration=QUICK)


def _readlink(sh: Shell, c: Call) -> Result:
    canonical = any(a in ("-f", "-e", "-m", "--canonicalize") for a in c.argv[1:]) or c.argv[0] == "realpath"
    out, code = [], 0
    for p in [a for a in c.argv[1:] if not a.startswith("-")]:
        full = sh.path(p)
        target = sh.fs.readlink(full)
        if canonical:
            resolved = sh.fs.canonical(full)
            if sh.fs.exists(resolved) or sh.fs.is_dir(posixpath.dirname(resolved)):
                out.append(resolved)
            else:
                code = 1
        elif target is not None:
            out.append(target.replace("/sys/", "../../../", 1) if "/drivers/" in target else target)
        else:
            code = 1
    return Result("".join(o + "\n" for o in out), code=code, duration=QUICK)


# ---- system facts -----------------------------------------------------------------------------


def _sleep(sh: Shell, c: Call) -> Result:
    total = 0.0
    for a in c.argv[1:]:
        m = re.fullmatch(r"(\d+(?:\.\d+)?)([smhd]?)", a)
        if m is None:
            return _err(sh, "sleep", f"invalid time interval '{a}'")
        total += float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
    return Result(duration=total)


def _date(sh: Shell, c: Call) -> Result:
    dt = sh.host.clock.datetime_at(sh.host.clock.now())
    fmt = next((a[1:] for a in c.argv[1:] if a.startswith("+")), None)
    if fmt == "%s":
        return Result(f"{int(sh.host.clock.timestamp(sh.host.clock.now()))}\n", duration=0.01)
    if fmt:
        return Result(dt.strftime(fmt) + "\n", duration=0.01)
    return Result(f"{dt:%a %b} {dt.day:>2} {dt:%H:%M:%S} UTC {dt:%Y}\n", duration=0.01)


def _hostname(sh: Shell, c: Call) -> Result:
    return Result(sh.host.scenario.host.hostname + "\n", duration=0.01)


def _whoami(sh: Shell, c: Call) -> Result:
    return Result(("root" if c.root else sh.user) + "\n", duration=0.01)


def _id(sh: Shell, c: Call) -> Result:
    if c.root:
        return Result("uid=0(root) gid=0(root) groups=0(root)\n", duration=0.01)
    u = sh.user
    return Result(f"uid=1000({u}) gid=1000({u}) groups=1000({u}),27(sudo),44(video)\n", duration=0.01)


def _uname(sh: Shell, c: Call) -> Result:
    h = sh.host.scenario.host
    if "-r" in c.argv:
        return Result(h.kernel + "\n", duration=0.01)
    if "-a" in c.argv:
        return Result(
            f"Linux {h.hostname} {h.kernel} #60-Ubuntu SMP PREEMPT_DYNAMIC x86_64 x86_64 x86_64 GNU/Linux\n",
            duration=0.01,
        )
    return Result("Linux\n", duration=0.01)


def _nproc(sh: Shell, c: Call) -> Result:
    return Result(f"{sh.host.scenario.host.cpus}\n", duration=0.01)


def _free(sh: Shell, c: Call) -> Result:
    h = sh.host.scenario.host
    gib = h.memory_gib
    if h.memory_used_gib is not None:
        return Result(diskcmds.free_text(sh.host), duration=0.02)
    return Result(
        "               total        used        free      shared  buff/cache   available\n"
        f"Mem:          {gib:>6}Gi        {gib // 20:>3}Gi      {gib * 9 // 10:>5}Gi       "
        f"0.0Ki        12Gi      {gib * 19 // 20:>5}Gi\nSwap:             0B          0B          0B\n",
        duration=0.02,
    )


def _pwd(sh: Shell, c: Call) -> Result:
    return Result(sh.cwd + "\n", duration=0.01)


def _which(sh: Shell, c: Call) -> Result:
    names = [a for a in c.argv[1:] if not a.startswith("-")]
    out, code = [], 0
    for n in names:
        if n in sh.handlers and n not in BUILTINS:
            out.append(f"/usr/bin/{n}")
        elif n in BUILTINS and c.argv[0] == "command":
            out.append(n)
        else:
            code = 1
    return Result("".join(o + "\n" for o in out), code=code, duration=0.01)


def _printenv(sh: Shell, c: Call) -> Result:
    env = {k: v for k, v in c.env.items() if k != "?"}
    names = c.argv[1:]
    if names:
        vals = [env[n] for n in names if n in env]
        return Result("".join(v + "\n" for v in vals), code=0 if len(vals) == len(names) else 1, duration=0.01)
    return Result("".join(f"{k}={v}\n" for k, v in sorted(env.items())), duration=0.01)


# ---- power, modules, VMs -------------------------------------------------------------------------


def _power(sh: Shell, c: Call) -> Result:
    name = posixpath.basename(c.argv[0])
    action = c.argv[1] if name == "systemctl" and len(c.argv) > 1 else name
    if name == "systemctl" and action not in ("reboot", "poweroff", "halt", "kexec"):
        if action in ("status", "is-active"):
            return Result("active\n" if action == "is-active" else "", code=0, duration=0.1)
        return Result(
            stderr="Failed to start transient service unit: Access denied\n" if not c.root else "",
            code=0 if c.root else 1,
            duration=0.2,
        )
    if not c.root:
        return Result(
            stderr="Call to Reboot failed: Interactive authentication required.\n"
            if action == "reboot"
            else f"Call to {action.capitalize()} failed: Interactive authentication required.\n",
            code=1,
            duration=0.2,
        )
    sh.lab.reboot()
    return Result(lost=True, code=255, duration=0.5)


def _modprobe(sh: Shell, c: Call) -> Result:
    if not c.root:
        return _err(
            sh,
            c.argv[0],
            "ERROR: could not insert module: Operation not permitted"
            if c.argv[0] == "modprobe"
            else "ERROR: Module is in use",
            1,
        )
    return Result(stderr=f"{c.argv[0]}: FATAL: Module nvidia is in use.\n", code=1, duration=0.2)


def _qm(sh: Shell, c: Call) -> Result:
    h = sh.host.scenario.host
    name = c.argv[0]
    if (name == "qm" and h.vm_manager != "proxmox") or (name == "virsh" and h.vm_manager != "libvirt"):
        return Result(stderr=f"bash: line 1: {name}: command not found\n", code=127, duration=0.01)
    if not c.root:
        return Result(
            stderr="permission denied - please run as root\n"
            if name == "qm"
            else "error: failed to connect to the hypervisor\n",
            code=1,
            duration=0.1,
        )
    sub = c.argv[1] if len(c.argv) > 1 else ""
    if sub == "list":
        if name == "qm":
            lines = ["      VMID NAME                 STATUS     MEM(MB)    BOOTDISK(GB) PID       "]
            lines += [
                f"{v.id:>10} {v.name:<20} {v.status:<10} {v.memory_mib:<10} {'64.00':<12} {7000 + v.id:<10}"
                for v in h.vms
            ]
        else:
            lines = [" Id   Name   State", "------------------------"]
            lines += [f" {v.id:<4} {v.name:<6} {v.status}" for v in h.vms]
        return Result("".join(line + "\n" for line in lines), duration=0.5)
    return Result(duration=1.0)


def _sglang(sh: Shell, c: Call) -> Result:
    """The `sglang` entry point (where the wheel installs it): `sglang serve ARGS` is launch_server,
    with argparse naming itself after the program."""
    if not sh.lab.has_serve():
        return Result(stderr="bash: line 1: sglang: command not found\n", code=127, duration=0.01)
    if len(c.argv) >= 2 and c.argv[1] == "serve":
        args = c.argv[2:]
        if "-h" in args or "--help" in args:
            return Result(sglang_flags.help_text(sh.host.scenario.software.sglang, "serve"), duration=9.0)
        return sh.lab.launch_from_shell(c, args, "serve")
    return Result(stderr="usage: sglang [-h] {serve,version} ...\n", code=2, duration=1.0)


def _pip(sh: Shell, c: Call) -> Result:
    return pyexec.pip(sh, c.argv[c.argv.index("pip") + 1 :] if "pip" in c.argv else c.argv[1:])


# ---- GPU-facing programs ----------------------------------------------------------------------


def _nvidia_smi(sh: Shell, c: Call) -> Result:
    out, err, code = nvidia.run(sh.host, c.argv[1:])
    return Result(out, err, code, duration=0.4)


def _lspci(sh: Shell, c: Call) -> Result:
    out, err, code = sysfs.lspci(sh.host, c.argv[1:])
    return Result(out, err, code, duration=0.1)


def _dmesg(sh: Shell, c: Call) -> Result:
    out, err, code = sysfs.dmesg(sh.host, c.argv[1:], c.root)
    return Result(out, err, code, duration=0.1)


def _df(sh: Shell, c: Call) -> Result:
    def resolve(p: str) -> str | None:
        full = sh.path(p)
        return full if sh.fs.exists(full) or full.startswith("/dev/shm") else None

    out, err, code = diskcmds.df(sh.host, c.argv[1:], resolve)
    return Result(out, err, code, duration=0.05)


def _detect_virt(sh: Shell, c: Call) -> Result:
    out, err, code = sysfs.detect_virt(sh.host, c.argv[1:])
    return Result(out, err, code, duration=0.05)


BUILTINS = {"true", "false", ":", "echo", "printf", "test", "[", "kill", "pwd", "cd", "export", "command"}


def register(sh: Shell) -> None:
    table: dict[str, Handler] = {
        "true": _true,
        ":": _true,
        "false": _false,
        "echo": _echo,
        "printf": _printf,
        "cat": _cat,
        "head": _head,
        "tail": _tail,
        "grep": _grep,
        "egrep": _grep,
        "wc": _wc,
        "sort": _sort,
        "ls": filecmds.ls,
        "test": _test,
        "[": _test,
        "mkdir": _mkdir,
        "touch": _touch,
        "rm": _rm,
        "tee": _tee,
        "dd": _dd,
        "cp": _cp,
        "mv": _cp,
        "readlink": _readlink,
        "realpath": _readlink,
        "stat": filecmds.stat,
        "sleep": _sleep,
        "date": _date,
        "hostname": _hostname,
        "whoami": _whoami,
        "id": _id,
        "uname": _uname,
        "nproc": _nproc,
        "free": _free,
        "df": _df,
        "pwd": _pwd,
        "cd": _true,
        "export": _true,
        "which": _which,
        "printenv": _printenv,
        "ps": proccmds.ps,
        "ss": proccmds.ss,
        "lsof": proccmds.lsof,
        "fuser": proccmds.fuser,
        "kill": proccmds.kill,
        "pkill": proccmds.pkill,
        "killall": proccmds.pkill,
        "pgrep": proccmds.pgrep,
        "reboot": _power,
        "shutdown": _power,
        "poweroff": _power,
        "halt": _power,
        "kexec": _power,
        "systemctl": _power,
        "modprobe": _modprobe,
        "rmmod": _modprobe,
        "insmod": _modprobe,
        "qm": _qm,
        "virsh": _qm,
        "pip": _pip,
        "pip3": _pip,
        "command": _which,
        "sglang": _sglang,
        "cut": _cut,
        "awk": _awk,
        "tr": _tr,
        "uniq": _uniq,
        "basename": _basename,
        "dirname": _basename,
        "seq": _seq,
        "lsmod": kernelcmds.lsmod,
        "journalctl": kernelcmds.journalctl,
        "lscpu": kernelcmds.lscpu,
        "du": filecmds.du,
        "find": filecmds.find,
        "nvidia-smi": _nvidia_smi,
        "lspci": _lspci,
        "dmesg": _dmesg,
        "systemd-detect-virt": _detect_virt,
        "python3": pyexec.python,
        "python": pyexec.python,
        "curl": curl.curl,
    }
    sh.handlers.update(table)
