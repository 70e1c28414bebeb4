"""Round 34's blind sets (sre136 an on-call SRE at 3 a.m., sre137 Indian English at work, sre138 a manager who is no
GPU specialist, sre139 voice dictation, redteam34 words a keyword reader would misread), fixed by class. The safety
cases (the eight first-sight misreads' classes) are first. 79 of its 115 checks fail on the code before the fix
(3763ed8); the 36 others are guards: those named so, and the other fp8 format said last, "as needed" and "hmmm,
fine" (already not taken), an approval after "hmm", the proposal named by its command, "ok sir, go ahead", "hey"
and "next time" alone (reported before). The cases are the classes' own, not the sets' lines."""

from __future__ import annotations

import pytest
from hearing_testkit import asked_back, kind_of, rules_said, taken

from agent.hearing import bounds
from agent.hearing.heed import ask_back
from agent.hearing.instructions import hear
from agent.hearing.replies import parse_reply
from agent.state import Action, OperatorRules, Question, QuestionOption

HOST = list(range(8))

# ------------------------------------------------------------------------------ what must never be taken


@pytest.mark.parametrize(
    ("text", "dtype"),
    [
        ("fp8 kv cache, e5m2", "fp8_e5m2"),
        ("fp8 kv, e5m2 not e4m3", "fp8_e5m2"),
        ("kv cache fp8 e4m3, not e5m2", "fp8_e4m3"),
        ("fp8 kv cache", "fp8_e4m3"),  # guard: fp8 said alone is SGLang's e4m3
    ],
)
def test_the_fp8_format_said_after_the_cache_is_the_one_taken(text: str, dtype: str) -> None:
    """ "fp8 kv cache, e5m2 not e4m3" was asked back as fp8_e4m3: the format said after it was dropped."""
    assert taken(text) == {"use_flags": [["--kv-cache-dtype", dtype]]}


@pytest.mark.parametrize(
    "text", ["yes, i saw the OOM earlier", "ok, i know", "yeah, I noticed the p99 spike", "yes, i see"]
)
def test_a_yes_to_something_seen_approves_nothing(text: str) -> None:
    """The yes may answer "did you see the OOM?", a question the operator heard, not mine."""
    assert kind_of(text) == "say"


@pytest.mark.parametrize(
    "text", ["yes, the numbers look good", "yes, I know it's risky, go ahead", "approved, i read the log"]
)
def test_guard_a_yes_with_a_remark_or_an_approval_after_it_still_approves(text: str) -> None:
    assert kind_of(text) == "approve"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("tp 2 on gpus 0-5", "TP2 x DP1 uses 2 GPUs, and you named 6 (GPUs 0-5): name 2 GPUs, or a layout for 6"),
        ("gpus 4-7 only, tp 2", "TP2 x DP1 uses 2 GPUs, and you named 4 (GPUs 4-7): name 2 GPUs, or a layout for 4"),
    ],
)
def test_a_layout_narrower_than_the_gpus_named_with_it_is_refused(text: str, problem: str) -> None:
    """ "tp 4 on gpus 0,1,2,3,4,5" was taken: which four GPUs, or which layout for six? Nothing is taken."""
    rules, _, missed = hear(OperatorRules(), text)
    assert missed == [] and bounds.problems(OperatorRules(), rules, HOST) == [problem]


@pytest.mark.parametrize("text", ["tp 4 on gpus 0-3", "use gpus 0-7, tp 4 dp 2", "gpus 0-3, tp 2 dp 2"])
def test_guard_a_layout_that_fills_the_gpus_named_is_no_problem(text: str) -> None:
    rules, _, _ = hear(OperatorRules(), text)
    assert bounds.problems(OperatorRules(), rules, HOST) == []


def test_guard_a_layout_said_alone_is_not_held_to_gpus_said_before() -> None:
    before, _, _ = hear(OperatorRules(), "use gpus 0-7")
    after, _, _ = hear(before, "tp 4")
    assert bounds.problems(before, after, HOST) == []


@pytest.mark.parametrize(
    "text", ["avoid gpu 2 and use gpus 0-3", "keep off gpu 1, use gpus 0-3", "never port 30000; use port 30000"]
)
def test_a_must_not_lifted_in_the_same_message_takes_nothing(text: str) -> None:
    """ "avoid gpu 2 and use gpus 0-3" was taken as GPUs 0-3 (2 included): which stands? Asked."""
    rules, heard, missed = hear(OperatorRules(), text)
    assert heard == [] and missed == [text] and rules.use_gpus is None and rules.use_port is None


