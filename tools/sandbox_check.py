"""Harmless probes that show what the sandbox contains on a target (`opsagent sandbox check`).

Each probe runs as an ordinary command, so inside the sandbox when the target has one, and
never changes anything: a "write" opens the file for appending and writes nothing (opening is
where a read-only mount refuses), the work-directory probe creates and removes its own file,
and the network probe talks to itself on a port the run owns. The escape probes only try: a
TCP connect to each host listener /proc/net/tcp names (on loopback), a connect to the host's
abstract and pathname Unix sockets (/proc/net/unix), reading one byte of known secrets, and a
detached start through links planted in the work directory (the probe's own names, pointing at
files in the host's /tmp that are looked for afterwards). `contained` is True when the result
is what the sandbox promises (for the work directory and loopback: that they still work).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence

from tools.sandbox import DEFAULT_PORTS, INIT_NAME
from tools.sandbox_escapes import ESCAPE_PROBES
from tools.sandbox_probe import Probe, text_of
from tools.target import Target

# Open for append, write nothing: on a read-only mount the open itself fails with EROFS.
_OPEN = 'for f in {paths}; do if [ -e "$f" ]; then : >> "$f" && echo "opened $f"; exit $?; fi; done; echo none'
_SYS_FILES = ("/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/profiling", "/sys/kernel/uevent_seqnum")
# Listens on the first port the run owns that is free, or connects to the run's own server on it.
_LOOPBACK = """$(command -v /usr/bin/python3 || command -v python3) -I -S -c 'import socket, sys
for port in map(int, sys.argv[1:]):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        s.close(); socket.create_connection(("127.0.0.1", port), timeout=5).close(); print("server", port); break
    s.listen(1); c = socket.create_connection(("127.0.0.1", port), timeout=5); a, _ = s.accept()
    c.sendall(b"ping"); print(a.recv(4).decode(), port); break' {ports}"""
_text = text_of
__all__ = ["Probe", "run_probes"]


def _write_probe(name: str, paths: tuple[str, ...]) -> Callable[[Target], Probe]:
    def probe(target: Target) -> Probe:
        result = target.run(_OPEN.format(paths=" ".join(shlex.quote(p) for p in paths)), timeout=30)
        if result.exit_code == 0 and result.stdout.strip() == "none":
            return Probe(name=name, contained=True, detail=f"none of {', '.join(paths)} exists")
        if result.exit_code == 0:
            return Probe(name=name, contained=False, detail=f"{result.stdout.strip()} for writing")
        return Probe(name=name, contained=True, detail=f"refused: {_text(result)}")

    return probe


def _status_field(name: str, field: str, want: str) -> Callable[[Target], Probe]:
    def probe(target: Target) -> Probe:
        result = target.run(f"grep '^{field}:' /proc/self/status", timeout=30)
        value = result.stdout.split(":", 1)[-1].strip() if result.exit_code == 0 else ""
        if not value:
            return Probe(name=name, contained=False, detail=f"cannot read {field}: {_text(result)}")
        good = value.lstrip("0") == want.lstrip("0")
        return Probe(name=name, contained=good, detail=f"{field} {value}")

    return probe


def _devices(allowed: list[str]) -> Callable[[Target], Probe]:
    def probe(target: Target) -> Probe:
        result = target.run(
            "ls -1 /dev | grep '^nvidia' | sed 's|^|/dev/|'; echo @@; find /dev -type b 2>/dev/null; "
            "echo @@; ls -d /dev/vfio 2>/dev/null; true",
            timeout=30,
        )
        parts = (result.stdout + "\n@@\n@@").split("@@")
        nvidia = sorted(p.strip() for p in parts[0].split() if p.strip())
        block = [p for p in parts[1].split() if p.strip()]
        vfio = [p for p in parts[2].split() if p.strip()]
        extra = [n for n in nvidia if n not in allowed]
        good = not extra and not block and not vfio
        detail = f"nvidia nodes: {', '.join(nvidia) or 'none'}"
        if extra:
            detail += f"; not the agent's: {', '.join(extra)}"
        if block:
            detail += f"; block devices: {', '.join(block[:5])}"
        if vfio:
            detail += "; /dev/vfio is visible"
        if good:
            detail += "; no block devices, no /dev/vfio"
        return Probe(name="dev_only_agent_gpus", contained=good, detail=detail)

    return probe


