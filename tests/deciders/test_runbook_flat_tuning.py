"""A tuning measured to give nothing is not proposed again on the same base (#30, item 7).

On lab:vm-no-p2p the runbook tunes TP8 (A2-A4); `--num-continuous-decode-steps 4` on top of A3
measures no better than A3. The operator then moves the server to another port: the relaunch is
A3's configuration on port 30001, the same base for the engine, so that tuning is not run again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.deciders.runbook import Playbook, RunbookDecider
from agent.state import AgentState, Attempt, Goal, Observation
from tests.opsagent_process import CliRun

DECODE_STEPS = "--num-continuous-decode-steps"


def _launches(transcript: Path) -> list[dict[str, Any]]:
    launches: list[dict[str, Any]] = []
    for line in transcript.read_text().splitlines():
        event = json.loads(line)
        action = event["payload"].get("action") if event["type"] == "action_started" else None
        if action and action["tool"] == "launch_server":
            launches.append(action["args"])
    return launches


def test_a_tuning_measured_flat_is_not_run_again_after_the_port_moves(cli: CliRun, workspace: Path) -> None:
    assert cli("run", "--target", "lab:vm-no-p2p", "--approver", "none", "--run-id", "flat").returncode == 3
    launches = _launches(workspace / "transcripts" / "flat.jsonl")
    assert any(DECODE_STEPS in (a.get("extra_args") or []) for a in launches)  # measured once, on port 30000
    assert cli("reply", "flat", "continue").returncode == 0
    assert cli("resume", "flat", "--approver", "none").returncode == 3
    assert cli("reply", "flat", "use port 30001").returncode == 0
    resumed = cli("resume", "flat", "--approver", "none")
    assert resumed.returncode == 3, resumed.stdout + resumed.stderr
    moved = [a for a in _launches(workspace / "transcripts" / "flat.jsonl") if a.get("port") == 30001]
    assert moved, "the best configuration is relaunched on the operator's port"
    assert not any(DECODE_STEPS in (a.get("extra_args") or []) for a in moved), moved


def _obs(step: int, tool: str, data: dict[str, Any] | None = None, ok: bool = True, **args: Any) -> Observation:
    return Observation(step=step, tool=tool, args=args, ok=ok, summary=tool, data=data or {})


def _attempt(n: int, aggregate: float, **config: Any) -> Attempt:
    config = {"tp": 2, "gpus": [0, 1], "port": 30000, **config}
    return Attempt(id=f"A{n}", step=n, change="", config=config, outcome="ready", aggregate_tps=aggregate)


def _tuned_state(attempts: list[Attempt]) -> AgentState:
    goal = Goal(text="serve", model_path="/m", gpus=[0, 1], min_aggregate_tps=1000)
    last = attempts[-1].config
    observations = [
        _obs(1, "observe_host", {"virtualization": "none"}),
        _obs(2, "observe_gpus", {"gpus": [{"index": 0}, {"index": 1}]}),
        _obs(3, "observe_topology", {}),
        _obs(3, "read_host_evidence", {}),
        _obs(4, "p2p_check", {"all_ok": True, "pairs": []}),
        _obs(5, "sglang_flags", {"version": "0.5.9", "flags": []}),
        _obs(6, "plan_layouts", {}, ok=False),  # no arithmetic: no layout step comes before tuning
        _obs(20, "launch_server", model_path="/m", name="sglang", **last),
        _obs(21, "wait_server", {"ready": True}),
        _obs(22, "run_benchmark", {}),
        _obs(23, "read_host_evidence", {}),
    ]
    return {"goal": goal, "observations": observations, "attempts": attempts, "processes": {}, "decisions": []}


def _playbook() -> Playbook:
    playbook = Playbook.load()
    playbook.tuning.candidates = [c for c in playbook.tuning.candidates if "cuda_graph_max_bs" in c.change]
    return playbook


def test_a_tuning_measured_flat_on_a_base_is_excluded_on_that_base_wherever_it_serves() -> None:
    # A2 = A1 + cuda_graph_max_bs measured 1% better (under min_gain): flat. A3 = A1 on another port,
    # measured a little better than A1 (the noise of a second measurement), so it is the best.
    attempts = [_attempt(1, 400), _attempt(2, 404, cuda_graph_max_bs=256), _attempt(3, 405, port=30001)]
    decision = RunbookDecider(_playbook()).decide(_tuned_state(attempts))
    assert decision.kind == "ask", decision
    assert "exhausted" in decision.rationale


def test_a_tuning_that_gained_is_not_what_is_excluded() -> None:
    # on another base (another layout, measured best) the change flat on A1 is measured again
    attempts = [_attempt(1, 400), _attempt(2, 404, cuda_graph_max_bs=256), _attempt(3, 500, tp=1, gpus=[0])]
    decision = RunbookDecider(_playbook()).decide(_tuned_state(attempts))
    assert decision.action is not None and decision.action.tool == "launch_server", decision
    assert decision.action.args["cuda_graph_max_bs"] == 256 and decision.action.args["tp"] == 1


def test_a_reason_names_the_link_the_host_has_in_words() -> None:
    # vm-no-p2p's walk read "measured on this host's no p2p": the link is said as an operator says it
    playbook = Playbook.load()
    playbook.tuning.candidates = [c for c in playbook.tuning.candidates if "disable_custom_all_reduce" in c.change]
    state = _tuned_state([_attempt(1, 400)])
    state["observations"][2] = _obs(3, "observe_topology", {"p2p_all_ok": False})
    decision = RunbookDecider(playbook).decide(state)
    assert decision.rationale.endswith("measured on this host's PCIe without P2P"), decision.rationale
    state["observations"][2] = _obs(3, "observe_topology", {"interconnect": "nvlink"})
    assert RunbookDecider(playbook).decide(state).rationale.endswith("measured on this host's NVLink")
