"""Files over SFTP and detached processes on a real sshd."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.ssh.procs import kill_all, pids_with
from tests.sshd_fixture import SshServer
from tools.ssh.target import SSHTarget
from tools.target import ProcessNotOwned, TargetFileError


def test_read_file_with_offset_and_limit(target: SSHTarget, tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(256)) * 8)
    assert target.read_file(str(path)) == bytes(range(256)) * 8
    assert target.read_file(str(path), offset=10, max_bytes=5) == bytes(range(10, 15))
    assert target.read_file(str(path), offset=4096) == b""


def test_read_missing_file_raises(target: SSHTarget, tmp_path: Path) -> None:
    with pytest.raises(TargetFileError, match="no such file"):
        target.read_file(str(tmp_path / "missing"))


def test_stat_matches_the_file(target: SSHTarget, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("hello")
    info = os.stat(path)
    stat = target.stat(str(path))
    assert stat is not None
    assert (stat.size, stat.inode) == (5, info.st_ino)
    assert abs(stat.mtime - info.st_mtime) < 0.001
    assert target.stat(str(tmp_path / "missing")) is None


def test_write_file_creates_parents_and_replaces(target: SSHTarget, tmp_path: Path) -> None:
    # in the work directory: the sandbox lets the target write files nowhere else
    path = Path(target.work_dir) / tmp_path.name / "a" / "b" / "script.sh"
    target.write_file(str(path), b"echo one\n")
    target.write_file(str(path), b"echo two\n")
    assert path.read_bytes() == b"echo two\n"
    assert list(path.parent.iterdir()) == [path]


def test_work_dir_defaults_to_remote_home(sshd: SshServer) -> None:
    with SSHTarget.connect(sshd.url, sshd.options(work_dir=None)) as target:
        assert target.work_dir == target.home + "/opsagent-work"
        assert target.home == str(Path.home())
    with SSHTarget.connect(sshd.url, sshd.options(work_dir="~/elsewhere")) as target:
        assert target.work_dir == target.home + "/elsewhere"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _kill(pid: int) -> None:
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)


def test_detached_process_lifecycle(target: SSHTarget) -> None:
    process = target.start_detached("echo started; sleep 3301 | cat", name="sleeper")
    try:
        assert process.pid > 0 and process.pgid == process.pid
        assert process.log_path.startswith(target.work_dir)
        assert _alive(process.pid)
        assert target.process_status(process).running
        stopped = target.stop_process(process, grace_s=2)
        assert not stopped.running
        assert not _alive(process.pid)
        assert pids_with("3301") == []
        assert target.read_file(process.log_path) == b"started\n"
    finally:
        _kill(process.pid)
        kill_all("3301")


def test_detached_exit_code_is_reported(target: SSHTarget) -> None:
    process = target.start_detached("echo hi; false", name="quick")
    for _ in range(100):
        status = target.process_status(process)
        if not status.running and status.exit_code is not None:
            break
        target.sleep(0.05)
    assert not status.running and status.exit_code == 1


def test_recycled_pid_is_never_signalled(target: SSHTarget) -> None:
    process = target.start_detached("sleep 3302", name="recycled")
    try:
        impostor = process.model_copy(update={"start_ticks": "1"})
        with pytest.raises(ProcessNotOwned, match="recycled"):
            target.stop_process(impostor, grace_s=1)
        assert _alive(process.pid)
        stranger = process.model_copy(update={"pid": 1, "pgid": 1})
        with pytest.raises(ProcessNotOwned, match="pid file"):
            target.stop_process(stranger, grace_s=1)
        assert target.stop_process(process, grace_s=1).running is False
    finally:
        _kill(process.pid)
        kill_all("3302")
