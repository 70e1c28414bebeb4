"""Shared helpers: a small, realistic transcript written by the real writer into tmp_path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent.transcript import TranscriptWriter


class FakeClock:
    """A virtual clock (like the lab's): deterministic times, one second per event."""

    def __init__(self, start: float = 1_760_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def write_sample(directory: Path, run_id: str = "run1", events: int = 10) -> Path:
    with TranscriptWriter.create(directory, run_id, clock=FakeClock(), fsync=False) as w:
        w.emit("run_started", {"goal": "serve a model", "target": "lab:p2p-broken"})
        for i in range(1, events - 1):
            w.emit("observation", {"step": i, "tool": "run_command", "ok": True, "summary": f"step {i} done"})
        w.emit("run_finished", {"status": "finished"})
        return w.path


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return write_sample(tmp_path)


@pytest.fixture
def lines_of() -> Callable[[Path], list[bytes]]:
    return lambda p: p.read_bytes().splitlines(keepends=True)
