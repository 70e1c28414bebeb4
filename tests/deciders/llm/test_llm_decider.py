"""The llm decider against a scripted OpenAI-compatible server on loopback, via the real client."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.deciders.base import Decider, DeciderError
from agent.deciders.llm import META, BudgetExceeded, EndpointError, LLMDecider, ModelOutputError
from agent.state import Action, AgentState, Attempt, Decision, Goal, ModelUsage, Observation
from tests.fakes.openai_server import FakeOpenAIServer, scripted_llm

GOAL = Goal(
    text="serve Qwen3.5-122B on GPUs 0-3 at over 2,000 tok/s",
    gpus=[0, 1, 2, 3],
    min_aggregate_tps=2000,
    constraints=["never reboot the host", "never touch the vfio groups"],
)

META_OK = {
    "rationale": "check the GPUs before launching anything",
    "confidence": 0.8,
    "alternatives": [
        {"description": "read the kernel log for IOMMU faults", "risk": "low"},
        {"description": "launch with defaults", "risk": "medium"},
    ],
    "findings": ["4 GPUs visible"],
    "hypotheses": ["P2P may be broken under the IOMMU"],
}


def state(**extra: Any) -> AgentState:
    base: AgentState = {"goal": GOAL, "step": 3, "observations": [], "attempts": [], "denials": []}
    base.update(extra)  # type: ignore[typeddict-item]
    return base


def nvidia_smi(meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"tool": "run_command", "args": {"command": "nvidia-smi"}, "meta": meta or META_OK}


class Sleeps:
    """The decider's sleep, recorded instead of slept."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


# --- normal tool calls -----------------------------------------------------------------------


def test_tool_call_becomes_an_act_decision_with_rationale_confidence_and_alternatives(
    server: FakeOpenAIServer,
) -> None:
    server.add(nvidia_smi())
    decider = scripted_llm(server)
    assert isinstance(decider, Decider)
    assert decider.name == "llm"

    decision = decider.decide(state())

    assert decision.kind == "act"
    assert decision.action == Action(tool="run_command", args={"command": "nvidia-smi"})
    assert decision.rationale == META_OK["rationale"]
    assert decision.confidence == 0.8
    assert [a.description for a in decision.alternatives] == [
        "read the kernel log for IOMMU faults",
        "launch with defaults",
    ]
    assert [a.risk for a in decision.alternatives] == ["low", "medium"]
    assert decision.findings == ["4 GPUs visible"]
    assert decision.hypotheses == ["P2P may be broken under the IOMMU"]
    [usage] = decision.usage
    assert usage.model == "fake-model"
    assert (usage.prompt_tokens, usage.completion_tokens) == (100, 20)
    assert usage.latency_s > 0


def test_request_offers_every_registered_tool_with_a_required_meta(server: FakeOpenAIServer) -> None:
    server.add(nvidia_smi())
    decider = scripted_llm(server)
    decider.decide(state())

    [request] = server.requests
    assert request.body["model"] == "fake-model"
    assert request.headers.get("authorization") == "Bearer test-key"
    offered = {t["function"]["name"]: t["function"]["parameters"] for t in request.tools}
    assert set(offered) == set(decider.registry.names())
    for name, params in offered.items():
        assert META in params["required"], name
        assert {"rationale", "confidence"} <= set(params["properties"][META]["required"])
    # The tool's own schema is still there, generated from its pydantic model.
    assert "command" in offered["run_command"]["required"]


def test_prompt_holds_goal_constraints_and_attempts(server: FakeOpenAIServer) -> None:
    server.add(nvidia_smi())
    attempt = Attempt(id="A1", step=2, change="TP4, defaults", outcome="P2P corrupts data")
    scripted_llm(server).decide(state(attempts=[attempt]))

    text = server.requests[0].text()
    assert GOAL.text in text
    assert "never reboot the host" in text
    assert "never touch the vfio groups" in text
    assert "| A1 | 2 | TP4, defaults | P2P corrupts data |" in text


