"""The loop on a local target with a scripted decider: approvals, denials, resume, crashes, replies.

Commands are harmless (echo, sleep, touch in a temporary directory). Agent processes are real
processes; state is a real SQLite file; replies come from real `opsagent` processes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from agent.deciders.scripted import ScriptedDecider
from agent.hearing.approvers import ListApprover
from agent.loop.runner import RunOutcome, start_run
from agent.state import Action, AgentState, Decision, Goal
from agent.store.records import RunSpec
from agent.store.sqlite import Store
from agent.transcript.reader import read_events
from agent.transcript.verify import verify_transcript
from tests.opsagent_process import CliRun
from tools.local import LocalTarget

HERE = Path(__file__).parent
DRIVE = HERE / "drive.py"
POLICY = HERE / "policy.yaml"


def _act(command: str) -> Decision:
    return Decision(action=Action(tool="run_command", args={"command": command}), rationale="test", confidence=0.9)


def _finish() -> Decision:
    return Decision(kind="finish", goal_met=True, rationale="done")


def _spec(workspace: Path, run_id: str) -> RunSpec:
    return RunSpec(
        run_id=run_id,
        goal=Goal(text="loop test").model_dump(mode="json"),
        target="local",
        decider="scripted",
        policies=[str(POLICY)],
        transcript=str(workspace / "transcripts" / f"{run_id}.jsonl"),
    )


def _run(workspace: Path, run_id: str, decider: ScriptedDecider, approver: ListApprover) -> RunOutcome:
    """A run on the local target in the test's work directory, answered by `approver`."""
    return start_run(
        _spec(workspace, run_id),
        Store(workspace / "state"),
        lambda _r: approver,
        decider=decider,
        target=LocalTarget(str(workspace / "work")),
    )


def _types(transcript: Path) -> list[tuple[str, dict[str, object]]]:
    return [(e.type, e.payload) for e in read_events(transcript)]


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_action_needing_approval_runs_exactly_once_after_approval(workspace: Path) -> None:
    work = workspace / "work"
    count = work / "count"
    decider = ScriptedDecider([_act(f"touch {work}/flag; echo ran >> {count}"), _finish()])
    approver = ListApprover(["approve", "approve"])
    outcome = _run(workspace, "approve-once", decider, approver)
    assert outcome.status == "finished"
    assert _lines(count) == ["ran"]
    events = _types(outcome.transcript)
    asked = [p for t, p in events if t == "question"]
    assert [q["trigger"] for q in asked] == ["policy_ask", "goal_met"]
    assert [t for t, _ in events].count("action_started") == 1
    verdicts = [p for t, p in events if t == "verdict"]
    assert verdicts[0]["decision"] == "ask" and "touch-needs-approval" in verdicts[0]["rules"]
    assert verdicts[1]["decision"] == "allow"  # the same action, re-checked and approved once
    assert verify_transcript(outcome.transcript).ok


def test_an_approval_counts_once(workspace: Path) -> None:
    """Two identical actions: approving the first does not approve the second."""
    work = workspace / "work"
    count = work / "count"
    command = f"touch {work}/flag; echo ran >> {count}"
    decider = ScriptedDecider([_act(command), _act(command), _finish()])
    approver = ListApprover(["approve", "deny not twice", "approve"])
    outcome = _run(workspace, "approve-single-use", decider, approver)
    assert _lines(count) == ["ran"]
    assert [q.trigger for q in approver.asked] == ["policy_ask", "policy_ask", "goal_met"]
    assert any("not twice" in d for d in outcome.state.get("denials", []))


def test_policy_denial_reaches_the_decider_and_the_run_continues(workspace: Path) -> None:
    work = workspace / "work"
    seen: list[list[str]] = []

    def after_denial(state: AgentState) -> Decision:
        seen.append(list(state.get("denials", [])))
        return _act(f"echo after >> {work}/count")

    decider = ScriptedDecider([_act("sudo reboot"), after_denial, _finish()])
    outcome = _run(workspace, "deny", decider, ListApprover(["approve"]))
    assert outcome.status == "finished"
    assert seen and "never-reboot" in seen[0][0]
    assert _lines(work / "count") == ["after"]
    started = [p for t, p in _types(outcome.transcript) if t == "action_started"]
    assert all("reboot" not in json.dumps(p) for p in started)


