"""A run as a chat thread: the agent's situation reports and questions, the operator's replies
(with who sent them), and one line per action so the run can be followed as it goes.

Reports are Markdown, rendered with markdown-it-py with raw HTML off (a report quotes host output;
none of it may become markup) and tables on. Transcripts are scrubbed before they are written,
so nothing here needs to hide a secret; nothing here reads the environment either.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from agent.hearing import hints
from agent.loop.progress import result_line
from agent.state import Action, Question
from agent.transcript.reader import resolved_payload
from agent.transcript.schema import Event
from agent.transcript.timeline import render_action

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def markdown(text: str) -> str:
    return str(_MD.render(text))


@dataclass
class Message:
    side: str  # agent | operator | activity
    html: str = ""
    text: str = ""
    who: str = ""
    at: str = ""
    question_id: str | None = None
    ok: bool = True
    collapsed: bool = False  # an earlier situation report: shown folded
    report: str = ""  # a situation report's Markdown (the next one shows what changed since it)


@dataclass
class Pending:
    """The waiting question as the reply form shows it."""

    question: Question
    command: str | None
    verdict: dict[str, Any] | None
    can_approve: bool
    report_html: str
    unmet_sign_off: bool = False  # the gave-up question: its button says the goal is NOT met
    # number, description, the command it runs, whether picking it signs off
    options: list[tuple[int, str, str | None, bool]] = field(default_factory=list)
    editable: str | None = None  # a shell command the operator may change (a tool call is not one)
    can_deny: bool = False
    chips: list[tuple[str, str]] = field(default_factory=list)  # (label, verb) besides the composer


def exact_command(action: Action | dict[str, Any] | None) -> str | None:
    """The command line an approval lets run: what the policy gate judged."""
    if action is None:
        return None
    act = action if isinstance(action, Action) else Action.model_validate(action)
    if act.tool == "run_command" and isinstance(act.args.get("command"), str):
        return str(act.args["command"])
    if act.tool == "sglang_flags":  # the gate judges the command the tool runs
        return f"{act.args.get('python') or 'python3'} -m sglang.launch_server --help"
    if act.tool == "launch_server":
        from agent.policy.actions import launch_command

        command, env = launch_command(act.args)
        prefix = " ".join(f"{k}={v}" for k, v in env.items())
        return f"{prefix} {command}".strip()
    return render_action(act.model_dump(mode="json"))


def read_thread(path: Path) -> tuple[list[Message], dict[str, dict[str, Any]]]:
    """The messages of a transcript, and the last verdict judged for each action (by its JSON)."""
    messages: list[Message] = []
    verdicts: dict[str, dict[str, Any]] = {}
    questions: dict[str, Message] = {}
    signing: set[str] = set()  # the questions an approval answers by signing off (no action)
    reports: list[Message] = []
    if not path.exists():
        return messages, verdicts
    for event in _events(path):
        p, t, at = event.payload, event.type, event.ts
        if t == "run_started":
            goal = p.get("goal")
            text = goal.get("text", "") if isinstance(goal, dict) else str(goal)
            messages.append(
                Message("agent", html=markdown(f"**Run started** on `{p.get('target', '-')}`\n\n{text}"), at=at)
            )
        elif t == "verdict" and isinstance(p.get("action"), dict):
            verdicts[_key(p["action"])] = p
        elif t == "action_result":
            line = f"step {p.get('step')}: {p.get('tool')}: {result_line(p)}"
            messages.append(Message("activity", text=line, at=at, ok=bool(p.get("ok"))))
        elif t == "question":
            msg = Message("agent", html=markdown(str(p.get("question", ""))), at=at, question_id=str(p.get("id")))
            questions[msg.question_id or ""] = msg
            if p.get("trigger") in ("goal_met", "gave_up"):
                signing.add(str(p.get("id")))
            messages.append(msg)
        elif t == "report":
            full = resolved_payload(path, event)
            target = questions.get(str(full.get("question_id")))
            if target is not None:  # the report replaces the question's one line: it holds it
                target.report = without_reply_line(str(full.get("markdown", "")))
                target.html = markdown(target.report)
                if reports:  # what changed since the last report first, the whole one a click away
                    changes = hints.report_changes(reports[-1].report, target.report)
                    target.html = (
                        markdown(changes)
                        + '<details class="whole"><summary>The whole report</summary>'
                        + target.html
                        + "</details>"
                    )
                for older in reports:  # an earlier report is one click away, not repeated in full
                    older.collapsed = True
                reports.append(target)
        elif t == "reply":
            signs = p.get("kind") == "approve" and str(p.get("question_id")) in signing
            words = "sign off" if signs else reply_words(p)
            messages.append(Message("operator", text=words, who=str(p.get("who", "?")), at=at))
        elif t == "run_finished":
            goal_met = p.get("goal_met")
            met = "; the goal is met" if goal_met is True else "; the goal is NOT met" if goal_met is False else ""
            signed = f"; signed off by {p['signed_off_by']}" if p.get("signed_off_by") else ""
            words = f"**Run {p.get('status', 'finished')}**{met}{signed}"
            messages.append(Message("agent", html=markdown(words), at=at))
        elif t == "error":
            messages.append(
                Message("activity", text=f"error: {p.get('message') or p.get('kind') or p}", at=at, ok=False)
            )
    return messages, verdicts


def _events(path: Path) -> list[Event]:
    from agent.transcript.reader import read_events

    return list(read_events(path))


def _key(action: dict[str, Any]) -> str:
    return json.dumps({"tool": action.get("tool"), "args": action.get("args") or {}}, sort_keys=True)


def reply_words(p: dict[str, Any]) -> str:
    """A reply as the operator would have typed it."""
    kind = str(p.get("kind"))
    if kind == "edit":
        return f"edit: {p.get('edited_command')}"
    if kind == "continue":
        if p.get("steps"):
            return f"continue {p['steps']} steps"
        return f"continue until {p['milestone']}" if p.get("milestone") else "continue"
    if kind == "pick":
        return f"step {p.get('pick')}"
    text = str(p.get("text") or "")
    if kind == "say":
        return text
    return f"{kind}: {text}" if text else kind


def pending(question: Question | None, verdicts: dict[str, dict[str, Any]]) -> Pending | None:
    if question is None:
        return None
    action = question.action.model_dump(mode="json") if question.action else None
    accepts = hints.accepts_question(question)
    command = question.action.args.get("command") if question.action and question.action.tool == "run_command" else None
    return Pending(
        question=question,
        command=exact_command(question.action),
        verdict=verdicts.get(_key(action)) if action else None,
        can_approve=accepts.approve,
        unmet_sign_off=question.trigger == "gave_up",
        report_html=markdown(without_reply_line(question.report_markdown or question.question)),
        options=[(o.number, o.description, exact_command(o.action), o.sign_off) for o in question.options],
        editable=str(command) if isinstance(command, str) else None,
        can_deny=question.action is not None,
        chips=[(label, verb) for label, verb in hints.chips(accepts) if verb in ("continue",)],
    )


def without_reply_line(markdown_text: str) -> str:
    """The report less its last line on how to reply at a terminal: the page has its own controls."""
    lines = markdown_text.rstrip().splitlines()
    if lines and lines[-1].startswith("Reply "):
        lines = lines[:-1]
    return "\n".join(lines)
