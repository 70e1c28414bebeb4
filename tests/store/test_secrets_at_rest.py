"""Secrets at rest: a token planted in the goal, in the environment and in a tool's output is in no
file under the state or transcript directories, whether the run waits at a question or has ended:
the raw bytes of every file are searched, the SQLite databases, their WAL files and the
checkpoint blobs included."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.deciders.scripted import ScriptedDecider
from agent.hearing.approvers import ListApprover
from agent.loop.runner import start_run
from agent.state import Action, Decision, Goal, Question, Reply
from agent.store.records import RunSpec
from agent.store.sqlite import Store
from agent.transcript.verify import verify_transcript
from tools.local import LocalTarget
from tools.sandbox import SandboxSpec

POLICY = Path(__file__).parents[1] / "loop" / "policy.yaml"
GOAL_TOKEN = "hf_GoalGoalGoal0123456789abcdefghijklmn"  # shaped like a Hugging Face token
ENV_TOKEN = "Zq8pL2mX9vR4tK7w"  # no known shape: caught because its variable is named like a secret
FILE_TOKEN = "hf_FileFileFile0123456789abcdefghijklmn"


def _act(command: str) -> Decision:
    return Decision(action=Action(tool="run_command", args={"command": command}), rationale="test", confidence=0.9)


@pytest.fixture
def planted_env() -> Iterator[None]:
    os.environ["OPSAGENT_PROBE_TOKEN"] = ENV_TOKEN
    try:
        yield
    finally:
        del os.environ["OPSAGENT_PROBE_TOKEN"]


def _files_holding(roots: list[Path], needles: list[str]) -> list[str]:
    found = []
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file():
                raw = path.read_bytes()
                found += [f"{path.relative_to(root.parent)}: {n}" for n in needles if n.encode() in raw]
    return found


def test_no_token_reaches_the_state_or_transcript_directories(workspace: Path, planted_env: None) -> None:
    work = workspace / "work"
    (work / "notes.txt").write_text(f"download with {FILE_TOKEN}\n")
    decider = ScriptedDecider(
        [
            _act("cat notes.txt"),  # the tool's output carries a token
            _act('echo "token from the environment: $OPSAGENT_PROBE_TOKEN"'),
            _act("touch done"),  # asks, as reading the environment did
            Decision(kind="finish", goal_met=True, rationale="done"),
        ]
    )
    spec = RunSpec(
        run_id="secrets",
        goal=Goal(text=f"serve the model; use HF_TOKEN={GOAL_TOKEN} and {GOAL_TOKEN}").model_dump(mode="json"),
        target="local",
        decider="scripted",
        policies=[str(POLICY)],
        transcript=str(workspace / "transcripts" / "secrets.jsonl"),
    )
    store = Store(workspace / "state")
    roots = [workspace / "state", workspace / "transcripts"]
    needles = [GOAL_TOKEN, ENV_TOKEN, FILE_TOKEN]
    at_question: list[list[str]] = []

    def approve_after_search(question: Question) -> Reply:
        # The run waits here: its question is in the inbox, its state checkpointed.
        assert store.current_question("secrets") is not None
        at_question.append(_files_holding(roots, needles))
        return Reply(question_id=question.id, kind="approve", digest=question.digest, at=question.asked_at)

    target = LocalTarget(str(work), sandbox=SandboxSpec(mode="auto"))
    approver = ListApprover([approve_after_search, "approve", "approve"])
    outcome = start_run(spec, store, lambda _r: approver, decider=decider, target=target)
    assert outcome.status == "finished" and (work / "done").exists()
    assert at_question == [[]], "at the question, no file holds a token"
    assert _files_holding(roots, needles) == [], "at the end, no file holds a token"
    assert any((workspace / "state").glob("*-wal")), "the WAL files were searched too"
    outputs = [o.summary for o in outcome.state["observations"]]
    assert sum("[REDACTED:" in s for s in outputs) == 2, "the tool outputs were scrubbed, not lost"
    assert verify_transcript(Path(spec.transcript)).ok
