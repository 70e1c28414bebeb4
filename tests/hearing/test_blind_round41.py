"""Round 41's blind sets (sre164 English with Japanese habits, sre165 English with Russian habits, sre166 a lead who
delegates with limits and conditions, sre167 answers written under quoted lines, redteam41 the scope of rules),
fixed by class. The cases are the classes' own, not the sets' lines. Checks marked guard passed before the fix
(ff95167) too; every other one fails there."""

from __future__ import annotations

import pytest
from hearing_testkit import harness_question, kind_of, rules_said, taken

from agent.hearing.replies import parse_reply
from agent.state import Question


def _reported(trigger: str = "low_confidence") -> Question:
    """The sets' question, whose report says what it proposes (as a reply may quote it); a sign-off at `trigger`."""
    if trigger == "low_confidence":
        return harness_question(None)
    return harness_question("sign_off").model_copy(update={"trigger": trigger})


def _answer(text: str, trigger: str = "low_confidence") -> str:
    reply = parse_reply(text, _reported(trigger), "op")
    return f"pick {reply.pick}" if reply.kind == "pick" else reply.kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("> ... --enable-torch-compile\nno, drop that", {"avoid_flags": ["--enable-torch-compile"]}),
        ("> ...export NCCL_P2P_DISABLE=1\nunset that", {"unset_env": ["NCCL_P2P_DISABLE"]}),
        (
            "> Shall I keep --chunked-prefill-size at 8192?\ndrop to 4096",
            {"use_flags": [["--chunked-prefill-size", "4096"]]},
        ),
        ("> Shall I set --max-running-requests 256?\nno, 96", {"use_flags": [["--max-running-requests", "96"]]}),
        ("> I propose to try --schedule-policy fcfs.\nlpm", {"use_flags": [["--schedule-policy", "lpm"]]}),
        (
            "> relaunch with --tp-size 8\n> --mem-fraction-static 0.92\n0.8\n> --enable-torch-compile\nlose it",
            {"use_flags": [["--mem-fraction-static", "0.8"]], "avoid_flags": ["--enable-torch-compile"]},
        ),
    ],
)
def test_words_under_a_quoted_setting_act_on_that_setting(text: str, reading: dict[str, object]) -> None:
    """ "> ... --enable-torch-compile\\nno, drop that" was words about nothing; the quote names the setting."""
    assert taken(text) == reading


@pytest.mark.parametrize(
    "text",
    [
        "> relaunch with --tp-size 8 --mem-fraction-static 0.92\ndrop that",  # two settings: which?
        "> try --attention-backend triton?\nnah, not that",  # a refusal names no value
        "> bob: use --mem-fraction-static 0.95\nno way",
        "> ... --enable-torch-compile\nyes, take that",  # taken up, never out
    ],
)
def test_guard_words_under_a_quote_naming_no_one_setting_or_value_take_nothing(text: str) -> None:
    assert taken(text) == {}


def test_a_quoted_step_is_what_this_one_picks() -> None:
    assert _answer("> 2) list the GPUs (nvidia-smi -L)\nthis one") == "pick 2"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("> I propose to run `nvidia-smi topo -m` to read the GPU topology.\nyep go", "approve"),
        ("> Other steps I could take: 1) read the topology (nvidia-smi topo -m), 2) list the GPUs\n3", "pick 3"),
    ],
)
def test_a_quote_of_the_report_is_the_question_answered(text: str, kind: str) -> None:
    assert _answer(text) == kind


def test_a_quoted_sign_off_question_is_answered_at_a_met_goal_only() -> None:
    text = "> The goal is met: 2450 tok/s at p99 TTFT under 500ms. Sign off the run?\nsigned off"
    assert _answer(text, "goal_met") == "approve"
    assert _answer(text, "gave_up") != "approve"  # guard: a run given up is never signed off by a quote


def test_guard_a_quote_of_another_proposal_approves_nothing() -> None:
    assert _answer("> I propose to read the log (tail -n 50 sglang.log).\nsure") != "approve"


