"""Workers: processes that drive the runs nobody drives (`opsagent worker`, and `serve`'s thread).

A worker looks at the store every `poll_s` seconds for runs that need a driver:

- queued runs (`opsagent run --queue`, or a run started from the web page): it starts them;
- running runs whose driver died (their lease lapsed, or its process on this machine is gone):
  it resumes them from their checkpoint under the action journal's rules, as `opsagent resume`
  does (agent.loop.runner.resume_run): a finished action is not run again, a read-only one cut short
  is, and one whose outcome is unknown becomes a question to the operator, never a rerun;
- waiting runs whose question was answered from any process (`opsagent reply`, the web page),
  or expired: it resumes them with that reply.

It claims a run's lease before it touches it (agent.store.lease), so of several workers on one
database exactly one drives a run. At a question nobody answered yet it does not wait: the run
is left waiting in the inbox, the lease is released, and the reply brings it back.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console

from agent.hearing.approvers import Approver, reply_from_elsewhere
from agent.state import Question, Reply
from agent.store import lease
from agent.store.open import open_store
from agent.store.records import process_alive
from agent.store.sqlite import Store

Say = Callable[[str], None]


class _TakeReplies:
    """A worker's approver: a reply posted from anywhere, a deny once the question expired, else
    nothing (the run waits in the inbox; the reply brings it back to a worker)."""

    name = "worker"

    def __init__(self, store: Store, run_id: str) -> None:
        self.store, self.run_id = store, run_id

    def answer(self, question: Question) -> Reply | None:
        return reply_from_elsewhere(self.store, self.run_id, question, time.time())


class Worker:
    def __init__(self, store: Store, owner: str, say: Say, max_runs: int = 4) -> None:
        self.store, self.owner, self.say, self.max_runs = store, owner, say, max_runs
        self.driving: dict[str, threading.Thread] = {}
        self.parked: dict[str, str] = {}  # run -> the question it was left waiting on
        self.broken: set[str] = set()  # runs this worker could not resume: not tried again

    def tick(self) -> None:
        for run_id, thread in list(self.driving.items()):
            if not thread.is_alive():
                del self.driving[run_id]
        for run_id, status in self.runs_to_take():
            if len(self.driving) >= self.max_runs:
                return
            if not lease.claim(self.store, run_id, self.owner):
                continue  # another worker was quicker
            thread = threading.Thread(target=self._drive, args=(run_id, status), name=f"run-{run_id}", daemon=True)
            self.driving[run_id] = thread
            thread.start()

    def runs_to_take(self) -> list[tuple[str, str]]:
        now = time.time()
        wanted = []
        for run_id, status, pid, holder in self.store.driver_candidates():
            if run_id in self.driving or run_id in self.broken:
                continue
            if holder is not None and not lease.holder_is_dead(holder):
                continue
            if holder is None and status == "running" and self.store.pids_are_local and pid and process_alive(pid):
                continue  # a driver from before leases, still alive
            if status == "waiting" and not self._answered(run_id, now):
                continue
            wanted.append((run_id, status))
        return wanted

    def _answered(self, run_id: str, now: float) -> bool:
        """A waiting run has something to go on: its question was answered (or expired)."""
        question = self.store.current_question(run_id)
        if question is not None:
            return question.expires_at is not None and now > question.expires_at
        parked_on = self.parked.get(run_id)
        return parked_on is None or self.store.take_reply(run_id, parked_on) is not None

    def _drive(self, run_id: str, status: str) -> None:
        # The lease was claimed in tick(): renewed from now on, not only once the run's drive
        # begins (opening the target and the policy can outlast a short lease on a busy machine).
        with lease.Heartbeat(self.store, run_id, self.owner):
            self._drive_held(run_id, status)

    def _drive_held(self, run_id: str, status: str) -> None:
        from agent.loop.runner import resume_run, start_run

        def approver(rid: str) -> Approver:
            return _TakeReplies(self.store, rid)

        try:
            if status == "queued":
                self.say(f"starting queued run {run_id}")
                spec = self.store.get_run(run_id).spec
                outcome = start_run(spec, self.store, approver, lease_owner=self.owner, queued=True)
            else:
                why = "answered" if status == "waiting" else "its driver is gone"
                self.say(f"resuming run {run_id} ({why})")
                outcome = resume_run(run_id, self.store, approver, lease_owner=self.owner)
        except Exception as exc:
            self.say(f"run {run_id}: {type(exc).__name__}: {exc}")
            if lease.live_holder(self.store, run_id) not in (None, self.owner):
                return  # another process drives it now: it is theirs, not broken
            self.broken.add(run_id)
            if status == "queued":
                self.store.set_run_status(run_id, "failed", None)  # nothing ran: say so instead of retrying
            return
        close = getattr(outcome.writer, "close", None)
        if callable(close):
            close()  # the next drive of this run, in this process, opens the transcript again
        if outcome.question is not None:
            self.parked[run_id] = outcome.question.id
            self.say(f"run {run_id} waits: {outcome.question.question}")
        else:
            self.parked.pop(run_id, None)
            self.say(f"run {run_id} {outcome.status}")

    def wait(self) -> None:
        for thread in list(self.driving.values()):
            thread.join()


def run_worker(
    state: str | None,
    *,
    stop: threading.Event,
    poll_s: float = 1.0,
    worker_id: str | None = None,
    say: Say | None = None,
    max_runs: int = 4,
) -> None:
    """Drive runs that need a driver until `stop` is set; then finish the drives under way (each
    ends at its next question or its end)."""
    store = open_store(state)
    worker = Worker(store, worker_id or lease.new_owner(), say or (lambda _line: None), max_runs)
    while not stop.is_set():
        try:
            worker.tick()
        except Exception as exc:  # the database away for a moment: the next look tries again
            worker.say(f"could not look for runs: {type(exc).__name__}: {exc}")
        stop.wait(poll_s)
    worker.wait()


def serve_forever(state: str | None, *, poll_s: float, console: Console) -> None:
    """`opsagent worker`: until SIGINT or SIGTERM."""
    stop = threading.Event()

    def on_signal(_sig: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    owner = lease.new_owner()
    open_store(state)  # a bad --state is said at once, in one line
    console.print(f"worker {owner} (pid {os.getpid()}): driving runs that need a driver; Ctrl-C stops", soft_wrap=True)

    def say(line: str) -> None:
        console.print(f"{time.strftime('%H:%M:%S')} {line}", soft_wrap=True, markup=False, highlight=False)

    run_worker(state, stop=stop, poll_s=poll_s, worker_id=owner, say=say)
