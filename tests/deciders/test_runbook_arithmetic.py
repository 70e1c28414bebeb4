"""The runbook decides from the memory arithmetic: what it launches, how it walks the fraction
ladder, when it switches layout, what it proposes, and when it asks instead of launching."""

from __future__ import annotations

from typing import Any

from agent.deciders.runbook import RunbookDecider
from agent.state import AgentState, Attempt, Goal, Observation
from tests.capacity.modeldirs import LLAMA_70B
from tools.capacity.layouts import plan_layouts
from tools.capacity.memory import Workload
from tools.capacity.modeldir import ModelFacts, WeightBytes, parse_config
from tools.sglang.failures import classify_benchmark, classify_launch

H100 = 81559 / 1024
FLAGS = {
    "version": "0.5.23",
    "flags": [
        {"names": ["--kv-cache-dtype"], "nargs": "1", "choices": ["auto", "fp8_e4m3", "bf16"]},
        {"names": ["--dsa-decode-backend"], "nargs": "1", "choices": ["flashmla_sparse", "fa3"]},
    ],
}


def _obs(step: int, tool: str, data: dict[str, Any] | None = None, ok: bool = True, **args: Any) -> Observation:
    return Observation(step=step, tool=tool, args=args, ok=ok, summary=f"{tool} said so", data=data or {})


def _plan_obs(total_bytes: int, gpus: list[int], interconnect: str = "pcie", concurrency: int = 64) -> Observation:
    weights = WeightBytes(total_bytes=total_bytes, source="safetensors_index", estimated=False, detail="index")
    facts = ModelFacts(path="/models/m", found=True, arch=parse_config(LLAMA_70B), weights=weights)
    work = Workload(concurrency=concurrency)
    plan = plan_layouts(facts, gpus, H100, interconnect=interconnect, workload=work)  # type: ignore[arg-type]
    return _obs(5, "plan_layouts", {"model": facts.model_dump(mode="json"), "plan": plan.model_dump(mode="json")})


def _state(total_bytes: int, gpus: list[int], interconnect: str = "pcie", **goal: Any) -> AgentState:
    g = Goal(text="serve it", model_path="/models/m", gpus=gpus, **({"min_aggregate_tps": 1000} | goal))
    observations = [
        _obs(1, "observe_host", {"virtualization": "none"}),
        _obs(2, "observe_gpus", {"gpus": [{"index": i} for i in gpus]}),
        _obs(3, "observe_topology", {"interconnect": "pcie"}),
        _obs(4, "p2p_check", {"all_ok": True, "pairs": []}),
        _obs(4, "sglang_flags", FLAGS),
        _obs(4, "read_host_evidence", {}),  # the host's own health: nothing wrong
        _plan_obs(total_bytes, gpus, interconnect),
    ]
    return {"goal": g, "observations": observations, "attempts": [], "processes": {}, "decisions": []}


def _launched(state: AgentState, step: int, args: dict[str, Any], wait: dict[str, Any] | None) -> None:
    launch = {"model_path": "/models/m", "name": "sglang", **args}
    state["observations"].append(_obs(step, "launch_server", {}, **launch))
    config = {k: v for k, v in args.items() if k != "model_path"}
    attempt = Attempt(id=f"A{len(state['attempts']) + 1}", step=step, change="", config=config, outcome="")
    if wait is not None:
        state["observations"].append(_obs(step + 1, "wait_server", wait, ok=bool(wait.get("ready"))))
        if not wait.get("ready"):  # the host read after a failure: nothing wrong there
            state["observations"].append(_obs(step + 1, "read_host_evidence", {}))
        attempt.failure_class = wait.get("cause")
    state["attempts"].append(attempt)


def test_nothing_fits_asks_before_any_launch_with_the_numbers() -> None:
    state = _state(810 * 10**9, [0, 1, 2, 3])
    decision = RunbookDecider().decide(state)
    assert decision.kind == "ask" and decision.action is None
    assert "Nothing was launched" in (decision.question or "")
    text = decision.rationale + " ".join(decision.findings)
    assert "754 GiB" in text and "4 GPU(s)" in text and "79.6 GiB" in text
    described = " ".join(a.description for a in decision.alternatives)
    assert "at least 11 GPUs" in described
    for infeasible in ("P2P", "IOMMU", "TP4 x DP2", "bare metal"):
        assert infeasible not in described
    assert all(a.action is None for a in decision.alternatives)  # nothing launchable fits


