"""#27, safety first: what an operator said must never be ignored, inverted or reported "in force"
when it was not understood. Real lab runs, replies from a second process (`opsagent reply`), as an
operator answers a detached run; each test failed on the code before #27 (see its docstring)."""

from __future__ import annotations

import json
from pathlib import Path

from agent.cli.exitcodes import WAITING
from agent.store.sqlite import Store
from tests.hearing.test_replies_heard import (
    GOAL,
    KV_SHORT,
    _after_reply,
    _events,
    _launches,
    _wait_finished,
    _wait_question,
)
from tests.opsagent_process import CliRun


def _one_launch_budget(cli: CliRun, workspace: Path) -> None:
    (workspace / "no-config.yaml").write_text("loop:\n  max_launches: 1\n")


def test_a_deny_at_the_launch_budget_launches_nothing(cli: CliRun, workspace: Path) -> None:
    """Before: "this question proposed no action to deny", then the run launched exactly the denied
    configuration (asking counted as a grant of more launches)."""
    _one_launch_budget(cli, workspace)
    assert cli("run", "--target", "lab:oom-mem-fraction", "--detach", "--run-id", "bud").returncode == WAITING
    store = Store(workspace / "state")
    asked = _wait_question(store, "bud", None)
    assert "I have used 1 launches" in asked.question
    proposed = asked.options[0].action
    assert proposed is not None and proposed.tool == "launch_server"
    denied = cli("reply", "bud", "deny A8 already ran this exact tuning")
    assert denied.returncode == 0, denied.stderr
    again = _wait_question(store, "bud", asked.id)
    events = _events(workspace, "bud")
    assert _launches(_after_reply(events, 0)) == []  # nothing launched past the budget on a deny
    assert "proposed no action to deny" not in again.report_markdown
    assert "you denied: launch_server(" in again.report_markdown
    assert "I have used 1 launches" in again.question  # asked again, not launched
    assert all(o.action is None or o.action.args != proposed.args for o in again.options)  # the denied one is gone
    # the contrast: `continue` is the operator's grant, and one more launch follows
    assert cli("reply", "bud", "continue").returncode == 0
    _wait_question(store, "bud", again.id)
    assert len(_launches(_after_reply(_events(workspace, "bud"), 1))) == 1
    assert cli("reply", "bud", "stop").returncode == 0


def test_continue_approve_and_yes_never_sign_off_a_failed_run(cli: CliRun, workspace: Path) -> None:
    """Before: `continue` at "I have no further step ... How shall I proceed?" recorded "signed off"
    and ended the run; `approve` did the same, with no word in the question that the goal was not met."""
    assert cli("run", *KV_SHORT, "--detach", "--run-id", "gone").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "gone", None)
    assert cli("reply", "gone", "continue").returncode == 0
    final = _wait_question(store, "gone", first.id)
    assert final.trigger == "gave_up" and "the goal is NOT met" in final.question
    for words in (["continue"], ["approve"], ["yes"], ["--say", "yes"], ["looks good"]):
        refused = cli("reply", "gone", *words)
        assert refused.returncode != 0 and "sign off" in refused.stderr, (words, refused.stdout)
        assert store.current_question("gone") is not None  # still waiting: nothing was answered
    assert not any(k == "run_finished" for k, _ in _events(workspace, "gone"))
    assert cli("reply", "gone", "sign off").returncode == 0  # the one explicit word
    _wait_finished(workspace, "gone")
    finished = next(p for k, p in _events(workspace, "gone") if k == "run_finished")
    assert finished["signed_off_by"] and finished["goal_met"] is False


def test_a_partial_reading_is_asked_back_before_anything_acts_on_it(cli: CliRun, workspace: Path) -> None:
    """Before: `don't touch GPU0, the desktop session is on it` became "unset GPU0" (a variable),
    was reported "in force", and the next launch used GPU 0."""
    assert cli("run", "--target", "lab:healthy-host", "--detach", "--run-id", "part").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "part", None)
    assert first.trigger == "goal_met"
    said = cli("reply", "part", "don't touch GPU0, the desktop session is on it")
    assert said.returncode == 0, said.stderr
    asked = _wait_question(store, "part", first.id)
    assert (
        "I read: leave GPU 0 out of every launch. I did not understand: 'the desktop session is on it'. Right?"
        in asked.question
    )
    assert _after_reply(_events(workspace, "part"), 0) == [] or not [
        k for k, _ in _after_reply(_events(workspace, "part"), 0) if k == "action_started"
    ]  # nothing acted on it
    assert "in force:" not in asked.report_markdown and "GPU0" not in asked.report_markdown
    assert cli("reply", "part", "yes").returncode == 0  # exactly my reading, confirmed
    third = _wait_question(store, "part", asked.id)
    launched = _launches(_after_reply(_events(workspace, "part"), 1))
    assert launched and all(0 not in a["gpus"] for a in launched)
    assert "in force: leave GPU 0 out of every launch" in third.report_markdown
    assert cli("reply", "part", "stop").returncode == 0


def test_cuda_visible_devices_is_the_launch_gpu_list(cli: CliRun, workspace: Path) -> None:
    """Before: `CUDA_VISIBLE_DEVICES=2,3` was "in force" as a variable, and the launch's own GPU list
    overrode it."""
    assert cli("run", "--target", "lab:healthy-host", "--detach", "--run-id", "cvd").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "cvd", None)
    assert cli("reply", "cvd", "--say", "CUDA_VISIBLE_DEVICES=2,3").returncode == 0
    second = _wait_question(store, "cvd", first.id)
    launched = _launches(_after_reply(_events(workspace, "cvd"), 0))
    assert launched and all(a["gpus"] == [2, 3] for a in launched)
    assert "CUDA_VISIBLE_DEVICES" not in json.dumps(launched)
    assert "in force: launch on GPUs 2, 3 only" in second.report_markdown
    assert cli("reply", "cvd", "stop").returncode == 0


