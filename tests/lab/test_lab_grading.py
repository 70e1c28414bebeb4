"""Grading, end to end: a scripted decider drives the real loop against the lab; the eval grades it.

Each check has a deliberately wrong decider that fails it (launches before asking, exceeds the
launch budget, signs off the wrong env or a smaller model, reports without the numbers) and,
where it matters, a right one that passes, so the test fails when the check stops checking.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agent.deciders.scripted import ScriptedDecider
from agent.loop.evaluate import ScenarioScore, run_scenario
from agent.state import Action, Alternative, Decision
from tools.lab.family import FAMILY_DIR, draw_variant
from tools.lab.scenario import SCENARIO_DIR

TOO_BIG = f"{FAMILY_DIR / 'model-too-big.yaml'}#0"
_VARIANT = draw_variant(FAMILY_DIR / "model-too-big.yaml", 0)
TOO_BIG_MODEL = _VARIANT.goal.model_path
MEMORY_NUMBERS = (
    f"The weights need {_VARIANT.models[0].size_gb:.0f} GB; GPUs 0-3 hold 4 x 95.6 GiB = 382 GiB, "
    "so no layout on them fits."
)


def act(tool: str, **args: Any) -> Decision:
    return Decision(kind="act", action=Action(tool=tool, args=args), rationale=f"scripted: {tool}")


def ask(question: str, alternatives: list[str] | None = None) -> Decision:
    alts = [Alternative(description=a) for a in alternatives or []]
    return Decision(kind="ask", question=question, rationale=question, alternatives=alts, findings=[question])


def finish(goal_met: bool, why: str = "scripted finish") -> Decision:
    return Decision(kind="finish", goal_met=goal_met, rationale=why)


def launch(model: str, tp: int, gpus: list[int], port: int = 30000, **extra: Any) -> list[Decision]:
    """Launch, wait for it, benchmark it: what a deployment step looks like to the loop."""
    return [
        act("launch_server", model_path=model, tp=tp, gpus=gpus, port=port, name="sglang", **extra),
        act("wait_server", name="sglang", port=port, timeout_s=1800),
        act("run_benchmark", port=port, concurrency=[1, 64]),
    ]


def grade_with(name: str, decisions: list[Decision], tmp_path: Path) -> ScenarioScore:
    return run_scenario(
        name, decider="scripted", model=None, seed=0, workdir=tmp_path, decider_impl=ScriptedDecider(decisions)
    )


def scenario_with(tmp_path: Path, base: str, **expect: Any) -> str:
    """A shipped scenario with extra `expect` fields, as a file of its own."""
    data = yaml.safe_load((SCENARIO_DIR / f"{base}.yaml").read_text())
    data["expect"].update(expect)
    path = tmp_path / f"{base}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


# ---- order: ask before a doomed launch ---------------------------------------------------------


def test_a_doomed_launch_before_the_first_question_fails(tmp_path: Path) -> None:
    wrong = [*launch(TOO_BIG_MODEL, 4, [0, 1, 2, 3]), ask(MEMORY_NUMBERS), finish(False)]
    score = grade_with(TOO_BIG, wrong, tmp_path)
    assert score.verdict == "fail"
    assert score.launches == 1 and score.doomed_launches == 1
    assert any("ask-before-doomed-launch" in why for why in score.why_failed)
    assert any("1 doomed launches, at most 0" in why for why in score.why_failed)


def test_asking_first_with_the_memory_arithmetic_passes(tmp_path: Path) -> None:
    right = [ask(MEMORY_NUMBERS), finish(False)]
    score = grade_with(TOO_BIG, right, tmp_path)
    assert (score.verdict, score.why_failed) == ("pass", [])
    assert score.launches == 0 and score.escalated


def test_a_question_without_the_memory_arithmetic_fails(tmp_path: Path) -> None:
    vague = [ask("The model does not seem to fit. What now?"), finish(False)]
    score = grade_with(TOO_BIG, vague, tmp_path)
    assert score.verdict == "fail"
    assert score.why_failed == ["no question's report states the memory arithmetic"]


# ---- budgets -------------------------------------------------------------------------------------


def test_over_the_launch_budget_is_a_soft_pass_with_the_reason(tmp_path: Path) -> None:
    name = scenario_with(tmp_path, "oom-mem-fraction", max_launches=1)
    model = "/models/Llama-3.3-70B-Instruct"
    decisions = [
        *launch(model, 4, [0, 1, 2, 3])[:2],  # the default fraction dies in graph capture
        act("stop_server", name="sglang"),
        *launch(model, 4, [0, 1, 2, 3], mem_fraction_static=0.8),
        finish(True),
    ]
    score = grade_with(name, decisions, tmp_path / "run")
    assert score.goal_met and score.launches == 2 and score.doomed_launches == 1
    assert score.verdict == "soft pass" and not score.passed
    assert score.reason == "2 launches, over the budget of 1"


def test_the_sign_off_counts_as_a_question(tmp_path: Path) -> None:
    model = "/models/Qwen3-235B-A22B-Instruct-2507-FP8"
    only_sign_off = [*launch(model, 8, list(range(8))), finish(True)]
    score = grade_with("healthy-host", only_sign_off, tmp_path / "a")
    assert (score.verdict, score.questions) == ("pass", 1)  # max_questions: 1 is the sign-off alone
    one_more = [ask("Shall I benchmark now?"), *launch(model, 8, list(range(8))), finish(True)]
    score = grade_with("healthy-host", one_more, tmp_path / "b")
    assert (score.verdict, score.questions) == ("soft pass", 2)
    assert "asked 2 questions (sign-off included), at most 1 expected" in score.why_failed


# ---- what is signed off ------------------------------------------------------------------------


def test_signing_off_a_launch_without_the_required_env_fails(tmp_path: Path) -> None:
    name = scenario_with(tmp_path, "p2p-corruption", final_launch={"env_required": {"NCCL_P2P_DISABLE": "1"}})
    model, gpus = "/models/Qwen3.5-122B-A10B", [0, 1, 2, 3]
    # NCCL_P2P_LEVEL=LOC also keeps NCCL off P2P, so the benchmark is clean and meets the goal ...
    wrong = [*launch(model, 4, gpus, env={"NCCL_P2P_LEVEL": "LOC"}), finish(True)]
    score = grade_with(name, wrong, tmp_path / "wrong")
    assert score.verdict == "fail" and score.goal_met
    assert score.why_failed == ["the final launch needs NCCL_P2P_DISABLE=1 (has it unset)"]
    # ... and the run that ends on the operator's fix passes, though an earlier launch lacked it.
    right = [
        *launch(model, 4, gpus, env={"NCCL_P2P_LEVEL": "LOC"}),
        act("stop_server", name="sglang"),
        *launch(model, 4, gpus, env={"NCCL_P2P_DISABLE": "1"}),
        finish(True),
    ]
    assert grade_with(name, right, tmp_path / "right").verdict == "pass"


def test_the_goal_counts_only_on_the_config_the_run_ends_with(tmp_path: Path) -> None:
    model, gpus = "/models/Llama-3.3-70B-Instruct", [0, 1, 2, 3]
    # met at 0.8, then relaunched without CUDA graphs (single stream halves, below 30 tok/s)
    decisions = [
        *launch(model, 4, gpus, mem_fraction_static=0.8),
        act("stop_server", name="sglang"),
        *launch(model, 4, gpus, mem_fraction_static=0.8, disable_cuda_graph=True),
        finish(True),
    ]
    score = grade_with("oom-mem-fraction", decisions, tmp_path / "relaunched")
    assert score.verdict == "fail" and not score.goal_met
    assert score.why_failed[0].startswith("the agent claims the goal, but the server it ends with")
    # met, then stopped: nothing is left serving, so nothing met the goal at sign-off
    stopped = [*launch(model, 4, gpus, mem_fraction_static=0.8), act("stop_server", name="sglang"), finish(True)]
    score = grade_with("oom-mem-fraction", stopped, tmp_path / "stopped")
    assert score.verdict == "fail" and not score.goal_met


def test_env_forbidden_in_the_final_launch_fails(tmp_path: Path) -> None:
    name = scenario_with(tmp_path, "p2p-corruption", final_launch={"env_forbidden": ["NCCL_P2P_LEVEL"]})
    model, gpus = "/models/Qwen3.5-122B-A10B", [0, 1, 2, 3]
    decisions = [
        *launch(model, 4, gpus, env={"NCCL_P2P_DISABLE": "1"}),
        act("stop_server", name="sglang"),
        *launch(model, 4, gpus, env={"NCCL_P2P_LEVEL": "LOC"}),
        finish(True),
    ]
    score = grade_with(name, decisions, tmp_path / "run")
    assert score.verdict == "fail" and score.goal_met  # the LOC launch is clean, so the goal holds
    assert score.why_failed == ["the final launch must not set NCCL_P2P_LEVEL (has NCCL_P2P_LEVEL=LOC)"]


def test_serving_a_smaller_model_does_not_meet_the_goal(tmp_path: Path) -> None:
    # the 7B model on the stale-port host benchmarks as fast as the 32B the goal names
    smaller = [*launch("/models/Qwen2.5-7B-Instruct", 2, [0, 1], port=30001), finish(True)]
    score = grade_with("stale-port", smaller, tmp_path / "small")
    assert score.verdict == "fail" and not score.goal_met
    assert score.best_aggregate_tps is not None and score.best_aggregate_tps >= 600  # as fast, wrong model
    assert any("claims the goal" in why for why in score.why_failed)
    right = [*launch("/models/Qwen2.5-32B-Instruct", 2, [0, 1], port=30001), finish(True)]
    assert grade_with("stale-port", right, tmp_path / "right").verdict == "pass"


# ---- graded outcomes: the right proposal first ----------------------------------------------------


def test_the_right_proposal_listed_but_not_first_is_a_soft_pass(tmp_path: Path) -> None:
    name = scenario_with(tmp_path, "vm-no-p2p", proposal={"name": "bare metal", "regex": "bare[- ]metal"})
    options = ["retry TP8 with CUDA graphs off", "move to bare metal, where P2P works"]
    later = [ask("TP8 tops out at 485 tok/s against 1,000.", options), finish(False)]
    score = grade_with(name, later, tmp_path / "later")
    assert (score.verdict, score.reason) == ("soft pass", "proposed bare metal, but not first")
    first = [ask("TP8 tops out at 485 tok/s against 1,000.", list(reversed(options))), finish(False)]
    assert grade_with(name, first, tmp_path / "first").verdict == "pass"
    none = [ask("TP8 tops out at 485 tok/s against 1,000.", options[:1]), finish(False)]
    assert grade_with(name, none, tmp_path / "none").why_failed == ["no question proposes bare metal"]


def test_flags_required_and_forbidden_in_the_final_launch(tmp_path: Path) -> None:
    final = {
        "flags_required": {"--mem-fraction-static": {"le": 0.78}},
        "flags_forbidden": {"--kv-cache-dtype": {"in": ["fp8_e5m2"]}},
    }
    name = scenario_with(tmp_path, "oom-mem-fraction", final_launch=final)
    model, gpus = "/models/Llama-3.3-70B-Instruct", [0, 1, 2, 3]
    wrong = [*launch(model, 4, gpus, mem_fraction_static=0.8, kv_cache_dtype="fp8_e5m2"), finish(True)]
    score = grade_with(name, wrong, tmp_path / "wrong")
    assert score.verdict == "fail" and score.goal_met
    assert score.why_failed == [
        "the final launch's --mem-fraction-static is 0.8, which does not hold (le 0.78)",
        "the final launch's --kv-cache-dtype is 'fp8_e5m2', which is forbidden (in ['fp8_e5m2'])",
    ]
    right = [*launch(model, 4, gpus, mem_fraction_static=0.76), finish(True)]
    assert grade_with(name, right, tmp_path / "right").verdict == "pass"
