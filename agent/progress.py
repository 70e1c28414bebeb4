"""Show a run's progress at the terminal as it happens: each event, one line, as it is recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from agent.transcript import Event, TranscriptWriter
from agent.transcript.timeline import describe, render_action

# what an operator watching the run wants to see; the transcript keeps everything else
SHOWN = {"decision", "action_result", "escalation", "reply", "run_finished", "run_resumed", "error"}


class ProgressEcho:
    """A transcript writer that also prints a line per event; the transcript is written first."""

    def __init__(self, writer: TranscriptWriter | ProgressEcho, console: Console) -> None:
        self.writer, self.console = writer, console
        self._questions: dict[str, dict[str, Any]] = {}

    @property
    def path(self) -> Path:
        return self.writer.path

    def emit(self, type: str, payload: dict[str, Any]) -> Event:
        event = self.writer.emit(type, payload)
        if type == "question":
            self._questions[str(payload.get("id"))] = payload
        if type in SHOWN or (type == "verdict" and payload.get("decision") != "allow"):
            self.console.print(
                self._line(event), no_wrap=True, overflow="ellipsis", crop=True, highlight=False, markup=False
            )
        return event

    def _line(self, event: Event) -> str:
        p = event.payload
        if event.type == "decision" and p.get("action"):
            return f"-> {render_action(p['action'])}  ({p.get('rationale', '')})"
        if event.type == "action_result":
            first = str(p.get("summary", "")).strip().splitlines()[:1]
            return f"   {'ok' if p.get('ok') else 'FAILED'}: {first[0] if first else ''}"
        return f"   {event.type.replace('_', ' ')}: {describe(event, self._questions)}"
