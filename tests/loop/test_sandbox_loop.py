"""The loop on a sandboxed local target (real bubblewrap): a blocked write is explained and not
retried, an escalation is asked as such and runs outside, a denial stays a denial, and the run's
transcript and reports state the sandbox.

The only "write" is a probe: `/etc/passwd` opened for appending, nothing written.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agent.deciders.scripted import ScriptedDecider
from agent.hearing.approvers import ListApprover
from agent.loop.runner import RunOutcome, start_run
from agent.state import Action, Decision, Goal
from agent.store.records import RunSpec
from agent.store.sqlite import Store
from agent.transcript.reader import read_events
from tools.local import LocalTarget
from tools.sandbox import SandboxSpec

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap: apt-get install -y bubblewrap")
POLICY = Path(__file__).parent / "policy.yaml"
PROBE = ": >> /etc/passwd"  # opens for appending, writes nothing


def _act(command: str, **extra: object) -> Decision:
    args = {"command": command, **extra}
    return Decision(action=Action(tool="run_command", args=args), rationale="test", confidence=0.9)


def _run(workspace: Path, run_id: str, decisions: list[Decision], replies: list[str]) -> RunOutcome:
    spec = RunSpec(
        run_id=run_id,
        goal=Goal(text="sandbox test").model_dump(mode="json"),
        target="local",
        decider="scripted",
        policies=[str(POLICY)],
        transcript=str(workspace / "transcripts" / f"{run_id}.jsonl"),
    )
    target = LocalTarget(str(workspace / "work"), sandbox=SandboxSpec(mode="require"))
    return start_run(
        spec,
        Store(workspace / "state"),
        lambda _r: ListApprover(replies),
        decider=ScriptedDecider(decisions),
        target=target,
    )


def test_a_blocked_write_is_explained_and_its_retry_becomes_a_question(workspace: Path) -> None:
    outcome = _run(workspace, "blocked", [_act(PROBE), _act(PROBE), _act(PROBE)], ["approve", "stop"])
    events = list(read_events(outcome.transcript))
    started = [e for e in events if e.type == "action_started"]
    assert len(started) == 1, "the blocked command ran once, never again"
    blocked = outcome.state["observations"][0]
    assert blocked.error_kind == "sandbox_blocked"
    # a root login runs as an unprivileged uid inside: the permissions refuse before the mount does
    refusal = "Permission denied" if os.geteuid() == 0 else "Read-only file system"
    assert refusal in blocked.summary and "the sandbox blocked this command" in blocked.summary
    questions = [e.payload for e in events if e.type == "question"]
    assert "the sandbox blocked `: >> /etc/passwd`" in questions[-1]["reason"]
    report = [e.payload["markdown"] for e in events if e.type == "report"][-1]
    assert "The sandbox blocked `: >> /etc/passwd` (step 1)" in report
    assert refusal in report
    assert "**Sandbox:** on (policy setting require)" in report
    run_started = next(e.payload for e in events if e.type == "run_started")
    assert str(run_started["sandbox"]).startswith("on (policy setting require): bubblewrap")


def test_an_escalation_is_asked_as_such_and_runs_outside(workspace: Path) -> None:
    probe = "grep ^CapEff /proc/self/status"
    outcome = _run(
        workspace,
        "escalate",
        [_act(probe, outside_sandbox=True), Decision(kind="finish", goal_met=True, rationale="done")],
        ["approve", "approve"],
    )
    events = list(read_events(outcome.transcript))
    question = next(e.payload for e in events if e.type == "question")
    assert "runs outside the sandbox, as root" in question["reason"]
    verdict = next(e.payload for e in events if e.type == "verdict")
    assert "sandbox-escalation" in verdict["rules"]
    observation = outcome.state["observations"][0]
    assert observation.ok and observation.data["sandboxed"] is False
    if os.geteuid() == 0:  # outside the sandbox a root command keeps its capabilities
        assert observation.data["stdout"].split()[-1] != "0000000000000000"


def test_an_escalation_cannot_override_a_denial(workspace: Path) -> None:
    outcome = _run(
        workspace,
        "denied",
        [_act("reboot", outside_sandbox=True), Decision(kind="finish", goal_met=True, rationale="done")],
        ["approve", "approve"],
    )
    events = list(read_events(outcome.transcript))
    verdicts = [e.payload for e in events if e.type == "verdict"]
    assert verdicts[0]["decision"] == "deny" and "never-reboot" in verdicts[0]["rules"]
    assert not [e for e in events if e.type == "action_started"]
