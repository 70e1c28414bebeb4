"""Answering at the terminal, chat-style: the report, a prompt, replies in plain words."""

from __future__ import annotations

import os
import pty
import select
import sys
import time
from pathlib import Path

from agent.transcript.reader import read_events


def _read_until(fd: int, marker: bytes, seen: bytearray, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    start = len(seen)
    while marker not in seen[start:]:
        assert time.monotonic() < deadline, f"no {marker!r} in: {bytes(seen[-2000:])!r}"
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk


def test_chat_at_the_terminal(workspace: Path) -> None:
    env = {
        **os.environ,
        "OPSAGENT_STATE": str(workspace / "state"),
        "OPSAGENT_TRANSCRIPTS": str(workspace / "transcripts"),
        "COLUMNS": "120",
        "TERM": "dumb",
    }
    pid, fd = pty.fork()
    if pid == 0:  # the child: opsagent at a terminal
        os.chdir(workspace)
        os.execve(
            sys.executable,
            [sys.executable, "-m", "agent.cli", "run", "--target", "lab:vm-no-p2p", "--run-id", "tty"],
            env,
        )
    seen = bytearray()
    _read_until(fd, b"reply>", seen)
    text = seen.decode(errors="replace")
    assert "opsagent needs a decision" in text and "Attempts" in text
    # one line on how to reply (the report's), not a second near-identical one before the prompt
    assert text.count("Reply edit <command>") == 1 and "reply with:" not in text  # nothing to approve: not offered
    os.write(fd, b"??\n")
    _read_until(fd, b"reply>", seen)
    assert "cannot understand" in seen.decode(errors="replace")
    os.write(fd, b"continue\n")
    _read_until(fd, b"reply>", seen)  # out of ideas within the constraints: the sign-off
    os.write(fd, b"approve\n")  # the goal is not met: approve signs nothing off (#27), the prompt again
    _read_until(fd, b"reply>", seen)
    assert "does not sign off here" in seen.decode(errors="replace")
    os.write(fd, b"sign off\n")
    _read_until(fd, b"transcript:", seen)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    # finished without its goal (the VM cannot reach it), signed off: exit 1 (agent/cli/exitcodes.py)
    assert os.waitstatus_to_exitcode(status) == 1, seen.decode(errors="replace")[-2000:]
    replies = [e.payload for e in read_events(workspace / "transcripts" / "tty.jsonl") if e.type == "reply"]
    assert [r["kind"] for r in replies] == ["continue", "approve"]
    assert all(r["who"] for r in replies)
