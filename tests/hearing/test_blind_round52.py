"""Round 52's blind sets (sre208 Mexican Spanish and English, sre209 German and English, sre210 Korean with
jamo shorthand, sre211 an incident commander's channel, redteam52 orders against questions, musings and
words to others), fixed by class. The cases are the classes' own, not the sets' lines. Checks marked guard
passed before the fix (9c0b9e1) too; every other one fails there.

First sight on 9c0b9e1, as the helpers labelled them: sre208 49% heard / 0 misread, sre209 61% / 4, sre210
55% / 1, sre211 85% / 0, redteam52 83% / 2 (250 of 375, 7 misread)."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, asking, kind_of, taken

from agent.hearing.replies import parse_reply


@pytest.mark.parametrize(
    "text",
    [
        "use port 30003. or 30004, whatever is free",
        "use port 30014... nah maybe 30015, not sure",
        "keep off gpu 1, but tp 8 like the old box had",
        "GPU 1 nicht benutzen, aber tp 8 wie immer",
    ],
)
def test_another_value_in_words_not_read_leaves_the_message_unread(text: str) -> None:
    """First sight: "use port 30001. or 30002, whichever" took 30001, and "GPU 2 nicht benutzen, aber tp 8
    über alle acht Karten" kept off GPU 2, dropping what the operator went on to say about it."""
    assert taken(text) == {}


def test_guard_the_same_value_in_a_reason_is_no_other_value() -> None:
    assert taken("port 30000 is taken. stay off it") == {"avoid_ports": [30000]}


@pytest.mark.parametrize("text", ["--context-length 16.384", "cuda graph max bs 12.5"])
def test_a_whole_number_setting_given_a_fraction_is_not_taken(text: str) -> None:
    """First sight: "context length 32.768 bitte" set --context-length to "32.768", a launch that fails."""
    assert taken(text) == {}


def test_guard_a_fraction_setting_keeps_its_fraction() -> None:
    assert taken("mem fraction 0.85") == {"use_flags": [["--mem-fraction-static", "0.85"]]}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("Port 30.003 bitte", {"use_port": 30003}),
        ("context length 16.384 bitte", {"use_flags": [["--context-length", "16384"]]}),
        ("mach mal tp 2", {"layout": {"tp": 2, "dp": 1}}),
        ("bitte nicht GPU 5 benutzen", {"avoid_gpus": [5]}),
        ("GPU 6 und 7 sind kaputt, die lass bitte weg", {"avoid_gpus": [6, 7]}),
        ("Port 30001 auf keinen Fall", {"avoid_ports": [30001]}),
        ("0-3 lässt du bitte in Ruhe", {"avoid_gpus": [0, 1, 2, 3]}),
        ("nur 2 bis 5 nehmen", {"use_gpus": [2, 3, 4, 5]}),
    ],
)
def test_a_german_operators_orders_are_read(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize("text", ["GPU 4 darfst du wieder nehmen", "wenn der Job fertig ist, Server stoppen"])
def test_guard_a_german_must_not_lifted_or_an_order_on_a_condition_is_not_taken(text: str) -> None:
    """Before the fix neither was read at all; once "nehmen" and "stoppen" were, "use GPU 4" and a stop were
    taken (a must-not lifted; "wenn" is "if")."""
    assert taken(text) == {}


def test_a_german_halt_said_as_a_filler_is_no_stop() -> None:
    """First sight: "mach wie letztes mal halt" ("do it like last time, then") stopped the run."""
    assert kind_of("mach es wie letztes mal halt") != "stop"
    assert kind_of("Feierabend, alles beenden.") == "stop"


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("ponle tp 2 dp 2", {"layout": {"tp": 2, "dp": 2}}),
        ("quítale el --enable-torch-compile", {"avoid_flags": ["--enable-torch-compile"]}),
        ("bájale el mem fraction a 0.75", {"use_flags": [["--mem-fraction-static", "0.75"]]}),
        ("nel, mejor usa las gpus 2 a 5", {"use_gpus": [2, 3, 4, 5]}),
        ("córrele el bench otra vez porfa", {"measure_again": True}),
    ],
)
def test_a_mexican_operators_orders_are_read(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "kind"), [("nel", "deny"), ("tú decide güey", "continue"), ("haz la segunda", "pick 2")]
)
def test_a_mexican_operators_replies_are_read(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("서버 꺼주세요", {"stop_server": True, "no_relaunch": True}),
        ("tp 4로 ㄱㄱ", {"layout": {"tp": 4, "dp": 1}}),
        ("gpu 1 쓰지마 다른 잡 돌아감", {"avoid_gpus": [1]}),
        ("gpu 5 쓰지 마요, 포트는 30007로", {"avoid_gpus": [5], "use_port": 30007}),
        ("NCCL_DEBUG=INFO 랑 NCCL_IB_DISABLE=1 넣어줘", {"set_env": {"NCCL_DEBUG": "INFO", "NCCL_IB_DISABLE": "1"}}),
    ],
)
def test_a_korean_operators_orders_are_read(text: str, reading: dict[str, object]) -> None:
    """First sight: "gpu 2 쓰지 마요, 포트는 31000으로" ("port: to 31000") kept the server off port 31000."""
    assert taken(text) == reading


