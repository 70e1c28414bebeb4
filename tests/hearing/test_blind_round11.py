"""Classes found on the blind sets sre83-sre87 (#27, round twenty-two: a Russian SRE, an Indonesian SRE, a
senior who writes long messages, a compliance-minded lead who writes in policy language, an SRE whose
English is a second language), each checked on sentences written here, not copied from the sets. The
misreads among them: a must-not said after its subject ("Port 30000 shall not be used", "--x must not
be passed", "port 30000 jangan dipake") taken as a must, a restart taken without the setting said after
a word the grammar does not know ("restart pakai tp 4"), a relaunch "accordingly" taken alone."""

from __future__ import annotations

import pytest
from hearing_testkit import kind_of, rules_said

from agent.hearing.heed import ask_back
from agent.state import OperatorRules

EIGHT = list(range(8))


@pytest.mark.parametrize(
    "text",
    [
        "Port 30002 shall not be used.",  # the must-not said after its subject: never "use port 30002"
        "--enable-torch-compile must not be passed.",
        "tp 8 it doesn't fit",  # a "not" right after the setting turns it: never taken
        "gpu 4 that one isn't ours",
        "port 30003 jangan dipakai dulu ya",
        "--disable-radix-cache убери совсем",
        "restart pakai tp 4 kalau bisa",  # the layout said after an unknown word, and a condition: unread
        "The config was changed on the host. Relaunch accordingly.",  # "accordingly" hangs on words unread
    ],
)
def test_a_must_not_said_after_its_subject_is_never_read_as_a_must(text: str) -> None:
    rules = rules_said(text)
    assert "use_port" not in rules and "use_flags" not in rules and "layout" not in rules, rules
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert (
        asked is None
        or not any(word in asked.confirm for word in ("port 3000", "--enable-torch", "--disable-radix", "tp 4", "tp 8"))
        or asked.confirm.startswith(("never", "don't", "avoid"))
    ), asked.confirm


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("Under no circumstances is GPU 6 to be used.", {"avoid_gpus": [6]}),
        ("Ports 30004 and 30005 are not permitted.", {"avoid_ports": [30004, 30005]}),
        ("Port 30007 shall not be used by this deployment.", {"avoid_ports": [30007]}),
        ("The use of GPU 2 is prohibited until further notice.", {"avoid_gpus": [2]}),
        ("--enable-dp-attention is not approved on this host.", {"avoid_flags": ["--enable-dp-attention"]}),
        ("The server shall be restarted with a tensor parallel size of 2.", {"layout": {"tp": 2, "dp": 1}}),
        ("The server must listen on port 30123.", {"use_port": 30123}),
        ("--chunked-prefill-size shall be set to 2048.", {"use_flags": [["--chunked-prefill-size", "2048"]]}),
        ("NCCL_DEBUG shall be unset.", {"unset_env": ["NCCL_DEBUG"]}),
        ("The deployment shall be confined to GPUs 0 through 3.", {"use_gpus": [0, 1, 2, 3]}),
        (
            "The server shall be stopped and is not to be relaunched until I say so.",
            {"stop_server": True, "no_relaunch": True},
        ),
        ("The benchmark is to be re-run.", {"measure_again": True}),
        ("The model path is amended to /models/mistral-7b-instruct.", {"use_model": "/models/mistral-7b-instruct"}),
    ],
)
def test_policy_language_is_read_as_the_rule_it_states(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("Request denied.", "deny", False),
        ("Approval withheld pending a second benchmark.", "deny", True),
        ("Option 3 is selected.", "pick 3", False),
        ("You are authorised to proceed.", "approve", False),
        ("This session is terminated.", "stop", False),
    ],
)
def test_policy_language_replies(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("jangan pake GPU 1", {"avoid_gpus": [1]}),
        ("cuma gpu 4-7 aja", {"use_gpus": [4, 5, 6, 7]}),
        ("matiin servernya, jangan start lagi sampe gw bilang", {"stop_server": True, "no_relaunch": True}),
        ("tambahin --enable-torch-compile", {"use_flags": [["--enable-torch-compile"]]}),
        ("не трогай GPU 5", {"avoid_gpus": [5]}),
        ("перезапусти с tp 2", {"layout": {"tp": 2, "dp": 1}}),
        ("порты 30000 и 30001 не юзай", {"avoid_ports": [30000, 30001]}),
        ("ne trogai gpu 6 i 7", {"avoid_gpus": [6, 7]}),
    ],
)
def test_indonesian_and_russian_words_are_read(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


def test_a_must_not_carried_over_a_comma_to_a_port_is_asked() -> None:
    # "gpu 2 jgn, port 30009": the port refused too, or the one to use? Never taken either way
    assert rules_said("gpu 2 jgn, port 30009") == {"avoid_gpus": [2]}
    assert rules_said("don't use gpu 2, port 30009") == {"avoid_gpus": [2]}
    assert rules_said("don't use gpu 2 and port 30009") == {"avoid_gpus": [2], "avoid_ports": [30009]}


@pytest.mark.parametrize("text", ["не трогай третью карту", "GPU 3 не очень", "gpu 3 gak tau deh"])
def test_words_of_those_languages_left_unread_take_nothing(text: str) -> None:
    assert rules_said(text) == {}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("iya lanjut", "approve"),
        ("jangan dulu", "deny"),
        ("да, давай", "approve"),
        ("нет", "deny"),
        ("сделай 2", "pick 2"),
    ],
)
def test_indonesian_and_russian_replies(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("put the context length on 16384 please", {"use_flags": [["--context-length", "16384"]]}),
        ("attention backend make it fa3", {"use_flags": [["--attention-backend", "fa3"]]}),
        ("for gpu 1 don't touching", {"avoid_gpus": [1]}),
        ("gpu 3 and 4 not use, they are broken", {"avoid_gpus": [3, 4]}),
        ("not pass --disable-cuda-graph never", {"avoid_flags": ["--disable-cuda-graph"]}),
        ("run again the benchmark please", {"measure_again": True}),
        ("use gpu 4 until 7", {"use_gpus": [4, 5, 6, 7]}),
        ("the port 8081 never use it", {"avoid_ports": [8081]}),
        ("radix cache disable", {"use_flags": [["--disable-radix-cache"]]}),
        ("keep gpu 2 out of everything from now on", {"avoid_gpus": [2]}),
        ("relaunch on gpus 0, 1 and 2 at tp 1", {"use_gpus": [0, 1, 2], "layout": {"tp": 1, "dp": 1}}),
    ],
)
def test_second_language_forms(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("we read the topology an hour ago and nothing moved since. so no, don't run it again.", "deny", False),
        ("the log is the quickest way to see what happened last night. do 3.", "pick 3", False),
        ("p99 was all over the place in the last hour. don't sign off yet.", "deny", True),
        # a sentence before the answer that is an answer or an instruction of its own: words to read
        ("kill the stuck python process on gpu 3. approve.", "say", False),
        ("use port 30001. approve.", "say", False),
        ("if the log is clean then. approve.", "say", False),
    ],
)
def test_an_answer_after_its_context(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind
