"""Fixtures for the loop tests: a state dir, a transcripts dir, and a CLI runner as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "state").mkdir()
    (tmp_path / "transcripts").mkdir()
    (tmp_path / "work").mkdir()
    return tmp_path


CliRun = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(workspace: Path) -> CliRun:
    """Run `opsagent ...` as its own process, with state and transcripts in the test's directory."""

    def run(
        *args: str, timeout: float = 120, input: str | None = None, extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            "OPSAGENT_STATE": str(workspace / "state"),
            "OPSAGENT_TRANSCRIPTS": str(workspace / "transcripts"),
            "COLUMNS": "200",
            "OPSAGENT_CONFIG": str(workspace / "no-config.yaml"),
            **(extra_env or {}),
        }
        return subprocess.run(
            [sys.executable, "-m", "agent.cli", *args],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            input=input if input is not None else "",
        )

    return run
