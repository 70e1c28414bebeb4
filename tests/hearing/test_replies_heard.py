"""Each kind of reply changes the next decision: at a real terminal (pty) and through `opsagent reply`
from a second process, on the lab with the runbook decider."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from agent.cli.exitcodes import WAITING
from agent.state import Question
from agent.store.sqlite import Store
from agent.transcript.reader import read_events
from tests.opsagent_process import CliRun
from tests.terminal import at_terminal, read_until

POLICY_ASK_LAUNCH = """\
version: 1
description: every launch needs the operator's approval (test)
rules:
  - id: ask-launch
    decision: ask
    reason: the test asks before every launch
    match:
      tool: [launch_server]
"""


def _asking_before_launches(workspace: Path, run_id: str) -> list[str]:
    """`opsagent run` arguments for vm-no-p2p with every launch asking the operator first."""
    policy = workspace / "ask-launch.yaml"
    policy.write_text(POLICY_ASK_LAUNCH)
    default = Path(__file__).resolve().parents[2] / "policies" / "default.yaml"
    return ["--target", "lab:vm-no-p2p", "--run-id", run_id, "--policy", str(default), "--policy", str(policy)]


def _say(fd: int, seen: bytearray, line: str, until: bytes = b"reply>") -> str:
    start = len(seen)
    os.write(fd, line.encode() + b"\n")
    read_until(fd, until, seen)
    return " ".join(seen[start:].decode(errors="replace").split())  # the terminal wraps the report


def _events(workspace: Path, run_id: str) -> list[tuple[str, dict[str, Any]]]:
    return [(e.type, e.payload) for e in read_events(workspace / "transcripts" / f"{run_id}.jsonl")]


def _after_reply(events: list[tuple[str, dict[str, Any]]], n: int) -> list[tuple[str, dict[str, Any]]]:
    """The events after the n-th reply (0-based), up to the next question."""
    seen = -1
    out: list[tuple[str, dict[str, Any]]] = []
    for kind, payload in events:
        if seen == n and kind == "question":
            break
        if seen == n:
            out.append((kind, payload))
        if kind == "reply":
            seen += 1
    return out


def _launches(events: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [p["action"]["args"] for k, p in events if k == "action_started" and p["action"]["tool"] == "launch_server"]


def _reports(events: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [p["markdown"] for k, p in events if k == "report"]


def _finish(pid: int, fd: int, seen: bytearray) -> None:
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) in (0, 1, 2, 3), seen.decode(errors="replace")[-2000:]


def test_picks_words_and_unknown_words_at_the_terminal(workspace: Path) -> None:
    pid, fd = at_terminal(workspace, "run", "--target", "lab:vm-no-p2p", "--run-id", "tty-words")
    seen = bytearray()
    # out of candidates below the goal (the runbook tried TP4 x DP2 itself): accepting the
    # measurement is the one step left, and it is the operator's sign-off to give
    read_until(fd, b"reply>", seen)
    shown = " ".join(seen.decode(errors="replace").split())
    assert "accept what was" in shown and "your sign-off (reply 1" in shown  # a table: cells wrap
    shown = _say(fd, seen, "9")
    assert "there is no step 9" in shown  # refused at once; the same prompt again
    shown = _say(fd, seen, "1")  # picked: the final report, for the sign-off
    assert "you accepted what was measured as the goal" in shown
    _say(fd, seen, "make it sing")  # words instead of the sign-off: the run goes on with them
    _say(fd, seen, "use port 30001")
    _say(fd, seen, "edit nvidia-smi -L")  # nothing proposed: the command runs, through the gate
    shown = _say(fd, seen, "approve")  # the goal is not met: approve signs nothing off (#27)
    assert "'approve' does not sign off here" in shown
    _say(fd, seen, "sign off", until=b"transcript:")
    _finish(pid, fd, seen)

    events = _events(workspace, "tty-words")
    replies = [p for k, p in events if k == "reply"]
    assert [r["kind"] for r in replies] == ["pick", "say", "say", "edit", "approve"]
    # 1 (the sign-off step): the best measured configuration (A3) is made the one that serves
    # (#30), then the final report asks for the sign-off
    restored = [p["action"]["tool"] for k, p in _after_reply(events, 0) if k == "action_started"][:3]
    assert restored == ["stop_server", "launch_server", "wait_server"]
    questions = [p for k, p in events if k == "question"]
    assert questions[0]["trigger"] == "decider_asks" and questions[1]["trigger"] == "gave_up"
    assert "you accepted what was measured as the goal" in _reports(events)[1]
    # words it cannot act on: nothing launched, and the next report says so
    assert _launches(_after_reply(events, 1)) == []
    assert 'I did not understand: "make it sing"' in _reports(events)[2]
    # an instruction: the best configuration relaunched on port 30001
    relaunched = _launches(_after_reply(events, 2))
    assert relaunched and all(a["port"] == 30001 for a in relaunched)
    assert 'you said "use port 30001": in force' in _reports(events)[-2]
    edited = [(k, p) for k, p in _after_reply(events, 3) if k in ("verdict", "action_started")]
    assert edited[0][1]["action"]["args"] == {"command": "nvidia-smi -L"} and edited[0][1]["decision"] == "allow"
    assert edited[1][1]["action"]["args"] == {"command": "nvidia-smi -L"}
    finished = next(p for k, p in events if k == "run_finished")
    assert finished["signed_off_by"] and finished["goal_met"] is False


# The KV cache cannot hold 8,192 concurrent requests on these GPUs: the runbook asks before any
# launch, offering two launches (the layout anyway, or with an fp8 KV cache). Left to itself
# (`continue`) it launches nothing; a number launches exactly that step.
KV_SHORT = [
    "--target",
    "lab:healthy-host",
    "--goal",
    "Serve /models/Qwen3-235B-A22B-Instruct-2507-FP8 on GPUs 0-7 at >= 2,000 tok/s aggregate output"
    " at concurrency 8192",
]


def test_a_number_picks_that_step_at_the_terminal(workspace: Path) -> None:
    pid, fd = at_terminal(workspace, "run", *KV_SHORT, "--run-id", "tty-pick")
    seen = bytearray()
    read_until(fd, b"reply>", seen)
    assert "a number (1-2) to pick a next step" in " ".join(seen.decode(errors="replace").split())
    _say(fd, seen, "2")  # the fp8 KV cache launch
    _say(fd, seen, "stop", until=b"transcript:")
    _finish(pid, fd, seen)

    events = _events(workspace, "tty-pick")
    offered = next(p for k, p in events if k == "question")["options"]
    assert [o["action"]["tool"] for o in offered] == ["launch_server", "launch_server"]
    assert _launches(_after_reply(events, -1)) == []  # asked before any launch
    assert _launches(_after_reply(events, 0)) == [offered[1]["action"]["args"]]  # exactly step 2
    assert offered[1]["action"]["args"]["kv_cache_dtype"] == "fp8_e4m3"


def test_a_number_picks_that_step_from_a_second_process(cli: CliRun, workspace: Path) -> None:
    assert cli("run", *KV_SHORT, "--detach", "--run-id", "far-pick").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "far-pick", None)
    offered = first.options[0].action
    assert offered is not None and offered.tool == "launch_server" and len(first.options) == 2
    picked = cli("reply", "far-pick", "1")
    assert picked.returncode == 0, picked.stderr
    _wait_question(store, "far-pick", first.id)
    assert cli("reply", "far-pick", "stop").returncode == 0
    assert _launches(_after_reply(_events(workspace, "far-pick"), 0)) == [offered.args]


def test_continue_instead_of_a_number_launches_nothing(cli: CliRun, workspace: Path) -> None:
    """The contrast to the picks above: the run's own next step after that question is not a launch."""
    assert cli("run", *KV_SHORT, "--detach", "--run-id", "far-cont").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "far-cont", None)
    assert cli("reply", "far-cont", "continue").returncode == 0
    final = _wait_question(store, "far-cont", first.id)
    assert final.trigger == "gave_up"
    assert cli("reply", "far-cont", "stop").returncode == 0
    assert _launches(_events(workspace, "far-cont")) == []