def test_an_edit_goes_through_the_gate_again(workspace: Path) -> None:
    work = workspace / "work"
    decider = ScriptedDecider([_act(f"touch {work}/flag"), _finish()])
    approver = ListApprover([f"edit echo edited >> {work}/count", "approve"])
    outcome = _run(workspace, "edit", decider, approver)
    assert _lines(work / "count") == ["edited"]
    assert not (work / "flag").exists()
    verdicts = [p for t, p in _types(outcome.transcript) if t == "verdict"]
    assert "edited" in json.dumps(verdicts[-1]["action"])


def test_an_edit_the_policy_denies_is_denied(workspace: Path) -> None:
    work = workspace / "work"
    decider = ScriptedDecider([_act(f"touch {work}/flag"), _finish()])
    approver = ListApprover(["edit reboot", "approve"])
    outcome = _run(workspace, "edit-deny", decider, approver)
    verdicts = [p for t, p in _types(outcome.transcript) if t == "verdict"]
    assert verdicts[-1]["decision"] == "deny"
    assert [t for t, _ in _types(outcome.transcript)].count("action_started") == 0


def _drive(workspace: Path, mode: str, script: Path, run_id: str, approver: str, **extra: str) -> subprocess.Popen[str]:
    args = [
        sys.executable,
        str(DRIVE),
        mode,
        "--state",
        str(workspace / "state"),
        "--transcripts",
        str(workspace / "transcripts"),
        "--script",
        str(script),
        "--run-id",
        run_id,
        "--work-dir",
        str(workspace / "work"),
        "--approver",
        approver,
    ]
    for key, value in extra.items():
        args += [f"--{key}", value]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=workspace)


def _script(workspace: Path, decisions: list[Decision]) -> Path:
    path = workspace / "script.yaml"
    path.write_text(yaml.safe_dump([d.model_dump(mode="json") for d in decisions]))
    return path


def _finish_proc(proc: subprocess.Popen[str], timeout: float = 60) -> str:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return out


def test_resume_from_a_new_process_reads_the_sqlite_checkpoint(workspace: Path, cli: CliRun) -> None:
    work = workspace / "work"
    script = _script(workspace, [_act(f"touch {work}/flag; echo ran >> {work}/count"), _finish()])
    first = _finish_proc(_drive(workspace, "start", script, "resume-me", "none"))
    assert "STATUS waiting" in first
    assert (workspace / "state" / "checkpoints.sqlite").stat().st_size > 0
    assert not (work / "count").exists()
    replied = cli("reply", "resume-me", "approve")
    assert replied.returncode == 0, replied.stderr
    assert "opsagent resume resume-me" in replied.stdout
    second = _finish_proc(_drive(workspace, "resume", script, "resume-me", "list:approve"))
    assert "STATUS finished" in second
    assert _lines(work / "count") == ["ran"]
    assert verify_transcript(workspace / "transcripts" / "resume-me.jsonl").ok


def test_sigkill_mid_action_then_resume_asks_and_never_reruns(workspace: Path) -> None:
    work = workspace / "work"
    started, count = work / "started", work / "count"
    script = _script(workspace, [_act(f"echo go >> {started}; sleep 2; echo done >> {count}"), _finish()])
    agent = _drive(workspace, "start", script, "killed", "scripted")
    deadline = time.monotonic() + 30
    while not started.exists():
        assert time.monotonic() < deadline, "the action never started"
        time.sleep(0.05)
    os.kill(agent.pid, signal.SIGKILL)
    agent.wait()
    deadline = time.monotonic() + 30
    while not count.exists():  # the command itself lives on in its own process group and ends
        assert time.monotonic() < deadline
        time.sleep(0.1)
    resumed = _finish_proc(_drive(workspace, "resume", script, "killed", "scripted"))
    assert "STATUS finished" in resumed
    assert _lines(started) == ["go"] and _lines(count) == ["done"]  # ran once, never re-run
    events = list(read_events(workspace / "transcripts" / "killed.jsonl"))
    questions = [e.payload for e in events if e.type == "question"]
    assert questions[0]["trigger"] == "outcome_unknown"
    assert "echo go" in json.dumps(questions[0]["action"])
    assert [e.type for e in events].count("action_started") == 1