@pytest.mark.parametrize(("text", "kind"), [("ㄴㄴ", "deny"), ("두번째꺼요", "pick 2"), ("알아서 하세요", "continue")])
def test_a_korean_operators_replies_are_read(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("IC here. hands off 6, prod lives there", {"avoid_gpus": [6]}),
        ("roll back to tp 2", {"layout": {"tp": 2, "dp": 1}}),
        ("ACK. pin to port 30009", {"use_port": 30009}),
        ("scribe: tp 4 was slow\nroll back to tp 2", {"layout": {"tp": 2, "dp": 1}}),
        ("@bob can you free gpu 3? @opsagent meanwhile keep off 3", {"avoid_gpus": [3]}),
        ("14:05Z take the server down", {"stop_server": True, "no_relaunch": True}),
    ],
)
def test_an_incident_channels_habits_are_read(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


def test_a_scribes_note_and_a_no_go_are_no_orders() -> None:
    assert taken("scribe: tp 4 was slow") == {}
    assert kind_of("NO-GO on that") == "deny"


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("how about tp 2?", "tp 2"),
        ("how about capping running requests at 128?", "use --max-running-requests 128"),
        ("what if we used port 30004?", "use port 30004"),
    ],
)
def test_a_suggestion_asked_as_a_question_is_asked_back_with_its_reading(text: str, reading: str) -> None:
    """First sight: "how about tp 4?" was answered as a question from the evidence ("I have nothing in my
    evidence on ..."), its setting never offered for a yes."""
    assert kind_of(text) == "say"
    assert asked_back(parse_reply(text, asking(), "op").text) == reading  # a "yes" takes exactly the reading


def test_a_suggestion_the_writer_takes_up_is_theirs_never_a_yes_to_my_question() -> None:
    """First sight: "what if you disabled the radix cache? ...actually yeah, do that" approved my proposal."""
    text = "what if you lowered the mem fraction to 0.8? ok, do it"
    assert kind_of(text) == "say"
    assert taken(text) == {"use_flags": [["--mem-fraction-static", "0.8"]]}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("how about reading the log first?", "pick 3"),
        ("how about listing the gpus? (your #2)", "pick 2"),
        ("take the topology option from your list", "pick 1"),
        ("go ahead, but quickly", "approve"),
    ],
)
def test_a_step_suggested_named_or_approved_in_a_hurry_is_read(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("would you mind not using gpu 6?", {"avoid_gpus": [6]}),
        ("go ahead but with tp 2 dp 4", {"layout": {"tp": 2, "dp": 4}}),
        ("for the model you need --trust-remote-code", {"use_flags": [["--trust-remote-code"]]}),
        ("use the small one for testing, Qwen/Qwen2.5-7B-Instruct", {"use_model": "Qwen/Qwen2.5-7B-Instruct"}),
    ],
)
def test_a_polite_must_not_a_go_ahead_with_a_layout_a_need_and_a_model_named_are_read(
    text: str, reading: dict[str, object]
) -> None:
    assert taken(text) == reading
