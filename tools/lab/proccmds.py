"""Process and socket commands: `ps`, `ss`, `lsof`, `kill`, `pkill`/`killall`, `pgrep`."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tools.lab.host import SimProcess
from tools.lab.shell import Call, Result

if TYPE_CHECKING:
    from tools.lab.shell import Shell

QUICK = 0.05


PS_COLUMNS = {
    "pid": ("PID", 7, ">"),
    "ppid": ("PPID", 7, ">"),
    "pgid": ("PGID", 7, ">"),
    "etimes": ("ELAPSED", 7, ">"),
    "etime": ("ELAPSED", 11, ">"),
    "user": ("USER", 8, "<"),
    "stat": ("STAT", 4, "<"),
    "comm": ("COMMAND", 15, "<"),
    "args": ("COMMAND", 0, "<"),
    "cmd": ("CMD", 0, "<"),
    "command": ("COMMAND", 0, "<"),
    "lstart": ("STARTED", 24, "<"),
}


def _etime(seconds: int) -> str:
    d, rem = divmod(seconds, 86400)
    h, rem = divmod(rem, 3600)
    m, s = divmod(rem, 60)
    if d:
        return f"{d}-{h:02d}:{m:02d}:{s:02d}"
    return f"{h:02d}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def _ps_value(sh: Shell, p: SimProcess, col: str) -> str:
    now = sh.host.clock.now()
    elapsed = int(now - p.start)
    return {
        "pid": str(p.pid),
        "ppid": str(p.ppid),
        "pgid": str(p.pgid),
        "etimes": str(elapsed),
        "etime": _etime(elapsed),
        "user": p.user,
        "stat": "Ssl" if p.server else "S",
        "comm": p.comm,
        "args": p.args,
        "cmd": p.args,
        "command": p.args,
        "lstart": f"{sh.host.clock.datetime_at(p.start):%a %b %d %H:%M:%S %Y}",
    }[col]


def _cpu_time(p: SimProcess, now: float) -> int:
    """Seconds of CPU a process has used: servers and GPU jobs spin a core, daemons barely run."""
    busy = p.server is not None or bool(p.gpu_memory_mib) or p.serves_model is not None
    return int((now - p.start) * (0.95 if busy else 0.0004))


def _ps_aux(sh: Shell, procs: list[SimProcess]) -> str:
    now = sh.host.clock.now()
    lines = ["USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"]
    for p in procs:
        started = sh.host.clock.datetime_at(p.start)
        start = f"{started:%H:%M}" if now - p.start < 86400 else f"{started:%b}{started.day:02d}"
        cpu = _cpu_time(p, now)
        heavy = p.server is not None or bool(p.gpu_memory_mib)
        vsz, rss = (98765432, 8123456) if heavy else (171234, 12345)
        pct = f"{100.0 * cpu / max(now - p.start, 1):.1f}"
        lines.append(
            f"{p.user[:8]:<8} {p.pid:>7} {pct:>4} {'1.2' if heavy else '0.0':>4} {vsz:>6} {rss:>5} {'?':<8} "
            f"{'Ssl' if heavy else 'Ss':<4} {start:>5} {cpu // 60:>3}:{cpu % 60:02d} {p.args}"
        )
    return "".join(line + "\n" for line in lines)


def _ps_ef(sh: Shell, procs: list[SimProcess]) -> str:
    now = sh.host.clock.now()
    lines = ["UID          PID    PPID  C STIME TTY          TIME CMD"]
    for p in procs:
        started = sh.host.clock.datetime_at(p.start)
        stime = f"{started:%H:%M}" if now - p.start < 86400 else f"{started:%b}{started.day:02d}"
        cpu = _cpu_time(p, now)
        c = 95 if p.server is not None or p.gpu_memory_mib else 0
        hh, rest = divmod(cpu, 3600)
        lines.append(
            f"{p.user[:8]:<8} {p.pid:>7} {p.ppid:>7} {c:>2} {stime:>5} {'?':<8} "
            f"{hh:02d}:{rest // 60:02d}:{rest % 60:02d} {p.args}"
        )
    return "".join(line + "\n" for line in lines)


def ps(sh: Shell, c: Call) -> Result:
    args = c.argv[1:]
    procs = sh.host.alive()
    columns: list[str] = []
    headers = True
    only: set[int] | None = None
    if args and args[0] in ("aux", "-aux", "auxww", "axu", "auxf"):
        return Result(_ps_aux(sh, procs), duration=QUICK)
    if args and args[0] in ("-ef", "-eF", "-efww"):
        return Result(_ps_ef(sh, procs), duration=QUICK)
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-o", "-eo", "-axo", "o") and i + 1 < len(args):
            spec = args[i + 1]
            for part in spec.split(","):
                name = part.split("=")[0].strip()
                if name not in PS_COLUMNS:
                    return Result(
                        "",
                        f'error: unknown user-defined format specifier "{name}"\n\nUsage:\n ps [options]\n',
                        1,
                        duration=QUICK,
                    )
                if part.endswith("="):
                    headers = False
                columns.append(name)
            i += 2
            continue
        if a in ("-p", "--pid", "p") and i + 1 < len(args):
            only = {int(x) for x in args[i + 1].split(",") if x.strip().isdigit()}
            i += 2
            continue
        if a.startswith("-p") and a[2:].isdigit():
            only = {int(a[2:])}
        i += 1
    columns = columns or ["pid", "args"]
    if only is not None:
        procs = [p for p in procs if p.pid in only]
    lines = []

    def fmt_row(values: list[str]) -> str:
        cells = []
        for col, v in zip(columns, values, strict=True):
            _, width, align = PS_COLUMNS[col]
            cells.append(v if width == 0 else (f"{v:>{width}}" if align == ">" else f"{v:<{width}}"))
        return " ".join(cells).rstrip()

    if headers:
        lines.append(fmt_row([PS_COLUMNS[col][0] for col in columns]))
    for p in procs:
        lines.append(fmt_row([_ps_value(sh, p, col) for col in columns]))
    code = 0 if (only is None or procs) else 1
    return Result("".join(line + "\n" for line in lines), code=code, duration=QUICK)


def ss(sh: Shell, c: Call) -> Result:
    opts = "".join(a[1:] for a in c.argv[1:] if a.startswith("-") and not a.startswith("--"))
    expr = " ".join(a for a in c.argv[1:] if not a.startswith("-"))
    port_filter = None
    m = re.search(r"sport\s*(?:=|==|eq)\s*:(\d+)", expr)
    if m:
        port_filter = int(m.group(1))
    rows = []
    for p in _listening(sh):
        if port_filter is not None and p.port != port_filter:
            continue
        addr = p.host_addr if p.server else "0.0.0.0"
        proc = ""
        if "p" in opts and (c.root or p.user == sh.user):
            proc = f'users:(("{_name(p)}",pid={p.pid},fd={_fd(p)}))'
        backlog = 4096 if p.port == 22 else 2048
        rows.append(f"LISTEN {0:<6} {backlog:<6} {addr + ':' + str(p.port):>20} {'0.0.0.0:*':>20} {proc}".rstrip())
    header = "State  Recv-Q Send-Q        Local Address:Port         Peer Address:PortProcess"
    lines = rows if "H" in opts else [header, *rows]
    return Result("".join(line + "\n" for line in lines), duration=QUICK)


def _listening(sh: Shell) -> list[SimProcess]:
    now = sh.host.clock.now()
    out = []
    for p in sh.host.alive():
        bound = sh.host.bound_from(p)
        if bound is not None and bound <= now:
            out.append(p)
    return out


def _name(p: SimProcess) -> str:
    return "sshd" if p.port == 22 else "python3" if p.server is not None or "python" in p.comm else p.comm


def _fd(p: SimProcess) -> int:
    return 6 if p.port == 22 else 35


def lsof(sh: Shell, c: Call) -> Result:
    """`lsof -i :PORT` (also -iTCP:PORT, -nP, -sTCP:LISTEN, -t): listening sockets. Without root,
    lsof sees only the caller's own processes, as on a real host."""
    args = c.argv[1:]
    terse = any(a.startswith("-") and not a.startswith("-i") and "t" in a for a in args)
    spec = next(
        (a[2:] or (args[i + 1] if i + 1 < len(args) else "") for i, a in enumerate(args) if a.startswith("-i")), None
    )
    port = None
    if spec is not None:
        m = re.search(r":(\d+)$", spec)
        port = int(m.group(1)) if m else None
    rows = [p for p in _listening(sh) if (port is None or p.port == port) and (c.root or p.user == sh.user)]
    if not rows:
        return Result(code=1, duration=0.1)
    if terse:
        return Result("".join(f"{p.pid}\n" for p in rows), duration=0.1)
    lines = ["COMMAND     PID     USER   FD   TYPE  DEVICE SIZE/OFF NODE NAME"]
    for p in rows:
        addr = "*" if (p.host_addr if p.server else "0.0.0.0") == "0.0.0.0" else p.host_addr
        lines.append(
            f"{_name(p)[:9]:<9} {p.pid:>7} {p.user[:8]:>8} {str(_fd(p)) + 'u':>4} IPv4 {p.pid * 7 + 100003:>7}"
            f"      0t0  TCP {addr}:{p.port} (LISTEN)"
        )
    return Result("".join(line + "\n" for line in lines), duration=0.1)


