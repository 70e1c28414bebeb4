"""Round 42's blind sets (sre168 English with Vietnamese habits, sre169 English with Brazilian Portuguese habits,
sre170 references back to earlier in the run, sre171 time and sequence, redteam42 negation in all its forms),
fixed by class. The cases are the classes' own, not the sets' lines. Checks marked guard passed before the fix
(ef3cdbe) too; every other one fails there."""

from __future__ import annotations

import pytest
from hearing_testkit import asking, kind_of, taken

from agent.hearing.replies import Answered, parse_reply


@pytest.mark.parametrize(
    "text", ["gpu 5 free?", "port 30010 ok?", "is possible use gpu 2?", "is it possible to use port 30005?"]
)
def test_asking_whether_a_gpu_or_port_may_be_used_is_answered_and_takes_nothing(text: str) -> None:
    """ "port 30000 ok?" was asked back as "serve on port 30000", "is possible use gpu 3?" taken as GPU 3."""
    with pytest.raises(Answered, match="still waits"):
        parse_reply(text, asking(), "op")


def test_guard_a_request_asked_as_a_question_is_still_asked_back() -> None:
    assert taken("is possible restart with port 30001?") == {"use_port": 30001}


@pytest.mark.parametrize(
    "text",
    [
        "ok no",
        "okay, no",
        "I wouldn't, but it's your call",
        "nah, but up to you",
        "hold off until the download finishes",
    ],
)
def test_a_yes_and_a_no_together_or_a_refusal_handed_back_is_no_answer(text: str) -> None:
    assert kind_of(text) == "say"
    assert taken(text) == {}


