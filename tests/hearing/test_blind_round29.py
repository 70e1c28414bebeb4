"""Round 29's blind sets (an ML researcher, a Kubernetes platform engineer, night-shift texting, pasted
command fragments), fixed by class. Each case was misread, or unread, on the code before (ccaa1ce); the
misreads are first. The sets themselves were lost with that session's machine before they were kept as
fixtures: these checks hold what was learnt from them."""

from __future__ import annotations

from typing import Any

import pytest
from hearing_testkit import asking, kind_of, rules_said, taken

from agent.hearing.replies import parse_reply

# ------------------------------------------------------------------------------ first-sight misreads


@pytest.mark.parametrize("text", ["looks too good, rerun it", "3.9k looks too good", "that looks suspiciously good"])
def test_a_number_doubted_as_too_good_signs_nothing_off(text: str) -> None:
    assert kind_of(text, sign_off=True) != "approve"


def test_a_number_judged_good_still_signs_off() -> None:
    assert kind_of("3.9k looks good", sign_off=True) == "approve"


@pytest.mark.parametrize(
    "text", ["stop it for now, the other team needs the box", "stop it for now. I'll look at the logs tomorrow"]
)
def test_stop_it_with_a_remark_stops_the_server_not_the_run(text: str) -> None:
    assert kind_of(text) != "stop"
    assert taken(text).get("stop_server") is True


def test_stop_it_all_still_ends_the_run() -> None:
    assert kind_of("stop it all, we're done") == "stop"


@pytest.mark.parametrize(
    "text", ["port 30000 clashes with the metrics exporter", "port 30000 collides with the lb health checks"]
)
def test_a_port_said_to_clash_is_never_the_port_to_serve_on(text: str) -> None:
    assert "use_port" not in taken(text)


def test_a_dp_said_in_words_beside_a_tp_is_never_taken_as_the_tp_alone() -> None:
    got = taken("replicas 1 -> 2 (dp2), tp stays 4")
    assert got.get("layout") in (None, {"tp": 4, "dp": 2})  # never TP 4 with DP 1


@pytest.mark.parametrize("text", ["2 gpus", "do 2 gpus"])
def test_a_gpu_count_is_no_step_picked(text: str) -> None:
    assert kind_of(text) != "pick 2"


def test_a_refusal_keeps_the_dashes_of_the_flag_after_it() -> None:
    reply = parse_reply("not yet. --disable-cuda-graph first", asking(sign_off=True), "op")
    assert reply.kind == "deny"
    assert "--disable-cuda-graph" in reply.text


# ------------------------------------------------------------------------------ classes


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("could we restrict this to GPUs 4-7?", {"use_gpus": [4, 5, 6, 7]}),
        ("would you mind capping --max-running-requests at 128?", {"use_flags": [["--max-running-requests", "128"]]}),
        ("so could we set the port to 30010?", {"use_port": 30010}),
    ],
)
def test_a_polite_request_asked_as_a_question_is_the_order_it_is(text: str, want: dict[str, Any]) -> None:
    assert rules_said(text) == want


@pytest.mark.parametrize(
    "text",
    [
        "could we maybe restrict this to GPUs 4-7?",
        "could we use GPUs 4-7? not sure the other team is done",
        "can you stop it at all?",
    ],
)
def test_a_polite_question_the_message_doubts_puts_nothing_in_force(text: str) -> None:
    assert rules_said(text) == {}  # asked back at most: only a yes takes it


def test_a_backend_named_alone_that_several_backends_take_is_not_guessed() -> None:
    assert rules_said("triton backend") == {}  # attention, MoE runner, LoRA: SGLang has triton for each
    assert rules_said("triton attention backend") == {"use_flags": [["--attention-backend", "triton"]]}


@pytest.mark.parametrize("text", ["ok we're done for today, stop the whole thing", "stop everything were done"])
def test_the_run_stopped_with_we_are_done_beside_it(text: str) -> None:
    assert kind_of(text) == "stop"


@pytest.mark.parametrize("text", ["do whatever's next on your list", "do whatever you think comes next"])
def test_carry_on_said_as_whatever_is_next(text: str) -> None:
    assert kind_of(text) == "continue"


def test_a_redo_on_other_gpus_relaunches_there_and_measures_again() -> None:
    assert rules_said("rerun it on 4-7") == {"use_gpus": [4, 5, 6, 7], "measure_again": True}
    assert rules_said("redo it with tp 2") == {"layout": {"tp": 2, "dp": 1}}  # a relaunch with it, no bench said
