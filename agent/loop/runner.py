"""Start, drive and resume runs: the graph, its checkpoint, the transcript, the approver and the lease.

`drive()` runs the graph until it ends or interrupts; at an interrupt it asks the approver and
resumes with `Command(resume=reply)`. An approver that cannot answer now leaves the question in
the inbox and the run waits; `resume_run()` in any later process continues from the checkpoint.
Whoever drives a run holds its lease (agent.store.lease) from before the first write to the end.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph.types import Command
from rich.console import Console

from agent.config import LoopConfig
from agent.deciders.base import Decider
from agent.hearing import heed
from agent.hearing.approvers import Approver
from agent.loop.graph import Runtime, build_graph
from agent.loop.interrupt import RunInterrupted, interrupted_line
from agent.loop.progress import ProgressEcho, StepWatch
from agent.loop.targets import open_target, sandbox_spec, sandbox_status
from agent.notify import webhooks as notify
from agent.policy.policyset import PolicySet, load_policy_set
from agent.state import AgentState, Goal, Metrics, Question, Reply
from agent.store import at_rest, lease
from agent.store.checkpoint_serde import ScrubbingSerializer
from agent.store.records import RunSpec
from agent.store.sqlite import Store
from agent.transcript.writer import TranscriptWriter
from tools.catalog import default_registry
from tools.target import Target

_STATE_TYPES = [
    ("agent.state", name)
    for name in (
        "Goal",
        "Action",
        "Alternative",
        "ModelUsage",
        "Decision",
        "Verdict",
        "Observation",
        "Attempt",
        "Question",
        "Reply",
        "Metrics",
        "OperatorRules",
        "Exclusion",
        "QuestionOption",
    )
] + [("agent.verdict", "Verdict"), ("tools.target", "DetachedProcess")]  # agent.state re-exports Verdict

ApproverFactory = Callable[[str], Approver]


class RunError(Exception):
    """A run cannot be started or resumed; the message says why and what to do."""


@dataclass
class RunOutcome:
    run_id: str
    status: str
    transcript: Path
    state: AgentState
    question: Question | None = None
    writer: Any = None  # the transcript writer: a process driving many runs closes it (its flock)

    @property
    def goal_met(self) -> bool:
        return bool(self.state.get("goal_met"))


def new_run_id() -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


def checkpointer(store: Store) -> Any:
    """LangGraph's checkpointer on the store's database (SQLite or Postgres), scrubbing secrets."""
    return store.checkpoint_saver(ScrubbingSerializer(at_rest.scrubber(), allowed_msgpack_modules=_STATE_TYPES))


def make_decider(spec: RunSpec) -> Decider:
    if spec.decider == "runbook":
        from agent.deciders.runbook import RunbookDecider

        return RunbookDecider()
    if spec.decider == "llm":
        from agent.deciders.llm import LLMDecider

        return LLMDecider.from_settings(model=spec.model)
    if spec.decider == "replay":
        from agent.deciders.replay import ReplayDecider

        if not spec.replay_from:
            raise RunError("the replay decider needs a transcript to read decisions from")
        return ReplayDecider.from_transcript(Path(spec.replay_from))
    raise RunError(f"unknown decider {spec.decider!r}; use runbook or llm")


def _reader(spec: RunSpec, config: LoopConfig) -> heed.Reader | None:
    """With `loop.hear_with_model` and a model configured, the model reads what the grammar missed."""
    if not config.hear_with_model:
        return None
    from agent.hearing.model_reading import ModelReader
    from agent.llm_config import LLMConfigError, load_llm_settings

    try:
        return ModelReader(load_llm_settings(model=spec.model))
    except LLMConfigError:
        return None  # no model configured: the grammar alone reads


def initial_state(spec: RunSpec, target: Target, policy: PolicySet, config: LoopConfig) -> AgentState:
    return {
        "run_id": spec.run_id,
        "started_at": target.now(),
        "goal": Goal.model_validate(spec.goal),
        "target": target.describe(),
        "policy_version": policy.version,
        "step": 0,
        "status": "running",
        "processes": {},
        "proposal": None,
        "verdict": None,
        "pending": None,
        "approved_digest": None,
        "step_limit": config.max_steps,
        "launch_limit": config.max_launches,
        "autonomy_steps": 0,
        "autonomy_milestone": None,
        "metrics": Metrics(),
        "escalations": 0,
        "final_report": None,
        "goal_met": False,
        "last_observation": None,
        "consecutive_denials": 0,
        "sandbox": sandbox_line(target),
    }


@dataclass
class Session:
    """One process's hold on a run: runtime plus compiled graph."""

    runtime: Runtime
    app: Any
    config: dict[str, Any]
    lease_lost: threading.Event | None = None  # set when another process took the run over

    def snapshot(self) -> Any:
        return self.app.get_state(self.config)

    def pending_question(self) -> Question | None:
        snap = self.snapshot()
        for task in snap.tasks:
            for item in task.interrupts:
                return Question.model_validate(item.value)
        return None


