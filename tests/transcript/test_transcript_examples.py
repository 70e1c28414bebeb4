"""The committed example transcripts verify (CI also runs `opsagent verify` on them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.transcript.verify import verify_transcript

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "transcripts" / "examples").glob("*.jsonl"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_transcript_verifies(path: Path) -> None:
    result = verify_transcript(path)
    assert result.ok, [str(p) for p in result.problems]
    assert result.finished


def test_there_is_an_example() -> None:
    assert EXAMPLES, "commit at least one transcript under transcripts/examples/"
