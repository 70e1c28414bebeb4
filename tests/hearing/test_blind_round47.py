"""Round 47's blind sets (sre188 Singlish, sre189 a pager question packed with an order, sre190 English
with Arabic habits and numbers, sre191 a meticulous SRE's units and spelt-out values, redteam47 other
people's words, hypotheticals and reported speech), and round 46's leftover corrections inside one message,
fixed by class. The cases are the classes' own, not the sets' lines. Checks marked guard passed before the
fix (a48957b) too; every other one fails there.

First sight on a48957b, as the helpers labelled them: sre188 73% heard / 0 misread, sre189 85% / 2, sre190
76% / 4, sre191 73% / 2, redteam47 84% / 1 (294 of 375, 9 misread)."""

from __future__ import annotations

import pytest
from hearing_testkit import kind_of, rules_said, taken


@pytest.mark.parametrize(
    "text",
    [
        "sure, carry on, and sort out the nccl mess",
        "go ahead, fix the flaky warmup",
        "yes go ahead. bump the batch while you're at it",
    ],
)
def test_an_order_beside_a_yes_is_never_a_remark(text: str) -> None:
    """ "fix the nccl thing yalla" approved the proposal and dropped the order: an unread order beside an
    answer keeps the message unread."""
    assert kind_of(text) == "say"


