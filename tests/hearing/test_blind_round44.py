"""Round 44's blind sets (sre176 English with Turkish habits, sre177 hardware named as nvidia-smi and an
inventory name it, sre178 terse follow-up fragments, sre179 structured notes, redteam44 what the object of a
verb is), fixed by class. The cases are the classes' own, not the sets' lines. Checks marked guard passed
before the fix (e6e92d3) too; every other one fails there.

First sight on e6e92d3, as the helpers labelled them: sre176 43% heard / 3 misread, sre177 84% / 2, sre178 95% /
0 (meets the first-sight bar), sre179 69% / 3, redteam44 61% / 9 (264 of 375, 17 misread). One of redteam44's
misreads is a bare "stop", which its writer labelled not understood: `stop` is the reply the command line
documents for ending a run (DESIGN.md, `opsagent reply RUN stop`) and sre1 labels it so; it is labelled stop
here. After the fixes: 97%, 89%, 95%, 87%, 81%, 0 misread."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, rules_said, taken

from agent.hearing.instructions import hear
from agent.state import OperatorRules

STOPPED = {"stop_server": True, "no_relaunch": True}


@pytest.mark.parametrize(
    ("text", "kind"),
    [("evet", "approve"), ("hayır", "deny"), ("sen karar ver", "continue"), ("2 numara", "pick 2")],
)
def test_turkish_replies(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("sadece gpu 2,3 kullan", {"use_gpus": [2, 3]}),
        ("cuda graph kapat", {"use_flags": [["--disable-cuda-graph"]]}),
        ("tp 4 olsun", {"layout": {"tp": 4, "dp": 1}}),
        ("30007'e geç lütfen", {"use_port": 30007}),
        ("NCCL_DEBUG çıkar", {"unset_env": ["NCCL_DEBUG"]}),
        ("--enable-torch-compile çıkar", {"avoid_flags": ["--enable-torch-compile"]}),
        ("bekle. relaunch yok", {"no_relaunch": True}),
        ("gpu 4 ve 5'i avoid", {"avoid_gpus": [4, 5]}),
        ("server'ı kapat şimdi", STOPPED),
    ],
)
def test_turkish_instructions_verb_last(text: str, reading: dict[str, object]) -> None:
    """ "--enable-torch-compile çıkar" (remove it) was read as passing the flag, "relaunch yok" as a relaunch."""
    assert taken(text) == reading


@pytest.mark.parametrize("text", ["gpu 2 boşalınca onu da kullan", "port 30002 olsun. yok yok 30002 değil, other one"])
def test_guard_turkish_conditions_and_corrections_take_nothing(text: str) -> None:
    assert taken(text) == {}


def test_guard_a_turkish_yes_then_no_is_no_answer() -> None:
    assert kind_of("evet... hayır. bilmiyorum") == "say"


def test_guard_english_is_not_read_as_turkish() -> None:
    # "İ" matches every "i" when compared without case: an English message must stay English
    assert taken("don't use gpu 3, it is broken since morning") == {"avoid_gpus": [3]}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("only use GPU-1a2b3c4d (idx 2) and GPU-5e6f7a8b (idx 3)", {"use_gpus": [2, 3]}),
        ("GPU-9f8e7d6c is index 5 on this box. never put anything on it", {"avoid_gpus": [5]}),
        ("the prod model is /models/Qwen2.5-7B-Instruct, serve that one", {"use_model": "/models/Qwen2.5-7B-Instruct"}),
        ("NUMA node 0 is GPUs 0,1,2,3 here. pin the server there", {"use_gpus": [0, 1, 2, 3]}),
    ],
)
def test_hardware_named_with_its_index(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


def test_hardware_the_run_cannot_place_takes_nothing() -> None:
    """ "run tp 2 on the NVLink pair" took TP2 and dropped where."""
    assert taken("run tp 4 on the NVLink pair") == {}


@pytest.mark.parametrize("text", ["pin it to NUMA node 0", "serve on the card in slot 5"])
def test_guard_hardware_the_run_cannot_place_is_unread(text: str) -> None:
    assert taken(text) == {}


def test_an_order_after_an_answer_is_no_remark() -> None:
    """ "go ahead. and only use GPU-8b1c4e2a (idx 0) ..." approved the proposal, the GPUs dropped."""
    assert kind_of("go ahead. and only use GPU-1a2b3c4d (idx 0)") == "say"
    assert taken("go ahead. and only use GPU-1a2b3c4d (idx 0)") == {"use_gpus": [0]}


@pytest.mark.parametrize(
    "text", ["take it down", "do 2, then kill it", "bring it down now", "take it down rn, users see garbage"]
)
def test_a_stop_of_an_unnamed_it_is_only_asked_back(text: str) -> None:
    """ "take it down", "nuke it" stopped the server: which "it"?"""
    assert rules_said(text) == {}
    asked = asked_back(text)
    assert asked is not None and "the server" in asked


def test_nuke_it_at_a_proposal_names_the_proposal() -> None:
    assert kind_of("nuke it") == "error"  # as "kill it" is: the proposal is what "it" would be


def test_guard_a_stop_of_the_server_named_is_taken() -> None:
    assert rules_said("kill the server") == STOPPED


@pytest.mark.parametrize(
    "text",
    [
        "restart the node",
        "reboot the host, then relaunch on tp 4",
        "restart everything",
        "restart the box",
        "reset the gpus and relaunch",
    ],
)
def test_the_host_is_never_the_server(text: str) -> None:
    """ "restart the node" was a relaunch; "reboot the host, then relaunch on tp 8" took TP8."""
    assert taken(text) == {}
    assert not hear(OperatorRules(), text)[0].relaunch_wanted and asked_back(text) is None


def test_guard_a_reboot_refused_beside_a_restart_of_the_server() -> None:
    assert asked_back("reboot's off the table. just restart sglang") == "relaunch"


def test_the_service_is_the_server() -> None:
    assert hear(OperatorRules(), "bounce the service")[0].relaunch_wanted


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("1. abort the run\n2. read the log", "say"),  # a list of steps, never step 1 picked
        ("TODO: mem frac => your call", "say"),  # one setting handed back, no go-on
        ("=> #2", "pick 2"),
        ("Step 1: go ahead.", "approve"),
    ],
)
def test_structured_replies(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_the_server_named_after_a_bare_stop() -> None:
    """ "stop. the server, I mean. just the server" ended the run."""
    assert kind_of("stop. the server, I mean. the run keeps going") == "say"
    assert taken("stop. the server, I mean. the run keeps going") == STOPPED


def test_a_flag_said_fine_again_takes_nothing() -> None:
    assert taken("--enable-torch-compile is fine again, you can pass it") == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("=> gpus 0,1\n=> tp 2", {"use_gpus": [0, 1], "layout": {"tp": 2, "dp": 1}}),
        ("layout => tp 2 x dp 4", {"layout": {"tp": 2, "dp": 4}}),
        ("trust remote code => on", {"use_flags": [["--trust-remote-code"]]}),
        ("disable radix cache => no prefix reuse here", {"use_flags": [["--disable-radix-cache"]]}),
        ("bounce it onto 30006", {"use_port": 30006}),
        ("wipe NCCL_DEBUG from the env", {"unset_env": ["NCCL_DEBUG"]}),
        ("reset the layout to tp 2 dp 4", {"layout": {"tp": 2, "dp": 4}}),
        ("take it down to gpus 0-3 only", {"use_gpus": [0, 1, 2, 3]}),
        ("free the gpus: stop our server and don't bring it back up", STOPPED),
    ],
)
def test_structured_notes_and_plain_forms(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading
