"""Replies said with their reasons (round 26's careful staff engineer, round 27's researcher and Slack
habits), fixed by class: an answer beside the operator's own reassurance, a stop beside why, a pick beside
why that step, Slack's gesture codes. Each was "not understood" on 00dc587; the guards below keep a real
condition, or an instruction, beside an answer from being taken as a remark."""

from __future__ import annotations

import pytest
from hearing_testkit import kind_of


@pytest.mark.parametrize(
    "text",
    [
        "Sign off. I don't see anything in the metrics that worries me.",
        "ship it. I'd have liked more headroom, to be honest, but it's over target",
        "I've checked the results and I'm satisfied; approved, and thank you for being careful with the warmup",
        ":shipit:",
        ":+1:",
    ],
)
def test_a_sign_off_beside_a_reassurance_signs_off(text: str) -> None:
    assert kind_of(text, sign_off=True) == "approve"


@pytest.mark.parametrize(
    "text",
    [
        "Sure, that's harmless (it doesn't touch the server), so go ahead.",
        "That seems fine to me. Please proceed with what you proposed.",
    ],
)
def test_an_approval_beside_a_reassurance_approves(text: str) -> None:
    assert kind_of(text) == "approve"


@pytest.mark.parametrize(
    "text",
    [
        "I don't have a strong opinion here; carry on with whatever you had planned, flag me if something odd turns up",
        "no strong opinion, keep going however you were going to",
        "just do whatever you had planned next",
    ],
)
def test_go_on_with_your_own_plan_continues(text: str) -> None:
    assert kind_of(text) == "continue"


@pytest.mark.parametrize(
    "text",
    [
        "Let's stop here for today. I'd rather not keep holding the GPUs all weekend, so please end the run.",
        "Please abort the whole thing: the box is being reclaimed for a training job, so there's no point continuing.",
        "let's stop here for today, thanks for all the help! we can pick it up tomorrow",
    ],
)
def test_a_stop_beside_why_stops(text: str) -> None:
    assert kind_of(text) == "stop"


@pytest.mark.parametrize(
    ("text", "step"),
    [
        ("I'd go with option 3. Given that the server crashed, the log will probably tell us more.", 3),
        ("Hmm, I'd rather you started with number 2 than with the topology: it'll tell us if a GPU fell off.", 2),
    ],
)
def test_a_pick_beside_why_that_step_picks_it(text: str, step: int) -> None:
    assert kind_of(text) == f"pick {step}"


def test_a_refusal_for_the_moment_is_a_deny() -> None:
    assert kind_of("I'd prefer you not run that at the moment; the host is under a change freeze") == "deny"


def test_no_sorry_not_yet_refuses_the_sign_off() -> None:
    assert kind_of("no sorry, not yet", sign_off=True) == "deny"


@pytest.mark.parametrize(
    "text",
    [
        "Sign off. I don't see anything that worries me, but don't restart it",  # an order beside it
        "ship it, but on port 30001",  # a condition
        "I don't have a strong opinion here; use tp 4",  # an instruction, not an answer
        "Let's stop here for today. I'd rather not keep holding GPU 3, use 4 instead",  # an instruction with it
    ],
)
def test_a_condition_or_instruction_beside_the_answer_is_never_a_remark(text: str) -> None:
    assert kind_of(text, sign_off=True) not in ("approve", "stop")
    assert kind_of(text) not in ("approve", "stop", "continue")


def test_k_then_a_wait_is_no_yes() -> None:
    """Round 28 (sre114) at first sight: "k one sec" approved the proposed command."""
    assert kind_of("k one sec") == "say"
    assert kind_of("k") == "approve" and kind_of("kk run it") == "approve"


@pytest.mark.parametrize(
    ("text", "sign_off"),
    [
        ("go ahead, I don't see anything wrong with using tp 8 after", False),
        ("Sign off. I don't see anything wrong with moving to port 31000 later", True),
        ("go ahead, i don't have a strong opinion on gpu 3 vs 4", False),
    ],
)
def test_a_reassurance_that_names_a_setting_is_never_dropped_as_a_remark(text: str, sign_off: bool) -> None:
    """Found in review of 252fbe4, where each of these approved and its setting was dropped unread."""
    assert kind_of(text, sign_off=sign_off) not in ("approve", "continue", "stop")
