"""Round 30's blind sets (sre120 speech-to-text on a phone, sre121 a bank's security lead, sre122 Indian
English with Hinglish, sre123 pasted snippets), fixed by class. Each case was misread, or unread, on the
code before (8e4e8ac); the safety cases are first. The cases are the classes' own, not the sets' lines."""

from __future__ import annotations

from typing import Any

import pytest
from hearing_testkit import asked_back, asking, kind_of, rules_said

from agent.hearing.heed import ask_back
from agent.hearing.replies import parse_reply
from agent.state import OperatorRules


def taken(text: str) -> dict[str, Any]:
    """What a "yes" to this message would put in force: read whole, or its reading asked back."""
    asked = ask_back(OperatorRules(), text, None, list(range(8)))
    if asked is None:
        return rules_said(text)
    return rules_said(asked.confirm) if asked.confirm else {}


# ------------------------------------------------------------------------------ first-sight misreads


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Bring it back up on 30001 with the same flags as before, nothing else changed.", {"use_port": 30001}),
        ("relaunch on gpus 4-7 with the same flags", {"use_gpus": [4, 5, 6, 7]}),
    ],
)
def test_a_change_said_with_the_same_flags_is_kept(text: str, want: dict[str, Any]) -> None:
    """A yes to the relaunch alone, asked back, would have launched on the old port."""
    assert taken(text) == want


def test_a_relaunch_beside_a_port_not_read_is_not_taken_alone() -> None:
    asked = ask_back(OperatorRules(), "bring it back, go up on 30001 with whatever you like", None, list(range(8)))
    assert asked is not None and asked.confirm is None  # never "relaunch" asked back alone
    assert "not what to relaunch with" in asked.rules.answers[-1]


def test_a_lead_in_is_never_read_as_the_subject_of_a_must_not() -> None:
    """ "Also, for the record, port 9090 is not to be used ..." once became "never use Also, for the record,
    port 9090", whose last piece read as serving on 9090."""
    text = "Stop the server. Also, for the record, port 9090 is not to be used by anything you start going forward."
    got = taken(text)
    assert "use_port" not in got
    assert got == {"stop_server": True, "no_relaunch": True, "avoid_ports": [9090]}


# ------------------------------------------------------------------------------ a refusal's reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no dont touch GPU 0 and 1", "dont touch GPU 0 and 1"),
        ("nahi nahi, don't use GPU 3", "don't use GPU 3"),
        ("no do not touch gpu 5, it's the demo box", "do not touch gpu 5, it's the demo box"),
    ],
)
def test_a_no_then_a_must_not_keeps_the_must_not_in_its_reason(text: str, reason: str) -> None:
    """The deny's reason is read as instructions: cut after "don't", it said to touch the GPUs."""
    reply = parse_reply(text, asking(), "op")
    assert reply.kind == "deny"
    assert reply.text == reason
    assert taken(reply.text).get("avoid_gpus")


@pytest.mark.parametrize("text", ["don't", "no don't", "don't yet", "nope dont need topo again"])
def test_a_bare_dont_is_still_a_refusal(text: str) -> None:
    assert kind_of(text) == "deny"


# ------------------------------------------------------------------------------ speech to text


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("set nickel p to p disable to one", {"set_env": {"NCCL_P2P_DISABLE": "1"}}),
        ("set nickel i b disable to one", {"set_env": {"NCCL_IB_DISABLE": "1"}}),
        ("set nickel p two p level to p h b", {"set_env": {"NCCL_P2P_LEVEL": "PHB"}}),
        ("set NCCL_P2P_LEVEL to sys", {"set_env": {"NCCL_P2P_LEVEL": "SYS"}}),
        ("no coda graphs", {"use_flags": [["--disable-cuda-graph"]]}),
        ("k v cache d type fp eight e four m three", {"use_flags": [["--kv-cache-dtype", "fp8_e4m3"]]}),
        ("use port thirty thousand and twenty", {"use_port": 30020}),
        ("port thirty one thousand and forty five", {"use_port": 31045}),
        ("avoid gpu zero or one", {"avoid_gpus": [0, 1]}),
        ("use gpus four five six seven", {"use_gpus": [4, 5, 6, 7]}),
        ("gpus zero to three are off limits", {"avoid_gpus": [0, 1, 2, 3]}),
        ("gpus 4 to 7 are off limits", {"avoid_gpus": [4, 5, 6, 7]}),
        ("drop the disable custom all reduce flak", {"avoid_flags": ["--disable-custom-all-reduce"]}),
        ("take the s g lang server down", {"stop_server": True, "no_relaunch": True}),
    ],
)
def test_words_a_speech_engine_writes_are_read(text: str, want: dict[str, Any]) -> None:
    assert rules_said(text) == want


