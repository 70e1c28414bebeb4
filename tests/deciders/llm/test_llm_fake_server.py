"""The scripted OpenAI server itself: fixtures on disk, scripts from decisions, recording a session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent.state import Action, AgentState, Alternative, Decision, Goal
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    load_script,
    save_script,
    script_from_decisions,
    scripted_llm,
)

STATE: AgentState = {"goal": Goal(text="serve the model"), "step": 0}

DECISIONS = [
    Decision(
        action=Action(tool="run_command", args={"command": "nvidia-smi topo -p2p r"}),
        rationale="check P2P support",
        confidence=0.9,
        alternatives=[Alternative(description="check the IOMMU mode", risk="low")],
        findings=["8 GPUs visible"],
    ),
    Decision(kind="ask", question="May I disable P2P in NCCL?", rationale="needs a decision", confidence=0.5),
    Decision(kind="finish", goal_met=True, rationale="2,800 tok/s measured", confidence=0.95),
]


def test_decisions_survive_a_script_round_trip_through_the_llm_decider(tmp_path: Path) -> None:
    path = save_script(tmp_path / "case.json", script_from_decisions(DECISIONS), description="three steps")
    assert json.loads(path.read_text())["description"] == "three steps"

    with FakeOpenAIServer(load_script(path)) as server:
        decider = scripted_llm(server)
        got = [decider.decide(STATE) for _ in DECISIONS]

    assert [d.kind for d in got] == ["act", "ask", "finish"]
    assert got[0].action == DECISIONS[0].action
    assert (got[0].rationale, got[0].confidence, got[0].findings) == (
        "check P2P support",
        0.9,
        ["8 GPUs visible"],
    )
    assert got[0].alternatives[0].description == "check the IOMMU mode"
    assert got[1].question == "May I disable P2P in NCCL?"
    assert got[2].goal_met is True
    assert server.remaining == 0


def test_fixture_names_resolve_under_tests_fixtures_llm() -> None:
    script = load_script("reboot_denied")
    assert script[0]["args"] == {"command": "sudo reboot"}


def test_an_exhausted_script_fails_at_once_with_a_clear_message() -> None:
    from agent.deciders.llm import EndpointError

    with FakeOpenAIServer([]) as server, pytest.raises(EndpointError, match="script exhausted after 0"):
        scripted_llm(server).decide(STATE)
    assert len(server.requests) == 1


def test_recording_mode_forwards_and_keeps_replayable_entries(tmp_path: Path) -> None:
    upstream_script = script_from_decisions(DECISIONS[:1])
    with FakeOpenAIServer(upstream_script, model="upstream-model") as upstream:
        with FakeOpenAIServer(upstream=upstream.base_url) as recorder:
            first = scripted_llm(recorder).decide(STATE)
        assert len(upstream.requests) == 1
    path = save_script(tmp_path / "recorded.json", recorder.recorded)

    with FakeOpenAIServer(load_script(path)) as replay:
        again = scripted_llm(replay).decide(STATE)
    assert again.action == first.action
    assert again.rationale == first.rationale
    assert again.usage[0].model == "upstream-model"


def test_serve_command_prints_a_base_url() -> None:
    script = Path(__file__).resolve().parents[2] / "fakes" / "openai_server.py"
    proc = subprocess.Popen([sys.executable, str(script), "serve", "reboot_denied"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("OPENAI_BASE_URL=http://127.0.0.1:")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_script_from_a_transcript_replays_the_recorded_decisions(tmp_path: Path) -> None:
    from agent.transcript.writer import TranscriptWriter
    from tests.fakes.openai_server import script_from_transcript

    with TranscriptWriter.create(tmp_path, "run-1", fsync=False) as writer:
        writer.emit("run_started", {"goal": "serve the model"})
        for step, decision in enumerate(DECISIONS):
            writer.emit("decision", {"step": step, **decision.model_dump(mode="json")})
    script = script_from_transcript(writer.path)

    with FakeOpenAIServer(script) as server:
        decider = scripted_llm(server)
        got = [decider.decide(STATE) for _ in DECISIONS]
    assert [d.kind for d in got] == ["act", "ask", "finish"]
    assert got[0].action == DECISIONS[0].action
    assert got[0].rationale == "check P2P support"
