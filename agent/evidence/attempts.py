"""The attempts table and the best metrics, derived from what the tools observed.

A launch opens an attempt; waiting for the server gives it an outcome; a benchmark gives it
numbers. The table is kept exact: it is what good decisions (and the operator's) rest on.
"""

from __future__ import annotations

from typing import Any

from agent.state import Attempt, Goal, Metrics, Observation

# launch_server arguments that describe a configuration (others are plumbing)
_CONFIG_KEYS = (
    "tp",
    "dp",
    "ep",
    "gpus",
    "port",
    "attention_backend",
    "decode_backend",
    "moe_runner_backend",
    "kv_cache_dtype",
    "mem_fraction_static",
    "cuda_graph_max_bs",
    "disable_cuda_graph",
    "disable_custom_all_reduce",
    "extra_args",
    "env",
    "command",
)


def launch_config(args: dict[str, Any]) -> dict[str, Any]:
    return {k: args[k] for k in _CONFIG_KEYS if args.get(k) not in (None, [], {}, False)}


def describe_change(config: dict[str, Any], previous: dict[str, Any] | None) -> str:
    if previous is None:
        parts = [f"{k}={v}" for k, v in config.items() if k not in ("port",)]
        return ", ".join(parts) or "defaults"
    changed = [f"{k}={config.get(k)}" for k in sorted(set(config) | set(previous)) if config.get(k) != previous.get(k)]
    return "previous + " + ", ".join(changed) if changed else "same as previous"


def _throughput_at(results: list[dict[str, Any]], concurrency: int) -> dict[str, Any] | None:
    exact = [r for r in results if r.get("concurrency") == concurrency]
    return exact[0] if exact else None


def update_attempts(attempts: list[Attempt], obs: Observation, goal: Goal) -> list[Attempt]:
    """The attempts table after `obs`; a new list, the old one untouched."""
    table = list(attempts)
    if obs.tool == "launch_server":
        config = launch_config(obs.args)
        previous = table[-1].config if table else None
        earlier = next((a for a in table if a.config == config), None)
        outcome = "launched" if obs.ok else f"refused: {obs.error_kind or 'error'}"
        table.append(
            Attempt(
                id=f"A{len(table) + 1}",
                step=obs.step,
                change=f"same as {earlier.id}" if earlier is not None else describe_change(config, previous),
                config=config,
                outcome=outcome,
                failure_class=None if obs.ok else obs.error_kind,
            )
        )
    elif obs.tool == "wait_server" and table:
        last = table[-1]
        if obs.ok and obs.data.get("ready"):
            elapsed = float(obs.data.get("elapsed_s") or 0.0)
            outcome = f"ready in {int(elapsed // 60)}m {int(elapsed % 60):02d}s"
            table[-1] = last.model_copy(update={"outcome": outcome, "failure_class": None})
        else:
            cause = str(obs.data.get("cause") or obs.error_kind or "failed")
            evidence = obs.data.get("evidence") or []
            first = f" (`{str(evidence[0])[:90]}`)" if evidence else ""
            table[-1] = last.model_copy(update={"outcome": f"{cause}{first}", "failure_class": cause})
    elif obs.tool == "run_benchmark" and table and obs.ok:
        results = list(obs.data.get("levels") or [])
        agg = _throughput_at(results, goal.concurrency)
        if agg is None and results:
            agg = max(results, key=lambda r: int(r.get("concurrency") or 0))
        single = _throughput_at(results, 1)
        update: dict[str, Any] = {}
        if agg is not None:
            update["aggregate_tps"] = round(float(agg.get("output_throughput") or 0.0), 1)
            if agg.get("median_ttft_ms") is not None:
                update["ttft_ms"] = round(float(agg["median_ttft_ms"]), 1)
        if single is not None:
            update["single_stream_tps"] = round(float(single.get("output_throughput") or 0.0), 1)
        table[-1] = table[-1].model_copy(update=update)
    return table


def best_metrics(attempts: list[Attempt]) -> Metrics:
    measured = [a for a in attempts if a.aggregate_tps is not None]
    if not measured:
        singles = [a for a in attempts if a.single_stream_tps is not None]
        if not singles:
            return Metrics()
        top = max(singles, key=lambda a: a.single_stream_tps or 0.0)
        return Metrics(best_single_stream_tps=top.single_stream_tps, best_attempt=top.id)
    top = max(measured, key=lambda a: a.aggregate_tps or 0.0)
    single_values = [a.single_stream_tps for a in attempts if a.single_stream_tps is not None]
    return Metrics(
        best_aggregate_tps=top.aggregate_tps,
        best_single_stream_tps=max(single_values) if single_values else None,
        best_ttft_ms=top.ttft_ms,
        best_attempt=top.id,
    )


def goal_met(goal: Goal, metrics: Metrics) -> bool:
    checks: list[bool] = []
    if goal.min_aggregate_tps is not None:
        checks.append((metrics.best_aggregate_tps or 0.0) >= goal.min_aggregate_tps)
    if goal.min_single_stream_tps is not None:
        checks.append((metrics.best_single_stream_tps or 0.0) >= goal.min_single_stream_tps)
    return bool(checks) and all(checks)