@pytest.mark.parametrize("text", ["use gpus two three", "go from two to four gpus"])
def test_number_words_that_may_be_a_count_or_one_number_stay_unread(text: str) -> None:
    assert rules_said(text) == {}


def test_make_that_after_a_correction_says_the_value_again() -> None:
    assert taken("put it on gpus two and three actually no make that four and five") == {"use_gpus": [4, 5]}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("um option to", "pick 2"),
        ("step three comma check the log", "pick 3"),
        ("carry on with whatever you had planned im stuck in meetings", "continue"),
        ("okay so stop everything", "stop"),
    ],
)
def test_dictated_replies(text: str, kind: str) -> None:
    assert kind_of(text) == kind


# ------------------------------------------------------------------------------ everyday forms


@pytest.mark.parametrize(
    "text", ["relaunch it as is", "just bounce the server dont change anything", "restart unchanged"]
)
def test_a_relaunch_with_nothing_changed(text: str) -> None:
    assert rules_said(text) == {} and asked_back(text) is None
    from agent.hearing.instructions import hear

    assert hear(OperatorRules(), text)[0].relaunch_wanted


def test_a_relaunch_as_is_that_then_changes_something_is_not_read() -> None:
    assert rules_said("restart it as is with tp 4") == {}


def test_when_to_measure_is_no_remark() -> None:
    assert rules_said("tp 4 on port 31000, and once it's up rerun the bench") == {
        "layout": {"tp": 4, "dp": 1},
        "use_port": 31000,
        "measure_again": True,
    }


@pytest.mark.parametrize("text", ["that's it for today", "ok that's it for today, wrap up the whole session"])
def test_the_days_end_stops_the_run(text: str) -> None:
    assert kind_of(text) == "stop"


@pytest.mark.parametrize("text", ["take off the --quantization flag", "take the --quantization flag off"])
def test_a_flag_taken_off(text: str) -> None:
    assert rules_said(text) == {"avoid_flags": ["--quantization"]}


def test_a_fact_after_an_order_with_no_comma_is_asked_back_with_the_order() -> None:
    assert asked_back("set NCCL_IB_DISABLE to 1 theres no infiniband on this box") == "NCCL_IB_DISABLE=1"


def test_a_model_change_said_noun_first_is_asked_back() -> None:
    assert taken("model change karo to Qwen/Qwen3-32B") == {"use_model": "Qwen/Qwen3-32B"}


# ------------------------------------------------------------------------------ a formal register


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("mem-fraction-static is to be 0.85, not higher.", {"use_flags": [["--mem-fraction-static", "0.85"]]}),
        ("Max running requests must not exceed 32 on this host.", {"use_flags": [["--max-running-requests", "32"]]}),
        ("GPU 2 and GPU 5 are excluded, full stop.", {"avoid_gpus": [2, 5]}),
        ("I need the server stopped.", {"stop_server": True, "no_relaunch": True}),
        ("0-3 are reserved for the overnight batch and must not be touched.", {"avoid_gpus": [0, 1, 2, 3]}),
    ],
)
def test_policy_sentences(text: str, want: dict[str, Any]) -> None:
    assert rules_said(text) == want


@pytest.mark.parametrize(
    ("text", "sign_off"),
    [
        ("Please do not run it.", False),
        ("do not do it", False),
        ("Declined pending review by second line.", True),
        ("I can't sign that.", True),
        ("I'm not in a position to sign this off until the P2P test has passed.", True),
        ("Not approved as it stands.", True),
    ],
)
def test_formal_refusals(text: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off=sign_off) == "deny"


