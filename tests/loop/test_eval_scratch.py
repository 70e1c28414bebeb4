"""`opsagent eval` removes each run's scratch directory (state, checkpoints, transcript) once the
run is graded: on a memory-backed /dev/shm, 260 variants' directories held gigabytes until the end."""

from __future__ import annotations

from pathlib import Path

from agent.loop.evaluate import _run_one


def test_a_graded_run_leaves_no_scratch_behind(tmp_path: Path) -> None:
    work = tmp_path / "run0"
    score = _run_one(("healthy-host", "runbook", None, 0, str(work)))
    assert score.verdict == "pass" and score.steps > 0
    assert not work.exists()
    assert list(tmp_path.iterdir()) == []