def test_ask_operator_becomes_a_question(server: FakeOpenAIServer) -> None:
    server.add(
        {
            "tool": "ask_operator",
            "args": {"question": "May I use GPUs 4-7?", "reason": "needs more memory"},
            "meta": {"rationale": "out of memory on 4 GPUs", "confidence": 0.4},
        }
    )
    decision = scripted_llm(server).decide(state())
    assert decision.kind == "ask"
    assert decision.question == "May I use GPUs 4-7?"
    assert decision.confidence == 0.4
    assert decision.rationale == "needs more memory\nout of memory on 4 GPUs"
    assert decision.action is None  # nothing to approve or run


def test_finish_carries_goal_met_and_summary(server: FakeOpenAIServer) -> None:
    server.add(
        {
            "tool": "finish",
            "args": {"goal_met": True, "summary": "2,800 tok/s with NCCL_P2P_DISABLE=1"},
            "meta": {"rationale": "measured above the goal", "confidence": 0.95},
        }
    )
    decision = scripted_llm(server).decide(state())
    assert decision.kind == "finish"
    assert decision.goal_met is True
    assert decision.action is None
    assert decision.rationale == "2,800 tok/s with NCCL_P2P_DISABLE=1\nmeasured above the goal"


def test_extra_tool_calls_are_not_run_but_kept_as_alternatives(server: FakeOpenAIServer) -> None:
    server.add(
        {
            "tool": "run_command",
            "args": {"command": "nvidia-smi"},
            "meta": META_OK,
            "tool_calls": [{"name": "run_command", "arguments": {"command": "dmesg | tail"}}],
        }
    )
    decision = scripted_llm(server).decide(state())
    assert decision.action == Action(tool="run_command", args={"command": "nvidia-smi"})
    assert decision.alternatives[-1].action == Action(tool="run_command", args={"command": "dmesg | tail"})


# --- repair, then escalation -------------------------------------------------------------------


def test_wrong_tool_name_goes_back_once_with_the_error(server: FakeOpenAIServer) -> None:
    server.add({"tool": "reboot_host", "args": {}, "meta": META_OK}, nvidia_smi())
    decision = scripted_llm(server).decide(state())

    assert decision.action == Action(tool="run_command", args={"command": "nvidia-smi"})
    assert len(decision.usage) == 2
    repair = server.requests[1].messages
    assert repair[-2]["role"] == "assistant"
    assert repair[-2]["tool_calls"][0]["function"]["name"] == "reboot_host"
    assert repair[-1]["role"] == "tool"
    assert repair[-1]["tool_call_id"] == repair[-2]["tool_calls"][0]["id"]
    assert "unknown tool 'reboot_host'" in repair[-1]["content"]
    assert "run_command" in repair[-1]["content"]


def test_wrong_tool_name_twice_escalates_naming_it(server: FakeOpenAIServer) -> None:
    server.add({"tool": "reboot_host", "args": {}}, {"tool": "reboot_host", "args": {}})
    with pytest.raises(ModelOutputError, match="reboot_host") as info:
        scripted_llm(server).decide(state())
    assert isinstance(info.value, DeciderError)
    assert len(server.requests) == 2
    assert len(info.value.usage) == 2


def test_invalid_arguments_go_back_with_the_validation_error(server: FakeOpenAIServer) -> None:
    server.add({"tool": "run_command", "args": {"cmd": "nvidia-smi"}}, nvidia_smi())
    decision = scripted_llm(server).decide(state())
    assert decision.action is not None and decision.action.args == {"command": "nvidia-smi"}
    error = server.requests[1].messages[-1]["content"]
    assert "invalid arguments for run_command" in error
    assert "command" in error


def test_invalid_arguments_twice_escalate(server: FakeOpenAIServer) -> None:
    bad = {"tool": "run_command", "args": {"cmd": "nvidia-smi"}}
    server.add(bad, bad)
    with pytest.raises(ModelOutputError, match="invalid arguments for run_command"):
        scripted_llm(server).decide(state())


def test_malformed_argument_json_is_repaired(server: FakeOpenAIServer) -> None:
    truncated = '{"command": "nvidia-smi"'
    server.add({"tool_calls": [{"name": "run_command", "arguments": truncated}]}, nvidia_smi())
    decision = scripted_llm(server).decide(state())
    assert decision.action is not None and decision.action.tool == "run_command"
    assert "not valid JSON" in server.requests[1].messages[-1]["content"]


