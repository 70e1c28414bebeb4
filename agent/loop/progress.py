"""Show a run's progress as it happens: each event, one line, as it is recorded (`ProgressEcho`),
and while a long tool step runs, a live status line at a terminal or a heartbeat line every
`OPSAGENT_HEARTBEAT_S` seconds (default 30) without one (`StepWatch`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from agent.transcript.schema import Event
from agent.transcript.timeline import describe, render_action
from agent.transcript.writer import TranscriptWriter

APPROVED_BY_OPERATOR = "approved by operator"  # the gate's reason for an ask the operator approved
EDIT_OUTPUT_LINES = 40  # of an edited command's output, at the terminal

# what an operator watching the run wants to see; the transcript keeps everything else
SHOWN = {"decision", "action_result", "escalation", "reply", "run_finished", "run_resumed", "error", "notification"}


class ProgressEcho:
    """A transcript writer that also prints a line per event; the transcript is written first."""

    def __init__(self, writer: TranscriptWriter | ProgressEcho, console: Console) -> None:
        self.writer, self.console = writer, console
        self._questions: dict[str, dict[str, Any]] = {}
        self._edited: str | None = None  # the operator's edited command, until its result is shown

    @property
    def path(self) -> Path:
        return self.writer.path

    def emit(self, type: str, payload: dict[str, Any]) -> Event:
        event = self.writer.emit(type, payload)
        if type == "question":
            self._questions[str(payload.get("id"))] = payload
        if type == "reply" and payload.get("kind") == "edit":
            self._edited = str(payload.get("edited_command") or "") or None
        approved = type == "verdict" and str(payload.get("reason", "")).startswith(APPROVED_BY_OPERATOR)
        if type in SHOWN or (type == "verdict" and payload.get("decision") != "allow") or approved:
            # never cropped: a cut line loses the words that matter (the OOM cause, the number)
            self.console.print(self._line(event), soft_wrap=True, highlight=False, markup=False)
        if type == "action_result" and self._edited is not None and payload.get("tool") == "run_command":
            self._show_output(payload)
        return event

    def _show_output(self, result: dict[str, Any]) -> None:
        """The operator's own command: its output where they typed it (the transcript has it too)."""
        lines = str(result.get("summary", "")).splitlines()
        if not lines or lines[0] != f"$ {self._edited}":
            return
        self._edited = None
        body = [ln for ln in lines[1:] if not ln.startswith("exit code:")]
        shown = body[:EDIT_OUTPUT_LINES]
        for ln in shown:
            self.console.print(f"   | {ln}", soft_wrap=True, highlight=False, markup=False)
        if len(body) > len(shown):
            more = len(body) - len(shown)
            self.console.print(f"   | ... {more} more line{'s' if more != 1 else ''} in the transcript", markup=False)

    def _line(self, event: Event) -> str:
        p = event.payload
        if event.type == "verdict" and p.get("decision") == "allow":  # approved by the operator's words
            rules = ", ".join(p.get("rules") or []) or "the policy"
            why = str(p.get("reason", ""))[len(APPROVED_BY_OPERATOR) :].lstrip(": ")
            return f"   approved by your reply: the policy asks for approval ({rules}: {why}); your words approved it"
        if event.type == "decision" and p.get("action"):
            return f"-> {render_action(p['action'])}  ({p.get('rationale', '')})"
        if event.type == "action_result":
            return f"   {'ok' if p.get('ok') else 'FAILED'}: {result_line(p)}"
        return f"   {event.type.replace('_', ' ')}: {describe(event, self._questions)}"


def result_line(result: dict[str, Any]) -> str:
    """The number that matters for a benchmark, the stderr's last lines for a failed command,
    else the summary's first line."""
    raw = result.get("data")
    data: dict[str, Any] = raw if isinstance(raw, dict) else {}
    summary = str(result.get("summary", "")).strip()
    levels = data.get("levels") if result.get("tool") == "run_benchmark" else None
    if isinstance(levels, list) and levels:
        parts = [
            f"{lv['output_throughput']:,.0f} tok/s "
            + ("single stream" if lv.get("concurrency") == 1 else f"aggregate at concurrency {lv.get('concurrency')}")
            for lv in levels
            if isinstance(lv, dict) and isinstance(lv.get("output_throughput"), int | float)
        ]
        met = data.get("targets_met")
        verdict = "" if met is None else ("; goal met" if met else "; goal NOT met")
        if parts:
            return ", ".join(parts) + verdict
    if result.get("tool") == "run_command" and not result.get("ok"):
        exit_code = data.get("exit_code")
        tail = [ln for ln in str(data.get("stderr") or "").splitlines() if ln.strip()][-3:]
        head = f"exit code {exit_code if exit_code is not None else 'none'}"
        return head + ("; stderr: " + " | ".join(tail) if tail else "")
    first = summary.splitlines()[:1]
    return first[0] if first else ""


def heartbeat_interval() -> float:
    """Seconds between heartbeat lines when there is no terminal ($OPSAGENT_HEARTBEAT_S, default 30)."""
    try:
        value = float(os.environ.get("OPSAGENT_HEARTBEAT_S", "30"))
    except ValueError:
        return 30.0
    return value if value > 0 else 30.0


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class StepWatch:
    """While one tool step runs: after `show_after_s`, a status line redrawn in place at a terminal
    (what runs, for how long, the tool's latest progress), or a heartbeat line every
    `heartbeat_s` without a terminal, so a long step is never silent."""

    def __init__(
        self,
        console: Console,
        *,
        show_after_s: float = 2.0,
        heartbeat_s: float | None = None,
        tick_s: float = 0.5,
    ) -> None:
        self.console = console
        self.show_after_s = show_after_s
        self.heartbeat_s = heartbeat_interval() if heartbeat_s is None else heartbeat_s
        self.tick_s = tick_s

    @contextmanager
    def watch(self, what: str) -> Iterator[Callable[[str], None]]:
        """Yields the callback a tool calls with its progress ("loading weights; last line: ...")."""
        detail: list[str] = []
        done = threading.Event()
        start = time.monotonic()
        drawn = threading.Event()

        def status() -> str:
            line = f"running {what} ({_clock(time.monotonic() - start)})"
            return line + (f" - {detail[-1]}" if detail else "")

        def loop() -> None:
            next_beat = start + max(self.show_after_s, self.heartbeat_s)
            while not done.wait(self.tick_s):
                now = time.monotonic()
                if self.console.is_terminal:
                    if now - start >= self.show_after_s:
                        width = max(self.console.width - 1, 20)
                        self.console.file.write("\r\x1b[2K" + status()[:width])
                        self.console.file.flush()
                        drawn.set()
                elif now >= next_beat:
                    self.console.print("   ... " + status(), soft_wrap=True, highlight=False, markup=False)
                    next_beat = now + self.heartbeat_s

        ticker = threading.Thread(target=loop, name="opsagent-step-watch", daemon=True)
        ticker.start()
        try:

            def report(text: str) -> None:
                detail[:] = [" ".join(str(text).split())[:300]]

            yield report
        finally:
            done.set()
            ticker.join()
            if drawn.is_set():  # leave the line for the result that follows
                self.console.file.write("\r\x1b[2K")
                self.console.file.flush()