def _sudo(target: Target) -> Probe:
    result = target.run(
        "command -v sudo >/dev/null || { echo 'sudo is not installed'; exit 127; }; sudo -n true", timeout=30
    )
    if result.exit_code == 0:
        return Probe(name="sudo_fails", contained=False, detail="sudo -n true succeeded")
    return Probe(name="sudo_fails", contained=True, detail=f"sudo -n true failed: {_text(result)}")


def _work_dir(target: Target) -> Probe:
    q = shlex.quote(target.work_dir)
    result = target.run(f'f=$(mktemp -p {q} .opsagent-probe.XXXXXX) && rm -f -- "$f" && echo ok', timeout=30)
    if result.exit_code == 0 and result.stdout.strip() == "ok":
        return Probe(name="work_dir_writable", contained=True, detail=f"{target.work_dir} is writable")
    return Probe(name="work_dir_writable", contained=False, detail=f"{target.work_dir}: {_text(result)}")


def _loopback(ports: Sequence[int]) -> Callable[[Target], Probe]:
    def probe(target: Target) -> Probe:
        result = target.run(_LOOPBACK.format(ports=" ".join(str(p) for p in ports)), timeout=30)
        words = result.stdout.split()
        port = words[1] if len(words) > 1 else "?"
        if result.exit_code == 0 and words[:1] == ["ping"]:
            return Probe(name="loopback_network", contained=True, detail=f"listened and connected on 127.0.0.1:{port}")
        if result.exit_code == 0 and words[:1] == ["server"]:
            return Probe(name="loopback_network", contained=True, detail=f"connected to the run's server on {port}")
        return Probe(name="loopback_network", contained=False, detail=f"loopback failed: {_text(result)}")

    return probe


def _host_processes(target: Target) -> Probe:
    # Process 1 of the sandbox's own PID namespace is the bash that runs the probe (its $0 is
    # INIT_NAME); anywhere else it is the host's init.
    result = target.run("tr '\\0' ' ' < /proc/1/cmdline; echo; ls /proc | grep -c '^[0-9]'", timeout=30)
    lines = result.stdout.splitlines()
    first = lines[0].strip() if lines else "?"
    count = lines[1].strip() if len(lines) > 1 else "?"
    good = INIT_NAME in first.split()
    shown = "this command's own shell" if good else (first.split() or ["?"])[0]
    return Probe(name="host_processes_hidden", contained=good, detail=f"pid 1 is {shown}; {count} processes visible")


def run_probes(target: Target, allowed_devices: list[str], ports: Sequence[int] = DEFAULT_PORTS) -> list[Probe]:
    """Every probe, in the order `opsagent sandbox check` prints them; `ports`: the run's own."""
    probes: list[Callable[[Target], Probe]] = [
        _write_probe("write_etc_fails", ("/etc/passwd", "/etc/hostname")),
        _write_probe("write_sys_fails", _SYS_FILES),
        _write_probe("write_proc_sys_fails", ("/proc/sys/kernel/panic", "/proc/sys/vm/panic_on_oom")),
        _status_field("cap_eff_zero", "CapEff", "0"),
        _status_field("no_new_privs", "NoNewPrivs", "1"),
        _devices(allowed_devices),
        _sudo,
        _host_processes,
        _work_dir,
        _loopback(ports),
        *(escape(ports) for escape in ESCAPE_PROBES),
    ]
    return [probe(target) for probe in probes]
