"""What a run no longer proposes: the actions the operator or the policy denied, and those that failed
in a way that trying again would not change (a deterministic launch failure, or the same error twice).
Two proposals are the same action when their launch configuration or command text is."""

from __future__ import annotations

import json
from typing import Any, Literal

from agent.evidence.attempts import launch_config
from agent.state import Action, AgentState, Exclusion, OperatorRules
from tools.sglang.failures import CLIENT_SIDE

LAUNCH = "launch_server"
# Failure classes that do not change when the same launch is tried again: one is enough.
DETERMINISTIC = frozenset(
    {
        "cuda_oom",
        "kv_cache_oom",
        "weights_oom",
        "cuda_graph_oom",
        "kv_too_small",
        "bad_argument",
        "flag_rejected",
        "nan_in_sampling",
        "port_in_use",
        "invalid_arguments",
        "launch_refused",
    }
)
# Failures of the link or the client, not of the action's arguments: the same action may well
# work next time (the runbook retries them), so they never exclude it.
TRANSIENT = frozenset({"target_error", "timeout", "client_error", "outcome_unknown"})
# A benchmark's failure says nothing about its arguments: the client failed, or the server did
# not answer its health probe (the runbook then looks at the server before measuring again).
MEASUREMENT_RETRIED = CLIENT_SIDE | {"server_down"}


def action_key(action: Action) -> str:
    """What makes two proposals the same action: a launch's configuration, a command's text."""
    if action.tool == LAUNCH:
        return json.dumps({"tool": LAUNCH, **launch_config(action.args)}, sort_keys=True, default=str)
    if action.tool == "run_command":
        return json.dumps({"tool": "run_command", "command": " ".join(str(action.args.get("command", "")).split())})
    return json.dumps({"tool": action.tool, "args": action.args}, sort_keys=True, default=str)


def exclude(
    rules: OperatorRules, action: Action, by: Literal["operator", "policy", "failure"], reason: str, rule_ids: list[str]
) -> OperatorRules:
    key = action_key(action)
    if any(e.key == key and e.by == by for e in rules.exclusions):
        return rules
    item = Exclusion(by=by, tool=action.tool, key=key, what=action.render(), reason=reason, rules=rule_ids)
    return rules.model_copy(update={"exclusions": [*rules.exclusions, item]})


def failure_exclusions(state: AgentState) -> list[Exclusion]:
    """Launches that failed deterministically, and any action that failed twice the same way
    (a dropped link or a client timeout is not the action's failure)."""
    found: list[Exclusion] = []
    for attempt in state.get("attempts", []):
        if attempt.failure_class in DETERMINISTIC:
            action = Action(tool=LAUNCH, args=attempt.config)
            found.append(
                Exclusion(
                    by="failure",
                    tool=LAUNCH,
                    key=action_key(action),
                    what=f"the configuration of attempt {attempt.id}",
                    reason=f"failed with {attempt.failure_class}",
                )
            )
    seen: dict[tuple[str, str], int] = {}
    for obs in state.get("observations", []):
        if obs.ok or obs.error_kind in (None, "policy_denied", "operator_excluded") or obs.tool == "wait_server":
            continue
        if obs.error_kind in TRANSIENT or (obs.tool == "run_benchmark" and obs.error_kind in MEASUREMENT_RETRIED):
            continue  # a measurement the client failed is repeated before anything changes (the runbook's rule)
        key = (action_key(Action(tool=obs.tool, args=obs.args)), obs.error_kind or "")
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 2:
            found.append(
                Exclusion(
                    by="failure",
                    tool=obs.tool,
                    key=key[0],
                    what=Action(tool=obs.tool, args=obs.args).render(),
                    reason=f"failed twice the same way ({obs.error_kind})",
                )
            )
    return found


def excluded(state: AgentState, action: Action) -> Exclusion | None:
    """The exclusion that forbids `action`, if any (the runbook's hook uses this too)."""
    key = action_key(action)
    rules = state.get("operator") or OperatorRules()
    return next((e for e in [*rules.exclusions, *failure_exclusions(state)] if e.key == key), None)


def excluded_config(state: AgentState, config: dict[str, Any]) -> bool:
    """Whether a launch with this configuration is excluded (for deciders planning launches)."""
    return excluded(state, Action(tool=LAUNCH, args=config)) is not None


def exclusion_reason(item: Exclusion) -> str:
    if item.by == "operator":
        return f"you denied {item.what}" + (f" ({item.reason})" if item.reason else "")
    if item.by == "policy":
        return f"the policy denies {item.what} ({', '.join(item.rules) or 'default'}: {item.reason})"
    return f"{item.what} {item.reason}"
