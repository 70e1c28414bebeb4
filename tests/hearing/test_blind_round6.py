"""Classes found on the blind sets sre47-sre52 (#27, round fifteen), each checked on sentences written
here, not copied from the sets: GPU ids with a verb only a GPU takes (even one id), asked back; "on all
eight" against the host's GPUs; a must-not said last; a request asked as a question over several
clauses; a German operator's words; an incident's "NOW"; courtesies and the operator's own time that
change nothing; a step named by its words; and a laugh before a yes, which is no yes."""

from __future__ import annotations

import pytest
from hearing_testkit import asking, kind_of, rules_said

from agent.hearing.heed import ask_back
from agent.hearing.instructions import hear
from agent.hearing.replies import parse_reply
from agent.state import OperatorRules

EIGHT = list(range(8))


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # a courtesy or an apology is a clause that changes nothing, and is not "not understood"
        ("sorry, serve on port 30007", {"use_port": 30007}),
        ("my bad, don't use gpu 2", {"avoid_gpus": [2]}),
        ("apologies. tp 2", {"layout": {"tp": 2, "dp": 1}}),
        # German "bis", a slip of "with", an incident's urgency
        ("gpus 2 bis 5", {"use_gpus": [2, 3, 4, 5]}),
        ("relaunch wiht tp 2", {"layout": {"tp": 2, "dp": 1}}),
        ("port 30009 stat", {"use_port": 30009}),
        # a quantization or a context length said short, a knob after "use"/"set"
        ("fp8 quant please", {"use_flags": [["--quantization", "fp8"]]}),
        ("ctx 8192 stat", {"use_flags": [["--context-length", "8192"]]}),
        ("use chunked prefill 2048", {"use_flags": [["--chunked-prefill-size", "2048"]]}),
        ("set context length 8192", {"use_flags": [["--context-length", "8192"]]}),
        # a must-not said last, "keep away from", "bind to", the model "under" a path
        ("gpus 6 and 7 never", {"avoid_gpus": [6, 7]}),
        ("bind it to cards 4-7", {"use_gpus": [4, 5, 6, 7]}),
        ("serve the model under /data/m-7b", {"use_model": "/data/m-7b"}),
        # a setting the model needs is one to launch with
        ("this model needs trust remote code", {"use_flags": [["--trust-remote-code"]]}),
        ("--disable-radix-cache is required for this model", {"use_flags": [["--disable-radix-cache"]]}),
        # a switch in brackets after the words that name it, a short word of its name among them
        ("switch on dp attention (--enable-dp-attention)", {"use_flags": [["--enable-dp-attention"]]}),
        # a port as the subject, then "that port"; "launch on" a port
        ("31000 is off limits, never use that port", {"avoid_ports": [31000]}),
        ("launch on port 30013", {"use_port": 30013}),
        # a request asked as a question, over several clauses
        ("could you relaunch on gpus 0 and 1, on port 30011?", {"use_gpus": [0, 1], "use_port": 30011}),
        ("is it ok if you serve on port 30012?", {"use_port": 30012}),
        # when the operator wants it done is no instruction of its own
        ("after the relaunch measure again", {"measure_again": True}),
        ("before signing off could you measure again?", {"measure_again": True}),
    ],
)
def test_round_fifteen_forms_are_heard(text: str, meant: dict[str, object]) -> None:
    _, _, missed = hear(OperatorRules(), text)
    assert rules_said(text) == meant and not missed, (rules_said(text), missed)


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # heard, and the remark beside it answered "I did not understand" (harmless)
        ("tp 2 NOW the queue is melting", {"layout": {"tp": 2, "dp": 1}}),
        ("gpu 4 is flaky, keep away from it", {"avoid_gpus": [4]}),
    ],
)
def test_round_fifteen_forms_are_heard_beside_a_remark(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        # ids with a verb only a GPU takes, even one id: a step or a port? asked back, never taken
        ("never touch 5, it's flaky", "don't use GPUs 5"),
        ("leave 1 alone", "don't use GPUs 1"),
        ("w/o 0 and 1 please", "don't use GPUs 0 and 1"),
        ("2,3 excluded", "don't use GPUs 2,3"),
        ("take 4-7", "use GPUs 4-7"),
        ("4 and 5 on port 30020", "use GPUs 4 and 5; use port 30020"),
        # "across all eight" on a host with eight GPUs: every one of them
        ("tp2 dp4 across all eight", "tp 2 dp 4; GPUs 0,1,2,3,4,5,6,7"),
        # a must-not said last, then a reason: the reason is not understood, so the reading is asked back
        ("gpus 6 and 7 never, the training reservation", "never use gpus 6 and 7"),
    ],
)
def test_ids_said_without_a_word_for_them_are_asked_back(text: str, reading: str) -> None:
    rules, _, _ = hear(OperatorRules(), text)
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is not None and asked.confirm == reading, asked and asked.confirm
    if "never" not in text:
        assert rules.avoid_gpus == [] and rules.use_gpus is None  # nothing taken before a yes


