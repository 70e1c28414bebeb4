"""The reply line every surface prints under a waiting question: one place, so the terminal,
`opsagent inbox` and the webhooks offer the same replies."""

from __future__ import annotations

REPLY_VERBS = "approve|deny|continue|stop|--edit CMD|--say TEXT"


def reply_hint(run_id: str) -> str:
    return f"opsagent reply {run_id} {REPLY_VERBS}"
