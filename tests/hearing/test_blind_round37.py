"""Round 37's blind sets (sre148 English as a Mandarin speaker writes it in chat, sre149 answers in shell and diff
fragments, sre150 a polite, understated British engineer, sre151 shift-handover notes, redteam37 words a keyword
reader would misread), fixed by class. The twelve first-sight misreads' classes are first. The cases are the
classes' own, not the sets' lines. 63 of its 78 checks fail on the code before the fix (c615b4e); the 15 others are
guards, named or marked so, that passed before too and keep what must not change."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, rules_said, taken

# ------------------------------------------------------------------------------ the first-sight misreads


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("i never asked for --enable-torch-compile, drop it", {"avoid_flags": ["--enable-torch-compile"]}),
        ("I didn't ask for NCCL_P2P_DISABLE", {"unset_env": ["NCCL_P2P_DISABLE"]}),
    ],
)
def test_what_was_never_asked_for_is_taken_out(text: str, want: dict[str, object]) -> None:
    """ "i never asked for --disable-cuda-graph, take it out" was asked back as a launch WITH the flag."""
    assert rules_said(text) == want


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("nope. end the whole session", "stop"),
        ("no, stop the run", "stop"),
        ("absolutely not, abort the whole thing", "stop"),
        ("no - stop for today", "stop"),
        ("no, stop", "deny"),  # guard: halt what was proposed, the run goes on
        ("no, stop it", "deny"),  # guard: "it" may be the server
    ],
)
def test_a_no_whose_words_end_the_whole_run_stops_it(text: str, kind: str) -> None:
    """ "no. none of those. end the whole run" was a deny, after which the run went on."""
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "on the staging node, port 30005",
        "for the prod cluster use tp 8",  # guard: not taken before either
        "use gpu 5 on the other box",  # guard
    ],
)
def test_an_instruction_for_another_host_takes_nothing(text: str) -> None:
    """ "on the staging box use gpu 3" was asked back as this run's launch on GPU 3."""
    assert rules_said(text) == {} and asked_back(text) is None


def test_guard_another_host_named_as_the_reason_keeps_the_instruction() -> None:
    assert asked_back("Set NCCL_P2P_DISABLE=1 and bring it back up. Same trick as on the other box.") == (
        "Set NCCL_P2P_DISABLE=1; relaunch"
    )


@pytest.mark.parametrize(
    "text",
    [
        "tp 8, tp 4 also ok",
        "use port 30005 - or was it 30006?",
        "gpus 0-3 or 4-7, I can't remember which",  # guard: not taken before either
        "tp 4, or would 2 be safer?",
        "ok tp 4. or maybe 2?",
        "port 30001, or 30002?",
    ],
)
def test_two_values_offered_and_none_chosen_take_nothing(text: str) -> None:
    """ "use tp 4, tp 8 also can", "port 30000 - or was it 30001 ...?" were asked back as the first value."""
    assert rules_said(text) == {} and asked_back(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "- --disable-radix-cache",  # a bullet of the flag, or the flag taken out?
        "- --trust-remote-code  # not for this model",
        "+ --enable-torch-compile\n- --enable-torch-compile",  # put in and taken out
        "--mem-fraction-static 0.8 --mem-fraction-static 0.9",  # one flag, two values, pasted in a row
        "--tp 2 --port 30001 --tp 4",
    ],
)
def test_pasted_flags_that_say_two_things_take_nothing(text: str) -> None:
    """ "- --enable-torch-compile" was read as the flag put in, "--tp 4 --tp 8" as TP 8."""
    assert rules_said(text) == {} and asked_back(text) is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("- --tp 8\n+ --tp 2", {"use_flags": [["--tp-size", "2"]]}),  # pasted flags stay flags
        ("enable dp attention, tp 8 dp 8", {"use_flags": [["--enable-dp-attention"]], "layout": {"tp": 8, "dp": 8}}),
        ("--tp 4 --dp 2", {"use_flags": [["--tp-size", "4"], ["--dp-size", "2"]]}),
    ],
)
def test_guard_pasted_flags_said_once_still_read(text: str, want: dict[str, object]) -> None:
    assert rules_said(text) == want


@pytest.mark.parametrize(
    "text",
    [
        "use gpus 4-7, but stay off 6 if possible",  # a must-not, unread, of a GPU the reading uses
        "relaunch with tp 2 and also keep tp 4 around",  # a second TP, unread, added beside the reading's
    ],
)
def test_a_reading_that_unread_words_contradict_is_asked_again_with_nothing_taken(text: str) -> None:
    """ "use gpus 0 to 3, but do keep off 2 if you can" was asked back as GPUs 0-3; "set tp to 4 and also keep
    tp8 like yesterday" as TP 4."""
    assert taken(text) == {}


