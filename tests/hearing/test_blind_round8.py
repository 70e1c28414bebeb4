"""Classes found on the blind sets sre68-sre72 (#27, round nineteen: a Brazilian SRE, a lead writing short
letters, a constraint-minded SRE, a phone's autocorrect, a new grad thinking aloud), each checked on
sentences written here, not copied from the sets. Safety first: a negation in another language keeps its
clause unread, what hangs on an unread condition is not taken, and a setting pasted after a question is
asked about, not used."""

from __future__ import annotations

import pytest
from hearing_testkit import kind_of, rules_said

from agent.hearing.heed import ask_back
from agent.hearing.instructions import hear
from agent.state import OperatorRules

EIGHT = list(range(8))


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("não usa a porta 30007", {"avoid_ports": [30007]}),
        ("desliga o cuda graph", {"use_flags": [["--disable-cuda-graph"]]}),
        ("reinicia nas GPUs 2 a 5", {"use_gpus": [2, 3, 4, 5]}),
        ("coloca --chunked-prefill-size 2048 pfv", {"use_flags": [["--chunked-prefill-size", "2048"]]}),
        ("usa so as gpus 0-1", {"use_gpus": [0, 1]}),
        ("sobe na porta 30024", {"use_port": 30024}),
        ("tira o NCCL_ALGO do env", {"unset_env": ["NCCL_ALGO"]}),
        ("evita gpu 4 e 6", {"avoid_gpus": [4, 6]}),
        ("nao relanca ainda", {"no_relaunch": True}),
    ],
)
def test_portuguese_instructions_are_heard(text: str, meant: dict[str, object]) -> None:
    _, _, missed = hear(OperatorRules(), text)
    assert rules_said(text) == meant and not missed, (rules_said(text), missed)


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("sim, pode rodar", "approve", False),
        ("não, deixa pra lá", "deny", False),
        ("faz o 3", "pick 3", False),
        ("segue com o teu plano", "continue", False),
        ("sim, pode fechar. valeu!", "approve", True),
    ],
)
def test_portuguese_replies_are_heard(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    "text",
    [
        "bitte nicht restart",
        "niet use tp 4",  # Dutch
        "nao mexe, use gpu 3 only if free",
        "mai use gpu 5",  # Italian "never"
    ],
)
def test_a_negation_of_another_language_keeps_its_clause_unread(text: str) -> None:
    assert rules_said(text) == {}


def test_a_german_not_before_an_english_use_is_read_as_dont_use() -> None:
    # round 35's German word table places "nicht use" (it was left unread here): never "use gpu 3"
    assert rules_said("nicht use gpu 3") == {"avoid_gpus": [3]}


def test_valeu_beside_an_english_no_is_still_a_no() -> None:
    # a Portuguese word in the message must not turn the English "no gpu 3" into "on gpu 3"
    assert rules_said("valeu, no gpu 3 please") == {"avoid_gpus": [3]}


@pytest.mark.parametrize(
    "text",
    [
        "if the eval job is done, you can take GPUs 2-3",
        "as long as nobody is on it, use port 30009",
        "once the driver update lands, switch to tp 4",
    ],
)
def test_what_hangs_on_a_condition_is_never_taken(text: str) -> None:
    assert rules_said(text) == {}


@pytest.mark.parametrize(
    "text", ["is this the right one? --disable-radix-cache", "would that help? NCCL_P2P_DISABLE=1"]
)
def test_a_setting_pasted_after_a_question_is_not_taken(text: str) -> None:
    assert rules_said(text) == {}


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("Don’t use port 30008", {"avoid_ports": [30008]}),  # a curly apostrophe
        ("Add —cuda-graph-max-bs 32", {"use_flags": [["--cuda-graph-max-bs", "32"]]}),  # "--" as an em dash
        ("Never pass —quantization", {"avoid_flags": ["--quantization"]}),
        ("Relaunch on 0-1 with tip 2", {"use_gpus": [0, 1], "layout": {"tp": 2, "dp": 1}}),
        ("Tip4dip2", {"layout": {"tp": 4, "dp": 2}}),
        ("Disable Cuba graph", {"use_flags": [["--disable-cuda-graph"]]}),
        ("KB cache dtype fo8_e4m3", {"use_flags": [["--kv-cache-dtype", "fp8_e4m3"]]}),
        ("Set Nccl_IB_DISABLE=1", {"set_env": {"NCCL_IB_DISABLE": "1"}}),
        ("Set NCCL_DEBUG to “WARN”", {"set_env": {"NCCL_DEBUG": "WARN"}}),
        ("Quantization FP8", {"use_flags": [["--quantization", "fp8"]]}),
        ("Serve /models/x-Instruct-FP8", {"use_model": "/models/x-Instruct-FP8"}),  # never lowered in a path
    ],
)
def test_autocorrected_words_are_heard_where_plain(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize("text", ["Turn off the KB thing", "Slang dip tip", "Use the Cuba thing from before"])
def test_autocorrected_words_alone_stay_unread(text: str) -> None:
    assert rules_said(text) == {}


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("Hi,\nPlease serve on port 30025.\nThanks, Dana", {"use_port": 30025}),
        (
            "Hello team,\nMake sure --enable-torch-compile is not passed.\nBest, R.",
            {"avoid_flags": ["--enable-torch-compile"]},
        ),
        ("Please use GPUs 2 and 6 with dp 2 (tp 1).", {"use_gpus": [2, 6], "layout": {"tp": 1, "dp": 2}}),
        ("Please go to --mem-fraction-static 0.75", {"use_flags": [["--mem-fraction-static", "0.75"]]}),
        ("launch only on GPUs 2-3", {"use_gpus": [2, 3]}),
    ],
)
def test_a_letter_is_read_by_its_body(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("Hi,\nPlease abort the whole run.\nRegards, K.", "stop", False),
        ("Hi,\nLet's do 3 first. I'd like to see the log before anything else.\nBest, M.", "pick 3", False),
        ("hold off on signing off, the numbers need a second look", "deny", True),
        ("end the entire run now, not just the server", "stop", False),
    ],
)
def test_round_nineteen_replies_are_heard(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


def test_a_pick_whose_remark_names_another_step_is_words_to_read() -> None:
    assert kind_of("do 2, i want to see gpu 3 before anything") == "say"


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("any gpus are fine other than 1 and 4", {"avoid_gpus": [1, 4]}),
        ("any port other than 30000", {"avoid_ports": [30000]}),
        (
            "--quantization fp8 but do NOT pass --context-length",
            {"use_flags": [["--quantization", "fp8"]], "avoid_flags": ["--context-length"]},
        ),
        ("no torch compile unless I say so", {"avoid_flags": ["--enable-torch-compile"]}),
        ("disable radix cache until we figure out the hit rate", {"use_flags": [["--disable-radix-cache"]]}),
        ("since gpu 6 is hot, let's not use it", {"avoid_gpus": [6]}),
        ("trust remote code", {"use_flags": [["--trust-remote-code"]]}),
        ("keep it at tp4", {"layout": {"tp": 4, "dp": 1}}),
    ],
)
def test_round_nineteen_english_forms_are_heard(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


def test_a_condition_then_an_instruction_is_asked_back_never_taken() -> None:
    text = "if 30011 is free, serve on port 30011"
    rules, _, missed = hear(OperatorRules(), text)
    assert rules.use_port is None and missed
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is None or "If" in asked.readback or "if" in asked.readback
