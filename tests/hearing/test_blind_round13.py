"""Classes found in round twenty-four of #27 (the blind sets sre93-sre97 and the leftovers of round
twenty-three's note), each checked on sentences written here."""

from __future__ import annotations

import re

import pytest
from hearing_testkit import asking, kind_of, rules_said

from agent.hearing.heed import ask_back
from agent.hearing.replies import ReplyError, parse_reply
from agent.state import OperatorRules


@pytest.mark.parametrize("text", ["1 and 3", "do 1 then 3", "2 or 3, your call", "#1 & #2 pls", "opt 1 + opt 3"])
def test_two_steps_named_are_refused_not_cut_to_one(text: str) -> None:
    """A reply runs one step: 'do 1 then 3' had run step 1 and dropped 3 without a word."""
    with pytest.raises(ReplyError, match=r"names steps \d and \d: I take one step at a time"):
        parse_reply(text, asking(), "op")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Step 2 is authorised. Steps 1 and 3 are not.", "pick 2"),  # the other two refused, not picked
        ("3", "pick 3"),
        ("do 2", "pick 2"),
    ],
)
def test_one_step_named_is_still_picked(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("matesta5demsh GPU 2 w 3", {"avoid_gpus": [2, 3]}),  # Egyptian Arabic in Latin letters (sre90)
        ("shaghalo 3ala 0-3 bas", {"use_gpus": [0, 1, 2, 3]}),
        ("7ot --context-length 8192", {"use_flags": [["--context-length", "8192"]]}),
        ("mesh 3ayez cuda graph", {"use_flags": [["--disable-cuda-graph"]]}),
        ("ib3ed 3an port 30002", {"avoid_ports": [30002]}),
        ("شغل على GPU ٥ و ٦ بس", {"use_gpus": [5, 6]}),  # its own script and digits
        ("w2af el server", {"stop_server": True, "no_relaunch": True}),
    ],
)
def test_arabizi_is_read(text: str, rules: dict[str, object]) -> None:
    assert rules_said(text) == rules


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [("la2 lessa", "deny", True), ("aywa, etfadal", "approve", False), ("e3mel rakam 3", "pick 3", False)],
)
def test_arabizi_replies(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize("text", ["esta5dem GPU 4 law fadya", "matlamsh GPU 3", "GPU 3 la2", "tp 4 mesh 8"])
def test_arabizi_it_cannot_place_takes_nothing(text: str) -> None:
    """'law' is 'if'; a 'mat...sh' verb no rule knows is a 'don't': the GPU beside it is never taken."""
    assert rules_said(text) == {}
    asked = ask_back(OperatorRules(), text, None, list(range(8)))
    assert asked is None or not asked.confirm


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("skip 1 and 2", "steps 1,2 of my report, or GPUs 1,2?"),
        ("all but 3", "step 3 of my report, or GPU 3?"),
        ("everything except 2", "step 2 of my report, or GPU 2?"),
        ("only 1 and 2", "steps 1,2 of my report, or GPUs 1,2?"),
        ("skip 2-3", "steps 2,3 of my report, or GPUs 2,3?"),
        ("not 3", "step 3 of my report, or GPU 3?"),
    ],
)
def test_bare_numbers_a_step_list_shares_are_asked_which(text: str, said: str) -> None:
    """At a report listing steps 1-3, 'skip 1 and 2' was taken as 'keep GPUs 1 and 2 out of every
    launch': a GPU rule the operator may never have given. Neither reading is taken."""
    with pytest.raises(ReplyError, match=re.escape(said)):
        parse_reply(text, asking(), "op")


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("all but 7", {"avoid_gpus": [7]}),  # 7 is no step of the report
        ("only 0-3", {"use_gpus": [0, 1, 2, 3]}),
        ("only 2 and 3 pls, tp2", {"use_gpus": [2, 3], "layout": {"tp": 2, "dp": 1}}),  # a layout: GPUs
        ("stay off 2 and 3", {"avoid_gpus": [2, 3]}),  # a verb steps do not take
        ("skip gpu 3", {"avoid_gpus": [3]}),
    ],
)
def test_numbers_that_can_only_be_gpus_are_still_read(text: str, rules: dict[str, object]) -> None:
    assert kind_of(text) == "say"
    assert rules_said(text) == rules
