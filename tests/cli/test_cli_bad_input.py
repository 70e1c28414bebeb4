"""Bad input ends in one line naming what is wrong and what to do: non-zero exit, no traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.opsagent_process import CliRun


def _one_line_error(result: object) -> str:
    stderr = result.stderr
    assert result.returncode != 0
    assert "Traceback" not in stderr
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def test_unknown_scenario_names_the_known_ones(cli: CliRun) -> None:
    line = _one_line_error(cli("run", "--goal", "serve it", "--target", "lab:no-such-scenario"))
    assert "no-such-scenario" in line
    assert "p2p-corruption" in line  # says what exists


def test_policy_file_that_does_not_parse(cli: CliRun, workspace: Path) -> None:
    bad = workspace / "bad.yaml"
    bad.write_text("rules:\n  - id: r1\n    decison: deny\n")
    line = _one_line_error(cli("run", "--goal", "serve it", "--target", "lab:healthy-host", "--policy", str(bad)))
    assert "bad.yaml" in line
    assert "decison" in line


def test_unwritable_state_directory(cli: CliRun, workspace: Path) -> None:
    if os.geteuid() == 0:
        blocker = workspace / "file-not-dir"
        blocker.write_text("x")
        state = blocker / "state"  # a path below a regular file cannot be created, even by root
    else:
        state = workspace / "ro"
        state.mkdir()
        state.chmod(0o500)
    line = _one_line_error(cli("run", "--goal", "serve it", "--target", "lab:healthy-host", "--state", str(state)))
    assert str(state) in line
    assert "--state" in line


@pytest.mark.parametrize("goal", ["", "   "])
def test_empty_goal(cli: CliRun, goal: str) -> None:
    line = _one_line_error(cli("run", "--goal", goal, "--target", "local"))
    assert "goal is empty" in line
    assert "--goal" in line


def test_unknown_target_form(cli: CliRun) -> None:
    line = _one_line_error(cli("run", "--goal", "serve it", "--target", "gpu-box"))
    assert "gpu-box" in line
    assert "ssh://" in line


def test_a_wrong_loop_setting_in_the_config_file(cli: CliRun, workspace: Path) -> None:
    config = workspace / "config.yaml"
    config.write_text("loop:\n  confidence_treshold: 0.7\n")
    result = cli("run", "--target", "lab:healthy-host", extra_env={"OPSAGENT_CONFIG": str(config)})
    line = _one_line_error(result)
    assert "loop.confidence_treshold" in line and str(config) in line


def test_loop_settings_from_the_config_file_reach_the_run(cli: CliRun, workspace: Path) -> None:
    config = workspace / "config.yaml"
    config.write_text("loop:\n  max_steps: 3\n")
    result = cli(
        "run", "--target", "lab:healthy-host", "--approver", "none", "--run-id", "cfg",
        extra_env={"OPSAGENT_CONFIG": str(config)},
    )  # fmt: skip
    assert result.returncode == 3, result.stderr  # waiting for a reply (agent/cli/exitcodes.py)
    waiting = json.loads(cli("inbox", "--json").stdout)
    assert waiting[0]["trigger"] == "budget" and "limit 3" in waiting[0]["reason"]


# ---------------------------------------------------------------- issue 17: bad input, one line each


def _transcript(cli: CliRun, workspace: Path) -> Path:
    """A real transcript: a lab run that stops at its first question."""
    done = cli("run", "--target", "lab:healthy-host", "--max-steps", "2", "--approver", "none", "--run-id", "t")
    assert done.returncode == 3, done.stderr
    return workspace / "transcripts" / "t.jsonl"


def test_transcripts_below_a_file(cli: CliRun, workspace: Path) -> None:
    blocker = workspace / "a-file"
    blocker.write_text("x")
    line = _one_line_error(cli("run", "--target", "lab:healthy-host", "--transcripts", str(blocker / "tr")))
    assert str(blocker / "tr") in line and "--transcripts" in line


@pytest.mark.parametrize("suffix", ["html", "md"])
def test_export_of_a_file_that_is_not_a_transcript(cli: CliRun, workspace: Path, suffix: str) -> None:
    notes = workspace / "notes.txt"
    notes.write_text("just some notes\n")
    line = _one_line_error(cli("replay", str(notes), "--export", str(workspace / f"x.{suffix}")))
    assert "not an opsagent transcript" in line and "notes.txt" in line
    assert not (workspace / f"x.{suffix}").exists()


def test_export_into_a_directory_that_is_a_file(cli: CliRun, workspace: Path) -> None:
    transcript = _transcript(cli, workspace)
    blocker = workspace / "a-file"
    blocker.write_text("x")
    line = _one_line_error(cli("replay", str(transcript), "--export", str(blocker / "x.html")))
    assert str(blocker / "x.html") in line and "cannot write" in line


@pytest.mark.parametrize("command", ["verify", "replay"])
@pytest.mark.parametrize(
    "content", [b"", b"hello, not json\n", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"], ids=["empty", "text", "png"]
)
def test_a_file_that_is_not_a_transcript(cli: CliRun, workspace: Path, command: str, content: bytes) -> None:
    path = workspace / "not-a-transcript.jsonl"
    path.write_bytes(content)
    line = _one_line_error(cli(command, str(path)))
    assert "not an opsagent transcript" in line or "is empty" in line
    assert "changed after it was written" not in line and "mid-write" not in line


def test_replay_of_a_tampered_transcript_warns(cli: CliRun, workspace: Path) -> None:
    transcript = _transcript(cli, workspace)
    lines = transcript.read_bytes().splitlines(keepends=True)
    lines[3] = lines[3].replace(b"observe", b"OBSERVE", 1)
    transcript.write_bytes(b"".join(lines))
    shown = cli("replay", str(transcript))
    assert shown.returncode == 1
    assert shown.stdout.splitlines()[0].startswith("!! WARNING: this transcript does not verify: edited at seq 3")


@pytest.mark.parametrize("suffix", ["md", "html"])
def test_every_export_of_a_tampered_transcript_warns_and_exits_1(cli: CliRun, workspace: Path, suffix: str) -> None:
    """#30, item 4: the report is written for the auditor, but the exit says it does not verify."""
    transcript = _transcript(cli, workspace)
    lines = transcript.read_bytes().splitlines(keepends=True)
    lines[3] = lines[3].replace(b"observe", b"OBSERVE", 1)
    transcript.write_bytes(b"".join(lines))
    out = workspace / f"audit.{suffix}"
    exported = cli("replay", str(transcript), "--export", str(out))
    assert exported.returncode == 1 and out.exists(), exported.stdout + exported.stderr
    assert "!! WARNING: this transcript does not verify: edited at seq 3" in exported.stdout
    assert "Integrity:** FAILED" in out.read_text() or "Integrity: FAILED" in out.read_text()


def test_an_explicitly_empty_goal_on_the_lab(cli: CliRun) -> None:
    line = _one_line_error(cli("run", "--goal", "", "--target", "lab:healthy-host"))
    assert "goal is empty" in line


def test_continue_until_an_unknown_milestone(cli: CliRun) -> None:
    assert cli("run", "--target", "lab:vm-no-p2p", "--approver", "none", "--run-id", "m").returncode == 3
    line = _one_line_error(cli("reply", "m", "continue", "--until", "nowhere"))
    assert "nowhere" in line and "server-ready" in line
    assert json.loads(cli("inbox", "--json").stdout)[0]["run_id"] == "m"  # the question still waits


def test_a_bug_is_exit_4_with_the_traceback_in_a_file(cli: CliRun, workspace: Path) -> None:
    # a state directory whose database is not SQLite: not the operator's input, opsagent cannot go on
    (workspace / "state" / "opsagent.sqlite").write_bytes(b"not a database" * 100)
    result = cli("inbox")
    assert result.returncode == 4 and "Traceback" not in result.stderr
    saved = result.stderr.strip().rsplit(" ", 1)[-1]
    assert "internal error" in result.stderr and "Traceback" in Path(saved).read_text()
