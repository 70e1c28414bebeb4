"""Variants of the shipped scenarios the runbook was not tuned on: other GPU counts, model sizes,
working memory fractions and busy ports. Each must pass the eval, and where no layout fits the
model, not a single launch may happen before the question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.loop.evaluate import run_scenario

HERE = Path(__file__).parent
VARIANTS = sorted(HERE.glob("*.yaml"))


def _launches(transcript: str) -> int:
    count = 0
    for line in Path(transcript).read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "action_started" and event["payload"]["action"]["tool"] == "launch_server":
            count += 1
    return count


@pytest.mark.parametrize("path", VARIANTS, ids=[p.stem for p in VARIANTS])
def test_the_runbook_passes_the_variant(path: Path, tmp_path: Path) -> None:
    score = run_scenario(str(path), decider="runbook", model=None, seed=0, workdir=tmp_path)
    assert score.passed, score.why_failed
    if path.stem.startswith("too-big"):
        assert _launches(score.transcript) == 0
        assert score.escalated and not score.goal_met
    if path.stem.startswith("oom-ladder"):
        # walking the fraction ladder is progress, not a stall: nothing to ask before the sign-off
        assert not score.escalated and score.goal_met
