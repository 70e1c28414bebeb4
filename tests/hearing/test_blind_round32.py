"""Round 32's blind sets (sre128 a German-native engineer, sre129 a phone's autocorrect, sre130 a platform lead's long
messages, sre131 a vLLM researcher, redteam32 words a keyword reader would misread), fixed by class. Each case was
misread, or unread, on the code before its fix (7d61f3e, 41edcc2 or 88092b7), but for the guards said so (a reason
beside an order, a block it cannot read, a correction with no value, a word alone, an answer that is not one, a GPU
said to be fixed, two values joined by "or", a number put right after an order; 14 of 70); the safety cases are
first. The cases are the classes' own, not the sets' lines."""

from __future__ import annotations

from typing import Any

import pytest
from hearing_testkit import kind_of, taken

from agent.hearing.heed import ask_back
from agent.hearing.instructions import hear
from agent.state import OperatorRules

# ------------------------------------------------------------------------------ what must never be taken


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("stay off port 3000 sorry 30000, the old server is squatting on it", {"avoid_ports": [30000]}),
        ("use gpus 0,1 — sorry, 2,3. wrong pair again", {"use_gpus": [2, 3]}),
    ],
)
def test_a_value_put_right_after_sorry_is_the_value_taken(text: str, want: dict[str, Any]) -> None:
    """The value said sorry for was taken, the one meant dropped."""
    assert taken(text) == want


def test_an_order_taken_back_with_no_dont_is_not_taken() -> None:
    assert taken("use gpu 5. no don't. ugh") == {}


def test_a_layout_wider_than_the_gpus_named_is_refused_before_the_host_is_read() -> None:
    """ "GPUs 0 to 1 and TP 4" was asked back, and a yes would take a launch no GPU set can run."""
    asked = ask_back(OperatorRules(), "keep to gpus 0 to 1 and run tp 4 like on friday", None, None)
    assert asked is not None and asked.confirm is None
    assert "TP4 x DP1 needs 4 GPUs, and GPUs 0, 1 are left to it" in asked.rules.answers[-1]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("serve on port 30002, but keep it on 30000 too so the proxy keeps working", "port 30000"),
        ("use gpus 0-3 only, and make sure gpu 6 is included", "GPU 6"),
    ],
)
def test_a_value_added_in_words_not_read_takes_nothing(text: str, named: str) -> None:
    """A yes to the port or GPUs read would drop the one the unread words add."""
    asked = ask_back(OperatorRules(), text, None, list(range(8)))
    assert asked is not None and asked.confirm is None and f"you also named {named}" in asked.rules.answers[-1]


def test_a_value_named_as_the_reason_beside_an_order_is_no_addition() -> None:
    assert taken("serve on port 30002, the demo is sitting on 30000") == {"use_port": 30002}


def test_a_python_env_block_spaced_as_python_is_read_whole() -> None:
    """ "env = {...}" set one variable to '1}' and dropped the other."""
    got = taken('env = {"NCCL_IB_DISABLE": "1", "NCCL_SOCKET_IFNAME": "eth0"}  # for the next launch')
    assert got == {"set_env": {"NCCL_IB_DISABLE": "1", "NCCL_SOCKET_IFNAME": "eth0"}}


def test_an_env_block_it_cannot_read_is_never_dropped_nor_half_read() -> None:
    asked = ask_back(OperatorRules(), 'env = {"NCCL_DEBUG": os.environ["LEVEL"]}', None, list(range(8)))
    assert taken('env = {"NCCL_DEBUG": os.environ["LEVEL"]}') == {}
    assert asked is None or asked.confirm is None


@pytest.mark.parametrize(
    "text", ["tomorrow, kill the server", "next week when we move to the new box, go tp 8", "eventually make it new"]
)
def test_a_time_to_come_said_first_holds_the_order_after_it(text: str) -> None:
    assert taken(text) == {}


def test_no_no_then_a_go_ahead_is_never_a_refusal() -> None:
    assert kind_of("no no, do it, I was answering someone else") == "error"


@pytest.mark.parametrize("text", ["yes, still here, give me two min to read it", "ok gimme a sec to look"])
def test_a_yes_beside_a_wait_asked_for_is_no_approval(text: str) -> None:
    assert kind_of(text) != "approve"


def test_park_it_next_to_a_job_is_no_stop() -> None:
    got = taken("oh sure, park it next to the other job on 4 and 5. not a chance, keep away from 4 and 5")
    assert got.get("stop_server") is None


# ------------------------------------------------------------------------------ a value put right after a reason


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("port 30001\nwait no, 30001 is the exporter's. 30007", {"use_port": 30007}),
        ("gpus 0-3\nactually no, 4-7. I mixed up the halves", {"use_gpus": [4, 5, 6, 7]}),
        (
            "attention backend fa3. wait, fa3 doesn't run on this card. make that triton",
            {"use_flags": [["--attention-backend", "triton"]]},
        ),
        (
            "gpus 0,1,2,3 tp 4. actually no — 0,1,6,7, 2 and 3 are on the other switch",
            {"use_gpus": [0, 1, 6, 7], "layout": {"tp": 4, "dp": 1}},
        ),
        (
            "serve Qwen/Qwen3-8B\nsorry I meant the instruct one. Qwen/Qwen3-8B-Instruct",
            {"use_model": "Qwen/Qwen3-8B-Instruct"},
        ),
    ],
)
def test_a_value_put_right_with_its_reason_is_asked_back(text: str, want: dict[str, Any]) -> None:
    asked = ask_back(OperatorRules(), text, None, list(range(8)))
    assert asked is not None and asked.confirm is not None  # the reason is said back as not understood
    assert taken(text) == want


def test_a_correction_whose_value_is_not_placed_takes_nothing() -> None:
    assert taken("use gpu 2, no wait, 3 is broken") == {}


