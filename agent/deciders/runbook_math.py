"""What the runbook reads from the memory arithmetic (`plan_layouts`) and its own record.

Pure functions over observations and attempts: which plan holds, what each launch's failure
class was, the next fraction on the ladder, which layout the arithmetic expects to do better
than the one measured, and the proposals an operator can act on (only feasible ones).
"""

from __future__ import annotations

from typing import Any

from agent.evidence.attempts import launch_config
from agent.hearing.hints import plural
from agent.state import Action, Alternative, Attempt, Goal, Observation
from tools.capacity.layouts import Interconnect, LayoutVerdict, Plan
from tools.capacity.memory import MAX_FRACTION, Layout, Workload, per_gpu_memory
from tools.capacity.modeldir import ModelArch, WeightBytes, gib
from tools.sglang.failures import FailureClass, classify_launch


def plan_of(observations: list[Observation]) -> Plan | None:
    obs = next((o for o in reversed(observations) if o.tool == "plan_layouts" and o.ok), None)
    if obs is None or not isinstance(obs.data.get("plan"), dict):
        return None
    return Plan.model_validate(obs.data["plan"])


def model_of(observations: list[Observation]) -> tuple[WeightBytes | None, ModelArch | None]:
    obs = next((o for o in reversed(observations) if o.tool == "plan_layouts" and o.ok), None)
    model = obs.data.get("model") if obs is not None else None
    if not isinstance(model, dict):
        return None, None
    weights = WeightBytes.model_validate(model["weights"]) if model.get("weights") else None
    arch = ModelArch.model_validate(model["arch"]) if model.get("arch") else None
    return weights, arch


def interconnect(observations: list[Observation], p2p_broken: bool) -> Interconnect:
    topo = next((o for o in reversed(observations) if o.tool == "observe_topology" and o.ok), None)
    data = topo.data if topo is not None else {}
    if p2p_broken or data.get("p2p_all_ok") is False:
        return "no_p2p"
    if data.get("interconnect") == "nvlink":
        return "nvlink"
    return "pcie"


def architecture_matches(observations: list[Observation], names: list[str]) -> bool:
    """Whether config.json's architecture contains one of `names` ([] or unknown: yes)."""
    if not names:
        return True
    _, arch = model_of(observations)
    if arch is None or not arch.architecture:
        return True
    return any(name.lower() in arch.architecture.lower() for name in names)


def layout_of(config: dict[str, Any]) -> Layout:
    extra = [str(a) for a in config.get("extra_args") or []]
    pp = int(extra[extra.index("--pp-size") + 1]) if "--pp-size" in extra[:-1] else 1
    return Layout(tp=int(config.get("tp") or 1), dp=int(config.get("dp") or 1), pp=pp)


def layout_config(layout: Layout, gpus: list[int]) -> dict[str, Any]:
    """The launch arguments of a layout (None values drop the key when applied)."""
    config: dict[str, Any] = {"tp": layout.tp, "dp": layout.dp if layout.dp > 1 else None}
    config["gpus"] = gpus[: layout.gpus] if gpus else None
    return config


def launch_classes(observations: list[Observation]) -> list[tuple[Observation, FailureClass | None]]:
    """Every launch and the class of its failure (None: it came up, or its outcome is pending)."""
    out: list[tuple[Observation, FailureClass | None]] = []
    for obs in observations:
        if obs.tool == "launch_server":
            cls = None if obs.ok else classify_launch(obs.error_kind, evidence=[obs.summary], refusal=True)
            out.append((obs, cls))
        elif obs.tool == "wait_server" and out and out[-1][1] is None and not obs.data.get("ready", obs.ok):
            cause = str(obs.data.get("cause") or obs.error_kind or "child_crash")
            cls = classify_launch(cause, str(obs.data.get("phase") or ""), list(obs.data.get("evidence") or []))
            out[-1] = (out[-1][0], cls)
    return out


def fraction_of(config: dict[str, Any], assumed: float) -> float:
    value = config.get("mem_fraction_static")
    return float(value) if isinstance(value, int | float) else assumed


