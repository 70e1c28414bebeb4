"""The audit view a run's page embeds: the same view `replay --export` writes, as a fragment."""

from __future__ import annotations

from pathlib import Path

from agent.transcript.audit_view import render_audit_html


def audit_fragment(path: Path) -> str:
    return render_audit_html(path, standalone=False)