# ------------------------------------------------------------------------------ a phone's autocorrect


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Tap 2 dp 4 pls", {"layout": {"tp": 2, "dp": 4}}),
        ("Unset Nickel_DEBUG, too noisy", {"unset_env": ["NCCL_DEBUG"]}),
        ("Set Nickel_IB_DISABLE=1 before you launch", {"set_env": {"NCCL_IB_DISABLE": "1"}}),
        ("Keep off GPU sex", {"avoid_gpus": [6]}),
        ("Stop the sign lang server", {"stop_server": True, "no_relaunch": True}),
    ],
)
def test_what_autocorrect_made_of_the_fields_words(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want


@pytest.mark.parametrize("text", ["tap the log for me", "sex", "the sign lang docs say so"])
def test_the_dictionary_word_alone_stays_unread(text: str) -> None:
    assert taken(text) == {}


# ------------------------------------------------------------------------------ answers in more words


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("yep that meets the goal, I'll sign", "approve", True),
        ("not good enough, p99 doubled", "deny", True),
        ("I don't accept it as met, one run proves nothing", "deny", True),
        ("end the session altogether, back tomorrow", "stop", False),
        ("keep at it a bit longer", "continue", False),
    ],
)
def test_answers_said_in_an_operators_words(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize("text", ["I'll sign when the p99 is fixed", "this is done wrong", "not good enough to skip"])
def test_words_like_an_answer_that_say_something_else_are_no_sign_off(text: str) -> None:
    assert kind_of(text, sign_off=True) != "approve"


# ------------------------------------------------------------------------------ orders in more words


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("gpu 5 keeps throwing Xid 79, keep it out of whatever you launch", {"avoid_gpus": [5]}),
        ("Card 2 shows ECC errors since the reboot", {"avoid_gpus": [2]}),
        ("GPU 4 and 5 are the other team's, leave them in peace", {"avoid_gpus": [4, 5]}),
        ("pull NCCL_DEBUG_SUBSYS back out", {"unset_env": ["NCCL_DEBUG_SUBSYS"]}),
        ("take the NCCL_P2P_DISABLE away again", {"unset_env": ["NCCL_P2P_DISABLE"]}),
        ("limit batch size with --cuda-graph-max-bs 64", {"use_flags": [["--cuda-graph-max-bs", "64"]]}),
        ("load it with --kv-cache-dtype fp8_e5m2", {"use_flags": [["--kv-cache-dtype", "fp8_e5m2"]]}),
        ("put the 8B on 0-1 only", {"use_gpus": [0, 1]}),
        ("switch to the instruct ckpt: Qwen/Qwen3-8B-Instruct", {"use_model": "Qwen/Qwen3-8B-Instruct"}),
    ],
)
def test_orders_said_in_more_words(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want


@pytest.mark.parametrize("text", ["spin it back up", "make the server new please"])
def test_a_relaunch_in_more_words(text: str) -> None:
    rules, heard, missed = hear(OperatorRules(), text)
    assert rules.relaunch_wanted and heard and not missed


def test_a_gpu_that_was_faulty_and_is_used_is_used() -> None:
    assert taken("use gpu 3, it was throwing xid 79 but the reset fixed it") == {"use_gpus": [3]}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "restart it with mem fraction 0.75 and then measure again",
            {"use_flags": [["--mem-fraction-static", "0.75"]], "measure_again": True},
        ),
        ("Make tp 4, a single replica only.", {"layout": {"tp": 4, "dp": 1}}),
        ("stop only the server, not the run", {"stop_server": True, "no_relaunch": True}),
        ("stop the server for a while", {"stop_server": True, "no_relaunch": True}),
        ("we go back to Qwen/Qwen2.5-7B-Instruct, the big one does not fit", {"use_model": "Qwen/Qwen2.5-7B-Instruct"}),
        ("model meta-llama/Llama-3.1-8B-Instruct for the baseline", {"use_model": "meta-llama/Llama-3.1-8B-Instruct"}),
    ],
)
def test_more_orders_said_at_length(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("keep working on it", "continue"),
        ("keep on testing", "continue"),
        ("I would like that you do the second.", "pick 2"),
        ("1. actually no, 3, the log is more useful", "pick 3"),
        ("step 1 -- no wait, 2", "pick 2"),
    ],
)
def test_more_answers(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_a_number_put_right_after_an_order_is_no_pick() -> None:
    """Only a pick put right is a pick: "use gpu 2. actually no, 3" names a GPU, never step 3."""
    assert kind_of("use gpu 2. actually no, 3") == "say"


# ------------------------------------------------------------------------------ a long message's order


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("The other team booked 0-3 today. So please confine yourself to GPUs 4 and 5.", {"use_gpus": [4, 5]}),
        ("Rather than touch the firewall, keep the server on port 30000.", {"use_port": 30000}),
        (
            "two things: never use 8000 on this host again, and serve on 30007.",
            {"avoid_ports": [8000], "use_port": 30007},
        ),
        ("Add --chunked-prefill-size 4096 to the next launch.", {"use_flags": [["--chunked-prefill-size", "4096"]]}),
        ("NCCL_DEBUG_SUBSYS=ALL is flooding the log, get rid of it", {"unset_env": ["NCCL_DEBUG_SUBSYS"]}),
        (
            "relaunch, and this time with --trust-remote-code or the tokenizer won't load",
            {"use_flags": [["--trust-remote-code"]]},
        ),
    ],
)
def test_the_order_in_a_long_message(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want


def test_two_values_joined_by_or_are_still_no_order() -> None:
    assert taken("use gpu 2 or 3") == {}


def test_stop_here_altogether_stops_the_run() -> None:
    assert kind_of("Let's stop here altogether.") == "stop"
