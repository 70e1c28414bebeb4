"""#27, sre3/sre4 classes of replies: a one-letter yes with more words, a question, picks said in
words, slips of any reply word, answers followed by a remark, refusals with a reason said without a
comma. New sentences, none from the phrasing sets."""

from __future__ import annotations

import pytest

from agent.hearing.replies import ReplyError, parse_reply
from agent.state import Action, Question, QuestionOption

TOPO = Action(tool="run_command", args={"command": "nvidia-smi topo -m"})


def _q(trigger: str = "low_confidence", action: Action | None = TOPO) -> Question:
    steps = [
        QuestionOption(
            number=n, description=f"step {n}", action=Action(tool="run_command", args={"command": f"ls {n}"})
        )
        for n in (1, 2, 3)
    ]
    return Question(
        id="q", trigger=trigger, reason="r", question="May I?", asked_at=0.0, action=action,  # type: ignore[arg-type]
        digest="d" if action else None, options=steps if action else [],
    )  # fmt: skip


def _kind(text: str, question: Question | None = None) -> str:
    try:
        return parse_reply(text, question or _q(), "op").kind
    except ReplyError:
        return "error"


@pytest.mark.parametrize("text", ["y does it need root", "y the port changed", "a bit more memory first", "ok to run?"])
def test_a_one_letter_yes_with_words_after_it_or_a_question_approves_nothing(text: str) -> None:
    assert _kind(text) != "approve"


@pytest.mark.parametrize("text", ["y pls", "y, go ahead", "y thx"])
def test_a_one_letter_yes_with_courtesy_still_approves(text: str) -> None:
    assert _kind(text) == "approve"


@pytest.mark.parametrize(("text", "number"), [("option 1", 1), ("opt 2", 2), ("2 pls", 2), ("step 3", 3)])
def test_a_pick_said_in_words(text: str, number: int) -> None:
    reply = parse_reply(text, _q(), "op")
    assert (reply.kind, reply.pick) == ("pick", number)


def test_a_pick_of_a_step_not_listed_is_refused() -> None:
    assert _kind("option 9") == "error"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("yup go ahaed", "approve"),
        ("definitly not", "deny"),
        ("absolutley not, that card is shared", "deny"),
        ("your call, keep gong", "continue"),
        ("ur call", "continue"),
    ],
)
def test_slips_of_reply_words(text: str, kind: str) -> None:
    assert _kind(text) == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("sure, do it - the query only reads sysfs", "approve"),
        ("go ahead, nothing else runs here", "approve"),
        ("yep, run it, it's just a listing", "approve"),
        ("hold off on it for now, backups are running", "deny"),
        ("nah don't, the node is draining", "deny"),
        ("carry on with what you had planned, numbers look plausible", "continue"),
        ("we're done here, stop the run, back on monday", "stop"),
    ],
)
def test_an_answer_then_a_remark(text: str, kind: str) -> None:
    assert _kind(text) == kind


@pytest.mark.parametrize(
    "text",
    ["go ahead, but on port 30001", "yes, run it, unless the node is draining", "sure, run it - is it safe?"],
)
def test_a_condition_or_question_after_the_answer_is_no_approval(text: str) -> None:
    assert _kind(text) != "approve"


def test_shipit_signs_off_a_met_goal() -> None:
    assert _kind("shipit", _q("goal_met", None)) == "approve"


@pytest.mark.parametrize(
    "text", ["nope not signing, aggregate is still low", "not yet measure again", "no not yet, rerun the benchmark"]
)
def test_a_refused_sign_off_with_its_reason(text: str) -> None:
    reply = parse_reply(text, _q("goal_met", None), "op")
    assert reply.kind == "deny" and reply.text


def test_not_yet_with_words_not_read_is_no_refusal_of_them() -> None:
    # "not yet ..." without a comma is a refusal only when the rest is an instruction read whole
    assert _kind("not yet sure about this", _q("goal_met", None)) != "approve"
