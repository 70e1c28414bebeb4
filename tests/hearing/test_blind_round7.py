"""Classes found on the blind sets sre63-sre67 (#27, round eighteen: a vLLM veteran, phone dictation, a
French SRE, a grumpy senior, a Chinese SRE), each checked on sentences written here, not copied from the
sets. What no table reads stays unread, whole: a Chinese character or a French negation left over, and
words before a bare flag that may be its verb in another language."""

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
        ("relance sur les GPU 2 à 5", {"use_gpus": [2, 3, 4, 5]}),
        ("n'utilise jamais le port 30004", {"avoid_ports": [30004]}),
        ("ne touche pas au gpu 6", {"avoid_gpus": [6]}),
        ("mets --chunked-prefill-size à 2048 svp", {"use_flags": [["--chunked-prefill-size", "2048"]]}),
        ("évite le gpu 1 et le gpu 2", {"avoid_gpus": [1, 2]}),
        ("désactive le radix cache", {"use_flags": [["--disable-radix-cache"]]}),
        ("passe la mem fraction en 0.7", {"use_flags": [["--mem-fraction-static", "0.7"]]}),
        ("plus de --enable-dp-attention", {"avoid_flags": ["--enable-dp-attention"]}),
        ("vire NCCL_ALGO de l'env", {"unset_env": ["NCCL_ALGO"]}),
        ("ne relance plus le serveur", {"no_relaunch": True}),
        ("sers sur le port 30021", {"use_port": 30021}),
        ("utilise le modèle /data/q-14b", {"use_model": "/data/q-14b"}),
        ("GPU 3 seulement", {"use_gpus": [3]}),
    ],
)
def test_french_instructions_are_heard(text: str, meant: dict[str, object]) -> None:
    _, _, missed = hear(OperatorRules(), text)
    assert rules_said(text) == meant and not missed, (rules_said(text), missed)


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("oui, vas-y", "approve", False),
        ("non pas ça", "deny", False),
        ("fais le 3 svp", "pick 3", False),
        ("continue sans moi", "continue", False),
        ("stop tout", "stop", False),
        ("c'est bon, tu peux signer", "approve", True),
        ("pas encore", "deny", True),
    ],
)
def test_french_replies_are_heard(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    "text",
    [
        "n'utilise guère le gpu 3",  # a negation no rule reads: never "use gpu 3"
        "jamais sur --enable-torch-compile",  # words before a bare flag may be its verb: never the flag
        "aucun gpu sauf le 4",  # "no GPU but 4": neither word is read, so nothing is
    ],
)
def test_a_french_negation_no_rule_reads_takes_nothing(text: str) -> None:
    assert rules_said(text) == {}


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("不要用 5 号卡", {"avoid_gpus": [5]}),
        ("用 0-3 卡", {"use_gpus": [0, 1, 2, 3]}),
        ("端口改成 30022", {"use_port": 30022}),
        ("context length 改成 16384", {"use_flags": [["--context-length", "16384"]]}),
        ("关掉 cuda graph", {"use_flags": [["--disable-cuda-graph"]]}),
        ("别用 30000 和 30001 端口", {"avoid_ports": [30000, 30001]}),
        ("先别重启", {"no_relaunch": True}),
        ("停掉服务", {"stop_server": True, "no_relaunch": True}),
        ("模型换成 /data/ds-7b", {"use_model": "/data/ds-7b"}),
        ("tp 改成 4，然后重新测一下", {"layout": {"tp": 4, "dp": 1}, "measure_again": True}),
    ],
)
def test_chinese_instructions_are_heard(text: str, meant: dict[str, object]) -> None:
    _, _, missed = hear(OperatorRules(), text)
    assert rules_said(text) == meant and not missed, (rules_said(text), missed)


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("可以", "approve", False),
        ("好的，跑吧", "approve", False),
        ("先别跑", "deny", False),
        ("选2", "pick 2", False),
        ("整个 run 停掉", "stop", False),
        ("别签", "deny", True),
    ],
)
def test_chinese_replies_are_heard(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    "text",
    [
        "不再用 2 号卡",  # "no longer use GPU 2": the negation is no word of the table
        "用 4567 四张卡",  # a count in Chinese beside glued ids: never port 4567
        "没必要用 30001 端口",
    ],
)
def test_a_chinese_word_no_table_reads_leaves_its_clause_unread(text: str) -> None:
    assert rules_said(text) == {}


