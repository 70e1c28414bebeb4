"""Classes found on the blind sets sre47-sre52 and sre53-sre57 (#27, rounds fifteen and sixteen), each
checked on sentences written
here, not copied from the sets: GPU ids with a verb only a GPU takes (even one id), asked back; "on all
eight" against the host's GPUs; a must-not said last; a request asked as a question over several
clauses; a German operator's words; an incident's "NOW"; courtesies and the operator's own time that
change nothing; a step named by its words; and a laugh before a yes, which is no yes."""

from __future__ import annotations

import pytest
from hearing_testkit import asking, kind_of, rules_said

from agent.hearing.heed import ask_back
from agent.hearing.instructions import hear
from agent.hearing.replies import ReplyError, parse_reply
from agent.state import Action, OperatorRules, Question, QuestionOption

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
        ("tp2 dp4 across all eight", "tp 2 dp 4; use GPUs 0,1,2,3,4,5,6,7"),
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
    # "use all 8 gpus": older sets read it as the layout's width, a round-26 writer as every GPU with no
    # layout said; every GPU is asked back, which sets no TP the operator did not say
    counted = ask_back(OperatorRules(), "use all 8 gpus", None, EIGHT)
    assert counted is not None and counted.confirm == "use GPUs 0-7"


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


# ----------------------------------------------------------------------- round sixteen (sre53-sre57)


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # Japanese: a verb said last, the topic marker and "please", a tilde range; an en dash range
        ("GPU 4-7 使わないでください", {"avoid_gpus": [4, 5, 6, 7]}),
        ("attention backend は fa3 でお願いします", {"use_flags": [["--attention-backend", "fa3"]]}),
        ("launch on gpu 4~7", {"use_gpus": [4, 5, 6, 7]}),
        ("GPUs 0–3 only", {"use_gpus": [0, 1, 2, 3]}),
        ("port is 30021", {"use_port": 30021}),
        # a platform engineer's words
        ("cordon 2 and 3", {"avoid_gpus": [2, 3]}),
        ("taint 1 and 2", {"avoid_gpus": [1, 2]}),
        ("gpus 4-7 are tainted", {"avoid_gpus": [4, 5, 6, 7]}),
        ("svc port 8081", {"use_port": 8081}),
        ("redeploy with /models/x", {"use_model": "/models/x"}),
        ("scale it to 0", {"stop_server": True, "no_relaunch": True}),
        ("schedule on 4 5 6 7 only", {"use_gpus": [4, 5, 6, 7]}),
        # a field engineer's formal must-nots
        ("please refrain from using gpu 6", {"avoid_gpus": [6]}),
        ("refrain from binding to port 30000", {"avoid_ports": [30000]}),
        ("stop the inference server", {"stop_server": True, "no_relaunch": True}),
        # ports: a bare port after "touch", "no ports", a list with spaces
        ("never touch 30005", {"avoid_ports": [30005]}),
        ("no ports 30001-30003", {"avoid_ports": [30001, 30002, 30003]}),
        ("avoid ports 30004 30005 and 30006", {"avoid_ports": [30004, 30005, 30006]}),
        # slips and asides of a tired operator and a researcher
        ("kv cahce fp8", {"use_flags": [["--kv-cache-dtype", "fp8_e4m3"]]}),
        ("contxt length 4096", {"use_flags": [["--context-length", "4096"]]}),
        ("tp 2 for the ablation", {"layout": {"tp": 2, "dp": 1}}),
        ("trust remote code flag", {"use_flags": [["--trust-remote-code"]]}),
        ("this model need --trust-remote-code", {"use_flags": [["--trust-remote-code"]]}),
    ],
)
def test_round_sixteen_forms_are_heard(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


def test_ids_put_right_after_no_wait_are_the_gpus_asked_back() -> None:
    asked = ask_back(OperatorRules(), "use gpus 2-3 no wait 6-7", None, EIGHT)
    assert asked is not None and asked.confirm == "use gpus 6-7"


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("はい、OK です", "approve", False),
        ("いいえ、the log is enough", "deny", False),
        ("number 2 please、quickly", "pick 2", False),
        ("no need to ask me every time", "continue", False),
        ("please continue your plan", "continue", False),
        ("go on by yourself", "continue", False),
        ("keep going without asking me", "continue", False),
        ("don't block on me", "continue", False),
        ("go on, no need to wait for my approval at each step", "continue", False),
        ("w/e keep goin", "continue", False),
        ("terminate the whole run", "stop", False),
        ("confirmed.", "approve", True),
        ("ok. 2,400 tok/s beats the target. sign off", "approve", True),  # "tok/s" is no path
        ("do #2 the gpu list", "pick 2", False),
        ("let's do 2 gpus", "say", False),  # a count of GPUs, never step 2 named by "gpus"
        ("schedule on 4 5 6 7 only", "say", False),  # ids, never "there is no step 5"
    ],
)
def test_round_sixteen_replies_are_heard(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


def _with_steps() -> Question:
    """The question as a report asks it: the proposal is step 1's command."""
    topo = Action(tool="run_command", args={"command": "nvidia-smi topo -m"})
    return asking().model_copy(
        update={
            "options": [
                QuestionOption(number=1, description="read the topology", action=topo),
                QuestionOption(
                    number=2,
                    description="list the GPUs",
                    action=Action(tool="run_command", args={"command": "nvidia-smi -L"}),
                ),
            ]
        }
    )


def test_the_proposed_step_named_in_words_is_approved() -> None:
    question = _with_steps()
    assert parse_reply("please proceed with the topology read", question, "op").kind == "approve"
    # a step that is not the proposal, named the same way, approves nothing
    assert parse_reply("please proceed with the gpu list", question, "op").kind != "approve"


# --------------------------------------------------------------------- round seventeen (sre58-sre62)


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # a flag pasted as SGLang names it: the model's path, a value glued on
        ("--model-path /models/m-8b", {"use_model": "/models/m-8b"}),
        ("--tp2", {"use_flags": [["--tp-size", "2"]]}),
        (
            "serve /models/m-8b --tp 2 --trust-remote-code",
            {"use_model": "/models/m-8b", "use_flags": [["--tp-size", "2"], ["--trust-remote-code"]]},
        ),
        ('env:\n  NCCL_ALGO: "Ring"', {"set_env": {"NCCL_ALGO": "Ring"}}),
        # a terse operator's verb said last, "p" for port, "no radix", a list of ports with spaces
        ("gpu5 no", {"avoid_gpus": [5]}),
        ("gpu 2-3 avoid please", {"avoid_gpus": [2, 3]}),
        ("p 30015", {"use_port": 30015}),
        ("no radix", {"use_flags": [["--disable-radix-cache"]]}),
        ("avoid 30020 30021", {"avoid_ports": [30020, 30021]}),
        ("stop sglang no relaunch", {"stop_server": True, "no_relaunch": True}),
        # Indian English: "to be used", "as", "only" and "also" for emphasis
        ("fp8 kv cache to be used", {"use_flags": [["--kv-cache-dtype", "fp8_e4m3"]]}),
        ("context length 8192 only", {"use_flags": [["--context-length", "8192"]]}),
        ("set max running requests as 32", {"use_flags": [["--max-running-requests", "32"]]}),
        ("add --enable-torch-compile also", {"use_flags": [["--enable-torch-compile"]]}),
        # what a setting is for, and where it goes, change nothing
        ("run with --quantization fp8 to save memory", {"use_flags": [["--quantization", "fp8"]]}),
        ("add --enable-dp-attention to the launch", {"use_flags": [["--enable-dp-attention"]]}),
        # ports said to be reserved, then "dont use" with no object: those ports
        ("ports 30030-30031 reserved, dont use", {"avoid_ports": [30030, 30031]}),
    ],
)
def test_round_seventeen_forms_are_heard(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


def test_a_flag_in_no_sglang_release_is_never_launched_but_may_be_kept_out() -> None:
    """ "--frobnicate-cache 4": a launch would fail on it; unknown is asked about, not taken. Keeping a
    flag out of every launch is harmless, whatever it is."""
    assert rules_said("--frobnicate-cache 4") == {}
    assert rules_said("don't use --frobnicate-cache") == {"avoid_flags": ["--frobnicate-cache"]}


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("use port 30001 maybe", "use port 30001"),
        # "y not" is "why not": a suggestion to use GPU 3, never "not use gpu 3" (a misread older than
        # this round, found while checking the Spanish "y")
        ("y not use gpu 3", "use gpu 3"),
    ],
)
def test_a_suggestion_is_asked_back_never_taken(text: str, reading: str) -> None:
    assert rules_said(text) == {}
    asked = ask_back(OperatorRules(), text, None, EIGHT)
    assert asked is not None and asked.confirm == reading


