"""Round 43's blind sets (sre172 English with Italian habits, sre173 a verbose senior engineer, sre174 ChatOps
bot commands, sre175 relative changes and numbers, redteam43 words that look like instructions and are not),
fixed by class. The cases are the classes' own, not the sets' lines. Checks marked guard passed before the fix
(866c772) too; every other one fails there.

The helpers' prompt is docs/blind-set-prompt.md: the prompt of rounds 26-42 was lost with an earlier session's
machine and was written again from the sets' schema for this round. Its first version listed "your call" as words
the agent cannot act on, where older sets label it continue ("ur call"); the three lines written to it ("fai tu",
"ur call", "Honestly, your call. ...") were read as continue at first sight and are labelled continue here, and the
prompt now says so. First sight on 866c772, as the helpers labelled them: sre172 67% heard / 2 misread, sre173 77% /
3, sre174 61% / 5, sre175 75% / 0, redteam43 77% / 1 (268 of 375, 11 misread; 8 misread and 271 heard with the three
relabelled). After the fixes: 99%, 88%, 99%, 92%, 79%, 0 misread."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, rules_said, taken

STOPPED = {"stop_server": True, "no_relaunch": True}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("/gpu avoid 5", {"avoid_gpus": [5]}),
        ("/gpus 0,1", {"use_gpus": [0, 1]}),
        ("/srv stop", STOPPED),
        ("/bench again", {"measure_again": True}),
        ("/model Qwen/Qwen2.5-7B-Instruct", {"use_model": "Qwen/Qwen2.5-7B-Instruct"}),
        ("env+ NCCL_DEBUG=WARN", {"set_env": {"NCCL_DEBUG": "WARN"}}),
        ("env- NCCL_IB_DISABLE", {"unset_env": ["NCCL_IB_DISABLE"]}),
        ("flags += --enable-torch-compile", {"use_flags": [["--enable-torch-compile"]]}),
        ("flagban --enable-torch-compile", {"avoid_flags": ["--enable-torch-compile"]}),
        ("cfg tp=2 dp=4", {"layout": {"tp": 2, "dp": 4}}),
        ("sched=fcfs", {"use_flags": [["--schedule-policy", "fcfs"]]}),
        ("cg max bs=96", {"use_flags": [["--cuda-graph-max-bs", "96"]]}),
    ],
)
def test_a_chat_bots_commands_are_read(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(("text", "kind"), [("/deny", "deny"), ("/continue", "continue"), ("/stop the run", "stop")])
def test_a_chat_bots_reply_commands_are_replies(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [("!port 30002", {"use_port": 30002}), ("!model /models/Qwen2.5-7B", {"use_model": "/models/Qwen2.5-7B"})],
)
def test_a_bang_before_a_setting_is_a_command_and_is_asked_back(text: str, reading: dict[str, object]) -> None:
    """ "!port 30001" was kept off 30001: a chat's "!" may be a command as much as a "not"."""
    assert asked_back(text) is not None
    assert taken(text) == reading


def test_guard_a_bang_glued_to_a_gpu_still_says_not() -> None:
    assert taken("!gpu3") == {"avoid_gpus": [3]}
    assert taken("take the server down") == STOPPED  # English word order, no bot's "srv stop"


@pytest.mark.parametrize(
    "text",
    [
        "in a few minutes, switch to port 30011; the health checker moves then",
        "in about an hour use gpus 4-7",
        "in half an hour !port 30012",
    ],
)
def test_a_setting_for_some_minutes_from_now_takes_nothing(text: str) -> None:
    """ "In about half an hour switch to port 30010" was taken at once."""
    assert taken(text) == {}


@pytest.mark.parametrize(
    "text",
    [
        "port 30005 you can use it again",
        "the gpu 2, you may use it again, the job finished",
        "port 30001, you can use it again",
    ],
)
def test_a_must_not_lifted_takes_nothing(text: str) -> None:
    """ "the port 30000 you can use it again" was taken as serving on 30000: no rule lifts a must-not."""
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("On cuda graphs: turn them off", {"use_flags": [["--disable-cuda-graph"]]}),
        ("about the radix cache - switch it off, hit rate is zero", {"use_flags": [["--disable-radix-cache"]]}),
    ],
)
def test_a_feature_named_first_then_switched_by_a_pronoun(text: str, reading: dict[str, object]) -> None:
    """ "On the radix cache: turn it off." was read as stopping the server."""
    assert taken(text) == reading


def test_turning_it_off_after_a_feature_i_cannot_switch_takes_nothing() -> None:
    assert taken("the overlap scheduler: turn it off") == {}