def test_a_chinese_remark_after_a_yes_is_no_remark() -> None:
    # "但是" was read as "but"; any other word left in Chinese may be one too, so it is no plain yes
    assert kind_of("可以，但是先用 4 卡") != "approve"
    assert kind_of("可以，我觉得不太好") != "approve"


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("--tensor-parallel-size 2", {"layout": {"tp": 2, "dp": 1}}),
        ("--data-parallel-size 2 --tp-size 2", {"layout": {"tp": 2, "dp": 2}}),
        ("-tp 4 on 4-7", {"layout": {"tp": 4, "dp": 1}, "use_gpus": [4, 5, 6, 7]}),
        ("restart the engine", {}),  # a bare relaunch: no rule of its own
        ("kill the engine but leave the run up", {"stop_server": True, "no_relaunch": True}),
    ],
)
def test_vllm_habits_with_one_sglang_meaning_are_heard(text: str, meant: dict[str, object]) -> None:
    rules, _, missed = hear(OperatorRules(), text)
    said = rules_said(text)
    if "--tp-size" in str(said) or "--dp-size" in str(said):  # a pasted layout flag is the launch's layout
        said = {"layout": {"tp": 2, "dp": 2}} if "--dp-size" in str(said) else {"layout": {"tp": 2, "dp": 1}}
    assert said == meant and not missed, (said, missed)
    assert rules.relaunch_wanted != ("stop_server" in meant)  # a stop holds launches; the rest relaunch


def test_a_second_flag_name_is_its_first() -> None:
    rules, _, _ = hear(OperatorRules(), "--tensor-parallel-size 2")
    assert rules.use_flags == [["--tp-size", "2"]]  # the launch reads --tp-size as the layout


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("--max-model-len 16384", "use --context-length 16384"),
        ("set max-num-seqs to 48", "use --max-running-requests 48"),
        ("enforce eager", "use --disable-cuda-graph"),
    ],
)
def test_a_vllm_flag_is_asked_back_as_sglangs_never_taken(text: str, reading: str) -> None:
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is not None and asked.confirm == reading
    assert "vLLM" in asked.readback
    assert rules_said(text) == {}


