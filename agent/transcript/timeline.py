"""A transcript as a readable timeline: one line per event, filters, and following a live run.

Replay is read-only: it reads the file and its blobs and never touches a host. While rendering it
also checks each line's own hash and its link to the previous one, and says where the chain first
breaks (`opsagent verify` classifies the break).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from agent.transcript.reader import parse_line
from agent.transcript.schema import BLOB_KEY, GENESIS, HASH_SUFFIX_LEN, Event, line_hash

Only = Literal["approvals", "denials", "errors", "actions"]
ONLY_CHOICES: tuple[str, ...] = ("approvals", "denials", "errors", "actions")
APPROVING = frozenset({"approve", "edit", "continue"})


@dataclass(frozen=True)
class Filter:
    only: str | None = None
    steps: tuple[int | None, int | None] | None = None
    grep: str | None = None

    def __post_init__(self) -> None:
        if self.only is not None and self.only not in ONLY_CHOICES:
            raise ValueError(f"--only {self.only!r}: choose one of {', '.join(ONLY_CHOICES)}")


def parse_steps(spec: str | None) -> tuple[int | None, int | None] | None:
    """`5`, `3-8`, `3-` or `-8` (inclusive)."""
    if spec is None or spec == "":
        return None
    m = re.fullmatch(r"\s*(\d*)\s*(-?)\s*(\d*)\s*", spec)
    if m is None or (not m.group(1) and not m.group(3)):
        raise ValueError(f"--steps {spec!r}: write a step range as 5, 3-8, 3- or -8")
    lo = int(m.group(1)) if m.group(1) else None
    hi = int(m.group(3)) if m.group(3) else None
    if not m.group(2):
        hi = lo
    if lo is not None and hi is not None and lo > hi:
        raise ValueError(f"--steps {spec!r}: the range starts after it ends")
    return lo, hi


def fmt_time(value: Any) -> str:
    """An event `ts` (ISO text) or an epoch float (reply `at`, question `asked_at`) as readable UTC."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value <= 0:
            return "-"
        return datetime.fromtimestamp(float(value), UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    if isinstance(value, str):
        return value.replace("T", " ").replace("Z", " UTC")
    return "-"


def short(value: Any, limit: int = 160) -> str:
    if isinstance(value, dict) and BLOB_KEY in value:
        value = f"{value.get('head', '')}…[{value.get('size', '?')} bytes in blob {str(value[BLOB_KEY])[:12]}]…"
    text = " ".join(str(value).split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]  # at a word boundary, never mid-word
    return cut + "…"


def render_action(action: Any) -> str:
    if not isinstance(action, dict):
        return "-"
    tool = str(action.get("tool", "?"))
    args = action.get("args") or {}
    if isinstance(args, dict) and tool == "run_command" and "command" in args:
        return f"run_command: {short(args['command'], 100_000)}"  # an auditor reads the whole command
    if isinstance(args, dict):
        inner = ", ".join(f"{k}={short(v, 60)}" for k, v in args.items())
        return f"{tool}({inner})"
    return tool


def describe(event: Event, questions: dict[str, dict[str, Any]]) -> str:
    """The one-line summary of an event (no sequence number, step or time)."""
    p = event.payload
    t = event.type
    if t == "run_started":
        goal = p.get("goal")
        goal_text = goal.get("text", goal) if isinstance(goal, dict) else goal
        return f"goal: {short(goal_text)} | target: {p.get('target', '-')} | decider: {p.get('decider', '-')}"
    if t == "observation":
        return f"{'ok' if p.get('ok') else 'FAILED'} {p.get('tool', '')}: {short(p.get('summary', ''))}"
    if t == "decision":
        what = render_action(p.get("action")) if p.get("action") else p.get("kind", "-")
        conf = p.get("confidence")
        conf_s = f" (confidence {conf:.2f})" if isinstance(conf, int | float) else ""
        return f"{what}{conf_s} - {short(p.get('rationale', ''), 120)}"
    if t == "verdict":
        rules = ", ".join(p.get("rules") or []) or "-"
        word = str(p.get("decision", "?")).upper()
        return f"{word} {render_action(p.get('action'))} [rules: {rules}] {short(p.get('reason', ''), 100)}"
    if t == "question":
        return f"[{p.get('trigger', '?')}] {short(p.get('question', ''))} (id {p.get('id', '?')})"
    if t == "reply":
        q = questions.get(str(p.get("question_id")), {})
        extra = p.get("edited_command") or p.get("text") or ""
        about = f" to {short(q.get('question', ''), 80)!r}" if q else ""
        if q.get("action"):
            about += f" -> {render_action(q['action'])}"
        kind = p.get("kind", "?")
        if kind == "approve" and q.get("trigger") in ("goal_met", "gave_up"):
            kind = "sign off"  # what the operator did there: an approval of no action
        return f"{kind} by {p.get('who', '?')} at {fmt_time(p.get('at'))}{about}" + (
            f" | {short(extra, 100)}" if extra else ""
        )
    if t == "action_started":
        return render_action(p.get("action"))
    if t == "action_result":
        return f"{'ok' if p.get('ok') else 'FAILED'} {p.get('tool', '')}: {short(p.get('summary', ''))}"
    if t == "escalation":
        return f"[{p.get('trigger', '?')}] {short(p.get('reason', ''))}"
    if t == "error":
        return f"{p.get('where', p.get('kind', ''))}: {short(p.get('message', ''))}"
    if t == "run_finished":
        signed = p.get("signed_off_by")
        goal_met = p.get("goal_met")  # the audit's words; nothing when the run did not say
        met = ", goal met" if goal_met is True else ", goal NOT met" if goal_met is False else ""
        return f"status {p.get('status', '?')}{met}, steps {p.get('steps', '-')}" + (
            f", signed off by {signed}" if signed else ""
        )
    if t == "run_resumed":
        return f"resumed by process {p.get('pid', '?')}"
    if t == "report":
        md = p.get("markdown", "")
        first = next((ln for ln in str(md).splitlines() if ln.strip()), "") if isinstance(md, str) else short(md)
        return f"situation report for {p.get('question_id', '?')}: {short(first.lstrip('# '), 100)}"
    if t == "attempt":
        tps = p.get("aggregate_tps")
        launched = f" (launched at step {p['step']})" if isinstance(p.get("step"), int) else ""
        return (
            f"{p.get('id', '?')} {short(p.get('change', ''), 80)} -> {short(p.get('outcome', ''), 60)}"
            + (f" ({tps:,.0f} tok/s)" if isinstance(tps, int | float) else "")
            + launched
        )
    if t == "notification":
        tries = p.get("attempts")
        why = f": {short(p.get('error', ''), 100)}" if p.get("error") else ""
        return (
            f"{p.get('status', '?')} {p.get('format', '')} webhook {p.get('hook', '?')} for {p.get('question_id', '?')}"
            + (f" after {tries} attempt(s)" if isinstance(tries, int) else "")
            + why
        )
    return short(json.dumps(p, ensure_ascii=False))


def selected(event: Event, only: str | None) -> bool:
    if only is None:
        return True
    p, t = event.payload, event.type
    if only == "approvals":
        return t == "reply" and p.get("kind") in APPROVING
    if only == "denials":
        return (t == "verdict" and p.get("decision") == "deny") or (t == "reply" and p.get("kind") == "deny")
    if only == "errors":
        return t == "error" or (t == "action_result" and p.get("ok") is False)
    if only == "actions":
        return t in ("action_started", "action_result")
    return True


@dataclass
class TimelineRenderer:
    """Feeds on raw lines, in order; yields rendered lines for the events that pass the filter."""

    flt: Filter = field(default_factory=Filter)
    step: int = 0
    questions: dict[str, dict[str, Any]] = field(default_factory=dict)
    finished: bool = False
    _prev: str = GENESIS
    _seq: int = 0
    _broken: bool = False
    _last_result: tuple[Any, Any] | None = None

    def feed(self, raw: bytes) -> list[str]:
        out: list[str] = []
        line = raw.rstrip(b"\n")
        event = parse_line(line)
        if event is None or len(line) < HASH_SUFFIX_LEN or line_hash(line) != event.hash:
            if not self._broken and not _is_recorded_torn(line):
                self._broken = True
                out.append(f"!! line after seq {self._seq - 1} is not a valid event; run `opsagent verify`")
            if event is None:
                return out
        elif not self._broken and (event.seq != self._seq or event.prev != self._prev):
            self._broken = True
            out.append(f"!! the chain breaks at seq {event.seq} (expected {self._seq}); run `opsagent verify`")
        self._seq, self._prev = event.seq + 1, event.hash
        if isinstance(event.payload.get("step"), int) and event.type != "attempt":
            self.step = event.payload["step"]  # an attempt's step is its launch's, earlier than now
        if event.type == "question":
            self.questions[str(event.payload.get("id"))] = event.payload
        if event.type == "run_finished":
            self.finished = True
        step_tool = (event.payload.get("step"), event.payload.get("tool"))
        if event.type == "action_result":
            self._last_result = step_tool
        elif event.type == "observation" and self._last_result == step_tool:
            return out  # the loop's record of the result just shown: same step, same tool, same line
        if not selected(event, self.flt.only) or not self._in_steps():
            return out
        text = f"#{event.seq:<5} step {self.step:<3} {fmt_time(event.ts)[11:19]}  {event.type:<14} "
        text += describe(event, self.questions)
        if event.redactions:
            text += "  [redacted: " + ", ".join(f"{r['pattern']} at {r['path']}" for r in event.redactions) + "]"
        if self.flt.grep and not _matches(self.flt.grep, text):
            return out
        out.append(text)
        return out

    def _in_steps(self) -> bool:
        if self.flt.steps is None:
            return True
        lo, hi = self.flt.steps
        return (lo is None or self.step >= lo) and (hi is None or self.step <= hi)


def _is_recorded_torn(line: bytes) -> bool:
    # A torn remainder is followed by the writer's torn_tail error; verify checks that pairing.
    return not line.startswith(b'{"v":') or not line.endswith(b'"}')


def _matches(needle: str, text: str) -> bool:
    """On the line as shown: a match hidden in the event's JSON would show a line without the text."""
    return needle.lower() in text.lower()


def timeline(lines: Iterable[bytes], flt: Filter | None = None) -> Iterator[str]:
    renderer = TimelineRenderer(flt or Filter())
    for raw in lines:
        if raw.endswith(b"\n"):
            yield from renderer.feed(raw)
        else:
            yield f"!! the last line is incomplete ({len(raw)} bytes): the run stopped mid-write"


def render_file(path: Path, flt: Filter | None = None) -> Iterator[str]:
    with open(path, "rb") as fh:
        yield from timeline(fh, flt)


def follow(
    path: Path,
    flt: Filter | None = None,
    *,
    poll_s: float = 0.25,
    idle_timeout_s: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[str]:
    """Render the transcript and keep rendering as the run appends to it, until `run_finished`
    (or `idle_timeout_s` without a new line). A partial last line is held until it is complete.
    """
    renderer = TimelineRenderer(flt or Filter())
    waited = 0.0
    pending = b""
    with open(path, "rb") as fh:
        while True:
            chunk = fh.readline()
            if chunk:
                pending += chunk
                if not pending.endswith(b"\n"):
                    continue
                waited = 0.0
                yield from renderer.feed(pending)
                pending = b""
                if renderer.finished:
                    return
                continue
            if idle_timeout_s is not None and waited >= idle_timeout_s:
                if pending:
                    yield f"!! the last line is incomplete ({len(pending)} bytes); nothing more came"
                return
            sleep(poll_s)
            waited += poll_s
