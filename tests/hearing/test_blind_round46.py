"""Round 46's blind sets (sre184 English with Polish habits, sre185 English with Dutch habits and word
order, sre186 a phone's autocorrect and swipe slips, sre187 a tired engineer changing their mind, redteam46
material quoted rather than ordered: logs, runbook lines, a colleague's config), fixed by class. The cases
are the classes' own, not the sets' lines. Checks marked guard passed before the fix (7a0a50b) too; every
other one fails there.

First sight on 7a0a50b, as the helpers labelled them: sre184 87% heard / 1 misread, sre185 69% / 3, sre186
80% / 1, sre187 73% / 2, redteam46 67% / 7 (282 of 375, 14 misread)."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, taken

from agent.hearing import bounds
from agent.hearing.instructions import hear
from agent.state import OperatorRules


@pytest.mark.parametrize(
    "text",
    ["port 30002 albo 30003, whatever", "tp 2 of tp 4, wat beter past"],
)
def test_an_or_of_another_language_leaves_the_choice_open(text: str) -> None:
    """ "port 30001 albo 30002" served on 30001; "tp 4 of tp 8" launched TP4: "albo" and "of" are "or"."""
    assert taken(text) == {}


@pytest.mark.parametrize(
    "text", ["over tien minuten switch to port 30010", "over een half uur use gpus 4-7", "over twintig minuten, tp 4"]
)
def test_a_dutch_later_time_takes_nothing(text: str) -> None:
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("restart met mem frac 0.75", {"use_flags": [["--mem-fraction-static", "0.75"]]}),
        ("zet NCCL_IB_DISABLE=1 en NCCL_DEBUG=WARN", {"set_env": {"NCCL_IB_DISABLE": "1", "NCCL_DEBUG": "WARN"}}),
        ("zet NCCL_P2P_DISABLE op 1", {"set_env": {"NCCL_P2P_DISABLE": "1"}}),
        ("mem frac op 0.8", {"use_flags": [["--mem-fraction-static", "0.8"]]}),
        ("NCCL_DEBUG mag weg", {"unset_env": ["NCCL_DEBUG"]}),
        ("torch compile gebruik je niet", {"avoid_flags": ["--enable-torch-compile"]}),
        ("gpu 2 en 3 blijf je vanaf", {"avoid_gpus": [2, 3]}),
        ("alleen gpu 0 t/m 3", {"use_gpus": [0, 1, 2, 3]}),
        ("radix cache uit", {"use_flags": [["--disable-radix-cache"]]}),
        ("meet het nog een keer", {"measure_again": True}),
        ("Stop de server.", {"stop_server": True, "no_relaunch": True}),
    ],
)
def test_dutch_instructions(text: str, reading: dict[str, object]) -> None:
    """ "restart met mem frac 0.8" relaunched without the fraction ("met" is "with")."""
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("jij beslist", "continue"),
        ("Kappen ermee.", "stop"),
        ("stop de hele run nu", "stop"),
        ("liever optie 3", "pick 3"),
    ],
)
def test_dutch_replies(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("GPU 1 nie touch ever", {"avoid_gpus": [1]}),
        ("nie --enable-torch-compile anymore", {"avoid_flags": ["--enable-torch-compile"]}),
    ],
)
def test_a_polish_not_before_english_words(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(("text", "kind"), [("nie teraz", "deny"), ("twoja decyzja", "continue")])
def test_polish_replies(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize("text", ["use port 300", "serve it on port 80"])
def test_a_privileged_port_is_refused_with_why(text: str) -> None:
    """ "use port 300" (a cut-off 30000) was put in force: the server cannot bind below 1024 without root."""
    rules, _, _ = hear(OperatorRules(), text)
    found = bounds.problems(OperatorRules(), rules, list(range(8)))
    assert found and "privileged" in found[0] and "1024" in found[0]


def test_guard_a_port_to_keep_off_may_be_privileged() -> None:
    rules, _, _ = hear(OperatorRules(), "never touch port 22")
    assert rules.avoid_ports == [22] and bounds.problems(OperatorRules(), rules, None) == []


def test_a_port_after_an_answer_and_its_but_is_the_port_to_use() -> None:
    """ "yes go ahead but on port 30003 not 30000" kept off 30000 and dropped 30003."""
    assert taken("yes go ahead but on port 30005 not 30000") == {"use_port": 30005, "avoid_ports": [30000]}


@pytest.mark.parametrize(
    ("text", "kind"),
    [("no. i mean yes", "approve"), ("lol no. i mean yes. i mean. hold on", "say"), ("yes. i mean no", "deny")],
)
def test_i_mean_turns_the_answer(text: str, kind: str) -> None:
    """ "lol no. i mean yes. i mean. hold on" was a deny."""
    assert kind_of(text) == kind


@pytest.mark.parametrize("text", ["you can use 3 again", "ok you can use 2 now", "use 1 again"])
def test_a_number_a_verb_takes_is_no_step_picked(text: str) -> None:
    """ "the 'ERR!' on gpu 3 cleared after the reboot. you can use 3 again" picked step 3."""
    assert not kind_of(text).startswith("pick")


@pytest.mark.parametrize(("text", "kind"), [("ok 3", "pick 3"), ("ok 2 pls", "pick 2"), ("3 please", "pick 3")])
def test_guard_a_step_after_a_yes_is_still_picked(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_a_reported_flag_then_the_writers_own_order() -> None:
    """ "the error message suggests --disable-cuda-graph. try something lighter first: cuda graph max bs 32"
    took both flags."""
    text = "the error message suggests --disable-cuda-graph. try something lighter first: cuda graph max bs 16"
    assert taken(text) == {"use_flags": [["--cuda-graph-max-bs", "16"]]}


@pytest.mark.parametrize(
    "text",
    [
        "colleague's launch: `--attention-backend triton --disable-cuda-graph`. "
        "take the attention backend bit, ignore the rest",
        "old runbook: `--tp 8 --mem-fraction-static 0.83 --port 8000`. "
        "most of it is dead, but keep the 0.83 mem fraction",
        "Ana's yaml:\n  chunked_prefill_size: 8192\n  max_running_requests: 64\n"
        "we don't need the second one. just take the chunked prefill",
    ],
)
def test_part_of_a_paste_takes_nothing(text: str) -> None:
    """A quoted command with words that take part of it was taken whole: the flags the operator left out too."""
    assert taken(text) == {}
    assert asked_back(text) is None


def test_guard_a_paste_taken_whole_is_read() -> None:
    assert taken("`--tp-size 4 --mem-fraction-static 0.8`") == {
        "use_flags": [["--tp-size", "4"], ["--mem-fraction-static", "0.8"]]
    }


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("the launch log shows 'tp_size=8, dp_size=1'. I want two replicas of tp 4", {"layout": {"tp": 4, "dp": 2}}),
        (
            "log: 'max_total_num_tokens=41230, context_len=131072'. context length 32768",
            {"use_flags": [["--context-length", "32768"]]},
        ),
        ("the error log says 'NCCL_P2P_DISABLE=1 --tp-size 8'. use port 30002", {"use_port": 30002}),
    ],
)
def test_a_quoted_log_line_is_never_read(text: str, reading: dict[str, object]) -> None:
    """ "the launch log shows 'tp_size=8, dp_size=1'. I want two replicas of tp 4" set --tp-size 8 beside TP4 x DP2."""
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("turn of cuda graphs", {"use_flags": [["--disable-cuda-graph"]]}),
        ("move it tp port 30007", {"use_port": 30007}),
        ("to 2 dp 4", {"layout": {"tp": 2, "dp": 4}}),
        ("no use gpus 4-7 insted", {"use_gpus": [4, 5, 6, 7]}),
    ],
)
def test_a_phones_slips_where_the_next_words_make_them_plain(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [("sign of", "approve", True), ("ok sign it of thx", "approve", True), ("go w numbr 3", "pick 3", False),
     ("secnd one", "pick 2", False), ("nooo", "deny", False)],
)  # fmt: skip
def test_a_phones_slips_in_replies(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


def test_no_then_what_to_use_instead_is_that_use() -> None:
    """ "no use gpus 0-3 instead" kept off GPUs 0-3 ("no use" read as "don't use"), the opposite."""
    assert taken("no use port 30004 instead") == {"use_port": 30004}


def test_guard_a_sign_of_something_is_no_sign_off() -> None:
    assert kind_of("a sign of trouble: gpu 3 ecc", sign_off=True) == "say"