def test_missing_meta_is_repaired(server: FakeOpenAIServer) -> None:
    server.add({"tool": "run_command", "args": {"command": "nvidia-smi"}, "meta": None}, nvidia_smi())
    decision = scripted_llm(server).decide(state())
    assert decision.confidence == 0.8
    assert f"missing the required {META}" in server.requests[1].messages[-1]["content"]


def test_prose_switches_to_json_output_and_stays_there(server: FakeOpenAIServer) -> None:
    json_reply = json.dumps({"tool": "run_command", "args": {"command": "nvidia-smi"}, **META_OK})
    server.add(
        {"content": "I would first look at the GPUs with nvidia-smi."},
        {"content": f"```json\n{json_reply}\n```"},
        {"content": json_reply},
    )
    decider = scripted_llm(server)

    decision = decider.decide(state())
    assert decision.action == Action(tool="run_command", args={"command": "nvidia-smi"})
    assert decision.confidence == 0.8
    first, second = server.requests
    assert first.tools  # tool mode at first
    assert not second.tools  # the repair asks for JSON in the content
    assert second.messages[-2]["content"] == "I would first look at the GPUs with nvidia-smi."
    assert "prose" in second.messages[-1]["content"]
    assert '"tool"' in second.messages[0]["content"]  # the system prompt now describes the JSON form

    decider.decide(state())
    assert not server.requests[2].tools
    assert len(server.requests[2].messages) == 2  # a fresh prompt, no repair


def test_prose_twice_escalates_quoting_it(server: FakeOpenAIServer) -> None:
    server.add({"content": "Let me think about this."}, {"content": "Still thinking."})
    with pytest.raises(ModelOutputError, match="prose") as info:
        scripted_llm(server).decide(state())
    assert "Still thinking." in str(info.value)


def test_tool_call_in_content_is_accepted_when_the_server_did_not_parse_it(server: FakeOpenAIServer) -> None:
    call = {"name": "run_command", "arguments": {"command": "nvidia-smi", META: META_OK}}
    server.add({"content": f"<tool_call>\n{json.dumps(call)}\n</tool_call>"})
    decision = scripted_llm(server).decide(state())
    assert decision.action == Action(tool="run_command", args={"command": "nvidia-smi"})
    assert decision.rationale == META_OK["rationale"]
    assert len(server.requests) == 1


def test_json_mode_sends_no_tools_and_lists_them_in_the_prompt(server: FakeOpenAIServer) -> None:
    reply = {"tool": "read_file", "args": {"path": "/var/log/sglang.log"}, **META_OK}
    server.add({"content": "Here is my decision:\n```\n" + json.dumps(reply) + "\n```"})
    decider = scripted_llm(server, json_mode=True)
    decision = decider.decide(state())

    assert decision.action is not None and decision.action.tool == "read_file"
    assert decision.action.args["path"] == "/var/log/sglang.log"
    [request] = server.requests
    assert "tools" not in request.body
    system = request.messages[0]["content"]
    for name in decider.registry.names():
        assert f"### {name}" in system


def test_json_mode_unparseable_twice_escalates(server: FakeOpenAIServer) -> None:
    server.add({"content": "{not json at all"}, {"content": "sorry"})
    with pytest.raises(ModelOutputError, match="no JSON object"):
        scripted_llm(server, json_mode=True).decide(state())
    assert "no JSON object" in server.requests[1].messages[-1]["content"]


# --- transport faults ----------------------------------------------------------------------------


def test_429_then_success_waits_as_retry_after_says(server: FakeOpenAIServer) -> None:
    sleeps = Sleeps()
    server.add({"status": 429, "headers": {"Retry-After": "7"}}, nvidia_smi())
    decider = scripted_llm(server, sleep=sleeps, retry_wait_max_s=60)
    decision = decider.decide(state())
    assert decision.action is not None and decision.action.tool == "run_command"
    assert sleeps.waits == [7.0]
    assert len(server.requests) == 2
    assert len(decision.usage) == 1  # only calls that returned a completion


def test_retry_after_is_capped(server: FakeOpenAIServer) -> None:
    sleeps = Sleeps()
    server.add({"status": 429, "headers": {"Retry-After": "3600"}}, nvidia_smi())
    scripted_llm(server, sleep=sleeps, retry_wait_max_s=30).decide(state())
    assert sleeps.waits == [30.0]


def test_5xx_backs_off_with_growing_jittered_waits(server: FakeOpenAIServer) -> None:
    sleeps = Sleeps()
    server.add({"status": 502}, {"status": 503}, nvidia_smi())
    decision = scripted_llm(server, sleep=sleeps, retry_wait_s=1.0, retry_wait_max_s=60).decide(state())
    assert decision.kind == "act"
    first, second = sleeps.waits
    assert 1.0 <= first <= 2.0
    assert 2.0 <= second <= 3.0


def test_500_three_times_escalates_after_the_retry_limit(server: FakeOpenAIServer) -> None:
    server.add({"status": 500}, {"status": 500}, {"status": 500}, nvidia_smi())
    with pytest.raises(EndpointError, match=r"failed 3 time\(s\).*HTTP 500") as info:
        scripted_llm(server, max_retries=2).decide(state())
    assert isinstance(info.value, DeciderError)
    assert len(server.requests) == 3
    assert server.remaining == 1


def test_slow_response_times_out_and_is_retried(server: FakeOpenAIServer) -> None:
    server.add({**nvidia_smi(), "delay_s": 5.0}, nvidia_smi())
    decision = scripted_llm(server, timeout_s=0.3).decide(state())
    assert decision.action is not None and decision.action.tool == "run_command"
    assert len(server.requests) == 2


def test_slow_every_time_escalates_as_a_timeout(server: FakeOpenAIServer) -> None:
    slow = {**nvidia_smi(), "delay_s": 5.0}
    server.add(slow, slow)
    with pytest.raises(EndpointError, match="timed out"):
        scripted_llm(server, timeout_s=0.2, max_retries=1).decide(state())
    assert len(server.requests) == 2


def test_unauthorised_is_not_retried_and_says_what_to_check(server: FakeOpenAIServer) -> None:
    server.add({"status": 401, "body": {"error": {"message": "bad key"}}}, nvidia_smi())
    with pytest.raises(EndpointError, match="API key"):
        scripted_llm(server).decide(state())
    assert len(server.requests) == 1


def test_connection_refused_escalates() -> None:
    with FakeOpenAIServer() as gone:
        url_server = gone
    decider = scripted_llm(url_server, max_retries=1)
    with pytest.raises(EndpointError, match="could not connect"):
        decider.decide(state())


# --- budget -----------------------------------------------------------------------------------


def spent_decision(tokens: int, cost: float = 0.0) -> Decision:
    return Decision(usage=[ModelUsage(model="m", prompt_tokens=tokens, completion_tokens=0, cost_usd=cost)])


def test_token_budget_escalates_before_calling_the_model(server: FakeOpenAIServer) -> None:
    server.add(nvidia_smi())
    decider = scripted_llm(server, budget_tokens=1000)
    with pytest.raises(BudgetExceeded, match="model budget reached: 1000 of 1000 tokens"):
        decider.decide(state(decisions=[spent_decision(600), spent_decision(400)]))
    assert server.requests == []


def test_cost_budget_counts_priced_usage(server: FakeOpenAIServer) -> None:
    server.add(nvidia_smi(), nvidia_smi())
    decider = scripted_llm(server, budget_usd=0.005, price_per_1k_prompt=0.05, price_per_1k_completion=0.1)
    first = decider.decide(state())
    assert first.usage[0].cost_usd == pytest.approx((100 * 0.05 + 20 * 0.1) / 1000)
    with pytest.raises(BudgetExceeded, match=r"\$0\.0070 of \$0\.005") as info:
        decider.decide(state(decisions=[first]))
    assert len(server.requests) == 1
    assert "budget" in str(info.value)


def test_budget_counts_calls_that_ended_in_an_error(server: FakeOpenAIServer) -> None:
    bad = {"tool": "nope", "args": {}, "usage": {"prompt_tokens": 300, "completion_tokens": 0}}
    server.add(bad, bad, nvidia_smi())
    decider = scripted_llm(server, budget_tokens=500)
    with pytest.raises(ModelOutputError):
        decider.decide(state())
    with pytest.raises(BudgetExceeded):
        decider.decide(state())
    assert len(server.requests) == 2