def test_the_first_launch_is_the_layout_the_arithmetic_chose() -> None:
    decision = RunbookDecider().decide(_state(141 * 10**9, [0, 1, 2, 3]))
    assert decision.action is not None and decision.action.tool == "launch_server"
    assert decision.action.args["tp"] == 4 and "dp" not in decision.action.args


def test_graph_capture_oom_walks_the_fraction_ladder_one_step_at_a_time() -> None:
    state = _state(141 * 10**9, [0, 1, 2, 3], min_aggregate_tps=1500)
    oom = {"ready": False, "cause": "cuda_oom", "phase": "capturing CUDA graphs", "evidence": ["CUDA out of memory"]}
    _launched(state, 6, {"tp": 4, "gpus": [0, 1, 2, 3], "port": 30000}, oom)
    first = RunbookDecider().decide(state)
    assert first.action is not None and first.action.args["mem_fraction_static"] == 0.88
    _launched(state, 8, {**first.action.args}, oom)
    second = RunbookDecider().decide(state)
    assert second.action is not None and second.action.args["mem_fraction_static"] == 0.85
    assert second.action.args["tp"] == 4


def test_the_ladder_stops_where_the_kv_cache_would_no_longer_hold_the_goal() -> None:
    state = _state(141 * 10**9, [0, 1, 2, 3])
    oom = {"ready": False, "cause": "cuda_oom", "phase": "capturing CUDA graphs", "evidence": []}
    # TP4 of 141 GB: at 0.55 the KV cache (10 GiB per GPU) holds 64 x 1,280 tokens (6.25 GiB);
    # at 0.50 (6.0 GiB) it would not, so the ladder stops and the next remedy is tried
    _launched(state, 6, {"tp": 4, "gpus": [0, 1, 2, 3], "mem_fraction_static": 0.55}, oom)
    decision = RunbookDecider().decide(state)
    assert decision.action is not None and decision.action.tool == "launch_server"
    assert decision.action.args["mem_fraction_static"] == 0.55
    assert decision.action.args["cuda_graph_max_bs"] == 64


def test_a_weights_oom_takes_a_bigger_layout_not_a_lower_fraction() -> None:
    state = _state(141 * 10**9, [0, 1, 2, 3])
    oom = {"ready": False, "cause": "cuda_oom", "phase": "loading weights (40%)", "evidence": ["CUDA out of memory"]}
    _launched(state, 6, {"tp": 2, "gpus": [0, 1], "port": 30000}, oom)
    decision = RunbookDecider().decide(state)
    assert decision.action is not None and decision.action.args["tp"] == 4
    assert "mem_fraction_static" not in decision.action.args


def test_tp_topping_out_without_p2p_tries_data_parallel_itself() -> None:
    state = _state(141 * 10**9, list(range(8)), interconnect="no_p2p", min_aggregate_tps=1000)
    _launched(state, 6, {"tp": 8, "gpus": list(range(8)), "port": 30000}, {"ready": True})
    state["observations"].append(_obs(8, "run_benchmark", {"levels": []}))
    state["observations"].append(_obs(8, "read_host_evidence", {}))  # short of the goal: no GPU throttled
    state["attempts"][-1].aggregate_tps = 560.0
    decision = RunbookDecider().decide(state)
    assert decision.kind == "act" and decision.action is not None
    # one step: half the TP group, twice the replicas, every GPU used
    assert (decision.action.args["tp"], decision.action.args["dp"]) == (4, 2)
    assert "56% of the goal" in decision.rationale and "TP4 x DP2" in decision.rationale
    # TP4 x DP2 measured below TP8: the walk ends there (no TP2 x DP4), tuning starts from TP8
    _launched(state, 10, {**decision.action.args}, {"ready": True})
    state["observations"].append(_obs(12, "run_benchmark", {"levels": []}))
    state["attempts"][-1].aggregate_tps = 410.0
    state["processes"] = {}
    after = RunbookDecider().decide(state)
    assert after.action is not None and after.action.args["tp"] == 8 and "dp" not in after.action.args
    assert after.rationale.startswith("tuning:")


