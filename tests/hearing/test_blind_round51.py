"""Round 51's blind sets (sre204 checklists and runbook marks, sre205 Swahili and Sheng, sre206 Thai-English,
sre207 instructions given a scope in time or extent, redteam51 undo, revert and references to earlier
instructions), fixed by class. The cases are the classes' own, not the sets' lines. Checks marked guard
passed before the fix (4687b18) too; every other one fails there.

First sight on 4687b18, as the helpers labelled them: sre204 68% heard / 7 misread, sre205 36% / 1, sre206
36% / 2, sre207 92% / 4, redteam51 77% / 2 (232 of 375, 16 misread)."""

from __future__ import annotations

import pytest
from hearing_testkit import kind_of, taken


@pytest.mark.parametrize(
    "text",
    [
        "- [x] use gpus 0-3\n- [ ] enable torch compile",
        "- [x] --context-length 8192\n- [ ] --disable-radix-cache",
        "[x] stop server (done, by me)\n[ ] relaunch on port 30001",
        "- [ ] use gpus 0-3\n- [ ] port 30001",
    ],
)
def test_a_checklist_with_an_open_box_is_asked_about(text: str) -> None:
    """First sight: unticked "- [ ] enable torch compile" was taken. A tick means "chosen" to one operator and
    "done, by me" to another (round 44's sre179: "[x] stop server (done, by me)\n[ ] relaunch on port 30001"):
    a checklist with an open box is asked about, never read item by item."""
    assert taken(text) == {}
    assert kind_of("[ ] approve\n[x] deny") == "say"


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("- [x] unset NCCL_DEBUG\n- [x] gpus 4,5 only", {"unset_env": ["NCCL_DEBUG"], "use_gpus": [4, 5]}),
        ("1. serve on 30004 — DONE\n2. fp8 kv cache — TODO", {"use_port": 30004}),
    ],
)
def test_every_box_ticked_or_a_runbooks_marks_are_read(text: str, reading: dict[str, object]) -> None:
    """First sight: "fp8 kv cache — TODO" was taken, and "- [x] gpus 2,3 only" under "- [x] unset
    CUDA_VISIBLE_DEVICES" was read as "unset gpus 2,3" (kept off)."""
    assert taken(text) == reading


def test_a_runbook_with_no_step_taken_takes_nothing() -> None:
    assert taken("1. tp 4 — TODO\n2. port 30002 — SKIP") == {}


def test_guard_a_ticked_answer_a_status_list_and_inline_boxes() -> None:
    assert kind_of("- [x] approve") == "approve"
    assert taken("- [x] cordoned\n- [ ] RMA ticket\n\nkeep off gpu 3") == {"avoid_gpus": [3]}  # status beside words
    assert taken("☐ port 30000 ☑ port 30003") == {}


def test_guard_a_line_of_its_own_that_reads_alone_takes_no_verb_from_the_line_above() -> None:
    assert taken("avoid gpu 2\ngpu 3 too") == {"avoid_gpus": [2, 3]}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("usitumie gpu 1", {"avoid_gpus": [1]}),
        ("port 30000 imeshikwa na jupyter, usiitumie", {"avoid_ports": [30000]}),
        ("tumia port 30007", {"use_port": 30007}),
        ("zima server sasa hivi", {"stop_server": True, "no_relaunch": True}),
        ("tumia gpus 0,1 peke yake", {"use_gpus": [0, 1]}),
        ("chunked prefill weka 2048", {"use_flags": [["--chunked-prefill-size", "2048"]]}),
        ("zima cuda graphs", {"use_flags": [["--disable-cuda-graph"]]}),
    ],
)
def test_swahili(text: str, reading: dict[str, object]) -> None:
    """First sight: "port 30000 imeshikwa na jupyter ya mtu, usiitumie" took port 30000 (Polish read "na")."""
    assert taken(text) == reading


@pytest.mark.parametrize(("text", "kind"), [("ndio", "approve"), ("hapana", "deny"), ("simama", "stop")])
def test_swahili_replies(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("gpu 1 mai ow na", {"avoid_gpus": [1]}),
        ("port 30006 na krub, 30000 mai ow", {"use_port": 30006, "avoid_ports": [30000]}),
        (
            "mem frac 0.8 gub disable cuda graph, laew restart",
            {"use_flags": [["--mem-fraction-static", "0.8"], ["--disable-cuda-graph"]]},
        ),
        ("radix cache pid duay ja", {"use_flags": [["--disable-radix-cache"]]}),
        ("port 30001 chai... mai chai, 30002... ah mai ru, ror gorn", {}),
    ],
)
def test_thai_english(text: str, reading: dict[str, object]) -> None:
    """First sight: "mem frac 0.8 gub disable cuda graph, laew restart" was asked back as the relaunch alone;
    "port 30001 chai... mai chai, 30000... ah mai ru, ror gorn" took port 30001."""
    assert taken(text) == reading


@pytest.mark.parametrize(("text", "kind"), [("ok pai loei krub", "approve"), ("yud loei! jop run nee na", "stop")])
def test_thai_replies(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "for this launch only, tp 4",
        "until the next restart, mem frac 0.85",
        "this launch only: --disable-radix-cache. after that put the radix cache back",
        "skip gpu 2 just for this one test, then it's back in the pool",
    ],
)
def test_a_rule_for_a_while_the_run_cannot_hold_takes_nothing(text: str) -> None:
    """First sight: "for this launch only, tp 8" and three more were taken as rules for the rest of the run."""
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("from now on never use gpu 3", {"avoid_gpus": [3]}),
        ("for the rest of the run, mem frac 0.85", {"use_flags": [["--mem-fraction-static", "0.85"]]}),
    ],
)
def test_guard_a_rule_for_the_rest_of_the_run_is_taken(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize(
    "text",
    ["actually take back the yes I gave you on the last one. and no, don't do this one either", "no. undo all that"],
)
def test_an_answer_taken_back_or_a_revert_is_no_pick_nor_deny(text: str) -> None:
    """First sight: "actually take back the yes I gave you on the last one. ..." picked the last step; "no. put
    everything back how it was first" was a plain deny."""
    assert kind_of(text) == "say"


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("revert to tp 4", {"layout": {"tp": 4, "dp": 1}}),
        ("revert the max running requests to 64", {"use_flags": [["--max-running-requests", "64"]]}),
    ],
)
def test_a_revert_that_says_the_value(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading


@pytest.mark.parametrize("text", ["back to the old mem frac", "revert the gpu change"])
def test_guard_a_revert_that_names_no_value_takes_nothing(text: str) -> None:
    assert taken(text) == {}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("sasa unaweza tumia gpu 4 tena", {}),  # a must-not lifted ("again"): no rule says it
        ("gpu 6 wang laew gor chai gpu 6 dai", {}),  # "is free again, so you can use it": lifted
        ("keep off gpu 5 for the next hour", {}),
        ("kv cache dtype back to fp8_e4m3", {"use_flags": [["--kv-cache-dtype", "fp8_e4m3"]]}),
    ],
)
def test_guard_lifted_timed_or_plain_words_read_as_before(text: str, reading: dict[str, object]) -> None:
    assert taken(text) == reading
