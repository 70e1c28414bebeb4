"""The bounded context a model decides from, built from the run's state.

What is kept, and why:

- the last `keep_last` observations in full (each capped at `max_chars`, head and tail kept,
  because the end of a log is where the error is);
- older observations as one line each (step, tool, outcome, first line of the summary); past
  `max_older` of those, the oldest are dropped and counted;
- the attempts table exactly, always: it is what good decisions rest on (see the cases);
- the goal, its constraints, every policy denial and every operator instruction, always.

Nothing here calls a model or renders text; `agent.prompts` turns a `PromptContext` into words.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from agent.state import AgentState, Attempt, Goal, Metrics, Observation

POLICY_DENIED = "policy_denied"


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
    )
