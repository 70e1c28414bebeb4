"""A transcript as a self-contained audit report (Markdown or HTML), written to a file.

Built only from the transcript and its blobs (and the verifier's verdict on them), with no clock
or host involved, so exporting the same transcript twice gives byte-identical reports.
"""

from __future__ import annotations

from pathlib import Path

from agent.transcript.audit_facts import gather
from agent.transcript.audit_report import build_report, template_env
from agent.transcript.audit_view import render_audit_html
from agent.transcript.timeline import Filter


def render_report(path: Path, fmt: str, flt: Filter | None = None) -> str:
    """`fmt` is `md` or `html` (the audit view, with its charts: agent.transcript.audit_view)."""
    if fmt not in ("md", "html"):
        raise ValueError(f"unknown report format {fmt!r}: use a .md or .html file name")
    if fmt == "html":
        return render_audit_html(path, standalone=True, flt=flt)
    report = build_report(path, flt)
    return template_env().get_template("report.md.j2").render(r=report, f=gather(path))


def export_report(path: Path, out: Path, flt: Filter | None = None) -> Path:
    suffix = out.suffix.lower().lstrip(".")
    fmt = {"md": "md", "markdown": "md", "html": "html", "htm": "html"}.get(suffix)
    if fmt is None:
        raise ValueError(f"--export {out}: the file name must end in .md or .html")
    text = render_report(path, fmt, flt)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise ValueError(f"--export {out}: cannot write it ({why}); name a file in a directory you can write") from None
    return out