def test_guard_a_must_not_beside_other_gpus_is_taken_whole() -> None:
    assert taken("don't use gpu 2; use gpus 4-7") == {"use_gpus": [4, 5, 6, 7], "avoid_gpus": [2]}


@pytest.mark.parametrize(
    "text",
    [
        "use gpu 2, also 3 if needed",
        "add --enable-torch-compile as needed",
        "tp 2, let me confirm with the team",
        "use port 30010, will revert after the call",
        "tp 4... no wait, tp 2... let me check and get back",
    ],
)
def test_words_the_operator_has_not_decided_take_nothing(text: str) -> None:
    """ "also 5 and 6 if required", "let me check with Suresh and revert": not the operator's word yet."""
    assert taken(text) == {}


def test_guard_let_me_know_is_no_hold() -> None:
    assert taken("use tp 2. let me know the numbers") == {"layout": {"tp": 2, "dp": 1}}


@pytest.mark.parametrize(("text", "kind"), [("hmm ok", "say"), ("hmmm, fine", "say"), ("hmm ok, go ahead", "approve")])
def test_a_hmm_before_a_bare_yes_is_no_yes(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_a_port_with_only_and_the_launch_it_is_for_is_the_port() -> None:
    """ "use port 30010 only for next launch" was asked back as the other port, named in its reason."""
    assert taken("use port 30010 only for next launch, 30000 is busy") == {"use_port": 30010, "avoid_ports": [30000]}


# ------------------------------------------------------------------------------ what is now read


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("when you relaunch, add --enable-torch-compile", {"use_flags": [["--enable-torch-compile"]]}),
        ("next time add --enable-torch-compile", {"use_flags": [["--enable-torch-compile"]]}),
        ("from now on, tp 4", {"layout": {"tp": 4, "dp": 1}}),
        ("unless I say otherwise, tp 2", {"layout": {"tp": 2, "dp": 1}}),
        ("tp 2 dp 4 next", {"layout": {"tp": 2, "dp": 4}}),
    ],
)
def test_when_an_instruction_holds_is_no_word_to_ask_about(text: str, want: dict[str, object]) -> None:
    """Read whole, with no words left over to ask about (they were asked back, or not read at all)."""
    assert rules_said(text) == want and hear(OperatorRules(), text)[2] == []


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("ports 8000 and 8080 belong to monitoring, don't use either of them", [8000, 8080]),
        ("30000-30003 are reserved. never use any of them", [30000, 30001, 30002, 30003]),
    ],
)
def test_a_pronoun_for_ports_named_before_is_those_ports(text: str, want: list[int]) -> None:
    assert taken(text) == {"avoid_ports": want}


def test_guard_use_either_of_two_gpus_is_no_choice_made() -> None:
    assert taken("gpus 2 and 3 are free, use either of them") == {}


@pytest.mark.parametrize(
    "text",
    ["keep going, it can go way higher", "keep optimising, the cost is too high", "continue further, we have time"],
)
def test_more_work_wanted_at_a_met_goal_refuses_the_sign_off(text: str) -> None:
    """It was refused ("`continue` does not sign off"): the operator said plainly not to sign, and to go on."""
    assert kind_of(text, sign_off=True) == "deny"


