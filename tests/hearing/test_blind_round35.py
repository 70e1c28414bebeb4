"""Round 35's blind sets (sre140 a runbook-style SRE, sre141 English in German word order, sre142 a cautious new
hire, sre143 an ML researcher, redteam35 words a keyword reader would misread), fixed by class. The five
first-sight misreads' classes are first. 38 of its 50 checks fail on the code before the fix (6fb1b74); the 12
others are guards (the last two answers, "oh sure, sign it off", the correction after "wait", "--x y use" and
"GPU 2, 6 not use", both read before, the port that belongs to the run, the two polite ones named so, and the
three found by probing this round's own rules: they fail on its first version, cf6ae6a). The cases are the
classes' own, not the sets' lines."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, rules_said

from agent.hearing.heed import ask_back
from agent.state import OperatorRules

HOST = list(range(8))

# ------------------------------------------------------------------------------ the first-sight misreads


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("oh sure, sign it off, 3 tok/s is exactly what we promised the customer", "say"),
        ("oh great, approved, p99 of 40 s is just what users love", "say"),
        ("oh sure, sign it off", "approve"),  # guard: no number judged, a plain yes
    ],
)
def test_a_sign_off_said_in_irony_beside_a_number_is_asked_again(text: str, kind: str) -> None:
    """It signed the run off: "oh sure" and a number it cannot check make the yes words to read."""
    assert kind_of(text, sign_off=True) == kind


@pytest.mark.parametrize(
    ("text", "ids"),
    [("gpu3: ECC uncorrectable. exclude.", [3]), ("gpus 6,7: xid 79 since this morning. drain them", [6, 7])],
)
def test_gpus_named_as_a_heading_then_a_verb_alone_are_kept_out(text: str, ids: list[int]) -> None:
    """ "gpu3: ECC uncorrectable. exclude." was asked back as "launch on GPU 3 only": the opposite."""
    said = asked_back(text)
    assert said is not None and said.startswith("don't use") and rules_said(said) == {"avoid_gpus": ids}


def test_a_flag_said_away_in_german_is_kept_out() -> None:
    """ "--disable-radix-cache weg" was asked back as "launch with --disable-radix-cache"."""
    assert rules_said("Please --disable-radix-cache weg, we need the prefix caching")["avoid_flags"] == [
        "--disable-radix-cache"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "could you serve on 30000? oh wait, we're not supposed to use 30000 right? sorry",
        "serve on port 30001. oh wait, is 30001 the grafana one?",
    ],
)
def test_an_instruction_the_writer_doubts_after_wait_takes_nothing(text: str) -> None:
    """It was asked back as "serve on port 30000", the port the writer doubted in the same message."""
    assert rules_said(text) == {} and asked_back(text) is None


def test_guard_a_correction_after_wait_with_no_question_still_stands() -> None:
    assert asked_back("tp 4 - wait, tp 2") == "tp 2"


@pytest.mark.parametrize(
    "text", ["same as run 3 but tp 2", "same as experiment 4, with fp8 kv", "same as yesterday's config, fp8 kv"]
)
def test_a_change_to_a_configuration_named_by_reference_takes_nothing(text: str) -> None:
    """ "same as run 3 but tp 2" was asked back as TP2 alone: run 3's settings, dropped without a word."""
    assert rules_said(text) == {} and asked_back(text) is None


# ------------------------------------------------------------------------------ English in German word order


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("The mem fraction please on 0,85 set.", {"use_flags": [["--mem-fraction-static", "0.85"]]}),
        ("Attention Backend please on triton stellen.", {"use_flags": [["--attention-backend", "triton"]]}),
        ("Max running requests on 64 limit, bitte.", {"use_flags": [["--max-running-requests", "64"]]}),
        ("cuda graph max bs please on 256", {"use_flags": [["--cuda-graph-max-bs", "256"]]}),
        ("Schedule Policy please lpm.", {"use_flags": [["--schedule-policy", "lpm"]]}),
        ("Please GPU 2 and GPU 6 avoid", {"avoid_gpus": [2, 6]}),
        ("Nicht --enable-torch-compile use please", {"avoid_flags": ["--enable-torch-compile"]}),
        ("--kv-cache-dtype nicht more use", {"avoid_flags": ["--kv-cache-dtype"]}),
        ("--kv-cache-dtype fp8_e5m2 use", {"use_flags": [["--kv-cache-dtype", "fp8_e5m2"]]}),  # guard: read before
    ],
)
def test_a_setting_with_its_verb_said_last_is_read(text: str, want: dict[str, object]) -> None:
    assert rules_said(text) == want


def test_guard_gpus_said_before_a_negated_verb_are_never_the_gpus_to_use() -> None:
    """The value slot never takes the negation: "--x not use" is "don't use --x", never "use --x not"."""
    assert rules_said("Please GPU 2, 6 not use") == {"avoid_gpus": [2, 6]}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Port 8000 is from the Monitoring belegt, bitte nicht use it.", {"avoid_ports": [8000]}),
        (
            "SGLANG_TORCH_PROFILER_DIR is still gesetzt from my Profiling, please remove it from the Environment.",
            {"unset_env": ["SGLANG_TORCH_PROFILER_DIR"]},
        ),
    ],
)
def test_a_german_state_then_it_is_read_whole(text: str, want: dict[str, object]) -> None:
    assert rules_said(text) == want


def test_a_relaunch_asked_in_german_order_is_the_relaunch_with_its_flag() -> None:
    said = asked_back("Before I sign: please once more with --max-running-requests 128 starting, the 64 was to few.")
    assert said is not None and "--max-running-requests 128" in said and said.startswith("relaunch")


# ------------------------------------------------------------------------------ other words of the round


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("take NCCL_DEBUG back off", {"unset_env": ["NCCL_DEBUG"]}),
        ("take --enable-torch-compile back out again", {"avoid_flags": ["--enable-torch-compile"]}),
        ("put back the --trust-remote-code you removed", {"use_flags": [["--trust-remote-code"]]}),
        ("go --attention-backend flashinfer", {"use_flags": [["--attention-backend", "flashinfer"]]}),
        ("sorry if this is dumb but use port 30001", {"use_port": 30001}),  # was asked back, "sorry ..." not read
    ],
)
def test_instructions_in_words_of_this_round(text: str, want: dict[str, object]) -> None:
    assert rules_said(text) == want and asked_back(text) is None  # read whole, nothing left to ask about


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("30000 belongs to the other tenant", "avoid port 30000"),
    ],
)
def test_a_reading_only_asked_back(text: str, reading: str) -> None:
    """A port's owner is a state, not an order."""
    assert rules_said(text) == {} and asked_back(text) == reading


def test_guard_a_port_that_belongs_to_the_run_is_no_port_kept_out() -> None:
    assert asked_back("port 30000 belongs to you") is None


def test_a_hub_id_said_first_alone_is_the_model_asked_back() -> None:
    asked = ask_back(OperatorRules(), "deepseek-ai/DeepSeek-V2-Lite-Chat, needs --trust-remote-code, tp 2", None, HOST)
    assert asked is not None and "serve the model deepseek-ai/DeepSeek-V2-Lite-Chat" in asked.readback


@pytest.mark.parametrize(
    ("text", "sign_off", "kind"),
    [
        ("lol no", False, "deny"),
        ("Please not, the log is huge.", False, "deny"),
        ("Make how you think, I am in a meeting.", False, "continue"),
        ("keep going with what you think is best, thank you!", False, "continue"),
        ("stop asking and just iterate, ping me when you have something", False, "continue"),
        ("not done yet, keep pushing on your own", True, "deny"),
        ("sorry, i dont think its done yet, please don't sign it off", True, "deny"),
        ("please not use gpu 3", False, "say"),  # guard: a "not" with a verb after it is an instruction
        ("stop the server", False, "say"),  # guard: still the instruction, never "stop asking"
    ],
)
def test_answers_in_words_of_this_round(text: str, sign_off: bool, kind: str) -> None:
    assert kind_of(text, sign_off=sign_off) == kind


# ------------------------------------------------------------------------------ found by probing this round's rules


def test_guard_wait_for_something_is_no_doubt() -> None:
    """Only the interjection ("wait, ...?", "oh wait ...?") unsettles an instruction, never "wait for the bench"."""
    assert asked_back("wait for the bench to finish, then relaunch with tp 4. ok?") == "relaunch with tp 4"


def test_guard_a_port_said_to_belong_to_the_runs_own_server_is_no_port_kept_out() -> None:
    assert asked_back("port 30000 belongs to the sglang server you launched") is None


def test_guard_a_hub_id_asked_about_is_no_model_to_serve() -> None:
    assert asked_back("meta-llama/Llama-3.1-8B-Instruct, is it cached?") is None


@pytest.mark.parametrize(
    ("text", "sign_off", "kind"),
    [
        ("can we stop the whole run here? i think we're done for today, thank you so much", False, "stop"),
        ("can we abort?", False, "stop"),
        ("can you keep going a bit more? id like to be sure, sorry", True, "deny"),
        ("could you stop the server?", False, "say"),  # guard: an instruction, read as words
        ("can we stop the whole run here? and relaunch on gpus 0-3", False, "say"),  # guard: a stop and a launch
    ],
)
def test_a_stop_or_more_work_asked_for_politely_is_that_answer(text: str, sign_off: bool, kind: str) -> None:
    """ "can we stop the whole run here? ..." was asked again: a question approves nothing, but it may ask to stop."""
    assert kind_of(text, sign_off=sign_off) == kind