@pytest.mark.parametrize("text", ["skip 3", "avoid 30000 and 3 more", "use 9 of them"])
def test_a_lone_number_a_step_could_be_is_not_read_as_a_gpu(text: str) -> None:
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is None or "GPUs" not in (asked.confirm or ""), asked.confirm if asked else None


def test_all_eight_is_only_read_against_a_host_that_has_eight() -> None:
    asked = ask_back(OperatorRules(), "tp2 dp2 across all eight", None, [0, 1, 2, 3])
    assert asked is None or "GPUs" not in (asked.confirm or "")
    # "use all 8 gpus" is the layout's width, as the older sets read it: a count, asked back as such
    counted = ask_back(OperatorRules(), "use all 8 gpus", None, EIGHT)
    assert counted is not None and counted.confirm == "tp 8"


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("good2go", "approve", False),
        ("just 2, the gpu list first", "pick 2", False),
        ("scancel the run", "stop", False),
        # a German operator
        ("nein, too risky right now", "deny", False),
        ("ja bitte", "approve", False),
        ("Nummer 2", "pick 2", False),
        ("mach weiter, I'm busy", "continue", False),
        # the sign-off refused in so many words, or after an apology
        ("do not sign off yet, one run is no trend", "deny", True),
        ("nein, please no sign-off, need p50 too", "deny", True),
        ("sorry, not now, the lead wants to look first", "deny", False),
        # a refusal run on into its reason with no comma (older sets' leftovers)
        ("negative not this one", "deny", False),
        ("no hold off the numbers are still moving", "deny", False),
        ("don't run that the driver is wedged", "deny", False),
        ("don't run that on gpu 3", "say", False),  # words the grammar reads: an instruction, no refusal
        # go on, said as "stop asking me" or "don't wait for my reply"
        ("stop asking me for every step, just proceed", "continue", False),
        ("carry on, no need to wait for my reply", "continue", False),
        # an apology for the wait, and the proposal named as "the ... one"
        ("sure, sorry for the wait. go ahead with the topo one", "approve", False),
        # a step named by its words
        ("could you do the log one first please", "pick 3", False),
        ("sorry, can you just do 2 first? the gpu list one", "pick 2", False),
    ],
)
def test_round_fifteen_replies_are_heard(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


def test_the_operators_own_time_is_no_bound_on_the_run() -> None:
    reply = parse_reply("carry on, I'm at lunch for 30 min", asking(), "op")
    assert reply.kind == "continue" and reply.steps is None
    # a time said of the run itself is still never dropped: not a plain continue
    assert kind_of("carry on for 30 min") != "continue"


@pytest.mark.parametrize("text", ["haha sure", "lmao ok", "lol yes"])
def test_a_laugh_before_a_yes_is_no_yes(text: str) -> None:
    assert kind_of(text) == "say"
    assert kind_of(text.split()[1]) == "approve"  # the yes alone is one


def test_ids_after_without_are_no_step_picked() -> None:
    """ "w/o 4 and 5": no "there is no step 5" refusal, and no pick: words to read (asked back)."""
    assert kind_of("w/o 4 and 5") == "say"
    assert kind_of("4,5 excl'd") == "say"
