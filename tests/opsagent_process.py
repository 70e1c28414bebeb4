"""`opsagent` as its own process: the one way the tests start the command (every surface a user
has is the real entry point, `python -m agent.cli`, with a closed or given stdin)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OPSAGENT = (sys.executable, "-m", "agent.cli")

CliRun = Callable[..., subprocess.CompletedProcess[str]]


def run_opsagent(
    *args: str,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    input: str = "",
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """Run `opsagent ARGS` in `cwd` with `env` (default: this environment, with the repository on
    PYTHONPATH) and return what it printed; stdin is `input`, so nothing waits on a terminal."""
    return subprocess.run(
        [*OPSAGENT, *args],
        cwd=cwd,
        env=dict(env) if env is not None else {**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        input=input,
        timeout=timeout,
    )
