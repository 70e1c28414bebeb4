"""Classes found in round twenty-five of #27 (blind sets sre98 a polite British SRE, sre99 an Australian,
sre100 Indian corporate English, sre101 Polish, sre102 a Kubernetes engineer), each checked on sentences
written here, not the sets' own."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, rules_said

from agent.hearing.instructions import hear
from agent.state import OperatorRules


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("set HF_HOME=/mnt/hf_cache", "/mnt/hf_cache"),  # a value's case is the operator's, never changed
        ("export HF_DATASETS_CACHE=/scratch/hf_datasets", "/scratch/hf_datasets"),
        ("set NCCL_SOCKET_IFNAME=ens_p0", "ens_p0"),
    ],
)
def test_an_environment_value_keeps_its_case(text: str, value: str) -> None:
    env = rules_said(text)["set_env"]
    assert isinstance(env, dict) and list(env.values()) == [value]


def test_a_variable_named_in_lowercase_is_still_its_name() -> None:
    assert rules_said("unset nccl_p2p_level") == {"unset_env": ["NCCL_P2P_LEVEL"]}


@pytest.mark.parametrize(
    "text",
    [
        "great numbers. how does it hold at concurrency 256",  # a question after praise, no question mark
        "solid. what was the p99 there",
        "nice, is that with cuda graphs on",
        "wow. which model was that again",
    ],
)
def test_a_question_after_praise_signs_nothing(text: str) -> None:
    assert kind_of(text, sign_off=True) == "say"


def test_a_sign_off_in_words_stands_beside_a_question() -> None:
    assert kind_of("lgtm. what was the p99 there", sign_off=True) == "approve"


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("nah yeah, sign it", "approve", True),  # Australian: the last word is the answer
        ("nah yeah all good", "approve", True),
        ("yeah nah, leave it", "deny", False),
        ("yeah nah, not signing", "deny", True),
        ("/lgtm", "approve", False),  # a review bot's commands
        ("/hold", "deny", False),
        ("/approve cancel", "say", False),  # taken back: never an approval
        ("bin the whole run, done for today", "stop", False),
        ("cannot sign off as of now", "deny", True),
        ("I am not giving my sign off for this", "deny", True),
        ("I'm afraid that's a no", "deny", True),
        ("carry on with the rest of the steps, cheers", "continue", False),
        ("continue with the plan mate, no need to check in every time", "continue", False),
    ],
)
def test_replies_of_this_round(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


def test_an_emoji_between_an_answer_and_its_remark_is_a_pause() -> None:
    assert kind_of("approved ✅ it only reads state, nothing to break") == "approve"


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("uzyj GPU 2 i 6", {"use_gpus": [2, 6]}),  # Polish typed without its letters
        ("użyj portu 30007", {"use_port": 30007}),  # and with them
        ("bez GPU 5, tam ktoś debuguje", {"avoid_gpus": [5]}),
        ("nie ruszaj portu 9000", {"avoid_ports": [9000]}),
        ("wyłącz radix cache", {"use_flags": [["--disable-radix-cache"]]}),
        ("nie uzywaj --enable-torch-compile", {"avoid_flags": ["--enable-torch-compile"]}),
        ("zatrzymaj serwer i nie odpalaj dopóki nie powiem", {"stop_server": True, "no_relaunch": True}),
        ("zmierz jeszcze raz", {"measure_again": True}),
        ("tylko na czwórce, tp 1", {"use_gpus": [4], "layout": {"tp": 1, "dp": 1}}),
        ("kv cache w fp8_e4m3", {"use_flags": [["--kv-cache-dtype", "fp8_e4m3"]]}),
    ],
)
def test_polish_is_read(text: str, rules: dict[str, object]) -> None:
    assert rules_said(text) == rules


@pytest.mark.parametrize(
    ("text", "kind"), [("tak", "approve"), ("nie, tego nie rób", "deny"), ("lec dalej", "continue")]
)
def test_polish_replies(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "nie dawaj GPU 3 do tego",  # a verb the table lacks beside its "not": the clause stays unread
        "GPU 3 nie jest wolne",  # "is not free": a state, its "not" unplaced
    ],
)
def test_a_polish_not_no_rule_placed_keeps_its_clause_unread(text: str) -> None:
    said = rules_said(text)
    assert "use_gpus" not in said and asked_back(text) != "use GPU 3"


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("port 31000 is already in use by the metrics exporter", "avoid port 31000"),
        ("30005 and 30006 are both held by the canary", "avoid port 30005; avoid port 30006"),
        ("gpu 4 is flaky", "don't use GPUs 4"),
        ("GPUs 2 and 3 are down", "don't use GPUs 2 and 3"),
    ],
)
def test_a_port_or_gpu_said_to_be_held_is_asked_back_as_kept_off(text: str, reading: str) -> None:
    assert rules_said(text) == {} and asked_back(text) == reading


@pytest.mark.parametrize("text", ["port 31000 is free", "port 31000 is not in use", "gpu 4 is fine now"])
def test_a_port_or_gpu_said_to_be_free_is_never_kept_off(text: str) -> None:
    assert asked_back(text) is None or "avoid" not in (asked_back(text) or "")


def test_a_held_port_beside_an_instruction_is_its_reason() -> None:
    """Its reason, and a must-not of its own (round 31: blind writers mean both): asked back with the order,
    never taken before the yes."""
    text = "serve on 30020, 30000 is held by the old job"
    assert rules_said(text) == {"use_port": 30020} and asked_back(text) == "use port 30020; avoid port 30000"


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("16k context", {"use_flags": [["--context-length", "16384"]]}),  # the length before its name
        ("relaunch with 64k ctx", {"use_flags": [["--context-length", "65536"]]}),
        ("mem frac down to 0.75", {"use_flags": [["--mem-fraction-static", "0.75"]]}),
        ("chunked prefill back down to 4096", {"use_flags": [["--chunked-prefill-size", "4096"]]}),
        ("scale to 2 replicas, 4 GPUs each", {"layout": {"tp": 4, "dp": 2}}),  # Kubernetes words
        ("hostPort: 30090", {"use_port": 30090}),
        ("expose it on 30090", {"use_port": 30090}),
        ("chunkedPrefillSize: 2048", {"use_flags": [["--chunked-prefill-size", "2048"]]}),
        ("chuck it on gpu 5", {"use_gpus": [5]}),  # Australian
        ("give tp 4 dp 2 a go", {"layout": {"tp": 4, "dp": 2}}),
        ("could you keep off port 30000?", {"avoid_ports": [30000]}),  # a polite request, asked as a question
        ("would you possibly relaunch without GPU 6 and measure again?", {"avoid_gpus": [6], "measure_again": True}),
        ("don't let it use --disable-radix-cache", {"avoid_flags": ["--disable-radix-cache"]}),
        ("cap chunked prefill at 4096, otherwise the TTFT spikes", {"use_flags": [["--chunked-prefill-size", "4096"]]}),
        ("use GPUs 0 to 3 only and tp 4 kindly", {"use_gpus": [0, 1, 2, 3], "layout": {"tp": 4, "dp": 1}}),
    ],
)
def test_settings_of_this_round(text: str, rules: dict[str, object]) -> None:
    said = rules_said(text)
    back = asked_back(text)
    assert said == rules or (back is not None and rules_said(back) == rules)


def test_a_rollout_restart_is_a_relaunch() -> None:
    assert hear(OperatorRules(), "do a rollout restart of the deployment")[0].relaunch_wanted


@pytest.mark.parametrize(
    "text",
    [
        "use gpu 2, otherwise gpu 3",  # what "otherwise" hangs is its own clause: neither is a guess to take
        "otherwise use GPU 3",
    ],
)
def test_an_instruction_after_otherwise_still_hangs(text: str) -> None:
    assert rules_said(text) == {}


# What the round-24 red team left open (/work/redteam24.md there): each now kept from acting.
@pytest.mark.parametrize(
    "text",
    [
        "stop, no don't stop",  # taken back in the same message
        "stop, no wait",
        "^C no wait",
        "^C?",  # asked, not said
        "stop?",
        "stop /s",  # said in irony
        "stop 🙃",
        "approve /s",
    ],
)
def test_a_stop_or_yes_taken_back_is_no_answer(text: str) -> None:
    assert kind_of(text) == "say"


@pytest.mark.parametrize("text", ["not GPU 3, GPU 4", "pas le GPU 3, le 4"])
def test_not_this_gpu_but_that_one_is_no_reading(text: str) -> None:
    # "not 3, (but) 4" or "neither 3 nor 4": never both kept off, never one taken
    assert rules_said(text) == {} and asked_back(text) is None


def test_a_list_after_a_verb_of_not_is_still_a_list() -> None:
    assert rules_said("don't use GPU 3, GPU 4") == {"avoid_gpus": [3, 4]}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("use GPU 2, sorry, 3", "use GPU 3"),  # a correction: the value put right, asked back
        ("use GPU 2 wait 3", "use GPU 3"),
        ("use GPU 2 *3", "use GPU 3"),
        ("port 30001, sorry, 30002", "port 30002"),
        ("don't use ~~GPU 3~~ GPU 4", "don't use GPU 4"),  # struck out: the rest of the sentence stands
    ],
)
def test_a_correction_is_asked_back_as_corrected(text: str, reading: str) -> None:
    assert asked_back(text) == reading


def test_a_slip_then_bare_ids_is_asked_back_fixed() -> None:
    # "tuoch": one slip of "touch", then a bare id: read with the slip fixed, only asked back
    assert rules_said("dont tuoch 5") == {} and asked_back("dont tuoch 5") == "don't use GPUs 5"


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("chunked prefill 8192, no 4096, 8192 spiked the TTFT", {"use_flags": [["--chunked-prefill-size", "4096"]]}),
        ("relaunch on 0-3. no, 4-7, someone's on 0-3", {"use_gpus": [4, 5, 6, 7]}),  # put right, then why
    ],
)
def test_a_correction_then_its_reason_is_asked_back_corrected(text: str, reading: dict[str, object]) -> None:
    back = asked_back(text)
    assert back is not None and rules_said(back) == reading


@pytest.mark.parametrize(
    "text",
    [
        "tp 4, no 8, don't use GPU 3",  # the words after the value are an instruction: a yes would drop it
        "gpus 0,1,2,3 -- drop 3, it's hot",  # a removal, not a value put in place of another
    ],
)
def test_a_correction_is_never_asked_back_without_what_came_after_it(text: str) -> None:
    assert asked_back(text) is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("go ahead. actually hold on, no", "deny"),  # a yes turned to a no: the no stands
        ("ok go ahead. actually, don't", "deny"),
        ("keep going. actually no", "say"),  # no to going on: wait, or refuse the proposal? asked again
        ("do 2. actually no, do 1, topology first", "pick 1"),
        ("use gpu 5 -- actually no", "say"),  # an instruction taken back: never a no to the proposal
    ],
)
def test_an_answer_turned_is_the_last_one(text: str, kind: str) -> None:
    assert kind_of(text) == kind


# Round-25 red team (a helper, about 2,500 probes, black box): what acted at once or answered wrongly.
@pytest.mark.parametrize(
    "text",
    [
        "stop the server (don't)",  # a one-word note beside an instruction: what it does to it is unknown
        "relaunch (maybe)",
        "use GPU 6 (flaky)",
        "port 8000 (taken)",
        "nie używaj GPU 3 tylko GPU 4",  # Polish "not 3 but 4": never both kept off
        "can you stop the server at all?",  # a question of whether, no request
        "can you actually use GPU 3?",
    ],
)
def test_red_team_25_takes_nothing(text: str) -> None:
    assert rules_said(text) == {} and asked_back(text) is None


def test_a_filler_between_two_ids_is_a_correction() -> None:
    assert rules_said("use GPU 2 uh 3") == {"use_gpus": [3]} and asked_back("use GPU 2 uh 3") == "use GPU 3"


@pytest.mark.parametrize(
    ("text", "sign_off"),
    [
        ("scrap step 2", False),  # a step dropped or asked about is never picked
        ("what is step 2", False),
        ("yes, later", False),  # a few words after the yes that put it off or hold it
        ("yes, hang on", False),
        ("Alice will sign off", True),  # someone else's sign-off, to come
        ("I'm signing off, talk tomorrow", True),  # leaving the chat
        ("stop, żartuję", False),  # Polish: just kidding
    ],
)
def test_red_team_25_no_answer(text: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == "say"


@pytest.mark.parametrize(
    ("text", "kind"), [("skip to step 3", "pick 3"), ("do 3 -- the log is what I care about", "pick 3")]
)
def test_a_step_picked_with_words_about_it_is_still_picked(text: str, kind: str) -> None:
    assert kind_of(text) == kind
