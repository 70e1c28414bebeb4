"""Round 36's blind sets (sre144 a busy Slack thread, sre145 English with French habits, sre146 a senior who speaks
in numbers, sre147 an operator mid-incident, redteam36 words a keyword reader would misread), fixed by class. The
six first-sight misreads' classes are first. 26 of its 39 checks fail on the code before the fix (b0d2ade); the
13 others are guards, named so (the last four keep older sets' messages that over-wide first versions lost).
The cases are the classes' own, not the sets' lines."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, rules_said

# ------------------------------------------------------------------------------ the first-sight misreads


@pytest.mark.parametrize(
    ("text", "sign_off", "kind"),
    [
        ("+1", False, "say"),
        ("+1", True, "approve"),  # guard: at a sign-off the vote signs, as before
        ("+1, run it", False, "approve"),  # guard: the vote with its words
    ],
)
def test_a_bare_vote_at_a_proposal_runs_nothing(text: str, sign_off: bool, kind: str) -> None:
    """ "+1" alone, in a thread, may vote for a teammate's line: it approved the proposed command."""
    assert kind_of(text, sign_off=sign_off) == kind


@pytest.mark.parametrize(("text", "kind"), [("yes. wait no. hm", "say"), ("no, hmm", "say"), ("no", "deny")])
def test_a_no_that_trails_off_undecided_is_no_answer(text: str, kind: str) -> None:
    """ "yes. wait no. hm" denied the proposal: the writer has not decided. A bare "no" (the guard) still denies."""
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "must not use GPUs 6 or 7, except if you only need 4 cards, then it doesn't matter",
        "context 32768... or 65536 if it fits?",
        "use port 30001 or 30002?",  # guard: not taken before either
        "put the port at 30001... no 30000... finally I don't know, ask Julien",
    ],
)
def test_an_instruction_left_undecided_takes_nothing(text: str) -> None:
    """Each was asked back as one reading (GPUs 6-7 kept out, 32768, 30000) the writer had not settled on."""
    assert rules_said(text) == {} and asked_back(text) is None


def test_guard_i_dont_know_why_is_no_indecision() -> None:
    assert asked_back("use port 30001, I don't know why 30000 fails") == "use port 30001"


def test_bare_numbers_the_host_has_no_gpu_for_are_never_gpus() -> None:
    """ "(1, not 8 - 8 was the gpu count lol)" was asked back as "leave GPU 8 out" on a host of GPUs 0-7."""
    said = asked_back("CUDA_DEVICE_MAX_CONNECTIONS=1 on the next one (1, not 8 - 8 was the gpu count lol)")
    assert said == "CUDA_DEVICE_MAX_CONNECTIONS=1"


def test_guard_bare_numbers_the_host_has_are_still_asked_back_as_gpus() -> None:
    assert asked_back("dont touch 7") == "don't use GPUs 7"


# ------------------------------------------------------------------------------ words of this round


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("mem 85%", {"use_flags": [["--mem-fraction-static", "0.85"]]}),
        ("80 pct mem", {"use_flags": [["--mem-fraction-static", "0.8"]]}),
        ("4k chunked prefill", {"use_flags": [["--chunked-prefill-size", "4096"]]}),
        ("30000-30002 off limits", {"avoid_ports": [30000, 30001, 30002]}),
        ("tp4, dp x2", {"layout": {"tp": 4, "dp": 2}}),
        ("tp 4 dp 2 voilà", {"layout": {"tp": 4, "dp": 2}}),
        ("stop the server. NOW.", {"stop_server": True, "no_relaunch": True}),
    ],
)
def test_instructions_in_words_of_this_round(text: str, want: dict[str, object]) -> None:
    assert rules_said(text) == want and asked_back(text) is None


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("NEVER EVER use 30000 or 30001 again those are the prod LB ports!!!", "avoid port 30000; avoid port 30001"),
        ("the GPU number 3 has ECC errors since this morning, don't use it", "don't use GPU 3"),
        ("model path /mnt/models/llama-3.1-8b pls, hf pulls are throttled", "use the model /mnt/models/llama-3.1-8b"),
        ("Next launch please set NCCL_DEBUG=INFO, I want the logs", "please set NCCL_DEBUG=INFO"),
    ],
)
def test_readings_asked_back_with_their_reason_unread(text: str, reading: str) -> None:
    assert asked_back(text) == reading


@pytest.mark.parametrize(
    ("text", "sign_off", "kind"),
    [
        ("sure, no problem", False, "approve"),
        ("dont see why not, run it", False, "approve"),
        ("signed off. no complaints", True, "approve"),
        ("d'accord, I sign", True, "approve"),
        ("ok pour moi", False, "approve"),
        ("whatever you think, carry on", False, "continue"),
        ("auto from here", False, "continue"),
        ("carry on w/o me for a bit, in a meeting", False, "continue"),
        ("just keep going, im on the bridge call", False, "continue"),  # guard: read before
        ("no, problem is the log", False, "deny"),  # guard: a no, then its reason
        ("no problem with tp 4", False, "say"),  # guard: a setting beside it is read
    ],
)
def test_answers_in_words_of_this_round(text: str, sign_off: bool, kind: str) -> None:
    assert kind_of(text, sign_off=sign_off) == kind


# ------------------------------------------------------------------------------ guards: older sets a first version lost


def test_guard_no_issues_said_of_the_past_approves_nothing() -> None:
    """A first "no issues" answer approved "on the old box we ran fp8 kv cache with no issues" (heldout3)."""
    assert kind_of("on the old box we ran fp8 kv cache with no issues") == "say"


def test_guard_next_launch_before_a_statement_is_no_lead_to_drop() -> None:
    said = "next launch goes on 8001 but hold it - dont launch until I give the go, their LB change is still pending"
    assert asked_back(said) == "use port 8001; don't relaunch"


def test_guard_a_model_path_put_right_is_the_later_path() -> None:
    said = "model path /models/GLM-5-NVFP4\nsorry, /mnt/models/GLM-5-NVFP4. /models is the old nfs mount"
    assert asked_back(said) == "/mnt/models/GLM-5-NVFP4"


def test_guard_off_limits_never_reaches_across_a_line() -> None:
    """A second version of "X off limits" took "port 31000\\noh and gpu 0 is off limits" as port 31000 kept out and
    GPU 0 to use: the opposite of both (sre92). It never left this machine; the subject is ids alone now."""
    assert rules_said("port 31000\noh and gpu 0 is off limits") == {"use_port": 31000, "avoid_gpus": [0]}
