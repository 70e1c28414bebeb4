"""An operator's "continue" is heard by the runbook: on a link that drops a third of the commands
(twice the shipped family's worst), each "continue" buys another round of retries of a launch or
a measurement the link broke, and a new dead end is asked about rather than taken as the one
asked about before. Real runs of the eval on lab variants, with its scripted operator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tools.lab import SCENARIO_DIR

HARD_LINK = """\
family: hard-link
summary: A healthy host behind a link that drops a third of its commands (none of them ran).
base: {base}
params:
  sglang: {{choices: ["0.5.9", "0.5.14", "0.5.23"]}}
template:
  link: {{drop_rate: 0.3, effect_rate: 0.0, spare_first: 10}}
  software: {{sglang: "${{sglang}}"}}
  goal:
    text: Serve /models/Llama-3.3-70B-Instruct on GPUs 0-3 at >= 1000 tok/s output at concurrency 64.
    min_aggregate_tps: 1000
  expect:
    final_launch: {{}}
"""


def test_a_continued_run_keeps_retrying_what_the_link_broke(tmp_path: Path) -> None:
    family = tmp_path / "hard-link.yaml"
    family.write_text(HARD_LINK.format(base=SCENARIO_DIR / "flaky-link.yaml"))
    env = {**os.environ, "OPSAGENT_STATE": str(tmp_path / "state"), "OPSAGENT_TRANSCRIPTS": str(tmp_path / "t")}
    result = subprocess.run(
        [sys.executable, "-m", "agent.cli", "eval", "--family", str(family), "--variants", "12", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    card = json.loads(result.stdout)
    failed = {s["name"]: s["reason"] for s in card["scenarios"] if not s["passed"]}
    assert failed == {}, failed
    assert any(s["escalated"] for s in card["scenarios"])  # some asked, were told to go on, and did
    assert sum(s["violations"] for s in card["scenarios"]) == 0


def test_continue_at_a_kv_dead_end_takes_the_step_the_arithmetic_expects_to_reach_the_goal(tmp_path: Path) -> None:
    """Two GPUs, a KV cache that holds the goal's concurrency only in fp8 (and, where SGLang's
    default fraction is 0.88, only with the fraction raised too). The runbook asks before any
    launch; told "continue", it takes the proposed step its arithmetic expects to hold the goal
    (the two remedies combined when neither alone does), not a launch on a hope."""
    family = Path(__file__).parents[2] / "tools" / "lab" / "families" / "fp8-kv-needed.yaml"
    env = {**os.environ, "OPSAGENT_STATE": str(tmp_path / "state"), "OPSAGENT_TRANSCRIPTS": str(tmp_path / "t")}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent.cli",
            "eval",
            "--family",
            str(family),
            "--variants",
            "8",
            "--seed",
            "4242",
            "--json",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    card = json.loads(result.stdout)
    assert {s["name"]: s["verdict"] for s in card["scenarios"]} == {
        f"fp8-kv-needed-{seed}": "pass" for seed in range(4242, 4250)
    }, [s["reason"] for s in card["scenarios"]]
    assert all(s["escalated"] and s["launches"] <= 2 for s in card["scenarios"])  # asked first, then one step