@pytest.mark.parametrize(("text", "sign_off", "kind"), [("continue", True, "error"), ("keep going", False, "continue")])
def test_guard_a_bare_continue_at_a_sign_off_is_still_refused(text: str, sign_off: bool, kind: str) -> None:
    assert kind_of(text, sign_off=sign_off) == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("don't stop, keep at it", "continue"),
        ("dont ask me every 10 min, keep going", "continue"),
        ("figure it out yourself", "continue"),
        ("do whatever is needed, I'm offline till 5", "continue"),
        ("keep going see if you can squeeze more out of it", "continue"),
        ("not convinced", "deny"),
        ("I wouldn't. no.", "deny"),
        ("not required, skip this step", "deny"),
        ("2nd one is fine", "pick 2"),
        ("go with three", "pick 3"),
        ("please proceed with topo -m", "approve"),
        ("ok sir, go ahead", "approve"),
        ("don't stop the server", "say"),  # guard: a server kept up is an instruction
        ("keep going, 3 more tries", "error"),  # guard: a number bounding the run is refused, never dropped
        ("go with one of them", "say"),  # guard: no step named
        ("keep going see if you can get more with tp 4", "say"),  # guard: a setting in the aim is read
    ],
)
def test_answers_in_words_of_this_round(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_a_refused_sign_off_with_its_reason_after_no_i_cant() -> None:
    assert kind_of("no I can't sign this, p99 is still too high", sign_off=True) == "deny"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Radix cache to be disabled please", {"use_flags": [["--disable-radix-cache"]]}),
        ("Port 30000 should not be used at any cost, it is prod port", {"avoid_ports": [30000]}),
        ("Do the needful to remove --disable-cuda-graph", {"avoid_flags": ["--disable-cuda-graph"]}),
        ("Kindly use /data/models/llama-70b as model path", {"use_model": "/data/models/llama-70b"}),
        ("any gpu you like except 0, 1 or 2", {"avoid_gpus": [0, 1, 2]}),
        ("whatever layout you pick, nothing on 0 or 7", {"avoid_gpus": [0, 7]}),
        ("clear NCCL_P2P_DISABLE out of the env", {"unset_env": ["NCCL_P2P_DISABLE"]}),
        ("its a custom model so --trust-remote-code", {"use_flags": [["--trust-remote-code"]]}),
        ("schedule policy FCFS", {"use_flags": [["--schedule-policy", "fcfs"]]}),
        ("okay like try the kv cache dtype FP eight E five M two", {"use_flags": [["--kv-cache-dtype", "fp8_e5m2"]]}),
        ("dont touch ports eight thousand or eight thousand and eighty", {"avoid_ports": [8000, 8080]}),
    ],
)
def test_instructions_in_words_of_this_round(text: str, want: dict[str, object]) -> None:
    assert taken(text) == want


def test_a_restart_once_with_nothing_to_change_is_the_relaunch() -> None:
    rules, heard, missed = hear(OperatorRules(), "Kindly restart the server once, nothing to change.")
    assert rules.relaunch_wanted and heard and missed == []


def test_a_hub_id_said_first_with_its_layout_is_asked_back_whole() -> None:
    assert taken("Qwen/Qwen2.5-7B-Instruct tp 2 with --trust-remote-code") == {
        "use_model": "Qwen/Qwen2.5-7B-Instruct",
        "layout": {"tp": 2, "dp": 1},
        "use_flags": [["--trust-remote-code"]],
    }


@pytest.mark.parametrize(
    "text",
    ["Hi team, good morning. As discussed in morning call, use port 30010", "Sir pls use mem fraction 0.8"],
)
def test_a_greeting_and_an_agreement_the_run_never_heard_are_no_words_to_ask_about(text: str) -> None:
    """They were asked back with the reading ("I did not understand: 'Hi'; 'good morning'")."""
    _, heard, missed = hear(OperatorRules(), text)
    assert heard and missed == []


@pytest.mark.parametrize("text", ["hey", "please", "next time"])
def test_words_of_no_clause_are_still_words_not_understood(text: str) -> None:
    """ "please" alone was heard as nothing and answered nothing; "hey" and "next time" are guards (reported
    before, and emptied by this round's greeting and time words)."""
    assert hear(OperatorRules(), text)[2] == [text]


def test_the_proposed_step_named_as_a_check_approves_it() -> None:
    """ "Ok sir, please proceed with the topology check": "check" names no step; "topology" names the proposal."""
    topo = Action(tool="run_command", args={"command": "nvidia-smi topo -m"})
    steps = [
        QuestionOption(number=1, description="read the topology", action=topo),
        QuestionOption(number=2, description="read the log", action=Action(tool="run_command", args={"command": "ls"})),
    ]
    question = Question(
        id="q", trigger="low_confidence", reason="r", question="?", asked_at=0.0, action=topo, options=steps
    )
    assert parse_reply("Ok sir, please proceed with the topology check.", question, "op").kind == "approve"


