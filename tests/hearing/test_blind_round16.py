"""Classes of round 26 (sentences of our own, not the sets'): what an operator writes under a quote of
someone else's words, and the forms the round-26 blind sets brought."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, asking, kind_of, rules_said

from agent.hearing.heed import ask_back
from agent.hearing.replies import parse_reply
from agent.state import OperatorRules


def _own(text: str) -> str | None:
    reply = parse_reply(text, asking(), "op")
    return reply.text if reply.kind == "say" else None


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("> ops: need the gpus back\nok, stop the server for now", {"stop_server": True, "no_relaunch": True}),
        ("> mike: 30000 is held\nyeah so dont use 30000, take 30010", {"use_port": 30010, "avoid_ports": [30000]}),
        ("> infra: use gpus 4-7\nconfirmed w/ them, launch on 4-7", {"use_gpus": [4, 5, 6, 7]}),
    ],
)  # fmt: skip
def test_the_operators_own_words_under_a_quote_are_theirs(text: str, rules: dict[str, object]) -> None:
    said = _own(text)
    assert said is not None and ">" not in said  # the quote is never read
    assert rules_said(said) == rules


def test_bare_ids_under_a_quote_are_asked_back() -> None:
    said = _own("> alice: dont touch gpu 3\nagreed, keep off 3")
    assert said is not None and asked_back(said) == "don't use GPUs 3"


@pytest.mark.parametrize(
    "text",
    [
        "> alice: NCCL_IB_DISABLE=1\nyep",  # a yes to the quote, or to my question? Neither is taken
        "> bob: stop the server\nyes",
        "> bob: use gpu 3\nno, 4",  # no step 4, and "4" alone is no reading of the quote
        "> alice: looks good to me",  # someone else's answer, nothing of the operator's
        "> bob: use gpu 3",
    ],
)
def test_an_answer_under_a_quote_takes_nothing(text: str) -> None:
    assert kind_of(text) == "say"
    said = _own(text)
    assert said is not None and rules_said(said) == {}
    assert asked_back(said) is None


def test_words_between_quotes_keep_it_all_unread() -> None:
    """Interleaved quote and words: whose words are whose is not for me to guess."""
    said = _own("> bob: use gpu 3\nuse gpu 5\n> alice: port 30001")
    assert said is not None and rules_said(said) == {}


@pytest.mark.parametrize(
    "text",
    [
        "use gpu 3, also gpu 4",  # was GPU 4 alone: the 3 dropped
        "use port 30001. use port 30002",
        "tp 2. tp 4",
        "mem frac 0.8 and mem frac 0.85",
        "use gpu 3. wait, also gpu 4",
    ],
)
def test_one_setting_given_two_values_takes_neither(text: str) -> None:
    """The later value silently replaced the earlier: a number the operator gave, dropped."""
    assert rules_said(text) == {}
    assert asked_back(text) is None


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("use gpus 0-3, tp 4, port 30001", {"use_port": 30001, "use_gpus": [0, 1, 2, 3], "layout": {"tp": 4, "dp": 1}}),
        (
            "tp4 dp2 on 0-7. tp 4 because the model needs 4 cards",
            {"use_gpus": list(range(8)), "layout": {"tp": 4, "dp": 2}},
        ),
    ],
)
def test_one_value_said_twice_is_one_value(text: str, rules: dict[str, object]) -> None:
    assert rules_said(text) == rules


def test_a_second_thought_that_adds_is_no_correction() -> None:
    text = "add --quantization fp8. wait, also --trust-remote-code"
    assert rules_said(text) == {"use_flags": [["--quantization", "fp8"], ["--trust-remote-code"]]}
    assert asked_back("tp 8, wait, tp 4") == "tp 4"  # a correction still is one: asked back as corrected


@pytest.mark.parametrize(
    "text",
    [
        "unset it, restart, and rerun the benchmark",
        "restart with that and benchmark again",
        "Restart it that way and benchmark.",
        # "move it off 7, relaunch and bench again" is read since (test_requests_and_reasons.py): GPU 7 kept off
    ],
)
def test_a_relaunch_with_a_change_i_did_not_read_is_not_asked_alone(text: str) -> None:
    """A yes to "relaunch; measure again" would launch without the change the operator meant."""
    effect = ask_back(OperatorRules(), text, None, list(range(8)))
    assert effect is not None and effect.confirm is None and effect.reask
    assert "not what to relaunch with" in effect.rules.answers[-1]


def test_a_plain_relaunch_is_still_heard() -> None:
    assert rules_said("restart and rerun the benchmark")["measure_again"] is True


@pytest.mark.parametrize("text", ["use all eight GPUs", "all 8 gpus"])
def test_all_of_a_count_is_every_gpu_not_a_layout(text: str) -> None:
    assert asked_back(text) == "use GPUs 0-7"  # was "tp 8"
    assert asked_back("only two gpus") == "tp 2"  # a count alone still asks the layout back
