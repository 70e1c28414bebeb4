"""What the operator says at the sign-off question is heard: "measure again" measures again on the
running server, a deny refuses the sign-off with its reason, and "measure again" with no server
running is answered, not ignored. Real runs on the lab, replies from a second process."""

from __future__ import annotations

from pathlib import Path

from agent.cli.exitcodes import WAITING
from agent.store.sqlite import Store
from tests.hearing.test_replies_heard import _after_reply, _events, _wait_finished, _wait_question
from tests.opsagent_process import CliRun


def _actions(events: list[tuple[str, dict[str, object]]]) -> list[dict[str, object]]:
    return [p["action"] for k, p in events if k == "action_started"]  # type: ignore[misc]


def test_measure_again_then_a_refused_sign_off_then_approve(cli: CliRun, workspace: Path) -> None:
    assert cli("run", "--target", "lab:healthy-host", "--detach", "--run-id", "so").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "so", None)
    assert first.trigger == "goal_met"
    benches = [a for a in _actions(_events(workspace, "so")) if a["tool"] == "run_benchmark"]

    said = cli("reply", "so", "--say", "run the benchmark once more before I sign off")
    assert said.returncode == 0 and "read as: measure again" in said.stdout
    second = _wait_question(store, "so", first.id)
    assert second.trigger == "goal_met"
    again = _actions(_after_reply(_events(workspace, "so"), 0))
    assert [a["tool"] for a in again] == ["run_benchmark"]  # measured again, nothing relaunched
    assert again[0]["args"] == benches[-1]["args"]  # the same measurement as the one signed off
    assert '(read as: measure again)": heard (a one-time step)' in second.report_markdown

    refused = cli("reply", "so", "deny", "--reason", "two numbers are not enough")
    assert refused.returncode == 0
    third = _wait_question(store, "so", second.id)
    assert 'you did not sign off (your reason: "two numbers are not enough")' in third.report_markdown
    assert "proposed no action to deny" not in third.report_markdown
    assert 'I did not understand: "two numbers' not in third.report_markdown  # a reason, quoted once
    assert _actions(_after_reply(_events(workspace, "so"), 1)) == []  # nothing done on a refusal alone

    assert cli("reply", "so", "approve").returncode == 0
    _wait_finished(workspace, "so")
    finished = next(p for k, p in _events(workspace, "so") if k == "run_finished")
    assert finished["signed_off_by"] and finished["goal_met"] is True


def test_measure_again_with_no_server_running_is_answered(cli: CliRun, workspace: Path) -> None:
    assert cli("run", "--target", "lab:healthy-host", "--detach", "--run-id", "so-down").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "so-down", None)
    assert cli("reply", "so-down", "--say", "stop the server").returncode == 0
    second = _wait_question(store, "so-down", first.id)
    assert [a["tool"] for a in _actions(_after_reply(_events(workspace, "so-down"), 0))] == ["stop_server"]

    assert cli("reply", "so-down", "--say", "measure again").returncode == 0
    third = _wait_question(store, "so-down", second.id)
    assert "you asked me to run the benchmark again: no server is running" in third.report_markdown
    assert _actions(_after_reply(_events(workspace, "so-down"), 1)) == []
    assert cli("reply", "so-down", "stop").returncode == 0


def test_words_in_quotes_from_a_second_process_read_as_the_terminal_reads_them(cli: CliRun, workspace: Path) -> None:
    assert cli("run", "--target", "lab:healthy-host", "--detach", "--run-id", "so-words").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "so-words", None)
    typo = cli("reply", "so-words", "aprove")
    assert typo.returncode != 0 and "unknown reply 'aprove'" in typo.stderr  # one unknown word: a typo
    assert store.current_question("so-words") is not None  # nothing was answered
    instruction = cli("reply", "so-words", "stop using port 30000")
    assert instruction.returncode == 0 and ": say" in instruction.stdout  # an instruction, not a stop
    second = _wait_question(store, "so-words", first.id)
    assert cli("reply", "so-words", "looks good, ship it").returncode == 0
    _wait_finished(workspace, "so-words")
    finished = next(p for k, p in _events(workspace, "so-words") if k == "run_finished")
    assert finished["signed_off_by"] and finished["status"] == "finished"
    assert second.trigger == "goal_met"


def test_a_launch_setting_given_at_the_sign_off_is_used_before_signing_off(cli: CliRun, workspace: Path) -> None:
    """ "in force" must be true: the server that is signed off serves where the operator said."""
    assert cli("run", "--target", "lab:healthy-host", "--detach", "--run-id", "so-port").returncode == WAITING
    store = Store(workspace / "state")
    first = _wait_question(store, "so-port", None)
    assert cli("reply", "so-port", "stop using port 30000, move to 30001").returncode == 0
    second = _wait_question(store, "so-port", first.id)
    after = _actions(_after_reply(_events(workspace, "so-port"), 0))
    assert [a["tool"] for a in after][:2] == ["stop_server", "launch_server"]
    assert after[1]["args"]["port"] == 30001  # type: ignore[index]
    assert [a["args"]["port"] for a in after if a["tool"] == "run_benchmark"] == [30001]  # type: ignore[index]
    assert second.trigger == "goal_met"
    assert cli("reply", "so-port", "stop").returncode == 0
