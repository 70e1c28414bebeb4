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


def _heard(text: str) -> dict[str, object]:
    rules, _, _ = hear(OperatorRules(), text)
    defaults = OperatorRules().model_dump()
    skip = {"heard", "not_understood", "relaunch_wanted", "free_text"}
    return {k: v for k, v in rules.model_dump().items() if k not in skip and v != defaults[k]}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0-3 only", {"use_gpus": [0, 1, 2, 3]}),
        ("only 1 3 5", {"use_gpus": [1, 3, 5]}),
        ("avoid 0 n 1", {"avoid_gpus": [0, 1]}),
        ("never 30000 n 30001", {"avoid_ports": [30000, 30001]}),
        ("lower half of the node (gpu0..gpu3)", {"use_gpus": [0, 1, 2, 3]}),
    ],
)
def test_bare_id_sets_and_n_for_and(text: str, expected: dict[str, object]) -> None:
    assert _heard(text) == expected


@pytest.mark.parametrize("text", ["3 only", "1", "the broken ones (gpu4..gpu7)"])
def test_a_single_bare_number_or_a_bracket_without_a_position_is_no_gpu_set(text: str) -> None:
    assert "use_gpus" not in _heard(text)


@pytest.mark.parametrize(
    ("text", "layout"),
    [("tp4 no dp", {"tp": 4, "dp": 1}), ("tp 2, no dp", {"tp": 2, "dp": 1}), ("tp8 dp2, no dp", {"tp": 8, "dp": 1})],
)
def test_no_dp_is_dp_one(text: str, layout: dict[str, int]) -> None:
    assert _heard(text) == {"layout": layout}


def test_no_dp_alone_sets_no_layout() -> None:
    assert "layout" not in _heard("no dp")


@pytest.mark.parametrize(
    ("text", "flags"),
    [
        (
            "--cuda-graph-max-bs 64 --disable-radix-cache --mem-fraction-static 0.7",
            [["--cuda-graph-max-bs", "64"], ["--disable-radix-cache"], ["--mem-fraction-static", "0.7"]],
        ),
        (
            "limit it with --max-running-requests 32 --chunked-prefill-size 2048 so the queue stays short",
            [["--max-running-requests", "32"], ["--chunked-prefill-size", "2048"]],
        ),
    ],
)
def test_a_pasted_flag_run(text: str, flags: list[list[str]]) -> None:
    assert _heard(text) == {"use_flags": flags}


def test_a_pasted_env_and_flag_run() -> None:
    assert _heard("NCCL_IB_DISABLE=1 --disable-custom-all-reduce") == {
        "set_env": {"NCCL_IB_DISABLE": "1"},
        "use_flags": [["--disable-custom-all-reduce"]],
    }


@pytest.mark.parametrize(
    "text",
    ["--mem-fraction-static --disable-radix-cache", "--cuda-graph-max-bs 64 --not-a-flag", "--tp-size four --dp 2"],
)
def test_a_flag_run_with_a_value_missing_or_a_flag_unknown_is_not_taken(text: str) -> None:
    assert _heard(text) == {}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gpsu 2,3", {"use_gpus": [2, 3]}),
        ("chunked prefil 1024", {"use_flags": [["--chunked-prefill-size", "1024"]]}),
        ("rerun the bnch", {"measure_again": True}),
    ],
)
def test_slips_of_the_grammars_words_are_taken_and_said_back(text: str, expected: dict[str, object]) -> None:
    _, heard, _ = hear(OperatorRules(), text)
    assert _heard(text) == expected
    assert "read as" in heard[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kv fp8_e5m2", {"use_flags": [["--kv-cache-dtype", "fp8_e5m2"]]}),
        ("unset NCCL_ALGO breaks on this fabric", {"unset_env": ["NCCL_ALGO"]}),
        ("keep 8000 free because the exporter lives there", {"avoid_ports": [8000]}),
        ("swap to /models/Mistral-7B", {"use_model": "/models/Mistral-7B"}),
        ("rerun first", {"measure_again": True}),
        ("--disable-cuda-graph while we're at it", {"use_flags": [["--disable-cuda-graph"]]}),
        ("stop the server (only sglang, keep the run going)", {"stop_server": True, "no_relaunch": True}),
    ],
)
def test_remarks_and_short_forms_around_an_instruction(text: str, expected: dict[str, object]) -> None:
    assert _heard(text) == expected


@pytest.mark.parametrize("text", ["30000 is taken", "port 30000 is held by the old box, what now?"])
def test_a_port_said_to_be_held_is_a_remark_not_a_rule(text: str) -> None:
    assert _heard(text) == {}


@pytest.mark.parametrize(
    ("text", "confirm"), [("2-5, port 30007", "port 30007; use GPUs 2-5"), ("1, 2", "use GPUs 1, 2")]
)
def test_bare_ids_without_only_are_asked_back(text: str, confirm: str) -> None:
    assert "use_gpus" not in _heard(text)  # "1, 2" may be two steps to pick: never taken as GPUs silently
    asked = ask_back(OperatorRules(), text, None, HOST)
    assert asked is not None and asked.confirm == confirm


@pytest.mark.parametrize(
    "text",
    ["a flaky riser and XID spam", "old firmware, NCCL hangs", "PCIE retries", "bad fans and SXM throttling"],
)
def test_an_acronym_then_a_word_is_no_variable_to_set(text: str) -> None:
    # "... and ECC errors" was read as ECC=errors and reported in force (sre5, first sight)
    rules, heard, _ = hear(OperatorRules(), text)
    assert rules.set_env == {} and heard == [], (rules.set_env, heard)


def test_a_variable_said_with_its_value_is_still_set() -> None:
    rules, _, _ = hear(OperatorRules(), "NCCL_DEBUG WARN")
    assert rules.set_env == {"NCCL_DEBUG": "WARN"}
