"""When to stop and ask: the triggers of continue-or-ask, each with its reason.

The functions here are pure: they read the state and say whether (and why) the run should stop.
The graph's nodes turn a trigger into a `Question` carrying the situation report.
"""

from __future__ import annotations

from agent.config import LoopConfig
from agent.hearing import hints
from agent.state import Action, AgentState, Attempt, Decision, TriggerKind
from tools.sglang.failures import CLIENT_SIDE

REPLY_FORMS = "approve | deny [reason] | edit <command> | continue [--steps N] | <instruction> | stop"


def stall_reason(state: AgentState, decision: Decision, config: LoopConfig) -> str | None:
    """Progress has stalled: the same failing action again, the same failure N times, no gain."""
    observations = state.get("observations", [])
    if decision.action is not None and observations:
        last = observations[-1]  # a repeat right after a failure, with nothing changed in between
        if last.error_kind == "sandbox_blocked" and _same_command(last.args, decision.action):
            return (
                f"the sandbox blocked `{last.args.get('command')}` at step {last.step} and it is proposed again; "
                "inside the sandbox it fails the same way. Approve it as an escalation (outside the sandbox, "
                "as root) or tell me another way"
            )
        repeat = last.tool == decision.action.tool and last.args == decision.action.args
        # a target error (the link dropped the command) is the connection's failure, not the
        # action's; a measurement that failed on the client side is repeated on purpose (bounded)
        exempt: tuple[str, ...] = ("outcome_unknown", "policy_denied", "target_error")
        if last.tool == "run_benchmark":
            exempt += (*CLIENT_SIDE, "server_down")
        if repeat and not last.ok and last.error_kind not in exempt:
            return f"the same action failed at step {last.step} and is proposed again: {decision.action.render()}"
    attempts = state.get("attempts", [])
    tail = attempts[-config.same_failure_limit :]
    first_class = tail[0].failure_class if tail else None
    same = len(tail) == config.same_failure_limit and first_class and all(a.failure_class == first_class for a in tail)
    if same and not _fraction_ladder(tail):
        return f"the last {len(tail)} launches failed the same way ({tail[0].failure_class})"
    measured = [a for a in attempts if a.aggregate_tps is not None]
    if measured:
        best = max(measured, key=lambda a: a.aggregate_tps or 0.0)
        since = state.get("step", 0) - best.step
        if since >= config.no_gain_steps:
            return f"no gain in the goal metric for {since} steps (best {best.aggregate_tps:,.0f} tok/s at {best.id})"
    return None


def _fraction_ladder(tail: list[Attempt]) -> bool:
    """Failures at a different memory fraction each, nothing else changed: a deliberate walk down
    (or up) the fraction ladder, bounded by loop.max_launches, not a loop."""
    fractions = [a.config.get("mem_fraction_static") for a in tail]
    rest = [{k: v for k, v in a.config.items() if k != "mem_fraction_static"} for a in tail]
    return len(set(fractions)) == len(fractions) and all(r == rest[0] for r in rest)


def budget_reason(state: AgentState, config: LoopConfig, elapsed_s: float) -> str | None:
    limit = state.get("step_limit", config.max_steps)
    if state.get("step", 0) >= limit:
        return f"step budget reached: {state.get('step', 0)} actions taken (limit {limit})"
    if elapsed_s >= config.max_wall_s:
        return f"time budget reached: {elapsed_s / 3600:.1f} h on the target host's clock"
    return None


def decision_trigger(decision: Decision, config: LoopConfig, autonomous: bool) -> tuple[TriggerKind, str] | None:
    """Whether the decider's own answer is a reason to ask (before the gate sees it)."""
    if decision.kind == "ask":
        return "decider_asks", decision.question or decision.rationale or "the decider asked for guidance"
    if decision.kind == "act" and decision.action is None:
        return "no_next_step", decision.rationale or "the decider has no next step"
    if decision.confidence < config.confidence_threshold and not autonomous:
        return "low_confidence", (
            f"confidence {decision.confidence:.2f} is below the threshold {config.confidence_threshold:.2f}"
        )
    return None


ACCEPTED = "you accepted what was measured"  # agent.hearing.instructions' reason for the sign-off step


def accepted_short(reason: str) -> bool:
    """Whether a finish short of the goal is the operator's pick of the sign-off step."""
    return reason.startswith(ACCEPTED)


def question_for(trigger: TriggerKind, decision: Decision | None, action: Action | None) -> str:
    if trigger == "policy_ask" and action is not None:
        return f"The policy needs your approval for: {action.render()}. Approve, deny, or edit it?"
    if trigger == "goal_met":
        return "The goal is met. Sign off (approve), or tell me what else to do."
    if trigger == "gave_up":
        # a number only where the report lists steps to number (the decision's alternatives)
        forms = hints.gave_up_forms(decision is not None and bool(decision.alternatives))
        forms = forms[0].upper() + forms[1:]
        if decision is not None and accepted_short(decision.rationale):  # the operator's choice, not my dead end
            return f"You accepted what was measured, and the goal is NOT met. {forms}."
        return f"I have no further step I can take within the constraints, and the goal is NOT met. {forms}."
    if trigger == "outcome_unknown" and action is not None:
        return (
            f"I do not know whether this action took effect: {action.render()}. "
            "Approve to run it again, or tell me how to verify."
        )
    if trigger == "low_confidence" and action is not None:
        return f"I am not sure about the next step: {action.render()}. Continue with it, or instruct me?"
    if decision is not None and decision.question:
        return decision.question
    return "Continue if you see next steps, or tell me what to do."


def _same_command(args: dict[str, object], action: Action) -> bool:
    """The same command again, still inside the sandbox."""
    return (
        action.tool == "run_command"
        and action.args.get("command") == args.get("command")
        and not action.args.get("outside_sandbox")
    )
