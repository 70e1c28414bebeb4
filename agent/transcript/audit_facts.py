"""What the audit view shows, gathered from a transcript in one pass: attempts against the goal,
the benchmark rows, the commands run on the host, and when launches, readiness and questions
happened on the run's own clock.

Times are seconds since the run started, on the target's clock: the `sim_time` that every
observation carries (on the lab that clock is simulated, so a 4-minute start takes milliseconds of
wall time). An event without one happens when the last observation before it did: questions,
replies and launches are recorded right after the observation that led to them. A transcript
whose observations carry no `sim_time` falls back to the lines' own write times.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.transcript.reader import read_events, resolved_payload
from agent.transcript.schema import Event
from agent.transcript.timeline import render_action

SHELL_TOOLS = frozenset({"run_command", "launch_server"})
"""Tools whose call is a command line run on the host (others run opsagent's fixed probes)."""


@dataclass
class AttemptRow:
    id: str
    step: int | None
    change: str
    outcome: str
    failure_class: str | None
    aggregate_tps: float | None
    single_stream_tps: float | None
    ttft_ms: float | None


@dataclass
class Mark:
    """One point on the timeline chart: `kind` is launch, ready, failed, question or reply."""

    kind: str
    at_s: float
    label: str
    seq: int
    step: int


@dataclass
class CommandRow:
    """An action that ran: `command` is the exact line for a shell tool, else the tool call."""

    seq: int
    step: int
    at_s: float
    tool: str
    command: str
    shell: bool
    ok: bool | None = None
    exit_code: int | None = None
    note: str = ""


@dataclass
class BenchRow:
    seq: int
    step: int
    at_s: float
    attempt: str
    concurrency: Any
    output_tps: float | None
    total_tps: float | None
    request_tps: float | None
    ttft_ms: float | None
    tpot_ms: float | None
    completed: Any
    failed: Any


@dataclass
class Goal:
    text: str = "-"
    min_aggregate_tps: float | None = None
    min_single_stream_tps: float | None = None
    concurrency: int | None = None


@dataclass
class AuditFacts:
    run_id: str = "-"
    target: str = "-"
    goal: Goal = field(default_factory=Goal)
    clock: str = "target"  # "target" (sim_time) or "wall" (the lines' write times)
    attempts: list[AttemptRow] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    commands: list[CommandRow] = field(default_factory=list)
    benchmarks: list[BenchRow] = field(default_factory=list)
    end_s: float = 0.0

    @property
    def simulated(self) -> bool:
        """A lab run: its clock is the lab's virtual clock, not the wall."""
        return self.target.startswith("lab:")

    @property
    def shell_commands(self) -> list[CommandRow]:
        return [c for c in self.commands if c.shell]

    @property
    def tool_calls(self) -> list[CommandRow]:
        return [c for c in self.commands if not c.shell]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _epoch(ts: str) -> float:
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def _goal(raw: Any) -> Goal:
    if not isinstance(raw, dict):
        return Goal(text=str(raw) if raw else "-")
    conc = raw.get("concurrency")
    return Goal(
        text=str(raw.get("text") or "-"),
        min_aggregate_tps=_num(raw.get("min_aggregate_tps")),
        min_single_stream_tps=_num(raw.get("min_single_stream_tps")),
        concurrency=conc if isinstance(conc, int) else None,
    )


def launch_line(result: dict[str, Any], action: dict[str, Any]) -> str:
    """The exact launch line the tool ran: the `$ ...` line it reported, else what it was asked."""
    for line in str(result.get("summary") or "").splitlines():
        if line.startswith("$ "):
            return line[2:]
    data = result.get("data") or {}
    if isinstance(data, dict) and data.get("command"):
        env = data.get("env") or {}
        prefix = " ".join(f"{k}={v}" for k, v in env.items()) if isinstance(env, dict) else ""
        return f"{prefix} {data['command']}".strip()
    return render_action(action)


class _Gather:
    def __init__(self) -> None:
        self.facts = AuditFacts()
        self.step = 0
        self.now = 0.0  # seconds since the start on the run's clock
        self.start_wall = 0.0
        self.attempts: dict[str, AttemptRow] = {}
        self.current_attempt = "-"
        self.started: dict[str, tuple[Event, dict[str, Any]]] = {}  # action key -> action_started
        self.launch_of: dict[int, str] = {}  # step of a launch -> its attempt id

    def feed(self, ev: Event) -> None:
        p = ev.payload
        if isinstance(p.get("step"), int) and ev.type != "attempt":
            self.step = p["step"]
        sim = _num(p.get("sim_time"))
        if ev.type == "run_started":
            self.facts.run_id = str(p.get("run_id") or ev.run)
            self.facts.target = str(p.get("target") or "-")
            self.facts.goal = _goal(p.get("goal"))
            self.start_wall = _epoch(ev.ts)
        elif self.facts.clock == "wall":
            self.now = max(self.now, _epoch(ev.ts) - self.start_wall)
        if sim is not None and self.facts.clock == "target":
            self.now = max(self.now, sim)
        self.facts.end_s = max(self.facts.end_s, self.now)
        handler = getattr(self, "_on_" + ev.type, None)
        if handler is not None:
            handler(ev, p)

    def _mark(self, kind: str, label: str, ev: Event) -> None:
        self.facts.marks.append(Mark(kind, self.now, label, ev.seq, self.step))

    def _on_action_started(self, ev: Event, p: dict[str, Any]) -> None:
        self.started[str(p.get("key", ev.seq))] = (ev, p)

    def _on_action_result(self, ev: Event, p: dict[str, Any]) -> None:
        began = self.started.pop(str(p.get("key", ev.seq)), None)
        action = _dict(began[1].get("action")) if began else {"tool": p.get("tool"), "args": {}}
        tool = str(action.get("tool") or p.get("tool") or "?")
        args = _dict(action.get("args"))
        data = _dict(p.get("data"))
        note = "outcome unknown (connection lost)" if p.get("outcome_unknown") else ""
        if tool == "run_command":
            command = str(args.get("command", ""))
            if args.get("outside_sandbox"):
                note = ", ".join(x for x in ("outside the sandbox, as root", note) if x)
            elif data.get("sandboxed"):
                note = ", ".join(x for x in ("in the sandbox", note) if x)
        elif tool == "launch_server":
            command = launch_line(p, action)
        else:
            command = render_action(action)
        row = CommandRow(
            seq=began[0].seq if began else ev.seq,
            step=self.step,
            at_s=self.now,
            tool=tool,
            command=command,
            shell=tool in SHELL_TOOLS,
            ok=p.get("ok") if isinstance(p.get("ok"), bool) else None,
            exit_code=data.get("exit_code") if isinstance(data.get("exit_code"), int) else None,
            note=note,
        )
        self.facts.commands.append(row)
        if tool == "run_benchmark":
            self._bench(ev, data)

    def _bench(self, ev: Event, data: dict[str, Any]) -> None:
        for level in data.get("levels") or []:
            if not isinstance(level, dict):
                continue
            self.facts.benchmarks.append(
                BenchRow(
                    seq=ev.seq,
                    step=self.step,
                    at_s=self.now,
                    attempt=self.current_attempt,
                    concurrency=level.get("concurrency"),
                    output_tps=_num(level.get("output_throughput")),
                    total_tps=_num(level.get("total_throughput")),
                    request_tps=_num(level.get("request_throughput")),
                    ttft_ms=_num(level.get("mean_ttft_ms")),
                    tpot_ms=_num(level.get("mean_tpot_ms")),
                    completed=level.get("completed"),
                    failed=level.get("failed"),
                )
            )

    def _on_observation(self, ev: Event, p: dict[str, Any]) -> None:
        data = _dict(p.get("data"))
        args = _dict(p.get("args"))
        if p.get("tool") == "launch_server":
            name = str(data.get("name") or args.get("name") or "server")
            self._mark("launch", f"launch {name}" + ("" if p.get("ok") else " (refused)"), ev)
            if not p.get("ok"):  # a refused launch is a launch that failed at once: both dots
                self._mark("failed", f"launch {name} refused: {p.get('error_kind') or 'error'}", ev)
        elif p.get("tool") == "wait_server" and "ready" in data:
            name = str(args.get("name") or "server")
            if data.get("ready"):
                self._mark("ready", f"{name} ready", ev)
            else:
                self._mark("failed", f"{name} not ready: {data.get('cause') or data.get('phase') or 'failed'}", ev)

    def _on_attempt(self, ev: Event, p: dict[str, Any]) -> None:
        aid = str(p.get("id") or "?")
        self.current_attempt = aid
        step = p.get("step")
        self.attempts[aid] = AttemptRow(
            id=aid,
            step=step if isinstance(step, int) else None,
            change=str(p.get("change") or ""),
            outcome=str(p.get("outcome") or ""),
            failure_class=p.get("failure_class") if isinstance(p.get("failure_class"), str) else None,
            aggregate_tps=_num(p.get("aggregate_tps")),
            single_stream_tps=_num(p.get("single_stream_tps")),
            ttft_ms=_num(p.get("ttft_ms")),
        )

    def _on_question(self, ev: Event, p: dict[str, Any]) -> None:
        self._mark("question", f"{p.get('trigger', '?')}: {p.get('question', '')}", ev)

    def _on_reply(self, ev: Event, p: dict[str, Any]) -> None:
        self._mark("reply", f"{p.get('kind', '?')} by {p.get('who', '?')}", ev)


def gather(path: Path) -> AuditFacts:
    events = [_resolved(Path(path), e) for e in read_events(Path(path))]
    g = _Gather()
    has_sim = any(e.type == "observation" and _num(e.payload.get("sim_time")) is not None for e in events)
    g.facts.clock = "target" if has_sim else "wall"
    for ev in events:
        g.feed(ev)
    g.facts.attempts = list(g.attempts.values())  # in the order attempts were first made
    return g.facts


def _resolved(path: Path, ev: Event) -> Event:
    """Large strings (a long command, a launch's output) are in blobs: read them back; a missing
    blob leaves its reference, which the integrity verdict already reports."""
    if not ev.blobs:
        return ev
    try:
        payload = resolved_payload(path, ev)
    except (OSError, ValueError):
        return ev
    return replace(ev, payload=payload)