def test_an_instruction_at_the_goal_question_is_not_merged_into_the_goal(cli: CliRun, workspace: Path) -> None:
    """Before: `don't use GPU 0` answered at the goal question was merged into the goal: GPU 0
    became the run's only GPU."""
    started = cli("run", "--target", "lab:healthy-host", "--goal", GOAL, "--detach", "--run-id", "gq")
    assert started.returncode == WAITING, started.stderr
    store = Store(workspace / "state")
    question = _wait_question(store, "gq", None)
    assert question.trigger == "goal_unclear"
    assert cli("reply", "gq", "don't use GPU 0").returncode == 0
    again = _wait_question(store, "gq", question.id)
    assert again.trigger == "goal_unclear"  # the goal is still to be settled: nothing ran
    assert not any(k == "action_started" for k, _ in _events(workspace, "gq"))
    assert "leave GPU 0 out of every launch" in again.report_markdown
    assert cli("reply", "gq", "approve").returncode == 0  # the proposed reading
    signoff = _wait_question(store, "gq", again.id)
    launched = _launches(_events(workspace, "gq"))
    assert launched and all(0 not in a["gpus"] for a in launched), launched
    assert signoff.trigger in ("goal_met", "gave_up", "decider_asks")
    assert cli("reply", "gq", "stop").returncode == 0


def test_a_step_count_is_kept_and_yes_means_yes_on_every_surface(cli: CliRun, workspace: Path) -> None:
    """Before: `keep at it, 20 more steps max` became a plain continue (the 20 dropped), and
    `opsagent reply RUN yes` was refused where the terminal read it as approve."""
    assert cli("run", *KV_SHORT, "--detach", "--run-id", "num").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "num", None)
    kept = cli("reply", "num", "keep at it, 20 more steps max")
    assert kept.returncode == 0, kept.stderr
    # The detached run writes the reply event when it takes the answer up, so read after it
    # has asked again, not straight after `opsagent reply` returns.
    _wait_question(store, "num", first.id)
    reply = next(p for k, p in _events(workspace, "num") if k == "reply")
    assert (reply["kind"], reply["steps"]) == ("continue", 20)
    assert cli("reply", "num", "stop").returncode == 0


def test_yes_from_a_second_process_approves_what_was_shown(cli: CliRun, workspace: Path) -> None:
    policy = workspace / "ask-launch.yaml"
    from tests.hearing.test_replies_heard import POLICY_ASK_LAUNCH

    policy.write_text(POLICY_ASK_LAUNCH)
    default = Path(__file__).resolve().parents[2] / "policies" / "default.yaml"
    args = ["--target", "lab:vm-no-p2p", "--run-id", "yes", "--policy", str(default), "--policy", str(policy)]
    assert cli("run", *args, "--detach").returncode == WAITING
    store = Store(workspace / "state")
    asked = _wait_question(store, "yes", None)
    assert asked.trigger == "policy_ask" and asked.action is not None
    approved = cli("reply", "yes", "yes")
    assert approved.returncode == 0 and ": approve" in approved.stdout, approved.stderr
    _wait_question(store, "yes", asked.id)
    assert _launches(_after_reply(_events(workspace, "yes"), 0))[:1] == [asked.action.args]
    assert cli("reply", "yes", "stop").returncode == 0


def test_advice_taken_leads_to_a_launch_that_uses_it(cli: CliRun, workspace: Path) -> None:
    """Before: "give me at least 2 GPUs ... tell me (e.g. 'use GPUs 0-7')"; `use GPUs 0-1` was "in
    force", then "I have no further step" (nothing had been launched to relaunch)."""
    goal = "serve /models/Llama-3.3-70B-Instruct on GPU 0 at 1,000 tok/s aggregate at concurrency 64"
    started = cli("run", "--target", "lab:oom-mem-fraction", "--goal", goal, "--detach", "--run-id", "adv")
    assert started.returncode == WAITING, started.stderr
    store = Store(workspace / "state")
    first = _wait_question(store, "adv", None)
    assert "give me at least 2 GPUs" in first.report_markdown
    assert cli("reply", "adv", "1").returncode == 0  # the advice: outside my reach, do it and tell me
    second = _wait_question(store, "adv", first.id)
    assert "use GPUs 0-7" in second.report_markdown
    assert cli("reply", "adv", "use GPUs 0-1").returncode == 0
    third = _wait_question(store, "adv", second.id)
    launched = _launches(_after_reply(_events(workspace, "adv"), 1))
    assert launched and launched[0]["gpus"] == [0, 1] and launched[0]["tp"] == 2
    assert "I have no further step" not in third.question or launched
    assert cli("reply", "adv", "stop").returncode == 0


def test_a_lab_goal_without_numbers_is_asked_about(cli: CliRun, workspace: Path) -> None:
    """Before: `--goal "make it fast"` on the lab silently took the scenario's model and numbers and
    reported "goal met" against 2,000 tok/s the operator never gave."""
    started = cli("run", "--target", "lab:healthy-host", "--goal", "make it fast", "--detach", "--run-id", "fast")
    assert started.returncode == WAITING, started.stderr
    store = Store(workspace / "state")
    asked = _wait_question(store, "fast", None)
    assert asked.trigger == "goal_unclear"
    assert not any(k == "action_started" for k, _ in _events(workspace, "fast"))
    assert "the goal has no number to reach" in asked.report_markdown
    assert "the goal names no model: I propose the scenario's /models/" in asked.report_markdown
    assert "2,000" not in asked.report_markdown and "50 tok/s" not in asked.report_markdown
    assert cli("reply", "fast", "stop").returncode == 0
