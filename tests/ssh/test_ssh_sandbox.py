"""The sandbox on an SSH target (a real sshd on loopback, real bubblewrap on the host): `require` is
the default, every probe holds over SSH, a server launched over SSH stays inside, and a host
without a working bubblewrap is refused with the install command.

The SSH tests log in as the user running them; bubblewrap as a non-root user needs unprivileged
user namespaces, so on hosts without them the probes are skipped with that reason."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.sshd_fixture import SshServer
from tools.sandbox import SandboxError, SandboxSpec
from tools.sandbox_check import run_probes
from tools.sandbox_view import SANDBOX_UID
from tools.ssh.target import SSHTarget
from tools.target import TargetFileError

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap: apt-get install -y bubblewrap")


def _connect(sshd: SshServer, **overrides: object) -> SSHTarget:
    return SSHTarget.connect(sshd.url, sshd.options(**overrides))


def test_require_is_the_default_and_every_probe_holds(sshd: SshServer, tmp_path: Path) -> None:
    with _connect(sshd, work_dir=str(tmp_path / "work")) as target:
        try:
            status = target.sandbox_status()
        except SandboxError as exc:  # a non-root login on a host without user namespaces
            pytest.skip(f"bubblewrap does not work for this login: {exc}")
        assert status.mode == "require" and status.active
        probes = run_probes(target, status.devices)
        assert [p.name for p in probes if not p.contained] == []
        etc = next(p.detail for p in probes if p.name == "write_etc_fails")
        assert "Read-only file system" in etc or "Permission denied" in etc  # a root login runs unprivileged


def test_writes_outside_the_work_directory_fail_over_ssh(sshd: SshServer, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    with _connect(sshd, work_dir=str(tmp_path / "work")) as target:
        result = target.run(f"touch {outside}/x")
        # pytest's directories are in /tmp, which is private inside: what is outside is not there
        assert result.exit_code == 1 and "No such file or directory" in result.stderr
        with pytest.raises(TargetFileError, match="Read-only file system"):
            target.write_file(str(outside / "y"), b"")
        assert not list(outside.iterdir())
        assert target.run("touch inside && ls inside").stdout == "inside\n"
        assert target.run(f"ln -s {outside} out").ok  # a link in the work directory to outside it
        # inside, the link leads nowhere (/tmp is private), so making its directory fails first
        with pytest.raises(TargetFileError, match=r"Read-only file system|File exists"):
            target.write_file("out/escaped", b"")
        assert not list(outside.iterdir())


def test_a_server_launched_over_ssh_stays_inside_until_stopped(sshd: SshServer, tmp_path: Path) -> None:
    with _connect(sshd, work_dir=str(tmp_path / "work")) as target:
        proc = target.start_detached("grep -E '^(CapEff|NoNewPrivs)' /proc/self/status; exec sleep 302.5", name="srv")
        assert proc.sandboxed
        deadline = time.monotonic() + 10
        while "NoNewPrivs" not in Path(proc.log_path).read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        log = Path(proc.log_path).read_text()
        assert "CapEff:\t0000000000000000" in log and "NoNewPrivs:\t1" in log
        assert target.process_status(proc).running
        assert not target.stop_process(proc, grace_s=2).running
        assert "sleep 302.5" not in target.run_outside_sandbox("ps -eo args").stdout


def test_a_host_whose_bubblewrap_fails_is_refused_with_the_install_command(sshd: SshServer, tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    (fake / "bwrap").chmod(0o755)
    # the probe finds `bwrap` on the login's PATH: put the broken one first through the work dir's env
    with _connect(sshd, work_dir=str(tmp_path / "work"), sandbox=SandboxSpec(mode="require")) as target:
        target._sandbox._run_host = _with_path(target, fake)
        with pytest.raises(SandboxError, match=r"sandbox: require.*does not work.*apt-get install -y bubblewrap"):
            target.sandbox_status()
    with _connect(sshd, work_dir=str(tmp_path / "work"), sandbox=SandboxSpec(mode="auto")) as target:
        target._sandbox._run_host = _with_path(target, fake)
        status = target.sandbox_status()
        assert not status.active and "unconfined" in status.detail
        assert target.run("grep ^NoNewPrivs /proc/self/status").stdout.split()[-1] == "0"


def _with_path(target: SSHTarget, bin_dir: Path):  # type: ignore[no-untyped-def]
    original = target._host_script

    def run(script: str) -> tuple[int | None, str, str]:
        return original(f"export PATH={bin_dir}:$PATH\n{script}")

    return run


def test_a_commands_background_jobs_end_with_it_in_the_sandbox(sshd: SshServer, tmp_path: Path) -> None:
    with _connect(sshd, work_dir=str(tmp_path / "work")) as target:
        result = target.run("nohup sleep 3107.5 >/dev/null 2>&1 & setsid sleep 3108.5 & echo started", timeout=30)
        assert result.stdout == "started\n"
        time.sleep(0.3)
        assert "sleep 310" not in target.run_outside_sandbox("ps -eo args").stdout


def test_the_loopback_sshd_is_not_reached_from_inside(sshd: SshServer, tmp_path: Path) -> None:
    """The escape of issue #28: `ssh -p PORT root@127.0.0.1` from inside reached a host sshd. Its
    banner is read outside; inside, on the fast path and on an exec channel, the connect fails."""
    banner = f"exec 3<>/dev/tcp/127.0.0.1/{sshd.port} && head -c 7 <&3"
    for fast_path in (True, False):
        with _connect(sshd, work_dir=str(tmp_path / "work"), fast_path=fast_path) as target:
            assert target.run_outside_sandbox(banner).stdout == "SSH-2.0"
            inside = target.run(banner)
            assert inside.exit_code != 0 and "Permission denied" in inside.stderr, inside


def test_fast_path_commands_run_inside_and_leave_nothing_running(sshd: SshServer, tmp_path: Path) -> None:
    with _connect(sshd, work_dir=str(tmp_path / "work")) as target:
        assert "opsagent-sandbox" in target.run("tr '\\0' ' ' < /proc/1/cmdline").stdout
        if os.geteuid() == 0:
            assert target.run("id -u").stdout.strip() == str(SANDBOX_UID)
        # setsid forks a daemon out of the command's process group: it must end with the command
        assert target.run("setsid -f sleep 3111.5 </dev/null >/dev/null 2>&1; echo left").stdout == "left\n"
        assert "sleep 3111.5" not in target.run_outside_sandbox("ps -eo args").stdout
        slow = target.run("sleep 3112.5", timeout=1)
        assert slow.timed_out
        time.sleep(0.3)
        assert "sleep 3112.5" not in target.run_outside_sandbox("ps -eo args").stdout
        assert target.run("echo again").stdout == "again\n"  # a new sandboxed shell


def test_a_launch_over_ssh_makes_its_port_reachable_from_the_fast_path(sshd: SshServer, tmp_path: Path) -> None:
    port = 32000 + int(time.time()) % 500
    with _connect(sshd, work_dir=str(tmp_path / "work")) as target:
        probe = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo reached"
        assert "Permission denied" in target.run(probe).stderr
        # http.server takes the port bare; the comment names it as a launch does (--port N)
        server = f"exec /usr/bin/python3 -m http.server --bind 127.0.0.1 {port}  # --port {port}"
        proc = target.start_detached(server, name="web")
        try:
            deadline = time.monotonic() + 10
            while target.run(probe).stdout != "reached\n" and time.monotonic() < deadline:
                time.sleep(0.2)
            assert target.run(probe).stdout == "reached\n"
        finally:
            target.stop_process(proc, grace_s=2)


def test_a_write_over_ssh_replaces_a_planted_link(sshd: SshServer, tmp_path: Path) -> None:
    outside = tmp_path / "precious.conf"
    outside.write_text("keep me\n")
    with _connect(sshd, work_dir=str(tmp_path / "work")) as target:
        assert target.run(f"ln -s {outside} script.sh && ln -s {outside} script.sh.opsagent-tmp").ok
        target.write_file("script.sh", b"echo written\n")
        assert outside.read_text() == "keep me\n"
        assert not (tmp_path / "work" / "script.sh").is_symlink()
        assert target.run("echo more >> script.sh && cat script.sh").stdout == "echo written\nmore\n"


def test_a_read_over_ssh_follows_no_link_out_of_the_work_directory(sshd: SshServer, tmp_path: Path) -> None:
    secret = tmp_path / "root-only.key"
    secret.write_text("not a real key\n")
    secret.chmod(0o600)
    with _connect(sshd, work_dir=str(tmp_path / "work")) as target:
        assert target.run(f"mkdir -p logs && ln -s {secret} logs/server.log && mkfifo logs/fifo.log").ok
        with pytest.raises(TargetFileError, match="outside the paths the sandbox may write"):
            target.read_file("logs/server.log")
        with pytest.raises(TargetFileError, match="not a regular file"):
            target.read_file("logs/fifo.log")
        assert target.read_file(str(secret)) == b"not a real key\n"
