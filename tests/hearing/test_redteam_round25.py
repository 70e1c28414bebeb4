"""What the round-25 red team (about 2,500 black-box probes) left, fixed by class: each case here was
taken at once, read as another kind of reply, or asked back as something the writer did not mean."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, asking, kind_of, rules_said

from agent.hearing.replies import ReplyError, parse_reply


@pytest.mark.parametrize(
    "text",
    ["yes, with sudo", "yes, on the other host", "yes, as root", "yes, in principle", "yes, without the -m"],
)
def test_a_yes_to_something_else_is_no_yes(text: str) -> None:
    """A few words after the yes change what it says yes to: the proposal as shown is not approved."""
    assert kind_of(text) == "say"
    assert rules_said(text) == {}


@pytest.mark.parametrize(
    ("text", "sign_off"),
    [
        ("yes, with pleasure", False),
        ("go ahead, on my side", False),
        ("approved, as planned", False),
        ("signed off, from my side", True),
        ("yes. on a related note, the fans are loud", False),
    ],
)
def test_a_courtesy_after_a_yes_keeps_it(text: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == "approve"


@pytest.mark.parametrize("text", ["no, go ahead", "nope, do it", "no, proceed"])
def test_a_no_then_a_go_ahead_is_asked(text: str) -> None:
    """Neither the no nor the go-ahead is taken: the operator is told to say which."""
    for sign_off in (False, True):
        with pytest.raises(ReplyError, match="says no, then go ahead"):
            parse_reply(text, asking(sign_off), "op")


def test_a_no_with_its_reason_is_still_a_deny() -> None:
    assert kind_of("no, not now") == "deny"
    assert kind_of("no, run it at 128 too before we call it done", sign_off=True) == "deny"
    assert kind_of("no, don't do it") == "deny"


@pytest.mark.parametrize(
    "text", ["stop, sorry, continue", "stop. oops, wrong chat", "yes, oops", "use gpu 3, wrong window"]
)
def test_a_message_sent_by_mistake_takes_nothing(text: str) -> None:
    assert kind_of(text) == "say"
    assert rules_said(text) == {}
    assert asked_back(text) is None


def test_a_stop_with_an_apology_still_stops() -> None:
    assert kind_of("stop, sorry") == "stop"


def test_a_polish_yes_then_stop_is_the_stop() -> None:
    assert kind_of("tak, zatrzymaj") == "stop"  # "yes, stop": was an approve


@pytest.mark.parametrize(
    "text", ["stop the server tomorrow", "use GPU 3 tonight", "relaunch at 5pm", "tomorrow use GPU 3", "relaunch later"]
)
def test_an_instruction_for_later_is_not_done_now(text: str) -> None:
    """I cannot wait for a time to come: nothing of it is taken now, nor asked back as if for now."""
    assert rules_said(text) == {}
    assert asked_back(text) is None


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("don't use GPU 3 tonight", {"avoid_gpus": [3]}),  # a must-not for later is kept now: the safe side
        ("ok stop the server. no relaunch till tomorrow", None),  # "till": how long, not when
        ("use 31000 next time", {"use_port": 31000}),  # the next launch
        ("turn on NCCL_DEBUG=INFO so the engineers can read the logs later", {"set_env": {"NCCL_DEBUG": "INFO"}}),
    ],
)
def test_a_time_that_is_no_later_start_keeps_the_reading(text: str, rules: dict[str, object] | None) -> None:
    if rules is not None:
        assert rules_said(text) == rules
    else:
        assert asked_back(text) == "stop the server"


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("cuda_graph: off", {"use_flags": [["--disable-cuda-graph"]]}),
        ("cuda_graph=on", {"avoid_flags": ["--disable-cuda-graph"]}),
        ("radix_cache: off", {"use_flags": [["--disable-radix-cache"]]}),
        ("torch_compile: on", {"use_flags": [["--enable-torch-compile"]]}),
        ("torch_compile: false", {"avoid_flags": ["--enable-torch-compile"]}),
        ("relaunch: false", {"no_relaunch": True}),
        ("restart=no", {"no_relaunch": True}),
    ],
)
def test_a_config_key_switched_reads_as_its_flag(text: str, rules: dict[str, object]) -> None:
    """A feature's key set on or off: was an environment variable ("cuda_graph: off" set CUDA_GRAPH=off)
    or a relaunch ("relaunch: false" asked back as "relaunch it")."""
    assert rules_said(text) == rules
    assert asked_back(text) is None


def test_a_lowercase_name_of_a_real_variable_is_still_one() -> None:
    assert rules_said("nccl_debug=info") == {"set_env": {"NCCL_DEBUG": "INFO"}}
    assert rules_said("Cuda_Visible_Devices=0,1") == {"use_gpus": [0, 1]}


@pytest.mark.parametrize("text", ["port 8000 is reserved for you", "gpu 3 is reserved for you"])
def test_held_for_this_run_is_never_kept_off(text: str) -> None:
    assert rules_said(text) == {}
    assert asked_back(text) is None


def test_held_for_another_is_still_kept_off() -> None:
    assert asked_back("port 8000 is reserved for grafana") == "avoid port 8000"
    assert rules_said("GPU 3 is reserved") == {"avoid_gpus": [3]}


def test_a_setting_judged_enough_then_turned_is_no_reading() -> None:
    assert rules_said("32k context is plenty, but use 64k anyway") == {}
    assert asked_back("32k context is plenty, but use 64k anyway") is None
    assert rules_said("32k context is plenty") == {"use_flags": [["--context-length", "32768"]]}
