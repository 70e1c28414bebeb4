"""Exit codes of run, resume and demo (README, "Exit codes"; agent/cli/exitcodes.py): 0 only for a met,
signed-off goal; 1 stopped or finished without it; 3 waiting for a reply; 2 bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.opsagent_process import CliRun


def test_demo_without_a_terminal_meets_its_goal_and_exits_0(workspace: Path) -> None:
    # as `make demo > out.txt` runs it: stdin and stdout not terminals, no $COLUMNS
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update(OPSAGENT_STATE=str(workspace / "state"), OPSAGENT_TRANSCRIPTS=str(workspace / "transcripts"))
    result = subprocess.run(
        [sys.executable, "-m", "agent.cli", "demo"],
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    out = result.stdout
    assert "goal met, signed off" in out
    assert "left running on the host: sglang (pid " in out and "port 30000" in out
    # piped to a file, nothing is cut at 80 columns: the P2P finding and the closing table row are whole
    assert "P2P copies return wrong data on 12 of 12 GPU pairs (e.g. 0->1: 16,777,216 mismatched values)." in out
    assert any(
        "tp=4, gpus=[0, 1, 2, 3], env={'NCCL_P2P_DISABLE': '1'}" in line and "2,194" in line
        for line in out.splitlines()
    )
    # the benchmark's result line gives the numbers, not the data source
    assert "ok: 108 tok/s single stream, 2,194 tok/s aggregate at concurrency 64" in out


def test_a_goal_not_met_is_exit_1_even_when_signed_off(cli: CliRun) -> None:
    result = cli("run", "--target", "lab:unreachable-goal", "--approver", "scripted")
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr
    assert "goal NOT met" in result.stdout


def test_waiting_then_stopped_then_resumed(cli: CliRun, workspace: Path) -> None:
    waiting = cli("run", "--target", "lab:vm-no-p2p", "--approver", "none", "--run-id", "w")
    assert waiting.returncode == 3
    assert "answer with: opsagent reply w 1|continue|stop|--edit CMD|--say TEXT" in waiting.stdout
    assert cli("resume", "w", "--approver", "none").returncode == 3  # still nobody to answer
    stopped = cli("reply", "w", "stop")
    # no process drives the run: the stop closes it, no `resume` needed
    assert stopped.returncode == 0 and "run w stopped" in stopped.stdout, stopped.stdout + stopped.stderr
    assert json.loads(cli("inbox", "--json").stdout) == []
    again = cli("resume", "w")
    assert again.returncode == 2 and "already stopped" in again.stderr
    finished = [json.loads(line) for line in (workspace / "transcripts" / "w.jsonl").read_text().splitlines()]
    assert finished[-1]["type"] == "run_finished" and finished[-1]["payload"]["status"] == "stopped"


def test_without_a_terminal_run_prints_the_report_and_how_to_answer_then_waits(cli: CliRun, workspace: Path) -> None:
    env = {
        **os.environ,
        "OPSAGENT_STATE": str(workspace / "state"),
        "OPSAGENT_TRANSCRIPTS": str(workspace / "transcripts"),
        "OPSAGENT_CONFIG": str(workspace / "no-config.yaml"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "run", "--target", "lab:vm-no-p2p", "--run-id", "nt"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=workspace,
    )
    deadline = time.monotonic() + 120
    while not json.loads(cli("inbox", "--json").stdout):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.3)
    assert cli("reply", "nt", "stop").returncode == 0
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert "opsagent needs a decision" in out  # the situation report
    assert "waiting for a reply (no terminal to ask at); answer from any shell: opsagent reply nt " in out
