"""opsagent at a real terminal (a pty), for the tests that type at its `reply>` prompt."""

from __future__ import annotations

import os
import pty
import select
import signal
import sys
import time
from pathlib import Path


def at_terminal(workspace: Path, *args: str, columns: int = 200, home: Path | None = None) -> tuple[int, int]:
    """`opsagent ARGS` in `workspace` on a fresh pty, with the workspace's state and no config file;
    returns (pid, the terminal's fd)."""
    env = {
        **os.environ,
        "OPSAGENT_STATE": str(workspace / "state"),
        "OPSAGENT_TRANSCRIPTS": str(workspace / "transcripts"),
        "OPSAGENT_CONFIG": str(workspace / "no-config.yaml"),
        "COLUMNS": str(columns),
        "TERM": "dumb",
        **({"HOME": str(home)} if home is not None else {}),
    }
    pid, fd = pty.fork()
    if pid == 0:  # the child: opsagent at a terminal
        # Ctrl-C reaches it as at an operator's terminal, even where the suite was started with
        # SIGINT ignored (a background job of a non-interactive shell), which exec would pass on
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.chdir(workspace)
        os.execve(sys.executable, [sys.executable, "-m", "agent.cli", *args], env)
    return pid, fd


def read_until(fd: int, marker: bytes, seen: bytearray, timeout: float = 120) -> None:
    """Read the terminal into `seen` until `marker` appears in what this call read (or it closes)."""
    deadline = time.monotonic() + timeout
    start = len(seen)
    while marker not in seen[start:]:
        assert time.monotonic() < deadline, f"no {marker!r} in: {bytes(seen[-2000:])!r}"
        if not _read_some(fd, seen):
            return


def drain(fd: int, seen: bytearray, seconds: float = 30) -> None:
    """Read the terminal into `seen` until it closes or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _read_some(fd, seen):
            return


def _read_some(fd: int, seen: bytearray) -> bool:
    """False once the terminal is closed (the process ended)."""
    ready, _, _ = select.select([fd], [], [], 0.3)
    if not ready:
        return True
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        return False
    seen += chunk
    return bool(chunk)