def test_a_hold_until_told_is_no_refusal_with_a_reason() -> None:
    """The "until" that gives a sign-off refusal its reason never turns a hold into a deny."""
    assert kind_of("Don't launch it again until I say so.") != "deny"
    assert rules_said("Don't launch it again until I say so.") == {"no_relaunch": True}


def test_a_story_naming_a_gpu_beside_a_relaunch_is_a_remark() -> None:
    asked = ask_back(
        OperatorRules(), "restart the server. I just cleared the stale process on gpu 3", None, list(range(8))
    )
    assert asked is not None and asked.confirm is not None and "restart" in asked.confirm


# ------------------------------------------------------------------------------ the red-team pass (redteam30)


def test_a_change_after_as_is_keeps_the_relaunch_from_being_taken_alone() -> None:
    """Two of these four were misread by this round's own first fixes (7705ac1)."""
    asked = ask_back(OperatorRules(), "relaunch it as is. well, as is but with 32k context", None, list(range(8)))
    assert asked is not None and asked.confirm is None


def test_a_refusal_taken_back_by_an_approval_after_it_is_no_deny() -> None:
    text = "declined pending review... which just came back clean. signed"
    assert kind_of(text, sign_off=True) not in ("deny", "approve")


def test_no_dont_worry_is_a_reassurance_not_a_refusal() -> None:
    assert kind_of("no dont worry about gpu 0 and 1 anymore, the training job finished. go ahead") != "deny"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("dont launch anything on gpu 3", {"avoid_gpus": [3]}),
        ("never run anything on gpus 6,7", {"avoid_gpus": [6, 7]}),
    ],
)
def test_launch_nothing_on_a_gpu_keeps_the_gpu_out_never_holds_every_launch(text: str, want: dict[str, Any]) -> None:
    assert rules_said(text) == want


# ------------------------------------------------------------------------------ pasted snippets (sre123)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "- --enable-torch-compile\n+ --disable-custom-all-reduce",
            {"avoid_flags": ["--enable-torch-compile"], "use_flags": [["--disable-custom-all-reduce"]]},
        ),
        ("- --tp 8\n+ --tp 4 --dp 2", {"use_flags": [["--dp-size", "2"], ["--tp-size", "4"]]}),  # the old value only
        ("- --quantization fp8\nleave that out, ckpt is already fp8", {"avoid_flags": ["--quantization"]}),
        (
            "- --disable-cuda-graph\ndrop that and rerun the bench",
            {"avoid_flags": ["--disable-cuda-graph"], "measure_again": True},
        ),
    ],
)
def test_a_pasted_diff_takes_its_minus_lines_out(text: str, want: dict[str, Any]) -> None:
    """Each of these put the "-" line's flag IN on 0f1dc86: a diff's removal read as a bullet to use."""
    got = taken(text)
    assert {k: sorted(v) if isinstance(v, list) else v for k, v in got.items()} == want


def test_a_bullet_of_flags_alone_is_still_a_bullet() -> None:
    assert rules_said("- --disable-cuda-graph\n- --mem-fraction-static 0.8") == {
        "use_flags": [["--disable-cuda-graph"], ["--mem-fraction-static", "0.8"]]
    }


def test_a_word_corrected_after_a_pause_is_put_in_place() -> None:
    """ "CUDA_VISIBLE_DEVICS=2,3 .. er DEVICES" set a misspelt variable on 0f1dc86."""
    text = parse_reply("CUDA_VISIBLE_DEVICS=2,3 .. er DEVICES. tp2", asking(), "op").text
    assert "CUDA_VISIBLE_DEVICS" not in str(taken(text))
    assert taken("use tp 4 .. er 8") == {"layout": {"tp": 8, "dp": 1}}  # asked back as the value said last


def test_flags_swapped_in_with_a_plus_are_each_read() -> None:
    assert rules_said("swap in --attention-backend fa3 + --mem-fraction-static 0.82") == {
        "use_flags": [["--attention-backend", "fa3"], ["--mem-fraction-static", "0.82"]]
    }


@pytest.mark.parametrize(("text", "kind"), [("the log one", "pick 3"), ("the gpu list one", "pick 2")])
def test_a_step_named_with_no_verb_is_picked(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_a_step_not_named_is_not_picked() -> None:
    assert not kind_of("the other one").startswith("pick")