def test_budget_is_checked_before_the_repair_call(server: FakeOpenAIServer) -> None:
    costly = {"tool": "nope", "args": {}, "usage": {"prompt_tokens": 900, "completion_tokens": 200}}
    server.add(costly, nvidia_smi())
    with pytest.raises(BudgetExceeded) as info:
        scripted_llm(server, budget_tokens=1000).decide(state())
    assert len(server.requests) == 1
    assert info.value.usage[0].prompt_tokens == 900


# --- denials reach the model -------------------------------------------------------------------


def test_denials_and_policy_denied_observations_are_in_the_prompt(server: FakeOpenAIServer) -> None:
    server.add(nvidia_smi())
    denied = Observation(
        step=1,
        tool="run_command",
        args={"command": "sudo reboot"},
        ok=False,
        summary="denied by no-host-reboot: the operator forbids rebooting the host",
        error_kind="policy_denied",
    )
    filler = [
        Observation(step=i, tool="run_command", args={"command": f"echo {i}"}, ok=True, summary=f"{i}")
        for i in range(2, 30)
    ]
    scripted_llm(server, keep_last=3).decide(
        state(observations=[denied, *filler], denials=["no-host-reboot: run_command: sudo reboot"])
    )
    system = server.requests[0].messages[0]["content"]
    # Even though the denied observation scrolled out of the full window, the denial stays.
    assert "no-host-reboot: run_command: sudo reboot" in system
    assert "run_command: sudo reboot -> denied by no-host-reboot" in system


def test_a_denied_reboot_reaches_the_model_and_the_run_continues(server: FakeOpenAIServer) -> None:
    from tests.fakes.openai_server import load_script

    server.add(*load_script("reboot_denied"))
    decider = scripted_llm(server)
    run = state()

    # A stand-in for the gate: the lead's graph does this with the real policy.
    first = decider.decide(run)
    assert first.action is not None and "reboot" in first.action.args["command"]
    run["denials"] = [f"no-host-reboot: {first.action.render()}"]
    run["observations"] = [
        Observation(
            step=4,
            tool=first.action.tool,
            args=first.action.args,
            ok=False,
            summary="denied by policy rule no-host-reboot: never reboot the host",
            error_kind="policy_denied",
        )
    ]
    second = decider.decide(run)

    assert second.action is not None and second.action.args["command"] != first.action.args["command"]
    text = server.requests[1].text()
    assert "no-host-reboot" in text
    assert "The policy gate denied this action" in text


def test_operator_instructions_are_always_in_the_prompt(server: FakeOpenAIServer) -> None:
    server.add(nvidia_smi())
    scripted_llm(server).decide(state(instructions=["use NCCL_P2P_DISABLE=1 from now on"]))
    assert "use NCCL_P2P_DISABLE=1 from now on" in server.requests[0].messages[0]["content"]


def test_llm_decider_needs_a_goal(server: FakeOpenAIServer) -> None:
    decider: LLMDecider = scripted_llm(server)
    with pytest.raises(ValueError, match="no goal"):
        decider.decide({"step": 0})


def test_common_meta_slips_are_accepted_without_a_repair(server: FakeOpenAIServer) -> None:
    meta = {"rationale": "look first", "confidence": 85, "alternatives": ["read dmesg", "ask the operator"]}
    server.add(nvidia_smi(meta))
    decision = scripted_llm(server).decide(state())
    assert decision.confidence == pytest.approx(0.85)
    assert [a.description for a in decision.alternatives] == ["read dmesg", "ask the operator"]
    assert len(server.requests) == 1


def test_confidence_out_of_range_is_repaired(server: FakeOpenAIServer) -> None:
    server.add(nvidia_smi({"rationale": "x", "confidence": 250}), nvidia_smi())
    decision = scripted_llm(server).decide(state())
    assert decision.confidence == 0.8
    assert "invalid _meta for run_command: confidence" in server.requests[1].messages[-1]["content"]
