"""Ctrl-C while a run is driven: one line that says what was interrupted, what is still running and
where, and how to go on; the run's status says so too (`interrupted`, or `waiting` when a question
was open), so `inbox` and the web show it as interrupted, not as crashed.

Nothing is stopped on the host: a server the agent started keeps serving, and a command that was
running when the key was pressed may still be running there. The line says exactly that, and the
resume asks about that command before anything else runs (its journal entry never finished).
"""

from __future__ import annotations

import re
from typing import Any

from agent.hearing.hints import reply_hint
from agent.store.records import RunSpec
from agent.store.sqlite import Store
from agent.transcript.reader import read_events

INTERRUPTED = "interrupted"
_PORT = re.compile(r"--port[= ](\d+)")


class RunInterrupted(Exception):
    """The operator pressed Ctrl-C; the message is the one line to print."""


def _in_flight(store: Store, spec: RunSpec) -> str | None:
    """The action whose journal entry started and never finished, as the transcript shows it."""
    open_steps = [step for _key, step, status in store.journal_entries(spec.run_id) if status != "finished"]
    if not open_steps:
        return None
    step = open_steps[-1]
    try:
        events = list(read_events(spec.transcript))
    except (OSError, ValueError):
        events = []
    for e in reversed(events):
        if e.type == "action_started" and e.payload.get("step") == step:
            action = e.payload.get("action") or {}
            args = ", ".join(f"{k}={v}" for k, v in (action.get("args") or {}).items())
            return f"step {step}, {action.get('tool', '?')}({args})"
    return f"step {step}"


def _processes(values: dict[str, Any]) -> list[str]:
    out = []
    for name, proc in sorted((values.get("processes") or {}).items()):
        get = proc.get if isinstance(proc, dict) else lambda k, p=proc: getattr(p, k, None)
        port = _PORT.search(str(get("command") or ""))
        out.append(f"{name} (pid {get('pid')}" + (f", port {port.group(1)})" if port else ")"))
    return out


def interrupted_line(store: Store, spec: RunSpec, values: dict[str, Any]) -> str:
    """Record the interruption in the run's status and return the line that tells the operator."""
    run_id, where = spec.run_id, spec.target
    question = store.current_question(run_id)
    running = _processes(values)
    still = f"still running on {where}: {', '.join(running)}" if running else f"nothing of mine runs on {where}"
    if question is not None:
        store.set_run_status(run_id, "waiting", None)
        return (
            f"interrupted: run {run_id} was waiting for your reply; the question stays in the inbox; {still}; "
            f"answer from any shell: {reply_hint(run_id, question)}, then: opsagent resume {run_id}"
        )
    store.set_run_status(run_id, INTERRUPTED, None)
    flight = _in_flight(store, spec)
    during = (
        f" during {flight}, which may still be running on {where} (its outcome is unknown: resuming asks you first)"
        if flight
        else f" after step {values.get('step', 0)}"
    )
    return f"interrupted: run {run_id}{during}; {still}; continue it with: opsagent resume {run_id}"