@pytest.mark.parametrize(
    "text", ["context length, your call", "your call on the chunked prefill; anything sane is fine by me"]
)
def test_a_decision_handed_back_on_a_setting_is_no_go_on(text: str) -> None:
    """ "mem fraction, your call" was read as "carry on": the decision is about a setting, with no value."""
    assert kind_of(text) == "say"
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("yalla, end everything now", "stop"),
        ("Affirmative, go ahead with that.", "approve"),
        ("la, not this one", "deny"),
        ("whole run cancel lah", "stop"),
    ],
)
def test_replies_of_the_round(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(("text", "kind"), [("yalla", "approve"), ("Halt the entire run.", "stop")])
def test_guard_replies_that_stay(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_guard_yalla_beside_an_order_is_only_come_on() -> None:
    assert taken("disable radix cache yalla") == {"use_flags": [["--disable-radix-cache"]]}


@pytest.mark.parametrize(
    "text",
    [
        "tp 2. or tp 4, whichever's cheaper? idk",
        "gpu 4 keeps logging ecc errors, could that be the slowdown?",
        "ok you can pass torch compile again, upstream fixed it",
    ],
)
def test_nothing_is_taken_from_a_choice_a_cause_asked_or_a_permission(text: str) -> None:
    """ "tp 4. or tp 8, whichever's faster? idk" took TP4; "gpu 5 is throwing ecc errors, is that why it's
    slow?" asked back GPU 5 kept off; "you can pass torch compile again" turned it on."""
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("three replicas, two-way tensor parallel each", {"layout": {"tp": 2, "dp": 3}}),
        ("tp 2 each, four replicas", {}),
    ],
)
def test_replicas_in_words_are_the_dp(text: str, reading: dict[str, object]) -> None:
    """ "Two replicas, four-way tensor parallel each" launched one replica; a DP in words never read is no DP 1."""
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("max running requests cap at 96 lah", {"use_flags": [["--max-running-requests", "96"]]}),
        ("torch compile don't use ah, warmup too long", {"avoid_flags": ["--enable-torch-compile"]}),
        ("port 30007 can or not?", {"use_port": 30007}),
        ("tp 4 lor, one copy only", {"layout": {"tp": 4, "dp": 1}}),
        ("31000 someone using already lah, don't use that one", {"avoid_ports": [31000]}),
    ],
)
def test_singlish(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


def test_guard_singlish_can_or_not_before_a_question_still_asks() -> None:
    assert taken("disable cuda graph can or not? will it be slower meh?") == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("tp arba3a habibi", {"layout": {"tp": 4, "dp": 1}}),
        ("gpu khamsa is dead, never use it", {"avoid_gpus": [5]}),
        ("the model the /models/Qwen2.5-7B-Instruct ya3ni", {"use_model": "/models/Qwen2.5-7B-Instruct"}),
        ("aywa go, tp tamanya", {"layout": {"tp": 8, "dp": 1}}),
    ],
)
def test_arabic_numbers_and_order(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("gpus 2 and 3, leave them alone", {"avoid_gpus": [2, 3]}),
        (
            "set NCCL_P2P_DISABLE to 1 and NCCL_SOCKET_IFNAME to eth0",
            {"set_env": {"NCCL_P2P_DISABLE": "1", "NCCL_SOCKET_IFNAME": "eth0"}},
        ),
        ("use 30002, and the 30001 never again", {"use_port": 30002, "avoid_ports": [30001]}),
        ("Raise the static memory fraction to 82 percent.", {"use_flags": [["--mem-fraction-static", "0.82"]]}),
        (
            "Chunked prefill: 2048 tokens, from the next launch onward.",
            {"use_flags": [["--chunked-prefill-size", "2048"]]},
        ),
        ("Cap the maximum number of running requests at 64.", {"use_flags": [["--max-running-requests", "64"]]}),
        ("Schedule policy: first come first served.", {"use_flags": [["--schedule-policy", "fcfs"]]}),
    ],
)
def test_plain_english_the_round_showed_unread(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("does cuda graph capture even help here? turn it off", {"use_flags": [["--disable-cuda-graph"]]}),
        ("who set NCCL_ALGO?? unset it", {"unset_env": ["NCCL_ALGO"]}),
        ("what's on 2 and 3?? stay off both", {"avoid_gpus": [2, 3]}),
        (
            "was it the warmup that died? either way cuda graph max bs 32",
            {"use_flags": [["--cuda-graph-max-bs", "32"]]},
        ),
    ],
)
def test_a_question_then_an_order_about_what_it_asked(text: str, reading: dict[str, object]) -> None:
    """The question stays unread, so the reading is asked back; a yes takes the order, its pronoun resolved."""
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("the forum says mem frac 0.92, I say 0.8", {"use_flags": [["--mem-fraction-static", "0.8"]]}),
        (
            "the vendor sheet recommends --kv-cache-dtype fp8_e4m3, but use fp8_e5m2",
            {"use_flags": [["--kv-cache-dtype", "fp8_e5m2"]]},
        ),
        ("Ana said to enable torch compile, don't", {"avoid_flags": ["--enable-torch-compile"]}),
        ("stick with /models/Llama-3.1-8B-Instruct", {"use_model": "/models/Llama-3.1-8B-Instruct"}),
    ],
)
def test_the_writers_own_words_after_someone_elses(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


def test_guard_someone_elses_words_alone_are_only_asked_back() -> None:
    assert rules_said("the forum says mem frac 0.92") == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("kv cache dtype fp8_e5m2. or e4m3. no, e5m2", {"use_flags": [["--kv-cache-dtype", "fp8_e5m2"]]}),
        (
            "serve /models/Qwen2.5-7B-Instruct and bind it to 30001. no wait, 30003",
            {"use_port": 30003, "use_model": "/models/Qwen2.5-7B-Instruct"},
        ),
        ("switch to /models/a-70b. no the small one. /models/a-8b", {"use_model": "/models/a-8b"}),
    ],
)
def test_a_correction_inside_one_message(text: str, reading: dict[str, object]) -> None:
    """Round 46's sre187 left these unread: the value put right is the last one said, asked back."""
    assert taken(text) == reading


def test_that_var_after_a_variable_said_with_what_it_did() -> None:
    """Round 46's "NCCL_DEBUG=INFO is why sglang.log is 3 GB. drop that var" was left unread."""
    assert taken("NCCL_ALGO=Tree is why allreduce crawls. drop that var") == {"unset_env": ["NCCL_ALGO"]}


def test_gpus_named_then_used_by_a_pronoun_are_asked_back_not_dropped() -> None:
    """A topic clause is only skipped when the pronoun after it takes its GPUs; "use them" does not (add them,
    or only them?), so the GPUs named stay read and asked back, never lost from the report."""
    assert taken("gpus 6 and 7, use them") == {"use_gpus": [6, 7]}
