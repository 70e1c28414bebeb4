"""Rounds 26-27's long sentences and questions, fixed by class (this session): a request asked as a
question, where it must not run, a reason beside an order, the loose word then the exact flag, a pronoun
for the change just named. Each case was unread, or asked again with nothing to confirm, on 00dc587;
the safety cases (a condition, a second value) keep nothing from being taken."""

from __future__ import annotations

from typing import Any

import pytest
from hearing_testkit import asking, rules_said, taken

from agent.hearing.heed import ask_back
from agent.hearing.replies import parse_reply
from agent.state import OperatorRules

HOST = list(range(8))


def asked_first(text: str) -> bool:
    """Whether nothing is taken before the operator's yes (the reading is asked back)."""
    text = parse_reply(text, asking(), "op").text
    asked = ask_back(OperatorRules(), text, None, HOST)
    return asked is not None and asked.reask


# ------------------------------------------------------------------------- a request asked as a question


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("run on gpus 2-5?", {"use_gpus": [2, 3, 4, 5]}),
        ("can we only use GPUs 4,5? tp 2", {"use_gpus": [4, 5], "layout": {"tp": 2, "dp": 1}}),
        ("would it be ok to disable the radix cache?", {"use_flags": [["--disable-radix-cache"]]}),
        ("hmm can we try tp 2, dp 4 and compare?", {"layout": {"tp": 2, "dp": 4}, "measure_again": True}),
    ],
)
def test_a_request_asked_as_a_question_is_asked_back_never_taken(text: str, meant: dict[str, Any]) -> None:
    assert rules_said(parse_reply(text, asking(), "op").text) == {} or asked_first(text)
    assert asked_first(text)
    assert taken(text) == meant


def test_a_question_to_the_agent_is_still_no_request() -> None:
    for text in ("why is gpu 2 slow?", "what's on port 30000?"):
        assert parse_reply_kind(text) == "error", text


def parse_reply_kind(text: str) -> str:
    from agent.hearing.replies import ReplyError

    try:
        return parse_reply(text, asking(), "op").kind
    except ReplyError:
        return "error"


# ------------------------------------------------------------------------------- where it must not run


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("move it off gpu 6", {"avoid_gpus": [6]}),
        ("get the server off port 30002", {"avoid_ports": [30002]}),
        ("move it off 4, then relaunch", {"avoid_gpus": [4]}),
        ("gpu 1 keeps throwing ECC errors, keep it out of the set", {"avoid_gpus": [1]}),
        ("I'd want it off GPU 2, it runs hot", {"avoid_gpus": [2]}),
    ],
)
def test_moving_it_off_a_gpu_or_port_keeps_it_off(text: str, meant: dict[str, Any]) -> None:
    said = taken(text)
    assert {k: said[k] for k in meant if k in said} == meant, said


# --------------------------------------------------------------------------------- a reason beside it


def test_an_order_then_its_reason_after_a_colon_reads_the_order() -> None:
    said = taken("please move off port 30001: the exporter grabs it on boot. 30020 is free, so use that instead")
    assert said["avoid_ports"] == [30001] and said["use_port"] == 30020


def test_who_the_gpus_are_for_is_a_remark_and_its_ids_are_never_taken() -> None:
    said = taken("I'd like it on GPUs 4-7 only so my teammate can have 0-3")
    assert said == {"use_gpus": [4, 5, 6, 7]}


def test_a_value_then_what_it_is_for_reads_the_value() -> None:
    said = taken("lower --mem-fraction-static to 0.8 to claw some memory back")
    assert said["use_flags"] == [["--mem-fraction-static", "0.8"]]


def test_a_sign_off_hanging_on_the_result_does_not_hold_the_orders() -> None:
    said = taken("rerun on GPUs 4-7 at tp 4 and measure again; if it still clears 1200 there, I'm happy")
    assert said == {"use_gpus": [4, 5, 6, 7], "layout": {"tp": 4, "dp": 1}, "measure_again": True}


@pytest.mark.parametrize(
    "text",
    [
        "if it clears 1000 use tp 8, I'm happy",  # the order itself hangs on the result
        "if it OOMs again use tp 8, I'm happy",  # a condition on something else
    ],
)
def test_an_order_that_hangs_on_a_condition_is_still_not_taken(text: str) -> None:
    assert taken(text) == {}


# ------------------------------------------------------------------------- loose words, then exact ones


def test_the_loose_word_then_the_exact_flag_takes_the_exact_one() -> None:
    assert taken("use fp8 kv cache, specifically --kv-cache-dtype fp8_e5m2")["use_flags"] == [
        ["--kv-cache-dtype", "fp8_e5m2"]
    ]


def test_a_second_value_for_the_flag_read_in_words_not_read_takes_nothing() -> None:
    """The reading sets fp8_e4m3 (what "fp8" means); the unread words name fp8_e5m2: a yes would take
    a value the operator may not mean."""
    text = "maybe put the KV cache in fp8? my notes say --kv-cache-dtype fp8_e5m2 is what we ran"
    assert taken(text) == {}


def test_a_model_described_then_named_is_asked_back_by_its_id() -> None:
    said = taken("switch to the GPTQ checkpoint, TheOrg/Big-Model-7B-GPTQ, and run it at tp 2")
    assert said["use_model"] == "TheOrg/Big-Model-7B-GPTQ" and said["layout"] == {"tp": 2, "dp": 1}


def test_a_hub_model_with_where_it_runs_is_asked_back_whole() -> None:
    said = taken("try TheOrg/Small-Model-3B on gpus 2 and 3 with tp 2")
    assert said["use_model"] == "TheOrg/Small-Model-3B" and said["use_gpus"] == [2, 3]


# ------------------------------------------------------------------------------- the change just named


def test_unset_it_after_a_variable_said_to_be_set() -> None:
    said = taken("the last run had NCCL_ALGO=Tree set, which skews it; unset it, restart, and benchmark")
    assert said == {"unset_env": ["NCCL_ALGO"], "measure_again": True}


def test_restart_with_that_after_a_flag_and_its_value() -> None:
    said = taken("prod runs with --max-running-requests 96; restart with that and bench again")
    assert said["use_flags"] == [["--max-running-requests", "96"]] and said["measure_again"] is True


def test_relaunch_there_after_a_port() -> None:
    said = taken("I want to see it serving on port 30040, so relaunch there and measure again")
    assert said["use_port"] == 30040 and said["measure_again"] is True


def test_redo_it_on_those_after_gpus() -> None:
    assert taken("I'd like it on GPUs 2,3 only. redo it on those")["use_gpus"] == [2, 3]


def test_same_setup_but_with_a_change_is_a_relaunch_with_it() -> None:
    said = taken("one more data point: same setup, but relaunched with --chunked-prefill-size 2048. Then benchmark it.")
    assert said == {"use_flags": [["--chunked-prefill-size", "2048"]], "measure_again": True}
