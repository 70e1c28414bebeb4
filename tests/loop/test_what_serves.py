"""What is left running is what was accepted (#30, item 1): the best measured configuration serves
when the run ends, the closing summary says so, and a question never waits on a stopped server."""

from __future__ import annotations

import re
from pathlib import Path

from agent.transcript.reader import read_events
from tests.opsagent_process import CliRun


def _launches(transcript: Path) -> list[dict[str, object]]:
    return [
        e.payload["action"]["args"]
        for e in read_events(transcript)
        if e.type == "action_started" and e.payload["action"]["tool"] == "launch_server"
    ]


def test_the_accepted_configuration_is_what_serves(cli: CliRun, workspace: Path) -> None:
    # vm-no-p2p: A3 measures best (476 tok/s), A4 (469) is the last one tried
    assert cli("run", "--target", "lab:vm-no-p2p", "--run-id", "acc", "--approver", "none").returncode == 3
    assert cli("reply", "acc", "1").returncode == 0  # 1: accept what was measured as the goal
    assert cli("resume", "acc", "--approver", "none").returncode == 3  # the sign-off
    assert cli("reply", "acc", "sign-off").returncode == 0  # the goal is not met: only a sign-off ends it
    done = cli("resume", "acc", "--approver", "none")
    out = done.stdout
    assert "serving: A3, the best measured configuration (476 tok/s aggregate)" in out, out[-1500:]
    launches = _launches(workspace / "transcripts" / "acc.jsonl")
    assert launches[-1] == launches[2], "the last launch is A3's configuration again"
    pid = re.search(r"left running on the host: sglang \(pid (\d+)", out)
    assert pid is not None, out[-800:]
    started = [
        e.payload
        for e in read_events(workspace / "transcripts" / "acc.jsonl")
        if e.type == "action_result" and e.payload.get("tool") == "launch_server"
    ]
    assert str(started[-1]["started"][0]["pid"]) == pid.group(1), "the process left is the relaunched A3"


def test_the_server_serves_while_the_launch_budget_question_waits(cli: CliRun, workspace: Path) -> None:
    config = workspace / "config.yaml"
    config.write_text("loop:\n  max_launches: 2\n")
    waiting = cli(
        "run", "--target", "lab:vm-no-p2p", "--run-id", "bud", "--approver", "none",
        extra_env={"OPSAGENT_CONFIG": str(config)},
    )  # fmt: skip
    assert waiting.returncode == 3, waiting.stdout[-1500:] + waiting.stderr
    assert "loop.max_launches = 2" in waiting.stdout
    assert "left running on the host: sglang (pid" in waiting.stdout, waiting.stdout[-800:]


def test_a_single_stream_goal_keeps_its_best_single_stream_configuration(cli: CliRun) -> None:
    # unreachable-goal asks for 250 tok/s single stream: A1 (41) beats the tuning after it (40)
    assert cli("run", "--target", "lab:unreachable-goal", "--run-id", "one", "--approver", "none").returncode == 3
    assert cli("reply", "one", "1").returncode == 0
    signed = cli("resume", "one", "--approver", "none")
    line = next(ln for ln in signed.stdout.splitlines() if ln.startswith("serving:"))
    assert line == "serving: A1, the best measured configuration (41 tok/s single stream), relaunched as A5", line
