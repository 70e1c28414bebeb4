"""What serves when a run ends: the configuration the operator accepted (the best measured one).

Tuning leaves the last configuration tried running, which is often not the best: before the run
finishes, the loop stops it and relaunches the accepted one (`next_action`), through the gate like
any action; the closing summary says what serves (`serving_line`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent.evidence.attempts import launch_config
from agent.state import Action, AgentState, Attempt, Observation


def score(state: AgentState, a: Attempt) -> float:
    """The weakest of the goal's metrics as a share of its target (1.0 = met); aggregate tok/s
    when the goal names neither."""
    goal = state.get("goal")
    ratios: list[float] = []
    if goal is not None and goal.min_aggregate_tps:
        ratios.append((a.aggregate_tps or 0.0) / goal.min_aggregate_tps)
    if goal is not None and goal.min_single_stream_tps:
        ratios.append((a.single_stream_tps or 0.0) / goal.min_single_stream_tps)
    return min(ratios) if ratios else (a.aggregate_tps or 0.0)


def accepted(state: AgentState) -> Attempt | None:
    """The attempt a finish signs off: the best measured against the goal (the first of equals)."""
    measured = [a for a in state.get("attempts") or [] if a.aggregate_tps is not None or a.single_stream_tps]
    return max(measured, key=lambda a: score(state, a)) if measured else None


def _launch_of(state: AgentState, attempt: Attempt) -> Observation | None:
    obs = state.get("observations") or []
    return next((o for o in obs if o.tool == "launch_server" and o.step == attempt.step and o.ok), None)


def live_launch(state: AgentState) -> Observation | None:
    """The launch whose server the agent started and has not stopped."""
    running = state.get("processes") or {}
    for o in reversed(state.get("observations") or []):
        if o.tool == "launch_server" and o.ok and str(o.args.get("name") or "sglang") in running:
            return o
    return None


def serving_attempt(state: AgentState) -> Attempt | None:
    live = live_launch(state)
    if live is None:
        return None
    return next((a for a in state.get("attempts") or [] if a.step == live.step), None)


def _served(config: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config.items() if k != "port"}  # the same server on another port


def next_action(state: AgentState, heeding: Callable[[Action], Action | None]) -> Action | None:
    """The next step towards serving the accepted configuration, or None when it serves (or a
    relaunch of it already failed: the summary then says what serves instead). `heeding`: the
    launch with the operator's rules applied (their port, their environment), None when they
    excluded it (e.g. 'do not relaunch')."""
    best, serving = accepted(state), serving_attempt(state)
    if best is not None and serving is not None and score(state, serving) >= min(score(state, best), 1.0):
        return None  # what serves measured as well (or meets the goal): nothing to relaunch
    launch = _launch_of(state, best) if best is not None else None
    wanted = heeding(Action(tool="launch_server", args=dict(launch.args))) if launch is not None else None
    if best is None or wanted is None:
        return None
    target = launch_config(wanted.args)
    live = live_launch(state)
    name = str(wanted.args.get("name") or "sglang")
    if live is not None and launch_config(live.args) == target:
        after = [o for o in state.get("observations") or [] if o.step > live.step]
        if any(o.tool == "wait_server" for o in after):
            return None  # followed to ready (or to a failure: not retried)
        port = live.args.get("port") or 30000
        return Action(tool="wait_server", args={"name": name, "port": port, "timeout_s": 1800, "poll_s": 10})
    if live is not None:
        return Action(tool="stop_server", args={"name": str(live.args.get("name") or "sglang"), "grace_s": 30})
    relaunched = [
        o
        for o in state.get("observations") or []
        if o.tool == "launch_server" and o.step > best.step and launch_config(o.args) == target
    ]
    return None if relaunched else wanted


def _measured(a: Attempt, single_first: bool = False) -> str:
    if single_first and a.single_stream_tps is not None:  # a single-stream goal: its own number
        return f"{a.single_stream_tps:,.0f} tok/s single stream"
    if a.aggregate_tps is not None:
        return f"{a.aggregate_tps:,.0f} tok/s aggregate"
    if a.single_stream_tps is not None:
        return f"{a.single_stream_tps:,.0f} tok/s single stream"
    return "not measured"


def serving_line(state: AgentState | dict[str, Any]) -> str | None:
    """One line for the closing summary: which configuration serves, against the best measured."""
    s: AgentState = state  # type: ignore[assignment]
    best, live = accepted(s), serving_attempt(s)
    goal = s.get("goal")
    single = goal is not None and bool(goal.min_single_stream_tps) and not goal.min_aggregate_tps

    def _tps(a: Attempt) -> str:
        return _measured(a, single)

    if best is None and live is None:
        return None
    if live is None:
        return (
            f"serving: nothing (the best measured configuration, {best.id}, {_tps(best)}, is not running)"
            if best
            else None
        )
    same = best is not None and _served(live.config) == _served(best.config)
    if same and best is not None:
        again = f", relaunched as {live.id}" if live.id != best.id else ""
        return f"serving: {best.id}, the best measured configuration ({_tps(best)}){again}"
    measured = f"{live.id} ({_tps(live)})"
    return (
        f"serving: {measured}; the best measured, {best.id} ({_tps(best)}), is not running"
        if best
        else f"serving: {measured}"
    )
