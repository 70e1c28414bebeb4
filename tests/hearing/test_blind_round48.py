"""Round 48's blind sets (sre192 South African English, sre193 Scottish and Irish dialect, sre194 emoji and
chat reactions, sre195 picks that point at the report's own words, redteam48 sarcasm, irony, double
negatives and negation scope), fixed by class. The cases are the classes' own, not the sets' lines. Checks
marked guard passed before the fix (6e9489b) too; every other one fails there.

First sight on 6e9489b, as the helpers labelled them: sre192 84% heard / 3 misread, sre193 52% / 0, sre194
57% / 1, sre195 85% / 2, redteam48 68% / 4 (260 of 375, 10 misread)."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, rules_said, taken


@pytest.mark.parametrize(
    "text",
    [
        "move to port 30020 just now",  # "just now": later, to a South African; never placed
        "serve on 30004, and leave the port as it is",
        "use port 30006 but keep it on 30000",
        "gpu 6 ✅ again",
        "never use cuda graphs. unless they help, then always",
        "don't enable torch compile, but don't not enable it either",
    ],
)
def test_nothing_is_taken_from_a_later_time_a_contradiction_or_a_double_negative(text: str) -> None:
    """First-sight misreads: "Switch to port 30010 just now, after the demo" and "Restart it just now when
    the load drops" were taken now; "Run it on 30003. leave the port as it is" and "move it to port 30001 but
    keep it on 30000" took the new port; "gpu 3 ✅ again" used GPU 3 only; "... unless it helps, then always"
    and "don't disable cuda graphs, but don't not disable them either" kept the must-not."""
    assert taken(text) == {}


def test_never_ever_with_a_comma_is_still_never() -> None:
    """ "never, ever pass --enable-torch-compile again" passed the flag: the comma cut "never" off its verb."""
    assert taken("never, ever pass --disable-radix-cache again") == {"avoid_flags": ["--disable-radix-cache"]}


@pytest.mark.parametrize(
    "text",
    [
        "the thing you mentioned about the cache, do that",
        "ok. sure. I'm sure it will work.",
        "great idea, do it",
    ],
)
def test_sarcasm_or_the_reports_words_beside_a_yes_are_no_yes(text: str) -> None:
    """ "sure. totally. I'm sure that'll work." and "the thing you said about memory, do that" approved."""
    assert kind_of(text) == "say"


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("dinnae use port 30000", {"avoid_ports": [30000]}),
        ("keep aff gpu 4, it's banjaxed", {"avoid_gpus": [4]}),
        ("turn aff the radix cache", {"use_flags": [["--disable-radix-cache"]]}),
        ("nae cuda graphs", {"use_flags": [["--disable-cuda-graph"]]}),
        ("switch tae /models/Qwen2.5-7B-Instruct", {"use_model": "/models/Qwen2.5-7B-Instruct"}),
        ("give the benchmark another lash", {"measure_again": True}),
        ("cap the runnin requests at 64", {"use_flags": [["--max-running-requests", "64"]]}),
    ],
)
def test_scots(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("naw, dinnae run it", "deny"),
        ("aye right, like that'll help", "deny"),
        ("pack the whole run in", "stop"),
        ("go on so", "approve"),
        ("no yet, keep at it", "deny"),
        ("you decide", "continue"),
        ("🤷", "continue"),
        ("option c", "pick 3"),
        ("the second item you listed", "pick 2"),
    ],
)
def test_replies_of_the_round(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("context length 16384 📉", {"use_flags": [["--context-length", "16384"]]}),
        ("NCCL_DEBUG=WARN 🐛", {"set_env": {"NCCL_DEBUG": "WARN"}}),
        ("tp2 dp4 ✌️", {"layout": {"tp": 2, "dp": 4}}),
        ("🔁 on 30009", {"use_port": 30009}),
        ("💀 gpu 1 is fried", {"avoid_gpus": [1]}),
        ("port 30007 and 🚫 30000", {"use_port": 30007, "avoid_ports": [30000]}),
    ],
)
def test_emoji_that_decorate_or_say_a_word(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize("text", ["port 30007 💣", "🫠 gpu 2"])
def test_guard_a_sign_no_rule_places_keeps_its_clause_unread(text: str) -> None:
    assert taken(text) == {}


@pytest.mark.parametrize("text", ["restart it now when the load drops", "bounce it just now, after the demo"])
def test_a_restart_for_an_event_to_come_is_not_asked_back_as_a_restart(text: str) -> None:
    """ "Restart it just now when the load drops." was asked back as "restart it": a yes would restart now."""
    assert asked_back(text) is None
    assert rules_said(text) == {}
