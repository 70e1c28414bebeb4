"""Classes found on the blind sets sre73-sre77 (#27, round twenty: a Korean SRE, an Italian SRE, an SRE
who pastes threads, an SRE who changes their mind mid-message, an infrastructure-as-code engineer) and by
a red-team pass over round nineteen, each checked on sentences written here. Every one of them was a
misread: a value taken back taken anyway, a condition dropped, someone else's words taken as said."""

from __future__ import annotations

import pytest
from hearing_testkit import kind_of, rules_said

from agent.hearing.heed import ask_back
from agent.state import OperatorRules

EIGHT = list(range(8))


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("chunked prefill 2048, no, 1024", "use --chunked-prefill-size 1024"),  # the value said again takes the place
        ("serve on port 30031 — wait, 30032", "serve on port 30032"),
        ("attention backend fa3. no. triton", "use --attention-backend triton"),
        ("max running requests 96... make it 48", "use --max-running-requests 48"),
    ],
)
def test_a_value_taken_back_is_replaced_and_asked_back(text: str, reading: str) -> None:
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is not None and asked.confirm == reading, asked and asked.confirm


@pytest.mark.parametrize(
    "text",
    [
        "tp 2, actually no, tp 4... or 2? not sure",  # what stands is still open
        "port 30040, no, whichever is free",
        "NCCL_DEBUG=INFO -- hmm, or not",
        "gpus 0,1,2,3 -- drop 3, it's flaky",  # what the drop leaves is not said whole
        "relaunch it. scratch that",
        "port 3002 -- 30002* typo",
    ],
)
def test_a_correction_that_leaves_nothing_whole_takes_nothing(text: str) -> None:
    assert rules_said(text) == {}


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("hold off on relaunching, wait for my go", {"no_relaunch": True}),  # "wait for" takes nothing back
        (
            "no --enable-torch-compile and no --disable-radix-cache",
            {"avoid_flags": ["--disable-radix-cache", "--enable-torch-compile"]},
        ),
        ("~~tp 8~~ tp 2", {"layout": {"tp": 2, "dp": 1}}),
    ],
)
def test_words_that_only_look_like_a_correction(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("no -- actually no, keep going with your plan", "continue", False),
        ("not yet... eh fine, sign off", "approve", True),
        ("don't sign off -- actually just kill the whole run", "stop", True),
        ("nah. ok fine, sign it off", "approve", True),
        ("stop the run. scratch that. ok no, stop it", "say", False),  # turned twice: asked again
        ("no, gracias. ya la conozco", "deny", False),  # the Spanish "ya" is no yes
        ("no. not before the change window", "deny", False),
    ],
)
def test_a_reply_that_takes_itself_back_is_what_it_says_last(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    "text",
    [
        "use GPUs 2-3, if that helps",  # a condition after the instruction
        "serve on port 30033, provided nobody else is on it",
        "only if it OOMs, use --mem-fraction-static 0.7",
        "otherwise stop the server",
        "no GPU 5 errors since the reboot",  # a state reported, not a GPU kept out
        "not only GPUs 0-3, all of them",
        "don't use --mem-fraction-static 0.95",  # that number refused, not the flag
        "re-run the job",
        "roda no GPU 3",  # Portuguese "run on GPU 3", never "no GPU 3"
    ],
)
def test_these_take_nothing_and_ask_nothing_back(text: str) -> None:
    assert rules_said(text) == {}
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is None or not asked.confirm or "GPU 3" not in asked.confirm


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("serve on GPUs 4-5 only, if you'd be so kind", {"use_gpus": [4, 5]}),  # a courtesy, no condition
        ("never touch gpu 1, the db lives there and if it OOMs we page everyone", {"avoid_gpus": [1]}),
    ],
)
def test_an_if_that_governs_no_instruction_changes_nothing(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


def test_a_conditional_yes_is_no_sign_off() -> None:
    assert kind_of("yes, as long as the p99 holds", sign_off=True) != "approve"
    assert kind_of("Approved. I'd appreciate it if you could attach the log too.", sign_off=True) == "approve"


@pytest.mark.parametrize(
    ("text", "kind"),
    [("stop the log tail after 20 lines", "say"), ("go ahead—skip step 2", "say")],
)
def test_a_stop_or_a_yes_with_more_said_is_words_to_read(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("@dana says use port 30034", "use port 30034"),
        ("fwd from netops: NCCL_IB_DISABLE=1", "NCCL_IB_DISABLE=1"),
        ("Lee said: 'disable cuda graph'", "use --disable-cuda-graph"),
    ],
)
def test_someone_elses_words_are_asked_back_never_taken(text: str, reading: str) -> None:
    assert rules_said(text) == {}
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is not None and asked.confirm == reading


def test_what_the_operator_said_before_is_no_one_elses() -> None:
    assert rules_said("i said 4-5, launch on 4,5") == {"use_gpus": [4, 5]}


@pytest.mark.parametrize("text", ["> kim: don't touch gpu 2\nagree?", "> kim: looks good to me"])
def test_a_quoted_message_is_never_an_answer_nor_an_instruction(text: str) -> None:
    assert rules_said(text) == {}
    assert kind_of(text) == "say"
    assert ask_back(OperatorRules(), text, None, EIGHT) is None


def test_a_vote_on_its_own_line_is_no_number() -> None:
    asked = ask_back(OperatorRules(), "@dana says use port 30035\n+1, do that and restart", None, EIGHT)
    assert asked is not None and "use port 30035" in asked.confirm


def test_a_reply_in_an_unread_script_is_never_a_pick() -> None:
    assert kind_of("2,3번 GPU로 해주세요") == "say"  # Korean: "with GPUs 2,3 please"
