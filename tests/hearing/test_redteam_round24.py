"""A red-team pass over round twenty-four's reading (about 2,100 probes), fixed by class: each case here
was read as the opposite, or as someone else's answer, and acted on at once."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, asking, kind_of, rules_said

from agent.hearing.replies import parse_reply


def _read(text: str) -> dict[str, object]:
    """What the run takes of a message sent as a reply (the reply's words, then the grammar's)."""
    reply = parse_reply(text, asking(), "op")
    assert reply.kind == "say"
    return rules_said(reply.text or "")


@pytest.mark.parametrize(
    ("text", "sign_off"),
    [
        ("far from LGTM", True),
        ("refuse to approve", False),
        ("cannot approve", False),
        ("unable to sign off", True),
        ("sign off rejected", True),
        ("revoke LGTM", True),
        ("do it, never", False),
        ("LGTM nvm", True),
        ("signed, kidding", True),
        ("do it tomorrow", False),
        ("ship it next week", True),
        ("almost done", True),
        ("bob approved", False),
        ("alice: LGTM", True),
        ("LGTM from my manager", True),
        ("go ahead, said nobody ever", False),
        ("sign off shimasen", True),  # Japanese: "I will not sign off"
        ("LGTM janai", True),  # "it is not LGTM"
        ("oui, dame", False),
        ("iya", False),  # Japanese "no", Indonesian "yes": alone, neither is taken
    ],
)
def test_an_answer_turned_put_off_or_someone_elses_is_no_answer(text: str, sign_off: bool) -> None:
    """Each was read as approve: the words beside the yes were taken for a harmless remark."""
    assert kind_of(text, sign_off) not in ("approve", "continue", "pick 2", "stop")


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("LGTM from my side", "approve", True),  # the operator's own
        ("no concerns from me, sign off", "approve", True),
        ("iya lanjut", "approve", False),  # Indonesian, beside its own word
        ("iya desu", "deny", False),  # Japanese
        ("refuse option 2", "say", False),
        ("stop. jk", "say", False),
        ("bob says abort", "say", False),
    ],
)
def test_what_stands_of_those_answers(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        (":x: GPU 3", {"avoid_gpus": [3]}),  # had been "use GPU 3": the sign dropped as a gesture
        ("GPU 3 :thumbsdown:", {"avoid_gpus": [3]}),
        ("👎 port 30000", {"avoid_ports": [30000]}),
        ("🛑 --enable-torch-compile", {"avoid_flags": ["--enable-torch-compile"]}),
        ("❌ `--enable-torch-compile`", {"avoid_flags": ["--enable-torch-compile"]}),
        ("use gpu 3 👍", {"use_gpus": [3]}),  # a yes-sign says nothing the words do not
    ],
)
def test_a_no_sign_beside_a_setting_is_a_no(text: str, rules: dict[str, object]) -> None:
    assert rules_said(text) == rules
    assert _read(text) == rules


@pytest.mark.parametrize("text", ["GPU 3 💀", "GPU 3 🔥", "GPU 3 (no)", "GPU 3 (?)", "use GPU 3 (sarcasm)", "❌ tp 8"])
def test_a_sign_no_rule_reads_takes_nothing(text: str) -> None:
    assert rules_said(text) == {}
    assert asked_back(text) is None


@pytest.mark.parametrize("text", ["not LGTM", "NOT APPROVED", "no ACK", "not AWQ", "LGTM dame"])
def test_a_no_before_a_capitalised_word_is_no_variable(text: str) -> None:
    """'not LGTM' had been 'unset LGTM' (an environment variable) and its no lost."""
    assert "unset_env" not in rules_said(text)


@pytest.mark.parametrize(("text", "unset"), [("no NCCL_DEBUG", ["NCCL_DEBUG"]), ("unset HFTOKEN", ["HFTOKEN"])])
def test_a_variable_written_as_one_is_still_unset(text: str, unset: list[str]) -> None:
    assert rules_said(text) == {"unset_env": unset}


@pytest.mark.parametrize("text", ["E four M three", "e mail me", "d type fp8", "n gram spec", "e, use GPU 3"])
def test_dictated_letters_are_no_one_letter_reply(text: str) -> None:
    """'E four M three' had become an edit that replaced the proposed command with 'four M three'."""
    assert kind_of(text) not in ("edit", "deny")


def test_one_letter_replies_still_work() -> None:
    question = asking()
    assert parse_reply("e nvidia-smi -L", question, "op").edited_command == "nvidia-smi -L"
    assert parse_reply("d - skip topo", question, "op").kind == "deny"
    assert parse_reply("n", question, "op").kind == "deny"
    # with nothing proposed, "edit" runs the command given, through the gate; a dictated "E ..." does not
    assert parse_reply("edit nvidia-smi -L", asking(sign_off=True), "op").kind == "edit"
    assert kind_of("E four M three", sign_off=True) == "say"


@pytest.mark.parametrize(
    "text",
    [
        "GPU 3 wo tsukatte hoshikunai",  # "I don't want you to use GPU 3"
        "relaunch shimasen",  # "won't relaunch"
        "GPU 3 igai wo tsukatte",  # "use the GPUs other than 3"
        "port 30000 ja naku 30005 de",  # "not 30000, 30005"
        "GPU 3 mo tsukatte",  # "also use 3": never "only 3"
        "server wa tomete ii?",  # "may I stop the server?"
        "GPU 3 dake janai",  # "not only GPU 3"
    ],
)
def test_a_japanese_ending_it_cannot_place_keeps_the_clause_unread(text: str) -> None:
    """Each had been asked back the wrong way round ('use GPU 3' for 'don't want you to use GPU 3')."""
    assert rules_said(text) == {}
    assert asked_back(text) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("context length thirty two thousand seven sixty eight", "32768"),  # had been 768: the thousands dropped
        ("chunked prefill sixteen thousand three eighty four", "16384"),
        ("max running requests one twenty eight", "128"),
    ],
)
def test_a_dictated_number_keeps_its_thousands(text: str, value: str) -> None:
    said = rules_said(text)["use_flags"]
    assert isinstance(said, list) and said[0][1] == value


@pytest.mark.parametrize(
    "text",
    ["quote: use GPU 3", "quoting bob: use GPU 3", "bob wrote:\nuse GPU 3", "from bob:\nuse GPU 3", "bob:\nuse GPU 3"],
)
def test_someone_elses_words_marked_so_are_only_asked_back(text: str) -> None:
    """Each was taken at once as the operator's own rule."""
    assert rules_said(text) == {}
    assert asked_back(text) == "use GPU 3"


@pytest.mark.parametrize(
    "text", ["use /models/a and /models/b", "weights are at /models/new and /models/old", "serve /models/a, /models/b"]
)
def test_two_models_for_one_server_take_neither(text: str) -> None:
    """The last path said had been taken, silently."""
    assert rules_said(text) == {}
    assert asked_back(text) is None


def test_a_choice_of_flags_to_use_is_no_order_to_use_both() -> None:
    """'always --x or --y' had passed both; a must-not of either still keeps both out."""
    assert rules_said("always --enable-torch-compile or --disable-cuda-graph") == {}
    never = rules_said("never --enable-torch-compile or --disable-cuda-graph")
    assert never == {"avoid_flags": ["--disable-cuda-graph", "--enable-torch-compile"]}


@pytest.mark.parametrize(
    ("text", "rules"),
    [("note: use port 30001", {"use_port": 30001}), ("env: NCCL_DEBUG=INFO", {"set_env": {"NCCL_DEBUG": "INFO"}})],
)
def test_a_label_and_a_colon_is_no_one_elses_words(text: str, rules: dict[str, object]) -> None:
    assert rules_said(text) == rules
