"""Text typed on the web page, written by a model or printed by a host reaches operators'
terminals through `opsagent replay` and `opsagent inbox show`: under a real pty, no escape
sequence it holds is passed through (issue #29, check 4); each is shown as text instead."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.cli.terminal_text import safe
from agent.state import Question
from agent.store.records import RunSpec
from agent.store.sqlite import Store
from agent.transcript.writer import TranscriptWriter
from tests.web.server import REPO

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: writes the operator's clipboard
TITLE = "\x1b]0;pwned\x07"  # OSC 0: the window title
LINK = "\x1b]8;;https://attacker.example/\x1b\\click\x1b]8;;\x1b\\"  # OSC 8: a hyperlink
CLEAR = "\x1b[2J\x1b[H"  # clear the screen, cursor home
RAW = [b"\x1b]52;", b"\x1b]0;", b"\x1b]8;", b"\x1b[2J", b"\x1b[H"]


def _in_pty(args: list[str], env: dict[str, str], cwd: Path) -> bytes:
    """The bytes `opsagent ARGS` writes to a real terminal."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "agent.cli", *args], stdin=slave, stdout=slave, stderr=slave,
                            env=env, cwd=cwd, close_fds=True)  # fmt: skip
    os.close(slave)
    out = b""
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    assert proc.wait(timeout=60) == 0, out.decode(errors="replace")
    return out


@pytest.mark.parametrize("command", ["replay", "inbox show", "inbox"])
def test_the_cli_prints_escapes_as_text_under_a_pty(tmp_path: Path, command: str) -> None:
    store = Store(tmp_path / "state")
    writer = TranscriptWriter.create(tmp_path / "tr", "r1", fsync=False)
    goal = f"serve it {CLIPBOARD}{TITLE} now"
    spec = RunSpec(run_id="r1", goal={"text": goal}, target="lab:x", decider="runbook", transcript=str(writer.path))
    store.add_run(spec)
    writer.emit("run_started", {"run_id": "r1", "goal": {"text": goal}, "target": "lab:x"})
    writer.emit("action_result", {"step": 1, "key": "r1:1", "tool": "run_command", "ok": True,
                                  "summary": f"host says {CLEAR}{LINK}"})  # fmt: skip
    writer.emit("question", {"id": "q1-s1", "trigger": "decider_asks", "question": f"Go on? {TITLE}",
                             "reason": "asked"})  # fmt: skip
    writer.emit("reply", {"question_id": "q1-s1", "kind": "say", "who": "mallory", "text": f"ok {CLIPBOARD}{LINK}"})
    writer.close()
    question = Question(id="q2-s2", trigger="decider_asks", reason="asked", question=f"Next? {TITLE}",
                        report_markdown=f"# Report {TITLE}\n\nThe host printed {CLEAR} and {LINK}.\n\n"
                                        f"Goal: {CLIPBOARD}", asked_at=time.time())  # fmt: skip
    store.post_question("r1", question)
    env = {**os.environ, "OPSAGENT_STATE": str(tmp_path / "state"), "PYTHONPATH": str(REPO), "TERM": "xterm-256color"}
    env.pop("COLUMNS", None)

    args = {"replay": ["replay", str(writer.path)], "inbox show": ["inbox", "show", "r1"], "inbox": ["inbox"]}[command]
    out = _in_pty(args, env, tmp_path)
    for sequence in RAW:
        assert sequence not in out, f"opsagent {command} passed {sequence!r} to the terminal"
    assert b"\\x1b]" in out, f"opsagent {command} did not show the escapes: {out[-400:]!r}"


def test_the_sanitiser_keeps_text_and_shows_every_control() -> None:
    assert safe("plain text, tabs\tand\nnewlines: ünïcödé ✓") == "plain text, tabs\tand\nnewlines: ünïcödé ✓"
    assert safe(CLIPBOARD) == "\\x1b]52;c;cm0gLXJmIH4=\\x07"
    assert safe("a\rb\x9b2J\u202eevil") == "a\\x0db\\x9b2J\\u202eevil"
