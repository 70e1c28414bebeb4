"""The ways out of the sandbox found so far, tried for real on the local target (real bubblewrap,
the host kernel's Landlock): a loopback TCP listener and an abstract and a pathname Unix socket
that this test starts outside, root-only files, and links planted in the work directory for the
detached launcher. Every listener only answers "hello"; every planted file is this test's own.

Each escape is first shown to work without the sandbox (`sandbox: off`), so a pass inside means
the sandbox stopped it, not that the probe could not work.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.local import LocalTarget
from tools.sandbox import DEFAULT_PORTS, SandboxSpec
from tools.sandbox_check import run_probes
from tools.sandbox_view import READABLE_TOOLCHAINS, SANDBOX_UID, View, bwrap_argv
from tools.target import TargetError

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap: apt-get install -y bubblewrap")

PY = "/usr/bin/python3"


def _serve(server: socket.socket) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        with conn, contextlib.suppress(OSError):  # the probes connect and hang up at once
            conn.sendall(b"hello")


@pytest.fixture
def listeners(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A TCP listener on 127.0.0.1, an abstract Unix socket, a pathname socket in the host's /tmp
    (where a tmux server keeps its own) and one in /var/lib (shown inside), all world-connectable."""
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    abstract_name = f"opsagent-test-{secrets.token_hex(4)}"
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind("\0" + abstract_name)
    in_tmp = tmp_path / "tmux-0" / "default"
    in_tmp.parent.mkdir()
    in_tmp.parent.chmod(0o755)
    tmp_path.chmod(0o755)
    shown_dir = Path("/var/lib") / f"opsagent-test-{secrets.token_hex(4)}"
    shown_dir.mkdir(mode=0o755)
    shown = shown_dir / "control.sock"
    paths = []
    for path in (in_tmp, shown):
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        path.chmod(0o777)
        paths.append(sock)
    servers = [tcp, abstract, *paths]
    for server in servers:
        server.listen(8)
        threading.Thread(target=_serve, args=(server,), daemon=True).start()
    try:
        yield {
            "tcp": str(tcp.getsockname()[1]),
            "abstract": abstract_name,
            "tmp_socket": str(in_tmp),
            "shown_socket": str(shown),
        }
    finally:
        for server in servers:
            server.close()
        shutil.rmtree(shown_dir, ignore_errors=True)


def _connect(kind: str, where: str) -> str:
    """A command that connects and prints what the listener said, or the error."""
    if kind == "tcp":
        how = f"s = socket.create_connection(('127.0.0.1', {where}), timeout=3)"
    else:
        address = repr("\0" + where) if kind == "abstract" else repr(where)
        how = f"s = socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect({address})"
    code = f"import socket\ntry:\n    {how}; print(s.recv(5).decode())\nexcept OSError as e:\n    print('refused', e)"
    return f"{PY} -c {code!r}".replace("\\n", "\n").replace("\\x00", "\\0")


def _targets(tmp_path: Path) -> tuple[LocalTarget, LocalTarget]:
    work = str(tmp_path / "work")
    return (
        LocalTarget(work, sandbox=SandboxSpec(mode="off")),
        LocalTarget(work, sandbox=SandboxSpec(mode="require")),
    )


@pytest.mark.parametrize("kind", ["tcp", "abstract", "tmp_socket", "shown_socket"])
def test_a_host_listener_is_reached_outside_and_refused_inside(
    listeners: dict[str, str], tmp_path: Path, kind: str
) -> None:
    bare, boxed = _targets(tmp_path)
    command = _connect("tcp" if kind == "tcp" else "abstract" if kind == "abstract" else "path", listeners[kind])
    assert bare.run(command).stdout.strip() == "hello"
    inside = boxed.run(command)
    assert inside.stdout.startswith("refused"), inside.stdout + inside.stderr


def test_the_runs_own_port_still_listens_and_connects(tmp_path: Path) -> None:
    _, boxed = _targets(tmp_path)
    port = DEFAULT_PORTS[0]
    code = (
        "import socket\ns = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
        f"s.bind(('127.0.0.1', {port})); s.listen(1)\n"
        f"c = socket.create_connection(('127.0.0.1', {port})); a, _ = s.accept(); a.sendall(b'hello')\n"
        "print(c.recv(5).decode())"
    )
    result = boxed.run(f"{PY} -c {code!r}".replace("\\n", "\n"))
    assert result.stdout.strip() == "hello", result.stderr
    other = boxed.run(f"{PY} -c 'import socket; socket.socket().bind((\"127.0.0.1\", 30999))'")
    assert other.exit_code != 0 and "Permission denied" in other.stderr  # binding a port not the run's


