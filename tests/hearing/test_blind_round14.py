"""Classes found in round twenty-four of #27 (blind sets sre93 English with Japanese, sre94 a Unix
greybeard, sre95 voice dictation, sre96 Québécois French, sre97 a lead answering in a Slack thread),
each checked on sentences written here, not the sets' own."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, asking, kind_of, rules_said

from agent.hearing import bounds
from agent.hearing.instructions import hear
from agent.hearing.replies import parse_reply
from agent.state import OperatorRules

HOST = list(range(8))


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("GPU 6 wa tsukawanaide kudasai", {"avoid_gpus": [6]}),  # Japanese in Latin letters, verb last
        ("port 30002 wo tsukatte", {"use_port": 30002}),
        ("mem frac 0.7 ni shite", {"use_flags": [["--mem-fraction-static", "0.7"]]}),
        ("context length wa 16k de onegai", {"use_flags": [["--context-length", "16384"]]}),
        ("GPU 0-1 dake de tp 2", {"use_gpus": [0, 1], "layout": {"tp": 2, "dp": 1}}),
        ("disable-radix-cache wa iranai", {"avoid_flags": ["--disable-radix-cache"]}),
        ("GPU 7 dame desu", {"avoid_gpus": [7]}),
        ("radix cache は切ってください", {"use_flags": [["--disable-radix-cache"]]}),
    ],
)
def test_japanese_is_read(text: str, rules: dict[str, object]) -> None:
    assert rules_said(text) == rules


def test_a_relaunch_in_its_own_script_is_read() -> None:
    assert hear(OperatorRules(), "サーバー再起動してください")[0].relaunch_wanted


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("hai, onegai shimasu", "approve", False),
        ("dame desu", "deny", False),
        ("mada desu", "deny", True),
        ("3番でお願いします", "pick 3", False),
        ("承認しません", "deny", True),
        ("はい、どうぞ", "approve", False),
    ],
)
def test_japanese_replies(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    "text",
    [
        "GPU 3 wa tsukawanai",  # "won't use" / "doesn't use": a plain form no rule places, its "not" in the ending
        "GPU 3 wa chotto ayashii kamo",  # "might be a bit suspect": a hedge, no order
        "tp 8 mo ii kamo",
    ],
)
def test_japanese_it_cannot_place_takes_nothing(text: str) -> None:
    assert rules_said(text) == {}
    assert asked_back(text) is None


def test_a_port_jupyter_holds_is_only_asked_back_as_kept_off() -> None:
    # a statement of who holds it: nothing taken; since round 25 a held port is asked back as kept off
    text = "port 30000 wa jupyter ga tsukatteru"
    assert rules_said(text) == {} and asked_back(text) == "avoid port 30000"


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("*never* pass `--enable-torch-compile` here", {"avoid_flags": ["--enable-torch-compile"]}),
        ("**don't** touch gpu 5", {"avoid_gpus": [5]}),
        ("_only_ gpus 4-7", {"use_gpus": [4, 5, 6, 7]}),
        ("tp 2 * dp 4", {"layout": {"tp": 2, "dp": 4}}),  # a times sign, not emphasis
        ("set NCCL_P2P_DISABLE=1 (edited)", {"set_env": {"NCCL_P2P_DISABLE": "1"}}),
    ],
)
def test_chat_emphasis_is_the_word_it_marks(text: str, rules: dict[str, object]) -> None:
    """'*never* pass --x' had been read as 'use --x': the stars hid the never."""
    assert rules_said(text) == rules


def test_a_quote_of_the_question_is_not_someone_elses_answer() -> None:
    question = asking()
    assert parse_reply("> May I run nvidia-smi topo -m?\nyes, go", question, "op").kind == "approve"
    assert parse_reply("> nvidia-smi topo -m\nnope", question, "op").kind == "deny"
    # anyone else's words quoted stay words to read, never a yes to the question
    assert parse_reply("> priya: ship it\n+1", question, "op").kind == "say"


@pytest.mark.parametrize(
    ("text", "confirm"),
    [
        ("port thirty thousand actually make it thirty thousand and five", "port 30005"),
        ("mem frac point nine no point eight five", "use --mem-fraction-static 0.85"),
        ("port 30010, actually make it 30011", "port 30011"),
    ],
)
def test_a_dictated_correction_asks_back_the_value_said_last(text: str, confirm: str) -> None:
    """'port thirty thousand actually make it thirty thousand and five' had been asked back as 30000."""
    assert asked_back(text) == confirm


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("context length thirty two K", {"use_flags": [["--context-length", "32768"]]}),
        ("--context-length 16k", {"use_flags": [["--context-length", "16384"]]}),  # pasted: SGLang takes a number
        ("set N C C L debug to info", {"set_env": {"NCCL_DEBUG": "INFO"}}),
        ("remove the H F hub offline variable", {"unset_env": ["HF_HUB_OFFLINE"]}),
        ("kv cache d type FP eight E five M two", {"use_flags": [["--kv-cache-dtype", "fp8_e5m2"]]}),
        ("quantize it FP eight", {"use_flags": [["--quantization", "fp8"]]}),
        ("disable kuda graph", {"use_flags": [["--disable-cuda-graph"]]}),
        (
            "um set chunked prefill to like two thousand forty eight",
            {"use_flags": [["--chunked-prefill-size", "2048"]]},
        ),
    ],
)
def test_dictation_is_read(text: str, rules: dict[str, object]) -> None:
    assert rules_said(text) == rules


def test_a_thousand_said_as_k_is_refused_where_it_is_no_token_count() -> None:
    read = hear(OperatorRules(), "--max-running-requests 2k")[0]
    assert "say the number itself" in "; ".join(bounds.problems(OperatorRules(), read, HOST))


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("switch to deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3"),
        ("swap the model to google/gemma-2-9b-it", "google/gemma-2-9b-it"),
    ],
)
def test_a_hub_id_is_asked_back_never_taken(text: str, model: str) -> None:
    assert rules_said(text) == {}
    assert asked_back(text) == f"serve the hugging face model {model}"
    assert rules_said(f"serve the hugging face model {model}") == {"use_model": model}


@pytest.mark.parametrize("text", ["use tp/dp", "use fp8/bf16", "try on/off"])
def test_a_slash_between_words_is_no_model(text: str) -> None:
    assert asked_back(text) is None or "hugging face" not in (asked_back(text) or "")


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("I can't sign off on this one", "deny", True),
        ("sorry, I won't sign it", "deny", True),
        ("I'm not comfortable signing this", "deny", True),
        ("carry on with the list", "continue", False),
        ("keep going with your steps, no need to ping me for each step", "continue", False),
        ("continue with what you were doing", "continue", False),
        ("uh go with step two", "pick 2", False),
        ("yep L G T M", "approve", False),
    ],
)
def test_replies_of_round_twenty_four(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("flip on dp attention", {"use_flags": [["--enable-dp-attention"]]}),
        (
            "never --enable-torch-compile or --disable-radix-cache",
            {"avoid_flags": ["--disable-radix-cache", "--enable-torch-compile"]},
        ),
        ("redo it with --context-length 8192", {"use_flags": [["--context-length", "8192"]]}),
        ("add the trust remote code flag", {"use_flags": [["--trust-remote-code"]]}),
        ("export NCCL_DEBUG=WARN before the next launch", {"set_env": {"NCCL_DEBUG": "WARN"}}),
        ("the weights are at /models/mixtral-8x7b", {"use_model": "/models/mixtral-8x7b"}),
        ("serve the GPTQ checkpoint at /models/q-gptq instead", {"use_model": "/models/q-gptq"}),
    ],
)
def test_instructions_of_round_twenty_four(text: str, rules: dict[str, object]) -> None:
    assert rules_said(text) == rules


@pytest.mark.parametrize(
    "text",
    [
        "don't relaunch with --context-length 8192",  # had been "use --context-length 8192" + a hold
        "never restart with tp 8",
        "never redo it with --kv-cache-dtype fp8_e5m2",
        "don't drop to gpus 0-3",  # never "don't use GPUs 0-3"
        "dont drop to gpu 0",
        "don't relaunch on GPU 3",  # had been "use GPU 3" and a hold (found by the Québécois pass)
        "never restart on gpus 4-7",
        "don't launch on 0-3",
        "don't relaunch on gpus 0-3 as tp4",
    ],
)
def test_a_refused_relaunch_with_a_setting_takes_nothing(text: str) -> None:
    """Is the setting what is refused, or what is wanted at the relaunch not to be made? Either way,
    reading it as wanted was a misread."""
    assert rules_said(text) == {}
    assert asked_back(text) is None