def memory_at(
    observations: list[Observation], goal: Goal, layout: Layout, fraction: float, bench: tuple[int, int]
) -> Any:
    """per_gpu_memory of `layout` at `fraction` from the plan's inputs, or None without a plan."""
    plan = plan_of(observations)
    weights, arch = model_of(observations)
    if plan is None or weights is None:
        return None
    work = Workload(concurrency=goal.concurrency, input_len=bench[0], output_len=bench[1])
    return per_gpu_memory(
        weights, arch, layout, plan.gpu_total_gib, fraction=fraction, foreign_gib=plan.foreign_gib, workload=work
    )


def goal_score(goal: Goal, aggregate: float | None, single: float | None) -> float:
    """The weakest of the goal's metrics as a share of its target (1.0 = met)."""
    ratios: list[float] = []
    if goal.min_aggregate_tps:
        ratios.append((aggregate or 0.0) / goal.min_aggregate_tps)
    if goal.min_single_stream_tps:
        ratios.append((single or 0.0) / goal.min_single_stream_tps)
    return min(ratios) if ratios else 0.0


def measured_flat(
    attempts: list[Attempt], goal: Goal, base: dict[str, Any], tuned: dict[str, Any], min_gain: float
) -> Attempt | None:
    """The attempt that measured `tuned` (a tuning of `base`) no better than `base` by `min_gain`,
    or that failed: on that base the tuning gives nothing and is not proposed again. The port is
    left out of both: where a server listens is no part of what the engine runs (#30, item 7)."""

    def engine(config: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in launch_config(config).items() if k != "port"}

    def score(a: Attempt) -> float | None:
        if a.aggregate_tps is None and a.single_stream_tps is None:
            return 0.0 if a.failure_class else None  # a tuning that broke the launch gave nothing too
        return goal_score(goal, a.aggregate_tps, a.single_stream_tps)

    bases = [s for a in attempts if engine(a.config) == engine(base) and (s := score(a))]
    if not bases or engine(tuned) == engine(base):
        return None
    for a in attempts:
        gained = score(a) if engine(a.config) == engine(tuned) else None
        if gained is not None and gained < max(bases) * (1 + min_gain):
            return a
    return None


def predicted(plan: Plan, best: Attempt, verdict: LayoutVerdict) -> tuple[float | None, float | None] | None:
    """What `verdict`'s layout should measure, scaled from the measured attempt `best`."""
    base = plan.verdict(layout_of(best.config))
    if base is None or base.expected_aggregate <= 0 or base.expected_single <= 0:
        return None
    agg = best.aggregate_tps * verdict.expected_aggregate / base.expected_aggregate if best.aggregate_tps else None
    single = best.single_stream_tps * verdict.expected_single / base.expected_single if best.single_stream_tps else None
    return agg, single


def kv_far_short(plan: Plan) -> bool:
    """The weights fit but the KV cache (known from config.json) holds under half the goal's
    concurrent requests at any fraction: worth a question before a launch. Nearer the goal a
    measurement says more than the arithmetic."""
    if plan.nothing_fits or plan.goal_fits or not plan.kv_known or plan.first_choice is None:
        return False
    first = plan.verdict(plan.first_choice)
    best = max((v.memory.max_concurrency or 0 for v in plan.layouts if v.weights_fit), default=0)
    return first is not None and 2 * best < plan.workload.concurrency


def nothing_fits_text(plan: Plan) -> list[str]:
    """The numbers of a model that cannot fit, for the question and the findings."""
    lines = [plan.summary[0].upper() + plan.summary[1:] + "."]
    largest = next((v for v in plan.layouts if v.layout.dp == 1 and v.why), None)
    if largest is not None:
        lines.append(f"Largest layout, {largest.label}: {largest.why[0].rstrip('.')}.")
    if plan.estimated:
        lines.append(f"The weight size is an estimate ({plan.weights_source}).")
    return lines