def test_run_it_again_is_no_approval_of_what_has_not_run() -> None:
    """ "Bob swears the benchmark was wrong. humor him, run it again." approved the proposed command."""
    assert kind_of("run it again") == "say"
    assert taken("the benchmark looked noisy, run it again") == {"measure_again": True}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("use you the gpus 2 and 3", {"use_gpus": [2, 3]}),
        ("don't use never the gpu 5", {"avoid_gpus": [5]}),
        ("don't touch port 30001 neither the 30003", {"avoid_ports": [30001, 30003]}),
        ("use the gpu from 4 to 7", {"use_gpus": [4, 5, 6, 7]}),
        ("never use gpu 1 and the 2", {"avoid_gpus": [1, 2]}),
        ("the kv cache dtype put it on fp8_e5m2", {"use_flags": [["--kv-cache-dtype", "fp8_e5m2"]]}),
        ("make you tensor parallel on 4 gpu, without data parallel", {"layout": {"tp": 4, "dp": 1}}),
        ("serve Qwen/Qwen2.5-7B-Instruct from the hub", {"use_model": "Qwen/Qwen2.5-7B-Instruct"}),
        ("set NCCL_IB_DISABLE=1, actually the infiniband is down", {"set_env": {"NCCL_IB_DISABLE": "1"}}),
        ("ferma il server", STOPPED),
        ("set NCCL_DEBUG=WARN e NCCL_IB_DISABLE=1", {"set_env": {"NCCL_DEBUG": "WARN", "NCCL_IB_DISABLE": "1"}}),
        ("mem frac 0.85 allora", {"use_flags": [["--mem-fraction-static", "0.85"]]}),
    ],
)
def test_constructions_carried_over_from_another_language(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


def test_guard_actually_before_another_value_still_corrects() -> None:
    assert taken("tp 8, actually the 4 is better") == {}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("sì sì", "approve"),
        ("basta così", "stop"),
        ("Fine.", "approve"),
        ("go on as you had planned", "continue"),
        ("not weighing in on this one", "continue"),
        ("this one I don't decide it for you", "continue"),
        ("wait... no. don't run it, the log is clean", "deny"),
        ("I'd rather you do the third one", "pick 3"),
        ("number 2 in your list", "pick 2"),
        ("the second one. ok.", "pick 2"),  # approved the proposal: a bare yes after a pick confirms the pick
    ],
)
def test_replies_in_more_words(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_guard_fine_as_a_question_is_no_answer() -> None:
    assert kind_of("fine?") == "say"


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("context length is 16384 now, halve it", {"use_flags": [["--context-length", "8192"]]}),
        ("we're on tp 4. halve the tp", {"layout": {"tp": 2, "dp": 1}}),
        ("max running reqs 128, +64 on it", {"use_flags": [["--max-running-requests", "192"]]}),
        ("mem frac is 0.8 right now. -0.05 on it", {"use_flags": [["--mem-fraction-static", "0.75"]]}),
        ("go from 30005 to the next port up", {"use_port": 30006}),
        ("chunked prefill 2x from 2048", {"use_flags": [["--chunked-prefill-size", "4096"]]}),
        ("ctx from 8192 to 16384", {"use_flags": [["--context-length", "16384"]]}),
        ("tp 2, 4x dp", {"layout": {"tp": 2, "dp": 4}}),
    ],
)
def test_a_change_relative_to_a_value_the_message_states_is_worked_out_and_asked_back(
    text: str, reading: dict[str, object]
) -> None:
    assert rules_said(text) == {}  # never taken from the words themselves
    assert asked_back(text) is not None
    assert taken(text) == reading


@pytest.mark.parametrize("text", ["halve the chunked prefill", "double the tp", "+0.05 on mem"])
def test_guard_a_relative_change_with_no_value_stated_takes_nothing(text: str) -> None:
    assert taken(text) == {}


def test_a_relative_change_no_value_can_take_takes_nothing() -> None:
    """ "tp 3, halve it" was asked back as TP3: a yes would have dropped the change."""
    assert taken("tp 3, halve it") == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("back to /models/Qwen2.5-7B-Instruct, tp 2",
         {"use_model": "/models/Qwen2.5-7B-Instruct", "layout": {"tp": 2, "dp": 1}}),
        ("serve Qwen/Qwen2.5-7B-Instruct for the moment", {"use_model": "Qwen/Qwen2.5-7B-Instruct"}),
        ("keep it at tensor parallel 2", {"layout": {"tp": 2, "dp": 1}}),
        ("1024 prefill chunk", {"use_flags": [["--chunked-prefill-size", "1024"]]}),
        ("max running reqs 256, and cuda graph max bs to match, 256",
         {"use_flags": [["--max-running-requests", "256"], ["--cuda-graph-max-bs", "256"]]}),
    ],
)  # fmt: skip
def test_more_ways_to_say_a_setting(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


# Found while fixing (not lines of the sets): a flag said as the subject of what it did, then "drop that flag",
# was asked back as using the flag; and three forms the note of round 42 left undone.
@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("--enable-torch-compile hung the warmup. drop that flag", {"avoid_flags": ["--enable-torch-compile"]}),
        ("--disable-radix-cache was the culprit, never pass it", {"avoid_flags": ["--disable-radix-cache"]}),
        ("stop the server. no, don't restart it, leave it down", STOPPED),
        ("take it down now. after that tp 4", {**STOPPED, "layout": {"tp": 4, "dp": 1}}),
        ("make pull of Qwen/Qwen2.5-7B-Instruct and use this one", {"use_model": "Qwen/Qwen2.5-7B-Instruct"}),
    ],
)
def test_forms_found_while_fixing(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


def test_a_flag_said_to_have_failed_is_no_use_of_it() -> None:
    assert taken("--enable-torch-compile broke warmup") == {}
