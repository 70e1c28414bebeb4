"""Round 49's blind sets (sre196 Nigerian English and Pidgin, sre197 voice dictation from a phone, sre198
Kubernetes and Slurm words on one host, sre199 a manager covering the on-call, redteam49 bounds and
quantifiers), fixed by class. The cases are the classes' own, not the sets' lines. Checks marked guard
passed before the fix (69bee15) too; every other one fails there.

First sight on 69bee15, as the helpers labelled them: sre196 73% heard / 0 misread, sre197 76% / 1, sre198
87% / 2, sre199 95% / 0, redteam49 71% / 1 (301 of 375, 4 misread)."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, rules_said, taken

from agent.hearing.instructions import hear
from agent.state import OperatorRules


def test_a_layout_whose_other_half_is_spoken_of_unread_is_not_taken() -> None:
    """ "tp 2, and dp so that tp times dp is 8" was asked back as TP 2 (DP 1): the DP said was dropped."""
    assert taken("tp 4, and dp whatever fills the box") == {}
    assert taken("tp 4, no dp") == {"layout": {"tp": 4, "dp": 1}}  # guard: a DP said as none is read


@pytest.mark.parametrize(
    "text",
    [
        "put quantization fp8 in the args and relaunch",
        "put chunked prefill 8192 in the args, then restart",
    ],
)
def test_a_relaunch_beside_a_launch_change_is_never_the_relaunch_alone(text: str) -> None:
    """ "no topo. put quantization fp8 in the args and relaunch" was asked back as the relaunch alone."""
    assert taken(text) != {}
    assert rules_said(text).get("use_flags"), text


def test_a_pod_deleted_to_come_back_is_a_restart() -> None:
    """ "kubectl delete pod. let it come back up on its own" was read as stop, no relaunch (a misread)."""
    rules, _, missed = hear(OperatorRules(), "kubectl delete pod, let it come back up on its own")
    assert (rules.relaunch_wanted, rules.no_relaunch, missed) == (True, False, [])


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("stop the pod and keep it down", {"stop_server": True, "no_relaunch": True}),
        ("limits mem frac 0.8", {"use_flags": [["--mem-fraction-static", "0.8"]]}),
        ("env: NCCL_DEBUG=WARN in the pod spec", {"set_env": {"NCCL_DEBUG": "WARN"}}),
        ("add --disable-radix-cache to the container args", {"use_flags": [["--disable-radix-cache"]]}),
        ("strip --disable-cuda-graph from the args", {"avoid_flags": ["--disable-cuda-graph"]}),
        ("swap the image to /models/Llama-3.1-8B-Instruct", {"use_model": "/models/Llama-3.1-8B-Instruct"}),
    ],
)
def test_kubernetes_words_for_one_server(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("no wahala, run am", "approve"),
        ("ok sharp sharp, do am", "approve"),
        ("No abeg. You dey play? No run that one", "deny"),
        ("I no gree", "deny"),
        ("no o", "deny"),
        ("na you sabi", "continue"),
        ("your call o", "continue"),
        ("make you do the second one abeg", "pick 2"),
        ("reconcile however you see fit", "continue"),
        ("hold on - no. don't run that.", "deny"),
        ("No I don't want you running that right now period", "deny"),
        ("Yes period", "approve"),
        ("the last one", "pick 3"),
        ("do the last one pls", "pick 3"),
    ],
)
def test_replies_of_the_round(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize("text", ["not the last one", "no I don't mind"])
def test_guard_a_refused_or_reassuring_no_is_no_pick_nor_deny(text: str) -> None:
    assert kind_of(text) == "say"


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("oya tp 2 dp 4", {"layout": {"tp": 2, "dp": 4}}),
        ("na port 30007 we dey use", {"use_port": 30007}),
        ("gpu 1 and 2 na for Bisi team, avoid dem", {"avoid_gpus": [1, 2]}),
        ("no use torch compile at all, e dey make startup slow", {"avoid_flags": ["--enable-torch-compile"]}),
    ],
)
def test_pidgin(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


def test_guard_a_pidgin_word_beside_a_setting_leaves_the_setting_read() -> None:
    assert taken("cuda graph max bs 64 abeg, we no need 160") == {"use_flags": [["--cuda-graph-max-bs", "64"]]}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("Port thirty thousand and for", {"use_port": 30004}),
        ("Chunked prefill size to zero four eight", {"use_flags": [["--chunked-prefill-size", "2048"]]}),
        ("G P U three and four only comma tee pee to", {"use_gpus": [3, 4], "layout": {"tp": 2, "dp": 1}}),
        ("Tee pee two dee pee too", {"layout": {"tp": 2, "dp": 2}}),
        ("Tensor parallel to data parallel for", {"layout": {"tp": 2, "dp": 4}}),
        ("Avoid G P U's four and five", {"avoid_gpus": [4, 5]}),
        ("Use G P U's to through five", {"use_gpus": [2, 3, 4, 5]}),
        ("Set the attention back end to flash in fur", {"use_flags": [["--attention-backend", "flashinfer"]]}),
        ("Set N C C L underscore I B underscore disable equals one", {"set_env": {"NCCL_IB_DISABLE": "1"}}),
        ("Unset pie torch cuda alloc conf", {"unset_env": ["PYTORCH_CUDA_ALLOC_CONF"]}),
    ],
)
def test_voice_dictation(text: str, reading: dict[str, object]) -> None:
    """ "Port thirty thousand and to" was read as port 30000 (a misread): "to" is two, ending the number."""
    assert taken(text) == reading


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("the odd GPUs", {"use_gpus": [1, 3, 5, 7]}),
        ("skip the even-numbered gpus", {"avoid_gpus": [0, 2, 4, 6]}),
        ("every other GPU, starting from 0", {"use_gpus": [0, 2, 4, 6]}),
        ("no GPU numbered above 5", {"avoid_gpus": [6, 7]}),
        ("the middle two GPUs", {"use_gpus": [3, 4]}),
        ("the lower half", {"use_gpus": [0, 1, 2, 3]}),
        ("gpus 1 through 4 inclusive", {"use_gpus": [1, 2, 3, 4]}),
        ("none of gpus 2 or 3", {"avoid_gpus": [2, 3]}),
        ("never touch 30002 or 30003", {"avoid_ports": [30002, 30003]}),
        ("tp 4 or nothing", {"layout": {"tp": 4, "dp": 1}}),
        ("drop both NCCL vars, NCCL_ALGO and NCCL_PROTO", {"unset_env": ["NCCL_ALGO", "NCCL_PROTO"]}),
        ("mem frac 0.85, for all the runs", {"use_flags": [["--mem-fraction-static", "0.85"]]}),
    ],
)
def test_sets_and_values_said_by_a_property_or_a_quantifier(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize("text", ["every other GPU", "at most 4 GPUs", "no more than 0.85 mem frac", "half the GPUs"])
def test_guard_a_bound_or_an_open_set_is_not_taken(text: str) -> None:
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "reading", "sign_off"),
    [
        ("Before you sign off bump mem fraction to point eight and measure again", "mem", True),
        ("before you sign off, at least one more benchmark pass", "measure", True),
        ("set NCCL_DEBUG=INFO so Priya can read the logs tomorrow", "env", False),
    ],
)
def test_an_order_with_its_when_or_why_said_around_it(text: str, reading: str, sign_off: bool) -> None:
    said = taken(text, sign_off)
    expected = {
        "mem": {"use_flags": [["--mem-fraction-static", "0.8"]], "measure_again": True},
        "measure": {"measure_again": True},
        "env": {"set_env": {"NCCL_DEBUG": "INFO"}},
    }[reading]
    assert said == expected


@pytest.mark.parametrize(
    "text",
    ["yeah, what could possibly go wrong. go ahead", "go ahead, what could go wrong", "go ahead. great idea btw"],
)
def test_irony_beside_a_go_ahead_is_no_go_ahead(text: str) -> None:
    """Left open in round 48: "yeah, what could possibly go wrong. go ahead" approved."""
    assert kind_of(text) == "say"


def test_guard_a_plain_go_ahead_with_a_remark_approves() -> None:
    assert kind_of("go ahead, topo -m is read-only anyway") == "approve"
    assert asked_back("tp 4") is None
