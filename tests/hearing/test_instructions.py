"""The operator's grammar, the rewrite every decider's proposal goes through, and the goal's readings."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.hearing.applied import rewrite
from agent.hearing.exclusions import exclude
from agent.hearing.goal import goal_policy_rules, parse_goal, with_goal_rules
from agent.hearing.heed import decide_heeding
from agent.hearing.instructions import hear, rules_of
from agent.policy.policyset import load_policy_set
from agent.state import Action, AgentState, Attempt, Decision, Goal, OperatorRules


def _heard(text: str) -> OperatorRules:
    rules, _, missed = hear(OperatorRules(), text)
    assert missed == [], f"not understood: {missed}"
    return rules


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("use port 30001", "use_port", 30001),
        ("avoid port 30000", "avoid_ports", [30000]),
        ("don't use port 30000", "avoid_ports", [30000]),
        ("use GPUs 0-3", "use_gpus", [0, 1, 2, 3]),
        ("only GPUs 0,1,2,3", "use_gpus", [0, 1, 2, 3]),
        ("don't use GPU 2", "avoid_gpus", [2]),
        ("set NCCL_P2P_DISABLE=1", "set_env", {"NCCL_P2P_DISABLE": "1"}),
        ("unset NCCL_P2P_DISABLE", "unset_env", ["NCCL_P2P_DISABLE"]),
        ("don't use --enable-dp-attention", "avoid_flags", ["--enable-dp-attention"]),
        ("use --attention-backend triton", "use_flags", [["--attention-backend", "triton"]]),
        ("try TP4 x DP2", "layout", {"tp": 4, "dp": 2}),
        ("tp 8", "layout", {"tp": 8, "dp": 1}),
        ("don't relaunch", "no_relaunch", True),
        ("stop the server", "stop_server", True),
    ],
)
def test_the_documented_grammar(text: str, field: str, value: object) -> None:
    assert getattr(_heard(text), field) == value


def test_several_clauses_and_what_is_not_understood() -> None:
    rules, heard, missed = hear(OperatorRules(), "use port 30001 and avoid port 30000, make it sing")
    assert heard == ["use port 30001", "avoid port 30000"]
    assert missed == ["make it sing"]
    assert rules.not_understood == ["make it sing"] and rules.relaunch_wanted


def _state(**extra: object) -> AgentState:
    state: AgentState = {"goal": Goal(text="t", model_path="/m", gpus=[0, 1, 2, 3, 4, 5, 6, 7]), "observations": []}
    state.update(extra)  # type: ignore[typeddict-item]
    return state


LAUNCH = Action(
    tool="launch_server",
    args={
        "model_path": "/m",
        "tp": 8,
        "port": 30000,
        "extra_args": ["--enable-dp-attention"],
        "env": {"NCCL_DEBUG": "INFO"},
    },
)


def test_a_launch_is_rewritten_by_every_rule() -> None:
    rules = _heard("use port 30001; don't use GPU 7; set NCCL_P2P_DISABLE=1; don't use --enable-dp-attention")
    rules = hear(rules, "use --attention-backend triton; unset NCCL_DEBUG")[0]
    action, why, notes = rewrite(_state(), rules, LAUNCH)
    assert why is None and notes
    assert action.args["port"] == 30001
    assert action.args["gpus"] == [0, 1, 2, 3, 4, 5, 6] and action.args["tp"] == 4  # a power of two that fits
    assert action.args["env"] == {"NCCL_P2P_DISABLE": "1"}
    assert "--enable-dp-attention" not in action.args.get("extra_args", [])
    assert action.args["attention_backend"] == "triton"


def test_a_layout_and_an_avoided_port() -> None:
    rules = _heard("try TP4 x DP2; avoid port 30000")
    action, _, _ = rewrite(_state(), rules, LAUNCH)
    assert (action.args["tp"], action.args["dp"], action.args["port"]) == (4, 2, 30001)


def test_excluded_actions_are_rejected_with_whose_word_it_was() -> None:
    denied = exclude(OperatorRules(), LAUNCH, "operator", "too big", [])
    _, why, _ = rewrite(_state(operator=denied), denied, LAUNCH)
    assert why is not None and why.startswith("you denied") and "too big" in why
    policy = exclude(OperatorRules(), LAUNCH, "policy", "no", ["rule-x"])
    _, why, _ = rewrite(_state(operator=policy), policy, LAUNCH)
    assert why is not None and why.startswith("the policy denies") and "rule-x" in why
    no_relaunch = _heard("don't relaunch")
    assert rewrite(_state(), no_relaunch, LAUNCH)[1] is not None


def test_a_launch_that_failed_deterministically_is_never_proposed_again() -> None:
    failed = Attempt(
        id="A1", step=3, change="x", config={"tp": 8, "port": 30000}, outcome="oom", failure_class="cuda_oom"
    )
    state = _state(attempts=[failed])
    same = Action(tool="launch_server", args={"model_path": "/m", "tp": 8, "port": 30000})
    assert rewrite(state, OperatorRules(), same)[1] == "the configuration of attempt A1 failed with cuda_oom"
    other = Action(tool="launch_server", args={"model_path": "/m", "tp": 8, "port": 30000, "mem_fraction_static": 0.8})
    assert rewrite(state, OperatorRules(), other)[1] is None


def test_an_action_that_failed_twice_the_same_way_is_excluded_but_not_for_a_dropped_link() -> None:
    from agent.state import Observation

    def twice(tool: str, error_kind: str) -> AgentState:
        obs = [
            Observation(step=i, tool=tool, args={"model_path": "/m"}, ok=False, summary="x", error_kind=error_kind)
            for i in (1, 2)
        ]
        return _state(observations=obs)

    plan = Action(tool="plan_layouts", args={"model_path": "/m"})
    bench = Action(tool="run_benchmark", args={"model_path": "/m"})
    assert rewrite(twice("plan_layouts", "invalid_arguments"), OperatorRules(), plan)[1] is not None
    # the link dropped it twice: the link's failure, not the action's; the runbook retries it
    assert rewrite(twice("plan_layouts", "target_error"), OperatorRules(), plan)[1] is None
    # a measurement the client failed is repeated before the launch changes
    assert rewrite(twice("run_benchmark", "benchmark_failed"), OperatorRules(), bench)[1] is None
    assert rewrite(twice("run_benchmark", "server_down"), OperatorRules(), bench)[1] is None


def test_the_heeding_step_hands_a_rejection_back_to_the_decider() -> None:
    denied = exclude(OperatorRules(seeded=True), LAUNCH, "operator", "not this", [])
    seen: list[list[str]] = []
    fallback = Action(tool="run_command", args={"command": "nvidia-smi"})

    def decider(state: AgentState) -> Decision:
        rules = state["operator"]
        seen.append(list(rules.rejected))
        return Decision(action=fallback if rules.rejected else LAUNCH, rationale="r")

    decision, _ = decide_heeding(_state(operator=denied), decider)
    assert decision.action == fallback
    assert seen[1] and "you denied" in seen[1][0]  # the decider was told why


def test_a_decider_that_insists_gets_a_question_not_the_action() -> None:
    denied = exclude(OperatorRules(seeded=True), LAUNCH, "operator", "", [])
    decision, _ = decide_heeding(_state(operator=denied), lambda s: Decision(action=LAUNCH, rationale="again"))
    assert decision.kind == "ask" and decision.action is None
    assert "you denied" in (decision.question or "")


def test_goal_names_gpu_ids_or_a_count() -> None:
    assert parse_goal("serve /m/x on GPUs 0-1 at 100 tok/s aggregate").gpus == [0, 1]
    assert parse_goal("serve /m/x on GPUs 0,1,2,3 at 100 tok/s aggregate").gpus == [0, 1, 2, 3]
    four = parse_goal("serve /m/x on 4 GPUs at 100 tok/s aggregate")
    assert four.gpus is None and four.gpu_count == 4


def test_goal_readings_and_what_is_asked() -> None:
    plain = parse_goal("serve /m/x at 100 tok/s")
    assert plain.readings == ["100 tok/s: aggregate output tokens/s at concurrency 64"]
    assert plain.ambiguities and "aggregate output tokens/s at concurrency 64" in plain.ambiguities[0]
    clear = parse_goal("serve /m/x at 1,000 tok/s at concurrency 32 and 50 tok/s single stream")
    assert clear.ambiguities == []
    assert "1,000 tok/s: aggregate output tokens/s at concurrency 32" in clear.readings
    vague = parse_goal("make it fast")
    assert vague.ambiguities and "no number to reach" in vague.ambiguities[0]


def test_never_clauses_become_rules_instructions_or_are_said_unenforced(tmp_path: Path) -> None:
    goal = parse_goal(
        "serve /m/x at 100 tok/s at concurrency 8; never reboot the host; never use port 30000; never annoy bob"
    )
    readings = " | ".join(goal.constraint_readings)
    assert "goal-never-reboot" in readings and "enforced on every launch" in readings and "NOT enforced" in readings
    assert [r["id"] for r in goal_policy_rules(goal)] == ["goal-never-reboot", "goal-never-reboot-2"]
    policy = load_policy_set(with_goal_rules([], goal, tmp_path, "r1"))
    verdict = policy.evaluate_command("systemctl reboot")
    assert verdict.decision == "deny" and "goal-never-reboot-2" in verdict.rules
    assert policy.evaluate_command("nvidia-smi").decision == "allow"  # the default policy still applies
    assert rules_of({"goal": goal}).avoid_ports == [30000]


def test_gpus_named_in_the_goal_reach_the_policy(tmp_path: Path) -> None:
    from agent.config import LoopConfig
    from agent.deciders.scripted import ScriptedDecider
    from agent.loop.graph import Runtime
    from agent.store.sqlite import Store
    from tools.catalog import default_registry
    from tools.local import LocalTarget

    runtime = Runtime(
        run_id="gpus",
        target=LocalTarget(str(tmp_path / "work")),
        decider=ScriptedDecider([]),
        policy=load_policy_set([]),  # the default policy, no facts overlay
        registry=default_registry(),
        transcript=None,  # type: ignore[arg-type]
        store=Store(tmp_path / "state"),
        config=LoopConfig(),
    )
    launch = Action(tool="launch_server", args={"model_path": "/m", "tp": 2, "gpus": [0, 1]})
    named: AgentState = {"goal": parse_goal("serve /m/x on GPUs 0-1 at 100 tok/s aggregate")}
    assert runtime.verdict_for(named)(launch).decision != "deny"
    outside = Action(tool="launch_server", args={"model_path": "/m", "tp": 2, "gpus": [2, 3]})
    assert "launch-gpus-outside-agent" in runtime.verdict_for(named)(outside).rules
    counted: AgentState = {"goal": parse_goal("serve /m/x on 2 GPUs at 100 tok/s aggregate")}
    assert "launch-gpus-unknown" in runtime.verdict_for(counted)(launch).rules  # a count names no GPU


def test_the_report_says_whose_denial_each_is() -> None:
    from agent.loop.report import build_report, render_markdown

    rules = exclude(OperatorRules(), LAUNCH, "operator", "too big", [])
    rules = exclude(rules, Action(tool="run_command", args={"command": "sudo reboot"}), "policy", "no", ["power"])
    rules = hear(rules, "use port 30001, make it sing")[0]
    state = _state(operator=rules, run_id="r")
    text = render_markdown(build_report(state, trigger="no_next_step", reason="r", question="q?"))
    mine = text.split("### What you told me")[1].split("###")[0]
    policy = text.split("### Denied by the policy")[1]
    assert "you denied: launch_server(" in mine and "your reason: too big" in mine
    assert 'you said "use port 30001": in force' in mine and 'I did not understand: "make it sing"' in mine
    assert "reboot" not in mine and "the policy denied: run_command: sudo reboot (power: no)" in policy


def test_the_same_rejection_question_twice_in_a_row_becomes_the_final_report() -> None:
    """A decider that insists on an excluded step after the operator's answer changed nothing: the
    second time it is the final report (never the same question forever)."""
    denied = exclude(OperatorRules(seeded=True), LAUNCH, "operator", "", [])
    insist = lambda s: Decision(action=LAUNCH, rationale="again")  # noqa: E731
    asked, _ = decide_heeding(_state(operator=denied), insist)
    assert asked.kind == "ask"
    again, _ = decide_heeding(_state(operator=denied, decisions=[asked]), insist)
    assert again.kind == "finish" and not again.goal_met and "you denied" in again.rationale
    # something else happened since: asked again, not given up
    step = Decision(action=Action(tool="run_command", args={"command": "nvidia-smi"}), rationale="r")
    later, _ = decide_heeding(_state(operator=denied, decisions=[asked, step]), insist)
    assert later.kind == "ask"
