"""Round 31's blind sets (sre124 on call at 3am, sre125 a French-native SRE, sre126 an operator who corrects
themself, sre127 a vLLM user, redteam31 words a keyword reader would misread), fixed by class. Each case was
misread, or unread, on the code before (c033678); the safety cases are first. The cases are the classes' own,
not the sets' lines."""

from __future__ import annotations

from typing import Any

import pytest
from hearing_testkit import asking, kind_of, rules_said, taken

from agent.hearing.heed import ask_back
from agent.hearing.replies import parse_reply
from agent.state import OperatorRules

# ------------------------------------------------------------------------------ a value corrected on the next line


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "context length 64k\nno, 32k. 64k blew the kv pool last time",
            {"use_flags": [["--context-length", "32768"]]},
        ),
        ("ctx len 8k for now. er, 16k", {"use_flags": [["--context-length", "16384"]]}),
        (
            "NCCL_DEBUG=INFO on the next launch, to see the transport\nactually WARN. INFO floods the log",
            {"set_env": {"NCCL_DEBUG": "WARN"}},
        ),
        (
            "--quantization fp8\n~~fp8~~ modelopt_fp4 sorry, it's the nvfp4 checkpoint",
            {"use_flags": [["--quantization", "modelopt_fp4"]]},
        ),
    ],
)
def test_a_value_put_right_after_a_pause_is_the_value_taken(text: str, want: dict[str, Any]) -> None:
    """The first value was asked back, and a yes would have launched with the value taken back."""
    assert taken(text) == want


def test_a_setting_taken_back_on_the_next_line_is_not_set() -> None:
    got = taken("mem-frac 0.8\nactually leave mem-frac where it is, just drop chunked prefill to 2048")
    assert got == {"use_flags": [["--chunked-prefill-size", "2048"]]}


def test_a_variable_misspelt_then_put_right_is_never_given_the_word_as_its_value() -> None:
    """Only a word's value is put right in place ("=INFO ... actually WARN"), never a list's ("=2,3")."""
    assert "CUDA_VISIBLE_DEVICS" not in str(taken("CUDA_VISIBLE_DEVICS=2,3 .. er DEVICES"))


@pytest.mark.parametrize(
    "text",
    [
        "can you restart it? or wait, maybe not, depends on what the log says",
        "use gpu 3, maybe not",
    ],
)
def test_an_order_taken_back_with_a_maybe_is_not_taken(text: str) -> None:
    assert taken(text) == {}


# ------------------------------------------------------------------------------ a value from before


def test_a_setting_given_its_earlier_value_takes_nothing() -> None:
    """A yes to the rest would have launched without the context length the operator asked for."""
    asked = ask_back(OperatorRules(), "mem frac 0.85 and the ctx length from like before", None, list(range(8)))
    assert asked is not None and asked.reask and asked.confirm is None
    assert "cannot place" in asked.rules.answers[-1]


def test_a_value_said_like_before_is_still_taken() -> None:
    """ "like before" beside a value said in full asks nothing of the operator's memory."""
    assert taken("use tp 4 like before") == {"layout": {"tp": 4, "dp": 1}}


# ------------------------------------------------------------------------------ what "it" and "that one" are


@pytest.mark.parametrize(
    ("text", "gpus"),
    [
        ("gpu 3 is fine. it's 5 that's throwing ECC errors, keep away from that one", [5]),
        ("I would never in a million years want it on gpu 2, keep it off that one", [2]),
        ("keep it off gpu 3", [3]),
    ],
)
def test_that_one_is_the_gpu_named_last(text: str, gpus: list[int]) -> None:
    """GPU 3, said to be fine, was kept out instead of 5; "keep it off that one" was a hold on relaunching."""
    assert taken(text) == {"avoid_gpus": gpus}


def test_a_number_not_placed_leaves_that_one_unplaced() -> None:
    assert "avoid_gpus" not in taken("gpu 3 is fine. the bad one is 5, keep away from it")


@pytest.mark.parametrize(
    ("text", "gpus"),
    [
        ("consider gpu 3 drained. xid 79 overnight, don't schedule anything on it", [3]),
        ("gpus 2 and 5 are cooked (xid 79), keep off em", [2, 5]),
    ],
)
def test_an_error_code_is_no_number_that_moves_it(text: str, gpus: list[int]) -> None:
    assert taken(text) == {"avoid_gpus": gpus}


def test_keep_it_off_alone_is_still_the_hold() -> None:
    assert rules_said("keep it off") == {"no_relaunch": True}


def test_a_port_said_to_be_a_service_is_kept_off() -> None:
    assert taken("8000 is nginx dont use it.. go 30010") == {"avoid_ports": [8000], "use_port": 30010}


# ------------------------------------------------------------------------------ replies


def test_go_with_a_port_is_no_step_count() -> None:
    """ "go 30010" was a continue for 30010 steps, the port dropped."""
    assert kind_of("go 30010") == "say"
    assert rules_said("go 30010") == {"use_port": 30010}
    assert parse_reply("continue 20", asking(), "op").steps == 20


@pytest.mark.parametrize("text", ["nah I don't mind, run it", "I don't mind, run it", "no, I don't mind, run it"])
def test_i_dont_mind_is_a_go_ahead(text: str) -> None:
    assert kind_of(text) == "approve"


@pytest.mark.parametrize("text", ["no I don't mind", "I don't mind either way"])
def test_a_no_that_means_yes_is_never_a_refusal(text: str) -> None:
    assert kind_of(text) not in ("deny", "approve")


# ------------------------------------------------------------------------------ classes


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("try it with --quantization fp8", {"use_flags": [["--quantization", "fp8"]]}),
        ("try with --attention-backend triton", {"use_flags": [["--attention-backend", "triton"]]}),
        (
            "Please shut it down and, importantly, don't start it again until I say so",
            {"stop_server": True, "no_relaunch": True},
        ),
    ],
)
def test_classes(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("mem fraction 0,88 and relaunch the bench after", {"use_flags": [["--mem-fraction-static", "0.88"]]}),
        ("On the GPUs 4-7 with tp 4 please, and after you relaunch the benchmark", {"use_gpus": [4, 5, 6, 7]}),
        ("tp 4, and you bench again after", {"layout": {"tp": 4, "dp": 1}}),
    ],
)
def test_relaunching_the_bench_measures_again(text: str, want: dict[str, Any]) -> None:
    """A French speaker's "relancer le benchmark": the benchmark run again, never the server relaunched."""
    got = taken(text)
    assert got.get("measure_again") is True and "relaunch" not in got
    assert all(got.get(k) == v for k, v in want.items())


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Pas de 8080 ni 8000, on garde ça pour le proxy", {"avoid_ports": [8000, 8080]}),
        ("use the port 30010 stp", {"use_port": 30010}),
        ("I prefer that you put --mem-fraction-static at 0,85", {"use_flags": [["--mem-fraction-static", "0.85"]]}),
    ],
)
def test_a_french_speakers_english(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want


def test_a_port_said_to_be_held_beside_an_order_is_kept_off_too() -> None:
    """Asked back with the order, where it was dropped: "30000 is taken" is the operator's must-not."""
    assert taken("use port 30010, the 30000 is already taken by the monitoring stack") == {
        "use_port": 30010,
        "avoid_ports": [30000],
    }


def test_a_port_said_to_be_held_then_used_anyway_is_used() -> None:
    assert taken("30000 is taken, use it anyway") == {"use_port": 30000}


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("ok it's good for me", "approve", False),
        ("go on with your plan, I am in meeting, no need to wait me", "continue", False),
        ("you're fine, proceed on your own. ping me only if it actually OOMs", "continue", False),
        ("shut the whole run down, we're done for today", "stop", False),
        ("ok I've seen enough, we're done here. wrap the whole run up", "stop", False),
        ("not bad at all! ship it", "approve", True),
    ],
)
def test_replies_said_with_their_remarks(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize("text", ["not bad at all", "ping me if it OOMs, use port 30001"])
def test_a_remark_alone_or_beside_an_order_is_no_answer(text: str) -> None:
    assert kind_of(text) == "say"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("mem fraction 0.8 - wait no, 0.82", {"use_flags": [["--mem-fraction-static", "0.82"]]}),
        (
            "max running reqs 128, scratch that, 256. we're nowhere near the kv limit",
            {"use_flags": [["--max-running-requests", "256"]]},
        ),
    ],
)
def test_a_value_put_right_after_no_or_scratch_that(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want


@pytest.mark.parametrize("text", ["use gpus 0-7 -- drop 7, it's ECC", "ports 30001, scratch 30002"])
def test_a_value_dropped_is_never_the_value_used(text: str) -> None:
    """ "drop 7" takes 7 out; put in place of "0-7" it would run on GPU 7 alone."""
    got = taken(text)
    assert got.get("use_gpus") != [7] and got.get("use_port") != 30002


@pytest.mark.parametrize(
    ("text", "flag"),
    [
        ("--max-model-len 32768 pls", ["--context-length", "32768"]),
        ("--enforce-eager for now", ["--disable-cuda-graph"]),
    ],
)
def test_a_vllm_flag_said_with_a_courtesy_is_asked_back_in_sglangs_terms(text: str, flag: list[str]) -> None:
    assert taken(text) == {"use_flags": [flag]}
