"""#30's walk: the gave-up question's refusals offer a step number only where the report lists steps."""

from __future__ import annotations

import pytest

from agent.hearing.replies import ReplyError, parse_reply
from agent.state import Question, QuestionOption


def _gave_up(steps: int) -> Question:
    options = [QuestionOption(number=n, description=f"step {n}") for n in range(1, steps + 1)]
    return Question(id="q", trigger="gave_up", reason="r", question="No further step.", asked_at=0.0, options=options)


@pytest.mark.parametrize("words", ["continue", "approve"])
def test_no_step_number_is_offered_where_none_is_listed(words: str) -> None:
    with pytest.raises(ReplyError) as refused:
        parse_reply(words, _gave_up(0), "operator")
    assert "sign off" in str(refused.value) and "step number" not in str(refused.value)


def test_a_step_number_is_offered_where_steps_are_listed() -> None:
    with pytest.raises(ReplyError) as refused:
        parse_reply("continue", _gave_up(2), "operator")
    assert "a step number" in str(refused.value)
