"""Round 39's blind sets (sre156 a phone's autocorrect, sre157 Kubernetes and Slurm words for one server, sre158
questions, conditions and orders in one message, sre159 a very formal senior, redteam39 numbers that are not what
they look like), fixed by class. The four first-sight misreads' classes are first. The cases are the classes' own,
not the sets' lines. 22 of its 27 checks fail on the code before the fix (e37fbb5); the 5 others are guards, named
or marked so, that passed before too."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, rules_said, taken

# ------------------------------------------------------------------------------ the first-sight misreads


def test_a_starred_setting_puts_right_its_value_and_keeps_the_rest() -> None:
    """ "Run it with dp 2 top 8\\n*tp 4" was asked back as TP4 x DP1: the DP the message gave was lost."""
    assert rules_said("tp 2 dp 4 port 30001\n*port 30002") == {"use_port": 30002, "layout": {"tp": 2, "dp": 4}}
    assert rules_said("run it with dp 2 top 8\n*tp 2") == {"layout": {"tp": 2, "dp": 2}}


def test_guard_a_starred_setting_said_twice_before_takes_nothing() -> None:
    assert rules_said("tp 2 tp 4\n*tp 8") == {} and asked_back("tp 2 tp 4\n*tp 8") is None


def test_top_and_a_number_is_a_phones_tp_never_the_top_gpus() -> None:
    """ "Pert 30010 and top 2" was asked back as a launch on GPUs 0 and 1."""
    assert taken("Pert 30005 and top 4") == {"use_port": 30005, "layout": {"tp": 4, "dp": 1}}
    assert asked_back("use the top 4 gpus") == "use GPUs 0,1,2,3"  # guard: with the word for GPUs


def test_a_removal_never_carries_onto_a_flag_given_a_value() -> None:
    """ "drop --disable-cuda-graph, why was that even there? and --cuda-graph-max-bs 128" dropped both flags."""
    said = "drop --enable-torch-compile, why was it there? and --max-running-requests 64"
    assert taken(said) == {"avoid_flags": ["--enable-torch-compile"], "use_flags": [["--max-running-requests", "64"]]}


@pytest.mark.parametrize(
    "text",
    [
        "Please use GPU 5 only, and kindly ensure that the tensor-parallel size is 2.",  # a TP asked for, unread
        # guards: GPUs used, unread, that the reading keeps out; a first version of this round's autocorrect
        # ("gout 2" is GPU 2) asked the first back as "avoid GPU 2"
        "Use gulps 0-3 and avoid gout 2",
        "xyz use 0-3, avoid gpu 2",
        "we should be serving on port 8081 honestly, and avoid port 30000",  # a port to serve on, unread
    ],
)
def test_a_reading_that_unread_words_add_to_or_contradict_takes_nothing(text: str) -> None:
    """ "Please use GPU 2 only, and kindly ensure that the tensor-parallel size is 4." was asked back as GPU 2."""
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("don't pass --enable-dp-attention, it breaks with tp 4", "don't use --enable-dp-attention"),
        ("Sam said 'use gpu 0' but ignore him, 0 is busy with his finetune. stay off it", "don't use GPUs 0"),
    ],
)
def test_guard_a_tp_or_gpu_in_a_reason_or_anothers_words_still_asks_back(text: str, reading: str) -> None:
    """First versions lost these (sre90, redteam31): a TP named in a reason, GPU 0 in another's words."""
    assert asked_back(text) == reading


# ------------------------------------------------------------------------------ words of this round


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("meme fraction 0.8", {"use_flags": [["--mem-fraction-static", "0.8"]]}),
        ("flash inter for attention backend", {"use_flags": [["--attention-backend", "flashinfer"]]}),
        ("Only use gulps 4-7", {"use_gpus": [4, 5, 6, 7]}),
        ("It would be preferable to run on GPUs 0-3 with tp 4",
         {"use_gpus": [0, 1, 2, 3], "layout": {"tp": 4, "dp": 1}}),
        ("Please refrain from both --enable-torch-compile and --disable-cuda-graph",
         {"avoid_flags": ["--disable-cuda-graph", "--enable-torch-compile"]}),
        ("kubectl delete pod", {"stop_server": True, "no_relaunch": True}),
        ("scancel the server but don't resubmit", {"stop_server": True, "no_relaunch": True}),
        ("scale to 2 replicas, tp 2 each", {"layout": {"tp": 2, "dp": 2}}),
        ("I would suggest serving on port 8081", {"use_port": 8081}),
    ],
)  # fmt: skip
def test_instructions_in_words_of_this_round(text: str, want: dict[str, object]) -> None:
    assert rules_said(text) == want and asked_back(text) is None


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("whats on gpu 6? dont touch it either way", "dont touch gpu 6"),
        ("why is NCCL_IB_DISABLE set?? unset it", "unset NCCL_IB_DISABLE"),
        ("chunked prefill 4096 (if you have no objection)", "use --chunked-prefill-size 4096"),
    ],
)
def test_readings_asked_back_in_words_of_this_round(text: str, reading: str) -> None:
    assert asked_back(text) == reading


@pytest.mark.parametrize(
    ("text", "sign_off", "kind"),
    [
        ("Please bring the whole session to a close now", False, "stop"),
        ("I would rather you did not proceed with that", False, "deny"),
        ("I am afraid I cannot sign this off as it stands; p99 is too high", True, "deny"),
        ("I regret that I must decline to sign this off", True, "deny"),
        ("end the run here, ill review tmrw", True, "stop"),  # guard: read so before
    ],
)
def test_answers_in_words_of_this_round(text: str, sign_off: bool, kind: str) -> None:
    assert kind_of(text, sign_off=sign_off) == kind