def test_reply_from_a_second_process_while_the_first_waits(workspace: Path, cli: CliRun) -> None:
    work = workspace / "work"
    script = _script(workspace, [_act(f"touch {work}/flag; echo ran >> {work}/count"), _finish()])
    agent = _drive(workspace, "start", script, "waiter", "inbox")
    for expected in ("policy_ask", "goal_met"):
        deadline = time.monotonic() + 60
        while True:
            listed = json.loads(cli("inbox", "--json").stdout or "[]")
            if listed and listed[0]["trigger"] == expected:
                break
            assert agent.poll() is None, agent.communicate()
            assert time.monotonic() < deadline, f"no {expected} question appeared"
            time.sleep(0.1)
        assert listed[0]["run_id"] == "waiter"
        answered = cli("reply", "waiter", "approve", "--as", "alice")
        assert answered.returncode == 0, answered.stderr
        assert "continues in process" in answered.stdout
    assert "STATUS finished" in _finish_proc(agent)
    assert _lines(work / "count") == ["ran"]
    replies = [e.payload for e in read_events(workspace / "transcripts" / "waiter.jsonl") if e.type == "reply"]
    assert [r["who"] for r in replies] == ["alice", "alice"]


@pytest.fixture
def waiting_run(workspace: Path) -> str:
    work = workspace / "work"
    script = _script(workspace, [_act(f"touch {work}/flag"), _finish()])
    assert "STATUS waiting" in _finish_proc(_drive(workspace, "start", script, "bad-replies", "none"))
    return "bad-replies"


def _inbox(cli: CliRun) -> list[dict[str, object]]:
    return list(json.loads(cli("inbox", "--json").stdout))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-run", "approve"], "unknown run"),
        (["bad-replies", "blah"], "unknown reply 'blah'"),
        (["bad-replies", "--edit", "sudo reboot"], "the policy denies the edited command"),
        (["bad-replies", "continue", "--steps", "0"], "--steps must be a positive number"),
        (["bad-replies"], "give exactly one reply"),
    ],
)
def test_bad_replies_change_nothing(cli: CliRun, waiting_run: str, args: list[str], message: str) -> None:
    before = _inbox(cli)
    result = cli("reply", *args)
    assert result.returncode != 0
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert _inbox(cli) == before


def test_a_question_already_answered_is_refused(cli: CliRun, waiting_run: str) -> None:
    assert cli("reply", waiting_run, "deny", "--reason", "no").returncode == 0
    again = cli("reply", waiting_run, "approve")
    assert again.returncode != 0
    assert "no open question" in again.stderr


def test_an_expired_question_is_refused_and_counts_as_deny(workspace: Path, cli: CliRun) -> None:
    work = workspace / "work"
    script = _script(workspace, [_act(f"touch {work}/flag"), _finish()])
    out = _finish_proc(_drive(workspace, "start", script, "expiring", "none", ttl="0.2"))
    assert "STATUS waiting" in out
    time.sleep(0.5)
    result = cli("reply", "expiring", "approve")
    assert result.returncode != 0
    assert "expired" in result.stderr
    assert _inbox(cli) == []
    assert not (work / "flag").exists()


def _unsure(command: str, milestone: str | None = None) -> Decision:
    return Decision(action=Action(tool="run_command", args={"command": command}), confidence=0.2, milestone=milestone)


def test_autonomy_until_a_named_milestone(workspace: Path) -> None:
    work = workspace / "work"
    log = work / "log"
    decider = ScriptedDecider(
        [
            _unsure(f"echo a >> {log}"),
            _unsure(f"echo b >> {log}"),
            _unsure(f"echo c >> {log}", milestone="ready"),
            _unsure(f"echo d >> {log}"),
            _finish(),
        ]
    )
    approver = ListApprover(["continue until ready", "continue", "approve"])
    _run(workspace, "milestone", decider, approver)
    # asked about a; b and c ran unasked up to the milestone; d was asked again
    assert [q.trigger for q in approver.asked] == ["low_confidence", "low_confidence", "goal_met"]
    assert approver.asked[1].action is not None and "echo d" in approver.asked[1].action.args["command"]
    assert _lines(log) == ["a", "b", "c", "d"]


def test_continue_with_steps_grants_that_many_unasked_steps(workspace: Path) -> None:
    work = workspace / "work"
    log = work / "log"
    decider = ScriptedDecider([_unsure(f"echo {n} >> {log}") for n in range(5)] + [_finish()])
    approver = ListApprover(["continue --steps 3", "continue", "approve"])
    _run(workspace, "steps", decider, approver)
    assert [q.trigger for q in approver.asked] == ["low_confidence", "low_confidence", "goal_met"]
    assert approver.asked[1].action is not None and "echo 3" in approver.asked[1].action.args["command"]
    assert _lines(log) == ["0", "1", "2", "3", "4"]