# ------------------------------------------------------------------------------ the round's second pass
# Classes left after the first fixes (sre137-139 and redteam34 below 95%); each case fails on 3763ed8 unless
# named a guard.


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("halt, no more launches today", "stop"),
        ("end the whole session, no more launches for today", "stop"),
        ("stop it, the whole run", "stop"),
        ("kill it - the entire session I mean, not just the server", "stop"),
        ("stop the server, no more launches today", "say"),  # guard: the server, and the hold, as instructions
        ("no more launches today", "say"),  # guard: the hold alone
        ("stop it for now", "say"),  # guard: "it" is the server
    ],
)
def test_the_run_stopped_with_its_reason_or_it_put_right_is_the_stop(text: str, kind: str) -> None:
    """ "halt. end the whole run, no more launches today" was asked back as the hold, the stop not understood."""
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("approved — the review is tomorrow", "approve"),
        ("go ahead — customer demo is tomorrow", "approve"),
        ("approved — but on port 30001", "say"),  # guard: a condition after the dash
    ],
)
def test_a_dash_sets_a_remark_apart_as_a_comma_does(text: str, kind: str) -> None:
    """ "tomorrow" after a dash was weighed as "approved tomorrow": a yes for later, asked again."""
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "kind"), [("Yes approved", "approve"), ("Sure approved", "approve"), ("Raj approved it", "say")]
)
def test_a_capitalised_yes_is_no_one_elses_name(text: str, kind: str) -> None:
    """ "Yes approved from my side" was read as someone called Yes approving; "Raj approved it" is the guard."""
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "sign_off", "kind"),
    [
        ("kindly close it", True, "approve"),
        ("close the run", True, "approve"),
        ("keep pushing its not done", True, "deny"),
        ("keep going we're not done yet", True, "deny"),
        ("approved its not done", True, "say"),  # guard: a yes and a no, asked again
        ("close it", False, "say"),  # guard: at a proposal "it" may be anything
    ],
)
def test_a_sign_off_in_words_of_closing_and_more_work_said_unpunctuated(text: str, sign_off: bool, kind: str) -> None:
    assert kind_of(text, sign_off=sign_off) == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("do the one you proposed", "approve"),
        ("just do what you suggested", "approve"),
        ("do the one you proposed, on port 30001", "say"),  # guard: a condition with it
    ],
)
def test_the_proposal_named_as_yours_approves_it(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("get rid of that NCCL_DEBUG variable unset it", {"unset_env": ["NCCL_DEBUG"]}),
        ("set the memory fraction thing to 0.85", {"use_flags": [["--mem-fraction-static", "0.85"]]}),
    ],
)
def test_dictated_restatements_and_filler_are_read_whole(text: str, want: dict[str, object]) -> None:
    assert rules_said(text) == want and asked_back(text) is None


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("NCCL_P2P_DISABLE=1 should fix the hang", "use NCCL_P2P_DISABLE=1"),
        ("--disable-cuda-graph might help with the crash", "use --disable-cuda-graph"),
        ("priya says CUDA_DEVICE_MAX_CONNECTIONS=1 should fix the hang", "use CUDA_DEVICE_MAX_CONNECTIONS=1"),
        ("bob wrote --mem-fraction-static 0.8", "--mem-fraction-static 0.8"),
        ("Priya's slack msg: 'NCCL_DEBUG=INFO'", "NCCL_DEBUG=INFO"),
    ],
)
def test_a_remedy_offered_or_someone_elses_setting_is_asked_back_never_taken(text: str, reading: str) -> None:
    """They were not understood at all; a setting offered as a fix, or in another's words, is a maybe to ask."""
    assert rules_said(text) == {} and asked_back(text) == reading


def test_guard_a_setting_that_fixed_it_is_a_report_not_a_request() -> None:
    assert (
        rules_said("NCCL_P2P_DISABLE=1 fixed the hang") == {}
        and asked_back("NCCL_P2P_DISABLE=1 fixed the hang") is None
    )


def test_a_remedy_is_asked_back_in_the_operators_own_words() -> None:
    """Never "You said it as a maybe ('maybe')": the operator wrote no "maybe"; the readback quotes what they wrote."""
    asked = ask_back(OperatorRules(), "NCCL_P2P_DISABLE=1 should fix the hang", None, HOST)
    assert asked is not None and "('should fix the hang')" in asked.readback and "'maybe'" not in asked.readback


@pytest.mark.parametrize("value", ["flashinfer", "triton"])
def test_a_backend_named_alone_is_asked_back_as_the_attentions_saying_so(value: str) -> None:
    """ "flashinfer backend" was not understood at all; flashinfer is a sampling and a MoE backend too."""
    asked = ask_back(OperatorRules(), f"{value} backend", None, HOST)
    assert rules_said(f"{value} backend") == {}
    assert asked is not None and asked.confirm == f"use --attention-backend {value}"
    assert "not which (attention, sampling or MoE)" in asked.readback


@pytest.mark.parametrize(
    ("text", "want"), [("fa3 backend", {"use_flags": [["--attention-backend", "fa3"]]}), ("pytorch backend", {})]
)
def test_guard_a_backend_only_attention_takes_is_read_and_one_it_never_takes_is_not(
    text: str, want: dict[str, object]
) -> None:
    assert rules_said(text) == want and (asked_back(text) is None)
