"""Round 45's blind sets (sre180 English with Hebrew habits, sre181 run-on messages, sre182 numbers that set
nothing, sre183 conditions, redteam45 "only" and "all but" scope), fixed by class. The sets themselves were
lost with that session's machine before they were committed: their first-sight figures (on 3ac8bb3: 65% heard
/ 3 misread, 72% / 0, 91% / 1, 81% / 0, 65% / 2; 281 of 375, 6 misread) cannot be re-checked, and they are
not fixtures. These checks are written from the six misreads' classes, in words of their own. Checks marked
guard passed before the fix (7a0a50b) too; every other one fails there."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, taken


@pytest.mark.parametrize(
    ("text", "kind"),
    [("ken", "approve"), ("ken, beseder", "approve"), ("lo", "deny"), ("beseder, tamshich", "continue")],
)
def test_hebrew_replies(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("al tiga be-GPU 0, rak 4-7", {"use_gpus": [4, 5, 6, 7], "avoid_gpus": [0]}),
        ("tishtamesh be-gpus 2,3 bevakasha", {"use_gpus": [2, 3]}),
        ("beseder, tasim NCCL_DEBUG=INFO", {"set_env": {"NCCL_DEBUG": "INFO"}}),
        ("lo, al tafil shuv", {"no_relaunch": True}),
    ],
)
def test_hebrew_instructions(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


def test_a_hebrew_no_then_not_knowing_takes_nothing() -> None:
    """ "use gpus 0-3... lo, 4-7. rega, ani lo yodea" (no, 4-7. wait, I don't know) took GPUs 0-3."""
    assert taken("port 30001... lo, 30002. rega, ani lo yodea") == {}


def test_guard_english_lo_and_ken_stay_english() -> None:
    assert kind_of("Ken said to stop") == "say"
    assert taken("lo and behold, gpu 3 is free; use port 30002") == {"use_port": 30002}


def test_a_setting_beside_an_approval_is_no_remark() -> None:
    """ "approve, and tasim also NCCL_IB_DISABLE=1" approved and dropped the variable (a word no table read
    before it made the rest look like a remark)."""
    assert kind_of("approve, and zzz also NCCL_IB_DISABLE=1") == "say"
    assert kind_of("go ahead, and qqq --disable-radix-cache") == "say"
    assert kind_of("the error message suggests --disable-cuda-graph. ok") == "say"


def test_guard_a_plain_remark_beside_an_approval_stays_one() -> None:
    assert kind_of("approved, nice work on the topology read") == "approve"


@pytest.mark.parametrize(
    "text",
    ["in half hour move to port 30010", "in ten minutes use gpus 4-7", "in a half hour, tp 4"],
)
def test_a_later_time_said_first_takes_nothing(text: str) -> None:
    assert taken(text) == {}


@pytest.mark.parametrize("text", ["in half an hour switch to port 30010", "in 15min switch to port 30010"])
def test_guard_a_later_time_said_first_as_before(text: str) -> None:
    assert taken(text) == {}


@pytest.mark.parametrize(
    "text",
    [
        "put NCCL_DEBUG back to how it was before INC-4390",
        "set NCCL_P2P_LEVEL back to what it was",
        "put NCCL_ALGO back to how it used to be",
    ],
)
def test_a_value_from_before_is_no_value(text: str) -> None:
    """ "put NCCL back to how it was before INC-4390" set NCCL=how."""
    assert taken(text) == {}
    assert asked_back(text) is None


def test_a_slip_owned_takes_nothing_of_what_it_put_right() -> None:
    """ "not port 30001 — 30002, typo" kept off both ports (the second was the port meant)."""
    assert taken("not port 30003 — 30004, typo") == {}


def test_guard_a_correction_with_its_slip_owned_stands_as_before() -> None:
    assert taken("port 31337.. no, 31338. fat fingered") == {"use_port": 31338}


@pytest.mark.parametrize("text", ["use all but one gpu", "use all gpus but one", "all but one"])
def test_all_but_a_count_names_no_gpu(text: str) -> None:
    """ "use all but one gpu" kept off GPU 1: a count read as an id."""
    assert taken(text) == {}


@pytest.mark.parametrize(("text", "avoided"), [("all but 7", [7]), ("use all gpus except 3", [3])])
def test_guard_all_but_an_id_still_leaves_it_out(text: str, avoided: list[int]) -> None:
    assert taken(text) == {"avoid_gpus": avoided}
