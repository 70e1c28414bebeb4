"""Rounds 26 and 27's blind sets (a Dutch engineer, a phone with autocorrect, heavy Markdown, vLLM habits,
a German engineer, config-style keys), fixed by class. Each case was misread, or unread, on the code
before (b47423e); the misreads are first."""

from __future__ import annotations

from typing import Any

import pytest
from hearing_testkit import asked_back, kind_of, rules_said, taken

from agent.hearing.heed import ask_back
from agent.state import OperatorRules

# ------------------------------------------------------------------------------ first-sight misreads


def test_a_relaunch_beside_a_change_not_read_is_not_taken_alone() -> None:
    """A yes to "relaunch" alone would launch without the change the operator asked for."""
    for text in ("set --foo-bar to blah and relaunch please", "bump the widget to 11, then restart"):
        assert taken(text) == {}, text
        asked = ask_back(OperatorRules(), text, None, list(range(8)))
        assert asked is not None and "not what to relaunch with" in asked.rules.answers[-1]


def test_a_config_style_unset_list_is_read_with_its_relaunch() -> None:
    text = "unset: PYTORCH_CUDA_ALLOC_CONF, TORCH_NCCL_BLOCKING_WAIT\nrelaunch: yes"
    assert taken(text)["unset_env"] == ["PYTORCH_CUDA_ALLOC_CONF", "TORCH_NCCL_BLOCKING_WAIT"]


@pytest.mark.parametrize(
    "text", ["Context length we need 32k, not more. 32768 tokens genau.", "yesterday it showed 7. Strange ja"]
)
def test_a_german_ja_or_genau_after_words_is_no_yes(text: str) -> None:
    assert kind_of(text) != "approve"
    assert kind_of(text, sign_off=True) != "approve"


def test_a_german_ja_said_first_is_still_a_yes() -> None:
    assert kind_of("ja", sign_off=True) == "approve"
    assert kind_of("ja mach das") == "approve"


@pytest.mark.parametrize(
    "text",
    [
        "GPU 6 and 7 are reserved for Kollege Becker, avoid them. And port 31000 please.",
        "avoid gpu 6. port 31000",
    ],
)
def test_a_must_not_never_carries_into_the_next_sentence(text: str) -> None:
    assert 31000 not in taken(text).get("avoid_ports", [])


def test_a_must_not_still_carries_within_its_sentence() -> None:
    assert taken("avoid gpu 6 and port 31000") == {"avoid_gpus": [6], "avoid_ports": [31000]}


def test_that_after_a_feature_switched_is_not_the_feature() -> None:
    """ "cuda graph was disabled earlier. Remove that": the disabling is removed, never CUDA graph."""
    text = "no, cuda graph was disabled from the debugging earlier. Remove that, and re-run the bench."
    assert ["--disable-cuda-graph"] not in rules_said(text.removeprefix("no, ")).get("use_flags", [])


def test_a_flag_that_must_not_be_there_is_kept_out() -> None:
    assert taken("--disable-cuda-graph must not be there") == {"avoid_flags": ["--disable-cuda-graph"]}


@pytest.mark.parametrize(
    ("text", "flag"),
    [("KV_DTYPE=fp8_e5m2", ["--kv-cache-dtype", "fp8_e5m2"]), ("MEM_FRAC=.88", ["--mem-fraction-static", "0.88"])],
)
def test_a_knob_key_written_as_a_variable_is_asked_back_as_its_flag(text: str, flag: list[str]) -> None:
    assert "set_env" not in rules_said(text)
    assert asked_back(text) is not None
    assert taken(text) == {"use_flags": [flag]}


def test_a_real_variable_is_still_set() -> None:
    assert taken("NCCL_DEBUG=INFO") == {"set_env": {"NCCL_DEBUG": "INFO"}}


def test_several_config_keys_on_one_line_are_one_each() -> None:
    assert taken("avoid_ports=30000,8080 use_port=30010") == {"avoid_ports": [8080, 30000], "use_port": 30010}
    assert taken("max_running=128 mem_frac=0.8 measure_again=yes") == {
        "use_flags": [["--max-running-requests", "128"], ["--mem-fraction-static", "0.8"]],
        "measure_again": True,
    }


