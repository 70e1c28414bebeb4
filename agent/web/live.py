"""What every run is doing, kept current by one poller: the store for status, the transcript for
step, tool and questions, the run's own log for its last lines while a server starts.

Cheap by construction: one query for the runs whose status changed since the last poll, a stat
per transcript of a run that is not over, and reading only the bytes appended since the last read.
Pages and event streams read the snapshot; they never touch the store or a transcript themselves.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.store import at_rest
from agent.store.records import RunRecord, process_alive
from agent.store.sqlite import Store
from agent.transcript.scrub import Scrubber

OVER = ("finished", "stopped", "failed")
SERVER_STARTING = ("launch_server", "wait_server")
LOG_LINES = 12


@dataclass
class RunView:
    """One run as the inbox shows it."""

    run_id: str
    target: str
    goal: str
    status: str
    created: float
    updated: float
    transcript: str
    pid: int | None = None
    step: int = 0
    tool: str | None = None
    tool_running: bool = False
    tool_since: float | None = None
    question_id: str | None = None
    question: str | None = None
    trigger: str | None = None
    question_tool: str | None = None  # the tool the waiting question is about (its proposed action)
    events: int = 0
    ended: float | None = None
    goal_met: bool | None = None  # from the transcript's run_finished: None until it ends (or unsaid)
    log_tail: list[str] = field(default_factory=list)
    version: int = 0
    offset: int = 0  # bytes of the transcript read so far

    def elapsed(self, now: float) -> float:
        return max(0.0, (self.ended if self.ended is not None else now) - self.created)

    @property
    def waiting(self) -> bool:
        return self.question_id is not None and self.status not in OVER

    def to_json(self, now: float) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "status": self.shown_status,
            "badge": self.badge,
            "kind": self.waiting_kind,
            "step": self.step,
            "tool": self.shown_tool,
            "tool_label": self.tool_label,
            "tool_running": self.tool_running,
            "elapsed": clock(self.elapsed(now)),
            "question": self.question if self.waiting else None,
            "events": self.events,
            "log_tail": self.log_tail,
            "version": self.version,
        }

    @property
    def shown_tool(self) -> str | None:
        """While a question about an action waits: that action's tool, not the last one run."""
        return self.question_tool if self.waiting and self.question_tool else self.tool

    @property
    def tool_label(self) -> str:
        if self.waiting:
            return "asks about" if self.question_tool else "last tool"
        return "tool"

    @property
    def waiting_kind(self) -> str:
        """What the question wants, for its badge: a sign-off, an approval, or an answer."""
        if not self.waiting:
            return ""
        if self.trigger in ("goal_met", "gave_up"):
            return "kind-signoff"
        return "kind-approval" if self.trigger == "policy_ask" else "kind-question"

    @property
    def badge(self) -> str:
        kind = self.waiting_kind
        if not kind and self.status == "finished" and self.goal_met is not None:
            # a finished run is signed off either way: say which, as the closing summary does
            return "finished: goal met" if self.goal_met else "finished: goal NOT met"
        return {"kind-signoff": "sign-off", "kind-approval": "approval", "kind-question": "question"}.get(
            kind, self.shown_status
        )

    @property
    def shown_status(self) -> str:
        if self.waiting:
            return "waiting"
        return self.status


def clock(seconds: float) -> str:
    s = int(seconds)
    if s >= 3600:
        return f"{s // 3600}h {s % 3600 // 60:02d}m"
    return f"{s // 60}m {s % 60:02d}s" if s >= 60 else f"{s}s"


