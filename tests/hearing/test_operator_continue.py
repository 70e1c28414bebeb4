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
from typing import Any

from tools.lab.scenario import SCENARIO_DIR

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


def _eval(workdir: Path, family: Path, *args: str) -> dict[str, Any]:
    """`opsagent eval --family F ... --json` in a process of its own; its scorecard."""
    env = {**os.environ, "OPSAGENT_STATE": str(workdir / "state"), "OPSAGENT_TRANSCRIPTS": str(workdir / "t")}
    result = subprocess.run(
        [sys.executable, "-m", "agent.cli", "eval", "--family", str(family), *args, "--json"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    card: dict[str, Any] = json.loads(result.stdout)
    return card


def test_a_continued_run_keeps_retrying_what_the_link_broke(tmp_path: Path) -> None:
    family = tmp_path / "hard-link.yaml"
    family.write_text(HARD_LINK.format(base=SCENARIO_DIR / "flaky-link.yaml"))
    card = _eval(tmp_path, family, "--variants", "12")
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
    card = _eval(tmp_path, family, "--variants", "8", "--seed", "4242")
    assert {s["name"]: s["verdict"] for s in card["scenarios"]} == {
        f"fp8-kv-needed-{seed}": "pass" for seed in range(4242, 4250)
    }, [s["reason"] for s in card["scenarios"]]
    assert all(s["escalated"] and s["launches"] <= 2 for s in card["scenarios"])  # asked first, then one step


FAMILIES = Path(__file__).parents[2] / "tools" / "lab" / "families"


def test_continue_never_takes_a_step_the_operators_rules_rule_out(tmp_path: Path) -> None:
    """The operator's goal forbids an fp8 KV cache, the step that would reach the goal. Told
    "continue", the runbook must not run that step with the fp8 stripped (a launch it already
    measured, again and again): it ends with its report, and never launches fp8."""
    card = _eval(tmp_path, FAMILIES / "kv-policy-bf16.yaml", "--variants", "4", "--seed", "5353")
    assert [s["verdict"] for s in card["scenarios"]] == ["pass"] * 4, [s["reason"] for s in card["scenarios"]]
    assert all(s["launches"] <= 4 for s in card["scenarios"])


def test_one_stream_short_of_the_goal_without_p2p_measures_fewer_gpus(tmp_path: Path) -> None:
    """A VM without P2P and a single-stream goal: more TP is slower per token there. The runbook
    halves the TP group and measures, one step at a time, instead of tuning flags on TP4."""
    card = _eval(tmp_path, FAMILIES / "latency-fewer-gpus.yaml", "--variants", "4", "--seed", "5353")
    assert [s["verdict"] for s in card["scenarios"]] == ["pass"] * 4, [s["reason"] for s in card["scenarios"]]