def open_session(
    spec: RunSpec,
    store: Store,
    *,
    writer: TranscriptWriter | ProgressEcho,
    target: Target,
    policy: PolicySet,
    decider: Decider | None = None,
    config: LoopConfig | None = None,
    echo: Console | None = None,
) -> Session:
    config = config or LoopConfig.model_validate(spec.loop)
    runtime = Runtime(
        run_id=spec.run_id,
        target=target,
        decider=decider or make_decider(spec),
        policy=policy,
        registry=default_registry(),
        transcript=writer,
        store=store,
        config=config,
        started_at=target.now(),
        watcher=StepWatch(echo) if echo is not None else None,
        save_target=lambda: _save_target(target, store, spec.run_id),
        reader=_reader(spec, config),
    )
    app = build_graph(runtime).compile(checkpointer=checkpointer(store))
    return Session(runtime, app, {"configurable": {"thread_id": spec.run_id}, "recursion_limit": 100_000})


def start_run(
    spec: RunSpec,
    store: Store,
    approver_for: ApproverFactory,
    *,
    decider: Decider | None = None,
    target: Target | None = None,
    config: LoopConfig | None = None,
    on_started: Callable[[RunSpec], None] | None = None,
    echo: Console | None = None,
    policy: PolicySet | None = None,
    lease_owner: str | None = None,
    queued: bool = False,
) -> RunOutcome:
    """Start the run of `spec` (`queued`: its row exists already, waiting for a worker)."""
    # Everything that can be wrong with the input is checked before anything runs or is written.
    # (`policy`: the caller loaded spec.policies already, e.g. the eval's once-per-process cache.)
    policy = policy or load_policy_set(store.run_policies(spec))
    target = _with_sandbox(target, spec, policy)
    decider = decider or make_decider(spec)
    config = config or LoopConfig.model_validate(spec.loop)
    owner = lease_owner or lease.new_owner()
    if not lease.claim(store, spec.run_id, owner):
        raise RunError(f"run {spec.run_id} is already driven by {store.lease_holder(spec.run_id)}")
    with lease.Heartbeat(store, spec.run_id, owner) as beat:
        try:
            return _start(spec, store, approver_for, decider, target, config, on_started, echo, policy, queued, beat)
        except KeyboardInterrupt:
            raise _interrupted(store, spec) from None


def _start(
    spec: RunSpec,
    store: Store,
    approver_for: ApproverFactory,
    decider: Decider,
    target: Target,
    config: LoopConfig,
    on_started: Callable[[RunSpec], None] | None,
    echo: Console | None,
    policy: PolicySet,
    queued: bool,
    beat: lease.Heartbeat,
) -> RunOutcome:
    transcript_path = Path(spec.transcript)
    writer: TranscriptWriter | ProgressEcho = TranscriptWriter.create(
        transcript_path.parent, spec.run_id, at_rest.scrubber(), record=store.transcript_record()
    )
    if echo is not None:
        writer = ProgressEcho(writer, echo)
    if queued:
        store.set_run_status(spec.run_id, "running", os.getpid())
    else:
        store.keep_policies(spec)  # a team's database: a driver on another machine loads these bytes
        store.add_run(spec)  # before the first event: a run whose transcript has begun can be resumed
    writer.emit(
        "run_started",
        {
            "run_id": spec.run_id,
            "goal": spec.goal,
            "target": target.describe(),
            "policies": [{"path": p, "sha256": h} for p, h in policy.files],
            "policy_version": policy.version,
            "decider": decider.name,
            "model": spec.model,
            "config": config.model_dump(mode="json"),
            "seed": spec.seed,
            "sandbox": sandbox_line(target),
        },
    )
    host_key_event = getattr(target, "host_key_event", None)
    if host_key_event:
        writer.emit(
            "observation",
            {"tool": "ssh_host_key", "summary": "new host key accepted", "data": host_key_event},
        )
    if on_started is not None:
        on_started(spec)
    session = open_session(
        spec, store, writer=writer, target=target, policy=policy, decider=decider, config=config, echo=echo
    )
    session.lease_lost = beat.lost
    return drive(session, store, approver_for(spec.run_id), initial_state(spec, target, policy, config))


