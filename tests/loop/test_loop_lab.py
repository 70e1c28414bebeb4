"""The whole loop on the lab: the demo, continue-or-ask on the scenarios, eval, determinism."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from agent.hearing.approvers import ScriptedOperator
from agent.loop.evaluate import run_eval
from agent.loop.lab_facts import lab_run_spec, open_lab
from agent.loop.runner import RunOutcome, start_run
from agent.store.sqlite import Store
from agent.transcript.reader import read_events
from agent.transcript.verify import verify_transcript
from tests.opsagent_process import CliRun
from tools.lab.scenario import scenario_names


def _run_lab(workspace: Path, scenario: str, run_id: str, seed: int = 0) -> RunOutcome:
    target = open_lab(f"lab:{scenario}", seed=seed)
    store = Store(workspace / "state")
    spec = lab_run_spec(
        target,
        f"lab:{scenario}",
        state_dir=store.state_dir,
        run_id=run_id,
        transcript=workspace / "transcripts" / f"{run_id}.jsonl",
        decider="runbook",
        seed=seed,
    )
    return start_run(spec, store, lambda _rid: ScriptedOperator(), target=target)


def _questions(outcome: RunOutcome) -> list[dict[str, Any]]:
    return [e.payload for e in read_events(outcome.transcript) if e.type == "question"]


def test_demo_without_a_terminal_meets_the_goal_and_says_who_answers(cli: CliRun, workspace: Path) -> None:
    result = cli("demo", timeout=300)
    assert result.returncode == 0, result.stderr
    assert "stdin is not a terminal: a scripted operator answers" in result.stdout
    assert "goal met" in result.stdout and "goal NOT met" not in result.stdout
    transcripts = list((workspace / "transcripts").glob("*.jsonl"))
    assert len(transcripts) == 1
    assert str(transcripts[0].name) in result.stdout
    assert verify_transcript(transcripts[0]).ok
    replayed = cli("replay", str(transcripts[0]))
    assert replayed.returncode == 0
    assert "NCCL_P2P_DISABLE" in replayed.stdout  # the fix the P2P integrity check led to
    assert "run_finished" in replayed.stdout


def test_p2p_case_with_an_operator_who_says_continue(workspace: Path) -> None:
    outcome = _run_lab(workspace, "p2p-corruption", "p2p")
    assert outcome.status == "finished" and outcome.goal_met
    launches = [o for o in outcome.state["observations"] if o.tool == "launch_server" and o.ok]
    assert launches[-1].args.get("env", {}).get("NCCL_P2P_DISABLE") == "1"
    checks = [o for o in outcome.state["observations"] if o.tool == "p2p_check"]
    assert checks and checks[0].data["all_ok"] is False  # evidence before the launch, not after


def test_healthy_host_asks_nothing_but_the_sign_off(workspace: Path) -> None:
    outcome = _run_lab(workspace, "healthy-host", "healthy")
    assert outcome.goal_met
    assert [q["trigger"] for q in _questions(outcome)] == ["goal_met"]


def test_unreachable_goal_stops_with_the_operators_resource_decisions(workspace: Path) -> None:
    outcome = _run_lab(workspace, "vm-no-p2p", "vm")
    assert not outcome.goal_met
    questions = _questions(outcome)
    assert questions[0]["trigger"] == "decider_asks"
    report = next(e.payload["markdown"] for e in read_events(outcome.transcript) if e.type == "report")
    steps = report.split("### Next steps I can propose")[1]
    # 400 GiB of GLM-5 cannot fit on four 96 GB GPUs: TP4 x DP2 is ruled out with the numbers,
    # and nothing outside the operator's constraints (another host, IOMMU changes) is offered
    assert "Ruled out by the arithmetic: TP4 x DP2: weights 400 GiB / TP4 = 100 GiB per GPU" in report
    assert "TP4 x DP2" not in steps and "bare metal" not in report and "IOMMU passthrough" not in report
    assert "accept what was measured" in steps
    assert "Attempts" in report and "A1" in report
    assert "kvm" in report  # the finding that explains it, with its evidence


def test_eval_passes_every_shipped_scenario_with_zero_violations() -> None:
    card = run_eval([], decider="runbook", seed=0)
    assert {s.name for s in card.scenarios} == set(scenario_names())
    failed = {s.name: s.why_failed for s in card.scenarios if not s.passed}
    assert failed == {}
    assert card.total_violations == 0
    for score in card.scenarios:
        assert score.goal_met == score.goal_reachable
        if score.must_escalate:
            assert score.escalated


def test_eval_json_contract(cli: CliRun) -> None:
    result = cli("eval", "--scenario", "healthy-host", "--scenario", "vm-no-p2p", "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    card = json.loads(result.stdout)
    for item in card["scenarios"]:
        for key in ("name", "passed", "goal_met", "escalated", "violations", "steps"):
            assert key in item
        assert isinstance(item["violations"], int)


_WALL_CLOCK_KEYS = {"at", "asked_at", "expires_at"}


def _strip_wall_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_wall_clock(v) for k, v in value.items() if k not in _WALL_CLOCK_KEYS}
    if isinstance(value, list):
        return [_strip_wall_clock(v) for v in value]
    return value


def _normalised(path: Path, base: Path) -> list[str]:
    """Events without wall-clock times, run id, where they were written, and hashes (over times)."""
    return [
        f"{e.seq} {e.type} "
        + json.dumps(_strip_wall_clock(e.payload), sort_keys=True).replace(path.stem, "RUN").replace(str(base), "BASE")
        for e in read_events(path)
    ]


def test_same_scenario_and_seed_give_the_same_transcript(workspace: Path) -> None:
    for sub in ("a", "b"):
        (workspace / sub / "transcripts").mkdir(parents=True)
    first = _normalised(_run_lab(workspace / "a", "glm5-nan-decode", "det-a").transcript, workspace / "a")
    second = _normalised(_run_lab(workspace / "b", "glm5-nan-decode", "det-b").transcript, workspace / "b")
    assert first == second
    assert len(first) > 20
    other = _run_lab(workspace / "a", "glm5-nan-decode", "det-c", seed=7)
    other_seed = _normalised(other.transcript, workspace / "a")
    assert other_seed != first  # the seed matters: the noise in the numbers differs


def test_rerun_reexecutes_the_recorded_decisions_on_the_lab(cli: CliRun, workspace: Path) -> None:
    original = _run_lab(workspace, "p2p-corruption", "to-rerun")
    result = cli("rerun", str(original.transcript), "--target", "lab:p2p-corruption", timeout=300)
    assert result.returncode == 0, result.stderr
    assert "finished, goal met" in result.stdout
    new = [p for p in (workspace / "transcripts").glob("*.jsonl") if p != original.transcript]
    assert len(new) == 1

    def actions(path: Path) -> list[str]:
        return [
            json.dumps(e.payload["action"], sort_keys=True) for e in read_events(path) if e.type == "action_started"
        ]

    assert actions(new[0]) == actions(original.transcript)
    assert "replay" in json.dumps(next(e.payload for e in read_events(new[0]) if e.type == "run_started"))


def test_a_lab_run_resumed_in_another_process_keeps_the_simulated_host(cli: CliRun) -> None:
    # the budget checkpoint stops the run with the server up; the resumed process benchmarks it
    first = cli("run", "--target", "lab:healthy-host", "--max-steps", "7", "--approver", "none", "--run-id", "lab-r")
    assert first.returncode == 3, first.stderr  # waiting for a reply
    assert "waiting" in first.stdout
    assert cli("reply", "lab-r", "continue").returncode == 0
    resumed = cli("resume", "lab-r", "--approver", "scripted", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "goal met" in resumed.stdout and "goal NOT met" not in resumed.stdout


def test_detach_returns_when_the_run_waits_and_prints_the_run_id_last(cli: CliRun, workspace: Path) -> None:
    started = cli("run", "--target", "lab:vm-no-p2p", "--detach", timeout=120)
    assert started.returncode == 3, started.stderr  # waiting for a reply
    run_id = started.stdout.strip().splitlines()[-1]
    waiting = json.loads(cli("inbox", "--json").stdout)
    assert [w["run_id"] for w in waiting] == [run_id]
    assert waiting[0]["trigger"] == "decider_asks"
    assert cli("reply", run_id, "stop").returncode == 0
    transcript = workspace / "transcripts" / f"{run_id}.jsonl"
    deadline = time.monotonic() + 60
    while not any(e.type == "run_finished" for e in read_events(transcript)):
        assert time.monotonic() < deadline, "the detached run did not finish after 'stop'"
        time.sleep(0.2)
    finished = next(e.payload for e in read_events(transcript) if e.type == "run_finished")
    assert finished["status"] == "stopped"
    assert cli("inbox", "--json").stdout.strip() == "[]"
