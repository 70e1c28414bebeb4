"""`opsagent inbox` and `opsagent inbox show RUN`: what waits, whether a process is there to take
the reply, runs answered but not resumed, and the whole report, with commands never broken across
lines."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.opsagent_process import CliRun


def _waiting(cli: CliRun, run_id: str) -> None:
    assert cli("run", "--target", "lab:vm-no-p2p", "--approver", "none", "--run-id", run_id).returncode == 3


def test_the_reply_command_is_one_line_at_80_columns(cli: CliRun) -> None:
    run_id = "a-rather-long-run-id-20261201-150000-abcd"
    _waiting(cli, run_id)
    shown = cli("inbox", extra_env={"COLUMNS": "80"})
    lines = shown.stdout.splitlines()
    assert f"  reply: opsagent reply {run_id} 1|continue|stop|--edit CMD|--say TEXT" in lines, shown.stdout
    assert f"  no process waits for it: after replying, run: opsagent resume {run_id}" in lines


def test_narrow_and_piped_output_keeps_commands_and_sentences_whole(cli: CliRun, workspace: Path) -> None:
    _waiting(cli, "narrow-run")
    hint = "reply: opsagent reply narrow-run 1|continue|stop|--edit CMD|--say TEXT"
    for command in (("inbox",), ("inbox", "show", "narrow-run")):
        shown = cli(*command, extra_env={"COLUMNS": "40"})
        assert any(line.strip() == hint for line in shown.stdout.splitlines()), shown.stdout
    # piped to a file with no $COLUMNS, as `opsagent inbox show R > report.txt`: not cut at 80 columns
    question = json.loads(cli("inbox", "--json").stdout)[0]["question"]
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update(OPSAGENT_STATE=str(workspace / "state"), OPSAGENT_TRANSCRIPTS=str(workspace / "transcripts"))
    piped = subprocess.run(
        [sys.executable, "-m", "agent.cli", "inbox", "show", "narrow-run"],
        cwd=workspace, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert len(question) > 80 and any(question in line for line in piped.stdout.splitlines()), piped.stdout


def test_inbox_show_prints_the_whole_report(cli: CliRun) -> None:
    _waiting(cli, "r1")
    report = json.loads(cli("inbox", "--json").stdout)[0]["report"]
    shown = cli("inbox", "show", "r1")
    assert shown.returncode == 0
    assert "opsagent needs a decision" in shown.stdout and "Attempts" in shown.stdout
    assert len(shown.stdout) > 0.8 * len(report)  # the whole report, not its first line
    assert "reply: opsagent reply r1 " in shown.stdout and "then: opsagent resume r1" in shown.stdout
    unknown = cli("inbox", "show", "nope")
    assert unknown.returncode == 2 and "unknown run 'nope'" in unknown.stderr


def test_answered_runs_wait_for_resume_and_say_so(cli: CliRun) -> None:
    _waiting(cli, "r2")
    assert cli("reply", "r2", "continue").returncode == 0
    shown = cli("inbox")
    assert "r2: answered (continue by " in shown.stdout
    assert "continue it with: opsagent resume r2" in shown.stdout


def test_a_run_whose_process_died_is_marked(cli: CliRun, workspace: Path) -> None:
    killed = cli(
        "run", "--target", "lab:healthy-host", "--approver", "none", "--run-id", "dead",
        extra_env={"OPSAGENT_CRASH_AFTER_EVENT": "5"},
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL
    shown = cli("inbox")
    assert "dead: its process is gone (status running: crashed or killed); continue it with: opsagent resume dead" in (
        shown.stdout
    )
    assert os.path.exists(workspace / "transcripts" / "dead.jsonl")