def test_a_launch_makes_its_port_the_runs(tmp_path: Path) -> None:
    _, boxed = _targets(tmp_path)
    port = 31000 + secrets.randbelow(500)
    server = f"exec {PY} -m http.server --bind 127.0.0.1 {port}"
    proc = boxed.start_detached(f"{server} # --port {port}", name="web")
    try:
        deadline = time.monotonic() + 10
        fetched = ""
        while time.monotonic() < deadline:
            fetched = boxed.run(
                f"{PY} -c 'import urllib.request as u; print(u.urlopen(\"http://127.0.0.1:{port}/\").status)'"
            ).stdout
            if fetched.strip() == "200":
                break
            time.sleep(0.2)
        assert fetched.strip() == "200"
    finally:
        boxed.stop_process(proc, grace_s=2)


def test_root_only_files_and_keys_are_unreadable_inside(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("the login must be root: only then does the sandbox change the uid")
    secret_dir = Path("/var/lib") / f"opsagent-test-{secrets.token_hex(4)}"
    secret_dir.mkdir(mode=0o755)
    try:
        key = secret_dir / "id_ed25519"
        key.write_text("not a real key\n")
        key.chmod(0o600)
        bare, boxed = _targets(tmp_path)
        command = f"id -u; head -c 3 {key}; echo; head -c 4 /etc/shadow"
        assert bare.run(command).stdout.splitlines()[:2] == ["0", "not"]
        inside = boxed.run(command)
        assert inside.stdout.splitlines()[0] == str(SANDBOX_UID)
        assert f"{key}' for reading: Permission denied" in inside.stderr
        assert "'/etc/shadow' for reading: Permission denied" in inside.stderr
        # the root's home is a private directory holding only the Python toolchains (read-only)
        shown = set(boxed.run("ls -A /root").stdout.split())
        toolchains = {p[2:].split("/")[0] for p in READABLE_TOOLCHAINS}
        assert shown <= toolchains, shown - toolchains
        assert "No such file or directory" in boxed.run("ls /root/.ssh").stderr
        # and the work directory is still the command's to write
        assert boxed.run("touch made && ls -n made | awk '{print $3}'").stdout.strip() == str(SANDBOX_UID)
    finally:
        shutil.rmtree(secret_dir, ignore_errors=True)


def test_a_non_root_login_sees_its_home_without_dot_entries() -> None:
    view = View(
        bwrap="bwrap",
        work_dir="/home/ops/opsagent-work",
        home="/home/ops",
        home_dots=[".ssh/", ".netrc", ".cache/"],
        writable=["/home/ops/opsagent-work", "/home/ops/.cache"],
    )
    argv = bwrap_argv(view)
    joined = " ".join(argv)
    assert "--ro-bind /home/ops /home/ops" in joined
    assert "--tmpfs /home/ops/.ssh" in joined and "--ro-bind /dev/null /home/ops/.netrc" in joined
    # the writable cache comes back on top of its hidden directory
    assert joined.index("--tmpfs /home/ops/.cache") < joined.index("--bind-try /home/ops/.cache /home/ops/.cache")
    assert "--ro-bind / /" not in joined and "--tmpfs /tmp" in joined and "--tmpfs /run" in joined


def _plant(tmp_path: Path, name: str) -> tuple[Path, Path, Path]:
    """Root-owned files outside the work directory, and links to them where the launcher writes."""
    outside = tmp_path / "outside"
    outside.mkdir()
    log_target, pid_target = outside / "precious.conf", outside / "precious.pid"
    log_target.write_text("keep me\n")
    pid_target.write_text("keep me too\n")
    work = tmp_path / "work"
    (work / "logs").mkdir(parents=True)
    (work / "run").mkdir()
    (work / "logs" / f"{name}.log").symlink_to(log_target)
    (work / "run" / f"{name}.pid").symlink_to(pid_target)
    return outside, log_target, pid_target


def test_the_launcher_follows_no_link_planted_in_the_work_directory(tmp_path: Path) -> None:
    outside, log_target, pid_target = _plant(tmp_path, "srv")
    _, boxed = _targets(tmp_path)
    proc = boxed.start_detached("echo started", name="srv")
    deadline = time.monotonic() + 10
    while boxed.process_status(proc).running and time.monotonic() < deadline:
        time.sleep(0.1)
    assert log_target.read_text() == "keep me\n" and pid_target.read_text() == "keep me too\n"
    assert sorted(p.name for p in outside.iterdir()) == ["precious.conf", "precious.pid"]
    pid_file = tmp_path / "work" / "run" / "srv.pid"
    assert not pid_file.is_symlink() and pid_file.read_text().strip() == str(proc.pid)
    assert boxed.process_status(proc).exit_code == 0
    assert Path(proc.log_path).read_text() == "started\n"  # a fresh log, written from inside


def test_a_run_directory_replaced_by_a_link_stops_the_launch(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    (work / "run").symlink_to(outside)
    _, boxed = _targets(tmp_path)
    with pytest.raises(TargetError, match="not a directory"):
        boxed.start_detached("echo started", name="srv")
    assert list(outside.iterdir()) == []


def test_sandbox_check_shows_each_escape_outside_and_none_inside(listeners: dict[str, str], tmp_path: Path) -> None:
    bare, boxed = _targets(tmp_path)
    escapes = ["host_tcp_refused", "abstract_sockets_refused", "pathname_sockets_refused", "tmp_run_private"]
    if os.geteuid() == 0:
        escapes.append("unprivileged_identity")
    outside = {p.name: p for p in run_probes(bare, [])}
    assert [n for n in escapes if outside[n].contained] == []
    inside = {p.name: p for p in run_probes(boxed, boxed.sandbox_status().devices)}
    assert [p.name + ": " + p.detail for p in inside.values() if not p.contained] == []
    assert listeners["tcp"] in inside["host_tcp_refused"].detail
    assert "EPERM" in inside["abstract_sockets_refused"].detail


def test_the_targets_own_write_replaces_a_planted_link_and_gives_the_file_to_the_sandbox(tmp_path: Path) -> None:
    outside = tmp_path / "precious.conf"
    outside.write_text("keep me\n")
    _, boxed = _targets(tmp_path)
    assert boxed.run(f"ln -s {outside} script.sh").ok
    boxed.write_file("script.sh", b"echo written\n")
    assert outside.read_text() == "keep me\n"
    written = tmp_path / "work" / "script.sh"
    assert not written.is_symlink() and written.read_text() == "echo written\n"
    # what the agent writes, its commands may change (a root login's commands run as another uid)
    assert boxed.run("echo more >> script.sh && tail -n 1 script.sh").stdout == "more\n"


def test_the_targets_own_read_follows_no_link_out_of_the_work_directory(tmp_path: Path) -> None:
    secret = tmp_path / "root-only.key"
    secret.write_text("not a real key\n")
    secret.chmod(0o600)
    bare, boxed = _targets(tmp_path)
    assert boxed.run(f"mkdir -p logs && ln -s {secret} logs/server.log && mkfifo logs/fifo.log").ok
    assert bare.read_file("logs/server.log") == b"not a real key\n"  # without the sandbox: read as the login
    with pytest.raises(TargetError, match="outside the paths the sandbox may write"):
        boxed.read_file("logs/server.log")
    assert boxed.read_file("logs/fifo.log") == b""  # a FIFO does not hang the read
    assert boxed.read_file(str(secret)) == b"not a real key\n"  # named as itself, the policy judges it


_SERVER_NET = """import socket
def pair(port):
    s = socket.socket(); s.bind(("127.0.0.1", port)); s.listen(1)
    socket.create_connection(s.getsockname(), timeout=3).close(); return s.getsockname()[1]
def reach(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=3).close(); return "reached"
    except OSError as e:
        return "refused " + str(e)
print("ephemeral", pair(0), flush=True)
print("nccl", pair({nccl}), flush=True)
print("host", reach({host}), flush=True)
"""


def test_a_server_may_use_its_ports_and_ephemeral_ones_but_not_a_host_service(tmp_path: Path) -> None:
    """What an SGLang server needs (its NCCL/TCPStore port above its own, NCCL's bootstrap on an
    ephemeral port) works in a launch; a one-shot command still cannot bind an ephemeral port,
    and a host service on another port stays out of the server's reach too."""
    host = socket.socket()
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    for port in range(20000 + secrets.randbelow(2000), low):  # below the ephemeral range
        try:
            host.bind(("127.0.0.1", port))
            break
        except OSError:
            continue
    host.listen(4)
    try:
        _, boxed = _targets(tmp_path)
        port = 31000 + secrets.randbelow(500)
        script = tmp_path / "work" / "server.py"
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(_SERVER_NET.format(nccl=port + 500, host=host.getsockname()[1]))
        proc = boxed.start_detached(f"exec {PY} server.py --port {port}", name="srv")
        deadline = time.monotonic() + 10
        while boxed.process_status(proc).running and time.monotonic() < deadline:
            time.sleep(0.1)
        log = Path(proc.log_path).read_text()
        assert "ephemeral " in log and f"nccl {port + 500}" in log, log
        assert "host refused" in log and "Permission denied" in log, log
        once = boxed.run(f"{PY} -c 'import socket; socket.socket().bind((\"127.0.0.1\", 0))'")
        assert once.exit_code != 0 and "Permission denied" in once.stderr
    finally:
        host.close()
