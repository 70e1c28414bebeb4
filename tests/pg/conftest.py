"""The Postgres tests: a real server per session and a database per test (tests/pg_fixture.py),
and opsagent as its own process on that database."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from benchmarks.pg_server import PgServer
from tests.opsagent_process import CliRun, run_opsagent
from tests.pg_fixture import pg_server, pg_url

__all__ = ["PgServer", "pg_server", "pg_url"]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def pg_env(tmp_path: Path, pg_url: str) -> dict[str, str]:
    """The environment of an opsagent process using this test's database."""
    (tmp_path / "transcripts").mkdir(exist_ok=True)
    return {
        **os.environ,
        "OPSAGENT_STATE": pg_url,
        "OPSAGENT_STATE_FILES": str(tmp_path / "files"),
        "OPSAGENT_TRANSCRIPTS": str(tmp_path / "transcripts"),
        "OPSAGENT_CONFIG": str(tmp_path / "no-config.yaml"),
        "COLUMNS": "200",
        "PYTHONPATH": str(REPO),
    }


@pytest.fixture
def pg_cli(tmp_path: Path, pg_env: dict[str, str]) -> CliRun:
    """`opsagent ...` as its own process on this test's database."""

    def run(
        *args: str, timeout: float = 180, extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return run_opsagent(*args, cwd=tmp_path, env={**pg_env, **(extra_env or {})}, timeout=timeout)

    return run
