"""`runbook` decider: the SGLang deployment playbook, deterministic, no model.

observe the host, the GPUs, the topology and P2P integrity first; learn the installed SGLang's
flags; launch with what the evidence says (no P2P when copies corrupt); follow the launch to ready
or to a classified failure and try the next candidate for that failure class; benchmark at the
goal's concurrency; tune while the metric improves; stop and ask with evidence when the
candidates are exhausted. The candidate lists live in `runbook.yaml`.

Every decision is derived from the state alone (observations, attempts, replies), so a resumed
run continues exactly where it stopped.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from agent.attempts import goal_met, launch_config
from agent.state import Action, AgentState, Alternative, Attempt, Decision, Goal, Observation
from tools.sglang.flags import FlagSet

PLAYBOOK_PATH = Path(__file__).with_name("runbook.yaml")
EXHAUSTED = "candidates-exhausted"
OBSERVE_FIRST = ("observe_host", "observe_gpus", "observe_topology")
# launch arguments whose values the installed SGLang must list among a flag's choices
CHOICE_FLAGS = {
    "attention_backend": ("--attention-backend",),
    "decode_backend": ("--dsa-decode-backend", "--nsa-decode-backend"),
    "moe_runner_backend": ("--moe-runner-backend",),
    "kv_cache_dtype": ("--kv-cache-dtype",),
}


class Candidate(BaseModel):
    change: dict[str, Any]
    why: str


class Tuning(BaseModel):
    min_gain: float = 0.02
    candidates: list[Candidate] = []


class OperatorOption(BaseModel):
    description: str
    risk: str
    expected: str = ""
    tp: int | None = None
    dp: int | None = None


class Bench(BaseModel):
    input_len: int = 1024
    output_len: int = 256


class Playbook(BaseModel):
    on_failure: dict[str, list[Candidate]]
    tuning: Tuning
    operator_options: list[OperatorOption]
    benchmark: Bench = Bench()

    @classmethod
    def load(cls, path: Path = PLAYBOOK_PATH) -> Playbook:
        return cls.model_validate(yaml.safe_load(path.read_text()))


def _apply(config: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    merged = dict(config)
    for key, value in change.items():
        if key == "env":
            merged["env"] = {**merged.get("env", {}), **value}
        elif key == "extra_args":
            present = list(merged.get("extra_args", []))
            merged["extra_args"] = present + ([] if _contains(present, value) else list(value))
        else:
            merged[key] = value
    return merged


def _contains(words: list[str], run: list[str]) -> bool:
    return any(words[i : i + len(run)] == run for i in range(len(words) - len(run) + 1))


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
        if self.goal.gpus:
            return list(self.goal.gpus)
        host = self.last_ok("observe_host")
        ours = (host.data.get("agent_gpus") if host else None) or []
        if ours:
            return [int(g) for g in ours]
        gpus = self.last_ok("observe_gpus")
        return [int(g.get("index", i)) for i, g in enumerate((gpus.data.get("gpus") if gpus else None) or [])]

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

    def server_running(self) -> bool:
        return "sglang" in (self.state.get("processes") or {})


class RunbookDecider:
    name = "runbook"

    def __init__(self, playbook: Playbook | None = None) -> None:
        self.playbook = playbook or Playbook.load()

    def decide(self, state: AgentState) -> Decision:
        view = View(state)
        picked = self._operator_pick(state)
        if picked is not None:
            return picked
        for step in (self._observe, self._deploy):
            decision = step(view)
            if decision is not None:
                return decision
        raise AssertionError("the playbook always has a decision")  # _deploy ends every path

    # --- phase 1: look before touching anything --------------------------------------------
    def _observe(self, view: View) -> Decision | None:
        for tool in OBSERVE_FIRST:
            if view.last_ok(tool) is None and self._tries(view, tool) < 2:
                args: dict[str, Any] = {"agent_gpus": view.goal.gpus} if tool == "observe_host" else {}
                return _act(tool, args, f"observe first: {tool.replace('_', ' ')}", 0.95)
        gpus = view.agent_gpus()
        if len(gpus) > 1 and view.last("p2p_check") is None:
            return _act(
                "p2p_check",
                {"gpus": gpus, "size_mb": 64},
                "the driver's P2P claim is not evidence; a data-integrity copy test between my GPUs is",
                0.9,
            )
        if view.last_ok("sglang_flags") is None and self._tries(view, "sglang_flags") < 2:
            return _act("sglang_flags", {}, "learn the launch flags this SGLang version accepts", 0.95)
        return None

    def _tries(self, view: View, tool: str) -> int:
        return sum(1 for o in view.observations if o.tool == tool)

    # --- phase 2: launch, follow, fix, measure, tune ------------------------------------------
    def _deploy(self, view: View) -> Decision:
        recent = view.since_last_launch()
        if not recent:
            return self._launch(view, self._initial_config(view), "first launch with what the evidence says")
        launch, after = recent[0], recent[1:]
        if not launch.ok:
            return self._after_failure(view, launch.error_kind or "launch_refused", [launch.summary])
        wait = next((o for o in after if o.tool == "wait_server"), None)
        if wait is None:
            return _act(
                "wait_server",
                {
                    "name": "sglang",
                    "port": int(launch.args.get("port", 30000)),
                    "timeout_s": 1800,
                    "poll_s": 10,
                },
                "follow the launch to ready or to a classified failure",
                0.95,
                milestone="server-ready",
            )
        if not (wait.ok and wait.data.get("ready")):
            cause = str(wait.data.get("cause") or wait.error_kind or "child_crash")
            return self._after_failure(view, cause, list(wait.data.get("evidence") or []))
        bench = next((o for o in after if o.tool == "run_benchmark"), None)
        if bench is None or (not bench.ok and sum(o.tool == "run_benchmark" for o in after) < 2):
            return _act(
                "run_benchmark",
                {
                    "port": int(launch.args.get("port", 30000)),
                    "concurrency": sorted({1, view.goal.concurrency}),
                    "input_len": self.playbook.benchmark.input_len,
                    "output_len": self.playbook.benchmark.output_len,
                },
                "measure single-stream and aggregate throughput at the goal's concurrency",
                0.95,
                milestone="benchmarked",
            )
        metrics = view.state.get("metrics")
        if metrics is not None and goal_met(view.goal, metrics):
            return Decision(
                kind="finish",
                goal_met=True,
                rationale=f"the goal is met by {metrics.best_attempt}",
                findings=self._findings(view),
            )
        return self._tune_or_ask(view)

    def _initial_config(self, view: View) -> dict[str, Any]:
        gpus = view.agent_gpus()
        config: dict[str, Any] = {
            "model_path": view.goal.model_path or "",
            "tp": max(len(gpus), 1),
            "port": 30000,
            "gpus": gpus or None,
        }
        if view.p2p_broken():
            config["env"] = {"NCCL_P2P_DISABLE": "1"}
        return config

    def _launch(self, view: View, config: dict[str, Any], why: str, confidence: float = 0.85) -> Decision:
        args = {k: v for k, v in config.items() if v is not None}
        args.setdefault("name", "sglang")
        if view.server_running():
            return _stop_server(f"stop my server before relaunching: {why}")
        return _act("launch_server", args, why, confidence)

    def _current_config(self, view: View) -> dict[str, Any]:
        launch = view.since_last_launch()[0]
        return {**launch.args}

    def _tried(self, view: View, config: dict[str, Any]) -> bool:
        key = launch_config(config)
        return any(a.config == key for a in view.attempts)

    def _after_failure(self, view: View, cause: str, evidence: list[str]) -> Decision:
        if any(a.aggregate_tps is not None for a in view.attempts):
            return self._tune_or_ask(view)  # a tuning step broke the launch: back to the best config
        base = self._current_config(view)
        for candidate in self.playbook.on_failure.get(cause, []):
            config = _apply(base, candidate.change)
            if view.accepts(candidate.change) and not self._tried(view, config):
                return self._launch(view, config, f"{cause}: {candidate.why}", 0.8)
        if view.server_running():
            return _stop_server("free the GPUs before asking")
        return self._exhausted(view, f"the launch failed with {cause} and no candidate for it is left", evidence)

    def _tune_or_ask(self, view: View) -> Decision:
        best = max(
            (a for a in view.attempts if a.aggregate_tps is not None),
            key=lambda a: a.aggregate_tps or 0.0,
            default=None,
        )
        if best is None:
            return self._exhausted(view, "the server serves but no benchmark produced numbers", [])
        # Tuning starts from the best configuration so far: a change that did not help is reverted.
        base = {"model_path": view.goal.model_path or "", **best.config}
        for candidate in self.playbook.tuning.candidates:
            config = _apply(base, candidate.change)
            if view.accepts(candidate.change) and not self._tried(view, config):
                return self._launch(view, config, f"tuning: {candidate.why}", 0.75)
        return self._exhausted(view, "the tuning candidates are exhausted below the goal", [])

    def _exhausted(self, view: View, why: str, evidence: list[str]) -> Decision:
        asked_before = any(d.milestone == EXHAUSTED for d in view.state.get("decisions", []))
        findings = self._findings(view) + [f"evidence: {line}" for line in evidence[:3]]
        if asked_before:
            return Decision(
                kind="finish",
                goal_met=False,
                rationale=f"{why}; I asked and have no further step within the constraints",
                findings=findings,
            )
        return Decision(
            kind="ask",
            question=(
                f"{why}. Every remaining idea needs a resource or risk decision that is yours: "
                "pick a next step, instruct me, or stop."
            ),
            rationale=why,
            confidence=0.3,
            findings=findings,
            hypotheses=self._hypotheses(view),
            alternatives=self._operator_options(view),
            milestone=EXHAUSTED,
        )

    def _operator_options(self, view: View) -> list[Alternative]:
        options: list[Alternative] = []
        best = view.attempts[-1].config if view.attempts else {}
        for option in self.playbook.operator_options:
            action = None
            if option.tp is not None:
                args = {
                    **best,
                    "model_path": view.goal.model_path or "",
                    "tp": option.tp,
                    "dp": option.dp or 1,
                }
                args.setdefault("name", "sglang")
                action = Action(tool="launch_server", args=args)
            options.append(
                Alternative(action=action, description=option.description, rationale=option.expected, risk=option.risk)
            )
        return options

    def _findings(self, view: View) -> list[str]:
        """What the playbook concluded; the report adds the raw facts from the observations itself."""
        found: list[str] = []
        if view.p2p_broken():
            found.append(
                "P2P cannot be trusted on this host: launches use NCCL_P2P_DISABLE=1 (NCCL over shared memory)"
            )
        return found

    def _hypotheses(self, view: View) -> list[str]:
        topo = view.last_ok("observe_topology")
        text = str(topo.data) if topo is not None else ""
        if re.search(r"'NS'|\"NS\"", text):
            return ["throughput is bound by all-reduce through host memory: P2P is not supported between the GPUs"]
        return ["the remaining gap needs more or different hardware, or a different parallel layout"]

    # --- the operator picked one of my proposed next steps -------------------------------------
    def _operator_pick(self, state: AgentState) -> Decision | None:
        """The operator answered my last question with the number of one of my proposed next steps."""
        instructions = state.get("instructions") or []
        last_ask = next((d for d in reversed(state.get("decisions") or []) if d.kind == "ask"), None)
        match = re.search(r"next step #(\d+)", instructions[-1]) if instructions else None
        if match is None or last_ask is None:
            return None
        index = int(match.group(1)) - 1
        if not 0 <= index < len(last_ask.alternatives) or last_ask.alternatives[index].action is None:
            return None
        chosen = last_ask.alternatives[index]
        assert chosen.action is not None
        view = View(state)
        if any(o.tool == chosen.action.tool and o.args == chosen.action.args for o in view.observations):
            return None  # done already; the playbook carries on from its outcome
        why = f"the operator picked: {chosen.description}"
        if chosen.action.tool == "launch_server" and view.server_running():
            return _stop_server(f"stop my server first; {why}")
        return Decision(action=chosen.action, rationale=why, confidence=0.9)


def _act(tool: str, args: dict[str, Any], why: str, confidence: float, milestone: str | None = None) -> Decision:
    return Decision(
        kind="act", action=Action(tool=tool, args=args), rationale=why, confidence=confidence, milestone=milestone
    )


def _stop_server(why: str) -> Decision:
    return _act("stop_server", {"name": "sglang", "grace_s": 30}, why, 0.9)
