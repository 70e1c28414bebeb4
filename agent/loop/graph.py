"""The loop, in one file: observe -> decide -> gate -> act -> observe ..., with continue-or-ask.

    observe --trigger--> continue_or_ask           (outcome unknown, stalled, budget)
    observe -----------> decide
    decide  --act------> gate --allow--> act --> observe
                          gate --ask----> continue_or_ask --approved/edited--> gate (re-checked)
                          gate --deny---> decide   (the denial is an observation for the decider)
    decide  --unsure / stuck / no step--> continue_or_ask --> decide
    continue_or_ask --reply it cannot act on--> continue_or_ask   (asked again; the report says why)
    decide  --goal met or give up-------> finish (final report, asks for sign-off) --> END

`decide` runs the decider through `agent.hearing.heed`: the operator's rules rewrite or reject every
decider's proposal the same way. `observe` asks about an unclear goal before anything runs.

Each node is a short function returning a partial state update; each router returns a Literal.
Nodes that call `interrupt()` (continue_or_ask, finish) do nothing with a side effect before it:
LangGraph re-runs an interrupted node from its top on resume. The question they ask is prepared,
recorded and posted to the inbox by the node that routes to them.
"""

from __future__ import annotations

import getpass
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import structlog
from langgraph.graph import START, StateGraph
from langgraph.types import interrupt

from agent import diagnostics  # noqa: F401  (quiet by default)
from agent.config import LoopConfig
from agent.deciders.base import Decider, DeciderError
from agent.deciders.runbook import LAUNCH_BUDGET
from agent.evidence import attempts as attempts_table
from agent.evidence.asked import question_evidence
from agent.hearing import heed
from agent.hearing.applied import rewrite
from agent.hearing.exclusions import exclude
from agent.hearing.goal import unresolved
from agent.hearing.reply_words import offered_actions
from agent.loop import restore
from agent.loop.escalation import budget_reason, decision_trigger, question_for, stall_reason
from agent.loop.report import MAX_NEXT_STEPS, build_report, render_markdown
from agent.policy.gate import GateContext
from agent.policy.model import HostFacts
from agent.policy.policyset import PolicySet
from agent.state import (
    Action,
    AgentState,
    Decision,
    Observation,
    Question,
    QuestionOption,
    Reply,
    TriggerKind,
    Verdict,
)
from agent.store.sqlite import Store
from agent.transcript.reader import read_events
from tools.registry import ToolArgumentError, ToolContext, ToolOutput, ToolRegistry
from tools.target import Target, TargetError

log = structlog.get_logger("opsagent.loop")


class EventSink(Protocol):
    @property
    def path(self) -> Path: ...  # the transcript it appends to (read back to record a reply once)

    def emit(self, type: str, payload: dict[str, Any]) -> Any: ...


class StepWatcher(Protocol):
    """Shows a long tool step while it runs (agent/loop/progress.py); yields the tool's progress callback."""

    def watch(self, what: str) -> AbstractContextManager[Callable[[str], None]]: ...


@dataclass
class Runtime:
    """What the nodes use and the checkpoint does not hold: live connections and services."""

    run_id: str
    target: Target
    decider: Decider
    policy: PolicySet
    registry: ToolRegistry
    transcript: EventSink
    store: Store
    config: LoopConfig = field(default_factory=LoopConfig)
    started_at: float = 0.0
    watcher: StepWatcher | None = None
    save_target: Callable[[], None] | None = None  # persists an in-memory target (the lab) after each action
    reader: heed.Reader | None = None  # a model that reads what the grammar missed (loop.hear_with_model)

    def elapsed(self) -> float:
        return max(self.target.now() - self.started_at, 0.0)

    def gate_context(self, state: AgentState) -> GateContext:
        goal = state.get("goal")
        # GPUs the goal names are the agent's for the policy too (a facts overlay still wins).
        facts = HostFacts(agent_gpus=list(goal.gpus)) if goal is not None and goal.gpus else None
        return GateContext(work_dir=self.target.work_dir, own_processes=dict(state.get("processes") or {}), facts=facts)

    def verdict_for(self, state: AgentState) -> Any:
        ctx = self.gate_context(state)
        return lambda action: self.policy.evaluate_action(action, ctx)


