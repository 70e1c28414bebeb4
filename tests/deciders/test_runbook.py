"""The runbook decider's playbook: candidates from data, filtered by the installed SGLang's flags."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agent.deciders.runbook import Playbook, RunbookDecider
from agent.state import AgentState, Attempt, Goal, Observation

FLAGS_0_5_9 = {
    "version": "0.5.9",
    "flags": [
        {"names": ["--model-path", "--model"], "nargs": "1"},
        {"names": ["--nsa-decode-backend"], "nargs": "1", "choices": ["flashmla_sparse", "flashmla_kv", "fa3"]},
        {"names": ["--attention-backend"], "nargs": "1", "choices": ["triton", "flashinfer", "nsa"]},
        {"names": ["--kv-cache-dtype"], "nargs": "1", "choices": ["auto", "bf16", "fp8_e4m3"]},
    ],
}


def _obs(step: int, tool: str, data: dict[str, Any] | None = None, ok: bool = True, **args: Any) -> Observation:
    return Observation(step=step, tool=tool, args=args, ok=ok, summary=tool, data=data or {})


def _nan_state() -> AgentState:
    goal = Goal(text="serve GLM", model_path="/models/GLM-5-NVFP4", gpus=[0, 1], min_aggregate_tps=400)
    observations = [
        _obs(1, "observe_host", {"virtualization": "none"}),
        _obs(2, "observe_gpus", {"gpus": [{"index": 0}, {"index": 1}]}),
        _obs(3, "observe_topology", {}),
        _obs(3, "read_host_evidence", {}),  # the host's own health: nothing wrong
        _obs(4, "p2p_check", {"all_ok": True, "pairs": []}),
        _obs(5, "sglang_flags", FLAGS_0_5_9),
        _obs(5, "plan_layouts", {}, ok=False),
        _obs(6, "launch_server", {}, model_path="/models/GLM-5-NVFP4", tp=2, gpus=[0, 1], port=30000, name="sglang"),
        _obs(
            7, "wait_server", {"ready": False, "cause": "nan_in_sampling", "evidence": ["probability tensor"]}, ok=False
        ),
        _obs(7, "read_host_evidence", {}),
    ]
    attempt = Attempt(id="A1", step=6, change="tp=2", config={"tp": 2, "gpus": [0, 1], "port": 30000}, outcome="nan")
    return {"goal": goal, "observations": observations, "attempts": [attempt], "processes": {}, "decisions": []}


def test_a_candidate_the_installed_version_does_not_offer_is_skipped() -> None:
    decision = RunbookDecider().decide(_nan_state())
    assert decision.action is not None and decision.action.tool == "launch_server"
    # trtllm comes first in the playbook, but this SGLang's --nsa-decode-backend has no trtllm
    assert decision.action.args["decode_backend"] == "flashmla_sparse"
    assert decision.rationale.startswith("nan:")


def test_the_candidate_order_comes_from_the_playbook_file(tmp_path: Path) -> None:
    data = yaml.safe_load(Playbook.load().model_dump_json())
    data["on_failure"]["nan"] = [{"change": {"kv_cache_dtype": "bf16"}, "why": "operator's order"}]
    path = tmp_path / "playbook.yaml"
    path.write_text(yaml.safe_dump(data))
    decision = RunbookDecider(Playbook.load(path)).decide(_nan_state())
    assert decision.action is not None and decision.action.args["kv_cache_dtype"] == "bf16"


def test_exhausted_candidates_ask_once_with_the_operators_options_then_give_up() -> None:
    state = _nan_state()
    playbook = Playbook.load()
    playbook.on_failure["nan"] = []
    decider = RunbookDecider(playbook)
    asked = decider.decide(state)
    assert asked.kind == "ask"
    # nothing measured, no arithmetic: nothing to propose, and nothing infeasible either
    assert not any("bare metal" in alt.description or "IOMMU" in alt.description for alt in asked.alternatives)
    state["decisions"] = [asked]
    assert decider.decide(state).kind == "finish"


def test_a_server_still_running_is_stopped_before_the_next_launch() -> None:
    state = _nan_state()
    state["processes"] = {"sglang": {"name": "sglang"}}  # type: ignore[dict-item]
    decision = RunbookDecider().decide(state)
    assert decision.action is not None and decision.action.tool == "stop_server"