def test_the_sign_off_step_picked_from_a_second_process(cli: CliRun, workspace: Path) -> None:
    assert cli("run", "--target", "lab:vm-no-p2p", "--detach", "--run-id", "far-sign").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "far-sign", None)
    assert [o.number for o in first.options] == [1] and "your sign-off" in first.report_markdown
    assert cli("reply", "far-sign", "1").returncode == 0
    final = _wait_question(store, "far-sign", first.id)
    assert final.trigger == "gave_up" and "you accepted what was measured as the goal" in final.report_markdown
    refused = cli("reply", "far-sign", "approve")  # the goal is not met: only an explicit sign-off (#27)
    assert refused.returncode != 0 and "does not sign off here" in refused.stderr
    assert cli("reply", "far-sign", "sign off").returncode == 0
    events = _events(workspace, "far-sign")
    ran = [p["action"]["tool"] for k, p in _after_reply(events, 0) if k == "action_started"]
    assert ran == ["stop_server", "launch_server", "wait_server"]  # A3, the best measured, serves (#30)
    _wait_finished(workspace, "far-sign")
    finished = next(p for k, p in _events(workspace, "far-sign") if k == "run_finished")
    assert finished["signed_off_by"] and finished["goal_met"] is False


def _wait_finished(workspace: Path, run_id: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not any(k == "run_finished" for k, _ in _events(workspace, run_id)):
        assert time.monotonic() < deadline, f"{run_id} did not finish"
        time.sleep(0.2)


def test_a_deny_excludes_the_action_and_says_it_was_the_operator(workspace: Path) -> None:
    args = _asking_before_launches(workspace, "tty-deny")
    pid, fd = at_terminal(workspace, "run", *args)
    seen = bytearray()
    read_until(fd, b"reply>", seen)
    assert "needs your approval" in seen.decode(errors="replace")
    shown = _say(fd, seen, "deny not this configuration")
    assert "you denied" in shown and "your reason: not this configuration" in shown
    shown = _say(fd, seen, "use port 30001")  # the same launch on another port is a different action
    assert "needs your approval" in shown and "port=30001" in shown
    _say(fd, seen, "approve")
    _say(fd, seen, "stop", until=b"transcript:")
    _finish(pid, fd, seen)

    events = _events(workspace, "tty-deny")
    denied = next(p["action"] for k, p in events if k == "question")
    assert denied["tool"] == "launch_server" and denied["args"]["port"] == 30000
    launches = _launches(events)
    assert launches and all(a["port"] == 30001 for a in launches)  # the denied one never ran
    # the denied launch was never proposed to the operator again
    asked = [p["action"] for k, p in events if k == "question" and p.get("action")]
    assert sum(a == denied for a in asked) == 1
    report = _reports(events)[1]
    assert "### What you told me" in report and "you denied: launch_server(" in report
    assert "Denied by the policy" not in report


def _wait_question(store: Store, run_id: str, after: str | None, timeout: float = 120) -> Question:
    deadline = time.monotonic() + timeout
    while True:
        question = store.current_question(run_id)
        if question is not None and question.id != after:
            return question
        assert time.monotonic() < deadline, f"no new question after {after}"
        time.sleep(0.2)


def test_replies_from_a_second_process_change_the_next_decision(cli: CliRun, workspace: Path) -> None:
    started = cli("run", "--target", "lab:vm-no-p2p", "--detach", "--run-id", "far")
    assert started.returncode == WAITING, started.stderr
    store = Store(workspace / "state")
    first = _wait_question(store, "far", None)
    assert [o.number for o in first.options] == [1]  # accept the measurement: the operator's decision

    refused = cli("reply", "far", "7")
    assert refused.returncode != 0 and "there is no step 7" in refused.stderr + refused.stdout
    refused = cli("reply", "far", "deny")
    assert refused.returncode != 0 and "no action to deny" in refused.stderr + refused.stdout

    said = cli("reply", "far", "--say", "use port 30001, set NCCL_DEBUG=INFO")
    assert said.returncode == 0 and "heard: use port 30001; set NCCL_DEBUG=INFO" in said.stdout
    after_say = _wait_question(store, "far", first.id)
    edited = cli("reply", "far", "--edit", "nvidia-smi -L")
    assert edited.returncode == 0, edited.stderr
    after_edit = _wait_question(store, "far", after_say.id)
    assert cli("reply", "far", "stop").returncode == 0

    events = _events(workspace, "far")
    relaunched = _launches(_after_reply(events, 0))
    assert relaunched and all(a["port"] == 30001 and a["env"].get("NCCL_DEBUG") == "INFO" for a in relaunched)
    ran = [p["action"]["args"] for k, p in _after_reply(events, 1) if k == "action_started"]
    assert ran[0] == {"command": "nvidia-smi -L"}  # the edit ran, through the gate, with nothing pending
    assert after_edit.trigger in ("gave_up", "decider_asks")


def test_a_step_outside_my_reach_is_answered_not_taken(cli: CliRun, workspace: Path) -> None:
    family = Path(__file__).resolve().parents[2] / "tools" / "lab" / "families" / "model-too-big.yaml"
    assert cli("run", "--target", f"lab:{family}#3", "--detach", "--run-id", "far-reach").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "far-reach", None)
    assert first.options and all(o.action is None for o in first.options)  # nothing fits: all the operator's
    assert "outside my reach" in first.report_markdown
    assert cli("reply", "far-reach", "1").returncode == 0
    again = _wait_question(store, "far-reach", first.id)
    assert f'step 1 ("{first.options[0].description}") is outside my reach' in again.report_markdown
    assert [o.description for o in again.options] == [o.description for o in first.options[1:]]
    assert cli("reply", "far-reach", "stop").returncode == 0
    assert _launches(_events(workspace, "far-reach")) == []