def test_a_client_side_benchmark_failure_is_measured_again_before_anything_changes() -> None:
    state = _state(141 * 10**9, [0, 1, 2, 3])
    _launched(state, 6, {"tp": 4, "gpus": [0, 1, 2, 3], "port": 30000}, {"ready": True})
    failed = _obs(8, "run_benchmark", {}, ok=False)
    failed.error_kind = "benchmark_failed"
    state["observations"].append(failed)
    decision = RunbookDecider().decide(state)
    assert decision.action is not None and decision.action.tool == "run_benchmark"
    assert "again: the last run failed (benchmark_failed)" in decision.rationale
    # up to benchmark_retries (4) failures are measured again; only then does anything else happen
    state["processes"] = {"sglang": {"name": "sglang"}}  # type: ignore[dict-item]
    for step in range(9, 13):
        state["observations"].append(failed.model_copy(update={"step": step}))
        retry = RunbookDecider().decide(state)
        measured_again = retry.action is not None and retry.action.tool == "run_benchmark"
        assert measured_again == (step < 12)
    assert retry.kind == "ask"  # and the healthy server is not stopped first


def test_launches_are_counted_against_the_budget() -> None:
    state = _state(141 * 10**9, [0, 1, 2, 3])
    state["launch_limit"] = 1
    oom = {"ready": False, "cause": "cuda_oom", "phase": "capturing CUDA graphs", "evidence": []}
    _launched(state, 6, {"tp": 4, "gpus": [0, 1, 2, 3], "port": 30000}, oom)
    decision = RunbookDecider().decide(state)
    assert decision.kind == "ask" and decision.milestone == "launch-budget"
    assert "loop.max_launches = 1" in (decision.question or "")
    state["decisions"] = [decision]
    again = RunbookDecider().decide(state)  # asking is no grant: the same question, no launch
    assert again.kind == "ask" and again.milestone == "launch-budget"
    state["launch_grants"] = 1  # the operator said continue: as many again
    after = RunbookDecider().decide(state)
    assert after.action is not None and after.action.tool == "launch_server"


def test_failures_are_classified_by_what_fixes_them() -> None:
    assert classify_launch("cuda_oom", "loading weights (30%)") == "weights_oom"
    assert classify_launch("cuda_oom", "capturing CUDA graphs") == "cuda_graph_oom"
    assert classify_launch("kv_cache_oom", "weights loaded") == "kv_too_small"
    ambiguous = ["error: ambiguous option: --cuda-graph-max-bs could match --cuda-graph-max-bs-decode"]
    assert classify_launch("bad_argument", evidence=ambiguous) == "flag_ambiguous"
    assert classify_launch("bad_argument", evidence=["error: unrecognized arguments"]) == "flag_rejected"
    assert classify_launch("port_in_use", refusal=True) == "port_busy"
    assert classify_launch("nccl_error") == "nccl_p2p"
    assert classify_benchmark("benchmark_failed") == "client_benchmark"
    assert classify_benchmark("server_down") == "server_died"


def test_no_driver_and_no_sglang_at_step_one_is_asked_at_once_and_named() -> None:
    goal = Goal(text="serve it", model_path="/models/m", gpus=[0, 1], min_aggregate_tps=100)
    gpus = _obs(2, "observe_gpus", {"reason": "nvidia-smi: command not found"}, ok=False)
    gpus.error_kind = "no_nvidia_driver"
    host = _obs(1, "observe_host", {"versions": {"sglang": {"value": None, "reason": "No module named sglang"}}})
    state: AgentState = {"goal": goal, "observations": [host, gpus], "attempts": [], "decisions": []}
    decision = RunbookDecider().decide(state)
    assert decision.kind == "ask" and decision.action is None
    assert "no NVIDIA driver" in (decision.question or "") and "no SGLang" in (decision.question or "")


def test_proposals_hold_only_layouts_that_fit_each_with_its_expected_effect() -> None:
    from agent.deciders import runbook_math

    state = _state(430 * 10**9, list(range(8)), interconnect="no_p2p", min_aggregate_tps=1000)
    plan = runbook_math.plan_of(state["observations"])
    assert plan is not None and not plan.nothing_fits
    best = Attempt(id="A1", step=6, change="", config={"tp": 8, "gpus": list(range(8))}, outcome="", aggregate_tps=480)
    steps = runbook_math.proposals(plan, state["goal"], best, [best.config], list(range(8)), "/models/m")
    described = [s.description for s in steps]
    # 400 GiB over TP4 is 100 GiB per 80 GiB GPU: no TP4 x DP2, however fast it would be
    assert not any("DP" in d for d in described)
    assert "TP4 + PP2 on GPUs 0-7" in described
    pp = steps[described.index("TP4 + PP2 on GPUs 0-7")]
    assert "tok/s aggregate (est. from A1's 480)" in pp.rationale
    assert pp.action is not None and pp.action.args["extra_args"] == ["--pp-size", "2"]
    assert described[-1] == "accept what was measured as the goal"


