"""The audit view of one transcript as HTML: a whole page (`replay --export FILE.html`) or a
fragment that the web server embeds in its own page.

Top to bottom: the integrity verdict, whether the clock was simulated (lab runs), the run, the
charts (inline SVG), attempts, the benchmark data, the exact commands run on the host, approvals,
denials, errors, redactions, the situation reports, and the replay timeline with its filters.

Everything shown comes from the transcript and its blobs, which the writer scrubbed of secrets
before writing; nothing is read from the host or the environment, and all text is escaped (the
reports' Markdown is rendered with raw HTML off). The fragment has no `<html>`, no script and only
`audit-` CSS classes; its styles come in one `<style>` element (`AUDIT_CSS`, for a page that
would rather serve them as a file).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from agent.transcript.audit_facts import AuditFacts, gather
from agent.transcript.audit_report import build_report, template_env
from agent.transcript.charts import fmt_clock, throughput_chart, timeline_chart
from agent.transcript.reader import parse_line
from agent.transcript.timeline import ONLY_CHOICES, Filter, TimelineRenderer, selected

AUDIT_CSS = (Path(__file__).parent / "templates" / "audit.css").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Row:
    text: str
    kinds: tuple[str, ...]  # the --only choices this line belongs to (all of them for a warning)


def timeline_rows(path: Path, flt: Filter) -> list[Row]:
    """The replay timeline, each line tagged with the `--only` kinds its event belongs to."""
    renderer = TimelineRenderer(flt)
    rows: list[Row] = []
    with open(path, "rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                rows.append(Row(f"!! the last line is incomplete ({len(raw)} bytes)", ONLY_CHOICES))
                break
            event = parse_line(raw.rstrip(b"\n"))
            kinds = tuple(k for k in ONLY_CHOICES if event is not None and selected(event, k))
            for line in renderer.feed(raw):
                rows.append(Row(line, ONLY_CHOICES if line.startswith("!!") else kinds))
    return rows


def charts_for(facts: AuditFacts) -> list[Markup]:
    out: list[Markup] = []
    goal = facts.goal
    if facts.attempts:
        conc = f" at concurrency {goal.concurrency}" if goal.concurrency else ""
        out.append(
            Markup(
                throughput_chart(
                    facts.attempts,
                    goal.min_aggregate_tps,
                    metric="aggregate",
                    title=f"Aggregate output tok/s{conc} per attempt, against the goal",
                )
            )
        )
        if any(a.single_stream_tps is not None for a in facts.attempts) or goal.min_single_stream_tps:
            out.append(
                Markup(
                    throughput_chart(
                        facts.attempts,
                        goal.min_single_stream_tps,
                        metric="single",
                        title="Single-stream output tok/s per attempt, against the goal",
                    )
                )
            )
    if facts.marks:
        clock = "simulated" if facts.simulated else ("target host's" if facts.clock == "target" else "wall")
        out.append(
            Markup(timeline_chart(facts.marks, facts.end_s, title="Launches, readiness and questions", clock=clock))
        )
    return out


def _applied(flt: Filter) -> str:
    parts = [f"--only {flt.only}"] if flt.only else []
    if flt.steps is not None:
        lo, hi = flt.steps
        parts.append(f"--steps {'' if lo is None else lo}-{'' if hi is None else hi}")
    parts += [f"--grep {flt.grep!r}"] if flt.grep else []
    return " ".join(parts)


def render_audit_html(path: Path, *, standalone: bool, flt: Filter | None = None) -> str:
    """The audit view of the transcript at `path`; `flt` narrows its timeline as `replay` would."""
    path = Path(path)
    flt = flt or Filter()
    report = build_report(path)
    facts = gather(path)
    env = template_env()
    env.filters["clock"] = fmt_clock
    fragment = env.get_template("audit.html.j2").render(
        r=report,
        f=facts,
        charts=charts_for(facts),
        rows=timeline_rows(path, flt),
        applied=_applied(flt),
        only_choices=ONLY_CHOICES,
    )
    if not standalone:
        return f"<style>\n{AUDIT_CSS}</style>\n{fragment}"
    return env.get_template("report.html.j2").render(r=report, css=Markup(AUDIT_CSS), body=Markup(fragment))