GOAL = "serve /models/Qwen3-235B-A22B-Instruct-2507-FP8 at 2,000 tok/s"  # no concurrency, neither aggregate nor single


def _benchmarks(events: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [p["action"]["args"] for k, p in events if k == "action_started" and p["action"]["tool"] == "run_benchmark"]


def test_an_unclear_goal_is_asked_before_anything_runs_at_the_terminal(workspace: Path) -> None:
    pid, fd = at_terminal(workspace, "run", "--target", "lab:healthy-host", "--goal", GOAL, "--run-id", "tty-goal")
    seen = bytearray()
    read_until(fd, b"reply>", seen)
    shown = " ".join(seen.decode(errors="replace").split())
    assert "I propose aggregate output tokens/s at concurrency 64" in shown
    assert "How I read the goal: 2,000 tok/s: aggregate output tokens/s at concurrency 64" in shown
    _say(fd, seen, "approve")  # the proposed reading
    _say(fd, seen, "approve", until=b"transcript:")  # the sign-off
    _finish(pid, fd, seen)
    events = _events(workspace, "tty-goal")
    kinds = [k for k, _ in events]
    assert kinds.index("question") < kinds.index("action_started")  # asked before anything ran
    assert next(p["trigger"] for k, p in events if k == "question") == "goal_unclear"
    assert _benchmarks(events)[0]["concurrency"] == [1, 64]


def test_an_unclear_goal_answered_from_a_second_process(cli: CliRun, workspace: Path) -> None:
    started = cli("run", "--target", "lab:healthy-host", "--goal", GOAL, "--detach", "--run-id", "far-goal")
    assert started.returncode == WAITING, started.stderr
    store = Store(workspace / "state")
    question = _wait_question(store, "far-goal", None)
    assert question.trigger == "goal_unclear"
    assert not any(k == "action_started" for k, _ in _events(workspace, "far-goal"))
    vague = cli("reply", "far-goal", "deny")
    assert vague.returncode != 0 and "no action to deny" in vague.stdout + vague.stderr
    assert cli("reply", "far-goal", "--say", "aggregate at concurrency 32").returncode == 0
    signoff = _wait_question(store, "far-goal", question.id)
    assert signoff.trigger == "goal_met"
    assert "2,000 tok/s: aggregate output tokens/s at concurrency 32" in signoff.report_markdown
    assert cli("reply", "far-goal", "approve").returncode == 0
    assert _benchmarks(_events(workspace, "far-goal"))[0]["concurrency"] == [1, 32]


def test_a_deny_from_a_second_process_excludes_the_action(cli: CliRun, workspace: Path) -> None:
    args = _asking_before_launches(workspace, "far-deny")
    assert cli("run", *args, "--detach").returncode == WAITING
    store = Store(workspace / "state")
    asked = _wait_question(store, "far-deny", None)
    assert asked.trigger == "policy_ask" and asked.action is not None
    assert cli("reply", "far-deny", "deny", "--reason", "not this configuration").returncode == 0
    stuck = _wait_question(store, "far-deny", asked.id)
    assert stuck.action is None and "you denied" in stuck.question  # not the same proposal again
    assert "your reason: not this configuration" in stuck.report_markdown
    assert cli("reply", "far-deny", "--say", "use port 30001").returncode == 0
    moved = _wait_question(store, "far-deny", stuck.id)
    assert moved.trigger == "policy_ask" and moved.action is not None and moved.action.args["port"] == 30001
    assert cli("reply", "far-deny", "stop").returncode == 0
    assert _launches(_events(workspace, "far-deny")) == []


def test_stop_the_server_from_a_second_process(cli: CliRun, workspace: Path) -> None:
    assert cli("run", "--target", "lab:vm-no-p2p", "--detach", "--run-id", "far-stop").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "far-stop", None)
    said = cli("reply", "far-stop", "--say", "stop the server")
    assert said.returncode == 0 and "heard: stop the server" in said.stdout
    second = _wait_question(store, "far-stop", first.id)
    assert "no new launch until you say 'relaunch'" in second.report_markdown
    assert cli("reply", "far-stop", "stop").returncode == 0
    after = _after_reply(_events(workspace, "far-stop"), 0)
    ran = [p["action"]["tool"] for k, p in after if k == "action_started"]
    assert ran == ["stop_server"]


