"""Classes found on the blind sets sre78-sre82 (#27, round twenty-one: a Hinglish-typing SRE, an SRE who
answers with pasted commands and JSON, a Spanish SRE, an ultra-terse phone operator, a manager covering
on-call), each checked on sentences written here, not copied from the sets. The misreads among them: a
Hindi "mat" (don't) dropped, a question mark taken as part of a value, a pasted JSON object cut in
half, "the mem fraction one" read as the value 1, a restart taken without the setting said with it."""

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
        ("gpu 5 mat use karo", {"avoid_gpus": [5]}),  # the verb and its "don't" said last
        ("--enable-torch-compile mat daalna bhai", {"avoid_flags": ["--enable-torch-compile"]}),
        ("sirf gpu 0-3 use karo", {"use_gpus": [0, 1, 2, 3]}),
        ("tp 2 krdo", {"layout": {"tp": 2, "dp": 1}}),
        ("cuda graph band karo", {"use_flags": [["--disable-cuda-graph"]]}),
        ("2,3 pe tp2 se relaunch karo", {"use_gpus": [2, 3], "layout": {"tp": 2, "dp": 1}}),
        ("30020 pe serve karo", {"use_port": 30020}),
        (
            "NCCL_DEBUG=INFO aur NCCL_P2P_DISABLE=1 set karo",
            {"set_env": {"NCCL_DEBUG": "INFO", "NCCL_P2P_DISABLE": "1"}},
        ),
        ("server band karo, run chalne do", {"stop_server": True, "no_relaunch": True}),
        ("gpu 4 ko haath mat lagana", {"avoid_gpus": [4]}),
    ],
)
def test_hinglish_is_turned_round_before_it_is_read(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    "text",
    [
        "gpu 2 pe kya chal raha hai?",  # a question, never "use GPU 2"
        "radix cache mat",  # a "don't" with no verb: unread
        "tp 4 nahi chalega shayad",
    ],
)
def test_hinglish_left_unread_takes_nothing(text: str) -> None:
    assert rules_said(text) == {}
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is None or "tp 4" not in asked.confirm


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("haan chalao", "approve", False),
        ("nahi, abhi sign off mat karo", "deny", True),
        ("1 karo", "pick 1", False),
    ],
)
def test_hinglish_replies(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("non usare le gpu 1 e 2", {"avoid_gpus": [1, 2]}),
        ("riavvia sulle gpu 4-7 con tp 4", {"use_gpus": [4, 5, 6, 7], "layout": {"tp": 4, "dp": 1}}),
        ("disabilita il radix cache", {"use_flags": [["--disable-radix-cache"]]}),
        ("niente --disable-cuda-graph", {"avoid_flags": ["--disable-cuda-graph"]}),
        ("ferma il server ma non chiudere la run", {"stop_server": True, "no_relaunch": True}),
        ("max running requests a 32", {"use_flags": [["--max-running-requests", "32"]]}),
    ],
)
def test_italian_words_are_read(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("agrega --enable-dp-attention", {"use_flags": [["--enable-dp-attention"]]}),
        ("tumba el servidor pero no pares el run", {"stop_server": True, "no_relaunch": True}),
        ("reinicia el servidor con tp 2", {"layout": {"tp": 2, "dp": 1}}),
        ("nada de --enable-torch-compile", {"avoid_flags": ["--enable-torch-compile"]}),
    ],
)
def test_spanish_words_are_read(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize("text", ["quizás sin radix cache, no sé", "tal vez tp 8"])
def test_a_spanish_maybe_takes_nothing(text: str) -> None:
    assert rules_said(text) == {}


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        (
            '{"env": {"NCCL_DEBUG": "INFO", "NCCL_IB_DISABLE": "1"}}',
            {"set_env": {"NCCL_DEBUG": "INFO", "NCCL_IB_DISABLE": "1"}},
        ),
        ('```json\n{"tp": 4, "dp": 2}\n```', {"layout": {"tp": 4, "dp": 2}}),
        ('{"disable_radix_cache": true}', {"use_flags": [["--disable-radix-cache"]]}),
        (
            "CUDA_VISIBLE_DEVICES=0,1 python -m sglang.launch_server --tp 2 --port 30011",
            # a pasted "--tp 2" stays a flag the launch takes its layout from (agent.hearing.instructions)
            {"use_gpus": [0, 1], "use_flags": [["--tp-size", "2"]], "use_port": 30011},
        ),
        ("env -u NCCL_DEBUG python -m sglang.launch_server ...", {"unset_env": ["NCCL_DEBUG"]}),
    ],
)
def test_a_pasted_object_or_launch_line_is_read_whole(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    "text",
    [
        "NCCL_IB_DISABLE=1?",  # a question, never a value "1?"
        "don't run python -m sglang.launch_server --tp 8",  # the line refused whole
        "last time python -m sglang.launch_server --disable-cuda-graph hung",
        "set the memory setting to 0.8. The mem fraction one.",  # "one" names a setting, never the value 1
        "restart it with the memory thing at 0.85",  # the setting is the restart's: never a bare restart
        "port 30005 why?",
        "on gpu 6 what is going on?",
    ],
)
def test_what_only_looks_like_a_setting_is_never_taken_nor_asked_back_wrong(text: str) -> None:
    assert rules_said(text) == {}
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is None, asked.confirm


