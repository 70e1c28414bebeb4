"""Québécois French mixed with English (the blind set sre96, a Montréal SRE), read by class in
agent/hearing/french.py and checked on sentences written here: the "ne" spoken French drops ("touche pas
au port 8000"), "pis" for "and", "juste" for "only", "roule" for "run", "ferme le serveur", a pronoun
joined to its verb ("relance-le"), "vas-y avec", "à la place", "il faut --x", "en tp 4". A negation no
rule places stays unread, whole: never an order to do what the operator forbade."""

from __future__ import annotations

import pytest
from hearing_testkit import kind_of, rules_said

from agent.hearing import french
from agent.hearing.heed import ask_back
from agent.state import OperatorRules


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        # the "ne" dropped: "VERB pas" is "don't VERB" where the verb leads its clause
        ("utilise pas le GPU 5", {"avoid_gpus": [5]}),
        ("touche pas aux GPUs 6 à 7", {"avoid_gpus": [6, 7]}),
        ("touche pas au port 30000, il est pris", {"avoid_ports": [30000]}),
        ("active pas --enable-torch-compile", {"avoid_flags": ["--enable-torch-compile"]}),
        ("utilise pas de --disable-radix-cache", {"avoid_flags": ["--disable-radix-cache"]}),
        ("relance pas encore", {"no_relaunch": True}),
        ("redémarre pas tout de suite", {"no_relaunch": True}),
        # "pis" is "and", and a pronoun before the verb is its object: "pis le relance pas"
        ("arrête le serveur pis le relance pas", {"stop_server": True, "no_relaunch": True}),
        ("évite le 2 pis le 5", {"avoid_gpus": [2, 5]}),
        ("mais pas le GPU 4", {"avoid_gpus": [4]}),
        ("utilise juste le GPU 5", {"use_gpus": [5]}),
        ("prends juste les GPUs 2 à 5", {"use_gpus": [2, 3, 4, 5]}),
        ("mets-le sur le port 30005", {"use_port": 30005}),
        ("mets-le sur les GPUs 0 à 3", {"use_gpus": [0, 1, 2, 3]}),
        ("relance-le avec --context-length 8192", {"use_flags": [["--context-length", "8192"]]}),
        ("vas-y avec tp 2", {"layout": {"tp": 2, "dp": 1}}),
        ("ça prend --trust-remote-code", {"use_flags": [["--trust-remote-code"]]}),
        ("il faut --trust-remote-code pour ce modèle", {"use_flags": [["--trust-remote-code"]]}),
        ("quantize en fp8", {"use_flags": [["--quantization", "fp8"]]}),
        ("GPUs 4,5 en tp 2", {"use_gpus": [4, 5], "layout": {"tp": 2, "dp": 1}}),
        ("switch au modèle dans /models/qwen-7b", {"use_model": "/models/qwen-7b"}),
        ("passe au modèle /models/llama-8b", {"use_model": "/models/llama-8b"}),
        ("change le port pour 30020", {"use_port": 30020}),
        ("roule le bench encore une fois", {"measure_again": True}),
        ("ferme le serveur", {"stop_server": True, "no_relaunch": True}),
    ],
)
def test_quebec_instructions_are_heard(text: str, rules: dict[str, object]) -> None:
    assert rules_said(text) == rules