BUSY_BYPASS_TRIGGERS: frozenset[TriggerKind] = frozenset({"low_confidence", "stalled"})


# ---------------------------------------------------------------------------- helpers


def _ask(
    rt: Runtime,
    state: AgentState,
    trigger: TriggerKind,
    reason: str,
    *,
    decision: Decision | None = None,
    action: Action | None = None,
    verdict: Verdict | None = None,
    text: str | None = None,
    confirm: str | None = None,
) -> dict[str, Any]:
    """Prepare a question with its situation report, record it and post it to the inbox.

    What the report owes the operator (words not understood, answers) is said once, then cleared.
    """
    step = state.get("step", 0)
    count = state.get("escalations", 0) + 1
    text = text or question_for(trigger, decision, action)
    report = build_report(
        state,
        trigger=trigger,
        reason=reason,
        question=text,
        proposed=action,
        verdict_for=rt.verdict_for(state),
        elapsed_s=rt.elapsed(),
        decision=decision,
    )
    now = time.time()  # wall clock: operators answer in real time, also on the lab
    question = Question(
        id=f"q{count}-s{step}",
        trigger=trigger,
        reason=reason,
        question=text,
        report_markdown=render_markdown(report),
        action=action,
        digest=action.digest(rt.target.describe(), rt.policy.version) if action is not None else None,
        asked_at=now,
        expires_at=now + rt.config.question_ttl_s,
        options=_options(state, decision),
        confirm=confirm,
        evidence=question_evidence(state),  # what the operator's own questions are answered from
    )
    log.debug("asking", trigger=trigger, reason=reason)
    rt.transcript.emit("escalation", {"trigger": trigger, "reason": reason, "step": step})
    rt.transcript.emit("question", question.model_dump(mode="json", exclude={"report_markdown", "evidence"}))
    rt.transcript.emit("report", {"question_id": question.id, "markdown": question.report_markdown})
    rt.store.post_question(rt.run_id, question)
    update: dict[str, Any] = {"pending": question, "escalations": count, "status": "waiting"}
    update["operator"] = heed.said(heed.rules_of(state))
    if decision is not None:
        update["proposal"] = decision
    if verdict is not None:
        update["verdict"] = verdict
    return update


def _options(state: AgentState, decision: Decision | None) -> list[QuestionOption]:
    """The report's numbered next steps, so that a number reply picks exactly what was shown."""
    latest = decision or state.get("proposal")
    if latest is None:
        decisions = state.get("decisions") or []
        latest = decisions[-1] if decisions else None
    alternatives = latest.alternatives[:MAX_NEXT_STEPS] if latest is not None else []
    return [
        QuestionOption(number=i, description=alt.description, action=alt.action, sign_off=alt.sign_off)
        for i, alt in enumerate(alternatives, start=1)
    ]


def _autonomous(state: AgentState) -> bool:
    return state.get("autonomy_steps", 0) > 0 or bool(state.get("autonomy_milestone"))


def binding_checked(reply: Reply, question: Question) -> Reply:
    """An approval counts only for the exact action asked about, and only before it expires."""
    problem = None
    if reply.question_id != question.id:
        problem = f"the reply answers {reply.question_id}, not the pending question {question.id}"
    elif question.expires_at is not None and reply.at > question.expires_at:
        problem = "the question expired before it was answered"
    elif reply.kind == "approve" and question.digest is not None and reply.digest != question.digest:
        problem = "the approval does not match the action's digest"
    if problem is None:
        return reply
    return reply.model_copy(update={"kind": "deny", "text": f"{problem} (treated as deny)"})


# ---------------------------------------------------------------------------- nodes


def observe(state: AgentState, rt: Runtime) -> dict[str, Any]:
    """Take in what the last action produced; stop when the outcome is unknown or budgets ran out."""
    update: dict[str, Any] = {}
    obs = state.get("last_observation")
    if obs is not None:
        rt.transcript.emit("observation", obs.model_dump(mode="json"))
        table = attempts_table.update_attempts(state.get("attempts", []), obs, state["goal"])
        if table != state.get("attempts", []):
            rt.transcript.emit("attempt", table[-1].model_dump(mode="json"))
        metrics = attempts_table.best_metrics(table)
        update = {"observations": [obs], "last_observation": None, "attempts": table, "metrics": metrics}
        merged: AgentState = {**state, **update}  # type: ignore[typeddict-item]
        merged["observations"] = [*state.get("observations", []), obs]
        if obs.outcome_unknown:
            action = Action(tool=obs.tool, args=obs.args)
            return {**update, **_ask(rt, merged, "outcome_unknown", obs.summary, action=action)}
        state = merged
    goal = state.get("goal")
    asked = unresolved(goal) if goal is not None else []
    if asked and not state.get("observations") and state.get("step", 0) == 0:
        unclear = "; ".join(asked)
        text = (
            f"Before I touch anything: {unclear}. Reply approve (or continue) to accept the reading I propose, "
            "or write the goal's numbers (e.g. 'at least 1,000 tok/s aggregate at concurrency 64')."
        )
        return {**update, **_ask(rt, state, "goal_unclear", unclear, text=text)}
    reason = budget_reason(state, rt.config, rt.elapsed())
    if reason is not None:
        return {**update, **_ask(rt, state, "budget", reason)}
    return update


def decide(state: AgentState, rt: Runtime) -> dict[str, Any]:
    """Ask the decider for the next action; stop and ask when it is unsure, stuck or done."""
    before = heed.rules_of(state)
    closing = state.get("closing")
    try:
        if closing is not None:  # finishing: the decider already said so; only the relaunch is left
            decision, rules = closing, before
        else:
            decision, rules = heed.decide_heeding(state, rt.decider.decide)
    except DeciderError as exc:
        trigger: TriggerKind = "budget" if type(exc).__name__ == "BudgetExceeded" else "decider_error"
        usage = [u.model_dump(mode="json") for u in getattr(exc, "usage", [])]  # calls made before it failed
        rt.transcript.emit(
            "error", {"where": "decide", "decider": rt.decider.name, "message": str(exc), "usage": usage}
        )
        return _ask(rt, state, trigger, str(exc))
    if decision.kind == "finish":
        decision, closing = _serve_accepted(state, decision)
    log.debug("decided", kind=decision.kind, action=decision.action.render() if decision.action else None)
    rt.transcript.emit("decision", {"step": state.get("step", 0), **decision.model_dump(mode="json")})
    update: dict[str, Any] = {"decisions": [decision], "proposal": decision, "verdict": None, "operator": rules}
    update["closing"] = closing
    if before.try_approved and decision.action is not None:
        # The operator's edited command, approved by the edit itself (the gate still judges it).
        digest = decision.action.digest(rt.target.describe(), rt.policy.version)
        update["approved_digest"] = digest if digest == before.try_approved else None
        update["operator"] = rules.model_copy(update={"try_approved": None})
    state = {**state, "operator": update["operator"]}  # type: ignore[typeddict-item]
    if decision.kind == "finish":
        trigger = "goal_met" if decision.goal_met else "gave_up"
        return {**update, **_ask(rt, state, trigger, decision.rationale, decision=decision)}
    found = decision_trigger(decision, rt.config, _autonomous(state))
    if found is None and not _autonomous(state):
        stalled = stall_reason(state, decision, rt.config)
        if stalled is not None:
            found = ("stalled", stalled)
    if found is not None:
        return {**update, **_ask(rt, state, found[0], found[1], decision=decision, action=decision.action)}
    return update


def _serve_accepted(state: AgentState, finish: Decision) -> tuple[Decision, Decision | None]:
    """Before a finish, the accepted (best measured) configuration is made the one that serves:
    the finish is held while the loop stops the last one tried and relaunches it."""
    rules = heed.rules_of(state)

    def heeding(action: Action) -> Action | None:
        rewritten, excluded, _ = rewrite(state, rules, action)
        return None if excluded else rewritten

    step = restore.next_action(state, heeding)
    if step is None:
        return finish, None
    best = restore.accepted(state)
    why = f"before finishing: serve {best.id if best else 'the best'}, the best measured configuration"
    return Decision(kind="act", action=step, rationale=why, confidence=1.0), finish


def gate(state: AgentState, rt: Runtime) -> dict[str, Any]:
    """Judge the proposed action against the policy; an approval counts once, for this digest only."""
    decision = state["proposal"]
    assert decision is not None and decision.action is not None
    action = decision.action
    verdict = rt.policy.evaluate_action(action, rt.gate_context(state))
    digest = action.digest(rt.target.describe(), rt.policy.version)
    approved = verdict.decision == "ask" and state.get("approved_digest") == digest
    if approved:
        verdict = verdict.model_copy(update={"decision": "allow", "reason": f"approved by operator: {verdict.reason}"})
    log.debug("gate", verdict=verdict.decision, rules=verdict.rules, action=action.render())
    rt.transcript.emit("verdict", {"action": action.model_dump(mode="json"), **verdict.model_dump(mode="json")})
    update: dict[str, Any] = {"verdict": verdict, "approved_digest": None}
    if verdict.decision == "allow":
        return {**update, "consecutive_denials": 0}
    if verdict.decision == "ask":
        return {
            **update,
            **_ask(rt, state, "policy_ask", verdict.reason, decision=decision, action=action, verdict=verdict),
        }
    denials = state.get("consecutive_denials", 0) + 1
    note = f"denied by policy ({', '.join(verdict.rules) or 'default'}): {action.render()} - {verdict.reason}"
    observation = Observation(
        step=state.get("step", 0),
        tool=action.tool,
        args=action.args,
        ok=False,
        summary=note,
        error_kind="policy_denied",
    )
    rules = exclude(heed.rules_of(state), action, "policy", verdict.reason, list(verdict.rules))
    update.update(
        {
            "denials": [note],
            "observations": [observation],
            "consecutive_denials": denials,
            "proposal": None,
            "operator": rules,
        }
    )
    if denials >= rt.config.denial_limit:
        merged: AgentState = {**state, **update}  # type: ignore[typeddict-item]
        reason = f"{denials} proposals in a row were denied by the policy; the last: {note}"
        return {**update, **_ask(rt, merged, "stalled", reason)}
    return update


def continue_or_ask(state: AgentState, rt: Runtime) -> dict[str, Any]:
    """Wait for the operator's reply to the pending question, then apply it."""
    question = state["pending"]
    assert question is not None
    reply = binding_checked(Reply.model_validate(interrupt(question.model_dump(mode="json"))), question)
    _record_reply(rt, reply)
    update: dict[str, Any] = {"replies": [reply], "pending": None, "status": "running"}
    proposal = state.get("proposal")
    if reply.kind == "stop":
        return {**update, "status": "stopped"}
    if reply.kind == "approve" and question.action is not None:
        proposal = Decision(kind="act", action=question.action, rationale="approved by the operator")
        return {**update, "proposal": proposal, "approved_digest": question.digest}
    if reply.kind == "edit" and reply.edited_command:
        edited = Action(tool="run_command", args={"command": reply.edited_command})
        digest = edited.digest(rt.target.describe(), rt.policy.version)
        proposal = Decision(kind="act", action=edited, rationale=f"edited by {reply.who}")
        return {**update, "proposal": proposal, "approved_digest": digest}
    offered = offered_actions(question)
    if reply.kind == "deny" and offered:
        # A deny stops what the question proposed or was about to do (the launch-budget question's
        # next launch too), and grants nothing: the runbook asks again before any launch past the budget.
        what = "; ".join(a.render() for a in offered)
        note = f"the operator denied: {what}" + (f" - {reply.text}" if reply.text else "")
        effect = heed.apply_deny(state, question, reply, rt.reader)
        if effect.reask:
            return {**update, "denials": [note], **_heard(effect), **_reask(rt, state, question, effect, denied=True)}
        return {**update, "denials": [note], "proposal": None, **_heard(effect)}
    if reply.kind in ("say", "deny", "pick"):
        if reply.kind == "pick":
            effect = heed.apply_pick(state, question, reply)
        else:
            effect = heed.apply_words(state, question, reply, rt.reader)
        if effect.goal is not None:
            update["goal"] = effect.goal
        if effect.reask:
            return {**update, **_heard(effect), **_reask(rt, state, question, effect)}
        return {**update, "proposal": None, **_heard(effect)}
    if question.trigger == "goal_unclear":
        goal = state["goal"]
        update["goal"] = goal.model_copy(update={"ambiguities": []})  # the proposed reading, accepted
    # continue: optionally with a grant of autonomy
    if proposal is not None and proposal.milestone == LAUNCH_BUDGET and reply.kind in ("continue", "approve"):
        update["launch_grants"] = int(state.get("launch_grants") or 0) + 1  # the operator's word grants launches
    if reply.steps:
        update["autonomy_steps"] = reply.steps
        if question.trigger == "budget":
            update["step_limit"] = state.get("step", 0) + reply.steps
    if reply.milestone:
        update["autonomy_milestone"] = reply.milestone
    if question.trigger == "budget" and not reply.steps:
        update["step_limit"] = state.get("step", 0) + rt.config.max_steps
    if question.trigger in BUSY_BYPASS_TRIGGERS and not reply.steps and not reply.milestone:
        update["autonomy_steps"] = rt.config.continue_grant_steps
    keep = question.trigger in ("low_confidence", "stalled") and question.action is not None
    return {**update, "proposal": proposal if keep else None}


def _record_reply(rt: Runtime, reply: Reply) -> None:
    """The reply in the transcript, once: a run killed after writing it runs this node again on
    resume and is handed the same reply, which must not read as a second answer."""
    for event in read_events(rt.transcript.path):
        p = event.payload
        if event.type == "reply" and (p.get("question_id"), p.get("who"), p.get("at"), p.get("kind")) == (
            reply.question_id,
            reply.who,
            reply.at,
            reply.kind,
        ):
            return
    rt.transcript.emit("reply", reply.model_dump(mode="json"))


def _heard(effect: heed.ReplyEffect) -> dict[str, Any]:
    """The state update for what a reply changed: the rules, and the words understood."""
    out: dict[str, Any] = {"operator": effect.rules}
    if effect.instructions:
        out["instructions"] = ["; ".join(effect.instructions)]
    return out


def _reask(
    rt: Runtime, state: AgentState, question: Question, effect: heed.ReplyEffect, *, denied: bool = False
) -> dict[str, Any]:
    """The same question again, its report saying what was not understood or cannot be done."""
    merged: AgentState = {**state, "operator": effect.rules}  # type: ignore[typeddict-item]
    if effect.goal is not None:
        merged["goal"] = effect.goal
    decision = state.get("proposal")
    if decision is not None and effect.reask_alternatives is not None:
        decision = decision.model_copy(update={"alternatives": effect.reask_alternatives})
    text = question.question
    if effect.readback:  # a partial reading asked back: the question says it first
        text = f"{effect.readback} {text.split(' Nothing of it is in force yet. ', 1)[-1]}"
    action = None if denied else question.action  # a denied action is not offered again
    return _ask(
        rt, merged, question.trigger, question.reason, decision=decision, action=action, text=text,
        confirm=effect.confirm,
    )  # fmt: skip


