"""The operator's rules said back: in the situation report ("you said ...: in force: ...", their
denials and the policy's) and in a model's prompt (the rules in force, what is excluded)."""

from __future__ import annotations

from agent.hearing.exclusions import exclusion_reason, failure_exclusions
from agent.hearing.instructions import hear
from agent.state import AgentState, OperatorRules


def heard_lines(state: AgentState, limit: int = 6) -> list[str]:
    """What the operator told me, as the report states it (their words first, then my reading)."""
    rules = state.get("operator") or OperatorRules()
    lines = [f'you said "{h}": {_in_force(h)}' for h in rules.heard[-limit:]]
    if rules.no_relaunch:
        lines.append("no new launch until you say 'relaunch'")
    lines += [f'I did not understand: "{m}"' for m in rules.not_understood]
    lines += list(rules.answers)
    return lines


def _in_force(heard_words: str) -> str:
    """ "in force: <what will happen>", said canonically from the rules the words set; words that set
    no rule are never called in force."""
    from agent.hearing.readback import describe, readings

    if not _standing(heard_words):
        return "heard (a one-time step)"
    probe, _, _ = hear(OperatorRules(), "; ".join(readings([heard_words])))
    what = describe(OperatorRules(), probe)
    return f"in force: {'; '.join(what)}" if what else "heard (a one-time step)"


def _standing(heard_words: str) -> bool:
    """Whether what was heard stays in force (a port, a flag, "don't relaunch"), rather than being one
    step done once ("measure again", "stop the server", "relaunch")."""
    probe, _, _ = hear(OperatorRules(), heard_words.split(" (read as:")[0])
    one_time = {"measure_again", "stop_server", "relaunch_wanted", "heard", "not_understood", "free_text"}
    changed = {k for k, v in probe.model_dump().items() if v != _DEFAULTS[k]} - one_time
    return bool(changed - {"no_relaunch"}) or (probe.no_relaunch and not probe.stop_server)


_DEFAULTS = OperatorRules().model_dump()


def denial_report_lines(state: AgentState, limit: int = 4) -> tuple[list[str], list[str]]:
    """(the operator's denials, the policy's denials), each phrased as whose word it was."""
    rules = state.get("operator") or OperatorRules()
    mine = [
        f"you denied: {e.what}" + (f" - your reason: {e.reason}" if e.reason else "")
        for e in rules.exclusions
        if e.by == "operator"
    ]
    policy = [
        f"the policy denied: {e.what} ({', '.join(e.rules) or 'default'}: {e.reason})"
        for e in rules.exclusions
        if e.by == "policy"
    ]
    return mine[-limit:], policy[-limit:]


def prompt_lines(state: AgentState) -> list[str]:
    """The rules in force, for a model's prompt."""
    rules = state.get("operator") or OperatorRules()
    out: list[str] = []
    if rules.use_port is not None:
        out.append(f"serve on port {rules.use_port}")
    if rules.avoid_ports:
        out.append(f"never use port(s) {', '.join(map(str, rules.avoid_ports))}")
    if rules.use_gpus is not None:
        out.append(f"use exactly GPUs {', '.join(map(str, rules.use_gpus))}")
    if rules.avoid_gpus:
        out.append(f"never use GPU(s) {', '.join(map(str, rules.avoid_gpus))}")
    out += [f"set {k}={v} in the server's environment" for k, v in rules.set_env.items()]
    out += [f"start the server without {k} (unset, whatever the host's shell exports)" for k in rules.unset_env]
    out += [f"launch with {' '.join(f)}" for f in rules.use_flags]
    out += [f"never launch with {f}" for f in rules.avoid_flags]
    if rules.layout:
        out.append(f"use the layout TP{rules.layout['tp']} x DP{rules.layout.get('dp', 1)}")
    if rules.use_model:
        out.append(f"serve the model {rules.use_model} in every launch")
    if rules.no_relaunch:
        out.append("do not launch a server again until the operator says 'relaunch'")
    out += [f"never propose again: {exclusion_reason(e)}" for e in [*rules.exclusions, *failure_exclusions(state)]]
    out += [f"rejected just now: {r}" for r in rules.rejected]
    return out