def test_weights_that_fit_without_room_for_the_goals_requests_are_asked_about_first() -> None:
    # 141 GB over TP2 on two H100s: 65.7 GiB of weights per GPU leave ~7 GiB of KV even at 0.93,
    # while 64 requests of 1,280 tokens need 12.5 GiB per GPU
    state = _state(141 * 10**9, [0, 1])
    decision = RunbookDecider().decide(state)
    assert decision.kind == "ask" and decision.action is None
    assert "the goal cannot fit on my GPUs" in decision.rationale
    assert "of 64 concurrent requests" in decision.rationale
    launchable = [a for a in decision.alternatives if a.action is not None]
    assert launchable and all(a.action.args["tp"] == 2 for a in launchable if a.action is not None)
    assert any("fp8 KV" in a.description for a in launchable)


def test_a_kv_cache_near_the_goals_concurrency_is_launched_and_measured() -> None:
    # the same model and GPUs at concurrency 24: about 17 requests fit at 0.88 and more at 0.93,
    # so a measurement says more than the arithmetic
    state = _state(141 * 10**9, [0, 1])
    state["goal"] = state["goal"].model_copy(update={"concurrency": 24})
    state["observations"][-1] = _plan_obs(141 * 10**9, [0, 1], concurrency=24)
    decision = RunbookDecider().decide(state)
    assert decision.action is not None and decision.action.tool == "launch_server"
    assert decision.action.args["tp"] == 2


def test_a_kv_cache_too_small_raises_the_fraction_but_never_to_one_that_ran_out_of_memory() -> None:
    state = _state(141 * 10**9, [0, 1, 2, 3])
    graph_oom = {"ready": False, "cause": "cuda_oom", "phase": "capturing CUDA graphs", "evidence": []}
    kv = {"ready": False, "cause": "kv_cache_oom", "phase": "weights loaded", "evidence": ["Not enough memory"]}
    # (on another port: the same fraction with other plumbing is no more likely to fit)
    _launched(state, 6, {"tp": 4, "gpus": [0, 1, 2, 3], "mem_fraction_static": 0.88, "port": 30001}, graph_oom)
    _launched(state, 8, {"tp": 4, "gpus": [0, 1, 2, 3], "mem_fraction_static": 0.82}, kv)
    decision = RunbookDecider().decide(state)
    assert decision.action is not None and decision.action.args["mem_fraction_static"] == 0.85
    _launched(state, 10, {**decision.action.args}, kv)
    # 0.88 ran out of memory in graph capture: the next remedy is a bigger layout, else fp8 KV
    after = RunbookDecider().decide(state)
    assert after.action is not None and after.action.args.get("mem_fraction_static") != 0.88
    assert after.action.args.get("kv_cache_dtype") == "fp8_e4m3"


def test_a_rejected_flag_drops_that_change_and_the_list_it_came_from_continues() -> None:
    state = _state(141 * 10**9, [0, 1, 2, 3])
    nan = {"ready": False, "cause": "nan_in_sampling", "phase": "ready", "evidence": ["probability tensor"]}
    _launched(state, 6, {"tp": 4, "gpus": [0, 1, 2, 3]}, nan)
    state["observations"].append(
        Observation(
            step=8,
            tool="launch_server",
            args={
                "model_path": "/models/m",
                "name": "sglang",
                "tp": 4,
                "gpus": [0, 1, 2, 3],
                "decode_backend": "trtllm",
            },
            ok=False,
            summary="SGLang 0.5.23 would refuse this launch: error: unrecognized arguments: --nsa-decode-backend",
            error_kind="bad_argument",
        )
    )
    state["attempts"].append(
        Attempt(
            id="A2", step=8, change="", config={"tp": 4, "gpus": [0, 1, 2, 3], "decode_backend": "trtllm"}, outcome=""
        )
    )
    decision = RunbookDecider().decide(state)
    assert decision.action is not None and decision.action.tool == "launch_server"
    assert decision.action.args.get("decode_backend") == "flashmla_sparse"  # the next NaN candidate
    assert decision.rationale.startswith("nan:")


