"""Faults against a real sshd: killed sessions, restarts, an sshd that never comes back."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.ssh.procs import kill_all
from tests.sshd_fixture import SshServer
from tools.ssh.target import SSHTarget
from tools.target import CommandResult, TargetUnreachable


def _wait_for(path: Path, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert path.exists(), f"{path} never appeared"


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "exec"])
def test_session_killed_mid_command_is_outcome_unknown_and_never_rerun(
    own_sshd: SshServer, tmp_path: Path, fast_path: bool
) -> None:
    marker = tmp_path / "ran.log"
    # the marker lives in the work directory: the only place a sandboxed command may write
    target = SSHTarget.connect(own_sshd.url, own_sshd.options(fast_path=fast_path, work_dir=str(tmp_path)))
    results: list[CommandResult] = []
    try:
        runner = threading.Thread(
            target=lambda: results.append(target.run(f"echo run >> {marker}; sleep 3201; echo done"))
        )
        runner.start()
        _wait_for(marker)
        assert own_sshd.kill_sessions()
        runner.join(30)
        assert not runner.is_alive()
        [result] = results
        assert result.outcome_unknown
        assert result.exit_code is None
        assert not result.ok
        assert result.error and "may or may not" in result.error
        # The next command reconnects and runs; the one with the unknown outcome does not run again.
        after = target.run("echo back")
        assert after.ok and after.stdout == "back\n"
        assert marker.read_text() == "run\n"
    finally:
        target.close()
        kill_all("3201")


def test_sshd_restarted_between_commands(own_sshd: SshServer) -> None:
    with SSHTarget.connect(own_sshd.url, own_sshd.options()) as target:
        assert target.run("echo one").stdout == "one\n"
        old_sessions = own_sshd.session_pids()
        own_sshd.restart()
        result = target.run("echo two")
        assert result.ok and result.stdout == "two\n"
        assert not set(old_sessions) & set(own_sshd.session_pids())
        assert target.read_file(str(own_sshd.config))[:5] == b"Port "


def test_reconnect_waits_for_sshd_to_come_back(own_sshd: SshServer) -> None:
    with SSHTarget.connect(own_sshd.url, own_sshd.options(connect_attempts=6)) as target:
        assert target.run("echo one").ok
        own_sshd.stop()
        restarter = threading.Timer(0.6, own_sshd.launch)
        restarter.start()
        try:
            result = target.run("echo two")
        finally:
            restarter.join()
        assert result.ok and result.stdout == "two\n"


def test_sshd_gone_for_good_is_unreachable(own_sshd: SshServer) -> None:
    target = SSHTarget.connect(own_sshd.url, own_sshd.options(connect_attempts=2))
    try:
        own_sshd.stop()
        with pytest.raises(TargetUnreachable, match=rf"127\.0\.0\.1:{own_sshd.port}.*after 2 attempts"):
            target.run("true")
    finally:
        target.close()


def test_nothing_listening_is_unreachable_naming_host_and_port(own_sshd: SshServer) -> None:
    own_sshd.stop()
    with pytest.raises(TargetUnreachable) as caught:
        SSHTarget.connect(own_sshd.url, own_sshd.options(connect_attempts=2))
    message = str(caught.value)
    assert f"127.0.0.1:{own_sshd.port}" in message
    assert "refused" in message.lower()


@pytest.mark.parametrize("round_", range(3))
def test_command_sent_as_the_link_drops_runs_exactly_once(own_sshd: SshServer, tmp_path: Path, round_: int) -> None:
    marker = tmp_path / f"once-{round_}.log"
    with SSHTarget.connect(own_sshd.url, own_sshd.options(work_dir=str(tmp_path))) as target:  # writable
        assert target.run("true").ok
        own_sshd.kill_sessions()
        result = target.run(f"echo ran >> {marker}; echo ok")
        ran = marker.read_text() if marker.exists() else ""
        if result.outcome_unknown:
            # It started before the link died: it may have been cut off or finished, never run twice.
            assert result.exit_code is None
            assert ran in ("", "ran\n")
        else:
            assert result.ok and result.stdout == "ok\n"
            assert ran == "ran\n"
