"""Round 38's blind sets (sre152 English with Spanish habits, sre153 a pager's one-liners, sre154 docs and runbooks
quoted, then decided on, sre155 a sarcastic senior at the end of a day, redteam38 negation with quantifiers, rules
lifted, reminders), fixed by class. The six first-sight misreads' classes are first. The cases are the classes'
own, not the sets' lines. 42 of its 49 checks fail on the code before the fix (a3408f2); the 7 others are guards,
named or marked so, that passed before too."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, rules_said, taken

# ------------------------------------------------------------------------------ the first-sight misreads


def test_a_switch_flag_after_the_words_for_it_is_never_switched_again() -> None:
    """ "sin radix cache please, --disable-radix-cache" was read as NOT passing --disable-radix-cache: the verb
    "disable" carried onto the flag that already says it."""
    assert rules_said("turn off cuda graphs, --disable-cuda-graph") == {"use_flags": [["--disable-cuda-graph"]]}


def test_a_must_not_never_carries_into_the_next_sentence() -> None:
    """ "... avoid them. and the port put 30002" kept port 30002 out: the port to serve on."""
    said = "gpus 2 and 3 are flaky, avoid them. and the port put 30004"
    assert taken(said) == {"avoid_gpus": [2, 3], "use_port": 30004}


def test_steps_of_a_pasted_list_picked_are_no_gpus() -> None:
    """ "4. export NCCL_DEBUG=INFO\\n5. relaunch ...\\ndo 4 and 5" was asked back as a launch on GPUs 4 and 5."""
    said = "from the checklist:\n2. export NCCL_DEBUG=WARN\n3. rerun the bench\ndo 2 and 3"
    assert taken(said) == {"set_env": {"NCCL_DEBUG": "WARN"}, "measure_again": True}


@pytest.mark.parametrize(
    "text", ["radix cache keeps thrashing, switch it off", "torch compile hangs at warmup, turn it off"]
)
def test_turn_it_off_beside_a_feature_never_stops_the_server(text: str) -> None:
    """'"--disable-cuda-graph ..." capture keeps crashing, just turn it off' was asked back as stopping the server."""
    assert taken(text) == {}


def test_guard_turn_it_off_alone_still_stops_the_server() -> None:
    assert rules_said("turn it off") == {"stop_server": True, "no_relaunch": True}


@pytest.mark.parametrize("text", ["use 8192", "use 4096", "go 2048"])
def test_a_size_said_bare_is_no_port(text: str) -> None:
    """ "... try smaller like 4096 if prefill OOMs. use 4096" was read as serving on port 4096."""
    assert rules_said(text) == {} and asked_back(text) is None


@pytest.mark.parametrize(("text", "port"), [("use 30001", 30001), ("use port 4096", 4096), ("go 8080", 8080)])
def test_guard_ports_said_bare_or_named_are_ports(text: str, port: int) -> None:
    assert rules_said(text) == {"use_port": port}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ('docs say "--schedule-policy lpm is best for shared prefixes". lets do that', "--schedule-policy lpm"),
        ('model card: "needs --trust-remote-code for the custom code." add it', "--trust-remote-code"),
        ('nccl page: "NCCL_P2P_DISABLE=1 turns off peer to peer". set it', "NCCL_P2P_DISABLE=1"),
        ('handoff: "weights staged at /models/qwen-7b". use that path for the model', "use the model /models/qwen-7b"),
        ('ticket: "validate on Qwen/Qwen2.5-7B-Instruct first". switch to that model', "serve the hugging face model "
         "Qwen/Qwen2.5-7B-Instruct"),
    ],
)  # fmt: skip
def test_quoted_words_taken_up_are_asked_back_never_taken(text: str, reading: str) -> None:
    assert rules_said(text) == {} and asked_back(text) == reading


@pytest.mark.parametrize(
    "text",
    [
        'readme: "--enable-torch-compile helps small batches". not for us',
        'docs: "use tp 8". no, skip that',  # guard: nothing taken before either
    ],
)
def test_quoted_words_the_operator_refuses_offer_nothing(text: str) -> None:
    """'docs: "--enable-torch-compile ...". not for us' was asked back as a launch with the flag."""
    assert taken(text) == {}


def test_guard_the_first_one_is_no_gpu() -> None:
    """ "the first one. topo. fine." (a pick) was asked back as a launch on GPU 0."""
    assert asked_back("the first one. topo. fine.") is None
    assert asked_back("use the last four") == "use GPUs 4,5,6,7"  # guard: a count with its end still reads


# ------------------------------------------------------------------------------ words of this round


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("quit the variable NCCL_DEBUG", {"unset_env": ["NCCL_DEBUG"]}),
        ("the chunked prefill size put it in 8192", {"use_flags": [["--chunked-prefill-size", "8192"]]}),
        ("launch in the port 30005", {"use_port": 30005}),
        ("set NCCL_DEBUG=INFO for see the logs", {"set_env": {"NCCL_DEBUG": "INFO"}}),
        ("add --disable-cuda-graph for avoid the crash", {"use_flags": [["--disable-cuda-graph"]]}),
        ("tp->2", {"layout": {"tp": 2, "dp": 1}}),
        ("-gpu4", {"avoid_gpus": [4]}),
        ("p30005", {"use_port": 30005}),
        ("sched fcfs", {"use_flags": [["--schedule-policy", "fcfs"]]}),
        ("bump mfs .8", {"use_flags": [["--mem-fraction-static", "0.8"]]}),
        ("disable radix", {"use_flags": [["--disable-radix-cache"]]}),
        ("dont forget --trust-remote-code", {"use_flags": [["--trust-remote-code"]]}),
        ("keep NCCL_DEBUG=INFO", {"set_env": {"NCCL_DEBUG": "INFO"}}),
        ("leave 0-3 for the finetune job", {"avoid_gpus": [0, 1, 2, 3]}),
        ("mem fraction 0.8 and --max-running-requests 32", {"use_flags": [["--mem-fraction-static", "0.8"],
                                                                          ["--max-running-requests", "32"]]}),
    ],
)  # fmt: skip
def test_instructions_in_words_of_this_round(text: str, want: dict[str, object]) -> None:
    assert rules_said(text) == want and asked_back(text) is None


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("we can try with tp 2", "tp 2"),
        ("is better tp 4 and dp 2, the model is small", "tp 4 and dp 2"),
        ("it is not necessary the flag --disable-cuda-graph, takes long", "don't use --disable-cuda-graph"),
        ("is necessary --trust-remote-code, the model has custom code", "use --trust-remote-code"),
    ],
)
def test_readings_asked_back_in_words_of_this_round(text: str, reading: str) -> None:
    assert asked_back(text) == reading


@pytest.mark.parametrize(
    ("text", "sign_off", "kind"),
    [
        ("not a bad idea, go", False, "approve"),
        ("I don't see a problem with it", False, "approve"),
        ("kill the whole session, not just the server", False, "stop"),
        ("can't argue with those numbers, approved", True, "approve"),
        ("you know what, kill the whole run. not worth it", False, "stop"),
        ("just keep going and stop asking me every ten minutes", False, "continue"),
        ("do 2, not 3", False, "pick 2"),
        ("not 1 -- 2", False, "pick 2"),
        ("not 2, 3", False, "error"),  # guard: steps 2 and 3, or GPUs? asked, as before
        ("3, not 1", False, "say"),  # guard: no word that picks
    ],
)
def test_answers_in_words_of_this_round(text: str, sign_off: bool, kind: str) -> None:
    assert kind_of(text, sign_off=sign_off) == kind