def test_a_model_directory_that_is_not_there_is_asked_about_before_any_launch() -> None:
    state = _state(141 * 10**9, [0, 1, 2, 3])
    missing = _obs(5, "plan_layouts", {}, ok=False, model_path="/models/m")
    missing.error_kind = "model_path_missing"
    missing.summary = "cannot list /models/m: ls: cannot access '/models/m': No such file or directory"
    state["observations"][-1] = missing
    decision = RunbookDecider().decide(state)
    assert decision.kind == "ask" and decision.action is None
    assert "no model at /models/m" in (decision.question or "")


def test_after_the_missing_software_question_it_looks_once_more_then_gives_up() -> None:
    goal = Goal(text="serve it", model_path="/models/m", gpus=[0], min_aggregate_tps=100)
    gpus = _obs(2, "observe_gpus", {"gpus": [{"index": 0}]})
    flags = _obs(3, "sglang_flags", {}, ok=False)
    flags.error_kind = "sglang_missing"
    state: AgentState = {"goal": goal, "observations": [gpus, flags], "attempts": [], "decisions": []}
    asked = RunbookDecider().decide(state)
    assert asked.kind == "ask" and "no SGLang" in (asked.question or "")
    state["decisions"] = [asked]  # the operator replied `continue`: maybe it is installed now
    again = RunbookDecider().decide(state)
    assert again.action is not None and again.action.tool == "sglang_flags"
    state["observations"].append(flags.model_copy(update={"step": 4}))
    assert RunbookDecider().decide(state).kind == "finish"


def test_a_check_that_never_finished_is_no_evidence_that_software_is_missing() -> None:
    goal = Goal(text="serve it", model_path="/models/m", gpus=[0], min_aggregate_tps=100)
    gpus = _obs(2, "observe_gpus", {"gpus": [{"index": 0}]})
    dropped = _obs(3, "sglang_flags", {}, ok=False)
    dropped.error_kind, dropped.outcome_unknown = "sglang_missing", True
    state: AgentState = {"goal": goal, "observations": [gpus, dropped], "attempts": [], "decisions": []}
    decision = RunbookDecider().decide(state)
    assert decision.kind == "act"


def test_a_nan_walks_every_decode_backend_this_sglang_lists_one_launch_each() -> None:
    state = _state(430 * 10**9, list(range(8)))
    weights = WeightBytes(total_bytes=430 * 10**9, source="safetensors_index", estimated=False, detail="index")
    arch = parse_config({**LLAMA_70B, "architectures": ["GlmMoeDsaForCausalLM"]})
    facts = ModelFacts(path="/models/m", found=True, arch=arch, weights=weights)
    plan = plan_layouts(facts, list(range(8)), 95.6)
    state["observations"][-1] = _obs(
        5, "plan_layouts", {"model": facts.model_dump(mode="json"), "plan": plan.model_dump(mode="json")}
    )
    backends = ["flashmla_sparse", "flashmla_kv", "flashmla_auto", "fa3", "tilelang", "aiter", "trtllm"]
    state["observations"][4] = _obs(
        4,
        "sglang_flags",
        {"version": "0.5.23", "flags": [{"names": ["--dsa-decode-backend"], "nargs": "1", "choices": backends}]},
    )
    nan = {"ready": False, "cause": "nan_in_sampling", "phase": "ready", "evidence": ["probability tensor"]}
    _launched(state, 6, {"tp": 8, "gpus": list(range(8))}, nan)
    tried = []
    for step in range(8, 30, 2):
        decision = RunbookDecider().decide(state)
        if decision.action is None or "decode backend" not in decision.rationale:
            break
        tried.append(decision.action.args["decode_backend"])
        _launched(state, step, {k: v for k, v in decision.action.args.items() if k not in ("name",)}, nan)
    # trtllm first (case 2), the default's flashmla_kv last, ROCm's aiter never
    assert tried == ["trtllm", "flashmla_sparse", "fa3", "tilelang", "flashmla_auto", "flashmla_kv"]


def test_a_plan_lost_to_a_dropped_link_is_asked_for_again_not_taken_as_a_missing_model() -> None:
    state = _state(141 * 10**9, [0, 1, 2, 3])
    dropped = _obs(5, "plan_layouts", {}, ok=False, model_path="/models/m")
    dropped.error_kind = "target_error"
    state["observations"][-1] = dropped
    decision = RunbookDecider().decide(state)
    assert decision.action is not None and decision.action.tool == "plan_layouts"