def test_ids_with_a_layout_and_no_word_for_them_are_asked_back() -> None:
    asked = ask_back(OperatorRules(), "0-3 tp2 dp2", None, EIGHT)
    assert asked is not None and asked.confirm == "use GPUs 0-3; tp 2 dp 2"
    assert rules_said("0-3 tp2 dp2") == {}


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("kindly do the needful", "approve", False),
        ("pls don't run that now, the network team is busy", "deny", False),
        ("option 2 itself", "pick 2", False),
        ("no no, not yet", "deny", True),
    ],
)
def test_round_seventeen_replies_are_heard(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("skip the topo", "deny"),  # the proposal named, refused
        ("nvidia-smi topo -m", "approve"),  # the proposal's own command, pasted back
        ("nvidia-smi -L", "pick"),  # a step's own command: that step
        ("skip 2", "error"),  # a step or a GPU? asked which (round 24), never a refusal of the proposal
    ],
)
def test_the_proposal_or_a_step_named_by_its_command(text: str, kind: str) -> None:
    if kind == "error":
        with pytest.raises(ReplyError, match="or GPU 2"):
            parse_reply(text, _with_steps(), "op")
        return
    reply = parse_reply(text, _with_steps(), "op")
    assert reply.kind == kind
    if kind == "pick":
        assert reply.pick == 2


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # a Spanish-speaking SRE's words (sre58 was 41% at first sight: whole clauses in Spanish)
        ("usa solo las gpus 0-1", {"use_gpus": [0, 1]}),
        ("no toques la 5 ni la 6", {"avoid_gpus": [5, 6]}),
        ("puerto 30040 por favor", {"use_port": 30040}),
        ("relanza con tp 2", {"layout": {"tp": 2, "dp": 1}}),
        ("kv cache en fp8 porfa", {"use_flags": [["--kv-cache-dtype", "fp8_e4m3"]]}),
        ("quita NCCL_ALGO del env", {"unset_env": ["NCCL_ALGO"]}),
        ("apaga el server pero no cierres el run", {"stop_server": True, "no_relaunch": True}),
        ("gpus 4 y 5 solamente", {"use_gpus": [4, 5]}),
    ],
)
def test_spanish_instructions_are_heard(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("sí, por favor", "approve", False),
        ("el 3, por favor", "pick 3", False),
        ("no me esperes, sigue con tu plan", "continue", False),
        ("todavía no, quiero otra medida", "deny", True),
        ("no firmes", "deny", True),
        ("y, run it", "approve", False),  # an English "y" first is still a yes, never "and"
    ],
)
def test_spanish_replies_are_heard(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind
