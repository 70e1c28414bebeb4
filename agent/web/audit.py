"""The audit view a run's page embeds.

The view itself belongs to agent/transcript/audit_view.py (`render_audit_html`, issue #20's
`audit` part). Until that module is on this branch, `audit_fragment` renders a minimal stand-in
(integrity verdict, one throughput bar per benchmark, the commands run) with the same `audit-`
classes, so switching to the real view is the one line in `audit_fragment`.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from agent.progress import result_line
from agent.transcript import read_events, verify_transcript


def audit_fragment(path: Path) -> str:
    return _minimal_audit(path)


def _minimal_audit(path: Path) -> str:
    verdict = verify_transcript(path)
    state = "intact" if verdict.ok else f"NOT intact: {'; '.join(str(p) for p in verdict.problems[:3])}"
    commands: list[str] = []
    bars: list[tuple[str, float]] = []
    for event in read_events(path):
        p = event.payload
        if event.type == "action_started":
            from agent.web.thread import exact_command

            commands.append(exact_command(p.get("action")) or "-")
        elif event.type == "action_result" and p.get("tool") == "run_benchmark":
            levels = (p.get("data") or {}).get("levels") or []
            top = max((float(lv.get("output_throughput") or 0) for lv in levels if isinstance(lv, dict)), default=0.0)
            bars.append((result_line(p), top))
    peak = max((v for _, v in bars), default=1.0) or 1.0
    svg = "".join(
        f'<rect x="10" y="{10 + 24 * i}" width="{max(1, int(380 * v / peak))}" height="18">'
        f"<title>{escape(t)}</title></rect>"
        for i, (t, v) in enumerate(bars)
    )
    rows = "".join(
        f'<tr><td>{i}</td><td><code class="audit-command">{escape(c)}</code></td></tr>'
        for i, c in enumerate(commands, 1)
    )
    return (
        f'<p class="audit-integrity">Integrity: {escape(state)}</p>'
        f'<svg class="audit-chart" width="400" height="{20 + 24 * len(bars)}" role="img">{svg}</svg>'
        f'<h2 id="audit-commands">Commands run on the host</h2><table class="audit-commands">{rows}</table>'
    )