def test_a_launch_whose_checks_the_link_dropped_is_launched_again_unchanged() -> None:
    state = _state(141 * 10**9, [0, 1, 2, 3])
    args = {"model_path": "/models/m", "name": "sglang", "tp": 4, "gpus": [0, 1, 2, 3], "port": 30000}
    dropped = Observation(step=6, tool="launch_server", args=args, ok=False, summary="target error: dropped")
    dropped.error_kind = "target_error"
    state["observations"].append(dropped)
    decision = RunbookDecider().decide(state)
    assert decision.action is not None and decision.action.tool == "launch_server"
    assert decision.action.args == args


def test_retries_of_what_the_link_dropped_survive_the_operators_rules() -> None:
    """The runbook's retries go through the same step every decision does (heed): a dropped link
    is not "failed twice the same way", so the retry is taken, not turned into a question."""
    from agent.hearing.heed import decide_heeding

    state = _state(141 * 10**9, [0, 1, 2, 3])
    plan_args = {"model_path": "/models/m", "gpus": [0, 1, 2, 3], "concurrency": 64, "input_len": 1024}
    plan_args |= {"output_len": 256, "interconnect": "pcie"}
    dropped = [_obs(s, "plan_layouts", {}, ok=False, **plan_args) for s in (5, 6)]
    for obs in dropped:
        obs.error_kind = "target_error"
    state["observations"][-1:] = dropped
    decision, _ = decide_heeding(state, RunbookDecider().decide)
    assert decision.kind == "act" and decision.action is not None and decision.action.tool == "plan_layouts"

    launched = _state(141 * 10**9, [0, 1, 2, 3])
    args = {"model_path": "/models/m", "name": "sglang", "tp": 4, "gpus": [0, 1, 2, 3], "port": 30000}
    for step in (6, 7):
        failed = Observation(step=step, tool="launch_server", args=args, ok=False, summary="target error: dropped")
        failed.error_kind = "target_error"
        launched["observations"].append(failed)
    decision, _ = decide_heeding(launched, RunbookDecider().decide)
    assert decision.kind == "act" and decision.action is not None and decision.action.args == args


def test_an_excluded_plan_is_not_proposed_again_the_runbook_goes_on_without_it() -> None:
    from agent.hearing.exclusions import exclude
    from agent.hearing.heed import decide_heeding
    from agent.state import Action, OperatorRules

    state = _state(141 * 10**9, [0, 1, 2, 3])
    state["observations"].pop()
    plan_args = {"model_path": "/models/m", "gpus": [0, 1, 2, 3], "concurrency": 64, "input_len": 1024}
    plan_args |= {"output_len": 256, "interconnect": "pcie"}
    rules = exclude(OperatorRules(seeded=True), Action(tool="plan_layouts", args=plan_args), "operator", "", [])
    state["operator"] = rules
    decision, _ = decide_heeding(state, RunbookDecider().decide)
    assert decision.kind == "act" and decision.action is not None and decision.action.tool == "launch_server"


def test_a_health_probe_refused_during_a_measurement_looks_at_the_server_before_relaunching() -> None:
    state = _state(141 * 10**9, [0, 1, 2, 3])
    _launched(state, 6, {"tp": 4, "gpus": [0, 1, 2, 3], "port": 30000}, {"ready": True})
    state["processes"] = {"sglang": {"name": "sglang"}}  # type: ignore[dict-item]
    down = _obs(8, "run_benchmark", {}, ok=False)
    down.error_kind = "server_down"
    state["observations"].append(down)
    look = RunbookDecider().decide(state)
    assert look.action is not None and look.action.tool == "wait_server" and look.action.args["port"] == 30000
    # it answers: the measurement is taken again, with a fresh count of retries
    state["observations"].append(_obs(9, "wait_server", {"ready": True}))
    again = RunbookDecider().decide(state)
    assert again.action is not None and again.action.tool == "run_benchmark"
    # it is gone: that failure's class and remedy, not another measurement
    state["observations"].append(down.model_copy(update={"step": 10}))
    state["observations"].append(_obs(11, "wait_server", {"ready": False, "cause": "child_crash"}, ok=False))
    look_at_host = RunbookDecider().decide(state)
    assert look_at_host.action is not None and look_at_host.action.tool == "read_host_evidence"
    state["observations"].append(_obs(11, "read_host_evidence", {}))
    # a crash nothing in the log or on the host explains is not relaunched: the GPUs are freed to ask
    after = RunbookDecider().decide(state)
    assert after.action is not None and after.action.tool == "stop_server"
    assert "[unknown]" in after.rationale or "before asking" in after.rationale
