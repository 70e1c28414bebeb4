"""Bad input ends in one line naming what is wrong and what to do: non-zero exit, no traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.loop.conftest import CliRun


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
    assert result.returncode == 3, result.stderr  # waiting for a reply (agent/exitcodes.py)
    waiting = json.loads(cli("inbox", "--json").stdout)
    assert waiting[0]["trigger"] == "budget" and "limit 3" in waiting[0]["reason"]
