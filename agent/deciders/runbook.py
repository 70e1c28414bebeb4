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
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field

from agent.deciders import runbook_math as math
from agent.deciders.runbook_evidence import (
    EVIDENCE_TOOL,
    FIND_DEBRIS,
    debris,
    evidence_args,
    failure_diagnosis,
    launched_gpus,
    looked_under_load,
    remove_command,
    short_shards,
)
from agent.deciders.runbook_view import View
from agent.evidence.attempts import goal_met, launch_config
from agent.evidence.findings import missing_software
from agent.hearing.applied import rewrite_launch
from agent.hearing.exclusions import excluded, excluded_config
from agent.hearing.instructions import rules_of
from agent.state import Action, AgentState, Alternative, Attempt, Decision, Observation
from tools.capacity.layouts import Plan
from tools.capacity.memory import Layout
from tools.sglang.diagnosis import REMEDIES, Diagnosis
from tools.sglang.failures import DESCRIPTIONS, classify_benchmark, classify_launch

PLAYBOOK_PATH = Path(__file__).with_name("runbook.yaml")
EXHAUSTED = "candidates-exhausted"
BLOCKED = "host-blocked"
LAUNCH_BUDGET = "launch-budget"
MEASURE_ANYWAY = "one diagnostic launch"
BLOCKING_TOOLS = ("observe_gpus", "sglang_flags", "plan_layouts")  # what missing_software reads
RETRY_MEASUREMENT = ("client_benchmark", "server_died")
DEFINITE_ABSENCE = ("no_nvidia_driver", "sglang_missing", "model_path_missing")
DEFAULT_LAUNCHES = 8  # agent.config.LoopConfig.max_launches; the run's state carries the configured one
OBSERVE_FIRST = ("observe_host", "observe_gpus", "observe_topology")
LINK_WORDS = {"nvlink": "NVLink", "pcie": "PCIe", "no_p2p": "PCIe without P2P"}  # as an operator says them


class Candidate(BaseModel):
    change: dict[str, Any] = {}
    remedy: Literal["lower_fraction", "raise_fraction", "bigger_layout", "each_choice"] | None = None
    why: str
    flag: str | None = Field(default=None, description="each_choice: the launch argument whose choices to walk")
    prefer: list[str] = Field(default=[], description="each_choice: these first, in this order")
    last: list[str] = Field(default=[], description="each_choice: these last (e.g. what the default already ran)")
    skip: list[str] = Field(default=[], description="each_choice: never these")
    models: list[str] = Field(default=[], description="only for architectures containing one of these; [] = any")


class Tuning(BaseModel):
    min_gain: float = 0.02
    candidates: list[Candidate] = []


class Bench(BaseModel):
    input_len: int = 1024
    output_len: int = 256


class Playbook(BaseModel):
    on_failure: dict[str, list[Candidate]]
    tuning: Tuning
    benchmark: Bench = Bench()
    fraction_ladder: list[float] = [0.93, 0.90, 0.88, 0.85, 0.82, 0.80, 0.77, 0.74, 0.70, 0.65, 0.60, 0.55, 0.50]
    assumed_default: float = 0.90
    benchmark_retries: int = 4
    server_rechecks: int = 2
    layout_gain: float = 1.05

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