def _held(plan: Plan, first: LayoutVerdict, fraction: float, kv_share: float) -> int | None:
    """Requests of the goal's workload the KV cache holds at `fraction`, with KV bytes scaled by
    `kv_share` (0.5: an fp8 KV cache); None when the KV bytes per token are unknown."""
    memory = first.memory
    if not memory.kv_bytes_per_token:
        return None
    pool = fraction * memory.gpu_total_gib - memory.foreign_gib - memory.context_gib - memory.weights_gib
    tokens = pool * 2**30 / (memory.kv_bytes_per_token * kv_share)
    return max(int(tokens // plan.workload.tokens_per_request), 0) * first.layout.dp


def _kv_capacity_steps(plan: Plan, first: LayoutVerdict, goal: Goal, args: dict[str, Any]) -> list[Alternative]:
    """The KV-capacity steps for a goal whose concurrency does not fit: a higher fraction, an fp8
    KV cache, or both, each with the requests it holds; the least change that holds the goal's
    concurrency first (an operator who says "continue" gets that one)."""
    now = first.memory.max_concurrency or 0
    higher = _held(plan, first, MAX_FRACTION, 1.0)
    fp8 = _held(plan, first, plan.fraction, 0.5)
    both = _held(plan, first, MAX_FRACTION, 0.5)
    fp8_risk = "low; fp8 KV can cost a little accuracy"
    steps = [
        (
            higher,
            Alternative(
                action=Action(tool="launch_server", args={**args, "mem_fraction_static": MAX_FRACTION}),
                description=f"{first.label} anyway at --mem-fraction-static {MAX_FRACTION}",
                rationale=f"the KV cache holds about {now} of the goal's {goal.concurrency} concurrent requests "
                f"at {plan.fraction:.2f}, about {higher if higher is not None else '?'} at {MAX_FRACTION}",
                risk="low; less room for CUDA graphs, the rest of the concurrency queues",
            ),
        ),
        (
            fp8,
            Alternative(
                action=Action(tool="launch_server", args={**args, "kv_cache_dtype": "fp8_e4m3"}),
                description=f"{first.label} with an fp8 KV cache",
                rationale=f"halves the KV bytes per token: about {fp8 if fp8 is not None else 2 * now} "
                "concurrent requests",
                risk=fp8_risk,
            ),
        ),
    ]
    if _holds(both, goal) and not any(_holds(held, goal) for held, _ in steps):
        combined = {**args, "kv_cache_dtype": "fp8_e4m3", "mem_fraction_static": MAX_FRACTION}
        steps.insert(
            0,
            (
                both,
                Alternative(
                    action=Action(tool="launch_server", args=combined),
                    description=f"{first.label} with an fp8 KV cache at --mem-fraction-static {MAX_FRACTION}",
                    rationale=f"neither alone holds the goal's {goal.concurrency} concurrent requests; "
                    f"together about {both}",
                    risk=fp8_risk,
                ),
            ),
        )
    # what holds the goal's concurrency first, in the order above (the smaller change first)
    holding = [alt.model_copy(update={"reaches_goal": True}) for held, alt in steps if _holds(held, goal)]
    return holding + [alt for held, alt in steps if not _holds(held, goal)]


def _holds(held: int | None, goal: Goal) -> bool:
    return held is not None and held >= goal.concurrency


def proposals(
    plan: Plan | None,
    goal: Goal,
    best: Attempt | None,
    tried: list[dict[str, Any]],
    gpus: list[int],
    model_path: str,
) -> list[Alternative]:
    """Next steps an operator can act on: feasible, ranked, each with its expected effect."""
    out: list[tuple[float, Alternative]] = []
    if plan is not None and not plan.nothing_fits:
        base = dict(best.config) if best is not None else {}
        for v in plan.layouts:
            if not v.fits or v.layout.gpus > len(gpus):
                continue
            args = {**base, **layout_config(v.layout, gpus), "model_path": model_path, "name": "sglang"}
            if v.layout.pp > 1:
                args["extra_args"] = [*(base.get("extra_args") or []), "--pp-size", str(v.layout.pp)]
            args = {k: val for k, val in args.items() if val is not None}
            if any(_same_layout(t, args) for t in tried):
                continue
            guess = predicted(plan, best, v) if best is not None else None
            if guess is not None and best is not None:
                agg, single = guess
                if goal_score(goal, agg, single) <= goal_score(goal, best.aggregate_tps, best.single_stream_tps):
                    continue  # expected no better than what was measured
                effect = _effect(agg, single, best, goal)
            else:
                effect = f"expected {v.expected_aggregate:.2f}x aggregate of the first choice (arithmetic)"
            out.append(
                (
                    goal_score(goal, *(guess or (None, None))),
                    Alternative(
                        action=Action(tool="launch_server", args=args),
                        description=f"{v.label} on GPUs {_gpus(gpus[: v.layout.gpus])}",
                        rationale=f"{effect}; {gib(v.memory.weights_gib)} weights per GPU",
                        risk="low; restarts the server",
                        reaches_goal=guess is not None and goal_score(goal, *guess) >= 1.0,
                    ),
                )
            )
    ranked = [alt for _, alt in sorted(out, key=lambda pair: -pair[0])][:3]
    if plan is not None and not plan.nothing_fits and not plan.goal_fits and plan.first_choice is not None:
        first = plan.verdict(plan.first_choice)
        if first is not None and first.weights_fit:
            # the port a launch will use (launches always name one), so the step shown is the step run
            port = (best.config.get("port") if best is not None else None) or 30000
            args = {**layout_config(first.layout, gpus), "model_path": model_path, "name": "sglang", "port": port}
            args = {k: val for k, val in args.items() if val is not None}
            ranked += _kv_capacity_steps(plan, first, goal, args)
    if plan is not None and plan.nothing_fits and plan.weights_gib is not None:
        ranked.append(
            Alternative(
                description=f"give me at least {plan.min_gpus_needed} GPUs of {gib(plan.gpu_total_gib)}",
                rationale=f"the weights alone are {gib(plan.weights_gib)}; {plural(len(gpus), 'GPU')} cannot hold them",
                risk="needs GPUs that are not mine today",
            )
        )
        ranked.append(
            Alternative(
                description="serve a smaller or more quantized checkpoint of this model",
                rationale=f"weights under {gib(len(gpus) * (plan.fraction * plan.gpu_total_gib - 13))} "
                f"fit on {'this GPU' if len(gpus) == 1 else f'these {len(gpus)} GPUs'} with room for the KV cache",
                risk="a different model: your call",
            )
        )
    measured = _measured(best, goal) if best is not None else ""
    if measured:
        ranked.append(
            Alternative(
                description="accept what was measured as the goal",
                rationale=f"sign-off now: {measured}",
                risk="none",
                sign_off=True,
            )
        )
    return ranked


def _measured(best: Attempt, goal: Goal) -> str:
    parts = []
    if goal.min_aggregate_tps and best.aggregate_tps is not None:
        parts.append(f"{best.aggregate_tps:,.0f} tok/s aggregate (goal {goal.min_aggregate_tps:,.0f})")
    if goal.min_single_stream_tps and best.single_stream_tps is not None:
        parts.append(f"{best.single_stream_tps:,.0f} tok/s single stream (goal {goal.min_single_stream_tps:,.0f})")
    return ", ".join(parts) + (f" at {best.id}" if parts else "")


def layout_hypothesis(plan: Plan, best: Attempt, goal: Goal, gpus: int) -> str | None:
    """Why another layout will not close the gap, from the arithmetic, or None when one might."""
    now = goal_score(goal, best.aggregate_tps, best.single_stream_tps)
    guesses = [
        (goal_score(goal, *g), v.label)
        for v in plan.layouts
        if v.fits and v.layout.gpus <= gpus and (g := predicted(plan, best, v)) is not None
    ]
    if not guesses:
        return None
    top, label = max(guesses)
    if top >= 1.0:
        return None
    return (
        f"no layout within my {plural(gpus, 'GPU')} is expected to reach the goal: the best, {label}, is expected at "
        f"{top:.0%} of it (measured {now:.0%} at {best.id}; arithmetic, not measured)"
    )


def _same_layout(config: dict[str, Any], args: dict[str, Any]) -> bool:
    return layout_of(config) == layout_of(args)


def _gpus(gpus: list[int]) -> str:
    return f"{gpus[0]}-{gpus[-1]}" if len(gpus) > 1 and gpus == list(range(gpus[0], gpus[-1] + 1)) else str(gpus)


def _effect(agg: float | None, single: float | None, best: Attempt, goal: Goal) -> str:
    parts = []
    if agg is not None and goal.min_aggregate_tps:
        parts.append(f"~{agg:,.0f} tok/s aggregate (est. from {best.id}'s {best.aggregate_tps:,.0f})")
    if single is not None and goal.min_single_stream_tps:
        parts.append(f"~{single:,.0f} tok/s single stream")
    return ", ".join(parts) or "expected no change"