# ------------------------------------------------------------------------------ classes, unread before


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("herstart de server en meet opnieuw", {"measure_again": True}),
        ("gpu 0 and 1 niet gebruiken. daar draait other stuff", {"avoid_gpus": [0, 1]}),
        ("mem fraction naar 0.85, it OOMs now", {"use_flags": [["--mem-fraction-static", "0.85"]]}),
        ("nee, geen cuda graph. disable it", {"use_flags": [["--disable-cuda-graph"]]}),
        ("gpus 2 t/m 5, tp=4 dp=1", {"use_gpus": [2, 3, 4, 5], "layout": {"tp": 4, "dp": 1}}),
        ("HF_HUB_OFFLINE=1 zetten, box has no internet", {"set_env": {"HF_HUB_OFFLINE": "1"}}),
        (
            "eerst NCCL_IB_DISABLE eruit halen. dan opnieuw meten",
            {"unset_env": ["NCCL_IB_DISABLE"], "measure_again": True},
        ),
        ("stop the server. niet opnieuw starten tot ik het zeg", {"stop_server": True, "no_relaunch": True}),
    ],
)
def test_dutch_instructions_are_read(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want


def test_a_dutch_not_no_table_places_keeps_its_clause_unread() -> None:
    """A verb the table lacks is never read without its "niet"."""
    assert taken("gpu 3 niet verplaatsen") == {}


@pytest.mark.parametrize(
    ("text", "kind"),
    [("ja doe maar", "approve"), ("ga maar verder met je eigen plan", "continue"), ("doe maar de tweede", "pick 2")],
)
def test_dutch_replies_are_read(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_stop_alles_stops() -> None:
    assert kind_of("stop alles, we zijn klaar voor vandaag") == "stop"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("dont use guy 3 its been throwing xid errors all nite\n*gpu", {"avoid_gpus": [3]}),
        ("to 4 dp 2\n*tp", {"layout": {"tp": 4, "dp": 2}}),
        ("kill the sever and DONT bring it back up\n*server", {"stop_server": True, "no_relaunch": True}),
    ],
)
def test_a_phone_correction_line_puts_the_word_back(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want


def test_a_correction_line_with_no_plain_match_changes_nothing() -> None:
    """Two words as near to the correction: which one was meant is not plain, so neither is swapped."""
    assert taken("use ab 3 and ac 4\n*ad") == {}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("disable cuds graph, capture keeps hanging", {"use_flags": [["--disable-cuda-graph"]]}),
        ("restart it on port 8080 with gpuss 0,1", {"use_port": 8080, "use_gpus": [0, 1]}),
        ("Run on GPS 4-7 only", {"use_gpus": [4, 5, 6, 7]}),
    ],
)
def test_a_slip_onto_the_key_beside_is_read(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want


def test_a_letter_from_across_the_board_is_another_word() -> None:
    assert kind_of("step") != "stop"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("set --mem-fraction-static to 0,85 and relaunch please", {"use_flags": [["--mem-fraction-static", "0.85"]]}),
        ("use gpus 0,1", {"use_gpus": [0, 1]}),
    ],
)
def test_a_decimal_comma_is_read_only_beside_a_fraction(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("**Action:** use port `31000` instead.", {"use_port": 31000}),
        ("TL;DR: use port 31000", {"use_port": 31000}),
        # since round 51, task boxes with an open one are asked about: a tick means "chosen" to one operator and
        # "done, by me" to another (agent.hearing.checklist)
        ("- [x] avoid gpu 3\n- [ ] chunked prefill 8192", {}),
    ],
)
def test_markdown_labels_and_task_boxes_are_framing(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want


@pytest.mark.parametrize(
    ("text", "kind"), [("**Not approved.** the number means nothing", "deny"), ("not approved", "deny")]
)
def test_not_approved_is_a_no(text: str, kind: str) -> None:
    assert kind_of(text, sign_off=True) == kind


@pytest.mark.parametrize(
    ("text", "sign_off", "kind"),
    [
        ("signoff=yes", True, "approve"),
        ("signoff=no", True, "deny"),
        ("step=1", False, "pick 1"),
        ("stop=all", False, "stop"),
    ],
)
def test_config_style_answers(text: str, sign_off: bool, kind: str) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("tp 4 on gpus 0-3, single replica", {"use_gpus": [0, 1, 2, 3], "layout": {"tp": 4, "dp": 1}}),
        ("needs trust-remote-code, its one of the deepseek checkpoints", {"use_flags": [["--trust-remote-code"]]}),
        (
            "use the local copy at /mnt/models/llama-70b instead of pulling from hub",
            {"use_model": "/mnt/models/llama-70b"},
        ),
        ("Again without GPU 7, please.", {"avoid_gpus": [7], "measure_again": True}),
        ("The server must go down now. Do not start it again until I say.", {"stop_server": True, "no_relaunch": True}),
        ("cap --max-running-requests 256", {"use_flags": [["--max-running-requests", "256"]]}),
    ],
)
def test_everyday_forms_from_the_sets(text: str, want: dict[str, Any]) -> None:
    assert taken(text) == want
