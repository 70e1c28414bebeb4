"""What the observations say, indexed for the runbook's playbook (agent/deciders/runbook.py)."""

from __future__ import annotations

from typing import Any

from agent.deciders.runbook_evidence import unusable
from agent.state import AgentState, Attempt, Goal, Observation
from tools.sglang.flags import FlagSet

# launch arguments whose values the installed SGLang must list among a flag's choices
CHOICE_FLAGS = {
    "attention_backend": ("--attention-backend",),
    "decode_backend": ("--dsa-decode-backend", "--nsa-decode-backend"),
    "moe_runner_backend": ("--moe-runner-backend",),
    "kv_cache_dtype": ("--kv-cache-dtype",),
}


class View:
    """What the observations say, indexed for the playbook."""

    def __init__(self, state: AgentState) -> None:
        self.state = state
        self.goal: Goal = state["goal"]
        self.observations: list[Observation] = list(state.get("observations", []))
        self.attempts: list[Attempt] = list(state.get("attempts", []))

    def last_ok(self, tool: str) -> Observation | None:
        return next((o for o in reversed(self.observations) if o.tool == tool and o.ok), None)

    def last(self, tool: str) -> Observation | None:
        return next((o for o in reversed(self.observations) if o.tool == tool), None)

    def since_last_launch(self) -> list[Observation]:
        for i in range(len(self.observations) - 1, -1, -1):
            if self.observations[i].tool == "launch_server":
                return self.observations[i:]
        return []

    def agent_gpus(self) -> list[int]:
        """My GPUs that a layout may use: those found lost, partitioned, broken, busy with another
        user's memory or throttled are left out (`unusable`, with the evidence)."""
        broken = self.unusable()
        return [g for g in self.all_gpus() if g not in broken]

    def all_gpus(self) -> list[int]:
        if self.goal.gpus:
            return list(self.goal.gpus)
        host = self.last_ok("observe_host")
        ours = (host.data.get("agent_gpus") if host else None) or []
        if ours:
            return [int(g) for g in ours]
        gpus = self.last_ok("observe_gpus")
        return [int(g.get("index", i)) for i, g in enumerate((gpus.data.get("gpus") if gpus else None) or [])]

    def unusable(self) -> dict[int, str]:
        return {g: why for g, why in unusable(self.state, self.observations).items() if g in self.all_gpus()}

    def p2p_broken(self) -> bool:
        check = self.last_ok("p2p_check")
        return bool(check is not None and check.data.get("all_ok") is False)

    def accepts(self, change: dict[str, Any]) -> bool:
        """Whether the installed SGLang (as its --help says) accepts every choice in `change`."""
        learned = self.last_ok("sglang_flags")
        if learned is None:
            return True  # nothing learned: let launch_server's own validation speak
        flags = FlagSet.model_validate(learned.data)
        for key, value in change.items():
            names = CHOICE_FLAGS.get(key)
            if names is None:
                continue
            spec = next((flags.lookup(n) for n in names if flags.has(n)), None)
            if spec is None or (spec.choices is not None and str(value) not in spec.choices):
                return False
        return True

    def choices(self, key: str) -> list[str]:
        """The values the installed SGLang lists for a launch argument (its --help), or []."""
        learned = self.last_ok("sglang_flags")
        if learned is None:
            return []
        flags = FlagSet.model_validate(learned.data)
        spec = next((flags.lookup(n) for n in CHOICE_FLAGS.get(key, ()) if flags.has(n)), None)
        return list(spec.choices or []) if spec is not None else []

    def server_running(self) -> bool:
        return "sglang" in (self.state.get("processes") or {})
