"""Shared helpers: a small, realistic transcript written by the real writer into tmp_path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent.transcript.writer import TranscriptWriter


class FakeClock:
    """A virtual clock (like the lab's): deterministic times, one second per event."""

    def __init__(self, start: float = 1_760_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def write_sample(directory: Path, run_id: str = "run1", events: int = 10) -> Path:
    with TranscriptWriter.create(directory, run_id, clock=FakeClock(), fsync=False) as w:
        w.emit("run_started", {"goal": "serve a model", "target": "lab:p2p-broken"})
        for i in range(1, events - 1):
            w.emit("observation", {"step": i, "tool": "run_command", "ok": True, "summary": f"step {i} done"})
        w.emit("run_finished", {"status": "finished"})
        return w.path


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return write_sample(tmp_path)


@pytest.fixture
def lines_of() -> Callable[[Path], list[bytes]]:
    return lambda p: p.read_bytes().splitlines(keepends=True)


SECRET = "hf_" + "SessionSecretToken0123456789abcd"


def write_session(directory: Path, run_id: str = "lab-run") -> Path:
    """A short deployment session as the graph records it (payload shapes as in agent/loop/graph.py)."""
    from agent.state import Action, Attempt, Decision, ModelUsage, Observation, Question, Reply

    clock = FakeClock()
    launch = Action(
        tool="run_command",
        args={"command": f"HF_TOKEN={SECRET} python -m sglang.launch_server --model-path /m/GLM-5 --tp 8"},
    )
    fix = Action(
        tool="run_command",
        args={"command": "python -m sglang.launch_server --tp 8 --nsa-decode-backend trtllm"},
    )
    reboot = Action(tool="run_command", args={"command": "sudo reboot"})
    usage = [ModelUsage(model="runbook", prompt_tokens=0, completion_tokens=0)]
    with TranscriptWriter.create(directory, run_id, clock=clock, fsync=False) as w:
        w.emit(
            "run_started",
            {
                "run_id": run_id,
                "goal": {"text": "serve GLM-5 at >= 1000 tok/s", "min_aggregate_tps": 1000},
                "target": "lab:vm-no-p2p",
                "policies": [{"path": "policies/default.yaml", "sha256": "ab" * 32}],
                "decider": "runbook",
                "config": {"max_steps": 40},
            },
        )
        d1 = Decision(action=launch, rationale="first launch with defaults", confidence=0.9, usage=usage)
        w.emit("decision", {"step": 0, **d1.model_dump(mode="json")})
        w.emit(
            "verdict",
            {"action": launch.model_dump(mode="json"), "decision": "allow", "rules": [], "reason": ""},
        )
        w.emit("action_started", {"step": 1, "key": f"{run_id}:1", "action": launch.model_dump(mode="json")})
        crash = "".join(f"[decode] step {i}\n" for i in range(900)) + "probability tensor contains either inf, nan\n"
        w.emit(
            "action_result",
            {
                "step": 1,
                "key": f"{run_id}:1",
                "tool": "run_command",
                "ok": False,
                "summary": "server crashed: NaN in sampling",
                "output": crash,
            },
        )
        obs = Observation(step=1, tool="run_command", ok=False, summary="NaN in sampling", error_kind="crash")
        w.emit("observation", obs.model_dump(mode="json"))
        w.emit(
            "attempt",
            Attempt(
                id="A1", step=1, change="TP8, defaults", outcome="NaN at first decode", failure_class="nan"
            ).model_dump(mode="json"),
        )
        d2 = Decision(action=reboot, rationale="reset the GPUs", confidence=0.3)
        w.emit("decision", {"step": 1, **d2.model_dump(mode="json")})
        w.emit(
            "verdict",
            {
                "action": reboot.model_dump(mode="json"),
                "decision": "deny",
                "rules": ["no-reboot"],
                "reason": "never reboot the host",
            },
        )
        d3 = Decision(action=fix, rationale="the trtllm NSA decode backend avoids the NaN", confidence=0.6)
        w.emit("decision", {"step": 1, **d3.model_dump(mode="json")})
        w.emit(
            "verdict",
            {
                "action": fix.model_dump(mode="json"),
                "decision": "ask",
                "rules": ["launch-needs-ok"],
                "reason": "launches need approval",
            },
        )
        q = Question(
            id="q1-s1",
            trigger="policy_ask",
            reason="launches need approval",
            question="Launch with trtllm?",
            report_markdown="## opsagent needs a decision\n\n| id | change |\n|---|---|\n| A1 | TP8 |\n",
            action=fix,
            digest="d" * 64,
            asked_at=1_760_000_100.0,
        )
        w.emit("escalation", {"trigger": "policy_ask", "reason": "launches need approval", "step": 1})
        w.emit("question", q.model_dump(mode="json", exclude={"report_markdown"}))
        w.emit("report", {"question_id": q.id, "markdown": q.report_markdown})
        r = Reply(question_id=q.id, kind="approve", who="alice", at=1_760_000_200.0, digest="d" * 64)
        w.emit("reply", r.model_dump(mode="json"))
        w.emit("action_started", {"step": 2, "key": f"{run_id}:2", "action": fix.model_dump(mode="json")})
        w.emit(
            "action_result",
            {
                "step": 2,
                "key": f"{run_id}:2",
                "tool": "run_command",
                "ok": True,
                "summary": "ready in 6m 10s; 485 tok/s",
            },
        )
        w.emit(
            "attempt",
            Attempt(
                id="A3", step=2, change="--nsa-decode-backend trtllm", outcome="ready", aggregate_tps=485.0
            ).model_dump(mode="json"),
        )
        w.emit("error", {"where": "decide", "decider": "runbook", "message": "out of ideas"})
        w.emit(
            "run_finished",
            {"status": "finished", "goal_met": False, "steps": 2, "escalations": 1, "signed_off_by": "alice"},
        )
        return w.path


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return write_session(tmp_path / "run")


@pytest.fixture
def session_writer() -> Callable[[Path], Path]:
    return write_session