def act(state: AgentState, rt: Runtime) -> dict[str, Any]:
    """Run the approved action once: journaled as started before it runs and finished after."""
    decision = state["proposal"]
    assert decision is not None and decision.action is not None
    action = decision.action
    step = state.get("step", 0) + 1
    key = f"{rt.run_id}:{step}"
    prior = rt.store.journal_get(key)
    # a read-only observation cut short by a crash changed nothing: it is simply run again
    again = prior is not None and prior[0] != "finished" and _read_only(rt, action)
    if prior is None or again:
        if prior is None:
            rt.store.journal_start(key, rt.run_id, step, action.model_dump(mode="json"))
        started = {"step": step, "key": key, "action": action.model_dump(mode="json")}
        rt.transcript.emit("action_started", {**started, "rerun_after_crash": True} if again else started)
        log.debug("acting", step=step, action=action.render())
        output = _run_tool(rt, state, action)
        log.debug("acted", step=step, ok=output.ok, error_kind=output.error_kind)
        if rt.save_target is not None:
            rt.save_target()  # the host's state is on disk before the journal says the action finished
        rt.store.journal_finish(key, output.model_dump(mode="json"))
        rt.transcript.emit("action_result", {"step": step, "key": key, **output.model_dump(mode="json")})
    elif prior[0] == "finished" and prior[1] is not None:
        output = ToolOutput.model_validate(prior[1])  # finished before a crash lost the checkpoint
    else:
        output = ToolOutput(
            tool=action.tool,
            ok=False,
            summary=(
                f"the agent process stopped while this action ran (journal key {key}); "
                f"whether it took effect is unknown: {action.render()}"
            ),
            error_kind="outcome_unknown",
            outcome_unknown=True,
        )
        rt.transcript.emit("error", {"where": "act", "step": step, "message": output.summary})
    processes = dict(state.get("processes") or {})
    for proc in output.started:
        processes[proc.name] = proc
    for name in output.stopped:
        processes.pop(name, None)
    observation = Observation(
        step=step,
        tool=action.tool,
        args=action.args,
        ok=output.ok,
        summary=output.summary,
        data=output.data,
        error_kind=output.error_kind,
        outcome_unknown=output.outcome_unknown,
        sim_time=rt.elapsed(),
    )
    update: dict[str, Any] = {
        "step": step,
        "last_observation": observation,
        "processes": processes,
        "proposal": None,
        "verdict": None,
        "autonomy_steps": max(state.get("autonomy_steps", 0) - 1, 0),
    }
    if decision.milestone and decision.milestone == state.get("autonomy_milestone"):
        update["autonomy_milestone"] = None
    return update


def _read_only(rt: Runtime, action: Action) -> bool:
    return action.tool in rt.registry and rt.registry.get(action.tool).read_only


def _run_tool(rt: Runtime, state: AgentState, action: Action) -> ToolOutput:
    """Tool failures come back as data; only bugs raise."""
    try:
        tool = rt.registry.get(action.tool)
        watching = rt.watcher.watch(action.render()) if rt.watcher is not None else nullcontext(None)
        with watching as progress:
            ctx = ToolContext(target=rt.target, processes=dict(state.get("processes") or {}), progress=progress)
            return tool.invoke(ctx, action.args)
    except ToolArgumentError as exc:
        return ToolOutput(tool=action.tool, ok=False, summary=str(exc), error_kind="invalid_arguments")
    except TargetError as exc:
        return ToolOutput(tool=action.tool, ok=False, summary=f"target error: {exc}", error_kind="target_error")


def finish(state: AgentState, rt: Runtime) -> dict[str, Any]:
    """Write the final report; unless the operator stopped the run, ask for sign-off first."""
    question = state.get("pending")
    reply: Reply | None = None
    if question is not None:
        reply = Reply.model_validate(interrupt(question.model_dump(mode="json")))
        _record_reply(rt, reply)
        if reply.kind in ("say", "deny", "edit", "pick", "continue"):
            # continue is no sign-off (agent.hearing.replies refuses it; one that arrives anyway is not one)
            return _after_sign_off_refused(state, rt, question, reply)
    met = attempts_table.goal_met(state["goal"], state.get("metrics") or attempts_table.best_metrics([]))
    status = "stopped" if state.get("status") == "stopped" or (reply and reply.kind == "stop") else "finished"
    final = question.report_markdown if question is not None else ""
    rt.transcript.emit(
        "run_finished",
        {
            "status": status,
            "goal_met": met,
            "steps": state.get("step", 0),
            "escalations": state.get("escalations", 0),
            "signed_off_by": reply.who if reply is not None and reply.kind == "approve" else None,
        },
    )
    update: dict[str, Any] = {"status": status, "goal_met": met, "final_report": final, "pending": None}
    if reply is not None:
        update["replies"] = [reply]
    return update