def fuser(sh: Shell, c: Call) -> Result:
    """`fuser PORT/tcp`: the label on stderr, the pids on stdout (own processes unless root)."""
    out, err, code = [], [], 1
    for a in c.argv[1:]:
        m = re.fullmatch(r"(\d+)/tcp", a)
        if m is None:
            continue
        pids = [p.pid for p in _listening(sh) if p.port == int(m.group(1)) and (c.root or p.user == sh.user)]
        if pids:
            err.append(f"{a}:")
            out.append("".join(f" {pid:>6}" for pid in pids))
            code = 0
    return Result("".join(out) + ("\n" if out else ""), "".join(err) + ("\n" if err else ""), code, duration=0.1)


def _signal(args: list[str]) -> tuple[str, list[str]]:
    sig, rest, chosen = "TERM", [], False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            rest += args[i + 1 :]
            break
        if a == "-s" and i + 1 < len(args):
            sig = args[i + 1].removeprefix("SIG")
            i += 2
            continue
        if re.fullmatch(r"-(SIG)?[A-Z]+|-\d+", a) and not rest and not chosen:
            sig, chosen = a[1:].removeprefix("SIG"), True
        else:
            rest.append(a)
        i += 1
    return {"9": "KILL", "15": "TERM", "2": "INT", "1": "HUP"}.get(sig, sig), rest


