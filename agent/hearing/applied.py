"""The operator's rules applied to a run: a launch rewritten to obey them, and the steps they force
(stop the server, measure again, the step the operator chose, a relaunch with what they said).

`agent.hearing.instructions` reads the words into rules; this module only applies them.
"""

from __future__ import annotations

import re
from typing import Any

from agent.evidence.attempts import launch_config
from agent.hearing.exclusions import LAUNCH, excluded, exclusion_reason
from agent.state import Action, AgentState, Decision, Goal, OperatorRules

SERVER = "sglang"
# Flags with a structured argument of launch_server: what "use"/"avoid" sets or resets.
FLAG_FIELDS: dict[str, str] = {
    "--attention-backend": "attention_backend",
    "--dsa-decode-backend": "decode_backend",
    "--nsa-decode-backend": "decode_backend",
    "--moe-runner-backend": "moe_runner_backend",
    "--kv-cache-dtype": "kv_cache_dtype",
    "--mem-fraction-static": "mem_fraction_static",
    "--cuda-graph-max-bs": "cuda_graph_max_bs",
    "--disable-cuda-graph": "disable_cuda_graph",
    "--disable-custom-all-reduce": "disable_custom_all_reduce",
    "--tp-size": "tp",
    "--tp": "tp",
    "--dp-size": "dp",
    "--dp": "dp",
    "--ep-size": "ep",
    "--port": "port",
}
BOOL_FIELDS = frozenset({"disable_cuda_graph", "disable_custom_all_reduce"})
FLOAT_FIELDS = frozenset({"mem_fraction_static"})
INT_FIELDS = frozenset({"cuda_graph_max_bs", "tp", "dp", "ep", "port"})


def _power_of_two_at_most(n: int) -> int:
    p = 1
    while p * 2 <= n:
        p *= 2
    return p


def _known_gpus(state: AgentState, args: dict[str, Any]) -> list[int] | None:
    if isinstance(args.get("gpus"), list):
        return [int(g) for g in args["gpus"]]
    goal: Goal | None = state.get("goal")
    if goal is not None and goal.gpus:
        return list(goal.gpus)
    for obs in reversed(state.get("observations", [])):
        if obs.tool == "observe_host" and obs.ok and obs.data.get("agent_gpus"):
            return [int(g) for g in obs.data["agent_gpus"]]
        if obs.tool == "observe_gpus" and obs.ok and obs.data.get("gpus"):
            return [int(g.get("index", i)) for i, g in enumerate(obs.data["gpus"])]
    return None


def known_gpus(state: AgentState) -> list[int] | None:
    """The GPUs a launch would use now (the goal's, else what the host showed): what "the last
    four" counts from."""
    return _known_gpus(state, {})


def _set_flag(args: dict[str, Any], words: list[str]) -> None:
    flag, value = words[0], (words[1] if len(words) > 1 else None)
    field = FLAG_FIELDS.get(flag)
    if field is None:
        extra = _drop_flag(list(args.get("extra_args") or []), flag)
        args["extra_args"] = extra + words
    elif field in BOOL_FIELDS:
        args[field] = True
    elif value is not None:
        args[field] = float(value) if field in FLOAT_FIELDS else int(value) if field in INT_FIELDS else value


def _drop_flag(words: list[str], flag: str) -> list[str]:
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            if not word.startswith("--"):
                continue
        if word == flag:
            skip = True
            continue
        if word.startswith(flag + "="):
            continue
        out.append(word)
    return out


