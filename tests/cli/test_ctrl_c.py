"""Ctrl-C at a real terminal (#30, item 2): one line that says what was interrupted, what is still
running and where, and how to go on; exit 130 (README, "Exit codes"); `inbox` says interrupted."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.opsagent_process import CliRun
from tests.sshd_fixture import SKIP_REASON, SSHD_PATH, SshServer
from tests.terminal import at_terminal, drain, read_until


def _interrupt(pid: int, fd: int, seen: bytearray, seconds: float = 30) -> tuple[int, str]:
    os.kill(pid, signal.SIGINT)
    drain(fd, seen, seconds)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    lines = [ln for ln in seen.decode(errors="replace").splitlines() if "interrupted" in ln]
    return os.waitstatus_to_exitcode(status), "\n".join(lines)


def test_ctrl_c_at_the_prompt(cli: CliRun, workspace: Path) -> None:
    pid, fd = at_terminal(workspace, "run", "--target", "lab:vm-no-p2p", "--run-id", "cc")
    seen = bytearray()
    read_until(fd, b"reply>", seen)
    code, line = _interrupt(pid, fd, seen)
    assert code == 130, seen.decode(errors="replace")[-1500:]
    assert line.count("\n") == 0 and "Traceback" not in seen.decode(errors="replace")
    assert "run cc was waiting for your reply" in line
    assert "still running on lab:vm-no-p2p: sglang (pid" in line and "port 30000" in line
    assert "opsagent resume cc" in line and "opsagent reply cc" in line
    assert "reply: opsagent reply cc" in cli("inbox").stdout  # the question still waits


def test_ctrl_c_while_a_command_runs(cli: CliRun, workspace: Path) -> None:
    goal = "serve /models/x at 100 tok/s single stream on GPU 0"
    pid, fd = at_terminal(workspace, "run", "--target", "local", "--goal", goal, "--run-id", "cm")
    seen = bytearray()
    read_until(fd, b"reply>", seen)  # no GPU here: it asks; the operator runs a slow command
    os.write(fd, b"edit sleep 7\n")
    read_until(fd, b"sleep 7", seen)
    time.sleep(1.5)
    code, line = _interrupt(pid, fd, seen)
    assert code == 130, seen.decode(errors="replace")[-1500:]
    assert "interrupted: run cm during step" in line and "run_command(command=sleep 7)" in line
    assert "may still be running on local" in line and "continue it with: opsagent resume cm" in line
    inbox = cli("inbox").stdout
    assert "cm: interrupted (Ctrl-C)" in inbox and "crashed" not in inbox, inbox
    # what the line promised: resuming asks about the command before anything else runs
    resumed = cli("resume", "cm", "--approver", "none")
    assert resumed.returncode == 3 and "outcome" in resumed.stdout, resumed.stdout[-1500:]


@pytest.mark.skipif(not SSHD_PATH.exists(), reason=SKIP_REASON)
def test_ctrl_c_over_ssh_says_the_remote_command_may_still_run_and_it_does(workspace: Path, tmp_path: Path) -> None:
    """The line says a command in flight may still run on the host: over SSH it does (the sandboxed
    command is not stopped by the operator's Ctrl-C), and the resume asks about it first."""
    with SshServer.start(tmp_path / "sshd") as server:
        goal = "serve /models/x at 100 tok/s single stream on GPU 0"
        args = ["run", "--target", server.url, "--identity", str(server.user_key), "--accept-new-host-key"]
        pid, fd = at_terminal(workspace, *args, "--goal", goal, "--run-id", "cs", home=tmp_path)
        seen = bytearray()
        read_until(fd, b"reply>", seen)
        os.write(fd, b"edit sleep 8.5\n")
        read_until(fd, b"sleep 8.5", seen)
        time.sleep(1.5)
        code, line = _interrupt(pid, fd, seen, seconds=5)
        assert code == 130, seen.decode(errors="replace")[-1500:]
        assert f"run_command(command=sleep 8.5), which may still be running on {server.url}" in line, line
        still = subprocess.run(["pgrep", "-f", "sleep 8.5"], capture_output=True, text=True)
        assert still.stdout.strip(), "what the line says: the remote command still runs"
