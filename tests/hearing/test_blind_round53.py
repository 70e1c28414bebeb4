"""Round 53's blind sets (sre212 Hong Kong Cantonese and English, sre213 Hindi in Devanagari and English,
sre214 an ML researcher's model terms, sre215 Russian and Ukrainian typed in Latin letters, redteam53 tag
questions and negated questions), fixed by class. The cases are the classes' own, not the sets' lines.
Checks marked guard passed before the fix (1a002d9) too; every other one fails there.

First sight on 1a002d9, as the helpers labelled them: sre212 33% heard / 0 misread, sre213 25% / 0, sre214
77% / 0, sre215 41% / 2, redteam53 81% / 2 (194 of 375, 4 misread)."""

from __future__ import annotations

import pytest
from hearing_testkit import kind_of, taken


def test_a_variable_said_beside_a_plain_word_is_not_given_it_as_its_value() -> None:
    """First sight: "CUDA_LAUNCH_BLOCKING ubery" ("take it out", in Ukrainian) set the variable to "ubery"."""
    assert taken("NCCL_DEBUG verbose") == {}
    assert taken("CUDA_LAUNCH_BLOCKING prybery") == {}


def test_guard_a_variables_value_in_capitals_a_number_or_an_interface_is_read() -> None:
    assert taken("NCCL_DEBUG INFO") == {"set_env": {"NCCL_DEBUG": "INFO"}}
    assert taken("NCCL_SOCKET_IFNAME eth1") == {"set_env": {"NCCL_SOCKET_IFNAME": "eth1"}}


@pytest.mark.parametrize("text", ["port 30005 ili 30006", "port 30005 abo 30006"])
def test_another_port_offered_with_or_in_another_language_leaves_the_message_unread(text: str) -> None:
    """First sight: "port 30001 ili 30002" took 30001."""
    assert taken(text) == {}


def test_a_must_not_whose_object_was_split_off_takes_nothing() -> None:
    """First sight (sre213): "और GPU 5 मत use करो" put as "do not use and GPU 5" was read as USE GPU 5."""
    assert taken("don't use and gpu 6") == {}


@pytest.mark.parametrize(
    ("text", "kind"), [("not that, do 2 instead, ok?", "pick 2"), ("no, not this one; take 1", "pick 1")]
)
def test_the_proposal_refused_for_a_step_picked_is_the_pick(text: str, kind: str) -> None:
    """First sight: "not that, do 3 instead, ok?" was a deny."""
    assert kind_of(text) == kind


def test_a_suggestion_said_as_a_statement_and_taken_up_is_the_order() -> None:
    """First sight: "wouldn't hurt to turn off cuda graph. do it." approved my own proposal."""
    text = "wouldn't hurt to disable the radix cache. do it."
    assert kind_of(text) == "say"
    assert taken(text) == {"use_flags": [["--disable-radix-cache"]]}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("you won't touch gpu 6, right?", {"avoid_gpus": [6]}),
        ("you'll set NCCL_DEBUG=WARN, won't you?", {"set_env": {"NCCL_DEBUG": "WARN"}}),
        ("don't leave NCCL_IB_DISABLE set, alright?", {"unset_env": ["NCCL_IB_DISABLE"]}),
        ("and don't go near gpu 5 either", {"avoid_gpus": [5]}),
    ],
)
def test_an_order_asked_as_a_check_is_the_order(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize("text", ["we're not on port 30001, are we?", "you did unset NCCL_DEBUG, didn't you?"])
def test_guard_a_question_about_what_is_or_was_takes_nothing(text: str) -> None:
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("the third one, yeah?", "pick 3"),
        ("why don't you go ahead and run it", "approve"),
        ("go ahead, why not", "approve"),
    ],
)
def test_a_pick_or_a_go_ahead_with_a_tag_or_a_shrug_is_read(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("split across four cards, and put it on 4-7", {"layout": {"tp": 4, "dp": 1}, "use_gpus": [4, 5, 6, 7]}),
        ("two copies of the model, each split over 2 cards", {"layout": {"tp": 2, "dp": 2}}),
        ("skip the graph capture", {"use_flags": [["--disable-cuda-graph"]]}),
        ("quantize the weights to fp8", {"use_flags": [["--quantization", "fp8"]]}),
        ("chunk the prefill at 2048 tokens", {"use_flags": [["--chunked-prefill-size", "2048"]]}),
        ("cap cuda graph capture at batch 96", {"use_flags": [["--cuda-graph-max-bs", "96"]]}),
        ("give it a mem fraction of 0.75", {"use_flags": [["--mem-fraction-static", "0.75"]]}),
    ],
)
def test_a_researchers_model_terms_that_name_a_value_are_read(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


def test_guard_model_terms_that_name_no_value_are_not_read() -> None:
    assert taken("make the KV cache smaller") == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("ne ispolzuy gpu 5", {"avoid_gpus": [5]}),
        ("ispolzuy port 30007", {"use_port": 30007}),
        ("postav mem frac 0.75", {"use_flags": [["--mem-fraction-static", "0.75"]]}),
        ("zupyny server", {"stop_server": True, "no_relaunch": True}),
        ("radix cache vyklyuchi", {"use_flags": [["--disable-radix-cache"]]}),
        ("NCCL_DEBUG uberi", {"unset_env": ["NCCL_DEBUG"]}),
    ],
)
def test_russian_and_ukrainian_typed_in_latin_letters_are_read(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("GPU 6 मत use करो", {"avoid_gpus": [6]}),
        ("port 30007 use करो", {"use_port": 30007}),
        ("server बंद करो", {"stop_server": True, "no_relaunch": True}),
    ],
)
def test_hindi_in_devanagari_is_read(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("唔好用 gpu 6", {"avoid_gpus": [6]}),
        ("停咗個 server", {"stop_server": True, "no_relaunch": True}),
        ("gpu 1 同 gpu 2 唔好用", {"avoid_gpus": [1, 2]}),
    ],
)
def test_cantonese_is_read(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "kind"),
    [("ni", "deny"), ("davai punkt 2", "pick 2"), ("हाँ", "approve"), ("唔係", "deny"), ("係", "approve")],
)
def test_replies_in_these_languages_are_read(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_guard_a_cantonese_must_not_taken_back_takes_nothing() -> None:
    assert taken("唔好用 gpu 2... 啊唔係, 其實用埋都得") == {}
