"""#27, sre3/sre4 classes of instructions: a bare GPU count asked back, never taken; bare id sets and
ranges; "n" for "and"; "no dp"; pasted flag and env runs; slips of the grammar's words said back; a
port kept free or said to be held; a reason after "unset X"; a bracketed remark. New sentences,
none from the phrasing sets."""

from __future__ import annotations

import pytest

from agent.hearing.heed import ask_back
from agent.hearing.instructions import hear
from agent.state import OperatorRules

HOST = list(range(8))


@pytest.mark.parametrize("text", ["just three gpus", "serve it on 4 gpus", "use 2 gpus"])
def test_a_bare_gpu_count_is_asked_back_never_taken(text: str) -> None:
    rules, _, _ = hear(OperatorRules(), text)
    assert rules.layout is None and rules.use_gpus is None
    asked = ask_back(OperatorRules(), text, None, HOST)
    assert asked is not None and asked.confirm is not None and asked.confirm.startswith("tp ")
    assert "count" in (asked.readback or "")


def test_a_count_beside_an_instruction_asks_back_both() -> None:
    rules, _, _ = hear(OperatorRules(), "port 30005, run on 2 gpus")
    assert rules.layout is None
    asked = ask_back(OperatorRules(), "port 30005, run on 2 gpus", None, HOST)
    assert asked is not None and asked.confirm == "port 30005; tp 2"


@pytest.mark.parametrize(("text", "tp"), [("tp2", 2), ("tp 4 on 0-3", 4), ("use 4 gpus with tp", 4)])
def test_a_layout_said_with_its_word_is_taken(text: str, tp: int) -> None:
    rules, _, _ = hear(OperatorRules(), text)
    assert rules.layout is not None and rules.layout["tp"] == tp
    assert ask_back(OperatorRules(), text, None, HOST) is None