def test_settings_given_before_the_first_launch_are_launched(cli: CliRun, workspace: Path) -> None:
    """Asked before any launch (the KV cache cannot hold the goal), the operator answers with
    settings: the run launches its proposed layout with them, rather than giving up because there
    was no earlier launch to relaunch."""
    family = Path(__file__).parents[2] / "tools" / "lab" / "families" / "fp8-kv-needed.yaml"
    assert cli("run", "--target", f"lab:{family}#7", "--detach", "--run-id", "far-set").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "far-set", None)
    assert _launches(_events(workspace, "far-set")) == []
    said = cli("reply", "far-set", "--say", "use an fp8 kv cache and bump the mem fraction to 0.93")
    assert said.returncode == 0, said.stderr
    second = _wait_question(store, "far-set", first.id)
    launched = _launches(_after_reply(_events(workspace, "far-set"), 0))
    assert launched and launched[0]["kv_cache_dtype"] == "fp8_e4m3" and launched[0]["mem_fraction_static"] == 0.93
    assert second.trigger == "goal_met"
    assert cli("reply", "far-set", "stop").returncode == 0


def test_a_slip_inside_a_reply_is_said_back_at_the_terminal(workspace: Path) -> None:
    args = _asking_before_launches(workspace, "tty-slip")
    pid, fd = at_terminal(workspace, "run", *args)
    seen = bytearray()
    read_until(fd, b"reply>", seen)
    shown = _say(fd, seen, "yep go ahed")  # not the first word: read only once 'ahed' is put right
    assert "read 'ahed' as ahead" in shown
    _say(fd, seen, "stop", until=b"transcript:")
    _finish(pid, fd, seen)
    assert _launches(_events(workspace, "tty-slip"))  # the approval was taken: the launch ran


def test_a_slip_inside_a_reply_is_said_back_from_a_second_process(cli: CliRun, workspace: Path) -> None:
    args = _asking_before_launches(workspace, "far-slip")
    assert cli("run", *args, "--detach").returncode == WAITING
    store = Store(workspace / "state")
    asked = _wait_question(store, "far-slip", None)
    answered = cli("reply", "far-slip", "--say", "absolutly not, not this one")
    assert answered.returncode == 0 and "read 'absolutly' as absolutely" in answered.stdout
    after = _wait_question(store, "far-slip", asked.id)
    assert "you denied" in after.question
    assert cli("reply", "far-slip", "stop").returncode == 0