@pytest.mark.parametrize(
    "text",
    [
        "please use gpu 3... sorry, gpu 3 is difficult. please wait, I check with the other team",
        "tp 4 on gpus 4-7, I will discuss with my manager",
        "use gpu 0-3... no, 4-7. or how you think better",
        "tp 4 on gpus 0-3, or your call",
    ],
)
def test_words_left_undecided_take_nothing(text: str) -> None:
    assert taken(text) == {}


def test_a_yes_beside_words_left_undecided_approves_nothing() -> None:
    assert kind_of("yes, thank you for your report. I will discuss with my manager", sign_off=True) != "approve"


@pytest.mark.parametrize("text", ["max 2 more launches then stop and tell me", "3 more tries, then stop"])
def test_a_budget_then_a_stop_is_no_stop_now(text: str) -> None:
    assert kind_of(text) != "stop"


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("please use only gpu ０,１,２,３", {"use_gpus": [0, 1, 2, 3]}),  # guard: a full-width digit was a digit
        ("ｇｐｕ ３ only", {"use_gpus": [3]}),  # had picked step 3
        ("ｔｐ４ please", {"layout": {"tp": 4, "dp": 1}}),
    ],
)
def test_full_width_forms_are_read_as_their_ascii(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


def test_a_layout_in_full_width_is_never_dropped() -> None:
    """ "use gpu ０,１ and ｔｐ４" was taken as GPUs 0-1 with the TP lost: TP4 on 2 GPUs is refused whole."""
    assert rules_said("please use gpu ０,１ and ｔｐ４") == {"use_gpus": [0, 1], "layout": {"tp": 4, "dp": 1}}


@pytest.mark.parametrize(("text", "kind"), [("not that one - do #3", "pick 3"), ("no.2 plz", "pick 2")])
def test_a_step_picked_in_place_of_the_proposal(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    "text", ["mem-fraction-static 0.85 too high i think, plz lower to 0.8", "mem fraction 0.9 too much"]
)
def test_a_value_judged_too_high_is_never_the_one_taken(text: str) -> None:
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        # Korean habits: the object, then the verb
        ("gpu 0,1,2,3 only use plz", {"use_gpus": [0, 1, 2, 3]}),
        ("30010port serve please", {"use_port": 30010}),
        ("server stop first please. and not start again until i say", {"stop_server": True, "no_relaunch": True}),
        ("gpu 6,7 other team use now. that two not touch please", {"avoid_gpus": [6, 7]}),
        ("SGLANG_TORCH_PROFILER_DIR /tmp/prof setting plz", {"set_env": {"SGLANG_TORCH_PROFILER_DIR": "/tmp/prof"}}),
        # Russian habits
        ("is necessary port 30001", {"use_port": 30001}),
        ("launch without radix cache pls", {"use_flags": [["--disable-radix-cache"]]}),
        ("backend triton instead flashinfer", {"use_flags": [["--attention-backend", "triton"]]}),
        ("make mem fraction 0.85", {"use_flags": [["--mem-fraction-static", "0.85"]]}),
        # Japanese habits
        ("it may be a little difficult to use gpu 3", {"avoid_gpus": [3]}),
        # ranges with what they leave out
        ("avoid 0-3 except 2", {"avoid_gpus": [0, 1, 3]}),
        ("neither 30000 nor 30001", {"avoid_ports": [30000, 30001]}),
        ("ports: anything but 30000-30002", {"avoid_ports": [30000, 30001, 30002]}),
    ],
)
def test_second_language_and_scope_forms(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "kind"),
    [("net, not need this", "deny"), ("ne nado", "deny"), ("1st pls", "pick 1"), ("variant 2", "pick 2")],
)
def test_russian_answers(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_guard_a_range_leaving_out_an_id_it_does_not_hold_takes_nothing() -> None:
    assert taken("avoid 0-3 except 5") == {}