# ------------------------------------------------------------------------------ words of this round


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("the port change to 30002 pls", {"use_port": 30002}),
        ("context length set 65536", {"use_flags": [["--context-length", "65536"]]}),
        ("model path use /models/qwen-72b", {"use_model": "/models/qwen-72b"}),
        ("pls help to open the server with tp 2", {"layout": {"tp": 2, "dp": 1}}),
        ("close the server la", {"stop_server": True, "no_relaunch": True}),
        ("benchmark run again", {"measure_again": True}),
        ("no 8000 no 8080", {"avoid_ports": [8000, 8080]}),
        ("s/0.8/0.9/  # mem-fraction-static", {"use_flags": [["--mem-fraction-static", "0.9"]]}),
        ("chunked prefill 8192 if you would", {"use_flags": [["--chunked-prefill-size", "8192"]]}),
        ("if it's all the same to you, port 30002", {"use_port": 30002}),
        ("any gpu other than 5 is fine", {"avoid_gpus": [5]}),
        ("before i sign anything rerun the bench", {"measure_again": True}),
        ("next launch --kv-cache-dtype fp8_e5m2", {"use_flags": [["--kv-cache-dtype", "fp8_e5m2"]]}),
        ("I'd leave out --disable-cuda-graph for now", {"avoid_flags": ["--disable-cuda-graph"]}),
        ("stay off gpu 6 until they replace the card", {"avoid_gpus": [6]}),
        ("attention backend triton not fa3", {"use_flags": [["--attention-backend", "triton"]]}),
    ],
)
def test_instructions_in_words_of_this_round(text: str, want: dict[str, object]) -> None:
    assert rules_said(text) == want and asked_back(text) is None


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("port 30002 other team using", "avoid port 30002"),  # a state: never "serve on port 30002"
        ("gpu 6 got problem, no need to use it", "don't use gpu 6"),
        ("NCCL_IB_DISABLE no need already, remove it", "remove NCCL_IB_DISABLE"),
        ("# gpu5 threw xid 79. skip it", "don't use gpu 5"),  # guard: read so, once the reply is words
        ("might be worth trying tp 8", "tp 8"),
        ("tp 2 dp 4 might be rather better, give that a go", "tp 2 dp 4"),
        ("perhaps triton for the attention backend rather than fa3?", "use --attention-backend triton"),
        ("set --mem-fraction-static 0.8. if it still OOMs ping Bob", "set --mem-fraction-static 0.8"),
        ("Switching model now: use Qwen/Qwen2.5-7B-Instruct", "serve the hugging face model Qwen/Qwen2.5-7B-Instruct"),
        ("Model swap for the soak: Qwen/Qwen2.5-7B-Instruct", "serve the hugging face model Qwen/Qwen2.5-7B-Instruct"),
        ("7B not 72B: Qwen/Qwen2.5-7B-Instruct", "serve the hugging face model Qwen/Qwen2.5-7B-Instruct"),
    ],
)
def test_readings_asked_back_in_words_of_this_round(text: str, reading: str) -> None:
    assert asked_back(text) == reading


def test_a_hub_id_pasted_as_the_model_path_is_asked_back_with_the_flags_beside_it() -> None:
    said = asked_back("--model-path meta-llama/Llama-3.1-8B-Instruct --tp 2")
    assert said is not None and "meta-llama/Llama-3.1-8B-Instruct" in said and "--tp-size 2" in said


def test_guard_a_condition_with_a_setting_after_it_still_takes_nothing() -> None:
    assert rules_said("tp 4. if it OOMs, tp 2") == {} and asked_back("tp 4. if it OOMs, tp 2") is None


def test_a_comment_before_an_answer_names_what_it_is_about() -> None:
    """ "# gpu3 threw xid 79 again. skip it" denied the proposal: "it" is the GPU."""
    assert kind_of("# gpu5 threw xid 79. skip it") == "say"


@pytest.mark.parametrize(
    ("text", "sign_off", "kind"),
    [
        ("can", False, "approve"),
        ("ok can", False, "approve"),
        ("cannot", False, "deny"),
        ("2 lah", False, "pick 2"),
        (":q", False, "stop"),
        ("crack on without me", False, "continue"),
        ("you continue yourself", False, "continue"),
        ("no need ask me every time", False, "continue"),
        ("perhaps not", False, "deny"),
        ("can't see why not", False, "approve"),
        ("that'll do nicely", True, "approve"),
        ("not quite, keep going", True, "deny"),  # the met goal not signed, more work wanted
        ("I'd rather we didn't call it done", True, "deny"),
        ("end the run, dont sign it, ill look at it tomorrow", True, "stop"),
        ("great, signed. nice work tonight", True, "approve"),
        ("approved, sign it tonight", True, "say"),  # guard: a sign-off put off till tonight is no sign-off
        ("whole run stop", False, "stop"),  # guard: read so before
        ("pull the plug on the whole session", False, "stop"),
        ("can you restart it", False, "say"),  # guard: a request, no yes
        ("keep going", False, "continue"),  # guard
    ],
)
def test_answers_in_words_of_this_round(text: str, sign_off: bool, kind: str) -> None:
    assert kind_of(text, sign_off=sign_off) == kind