def _deliver(sh: Shell, c: Call, p: SimProcess, sig: str, prog: str) -> str | None:
    owned = sh.lab.owns(p.pid)
    sh.check_kill(p.pid, owned)
    if p.user != sh.user and not c.root:
        return (
            f"{prog}: ({p.pid}) - Operation not permitted\n"
            if prog.endswith("kill")
            else f"{prog}: killing pid {p.pid} failed: Operation not permitted\n"
        )
    if sig in ("0",):
        return None
    sh.lab.signal(p, sig)
    return None


def kill(sh: Shell, c: Call) -> Result:
    sig, targets = _signal(c.argv[1:])
    if "-l" in c.argv[1:]:
        return Result("HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM\n", duration=0.01)
    err, code = [], 0
    for t in targets:
        group = t.startswith("-")
        num = t.lstrip("-")
        if not num.isdigit():
            err.append(f"bash: line 1: kill: {t}: arguments must be process or job IDs\n")
            code = 1
            continue
        n = int(num)
        procs = [p for p in sh.host.alive() if (p.pgid == n if group else p.pid == n)]
        if not procs:
            err.append(f"bash: line 1: kill: ({t}) - No such process\n")
            code = 1
            continue
        for p in procs:
            if p.parent is not None and group:
                continue  # the group leader's signal ends its children
            e = _deliver(sh, c, p, sig, "bash: line 1: kill")
            if e:
                err.append(e)
                code = 1
    return Result("", "".join(err), code, duration=0.02)


def _matching(sh: Shell, args: list[str], full: bool) -> list[SimProcess]:
    pattern = next((a for a in args if not a.startswith("-")), "")
    try:
        rx = re.compile(pattern)
    except re.error:
        rx = re.compile(re.escape(pattern))
    return [p for p in sh.host.alive() if p.pid != 1 and rx.search(p.args if full else p.comm)]


def pkill(sh: Shell, c: Call) -> Result:
    full = any(a.startswith("-") and "f" in a and not a.startswith("--") for a in c.argv[1:])
    sig, rest = "TERM", []
    for a in c.argv[1:]:
        if re.fullmatch(r"-(SIG)?[A-Z]{3,}|-\d+", a):
            sig = {"9": "KILL", "15": "TERM"}.get(a[1:], a[1:].removeprefix("SIG"))
        elif a != "-f":
            rest.append(a)
    if c.argv[0] == "killall":
        procs = [p for p in sh.host.alive() if rest and p.comm == rest[-1]]
    else:
        procs = _matching(sh, rest, full)
    procs = [p for p in procs if p.parent is None]
    err = [e for p in procs if (e := _deliver(sh, c, p, sig, c.argv[0]))]
    code = 0 if procs and not err else 1
    return Result("", "".join(err), code, duration=0.05)


def pgrep(sh: Shell, c: Call) -> Result:
    full = any(a.startswith("-") and "f" in a for a in c.argv[1:])
    show = any(a.startswith("-") and ("a" in a or "l" in a) for a in c.argv[1:])
    procs = _matching(sh, [a for a in c.argv[1:] if not a.startswith("-")], full)
    lines = [f"{p.pid} {p.args}" if show else str(p.pid) for p in procs]
    return Result("".join(line + "\n" for line in lines), code=0 if procs else 1, duration=0.05)
