"""Answering at the terminal, chat-style: the report, a prompt, replies in plain words."""

from __future__ import annotations

import os
from pathlib import Path

from agent.transcript.reader import read_events
from tests.terminal import at_terminal, read_until


def test_chat_at_the_terminal(workspace: Path) -> None:
    pid, fd = at_terminal(workspace, "run", "--target", "lab:vm-no-p2p", "--run-id", "tty", columns=120)
    seen = bytearray()
    read_until(fd, b"reply>", seen)
    text = seen.decode(errors="replace")
    assert "opsagent needs a decision" in text and "Attempts" in text
    # one line on how to reply (the report's), not a second near-identical one before the prompt
    assert text.count("Reply edit <command>") == 1 and "reply with:" not in text  # nothing to approve: not offered
    os.write(fd, b"??\n")
    read_until(fd, b"reply>", seen)
    assert "cannot understand" in seen.decode(errors="replace")
    os.write(fd, b"continue\n")
    read_until(fd, b"reply>", seen)  # out of ideas within the constraints: the sign-off
    os.write(fd, b"approve\n")  # the goal is not met: approve signs nothing off (#27), the prompt again
    read_until(fd, b"reply>", seen)
    assert "does not sign off here" in seen.decode(errors="replace")
    os.write(fd, b"sign off\n")
    read_until(fd, b"transcript:", seen)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    # finished without its goal (the VM cannot reach it), signed off: exit 1 (agent/cli/exitcodes.py)
    assert os.waitstatus_to_exitcode(status) == 1, seen.decode(errors="replace")[-2000:]
    replies = [e.payload for e in read_events(workspace / "transcripts" / "tty.jsonl") if e.type == "reply"]
    assert [r["kind"] for r in replies] == ["continue", "approve"]
    assert all(r["who"] for r in replies)
