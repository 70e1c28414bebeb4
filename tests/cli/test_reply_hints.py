"""Prompts and hints say what the question accepts, in plain grammar (#30, item 6): one place
(agent/hearing/hints.py) makes the report's line, the terminal's help and `opsagent reply`'s hint."""

from __future__ import annotations

import json
from pathlib import Path

from tests.opsagent_process import CliRun


def _waiting(cli: CliRun, run_id: str, *extra: str) -> None:
    done = cli("run", "--target", "lab:vm-no-p2p", "--approver", "none", "--run-id", run_id, *extra)
    assert done.returncode == 3, done.stdout[-1500:] + done.stderr


def test_the_hints_offer_the_number_a_question_lists_and_only_what_it_takes(cli: CliRun) -> None:
    # the tuning candidates are exhausted: one numbered step (the sign-off), no action to approve
    _waiting(cli, "h1")
    shown = cli("inbox").stdout
    assert "reply: opsagent reply h1 1|continue|stop|--edit CMD|--say TEXT" in shown, shown
    report = json.loads(cli("inbox", "--json").stdout)[0]["report"]
    line = report.rstrip().splitlines()[-1]
    assert "1 to pick the next step" in line and "(1-1)" not in line and "`approve`" not in line, line
    refused = cli("reply", "h1", "approve")  # what the hint leaves out is refused
    assert refused.returncode != 0
    # a number where none is listed: the help that follows does not offer one
    assert cli("reply", "h1", "1").returncode == 0
    assert cli("resume", "h1", "--approver", "none").returncode == 3  # the sign-off question: no steps
    wrong = cli("reply", "h1", "3")
    message = wrong.stdout + wrong.stderr
    assert wrong.returncode != 0 and "lists no numbered steps" in message
    assert "a number" not in message and "deny [reason] (d)" in message, message


def test_goal_restated_as_sentences_and_gpus_counted(cli: CliRun) -> None:
    goal = "serve /models/GLM-5-NVFP4 at 100 tok/s single stream on GPU 0, never reboot the host"
    _waiting(cli, "h2", "--goal", goal)
    report = json.loads(cli("inbox", "--json").stdout)[0]["report"]
    head = next(ln for ln in report.splitlines() if ln.startswith("**Goal:**"))
    assert head.endswith("never reboot the host. GPU 0."), head
    assert "1 GPUs" not in report and "GPU(s)" not in head


def test_stop_from_another_shell_says_stopped_not_how_to_continue(cli: CliRun) -> None:
    _waiting(cli, "h3")
    stopped = cli("reply", "h3", "stop")
    assert stopped.returncode == 0
    assert "continue the run with" not in stopped.stdout and "run h3 stopped" in stopped.stdout, stopped.stdout


def test_resume_names_its_own_process_plainly(cli: CliRun, workspace: Path) -> None:
    _waiting(cli, "h4")
    assert cli("reply", "h4", "continue").returncode == 0
    resumed = cli("resume", "h4", "--approver", "none")
    assert "in another process" not in resumed.stdout and "resumed by process" in resumed.stdout, resumed.stdout


def test_the_gave_up_question_offers_a_step_number_only_where_steps_are_listed(cli: CliRun) -> None:
    # 'continue' at the exhausted question: the best is relaunched and the run has no step left;
    # its question lists no numbered steps, so it does not ask for one (#30, item 6)
    _waiting(cli, "h5")
    assert cli("reply", "h5", "continue").returncode == 0
    assert cli("resume", "h5", "--approver", "none").returncode == 3
    report = json.loads(cli("inbox", "--json").stdout)[0]["report"]
    assert "### Next steps" not in report and "goal is NOT met" in report, report[-1500:]
    question = next(ln for ln in report.splitlines() if ln.startswith("**Question:**"))
    assert "step number" not in question, question


def test_the_sign_off_after_picking_it_says_the_operator_accepted_not_that_ideas_ran_out(cli: CliRun) -> None:
    # the walk of #30: '1' (accept what was measured) led to 'I have run out of ideas ... you
    # accepted what was measured' and 'I have no further step I can take': the operator chose this
    _waiting(cli, "h6")
    assert cli("reply", "h6", "1").returncode == 0
    assert cli("resume", "h6", "--approver", "none").returncode == 3
    report = json.loads(cli("inbox", "--json").stdout)[0]["report"]
    why = next(ln for ln in report.splitlines() if ln.startswith("**Why I stopped:**"))
    question = next(ln for ln in report.splitlines() if ln.startswith("**Question:**"))
    assert "run out of ideas" not in why and "you accepted what was measured" in why, why
    assert "no further step" not in question and "the goal is NOT met" in question and "`sign off`" in question