def test_a_model_served_instead_is_asked_back() -> None:
    """'à la place' is 'instead': the model is asked back, as an English 'serve X instead' is."""
    asked = ask_back(OperatorRules(), "sers Qwen/Qwen2.5-7B-Instruct à la place", None, list(range(8)))
    assert asked is not None and asked.confirm is not None and "Qwen/Qwen2.5-7B-Instruct" in asked.confirm


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("ok je signe, bon travail", "approve", True),
        ("je signe. bonne job", "approve", True),
        ("pas tout de suite", "deny", True),
        ("signe pas", "deny", True),
        ("keep going avec tes étapes", "continue", False),
        ("go avec ton plan", "continue", False),
        ("roule le 3", "pick 3", False),
        ("vas-y avec tes steps", "continue", False),
    ],
)
def test_quebec_replies(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    ("text", "order", "rules"),
    [
        # each beside the order it must not be mistaken for, which is heard
        ("le serveur relance pas", "relance pas", {"no_relaunch": True}),  # a fact about the server
        ("il utilise pas le GPU 3", "utilise pas le GPU 3", {"avoid_gpus": [3]}),
        ("utilise pas juste le GPU 3", "utilise juste le GPU 3", {"use_gpus": [3]}),  # "not only 3"
        ("utilise pas plus de 4 GPUs", "utilise pas le GPU 4", {"avoid_gpus": [4]}),  # "no more than 4"
        ("faut pas --trust-remote-code", "faut --trust-remote-code", {"use_flags": [["--trust-remote-code"]]}),
        (
            "il faut pas utiliser --enable-torch-compile",
            "il faut --enable-torch-compile",
            {"use_flags": [["--enable-torch-compile"]]},
        ),
        ("relance-le pas", "le relance pas", {"no_relaunch": True}),
        ("évite pas le GPU 3", "touche pas au GPU 3", {"avoid_gpus": [3]}),  # "don't avoid": neither is taken
        ("relance pas?", "relance pas.", {"no_relaunch": True}),
        ("touche pas à rien", "touche pas au port 30000", {"avoid_ports": [30000]}),
        # a word that takes away: what it takes is never a GPU to use
        ("garde juste le GPU 3 de côté", "prends juste le GPU 3", {"use_gpus": [3]}),
        ("vas-y avec le GPU 3 en moins", "vas-y avec les GPUs 0 à 3", {"use_gpus": [0, 1, 2, 3]}),
        ("utilise tout à part le GPU 3", "utilise pas le GPU 3", {"avoid_gpus": [3]}),
        # English reads "don't relaunch on GPU 3" as GPU 3 to use, "don't X with tp 8" as tp 8 to use
        ("relance pas sur le GPU 3", "relance pas", {"no_relaunch": True}),
        ("ne relance pas sur le GPU 3", "ne relance pas tout de suite", {"no_relaunch": True}),
        ("ne pas relancer avec tp 8", "ne le relance pas encore", {"no_relaunch": True}),
        ("relance pas le serveur sur les GPUs 0 à 3", "le relance pas", {"no_relaunch": True}),
        (
            "n'active jamais --enable-torch-compile avec tp 8",
            "active pas --enable-torch-compile",
            {"avoid_flags": ["--enable-torch-compile"]},
        ),
    ],
)
def test_a_french_negation_never_turns_into_an_order(text: str, order: str, rules: dict[str, object]) -> None:
    """What a negation forbids is never read as an order, and no setting after it is taken."""
    assert rules_said(order) == rules
    assert rules_said(text) == {}
    asked = ask_back(OperatorRules(), text, None, list(range(8)))
    assert asked is None or not asked.confirm


@pytest.mark.parametrize(
    "text",
    [
        "je signe?",
        "je signe pas tout de suite",
        "je signe quand le p99 est bon",
        "quand le p99 est stable, je signe",  # a condition: "je signe" only said first or after a yes is one
        "si c'est stable, je signe, merci",
        "avant que je signe, dis-moi le p99",
    ],
)
def test_a_french_question_or_condition_is_no_sign_off(text: str) -> None:
    assert kind_of("je signe", sign_off=True) == "approve"
    assert kind_of(text, sign_off=True) != "approve"


@pytest.mark.parametrize(
    ("text", "french_one", "read"),
    [
        ("go with tp 4 pis", "évite le 2 pis le 5", "avoid 2 and 5"),
        ("just use gpus 4-7", "utilise juste les gpus 4 à 7", "use only gpus 4-7"),
        ("the PIs said port 30000 is fine", "touche pas au port 30000", "don't touch port 30000"),
        ("change the port to 30010 en route", "change le port pour 30010", "change port to 30010"),
    ],
)
def test_an_english_message_with_a_word_french_shares_is_left_as_it_was(text: str, french_one: str, read: str) -> None:
    """Only a word no English sentence has marks a message as French: 'pis', 'go', 'port' do not."""
    assert french.in_english(french_one) == read
    assert french.in_english(text) == text
