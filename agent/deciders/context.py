"""The bounded context a model decides from, built from the run's state.

What is kept, and why:

- the last `keep_last` observations in full (each capped at `max_chars`, head and tail kept,
  because the end of a log is where the error is);
- older observations as one line each (step, tool, outcome, first line of the summary); past
  `max_older` of those, the oldest are dropped and counted;
- the attempts table exactly, always: it is what good decisions rest on (see the cases);
- the goal, its constraints, every policy denial and every operator instruction, always;
- the operator's rules in force and what is excluded (`agent.hearing.said_back.prompt_lines`), the
  goal's readings, and the arithmetic: the latest memory plan (`plan_layouts`, when the tools
  have it) and where the best measurement stands against the goal, always.

Nothing here calls a model or renders text; `agent.prompts` turns a `PromptContext` into words.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from agent.hearing.goal import readings_of
from agent.hearing.instructions import rules_of
from agent.hearing.said_back import prompt_lines
from agent.state import AgentState, Attempt, Goal, Metrics, Observation

POLICY_DENIED = "policy_denied"
ARITHMETIC_TOOLS = ("plan_layouts",)  # observations whose numbers are kept in every prompt


class ObservationView(BaseModel):
    """One observation as the model sees it in full."""

    step: int
    call: str
    ok: bool
    error_kind: str | None = None
    outcome_unknown: bool = False
    summary: str
    data: str = ""


class PromptContext(BaseModel):
    goal: Goal
    constraints: list[str]
    denials: list[str]
    instructions: list[str]
    replies: list[str]
    step: int
    metrics: Metrics
    recent: list[ObservationView]
    older: list[str]
    omitted: int
    attempts: list[Attempt]
    rules: list[str] = []
    free_text: list[str] = []
    readings: list[str] = []
    arithmetic: list[str] = []


def render_call(tool: str, args: dict[str, Any]) -> str:
    if tool == "run_command" and isinstance(args.get("command"), str):
        return f"run_command: {args['command']}"
    inner = ", ".join(f"{k}={v!r}" for k, v in args.items())
    return f"{tool}({inner})"


def clip(text: str, limit: int) -> str:
    """Keep the head and the (longer) tail of `text` within about `limit` characters."""
    if len(text) <= limit:
        return text
    head = limit // 3
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n[... {cut} characters cut ...]\n{text[-tail:]}"


def one_line(text: str, limit: int = 160) -> str:
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first if len(first) <= limit else first[: limit - 3] + "..."


def outcome_word(obs: Observation) -> str:
    if obs.outcome_unknown:
        return "OUTCOME UNKNOWN"
    if obs.ok:
        return "ok"
    return f"FAILED ({obs.error_kind})" if obs.error_kind else "FAILED"


def summarise(obs: Observation) -> str:
    """One line for an observation that has scrolled out of the full window."""
    call = one_line(render_call(obs.tool, obs.args), 120)
    return f"step {obs.step}: {call} -> {outcome_word(obs)}: {one_line(obs.summary)}"


def view(obs: Observation, max_chars: int) -> ObservationView:
    data = json.dumps(obs.data, sort_keys=True, default=str) if obs.data else ""
    return ObservationView(
        step=obs.step,
        call=clip(render_call(obs.tool, obs.args), 1000),
        ok=obs.ok,
        error_kind=obs.error_kind,
        outcome_unknown=obs.outcome_unknown,
        summary=clip(obs.summary, max_chars),
        data=clip(data, max_chars // 2),
    )


def denial_lines(state: AgentState) -> list[str]:
    """The gate's denials plus every policy-denied observation, each once, oldest first."""
    lines: list[str] = []
    for text in state.get("denials", []):
        if text not in lines:
            lines.append(text)
    for obs in state.get("observations", []):
        if obs.error_kind != POLICY_DENIED or obs.summary.strip() in lines:
            continue  # the gate usually records the same note in both places
        line = f"step {obs.step}: {render_call(obs.tool, obs.args)} -> {one_line(obs.summary, 400)}"
        if line not in lines:
            lines.append(line)
    return lines


def reply_lines(state: AgentState, limit: int = 5) -> list[str]:
    lines = []
    for reply in state.get("replies", [])[-limit:]:
        text = reply.text or reply.edited_command or ""
        lines.append(f"{reply.kind}: {text}".rstrip(": ").rstrip())
    return lines


def _pct(best: float, goal: float) -> str:
    return f"{best:,.0f} tok/s = {100 * best / goal:.0f}% of the {goal:,.0f} goal" + (
        f" (needs {goal / best:.2f}x)" if 0 < best < goal else ""
    )


def arithmetic_lines(state: AgentState, max_chars: int = 3000) -> list[str]:
    """The numbers a decision should rest on: the memory plan, and the best measurement against the goal."""
    lines: list[str] = []
    plan = next(
        (o for o in reversed(state.get("observations", [])) if o.tool in ARITHMETIC_TOOLS and o.ok),
        None,
    )
    if plan is not None:
        lines.append(
            f"memory plan ({render_call(plan.tool, plan.args)}, step {plan.step}):\n{clip(plan.summary, max_chars)}"
        )
    goal = state.get("goal")
    metrics = state.get("metrics") or Metrics()
    if goal is not None and goal.min_aggregate_tps:
        if metrics.best_aggregate_tps is not None:
            best = _pct(metrics.best_aggregate_tps, goal.min_aggregate_tps)
            lines.append(f"aggregate at concurrency {goal.concurrency}: best {best} at {metrics.best_attempt}")
        else:
            target = f"goal {goal.min_aggregate_tps:,.0f} tok/s"
            lines.append(f"aggregate at concurrency {goal.concurrency}: not measured yet; {target}")
    if goal is not None and goal.min_single_stream_tps:
        if metrics.best_single_stream_tps is not None:
            lines.append(f"single stream: best {_pct(metrics.best_single_stream_tps, goal.min_single_stream_tps)}")
        else:
            lines.append(f"single stream: not measured yet; goal {goal.min_single_stream_tps:,.0f} tok/s")
    launches = sum(1 for o in state.get("observations", []) if o.tool == "launch_server")
    failed = [a for a in state.get("attempts", []) if a.failure_class]
    lines.append(f"launches so far: {launches}, of which failed: {len(failed)}")
    return lines


def build_context(
    state: AgentState, *, keep_last: int = 6, max_older: int = 80, max_chars: int = 4000
) -> PromptContext:
    goal = state.get("goal")
    if goal is None:
        raise ValueError("the state has no goal; the llm decider needs one to decide anything")
    observations = list(state.get("observations", []))
    split = max(len(observations) - keep_last, 0)
    older_obs, recent_obs = observations[:split], observations[split:]
    omitted = max(len(older_obs) - max_older, 0)
    return PromptContext(
        goal=goal,
        constraints=list(goal.constraints),
        denials=denial_lines(state),
        instructions=list(state.get("instructions", [])),
        replies=reply_lines(state),
        step=state.get("step", 0),
        metrics=state.get("metrics") or Metrics(),
        recent=[view(o, max_chars) for o in recent_obs],
        older=[summarise(o) for o in older_obs[omitted:]],
        omitted=omitted,
        attempts=list(state.get("attempts", [])),
        rules=prompt_lines({**state, "operator": rules_of(state)}),  # type: ignore[typeddict-item]
        free_text=list(rules_of(state).free_text),
        readings=[*readings_of(goal), *goal.constraint_readings],
        arithmetic=arithmetic_lines(state),
    )