class Tracker:
    """The snapshot of every run, refreshed by `poll` (a background thread calls it)."""

    def __init__(self, store: Store, log_dir: Callable[[str], Path | None] | None = None) -> None:
        self.store = store
        self.runs: dict[str, RunView] = {}
        self.version = 0
        self._since = 0.0
        self._lock = threading.Lock()
        self.changed = threading.Condition(self._lock)
        self._log_dir = log_dir

    # reading ------------------------------------------------------------------
    def snapshot(self) -> list[RunView]:
        """Newest first: what the inbox lists."""
        with self._lock:
            return sorted(self.runs.values(), key=lambda r: r.created, reverse=True)

    def get(self, run_id: str) -> RunView | None:
        with self._lock:
            return self.runs.get(run_id)

    def wait_change(self, seen: int, timeout: float) -> int:
        """Block until the snapshot's version passes `seen` (or the timeout); the current version."""
        with self.changed:
            if self.version <= seen:
                self.changed.wait(timeout)
            return self.version

    # polling ------------------------------------------------------------------
    def poll(self) -> bool:
        """One refresh; True when anything changed."""
        changed_records = self._changed_records()
        dirty: list[RunView] = []
        for record in changed_records:
            view = self._view_for(record)
            dirty.append(view)
        with self._lock:
            # a run just over may still be writing its last events: read it a little longer
            now = time.time()
            active = [r for r in self.runs.values() if r.status not in OVER or now - r.updated < 10]
        for view in {id(v): v for v in [*dirty, *active]}.values():
            if self._read_transcript(view) or view in dirty:
                self._read_log(view)
                self._bump(view)
        with self.changed:
            if self._pending:
                self.version += 1
                self._pending = False
                self.changed.notify_all()
                return True
        return False

    _pending = False

    def _bump(self, view: RunView) -> None:
        with self._lock:
            view.version = self.version + 1
            self._pending = True

    def _changed_records(self) -> list[RunRecord]:
        records: list[RunRecord] | None = None
        since = getattr(self.store, "runs_updated_since", None)
        if since is not None:
            try:
                records = since(self._since)
            except Exception:  # a backend whose store lacks the one-query form (its own SQL)
                records = None
        if records is None:  # list everything, keep what changed
            records = [r for r in self.store.list_runs() if r.updated > self._since]
        if records:
            self._since = max(self._since, *(r.updated for r in records))
        return records

    def _view_for(self, record: RunRecord) -> RunView:
        spec = record.spec
        with self._lock:
            view = self.runs.get(spec.run_id)
            if view is None:
                view = RunView(
                    run_id=spec.run_id,
                    target=spec.target,
                    goal=str(spec.goal.get("text", "")),
                    status=record.status,
                    created=record.created,
                    updated=record.updated,
                    transcript=spec.transcript,
                )
                self.runs[spec.run_id] = view
            view.status, view.updated, view.pid = record.status, record.updated, record.pid
            if record.status in OVER and view.ended is None:
                view.ended = record.updated
            if record.status not in OVER:
                view.ended = None
            return view

    def _read_transcript(self, view: RunView) -> bool:
        path = Path(view.transcript)
        try:
            size = path.stat().st_size
        except OSError:
            return False
        if size <= view.offset:
            return False
        with open(path, "rb") as fh:
            fh.seek(view.offset)
            chunk = fh.read(size - view.offset)
        end = chunk.rfind(b"\n")
        if end < 0:
            return False  # a line still being written
        view.offset += end + 1
        for raw in chunk[: end + 1].splitlines():
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            self._apply(view, str(event.get("type")), event.get("payload") or {})
        return True

    def _apply(self, view: RunView, kind: str, p: dict[str, Any]) -> None:
        view.events += 1
        if isinstance(p.get("step"), int):
            view.step = max(view.step, int(p["step"]))
        if kind == "action_started":
            action = p.get("action") or {}
            view.tool, view.tool_running, view.tool_since = str(action.get("tool")), True, time.time()
        elif kind == "action_result":
            view.tool, view.tool_running = str(p.get("tool") or view.tool), False
        elif kind == "question":
            view.question_id, view.question, view.trigger = str(p.get("id")), str(p.get("question")), p.get("trigger")
            action = p.get("action")
            tool = action.get("tool") if isinstance(action, dict) else None
            view.question_tool = str(tool) if tool else None
        elif kind == "reply" and p.get("question_id") == view.question_id:
            view.question_id = view.question = view.trigger = None
        elif kind == "run_finished":
            view.question_id = view.question = None
            met = p.get("goal_met")
            view.goal_met = met if isinstance(met, bool) else None

    def _read_log(self, view: RunView) -> None:
        """The process log's last lines while a server starts (the tool's heartbeat and log lines)."""
        if not (view.tool_running and view.tool in SERVER_STARTING) or self._log_dir is None:
            view.log_tail = []
            return
        log = self._log_dir(view.run_id)
        if log is None or not log.exists():
            return
        with open(log, "rb") as fh:
            fh.seek(max(0, log.stat().st_size - 8192))
            lines = fh.read().decode(errors="replace").splitlines()
        view.log_tail = scrub_lines([ln for ln in lines if ln.strip()][-LOG_LINES:])


_SCRUBBER: list[Scrubber] = []


def scrub_lines(lines: list[str]) -> list[str]:
    """A process log is not a transcript: nothing scrubbed it. Its lines are, before any page shows them."""
    if not _SCRUBBER:
        _SCRUBBER.append(at_rest.scrubber())
    return [_SCRUBBER[0].scrub_text(line)[0] for line in lines]


def driver_alive(view: RunView) -> bool:
    return view.pid is not None and process_alive(view.pid)


class Poller:
    """Calls `tracker.poll` every `interval_s` in a daemon thread until stopped."""

    def __init__(self, tracker: Tracker, interval_s: float = 0.25) -> None:
        self.tracker, self.interval_s = tracker, interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="opsagent-web-poller", daemon=True)

    def start(self) -> None:
        self.tracker.poll()  # the first page already shows every run
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.tracker.poll()
            except Exception:  # a transcript mid-rotation or a locked store: the next poll tries again
                time.sleep(self.interval_s)
