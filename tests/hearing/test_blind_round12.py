"""Classes found on the blind sets sre88-sre92 (#27, round twenty-three: a German SRE, a 3am phone typist,
an Arabic/Arabizi SRE, an ML researcher, a lead who batches instructions) and by a red-team pass over
rounds twenty-one and twenty-two, each checked on sentences written here. Most were misreads: a message
that takes itself back taken, a "don't" of a removal read as the removal, a complaint about a setting read
as the setting, a rejected launch line applied, a conditional or relayed answer taken as a yes."""

from __future__ import annotations

import pytest
from hearing_testkit import kind_of, rules_said

from agent.hearing.heed import ask_back
from agent.state import OperatorRules

EIGHT = list(range(8))
LAUNCH = "CUDA_VISIBLE_DEVICES=2,3 python -m sglang.launch_server --tp 2"


@pytest.mark.parametrize(
    "text",
    [
        "use gpu 5, don't",  # the message takes itself back
        "enable torch compile - nope",
        "port 30004, no",
        "don't unset NCCL_DEBUG",  # a "don't" of a removal: kept, or refused?
        "never drop --disable-radix-cache",
        "port 30006 it's busy",  # a complaint about a bare setting
        "mem fraction 0.95 it OOMs",
        f"never again: {LAUNCH}",  # a launch line beside words that may refuse it
        f"{LAUNCH} is broken",
        f"{LAUNCH}?",
        "port 30003 ma7goz",  # Arabizi: "taken"
        "usa la GPU 5 se è libera",  # "if" of another language
        "gpu 5 chhod ke baaki use karo",  # "all but" of another language
        "posso usare la GPU 5",  # a question without its mark
        "Budi bilang pakai GPU 5",  # someone else's words
        '{"mem_fraction_static": 0.7, "note": "not yet"}',  # a key it does not know
        '{"tp": -2}',
        "Under no circumstances, GPU 5 is to be used",
    ],
)
def test_words_that_turn_or_take_back_an_instruction_take_nothing(text: str) -> None:
    assert rules_said(text) == {}
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is None or not asked.confirm.startswith(("use", "--", "port", "tp", "CUDA")), asked.confirm


def test_a_launch_line_alone_is_still_read() -> None:
    assert rules_said(LAUNCH) == {"use_gpus": [2, 3], "use_flags": [["--tp-size", "2"]]}


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("approved pending the p99 numbers", "say", True),  # a reserved answer is asked again
        ("conditionally approved", "say", True),
        ("Priya said yes.", "say", False),  # someone else's answer
        ("my lead said stop", "say", False),
        ("oui, mais pas maintenant", "say", False),
        ("go on. actually no.", "say", False),
        ("👍👎", "say", False),
        ("pas d'accord", "deny", False),
        ("approve", "approve", False),  # plain answers stay answers
        ("Please keep going with whatever you had planned.", "continue", False),
    ],
)
def test_an_answer_with_a_reservation_is_asked_again(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("nutze nur GPU 4-7", {"use_gpus": [4, 5, 6, 7]}),
        ("GPU 1 und 2 nicht anfassen", {"avoid_gpus": [1, 2]}),
        ("starte mit tp 2 neu", {"layout": {"tp": 2, "dp": 1}}),
        ("ohne radix cache bitte", {"use_flags": [["--disable-radix-cache"]]}),
        ("nicht wieder starten bis ich es sage", {"no_relaunch": True}),
        ("set var tp=2", {"layout": {"tp": 2, "dp": 1}}),
        ("blocked_gpus = [1, 2]", {"avoid_gpus": [1, 2]}),
        ("disable_cuda_graph: true", {"use_flags": [["--disable-cuda-graph"]]}),
        ("destroy the server and don't re-create it until I say so", {"stop_server": True, "no_relaunch": True}),
        ("tp 4; dp 2", {"layout": {"tp": 4, "dp": 2}}),
        ("shard the model 2 ways", {"layout": {"tp": 2, "dp": 1}}),
        ("dont tuoch 5", {}),  # bare ids after a slip: asked back, never taken
        ("1) stay off gpu 1 2) also off 30002", {"avoid_gpus": [1], "avoid_ports": [30002]}),
    ],
)
def test_german_infrastructure_and_researcher_words(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


def test_a_must_not_never_carries_to_the_next_item_of_a_list() -> None:
    said = rules_said("two things:\n- stay off gpu 6\n- port 30012")
    assert said == {"avoid_gpus": [6], "use_port": 30012}
