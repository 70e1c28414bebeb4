"""#27, the terse SRE's instructions: slips of the grammar's verbs taken when they can be one word
only (and said back), must-nots about bare ids named just before ("4-7 ..., hands off"), a port said
to be taken, a switch named in brackets, "bounce", "park", holds and measurements said tersely, a
layout said last, a shell line of variables, "the last four" counted from the host's GPUs (never
when they are unknown), maybes and readings asked back exactly as `hear` reads them. New sentences,
none from the phrasing sets."""

from __future__ import annotations

from typing import Any

import pytest

from agent.hearing.heed import ask_back
from agent.hearing.instructions import hear
from agent.hearing.shorthand import fix_word
from agent.state import OperatorRules

FIELDS = ("use_port", "avoid_ports", "use_gpus", "avoid_gpus", "set_env", "use_flags", "avoid_flags", "layout")
FIELDS += ("no_relaunch", "stop_server", "measure_again", "relaunch_wanted")
DEFAULTS = OperatorRules().model_dump()


def _said(rules: OperatorRules) -> dict[str, Any]:
    said = {k: v for k, v in rules.model_dump().items() if k in FIELDS and v != DEFAULTS[k]}
    if any(k in said for k in FIELDS[:8]):
        said.pop("relaunch_wanted", None)  # every launch rule asks for a relaunch: only a bare one is said
    return said


def _heard(text: str) -> dict[str, Any]:
    rules, _, _ = hear(OperatorRules(), text)
    return _said(rules)


@pytest.mark.parametrize(
    ("text", "expected", "note"),
    [
        ("mesaure again", {"measure_again": True}, "'mesaure' read as measure"),
        ("relaunhc", {"relaunch_wanted": True}, "'relaunhc' read as relaunch"),
        ("don't restrat until i'm back", {"no_relaunch": True}, "'restrat' read as restart"),
    ],
)
def test_a_slip_of_one_grammar_word_is_taken_and_said_back(text: str, expected: dict[str, Any], note: str) -> None:
    rules, heard, missed = hear(OperatorRules(), text)
    assert _said(rules) == expected and missed == []
    assert note in heard[0] and "(read as: " in heard[0]


def test_a_word_near_two_words_or_a_form_of_one_is_no_slip() -> None:
    assert fix_word("stp", ("stop", "step")) is None
    assert fix_word("launches", ("launch", "relaunch")) is None
    assert fix_word("step", ("stop",)) is None  # a word of its own: a changed letter in a short word
    assert _heard("measured again") == {}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2,3 belong to the render farm, don't use them", {"avoid_gpus": [2, 3]}),
        ("0-1 are passed through to a vm, hands off", {"avoid_gpus": [0, 1]}),
        ("31000 is busy, keep off it", {"avoid_ports": [31000]}),
        ("not 30500, something else listens there", {"avoid_ports": [30500]}),
    ],
)
def test_a_must_not_about_what_was_just_named(text: str, expected: dict[str, Any]) -> None:
    assert _heard(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "2-3 are idle, use them",  # add them, or use only them? Not a guess to make
        "4096 is too small, avoid it",  # a number said to be small is no port in use
        "5 is the bad one, don't touch it",  # one bare number is never a GPU
    ],
)
def test_bare_numbers_that_name_nothing_sure_are_not_taken(text: str) -> None:
    assert _heard(text) == {}


def test_a_switch_named_in_brackets_is_that_switch() -> None:
    text = "yank the torch compile (--enable-torch-compile), startup is too slow"
    assert _heard(text) == {"avoid_flags": ["--enable-torch-compile"]}
    # a flag that disables: turning the feature off uses it, whatever the words say of the flag
    assert _heard("switch off cuda graph (--disable-cuda-graph)") == {"use_flags": [["--disable-cuda-graph"]]}
    # a flag that takes a value, named without one: no value to guess
    assert _heard("use triton (--attention-backend)") == {}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("bounce the server", {"relaunch_wanted": True}),
        ("park the server", {"stop_server": True, "no_relaunch": True}),
        ("don't restart yet", {"no_relaunch": True}),
        ("wait for me before another restart", {"no_relaunch": True}),
        ("measure again with the same flags", {"measure_again": True}),
        ("max running reqs 96", {"use_flags": [["--max-running-requests", "96"]]}),
        ("set the moe runner to triton", {"use_flags": [["--moe-runner-backend", "triton"]]}),
        (
            "NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=eth0",
            {"set_env": {"NCCL_IB_DISABLE": "1", "NCCL_SOCKET_IFNAME": "eth0"}},
        ),
        (
            "restart on gpus 4-7 tp2 dp2",
            {"use_gpus": [4, 5, 6, 7], "layout": {"tp": 2, "dp": 2}},
        ),
    ],
)
def test_terse_server_words(text: str, expected: dict[str, Any]) -> None:
    assert _heard(text) == expected


def test_a_relaunch_said_after_a_stop_lifts_its_hold() -> None:
    rules, _, missed = hear(OperatorRules(), "kill the server, relaunch tp2 dp2")
    assert missed == [] and rules.stop_server and not rules.no_relaunch and rules.relaunch_wanted
    assert rules.layout == {"tp": 2, "dp": 2}


EIGHT = list(range(8))


@pytest.mark.parametrize(
    ("text", "gpus"), [("the first two, tp2", [0, 1]), ("bottom 4 only", [4, 5, 6, 7]), ("tp2 on the last two", [6, 7])]
)
def test_the_last_four_is_counted_from_the_hosts_gpus_and_asked_back(text: str, gpus: list[int]) -> None:
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is not None and asked.confirm and "Right?" in (asked.readback or "")
    rules, _, _ = hear(OperatorRules(), asked.confirm)
    assert rules.use_gpus == gpus


@pytest.mark.parametrize("text", ["the first two, tp2", "tp2 on the last two"])
def test_the_last_four_of_unknown_gpus_is_never_taken(text: str) -> None:
    asked = ask_back(OperatorRules(), text, None, None)
    taken = hear(OperatorRules(), asked.confirm)[0] if asked is not None and asked.confirm else None
    assert taken is None or taken.use_gpus is None
    assert hear(OperatorRules(), text)[0].use_gpus is None


@pytest.mark.parametrize("text", ["probably tp2 on 2,3 i think", "prob port 30040 i guess", "port 30040 maybe"])
def test_a_maybe_at_either_end_is_asked_back_never_taken(text: str) -> None:
    asked = ask_back(OperatorRules(), text)
    assert asked is not None and asked.confirm and "maybe" in (asked.readback or "")


def test_a_reading_asked_back_keeps_the_dp_said_earlier_in_the_message() -> None:
    text = "4 replicas of TP2; tensor parallel 2; no idea why it helps"
    rules, _, _ = hear(OperatorRules(), text)
    asked = ask_back(OperatorRules(), text)
    assert asked is not None and asked.confirm
    assert hear(OperatorRules(), asked.confirm)[0].layout == rules.layout == {"tp": 2, "dp": 4}