class RunbookDecider:
    name = "runbook"

    def __init__(self, playbook: Playbook | None = None) -> None:
        self.playbook = playbook or Playbook.load()

    def decide(self, state: AgentState) -> Decision:
        view = View(state)
        for step in (self._observe, self._deploy):
            decision = step(view)
            if decision is not None:
                return decision
        raise AssertionError("the playbook always has a decision")  # _deploy ends every path

    # --- phase 1: look before touching anything --------------------------------------------
    def _observe(self, view: View) -> Decision | None:
        missing = missing_software(view.observations)
        if missing:
            return self._blocked(view, missing)
        for tool in OBSERVE_FIRST:
            args: dict[str, Any] = {"agent_gpus": view.goal.gpus} if tool == "observe_host" else {}
            if excluded(view.state, Action(tool=tool, args=args)) is not None:
                continue  # hook: excluded by the operator or the policy (agent.hearing.instructions)
            if view.last_ok(tool) is None and self._tries(view, tool) < 2:
                return _act(tool, args, f"observe first: {tool.replace('_', ' ')}", 0.95)
        if view.last("observe_gpus") is not None and view.last(EVIDENCE_TOOL) is None:
            paths = [".", *([view.goal.model_path] if view.goal.model_path else [])]
            return _act(
                EVIDENCE_TOOL,
                evidence_args(view.observations, paths, view.goal.model_path),
                "before launching, the host's own health: GPUs lost or in MIG mode, ECC errors, free disk",
                0.95,
            )
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
        last_plan = view.last("plan_layouts")
        retry_plan = last_plan is not None and last_plan.error_kind == "target_error"  # the link dropped it
        planned = last_plan.args.get("gpus") if last_plan is not None and last_plan.ok else None
        if planned is not None and sorted(planned) != sorted(gpus):
            retry_plan = bool(gpus)  # a GPU was left out since: size the model against the ones left
            if retry_plan and view.server_running():
                # my own server's memory would read as someone else's to the arithmetic
                return _stop_server("a GPU is left out: stop my server before sizing the model against the GPUs left")
        if view.goal.model_path and (last_plan is None or (retry_plan and self._tries(view, "plan_layouts") < 3)):
            plan_args = {
                "model_path": view.goal.model_path,
                "gpus": gpus,
                "concurrency": view.goal.concurrency,
                "input_len": self.playbook.benchmark.input_len,
                "output_len": self.playbook.benchmark.output_len,
                "interconnect": math.interconnect(view.observations, view.p2p_broken()),
            }
            if excluded(view.state, Action(tool="plan_layouts", args=plan_args)) is None:
                return _act(
                    "plan_layouts",
                    plan_args,
                    "size the model against my GPUs before launching anything: which layouts fit, which is fastest",
                    0.95,
                )
        return None

    def _tries(self, view: View, tool: str) -> int:
        return sum(1 for o in view.observations if o.tool == tool)

    def _blocked(self, view: View, missing: list[str]) -> Decision:
        asked = sum(1 for d in view.state.get("decisions", []) if d.milestone == BLOCKED)
        what = "; ".join(missing)
        failed = [o for o in view.observations if o.tool in BLOCKING_TOOLS and o.error_kind in DEFINITE_ABSENCE]
        if asked and len(failed) <= asked:
            # the operator answered: look once more (they may have installed it) before giving up
            tool = failed[-1].tool if failed else "observe_gpus"
            return _act(tool, dict(failed[-1].args) if failed else {}, f"look again after my question: {what}", 0.9)
        if asked:
            return Decision(
                kind="finish",
                goal_met=False,
                rationale=f"this host still cannot serve: {what}",
                findings=[f"Missing: {m}." for m in missing],
            )
        return Decision(
            kind="ask",
            question=(
                f"This host cannot serve a model yet: {what}. Install what is missing (or point me at another "
                "host) and reply `continue`, or `stop`."
            ),
            rationale=f"missing at step 1: {what}",
            confidence=0.2,
            findings=[f"Missing: {m}." for m in missing],
            milestone=BLOCKED,
        )

    # --- phase 2: launch, follow, fix, measure, tune ------------------------------------------
    def _deploy(self, view: View) -> Decision:
        recent = view.since_last_launch()
        plan = math.plan_of(view.observations)
        if not recent:
            short = short_shards(view.observations)
            if short:  # a weight file shorter than the index allows: no load can succeed
                checks = ["ls -l of the model directory", "the safetensors index's total_size"]
                return self._after_diagnosis(view, Diagnosis("corrupt_model", "corrupt_model", short, [], checks))
            if plan is not None and (plan.nothing_fits or math.kv_far_short(plan)):
                return self._nothing_fits(view, plan)
            return self._launch(view, self._initial_config(view), "first launch with what the evidence says")
        launch, after = recent[0], recent[1:]
        if not launch.ok:
            cls = classify_launch(launch.error_kind, evidence=[launch.summary], refusal=True)
            return self._after_failure(view, cls, [launch.summary])
        waits = [i for i, o in enumerate(after) if o.tool == "wait_server"]
        wait_args = {"name": "sglang", "port": int(launch.args.get("port", 30000)), "timeout_s": 1800, "poll_s": 10}
        if not waits:
            return _act(
                "wait_server", wait_args, "follow the launch to ready or to a classified failure", 0.95, "server-ready"
            )
        wait = after[waits[-1]]  # the latest look at the server decides whether it is up
        looked = any(o.tool == EVIDENCE_TOOL for o in after[waits[-1] + 1 :])
        if not (wait.ok and wait.data.get("ready")):
            cause = str(wait.data.get("cause") or wait.error_kind or "child_crash")
            evidence = list(wait.data.get("evidence") or [])
            if not looked and wait.error_kind not in ("target_error", "not_owned"):
                return _act(
                    EVIDENCE_TOOL,
                    evidence_args(
                        view.observations,
                        [".", *([view.goal.model_path] if view.goal.model_path else [])],
                        view.goal.model_path,
                    ),
                    "read what changed on the host since the launch (kernel log, nvidia-smi, free disk) before "
                    "deciding anything",
                    0.95,
                )
            cls = classify_launch(cause, str(wait.data.get("phase") or ""), evidence)
            lines = [*evidence, *(wait.data.get("errors") or [])]
            launched = launched_gpus(launch.args, view.all_gpus())
            return self._after_diagnosis(view, failure_diagnosis(view.state, view.observations, cls, lines, launched))
        benches = [o for o in after[waits[-1] + 1 :] if o.tool == "run_benchmark"]  # since that look
        failed = [o for o in benches if not o.ok]
        last = benches[-1] if benches else None
        if last is not None and not last.ok:
            cls = classify_benchmark(last.error_kind)
            if cls == "server_died" and len(waits) <= self.playbook.server_rechecks:
                # One refused health probe is no proof the server died (a link can drop the probe):
                # look at the server itself before relaunching anything.
                why = "the server did not answer a health probe during the measurement: is it still up?"
                return _act("wait_server", {**wait_args, "timeout_s": 300}, why, 0.9)
            # a measurement the client failed is measured again before anything else changes
            if cls not in RETRY_MEASUREMENT or len(failed) > self.playbook.benchmark_retries * _rounds(view):
                return self._after_failure(view, cls, [last.summary.splitlines()[0]])
        bench_args = {
            "port": int(launch.args.get("port", 30000)),
            "concurrency": sorted({1, view.goal.concurrency}),
            "input_len": self.playbook.benchmark.input_len,
            "output_len": self.playbook.benchmark.output_len,
        }
        if last is not None and not last.ok and excluded(view.state, Action(tool="run_benchmark", args=bench_args)):
            # Hook: the same measurement is excluded (by the operator, or it failed for good).
            return self._after_failure(view, classify_benchmark(last.error_kind), [last.summary.splitlines()[0]])
        if last is None or not last.ok:
            retry = (
                f" again: the last run failed ({last.error_kind}) before anything about the launch changes"
                if last
                else ""
            )
            return _act(
                "run_benchmark",
                bench_args,
                "measure single-stream and aggregate throughput at the goal's concurrency" + retry,
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
        if not looked and not looked_under_load(view.observations, launch):
            why = "the measurement falls short of the goal: is a GPU of this launch throttled or failing?"
            return _act(EVIDENCE_TOOL, evidence_args(view.observations, []), why, 0.9)
        launched = launched_gpus(launch.args, view.all_gpus())
        slow = {g: why for g, why in view.unusable().items() if g in launched}
        if slow:
            step = self._without(
                view, sorted(slow), f"GPU {', '.join(map(str, sorted(slow)))}: {next(iter(slow.values()))}"
            )
            if step is not None:
                return step
        return self._tune_or_ask(view)

    def _initial_config(self, view: View) -> dict[str, Any]:
        gpus = view.agent_gpus()
        config: dict[str, Any] = {
            "model_path": view.goal.model_path or "",
            "tp": max(len(gpus), 1),
            "port": 30000,
            "gpus": gpus or None,
        }
        plan = math.plan_of(view.observations)
        if plan is not None and plan.first_choice is not None:
            config = _apply(config, math.layout_config(plan.first_choice, gpus))
            if plan.first_fraction is not None:
                config["mem_fraction_static"] = plan.first_fraction
        if view.p2p_broken():
            config["env"] = {"NCCL_P2P_DISABLE": "1"}
        return config

    def _launch(self, view: View, config: dict[str, Any], why: str, confidence: float = 0.85) -> Decision:
        args = {k: v for k, v in config.items() if v is not None}
        args.setdefault("name", "sglang")
        started = sum(1 for o in view.observations if o.tool == "launch_server" and o.ok)
        limit = int(view.state.get("launch_limit") or DEFAULT_LAUNCHES)
        # More launches only on the operator's word (a continue at this question, counted by the loop):
        # a deny or an unread reply grants none.
        granted = limit * (1 + int(view.state.get("launch_grants") or 0))
        if started >= granted:
            return Decision(
                kind="ask",
                question=(
                    f"I have used {started} launches (loop.max_launches = {limit}). The next would be: {why}. "
                    f"Reply `continue` for {limit} more, a number, an instruction, or `stop`."
                ),
                rationale=f"launch budget spent: {started} of {granted}",
                confidence=0.4,
                findings=self._findings(view),
                alternatives=[Alternative(action=Action(tool="launch_server", args=args), description=why)],
                milestone=LAUNCH_BUDGET,
            )
        if view.server_running():  # after the budget question: the server serves while it waits
            return _stop_server(f"stop my server before relaunching: {why}")
        return _act("launch_server", args, why, confidence)

    def _current_config(self, view: View) -> dict[str, Any]:
        launch = view.since_last_launch()[0]
        return {**launch.args}

    def _tried(self, view: View, config: dict[str, Any]) -> bool:
        key = launch_config({k: v for k, v in config.items() if v is not None})
        # Hook: what the operator or the policy excluded counts as tried (agent.hearing.instructions).
        return any(a.config == key for a in view.attempts) or excluded_config(view.state, config)

    def _after_failure(self, view: View, cause: str, evidence: list[str]) -> Decision:
        if any(a.aggregate_tps is not None for a in view.attempts):
            return self._tune_or_ask(view)  # a tuning step broke the launch: back to the best config
        base = self._current_config(view)
        if cause == "link_dropped":
            # nothing started: the same launch again, a few times (the stall rule exempts target errors)
            dropped = 0
            for _, cls in reversed(math.launch_classes(view.observations)):
                if cls != "link_dropped":
                    break
                dropped += 1
            if dropped <= self.playbook.benchmark_retries * _rounds(view):
                return self._launch(view, base, "the link dropped a check before the start; nothing started", 0.85)
        if cause in ("flag_rejected", "flag_ambiguous"):
            # drop the change that brought the flag: continue the list of the launch before it
            earlier = [(o, c) for o, c in math.launch_classes(view.observations)[:-1] if c not in (cause, None)]
            if earlier:
                base, cause = dict(earlier[-1][0].args), str(earlier[-1][1])
        for candidate in self.playbook.on_failure.get(cause, []):
            if not math.architecture_matches(view.observations, candidate.models):
                continue
            if candidate.remedy == "each_choice":
                config = self._next_choice(view, candidate, base)
                if config is None:
                    continue
            elif candidate.remedy is not None:
                config = self._remedy(view, candidate.remedy, base)
                if config is None:
                    continue
            elif view.accepts(candidate.change):
                config = _apply(base, candidate.change)
            else:
                continue
            if not self._tried(view, config):
                return self._launch(view, config, f"{cause}: {candidate.why}", 0.8)
        if cause == "cuda_graph_oom":  # every candidate tried: the one the arithmetic ruled out is measured
            measured = self._measure_anyway(view, base)
            if measured is not None:
                return measured
        if view.server_running() and cause not in RETRY_MEASUREMENT:  # a healthy server stays up for the operator
            return _stop_server("free the GPUs before asking")
        what = DESCRIPTIONS.get(cause, cause)
        return self._exhausted(view, f"the launch failed ({cause}: {what}) and no remedy for it is left", evidence)

    def _measure_anyway(self, view: View, base: dict[str, Any]) -> Decision | None:
        """The arithmetic guides, a measurement decides: when it rules out the next step down the
        fraction ladder (the one remedy for a graph-capture OOM), one launch measures it, said so."""
        if any(d.rationale.startswith(MEASURE_ANYWAY) for d in view.state.get("decisions", [])):
            return None  # once a run: a second launch against the arithmetic is the operator's call
        current = math.fraction_of(base, self.playbook.assumed_default)
        floor = max(
            (
                math.fraction_of(o.args, self.playbook.assumed_default)
                for o, c in math.launch_classes(view.observations)
                if c == "kv_too_small"
            ),
            default=0.0,
        )
        step = next((f for f in sorted(set(self.playbook.fraction_ladder), reverse=True) if f < current - 1e-9), None)
        if step is None or step <= floor:
            return None
        config = {**base, "mem_fraction_static": step}
        if self._tried(view, config):
            return None
        why = (
            f"{MEASURE_ANYWAY}: graph capture ran out of memory at {current:g}; the arithmetic says the KV cache "
            f"at {step:g} would not hold concurrency {view.goal.concurrency}, but it is an estimate and a lower "
            "fraction is the one remedy for this failure, so I measure it (one launch)"
        )
        return self._launch(view, config, why, 0.6)

    def _after_diagnosis(self, view: View, diag: Diagnosis) -> Decision:
        """Answer a failed launch by what the evidence says it is; what cannot be placed is asked."""
        if diag.family == "configuration" and not diag.gpus:
            return self._after_failure(view, diag.cls, diag.lines)
        quote = f' ("{diag.lines[0]}")' if diag.lines else ""
        if diag.cls == "disk_full":
            step = self._clear_own_debris(view, f"{diag.description}{quote}")
            if step is not None:
                return step
        if diag.gpus:
            step = self._without(view, diag.gpus, f"{diag.cls}: {diag.description}{quote}")
            if step is not None:
                return step
        if view.server_running():
            return _stop_server("free the GPUs before asking")
        checked = ", ".join(diag.checked)
        launched = any(o.tool == "launch_server" for o in view.observations)
        what = "the launch failed" if launched else "I did not launch"
        why = f"{what}: {diag.description} [{diag.cls}]{quote}; I checked {checked}"
        remedy = REMEDIES.get(diag.cls)
        first = (
            [Alternative(description=remedy, rationale=f"{diag.cls}: no launch of mine can fix it")] if remedy else []
        )
        return self._exhausted(view, why, diag.lines, first=first)

    def _clear_own_debris(self, view: View, why: str) -> Decision | None:
        """A full disk: my own work directory's debris (an earlier session's core dumps and
        profiles) is mine to remove; then the same launch again, its cause gone. Anything else on
        the disk is someone's: that is asked."""
        since = view.since_last_launch()
        looks = [o for o in since if o.tool == "run_command" and o.args.get("command") == FIND_DEBRIS]
        if not looks:
            return _act("run_command", {"command": FIND_DEBRIS}, f"{why}: what in my work directory is big?", 0.9)
        files = debris(looks[-1])
        removed = any(o.tool == "run_command" and o.args.get("command") == remove_command(files) for o in since)
        if not files:
            return None
        if not removed:
            listed = ", ".join(files)
            return _act(
                "run_command", {"command": remove_command(files)}, f"{why}: remove my own debris: {listed}", 0.8
            )
        base = self._current_config(view)
        return self._launch(view, base, f"{why}: my own debris removed, the same launch again", 0.8)

    def _without(self, view: View, gpus: list[int], why: str) -> Decision | None:
        """Relaunch on the GPUs left when `gpus` are left out, if the arithmetic finds a layout there."""
        left = view.agent_gpus()
        plan = math.plan_of(view.observations)
        planned = next((o for o in reversed(view.observations) if o.tool == "plan_layouts" and o.ok), None)
        if planned is None or sorted(planned.args.get("gpus") or left) != sorted(left):
            return None  # no arithmetic for the GPUs left (the next look sizes it): ask, never guess a layout
        if not left or plan is None or plan.nothing_fits or plan.first_choice is None:
            return None
        config = self._initial_config(view)
        if self._tried(view, config):
            return None
        out = ", ".join(f"GPU {g}" for g in gpus)
        return self._launch(view, config, f"{why}: {out} left out; relaunch on GPUs {left}", 0.8)

    def _next_choice(self, view: View, candidate: Candidate, base: dict[str, Any]) -> dict[str, Any] | None:
        """The next value of `candidate.flag` the installed SGLang offers that no launch has used."""
        choices = view.choices(candidate.flag or "")
        if not choices:
            return None
        rest = [c for c in choices if c not in candidate.prefer and c not in candidate.last]
        order = [c for c in [*candidate.prefer, *rest, *candidate.last] if c in choices and c not in candidate.skip]
        for value in order:
            config = _apply(base, {candidate.flag or "": value})
            if value != base.get(candidate.flag or "") and not self._tried(view, config):
                return config
        return None

    def _remedy(self, view: View, remedy: str, base: dict[str, Any]) -> dict[str, Any] | None:
        """A launch config the arithmetic computes: the next fraction, or the next bigger layout."""
        ladder = sorted(set(self.playbook.fraction_ladder), reverse=True)
        current = math.fraction_of(base, self.playbook.assumed_default)
        outcomes = [
            (math.fraction_of(o.args, self.playbook.assumed_default), c)
            for o, c in math.launch_classes(view.observations)
        ]
        bench = (self.playbook.benchmark.input_len, self.playbook.benchmark.output_len)
        layout = math.layout_of(base)
        if remedy == "lower_fraction":
            floor = max((f for f, c in outcomes if c == "kv_too_small"), default=0.0)
            step = next((f for f in ladder if f < current - 1e-9), None)
            if step is None or step <= floor:
                return None
            memory = math.memory_at(view.observations, view.goal, layout, step, bench)
            if memory is not None and memory.kv_fits is False:
                return None  # the KV cache would no longer hold the goal's concurrency
            return {**base, "mem_fraction_static": step}
        if remedy == "raise_fraction":
            ceiling = min((f for f, c in outcomes if c == "cuda_graph_oom"), default=1.0)
            step = next((f for f in sorted(ladder) if f > current + 1e-9), None)
            if step is None or step >= ceiling:
                return None
            return {**base, "mem_fraction_static": step}
        gpus = view.agent_gpus()
        plan = math.plan_of(view.observations)
        if plan is None:
            tp = layout.tp * 2
            return _apply(base, math.layout_config(Layout(tp=tp), gpus)) if tp <= len(gpus) else None
        bigger = [
            v
            for v in plan.layouts
            if v.weights_fit and v.layout.pp == 1 and v.layout.dp == 1 and v.layout.tp > layout.per_replica
        ]
        if not bigger:
            return None
        choice = min(bigger, key=lambda v: v.layout.tp)
        config = _apply(base, math.layout_config(choice.layout, gpus))
        config.pop("mem_fraction_static", None)
        return config

    def _tune_or_ask(self, view: View) -> Decision:
        best = max(
            (a for a in view.attempts if a.aggregate_tps is not None),
            key=lambda a: math.goal_score(view.goal, a.aggregate_tps, a.single_stream_tps),
            default=None,
        )
        if best is None:
            return self._exhausted(view, "the server serves but no benchmark produced numbers", [])
        # Tuning starts from the best configuration so far: a change that did not help is reverted.
        base = {"model_path": view.goal.model_path or "", **best.config}
        layout = self._better_layout(view, best, base) or self._fewer_gpus_for_one_stream(view, best, base)
        if layout is not None:
            return layout
        for candidate in self.playbook.tuning.candidates:
            config = _apply(base, candidate.change)
            # measured to give nothing on this base (wherever it served): not proposed again
            flat = math.measured_flat(view.attempts, view.goal, base, config, self.playbook.tuning.min_gain)
            if view.accepts(candidate.change) and not self._tried(view, config) and flat is None:
                link = LINK_WORDS[math.interconnect(view.observations, view.p2p_broken())]
                why = candidate.why.replace("{interconnect}", link)  # the link this host has, never another's
                return self._launch(view, config, f"tuning: {why}", 0.75)
        return self._exhausted(view, "the tuning candidates are exhausted below the goal", [])

    def _fewer_gpus_for_one_stream(self, view: View, best: Attempt, base: dict[str, Any]) -> Decision | None:
        """A single stream short of the goal on GPUs without P2P: every all-reduce of every token
        goes through host memory, so one stream can run faster on half the GPUs. The arithmetic
        cannot say by how much; a measurement can. One halving at a time, from the best so far: a
        halving that measures worse is not the best, and the walk ends there."""
        goal = view.goal
        if not goal.min_single_stream_tps or best.single_stream_tps is None:
            return None
        single = best.single_stream_tps / goal.min_single_stream_tps
        aggregate = (best.aggregate_tps or 0.0) / goal.min_aggregate_tps if goal.min_aggregate_tps else None
        if single >= 1.0 or (aggregate is not None and aggregate < single):
            return None  # the single stream is not what falls short most
        if math.interconnect(view.observations, view.p2p_broken()) != "no_p2p":
            return None
        current = math.layout_of(best.config)
        plan = math.plan_of(view.observations)
        if plan is None or current.tp < 2 or current.pp != 1:
            return None
        half = Layout(tp=current.tp // 2, dp=1, pp=1)
        verdict = plan.verdict(half)
        # One stream needs the weights to fit, not the goal's concurrency in the KV cache.
        if verdict is None or not verdict.memory.weights_fit:
            return None
        if any(math.layout_of(a.config) == half for a in view.attempts):
            return None
        config = _apply(base, math.layout_config(half, view.agent_gpus()))
        why = (
            f"one stream is at {single:.0%} of the goal on TP{current.tp} without P2P (each token's all-reduces "
            f"go through host memory): measure TP{half.tp}, which the weights fit"
        )
        return self._launch(view, config, why, 0.7)

    def _better_layout(self, view: View, best: Attempt, base: dict[str, Any]) -> Decision | None:
        """TP topped out: one step towards data parallelism (half the TP group, twice the
        replicas, every GPU used), when the arithmetic expects it to do better on the goal's
        weakest metric. One step at a time, like the fraction ladder: a step that measures worse
        ends the walk, because the measurement outranks the model that predicted it."""
        plan = math.plan_of(view.observations)
        gpus = view.agent_gpus()
        if plan is None:
            return None
        current = math.layout_of(best.config)
        now = math.goal_score(view.goal, best.aggregate_tps, best.single_stream_tps)
        options: list[tuple[float, str, dict[str, Any]]] = []
        for v in plan.layouts:
            if not v.fits or v.layout.pp != 1 or v.layout.gpus > len(gpus):
                continue
            if v.layout.tp * 2 != current.tp or v.layout.gpus != len(gpus) // v.layout.tp * v.layout.tp:
                continue
            if any(math.layout_of(a.config) == v.layout for a in view.attempts):
                continue  # a layout is judged once: flags tuned since do not make it new
            config = _apply(base, math.layout_config(v.layout, gpus))
            config.pop("mem_fraction_static", None)
            guess = math.predicted(plan, best, v)
            if guess is None:
                continue
            score = math.goal_score(view.goal, *guess)
            if score > now * self.playbook.layout_gain:
                agg, single = guess
                est = f"~{agg:,.0f} tok/s aggregate" if agg else f"~{single or 0:,.0f} tok/s single stream"
                why = (
                    f"{math.layout_of(best.config).label()} tops out at {now:.0%} of the goal ({best.id}); "
                    f"{v.label} is expected to reach {est} (arithmetic, scaled from {best.id})"
                )
                options.append((score, why, config))
        if not options:
            return None
        _, why, config = max(options, key=lambda o: o[0])
        return self._launch(view, config, why, 0.8)

    def _nothing_fits(self, view: View, plan: Plan) -> Decision:
        lines = math.nothing_fits_text(plan)
        what = "the model cannot fit on my GPUs" if plan.nothing_fits else "the goal cannot fit on my GPUs"
        return self._exhausted(view, f"{what}. " + " ".join(lines), [], ask_first=True)

    def _exhausted(
        self, view: View, why: str, evidence: list[str], ask_first: bool = False, first: list[Alternative] | None = None
    ) -> Decision:
        # Asked about this same dead end before, and the answer changed nothing: the final report.
        # A different dead end (the link, then the measurement) is asked about in its own right.
        asked_before = any(d.milestone == EXHAUSTED and d.rationale == why for d in view.state.get("decisions", []))
        findings = self._findings(view) + [f"evidence: {line}" for line in evidence[:3]]
        plan = math.plan_of(view.observations)
        if plan is not None and not plan.nothing_fits:
            # the layouts an operator would think of next, and why the arithmetic rules them out
            ruled_out = [v for v in plan.layouts if not v.fits and v.layout.dp > 1 and v.layout.pp == 1 and v.why]
            ruled_out.sort(key=lambda v: -v.layout.per_replica)
            findings += [f"Ruled out by the arithmetic: {v.label}: {v.why[0]}." for v in ruled_out[:2]]
        if asked_before:
            step = self._step_after_continue(view)
            if step is not None:
                return step
            return Decision(
                kind="finish",
                goal_met=False,
                rationale=f"{why}; I asked and have no further step within the constraints",
                findings=findings,
            )
        question = (
            f"Nothing was launched: {why.split('. ')[0]}. Pick a next step, instruct me, or stop."
            if ask_first
            else f"{why}. Every remaining idea needs a resource or risk decision that is yours: "
            "pick a next step, instruct me, or stop."
        )
        return Decision(
            kind="ask",
            question=question,
            rationale=why,
            confidence=0.3,
            findings=findings,
            hypotheses=hypotheses(view),
            alternatives=[*(first or []), *self._operator_options(view)],
            milestone=EXHAUSTED,
        )

    def _step_after_continue(self, view: View) -> Decision | None:
        """ "continue" to my question at a dead end: the operator leaves the next step to me, so I
        take the first step I proposed that the arithmetic expects to reach the goal and that I
        have not tried (the gate still asks for what the policy marks). A step that cannot reach
        the goal stays the operator's pick: "continue" launches nothing on a hope."""
        replies = view.state.get("replies", [])
        if not replies or replies[-1].kind != "continue":
            return None
        taken = {d.action.render() for d in view.state.get("decisions", []) if d.action is not None}
        for option in self._operator_options(view):
            action = option.action
            if action is None or not option.reaches_goal or excluded(view.state, action) is not None:
                continue
            if action.tool == "launch_server":
                # What would run once the operator's rules apply: a step they ruled out ("never fp8
                # KV") becomes a launch already measured, and taking it again would never end.
                effective, _ = rewrite_launch(view.state, rules_of(view.state), dict(action.args))
                changed = any(effective.get(k) != v for k, v in action.args.items() if k not in ("port", "gpus"))
                if changed or self._tried(view, effective):
                    continue
                if self._tried(view, action.args) or action.render() in taken:
                    continue
            why = f"you said continue: my first proposed step, {option.description}"
            if action.tool == "launch_server" and view.server_running():
                return _stop_server(f"free the GPUs for it ({why})")
            return Decision(action=action, rationale=why, confidence=0.7)
        return None

    def _operator_options(self, view: View) -> list[Alternative]:
        best = max(
            (a for a in view.attempts if a.aggregate_tps is not None or a.single_stream_tps is not None),
            key=lambda a: math.goal_score(view.goal, a.aggregate_tps, a.single_stream_tps),
            default=None,
        )
        return math.proposals(
            math.plan_of(view.observations),
            view.goal,
            best,
            [a.config for a in view.attempts],
            view.agent_gpus(),
            view.goal.model_path or "",
        )

    def _findings(self, view: View) -> list[str]:
        """What the playbook concluded; the report adds the raw facts from the observations itself."""
        found: list[str] = []
        plan = math.plan_of(view.observations)
        if plan is not None:
            found.append(plan.finding())
        if view.p2p_broken():
            found.append(
                "P2P cannot be trusted on this host: launches use NCCL_P2P_DISABLE=1 (NCCL over shared memory)"
            )
        found += [f"GPU {g} is left out of every layout: {why}" for g, why in sorted(view.unusable().items())]
        cleaned = [o for o in view.observations if o.tool == "run_command" and o.ok and _is_cleanup(o)]
        found += [
            f"The disk filled up (No space left on device); I removed my own debris: {o.args['command'][9:]}"
            for o in cleaned
        ]
        return found


def hypotheses(view: View) -> list[str]:
    """What I believe limits the run, for the report (from the plan, the topology and the best attempt)."""
    plan = math.plan_of(view.observations)
    if plan is not None and plan.nothing_fits:
        return [f"the model needs at least {plan.min_gpus_needed} GPUs of this size; no flag changes that"]
    found: list[str] = []
    topo = view.last_ok("observe_topology")
    text = str(topo.data) if topo is not None else ""
    if re.search(r"'NS'|\"NS\"", text):
        found.append("throughput is bound by all-reduce through host memory: P2P is not supported between the GPUs")
    best = max(
        (a for a in view.attempts if a.aggregate_tps is not None or a.single_stream_tps is not None),
        key=lambda a: math.goal_score(view.goal, a.aggregate_tps, a.single_stream_tps),
        default=None,
    )
    if plan is not None and best is not None:
        why = math.layout_hypothesis(plan, best, view.goal, len(view.agent_gpus()))
        if why is not None:
            found.append(why)
    return found or ["the remaining gap needs more or different hardware, or a different parallel layout"]


def _is_cleanup(observation: Observation) -> bool:
    return str(observation.args.get("command", "")).startswith(remove_command([]))


def _rounds(view: View) -> int:
    """Rounds of retries for failures of the link or the client: one, plus one for every "continue"
    the operator gave (a flaky link is no reason to give up on what the operator said to keep doing)."""
    return 1 + sum(1 for r in view.state.get("replies", []) if r.kind == "continue")


def _act(tool: str, args: dict[str, Any], why: str, confidence: float, milestone: str | None = None) -> Decision:
    return Decision(
        kind="act", action=Action(tool=tool, args=args), rationale=why, confidence=confidence, milestone=milestone
    )


def _stop_server(why: str) -> Decision:
    return _act("stop_server", {"name": "sglang", "grace_s": 30}, why, 0.9)
