"""The situation report: what opsagent shows when it stops to ask.

`build_report` turns the run's state into a `SituationReport` (pure data: the tables come from the
record, never from a model writing free-hand); `render_markdown` and `render_terminal` draw the
same report for transcripts / `opsagent inbox` and for a rich terminal. It is kept short on
purpose (capped tables and lists) so the operator can decide from it in under a minute.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field
from rich import box
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from agent import prompts
from agent.evidence.findings import fact_lines, missing_software
from agent.hearing import hints
from agent.loop.escalation import accepted_short
from agent.state import (
    Action,
    AgentState,
    Alternative,
    Attempt,
    Decision,
    Goal,
    Metrics,
    Observation,
    TriggerKind,
    Verdict,
)

MAX_ATTEMPTS = 12
MAX_FINDINGS = 8
MAX_HYPOTHESES = 5
MAX_NEXT_STEPS = 6
MAX_INSTRUCTIONS = 3
RECENT_DECISIONS = 5
MAX_CELL = 110
MAX_LINE = 220

TEMPLATE_NAME = "situation_report.md.j2"

# Why the agent stopped, in plain words; the trigger's specific reason follows.
TRIGGER_TEXT: dict[str, str] = {
    "policy_ask": "the next action needs your approval under the policy",
    "low_confidence": "I am not sure enough of the next step to take it on my own",
    "no_next_step": "I have no next step I can take on my own",
    "decider_asks": "I have a question only you can answer",
    "stalled": "progress has stalled (repeated failures, the same action again, or no gain)",
    "budget": "a budget checkpoint was reached (steps, wall time or model spend)",
    "outcome_unknown": "an action started and I cannot tell whether it finished; I will not re-run it blind",
    "goal_met": "the goal is met; I need your sign-off to finish",
    "gave_up": "I have run out of ideas that could reach the goal",
    "decider_error": "the component that chooses my next step failed",
    "goal_unclear": "I am not sure how to read your goal, and nothing should run on a guess",
}

REPLY_FORMS = hints.report_forms(hints.accepts("policy_ask", True, 0))  # all but a number

PolicyWord = Literal["allowed", "needs approval", "denied", "outside my reach", "your sign-off", "not checked"]
VERDICT_WORDS: dict[str, PolicyWord] = {"allow": "allowed", "ask": "needs approval", "deny": "denied"}


MetricKey = Literal["aggregate", "single_stream", "ttft"]


class MetricRow(BaseModel):
    key: MetricKey
    name: str
    unit: Literal["tok/s", "ms"]
    goal: float | None = None
    best: float | None = None
    attempt: str | None = None
    percent_of_goal: int | None = None


class AttemptRow(BaseModel):
    id: str
    change: str
    outcome: str
    aggregate_tps: float | None = None


class PolicyCheck(BaseModel):
    """What the policy says about one action, in the words the operator reads."""

    word: PolicyWord
    rules: list[str] = []
    reason: str = ""

    def label(self) -> str:
        detail = ", ".join(self.rules) or self.reason
        if self.word in ("denied", "needs approval", "your sign-off") and detail:
            return f"{self.word} ({detail})"
        return self.word


class NextStep(BaseModel):
    number: int
    description: str
    rationale: str = ""
    risk: str = "low"
    command: str | None = None
    policy: PolicyCheck


class ProposedAction(BaseModel):
    command: str
    tool: str
    args: dict[str, Any] = {}
    policy: PolicyCheck
    rationale: str = ""
    confidence: float | None = None


class SituationReport(BaseModel):
    run_id: str
    step: int
    elapsed_s: float | None = None
    trigger: TriggerKind
    why: str
    reason: str
    goal: str
    gpus: list[int] | None = None
    constraints: list[str] = []
    sandbox: str = Field(default="", description="where commands run: inside the sandbox or not, and why")
    concurrency: int = 64
    metrics: list[MetricRow] = []
    attempts: list[AttemptRow] = []
    attempts_omitted: int = 0
    findings: list[str] = []
    findings_omitted: int = 0
    hypotheses: list[str] = []
    next_steps: list[NextStep] = []
    next_steps_omitted: int = 0
    proposed: ProposedAction | None = None
    instructions: list[str] = []  # what the operator said, as heard (agent.hearing.said_back.heard_lines)
    denials: list[str] = []  # the operator's denials, with their reasons
    policy_denials: list[str] = []
    goal_readings: list[str] = []  # how each number and "never X" of the goal was read
    missing: list[str] = []
    question: str
    reply_forms: list[str] = REPLY_FORMS

    @property
    def measured(self) -> bool:
        return any(m.best is not None for m in self.metrics)


# ---------------------------------------------------------------------------------------------
# Formatting shared by both renderers


def fmt_number(x: float) -> str:
    """1,000 / 512 / 41 / 9.5: whole numbers from 10 up, one decimal below."""
    if abs(x) >= 10:
        return f"{round(x):,}"
    return f"{x:.1f}".removesuffix(".0")


def fmt_ms(ms: float) -> str:
    return f"{ms / 1000:.1f} s" if ms >= 1000 else f"{ms:,.0f} ms"


def fmt_duration(seconds: float) -> str:
    """2h 13m / 6m 10s / 45s."""
    s = max(0, int(seconds))
    hours, rem = divmod(s, 3600)
    minutes, secs = divmod(rem, 60)
    if hours:
        return f"{hours}h {minutes}m"
    if minutes:
        return f"{minutes}m {secs}s"
    return f"{secs}s"


def _goal_sentence(report: SituationReport) -> str:
    gpus = report.gpus or []
    return hints.goal_sentence(report.goal, fmt_gpus(gpus) if gpus else "", len(set(gpus)))


def fmt_gpus(gpus: Iterable[int]) -> str:
    """[0,1,2,3,6] -> '0-3, 6'."""
    runs: list[list[int]] = []
    for g in sorted(set(gpus)):
        if runs and g == runs[-1][-1] + 1:
            runs[-1].append(g)
        else:
            runs.append([g])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def fmt_metric_value(row: MetricRow, value: float | None) -> str:
    if value is None:
        return "-"
    return fmt_ms(value) if row.unit == "ms" else fmt_number(value)


def _short(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


# ---------------------------------------------------------------------------------------------
# Building the report from state


def build_report(
    state: AgentState,
    *,
    trigger: TriggerKind,
    reason: str,
    question: str,
    proposed: Action | None = None,
    verdict_for: Callable[[Action], Verdict] | None = None,
    elapsed_s: float | None = None,
    decision: Decision | None = None,
) -> SituationReport:
    """Everything the operator needs to decide, read from the run's state.

    `decision` is the one that led to this question when it is not yet in state (the latest
    wins: its alternatives are the next steps, its rationale explains the proposed action).
    """
    goal = state.get("goal")
    attempts = list(state.get("attempts", []))
    decisions = list(state.get("decisions", []))
    for extra in (state.get("proposal"), decision):
        if extra is not None and (not decisions or decisions[-1] != extra):
            decisions.append(extra)
    pending = decision if decision is not None else state.get("proposal")
    if proposed is None and trigger == "policy_ask" and pending is not None:
        proposed = pending.action

    shown_attempts = attempts[-MAX_ATTEMPTS:]
    recent = decisions[-RECENT_DECISIONS:]
    findings = _findings(state.get("observations", []), recent)
    hypotheses = _dedupe(h for d in reversed(recent) for h in d.hypotheses)
    latest = decisions[-1] if decisions else None
    alternatives = latest.alternatives if latest is not None else []

    return SituationReport(
        run_id=state.get("run_id", "?"),
        step=state.get("step", 0),
        elapsed_s=elapsed_s,
        trigger=trigger,
        # a finish short of the goal that the operator picked is theirs, not my ideas running out
        why="you picked the sign-off short of the goal"
        if trigger == "gave_up" and accepted_short(reason)
        else TRIGGER_TEXT[trigger],
        reason=_sentence(reason),
        goal=goal.text if goal is not None else "(no goal recorded)",
        gpus=goal.gpus if goal is not None else None,
        constraints=list(goal.constraints) if goal is not None else [],
        sandbox=str(state.get("sandbox") or ""),
        concurrency=goal.concurrency if goal is not None else 64,
        metrics=_metrics(state, attempts),
        attempts=[_attempt_row(a) for a in shown_attempts],
        attempts_omitted=len(attempts) - len(shown_attempts),
        findings=findings[:MAX_FINDINGS],
        findings_omitted=max(0, len(findings) - MAX_FINDINGS),
        hypotheses=hypotheses[:MAX_HYPOTHESES],
        next_steps=[
            NextStep(
                number=i,
                description=alt.description,
                rationale=alt.rationale,
                risk=alt.risk,
                command=alt.action.render() if alt.action is not None else None,
                policy=PolicyCheck(word="your sign-off", reason=f"reply {i} to sign off")
                if alt.sign_off
                else _policy(alt.action, verdict_for),
            )
            for i, alt in enumerate(alternatives[:MAX_NEXT_STEPS], start=1)
        ],
        next_steps_omitted=max(0, len(alternatives) - MAX_NEXT_STEPS),
        proposed=_proposed(proposed, verdict_for, state.get("verdict"), latest),
        missing=missing_software(list(state.get("observations", []))),
        **_operator_words(state),
        question=question,
        reply_forms=_reply_forms(trigger, proposed, alternatives[:MAX_NEXT_STEPS]),
    )


def _reply_forms(trigger: TriggerKind, proposed: Action | None, steps: list[Alternative]) -> list[str]:
    """The replies this question accepts (agent/hearing/hints.py): with no action proposed and
    nothing to sign off, `approve` is refused and `deny <reason>` is read as an instruction, so
    neither is offered; a number only where steps are listed."""
    acting = sum(1 for step in steps if step.action is not None)
    return hints.report_forms(hints.accepts(trigger, proposed is not None, len(steps), acting))


def _operator_words(state: AgentState) -> dict[str, list[str]]:
    """Hook (agent.hearing.instructions): the operator's words as heard, whose denial each is, the goal's readings."""
    from agent.hearing.goal import readings_of
    from agent.hearing.said_back import denial_report_lines, heard_lines

    mine, policy = denial_report_lines(state, MAX_INSTRUCTIONS)
    goal = state.get("goal")
    readings = [*readings_of(goal), *goal.constraint_readings] if goal is not None else []
    return {"instructions": heard_lines(state), "denials": mine, "policy_denials": policy, "goal_readings": readings}


def _policy(action: Action | None, verdict_for: Callable[[Action], Verdict] | None) -> PolicyCheck:
    if action is None:
        return PolicyCheck(word="outside my reach")
    if verdict_for is None:
        return PolicyCheck(word="not checked")
    return _from_verdict(verdict_for(action))


def _from_verdict(verdict: Verdict) -> PolicyCheck:
    return PolicyCheck(word=VERDICT_WORDS[verdict.decision], rules=list(verdict.rules), reason=verdict.reason)


def _proposed(
    action: Action | None,
    verdict_for: Callable[[Action], Verdict] | None,
    gate_verdict: Verdict | None,
    latest: Decision | None,
) -> ProposedAction | None:
    if action is None:
        return None
    if verdict_for is None and gate_verdict is not None:
        # The gate's verdict in state belongs to the proposal it just checked.
        policy = _from_verdict(gate_verdict)
    else:
        policy = _policy(action, verdict_for)
    own = latest if latest is not None and latest.action == action else None
    return ProposedAction(
        command=action.render(),
        tool=action.tool,
        args=dict(action.args),
        policy=policy,
        rationale=own.rationale if own is not None else "",
        confidence=own.confidence if own is not None else None,
    )


Best = tuple[float | None, str | None]  # value, attempt id


def _best(attempts: list[Attempt], field: str, fallback: Best, lowest: bool = False) -> Best:
    """The best value over the attempts; the recorded metric when no attempt carries one
    (e.g. a benchmark of a server the agent found already running)."""
    scored = [(float(v), a.id) for a in attempts if (v := getattr(a, field)) is not None]
    if not scored:
        return fallback
    return (min if lowest else max)(scored, key=lambda pair: pair[0])


def _row(key: MetricKey, name: str, unit: Literal["tok/s", "ms"], best: Best, goal: float | None) -> MetricRow:
    value, attempt_id = best
    percent = math.floor(100 * value / goal) if value is not None and goal else None  # floored: 99.9% is not met
    return MetricRow(key=key, name=name, unit=unit, goal=goal, best=value, attempt=attempt_id, percent_of_goal=percent)


def _metrics(state: AgentState, attempts: list[Attempt]) -> list[MetricRow]:
    goal = state.get("goal") or Goal(text="")
    recorded = state.get("metrics") or Metrics()
    conc = goal.concurrency
    rows = [
        _row(
            "aggregate",
            f"aggregate tok/s (conc {conc})",
            "tok/s",
            _best(attempts, "aggregate_tps", (recorded.best_aggregate_tps, recorded.best_attempt)),
            goal.min_aggregate_tps,
        ),
        _row(
            "single_stream",
            "single-stream tok/s",
            "tok/s",
            _best(attempts, "single_stream_tps", (recorded.best_single_stream_tps, None)),
            goal.min_single_stream_tps,
        ),
    ]
    ttft = _best(attempts, "ttft_ms", (recorded.best_ttft_ms, None), lowest=True)
    if ttft[0] is not None:  # TTFT only when measured: it has no goal to show against
        rows.append(_row("ttft", f"TTFT (conc {conc})", "ms", ttft, None))
    return rows


def _attempt_row(attempt: Attempt) -> AttemptRow:
    outcome = attempt.outcome
    if attempt.failure_class and attempt.failure_class not in outcome:
        outcome = f"{outcome} [{attempt.failure_class}]"
    return AttemptRow(id=attempt.id, change=attempt.change, outcome=outcome, aggregate_tps=attempt.aggregate_tps)


def _sentence(text: str) -> str:
    flat = " ".join(text.split())
    return flat if not flat or flat[-1] in ".!?:" else flat + "."


def _dedupe(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        key = " ".join(item.split())
        if key and key not in seen:
            seen.add(key)
            out.append(key)
    return out


# ---------------------------------------------------------------------------------------------
# Findings: facts from the observations (agent/evidence/findings.py), then what the decider concluded


def _findings(observations: Iterable[Observation], decisions: list[Decision]) -> list[str]:
    observations = list(observations)
    from_decisions = (f for d in reversed(decisions) for f in d.findings)
    found = [*_sandbox_blocks(observations), *fact_lines(observations), *from_decisions]
    return [_short(f, MAX_LINE) for f in _dedupe(found)]


def _sandbox_blocks(observations: Iterable[Observation]) -> list[str]:
    """What the sandbox refused, said plainly: the operator decides whether it may run outside."""
    out = []
    for obs in observations:
        if obs.error_kind == "sandbox_blocked":
            stderr = str(obs.data.get("stderr") or "").strip().splitlines()
            why = stderr[-1] if stderr else "refused"
            out.append(
                f"The sandbox blocked `{obs.args.get('command')}` (step {obs.step}): {why}. It fails the same way "
                "inside the sandbox; it can run only outside it, as root, if you approve that escalation."
            )
    return out[-3:]


# ---------------------------------------------------------------------------------------------
# Rendering


TARGET_CLOCK = "on the target host's clock"  # as the audit view names it (agent/transcript/templates)


def _headline(report: SituationReport) -> str:
    what = (
        "opsagent met the goal and asks for sign-off" if report.trigger == "goal_met" else "opsagent needs a decision"
    )
    if report.missing:  # what step 1 showed missing, in the heading instead of a generic stall
        what = "opsagent cannot serve on this host, " + ", ".join(m.split(" (")[0] for m in report.missing)
    where = [f"run {report.run_id}", f"step {report.step}"]
    if report.elapsed_s is not None:  # the target's time (virtual on the lab), not the wall's: said so
        where.append(f"{fmt_duration(report.elapsed_s)} {TARGET_CLOCK}")
    return f"{what}: {', '.join(where)}"


def _standing(report: SituationReport) -> str:
    """One sentence: the best aggregate against the goal, or that nothing is measured yet."""
    row = next((m for m in report.metrics if m.best is not None and m.key != "ttft"), None)
    if row is None or row.best is None:
        return "Nothing measured yet."
    kind = f"aggregate at concurrency {report.concurrency}" if row.key == "aggregate" else "single stream"
    text = f"Best so far: {fmt_number(row.best)} tok/s {kind}"
    if row.attempt:
        text += f" ({row.attempt})"
    if row.percent_of_goal is not None:
        text += f", {row.percent_of_goal}% of the goal"
    return text + "."


def _metric_cells(row: MetricRow) -> tuple[str, str, str, str]:
    best = "not measured yet" if row.best is None else fmt_metric_value(row, row.best)
    vs_goal = f"{row.percent_of_goal}% of the goal" if row.percent_of_goal is not None else "-"
    return fmt_metric_value(row, row.goal), best, vs_goal, row.attempt or "-"


def _attempt_cells(row: AttemptRow) -> tuple[str, str, str, str]:
    tps = "-" if row.aggregate_tps is None else fmt_number(row.aggregate_tps)
    return row.id, _short(row.change, MAX_CELL), _short(row.outcome, MAX_CELL), tps


def _step_effect(step: NextStep) -> str:
    """The rationale, shortened; the command whole: it is what a number reply lets run (the
    Markdown shows it below the table instead: a table cuts a long word)."""
    parts = [
        p
        for p in (
            _short(step.rationale, MAX_CELL) if step.rationale else "",
            f"`{step.command}`" if step.command else "",
        )
        if p
    ]
    return "; ".join(parts) or "-"


def _reply_line(report: SituationReport) -> str:
    forms = list(report.reply_forms)
    return "Reply " + ", ".join(forms[:-1]) + f", or {forms[-1]}."


def _md_cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render_markdown(report: SituationReport) -> str:
    """The report as Markdown (transcripts, `opsagent inbox`, audit exports)."""
    context = {
        "headline": _headline(report),
        "goal": _goal_sentence(report),
        "gpus": "",  # in the goal's sentence
        "constraints": report.constraints,
        "sandbox": report.sandbox,
        "why": report.why,
        "reason": report.reason,
        "standing": _standing(report),
        "metrics": [(_md_cell(m.name), *map(_md_cell, _metric_cells(m))) for m in report.metrics],
        "attempts": [tuple(map(_md_cell, _attempt_cells(a))) for a in report.attempts],
        "attempts_omitted": report.attempts_omitted,
        "findings": report.findings,
        "findings_omitted": report.findings_omitted,
        "hypotheses": report.hypotheses,
        "step_commands": [(s.number, s.command) for s in report.next_steps if s.command],
        "next_steps": [
            (
                str(s.number),
                _md_cell(_short(s.description, MAX_CELL)),
                _md_cell(_short(s.rationale, MAX_CELL) if s.rationale else ("see below" if s.command else "-")),
                _md_cell(s.risk),
                _md_cell(s.policy.label()),
            )
            for s in report.next_steps
        ],
        "next_steps_omitted": report.next_steps_omitted,
        "proposed": report.proposed,
        "proposed_rules": ", ".join(f"`{r}`" for r in report.proposed.policy.rules) if report.proposed else "",
        "instructions": report.instructions,
        "denials": report.denials,
        "policy_denials": report.policy_denials,
        "goal_readings": report.goal_readings,
        "question": report.question,
        "reply_line": _reply_line(report),
    }
    return prompts.render(TEMPLATE_NAME, **context).strip() + "\n"


def _table(title: str, columns: list[str], rows: Iterable[Iterable[str]], ratios: list[int] | None = None) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, expand=ratios is not None)
    for i, col in enumerate(columns):
        table.add_column(col, overflow="fold", ratio=ratios[i] if ratios else None)
    for row in rows:
        table.add_row(*(escape(cell) for cell in row))
    return table


def _bullets(title: str, items: list[str], numbered: bool = False, note: str = "") -> Group:
    # A grid keeps wrapped lines indented under their bullet.
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column()
    for i, item in enumerate(items, start=1):
        grid.add_row(f" {i}." if numbered else " -", Text(item))
    if note:
        grid.add_row("", Text(note, style="dim"))
    return Group(Text(title, style="bold"), grid)


def render_terminal(report: SituationReport, console: Console) -> None:
    """The report as rich panels and tables for the operator's terminal."""
    parts: list[RenderableType] = []
    head = Text()
    head.append("Goal: ", style="bold")
    head.append(_goal_sentence(report))
    if report.constraints:
        head.append("\nConstraints: ", style="bold")
        head.append("; ".join(report.constraints) + ".")
    if report.sandbox:
        head.append("\nSandbox: ", style="bold")
        head.append(report.sandbox)
    head.append("\nWhy I stopped: ", style="bold")
    head.append(f"{report.why}: {report.reason}")
    head.append("\n" + _standing(report))
    parts.append(head)

    parts.append(
        _table(
            "Where things stand",
            ["metric", "goal", "best so far", "vs goal", "config"],
            [(m.name, *_metric_cells(m)) for m in report.metrics],
        )
        if report.metrics
        else Text("Where things stand: not measured yet", style="bold")
    )
    if report.attempts:
        title = "Attempts"
        if report.attempts_omitted:
            title += f" ({report.attempts_omitted} earlier omitted)"
        parts.append(
            _table(title, ["id", "change", "outcome", "aggregate tok/s"], map(_attempt_cells, report.attempts))
        )
    else:
        parts.append(Text("Attempts: none yet", style="bold"))
    if report.findings:
        note = f"({report.findings_omitted} more omitted)" if report.findings_omitted else ""
        parts.append(_bullets("Findings (with evidence)", report.findings, note=note))
    if report.hypotheses:
        parts.append(_bullets("Hypotheses", report.hypotheses, numbered=True))
    if report.next_steps:
        parts.append(
            _table(
                "Next steps I can propose",
                ["#", "step", "expected effect", "risk", "policy"],
                [
                    (
                        str(s.number),
                        _short(s.description, MAX_CELL),
                        _step_effect(s),
                        s.risk,
                        s.policy.label(),
                    )
                    for s in report.next_steps
                ],
                ratios=[1, 5, 7, 4, 6],
            )
        )
    if report.proposed is not None:
        p = report.proposed
        text = Text("Proposed action\n", style="bold")
        text.append(f"  {p.command}\n", style="cyan")
        text.append(f"  policy: {p.policy.label()}")
        if p.policy.reason:
            text.append(f" - {p.policy.reason}")
        if p.rationale:
            conf = f" (confidence {p.confidence:.2f})" if p.confidence is not None else ""
            text.append(f"\n  why: {p.rationale}{conf}")
        parts.append(text)
    if report.instructions or report.denials:
        parts.append(_bullets("What you told me", [*report.instructions, *report.denials]))
    if report.policy_denials:
        parts.append(_bullets("Denied by the policy", report.policy_denials))
    question = Text("Question: ", style="bold")
    question.append(report.question + "\n")
    question.append(_reply_line(report).replace("`", ""), style="dim")
    parts.append(question)

    style = "green" if report.trigger == "goal_met" else "yellow"
    spaced: list[RenderableType] = []
    for part in parts:
        spaced.extend([part, Text("")])
    console.print(Panel(Group(*spaced[:-1]), title=_headline(report), title_align="left", border_style=style))