def drive(session: Session, store: Store, approver: Approver, first_input: Any) -> RunOutcome:
    rt = session.runtime
    payload = first_input
    store.set_run_status(rt.run_id, "running", os.getpid())
    try:
        while True:
            # "sync": each step's checkpoint is on disk before the next step runs. LangGraph's default
            # ("async") writes it in the background, so a kill could lose several steps: the resumed
            # run then re-did them from an older state while the lab host (saved after each action)
            # was already later, re-recording old observations after newer ones.
            session.app.invoke(payload, session.config, durability="sync")
            if session.lease_lost is not None and session.lease_lost.is_set():
                raise RunError(f"run {rt.run_id} was taken over by another process; this one stops driving it")
            question = session.pending_question()
            if question is None:
                break
            reply = _answer(store, rt.run_id, question, approver, rt.transcript)
            if reply is None:
                store.set_run_status(rt.run_id, "waiting", None)
                return _outcome(session, "waiting", question)
            payload = Command(resume=reply.model_dump(mode="json"))
    except BaseException:
        if session.lease_lost is None or not session.lease_lost.is_set():  # else its new driver says
            store.set_run_status(rt.run_id, "failed", None)
        raise
    finally:
        _save_target(rt.target, store, rt.run_id)
    state: AgentState = session.snapshot().values
    status = str(state.get("status") or "finished")
    store.set_run_status(rt.run_id, status, None)
    return _outcome(session, status, None)


def _answer(
    store: Store, run_id: str, question: Question, approver: Approver, sink: object | None = None
) -> Reply | None:
    """A reply already posted from another shell wins; otherwise ask the approver."""
    posted = store.take_reply(run_id, question.id)
    if posted is not None:
        return posted
    if store.question_status(run_id, question.id) is None:
        store.post_question(run_id, question)
    notify.question_waiting(run_id, question, approver, sink)  # webhooks, in the background
    reply = approver.answer(question)
    if reply is None:
        return None
    if not store.post_reply(run_id, reply):
        return store.take_reply(run_id, question.id) or reply
    return reply


def _outcome(session: Session, status: str, question: Question | None) -> RunOutcome:
    state: AgentState = session.snapshot().values
    writer = session.runtime.transcript
    path = Path(getattr(writer, "path", ""))
    return RunOutcome(session.runtime.run_id, status, path, state, question, writer)


def _save_target(target: Target, store: Store, run_id: str) -> None:
    """The lab lives in memory: keep its state so another process, on any machine, can resume the run."""
    state = getattr(target, "state_bytes", None)
    if callable(state):
        store.save_target_state(run_id, state())


def resume_run(
    run_id: str,
    store: Store,
    approver_for: ApproverFactory,
    *,
    decider: Decider | None = None,
    target: Target | None = None,
    echo: Console | None = None,
    lease_owner: str | None = None,
) -> RunOutcome:
    record = store.get_run(run_id)
    if record.status in ("finished", "stopped"):
        raise RunError(f"run {run_id} has already {record.status}; see its transcript {record.spec.transcript}")
    owner = lease_owner or lease.new_owner()
    if not lease.claim(store, run_id, owner):
        holder = store.lease_holder(run_id)
        raise RunError(
            f"run {run_id} is still being driven by {_driver_words(holder)}; "
            f"answer it with 'opsagent reply {run_id} ...'"
        )
    with lease.Heartbeat(store, run_id, owner) as beat:
        try:
            return _resume(record.spec, store, approver_for, decider, target, echo, beat)
        except KeyboardInterrupt:
            raise _interrupted(store, record.spec) from None