def _after_sign_off_refused(state: AgentState, rt: Runtime, question: Question, reply: Reply) -> dict[str, Any]:
    """Words instead of a sign-off: the run goes on with them, or says why nothing changed."""
    update: dict[str, Any] = {"replies": [reply], "pending": None, "status": "running"}
    if reply.kind == "edit" and reply.edited_command:
        edited = Action(tool="run_command", args={"command": reply.edited_command})
        digest = edited.digest(rt.target.describe(), rt.policy.version)
        return {**update, **_heard(heed.apply_edit(state, reply.edited_command, digest))}
    if reply.kind == "pick":
        effect = heed.apply_pick(state, question, reply)
    elif reply.text:
        effect = heed.apply_words(state, question, reply, rt.reader)
        if effect.reask and effect.confirm:  # read in part: asked back at the same final question
            return {**update, **_heard(effect), **_reask(rt, state, question, effect)}
    else:
        rules = heed.rules_of(state)
        note = f"you did not sign off: {heed.NO_STEP_AFTER_REFUSAL}"
        effect = heed.ReplyEffect(rules=rules.model_copy(update={"answers": [*rules.answers, note]}))
    return {**update, **_heard(effect)}


# ---------------------------------------------------------------------------- routers


def after_observe(state: AgentState) -> Literal["decide", "continue_or_ask"]:
    return "continue_or_ask" if state.get("pending") is not None else "decide"


def after_decide(state: AgentState) -> Literal["gate", "continue_or_ask", "finish"]:
    pending = state.get("pending")
    if pending is not None:
        return "finish" if pending.trigger in ("goal_met", "gave_up") else "continue_or_ask"
    return "gate"


def after_gate(state: AgentState) -> Literal["act", "continue_or_ask", "decide"]:
    if state.get("pending") is not None:
        return "continue_or_ask"
    verdict = state.get("verdict")
    return "act" if verdict is not None and verdict.decision == "allow" else "decide"


def after_ask(state: AgentState) -> Literal["gate", "decide", "finish", "continue_or_ask"]:
    if state.get("status") == "stopped":
        return "finish"
    if state.get("pending") is not None:
        return "continue_or_ask"  # asked again: the reply could not be acted on, and the report says why
    proposal = state.get("proposal")
    return "gate" if proposal is not None and proposal.action is not None else "decide"


def after_finish(state: AgentState) -> Literal["decide", "finish", "__end__"]:
    if state.get("status") == "waiting" and state.get("pending") is not None:
        return "finish"  # the final question asked again (a reading asked back)
    return "decide" if state.get("status") == "running" else "__end__"


def build_graph(rt: Runtime) -> StateGraph[AgentState]:
    graph: StateGraph[AgentState] = StateGraph(AgentState)
    graph.add_node("observe", lambda s: observe(s, rt))
    graph.add_node("decide", lambda s: decide(s, rt))
    graph.add_node("gate", lambda s: gate(s, rt))
    graph.add_node("continue_or_ask", lambda s: continue_or_ask(s, rt))
    graph.add_node("act", lambda s: act(s, rt))
    graph.add_node("finish", lambda s: finish(s, rt))
    graph.add_edge(START, "observe")
    graph.add_conditional_edges("observe", after_observe)
    graph.add_conditional_edges("decide", after_decide)
    graph.add_conditional_edges("gate", after_gate)
    graph.add_conditional_edges("continue_or_ask", after_ask)
    graph.add_edge("act", "observe")
    graph.add_conditional_edges("finish", after_finish)
    return graph


def operator_name(override: str | None = None) -> str:
    if override:
        return override
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "operator"