def test_guard_a_hold_until_the_operator_says_stays_a_refusal() -> None:
    assert kind_of("hold off until I say") == "deny"
    assert kind_of("yeah no") == "deny"  # the Australian way
    assert taken("wait till the other job drains") == {}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("no, that's fine, go ahead", "approve"),
        ("nope, it's ok, do it", "approve"),
        ("I wouldn't say no", "approve"),
        ("can't hurt", "approve"),
        ("not the worst idea, go ahead", "approve"),
        ("yes, I read it, but no", "deny"),
        ("not unless the node is drained, and it isn't. no", "deny"),
        ("shouldn't we just stop? yes. stop the whole run", "stop"),
    ],
)
def test_a_negation_that_says_yes_and_a_yes_that_says_no(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_guard_plain_enough_yeses() -> None:
    assert kind_of("not a bad idea, go ahead") == "approve"
    assert kind_of("don't see why not") == "approve"
    assert kind_of("can't argue with those numbers, sign it", sign_off=True) == "approve"


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("I wouldn't say no to --max-running-requests 64", {"use_flags": [["--max-running-requests", "64"]]}),
        ("can't hurt to set NCCL_DEBUG=WARN", {"set_env": {"NCCL_DEBUG": "WARN"}}),
        ("won't hurt to bump --chunked-prefill-size 8192", {"use_flags": [["--chunked-prefill-size", "8192"]]}),
        ("no reason not to use 4-7", {"use_gpus": [4, 5, 6, 7]}),
        ("there's nothing wrong with --schedule-policy fcfs", {"use_flags": [["--schedule-policy", "fcfs"]]}),
        ("I don't think you should launch on gpu 5", {"avoid_gpus": [5]}),
        ("NCCL_IB_DISABLE shouldn't be set anymore", {"unset_env": ["NCCL_IB_DISABLE"]}),
        ("why not tp 2? seriously, do tp 2 dp 4 next launch", {"layout": {"tp": 2, "dp": 4}}),
    ],
)
def test_litotes_and_far_negations_read_as_what_they_ask(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


def test_guard_a_clash_of_a_must_not_and_a_use_takes_nothing() -> None:
    assert taken("avoid gpu 4 but use 2,3,4,5") == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("tonight only: run on 0,1,2,3", {"use_gpus": [0, 1, 2, 3]}),
        ("tonight: --max-running-requests 32", {"use_flags": [["--max-running-requests", "32"]]}),
        ("from now on keep NCCL_DEBUG=WARN on every launch", {"set_env": {"NCCL_DEBUG": "WARN"}}),
        ("after the bench set NCCL_DEBUG=INFO for the next launch", {"set_env": {"NCCL_DEBUG": "INFO"}}),
        ("after this one avoid 30002", {"avoid_ports": [30002]}),
        ("until the other team is done keep gpus 4 and 5 free", {"avoid_gpus": [4, 5]}),
        ("cuda graph disable for now", {"use_flags": [["--disable-cuda-graph"]]}),
    ],
)
def test_when_a_rule_holds_from_the_next_launch_the_words_say_nothing_more(
    text: str, reading: dict[str, object]
) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize("text", ["tp 2 now, tp 8 after 9pm", "gpus 0-3 now, gpus 4-7 after 10pm"])
def test_a_setting_for_a_later_time_the_run_cannot_hold_takes_nothing(text: str) -> None:
    """ "tp 4 now, tp 8 after 6pm" was asked back as TP4: a yes would drop the later one silently."""
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("stop everything for tonight, we're done", "stop"),
        ("keep going on your own till the morning", "continue"),
    ],
)
def test_a_reply_for_tonight(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("gpus 4-7 again, tp4", {"use_gpus": [4, 5, 6, 7], "layout": {"tp": 4, "dp": 1}}),
        ("same port as the first launch. 30005", {"use_port": 30005}),
        ("the other gpus this time, 0-3", {"use_gpus": [0, 1, 2, 3]}),
        ("back to --max-running-requests 128 like before", {"use_flags": [["--max-running-requests", "128"]]}),
        (
            "flashinfer hangs, go back to triton attn like the first try",
            {"use_flags": [["--attention-backend", "triton"]]},
        ),
        ("port 30000 again, 30001 is someone elses job now", {"use_port": 30000, "avoid_ports": [30001]}),
    ],
)
def test_a_reference_back_beside_its_value_is_the_value(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize("text", ["same port as last time", "use the same mem fraction as before"])
def test_guard_a_reference_back_with_no_value_takes_nothing(text: str) -> None:
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("the second one you listed", "pick 2"),
        ("option 3 again", "pick 3"),
        ("ok number 2", "pick 2"),
        ("no wait, not 1. do 3", "pick 3"),
        # Vietnamese
        ("ok anh, run đi", "approve"),
        ("không, not now", "deny"),
        ("chọn 3 đi", "pick 3"),
        ("tự làm đi", "continue"),
        ("stop hết đi", "stop"),
        # Brazilian Portuguese
        ("pode", "approve"),
        ("vai no 3", "pick 3"),
        ("faz o primeiro", "pick 1"),
        ("cancela tudo", "stop"),
        ("nao precisa, skip this", "deny"),
        ("segue você", "continue"),
    ],
)
def test_answers_in_second_language_forms(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(("text", "kind"), [("không sign", "deny"), ("não assino isso", "deny")])
def test_a_refusal_to_sign_in_another_language(text: str, kind: str) -> None:
    assert kind_of(text, sign_off=True) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        # Vietnamese habits: the object, then the verb
        ("gpu 2 3 avoid", {"avoid_gpus": [2, 3]}),
        ("port 30002 30003 both cannot, use 30010", {"avoid_ports": [30002, 30003], "use_port": 30010}),
        ("tp 2 dp 4 la ok", {"layout": {"tp": 2, "dp": 4}}),
        ("dạ ok but port use 30020 anh", {"use_port": 30020}),
        ("mem fraction set 0.8, 0.88 OOM already", {"use_flags": [["--mem-fraction-static", "0.8"]]}),
        # Brazilian habits
        ("tira a var NCCL_P2P_DISABLE", {"unset_env": ["NCCL_P2P_DISABLE"]}),
        ("nao use 30000, actually is from the grafana. use 30020", {"use_port": 30020, "avoid_ports": [30000]}),
        ("port 8080 never. put in 30003", {"avoid_ports": [8080], "use_port": 30003}),
        ("no use nothing on gpu 1", {"avoid_gpus": [1]}),
        ("tp 4 pls, dp 2", {"layout": {"tp": 4, "dp": 2}}),
    ],
)
def test_second_language_instruction_forms(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


def test_guard_asking_whether_it_happened_already_is_no_request() -> None:
    assert taken("ok but benchmark run again already?", sign_off=True) == {}