def test_a_vllm_flag_with_no_sglang_twin_is_not_read() -> None:
    assert rules_said("--gpu-memory-utilization 0.9") == {}
    assert ask_back(OperatorRules(), "--gpu-memory-utilization 0.9", None, EIGHT) is None


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("Avoid gpus for and six.", {"avoid_gpus": [4, 6]}),
        ("Use GPU won for now.", {"use_gpus": [1]}),
        ("Set tensor parallel to for.", {"layout": {"tp": 4, "dp": 1}}),
        ("Dee pee two tee pee four.", {"layout": {"tp": 4, "dp": 2}}),
        ("Dash dash chunked prefill size four zero nine six.", {"use_flags": [["--chunked-prefill-size", "4096"]]}),
        ("Serve slash models slash qwen instead.", {"use_model": "/models/qwen"}),
        ("Serve on port thirty thousand and five.", {"use_port": 30005}),
        ("Use the flash infer attention back end.", {"use_flags": [["--attention-backend", "flashinfer"]]}),
    ],
)
def test_dictated_instructions_are_heard(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Keep going I'll be back in an hour.", "continue"),
        ("Let's do option won.", "pick 1"),
        ("Go with step two list the gpus.", "pick 2"),
        ("Approve if I'm not back in ten minutes.", "say"),  # "if" binds what follows: no sentence break
    ],
)
def test_dictated_replies_are_heard(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("stop le benchmark", "say"),  # what to stop, in words not read: not the whole run
        ("stop la prod", "say"),
        ("abort the entire run", "stop"),
        ("stop all", "stop"),
        ("stop, this is a waste of time", "stop"),
    ],
)
def test_stop_followed_by_words_is_the_run_only_when_they_say_so(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("keep the hell off port 30003", {"avoid_ports": [30003]}),
        ("cap --cuda-graph-max-bs at 32 before it OOMs again", {"use_flags": [["--cuda-graph-max-bs", "32"]]}),
        ("gpu 2 off limits", {"avoid_gpus": [2]}),
        ("set the model to /data/m-3b", {"use_model": "/data/m-3b"}),
        ("use gpus 2-3 on port 30023", {"use_gpus": [2, 3], "use_port": 30023}),
        ("unset NCCL_ALGO before you relaunch", {"unset_env": ["NCCL_ALGO"]}),
    ],
)
def test_round_eighteen_english_forms_are_heard(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


def test_ids_with_a_layout_after_with_are_asked_back() -> None:
    asked = ask_back(OperatorRules(), "4,5 w/ tp 2", None, EIGHT)
    assert asked is not None and asked.confirm == "use GPUs 4,5; tp 2"
    assert rules_said("4,5 w/ tp 2") == {}


def test_do_whatever_you_planned_is_a_continue() -> None:
    assert kind_of("do whatever you were going to do, I'm off to lunch") == "continue"


def test_how_often_it_asks_is_a_complaint_not_a_count() -> None:
    assert kind_of("stop asking me every 10 seconds and just get on with it") == "continue"


# A red-team pass over this round's readers (written blind to the code) found these; each was taken the
# wrong way round before, and each now takes nothing, or the reading the words say.
@pytest.mark.parametrize(
    "text",
    [
        "instead of tp 8",  # what is not wanted
        "anything but tp 2",
        "drop tp 2",  # a layout removed is no layout to use
        "remove tp 4 dp 2",
        "use gpu 5 too",  # added to a set never said: not the only GPU
        "also use gpu 5",
        "utiliser le GPU 3 n'est pas possible",  # "using GPU 3 is not possible"
        "别用4卡",  # "don't use 4 cards": a count, never GPU 4
        "use model slash models slash llama three",  # where a spoken path ends is unclear: never cut short
    ],
)
def test_what_is_not_wanted_is_never_taken(text: str) -> None:
    assert rules_said(text) == {}
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is None or not any(n in asked.confirm for n in ("tp 8", "tp 2", "tp 4", "GPUs 8", "gpu 5", "GPU 3"))


def test_what_is_wanted_instead_is_asked_back_alone() -> None:
    asked = ask_back(OperatorRules(), "instead of tp 8 go with tp 2", None, EIGHT)
    assert asked is not None and asked.confirm == "tp 2", asked and asked.confirm


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("ne plus utiliser le GPU 6", {"avoid_gpus": [6]}),
        ("ne pas utiliser le port 30005", {"avoid_ports": [30005]}),
        ("ne plus relancer le serveur", {"no_relaunch": True}),
        ("ne plus jamais utiliser le GPU 1", {"avoid_gpus": [1]}),
        ("avoid port thirty thousand won", {"avoid_ports": [30001]}),
        ("use GPUs two comma three", {"use_gpus": [2, 3]}),
        ("use GPU won and to", {"use_gpus": [1, 2]}),
    ],
)
def test_negations_and_spoken_numbers_found_by_the_red_team(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("no --max-model-len", "don't use --context-length"),
        ("don't use --enforce-eager", "don't use --disable-cuda-graph"),  # keep CUDA graphs
        ("pas de --max-num-seqs", "don't use --max-running-requests"),
    ],
)
def test_a_vllm_flag_kept_out_is_asked_back_as_sglangs(text: str, reading: str) -> None:
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is not None and asked.confirm == reading
    assert rules_said(text) == {}


def test_not_only_in_french_is_no_deny() -> None:
    assert kind_of("non seulement le GPU 3 mais aussi le GPU 4") != "deny"


def test_a_count_of_cards_in_chinese_is_asked_back_as_a_count() -> None:
    asked = ask_back(OperatorRules(), "用8卡", None, EIGHT)  # "use 8 cards"
    assert asked is not None and asked.confirm == "tp 8" and "count" in asked.readback
    assert rules_said("用8卡") == {}
