"""A transcript's audit report as data (`build_report`) and the templates' environment.

The Markdown export (`export.py`) and the HTML audit view (`audit_view.py`) both build on it.

Built only from the transcript and its blobs (and the verifier's verdict on them), with no clock
or host involved, so exporting the same transcript twice gives byte-identical reports. The
templates live in `templates/`; the HTML one inlines its CSS and renders the situation reports'
Markdown, with raw HTML disabled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

from agent.transcript.reader import blob_store, read_events
from agent.transcript.schema import Event
from agent.transcript.timeline import APPROVING, Filter, fmt_time, render_action, render_file
from agent.transcript.verify import VerifyResult, verify_transcript

_TEMPLATES = Path(__file__).parent / "templates"


@dataclass
class AuditReport:
    """What the report shows, gathered in one pass over the events."""

    name: str
    verify: VerifyResult
    run_id: str = "-"
    started: dict[str, Any] = field(default_factory=dict)
    started_at: str = "-"
    finished: dict[str, Any] | None = None
    finished_at: str = "-"
    events: int = 0
    reports: list[dict[str, Any]] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    approvals: list[dict[str, Any]] = field(default_factory=list)
    denials: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    redactions: list[dict[str, Any]] = field(default_factory=list)
    timeline: list[str] = field(default_factory=list)


def build_report(path: Path, flt: Filter | None = None) -> AuditReport:
    path = Path(path)
    report = AuditReport(name=path.name, verify=verify_transcript(path))
    blobs = blob_store(path)
    questions: dict[str, dict[str, Any]] = {}
    attempts: dict[str, dict[str, Any]] = {}
    edits: dict[str, dict[str, Any]] = {}  # the operator's edited commands, until the gate judges them
    step = 0
    for ev in read_events(path):
        report.events += 1
        p = ev.payload
        if isinstance(p.get("step"), int) and ev.type != "attempt":
            step = p["step"]
        where = {"seq": ev.seq, "step": step, "ts": fmt_time(ev.ts)}
        if ev.type == "run_started":
            report.run_id, report.started, report.started_at = ev.run, p, fmt_time(ev.ts)
        elif ev.type == "run_finished":
            report.finished, report.finished_at = p, fmt_time(ev.ts)
        elif ev.type == "question":
            questions[str(p.get("id"))] = p
        elif ev.type == "report":
            md = _inline(blobs, p.get("markdown", ""))
            q = questions.get(str(p.get("question_id")), {})
            report.reports.append(
                {**where, "question_id": p.get("question_id"), "trigger": q.get("trigger"), "markdown": md}
            )
        elif ev.type == "attempt":
            attempts[str(p.get("id"))] = {**p, "seq": ev.seq}  # a later row for the same id updates it
        elif ev.type == "reply":
            q = questions.get(str(p.get("question_id")), {})
            row = {
                **where,
                "kind": p.get("kind"),
                "who": p.get("who", "-"),
                "at": fmt_time(p.get("at")),
                "question": q.get("question", "-"),
                "trigger": q.get("trigger", "-"),
                "action": render_action(q.get("action")) if q.get("action") else "-",
                "text": p.get("edited_command") or p.get("text") or "",
                "digest": (p.get("digest") or q.get("digest") or "")[:16],
            }
            if p.get("kind") == "edit":  # filed by what the gate then did with the command (below)
                edits[str(p.get("edited_command") or "")] = row
            elif p.get("kind") in APPROVING:
                report.approvals.append(row)
            elif p.get("kind") == "deny":
                report.denials.append({**row, "by": "operator", "rules": "-", "reason": row["text"] or "-"})
        elif ev.type == "verdict" and _edit_of(p, edits) is not None:
            row = edits.pop(_edit_of(p, edits) or "")
            if str(p.get("reason", "")).startswith("approved by operator"):  # the policy asked; the edit approved
                report.approvals.append(
                    {**row, "action": render_action(p.get("action")), "text": "approved by the edit"}
                )
            if p.get("decision") == "deny":
                report.denials.append(_policy_denial(where, ev, p))
        elif ev.type == "verdict" and p.get("decision") == "deny":
            report.denials.append(_policy_denial(where, ev, p))
        elif ev.type == "error" or (ev.type == "action_result" and p.get("ok") is False):
            report.errors.append({**where, "type": ev.type, "message": _error_text(ev)})
        for r in ev.redactions:
            report.redactions.append({"seq": ev.seq, "type": ev.type, **r})
    report.attempts = sorted(attempts.values(), key=lambda a: a["seq"])
    report.timeline = list(render_file(path, flt or Filter()))
    return report


def _edit_of(verdict: dict[str, Any], edits: dict[str, dict[str, Any]]) -> str | None:
    """The edited command this verdict judges, if it is one waiting to be filed."""
    action = verdict.get("action") or {}
    command = (action.get("args") or {}).get("command") if action.get("tool") == "run_command" else None
    return str(command) if command is not None and str(command) in edits else None


def _policy_denial(where: dict[str, Any], ev: Any, p: dict[str, Any]) -> dict[str, Any]:
    return {
        **where,
        "by": "policy",
        "who": "policy",
        "at": fmt_time(ev.ts),
        "action": render_action(p.get("action")),
        "rules": ", ".join(p.get("rules") or []) or "-",
        "reason": p.get("reason", ""),
    }


def _inline(blobs: Any, value: Any) -> str:
    try:
        return str(blobs.inline(value))
    except FileNotFoundError as exc:
        return f"*(the report text is in a blob that is missing: {exc})*"


def _error_text(ev: Event) -> str:
    p = ev.payload
    text = p.get("message") or p.get("summary") or ""
    where = p.get("where") or p.get("tool") or p.get("kind") or ""
    return f"{where}: {text}" if where else str(text)


def template_env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_TEMPLATES),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(["html.j2"]),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    env.filters["markdown"] = lambda text: Markup(md.render(str(text)))
    env.filters["cell"] = lambda v: "-" if v is None or v == "" else str(v).replace("|", "\\|").replace("\n", " ")
    env.filters["fmt_time"] = fmt_time
    env.filters["demote"] = demote_headings
    env.filters["num"] = lambda v: "-" if v is None else f"{v:,.1f}"
    return env


def demote_headings(markdown: str, levels: int = 2) -> str:
    """Nest a situation report's headings under the `###` that introduces it (code blocks untouched)."""
    out, fenced = [], False
    for line in str(markdown).splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("#"):
            line = "#" * levels + line
        out.append(line)
    return "\n".join(out)
