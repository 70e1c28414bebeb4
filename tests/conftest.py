"""Fixtures every test directory may use: a workspace (state, transcripts, work) and `opsagent`
run as its own process inside it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.opsagent_process import CliRun, run_opsagent


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "state").mkdir()
    (tmp_path / "transcripts").mkdir()
    (tmp_path / "work").mkdir()
    return tmp_path


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
        return run_opsagent(*args, cwd=workspace, env=env, input=input or "", timeout=timeout)

    return run