def _interrupted(store: Store, spec: RunSpec) -> RunInterrupted:
    """Ctrl-C: the run's status and the one line to print (agent/loop/interrupt.py)."""
    tup = checkpointer(store).get_tuple({"configurable": {"thread_id": spec.run_id}})
    values = dict(tup.checkpoint.get("channel_values", {})) if tup is not None else {}
    return RunInterrupted(interrupted_line(store, spec, values))


def _driver_words(holder: str | None) -> str:
    pid = lease.holder_pid(holder or "")
    return f"process {pid}" if pid is not None else f"{holder} (on another machine)"


def _resume(
    spec: RunSpec,
    store: Store,
    approver_for: ApproverFactory,
    decider: Decider | None,
    target: Target | None,
    echo: Console | None,
    beat: lease.Heartbeat,
) -> RunOutcome:
    run_id = spec.run_id
    policy = load_policy_set(store.run_policies(spec))
    recorded = _recorded_policy_version(store, spec)  # "" when killed before its first checkpoint
    if recorded and policy.version != recorded:
        raise RunError(
            f"the policy files of run {run_id} changed since it started; approvals are bound to the policy version"
        )
    target = _with_sandbox(target, spec, policy)
    restore = getattr(type(target), "from_state", None)
    saved = store.target_state(run_id) if callable(restore) else None
    if callable(restore) and saved is not None:
        target = restore(saved)  # the lab lives in memory: continue from the host it left (and its sandbox)
    writer: TranscriptWriter | ProgressEcho = TranscriptWriter.open_append(
        store.writable_transcript(spec), at_rest.scrubber(), record=store.transcript_record()
    )
    if echo is not None:
        writer = ProgressEcho(writer, echo)
    session = open_session(spec, store, writer=writer, target=target, policy=policy, decider=decider, echo=echo)
    session.lease_lost = beat.lost
    snap = session.snapshot()
    if snap.values and not snap.tasks:
        # the graph reached its end but the process died before the runs table said so. (`snap.next`
        # is empty also when the last node finished and its writes wait in the checkpoint: that run
        # is not over, and invoking it again applies them and goes on.)
        status = str(snap.values.get("status") or "finished")
        status = status if status in ("finished", "stopped") else "finished"
        store.set_run_status(run_id, status, None)
        return _outcome(session, status, None)
    writer.emit("run_resumed", {"run_id": run_id, "pid": os.getpid()})
    if not snap.values:
        # killed before the first checkpoint: nothing ran yet, so the run starts from its beginning
        config = LoopConfig.model_validate(spec.loop)
        return drive(session, store, approver_for(run_id), initial_state(spec, target, policy, config))
    # time on the run's own clock: what it spent before the crash counts (the lab's clock is restored too)
    session.runtime.started_at = float(snap.values.get("started_at", session.runtime.started_at))
    question = session.pending_question()
    if question is None:
        return drive(session, store, approver_for(run_id), None)
    reply = _answer(store, run_id, question, approver_for(run_id), writer)
    if reply is None:
        store.set_run_status(run_id, "waiting", None)
        return _outcome(session, "waiting", question)
    return drive(session, store, approver_for(run_id), Command(resume=reply.model_dump(mode="json")))


def _with_sandbox(target: Target | None, spec: RunSpec, policy: PolicySet) -> Target:
    """Open the run's target inside the policy's sandbox (a given lab target models it)."""
    box = sandbox_spec(policy, spec.target)
    if target is None:
        return open_target(
            spec.target,
            identity=Path(spec.identity) if spec.identity else None,
            accept_new_host_key=spec.accept_new_host_key,
            seed=spec.seed,
            sandbox=box,
        )
    model = getattr(target, "model_sandbox", None)
    if callable(model) and getattr(target, "sandbox", None) is None:
        model(box)
    return target


def sandbox_line(target: Target) -> str:
    """The sandbox as every report and the transcript state it."""
    status = sandbox_status(target)
    if status is None:
        return "none (this target runs no commands on a host)"
    return status.line()


def _recorded_policy_version(store: Store, spec: RunSpec) -> str:
    saver = checkpointer(store)
    tup = saver.get_tuple({"configurable": {"thread_id": spec.run_id}})
    if tup is None:
        return ""
    values = tup.checkpoint.get("channel_values", {})
    return str(values.get("policy_version", ""))
