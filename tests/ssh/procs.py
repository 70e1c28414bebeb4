"""Looking at processes on this machine, where the loopback sshd runs the test commands."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path


def pids_with(marker: str) -> list[int]:
    """Pids whose command line contains `marker` (use an unusual sleep length as the marker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            if marker.encode() in argv:
                found.append(int(entry.name))
    return found


def kill_all(marker: str) -> None:
    for pid in pids_with(marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
