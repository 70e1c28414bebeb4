"""#27, the terse SRE's replies: slips of a reply verb taken when they can be one verb only (and
said back), shorthand ("w/"), the run's stop said in words, refusals without a "no", and a
measurement judged good before the sign-off words. New sentences, none from the phrasing sets."""

from __future__ import annotations

import pytest

from agent.hearing.replies import ReplyError, parse_reply
from agent.hearing.reply_typos import typo_read
from agent.state import Action, Question

KILL = Action(tool="run_command", args={"command": "kill 4121"})


def _q(trigger: str = "low_confidence", action: Action | None = KILL) -> Question:
    return Question(
        id="q", trigger=trigger, reason="r", question="May I?", asked_at=0.0, action=action,  # type: ignore[arg-type]
        digest="d" if action else None,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("text", "kind"),
    [("appove", "approve"), ("cnotinue", "continue"), ("sotp", "stop"), ("dney", "deny"), ("approev, ta", "approve")],
)
def test_a_slip_of_one_reply_verb_is_read_as_that_verb(text: str, kind: str) -> None:
    assert parse_reply(text, _q(), "op").kind == kind


def test_the_slip_is_said_back_as_its_reading() -> None:
    assert typo_read("cnotinue") == ("continue", "read 'cnotinue' as continue")
    assert typo_read("approved") == ("approved", None)  # a form of the word, no slip


@pytest.mark.parametrize("text", ["step", "deny me", "edits"])
def test_a_word_that_is_no_slip_is_not_taken(text: str) -> None:
    try:
        kind = parse_reply(text, _q(), "op").kind
    except ReplyError:
        return
    assert kind not in ("stop", "edit") or text == "deny me"


def test_a_slip_never_signs_off_a_failed_goal() -> None:
    with pytest.raises(ReplyError):
        parse_reply("aprvoe", _q("gave_up", None), "op")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("press on w/ your plan", "continue"),
        ("ya keep digging", "continue"),
        ("cont", "continue"),
        ("fine with me", "approve"),
    ],
)
def test_shorthand_and_short_forms(text: str, kind: str) -> None:
    assert parse_reply(text, _q(), "op").kind in (kind, "approve" if kind == "continue" else kind)


@pytest.mark.parametrize(
    "text",
    ["let's stop for today", "okay stop now, back in an hour", "that's enough for now, stop", "call it a day"],
)
def test_the_runs_stop_in_words(text: str) -> None:
    assert parse_reply(text, _q(), "op").kind == "stop"


@pytest.mark.parametrize(
    "text", ["stop the server for now", "stop using port 30000", "that's enough, but relaunch first"]
)
def test_words_about_the_server_or_with_a_condition_are_not_the_runs_stop(text: str) -> None:
    assert parse_reply(text, _q(), "op").kind != "stop"


@pytest.mark.parametrize(
    ("text", "reason"), [("not on this host", ""), ("not on this node, the gpus are shared", "the gpus are shared")]
)
def test_not_here_refuses(text: str, reason: str) -> None:
    reply = parse_reply(text, _q(), "op")
    assert (reply.kind, reply.text) == ("deny", reason)


@pytest.mark.parametrize("text", ["i'm not signing off on 900 tok/s", "not signing it off, ttft is too high"])
def test_not_signing_refuses_the_sign_off(text: str) -> None:
    assert parse_reply(text, _q("goal_met", None), "op").kind == "deny"


@pytest.mark.parametrize(
    "text", ["1.9k at c64 is plenty, sign off", "ttft of 80 ms looks fine. done", "yep close it out"]
)
def test_a_measurement_judged_good_then_the_sign_off(text: str) -> None:
    assert parse_reply(text, _q("goal_met", None), "op").kind == "approve"


@pytest.mark.parametrize(
    "text",
    [
        "1.9k is fine but use port 30001, sign off",  # a condition: words to read
        "is 1.9k fine? sign off",  # a question
        "1.9k is not good enough, sign off",
    ],
)
def test_a_judgement_with_a_condition_is_no_sign_off(text: str) -> None:
    try:
        kind = parse_reply(text, _q("goal_met", None), "op").kind
    except ReplyError:
        return
    assert kind != "approve"


def test_judged_good_never_signs_off_a_failed_goal() -> None:
    with pytest.raises(ReplyError):
        parse_reply("1.9k is fine, done", _q("gave_up", None), "op")