def rewrite_launch(state: AgentState, rules: OperatorRules, args: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A launch's arguments with the operator's rules applied, and what was changed."""
    new = dict(args)
    notes: list[str] = []
    if rules.layout:
        new["tp"], new["dp"] = rules.layout["tp"], rules.layout.get("dp", 1)
    if rules.use_model:
        new["model_path"] = rules.use_model
    gpus = _known_gpus(state, new)
    if rules.use_gpus is not None:
        gpus = list(rules.use_gpus)
    if gpus is not None and rules.avoid_gpus:
        gpus = [g for g in gpus if g not in rules.avoid_gpus]
    if (rules.use_gpus is not None or rules.avoid_gpus) and gpus is not None:
        new["gpus"] = gpus
        width = int(new.get("tp") or 1) * int(new.get("dp") or 1)
        given_more = rules.use_gpus is not None and len(gpus) > len(args.get("gpus") or []) and width < len(gpus)
        if gpus and (width > len(gpus) or given_more) and not rules.layout:
            # fewer GPUs: the layout shrinks to fit; more GPUs given ("use GPUs 0-1" after "give me at
            # least 2 GPUs"): it grows to use them, as the operator said
            dp = int(new.get("dp") or 1)
            dp = dp if len(gpus) // dp >= 1 else 1
            new["tp"], new["dp"] = _power_of_two_at_most(max(len(gpus) // dp, 1)), dp
    port = new.get("port", 30000)
    if rules.use_port is not None:
        port = rules.use_port
    while port in rules.avoid_ports:
        port += 1
    new["port"] = port
    if rules.set_env or rules.unset_env:
        env = {k: v for k, v in dict(new.get("env") or {}).items() if k not in rules.unset_env}
        new["env"], new["unset_env"] = {**env, **rules.set_env}, sorted({*rules.unset_env} - set(rules.set_env))
    for flag in rules.avoid_flags:
        field = FLAG_FIELDS.get(flag)
        if field is not None and field not in ("tp", "dp", "port"):
            new.pop(field, None)
        new["extra_args"] = _drop_flag(list(new.get("extra_args") or []), flag)
    for words in rules.use_flags:
        _set_flag(new, words)
    if not new.get("extra_args"):
        new.pop("extra_args", None)
    for key in sorted(set(args) | set(new)):
        if args.get(key) != new.get(key):
            notes.append(f"{key}={new.get(key)!r}")
    return new, notes


def rewrite(state: AgentState, rules: OperatorRules, action: Action) -> tuple[Action, str | None, list[str]]:
    """The action with the rules applied, why it is rejected (None if it is not), what changed."""
    notes: list[str] = []
    args = dict(action.args)
    if action.tool == LAUNCH:
        if rules.no_relaunch:
            return action, "you told me not to relaunch the server (say 'relaunch' to allow it)", []
        args, notes = rewrite_launch(state, rules, args)
    elif action.tool == "p2p_check" and rules.use_gpus is not None:
        args["gpus"] = [g for g in rules.use_gpus if g not in rules.avoid_gpus]
    elif action.tool == "run_command":
        command = str(args.get("command", ""))
        hit = next((f for f in rules.avoid_flags if re.search(rf"(^|\s){re.escape(f)}(=|\s|$)", command)), None)
        if hit is not None:
            return action, f"you told me not to use {hit}", []
    rewritten = Action(tool=action.tool, args=args)
    found = excluded(state, rewritten)
    if found is not None:
        return rewritten, exclusion_reason(found), notes
    return rewritten, None, notes


def server_running(state: AgentState) -> bool:
    return SERVER in (state.get("processes") or {})


def operator_decision(state: AgentState, rules: OperatorRules) -> tuple[Decision | None, OperatorRules]:
    """What the operator's words make the next step, before any decider is asked."""
    if rules.stop_server:
        rules = rules.model_copy(update={"stop_server": False})
        if server_running(state):
            stop = Action(tool="stop_server", args={"name": SERVER, "grace_s": 30})
            return Decision(action=stop, rationale="you told me to stop the server", confidence=1.0), rules
        rules = rules.model_copy(
            update={"answers": [*rules.answers, "you told me to stop the server: none is running"]}
        )
    if rules.accept_measured is not None:
        why = f"you accepted what was measured as the goal ({rules.accept_measured})"
        rules = rules.model_copy(update={"accept_measured": None})
        return Decision(kind="finish", goal_met=False, rationale=why, confidence=1.0), rules
    if rules.measure_again:
        rules = rules.model_copy(update={"measure_again": False})
        bench = last_benchmark(state)
        if bench is not None and server_running(state):
            why = "you asked me to run the benchmark again"
            return Decision(action=bench, rationale=why, confidence=1.0, milestone="benchmarked"), rules
        missing = "no server is running (say 'relaunch' first)" if bench is not None else "nothing was measured yet"
        answer = f"you asked me to run the benchmark again: {missing}"
        rules = rules.model_copy(update={"answers": [*rules.answers, answer]})
    chosen = rules.try_action
    if chosen is not None:
        if chosen.tool == LAUNCH and server_running(state):
            stop = Action(tool="stop_server", args={"name": SERVER, "grace_s": 30})
            why = f"stop my server first, then {chosen.render()} as you asked"
            return Decision(action=stop, rationale=why, confidence=0.95), rules
        rules = rules.model_copy(update={"try_action": None})
        return Decision(action=chosen, rationale="you chose this step", confidence=0.95), rules
    return None, rules


def last_benchmark(state: AgentState) -> Action | None:
    """The last benchmark as it was run (the one to repeat when the operator asks)."""
    bench = next((o for o in reversed(state.get("observations", [])) if o.tool == "run_benchmark"), None)
    return Action(tool="run_benchmark", args=dict(bench.args)) if bench is not None else None


def best_config(state: AgentState) -> dict[str, Any] | None:
    measured = [a for a in state.get("attempts", []) if a.aggregate_tps is not None]
    if measured:
        return dict(max(measured, key=lambda a: a.aggregate_tps or 0.0).config)
    attempts = state.get("attempts", [])
    return dict(attempts[-1].config) if attempts else None


def proposed_launch(state: AgentState) -> dict[str, Any] | None:
    """Nothing launched yet: the launch my last question proposed first, the base for the settings
    the operator answered it with ("use an fp8 kv cache and bump the mem fraction to 0.93")."""
    for decision in reversed(state.get("decisions", [])):
        launch = next((a.action for a in decision.alternatives if a.action and a.action.tool == LAUNCH), None)
        if launch is not None:
            return dict(launch.args)
    return None


def relaunch_for_rules(state: AgentState, rules: OperatorRules) -> Decision | None:
    """A fresh launch setting and a decider that would stop or ask: try the setting first."""
    base = best_config(state) or proposed_launch(state)
    goal = state.get("goal")
    if base is None and rules.use_gpus:
        # Nothing launched or proposed (the model did not fit the GPUs I had): the GPUs the operator
        # gave are the plan's base, so advice taken ("use GPUs 0-1") leads to a launch that uses them.
        base = {"tp": 1, "gpus": [], "port": 30000}
    if base is None or goal is None or rules.no_relaunch:
        return None
    args = {"model_path": goal.model_path or "", "name": SERVER, **base}
    new, _ = rewrite_launch(state, rules, args)
    action = Action(tool=LAUNCH, args=new)
    if excluded(state, action) is not None or any(
        launch_config(a.config) == launch_config(new) for a in state.get("attempts", [])
    ):
        return None
    if server_running(state):
        stop = Action(tool="stop_server", args={"name": SERVER, "grace_s": 30})
        return Decision(action=stop, rationale="stop my server to relaunch with what you told me", confidence=0.9)
    return Decision(action=action, rationale="relaunch the best configuration with what you told me", confidence=0.9)