def test_a_polite_request_read_in_part_is_asked_back() -> None:
    # "Could" is no maybe: the request read is asked back (for the "zzz" beside it), not taken
    asked = ask_back(OperatorRules(), "Could you set NCCL_DEBUG=WARN and restart it? thx zzz", None, EIGHT)
    assert asked is not None and asked.confirm == "set NCCL_DEBUG=WARN; restart it"


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("relaunch 0-3 tp4", {"use_gpus": [0, 1, 2, 3], "layout": {"tp": 4, "dp": 1}}),
        ("port 8001 not 30000", {"use_port": 8001, "avoid_ports": [30000]}),
        ("no 30002/30003", {"avoid_ports": [30002, 30003]}),
        ("gpu5 borked skip it", {"avoid_gpus": [5]}),
        ("disable cuda graf", {"use_flags": [["--disable-cuda-graph"]]}),
        ("gpus 4-7 olny", {"use_gpus": [4, 5, 6, 7]}),
        ("don't ever use gpu 2, it overheats", {"avoid_gpus": [2]}),
    ],
)
def test_terse_forms(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


def test_bounce_alone_is_the_servers_relaunch() -> None:
    _, heard, missed = hear(OperatorRules(), "bounce + rerun bench")
    assert missed == [] and len(heard) == 2, (heard, missed)


def test_numbers_at_sentence_ends_are_no_numbered_list() -> None:
    # "3." and "5." end sentences: a numbered list counts up from 1, these never lose their numbers
    assert rules_said("use gpus 2, 3. never gpu 5. thanks") == {"use_gpus": [2, 3], "avoid_gpus": [5]}
    assert rules_said("1) stop the server 2) do not relaunch") == {"stop_server": True, "no_relaunch": True}


def test_a_bare_not_beside_a_layout_is_no_gpu() -> None:
    # "not 4" after "tp 8" speaks of the layout: never "keep GPU 4 out"
    assert rules_said("tp 8. not 4. EIGHT.") == {"layout": {"tp": 8, "dp": 1}}
    asked = ask_back(OperatorRules(), "not 5", None, EIGHT)
    assert asked is not None and asked.confirm == "don't use GPUs 5"


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("👍", "approve", False),
        ("❌", "deny", False),
        ("ya", "approve", False),
        ("wfm", "approve", True),
        ("hold, not yet", "deny", True),
        ("no wait, don't sign off", "deny", True),
        ("jeje ok", "say", False),  # a laugh before a yes is no yes, in Spanish too
        ("Hmm, I'd rather we didn't sign off just yet.", "deny", True),
        ("Please end the whole run, I'm off and I don't want anything running unattended.", "stop", False),
        ("kill the whole run, not the server", "say", False),  # a "not" that changes what stops
        ("Could you do number 2 please, the one that prints the cards?", "pick 2", False),
    ],
)
def test_terse_and_polite_replies(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("I'd rather we didn't use card 3, it's someone else's.", {"avoid_gpus": [3]}),
        ("Please don't touch graphics cards 1 and 2 at all.", {"avoid_gpus": [1, 2]}),
        (
            "Please split the model across four cards, using cards 0, 1, 2 and 3.",
            {"use_gpus": [0, 1, 2, 3], "layout": {"tp": 4, "dp": 1}},
        ),
        ("Please take the NCCL_DEBUG setting out of the environment.", {"unset_env": ["NCCL_DEBUG"]}),
        ("Please cap it at 32 running requests at a time.", {"use_flags": [["--max-running-requests", "32"]]}),
        ("Please serve it on port 8001 and not on 30000.", {"use_port": 8001, "avoid_ports": [30000]}),
    ],
)
def test_a_managers_plain_words(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant
