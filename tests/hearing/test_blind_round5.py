"""Classes found on the blind sets sre36-sre40 and on the older sets' leftovers (#27, round thirteen),
each checked on sentences written here, not copied from the sets: a ticket cited after a remark,
numbered lists on one line, GPU sets with an exception, a flag named by one word or cut short, an
editor's s/old/new/, a pronoun after a fact about a GPU or a feature, votes, and "don't wait on me"
with what it is said about."""

from __future__ import annotations

import pytest
from hearing_testkit import kind_of, rules_said

from agent.hearing.heed import ask_back
from agent.hearing.instructions import hear
from agent.state import OperatorRules


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # a remark between ends the list: the verb before it is not carried to a ticket after it
        ("skip gpu 3, it's flaky. CHG0012345.", {"avoid_gpus": [3]}),
        ("don't use port 30000, grafana lives there. NCCL_DEBUG", {"avoid_ports": [30000]}),
        # a numbered list on one line, each item a clause
        ("1) stop the server 2) don't relaunch", {"stop_server": True, "no_relaunch": True}),
        ("a) tp 2 b) gpus 2-3 only", {"layout": {"tp": 2, "dp": 1}, "use_gpus": [2, 3]}),
        # a set of GPUs with an exception
        ("run on 0-3 except 2", {"use_gpus": [0, 1, 3]}),
        ("use gpus 4,5,6,7 but not 6", {"use_gpus": [4, 5, 7]}),
        ("use zero, two and four", {"use_gpus": [0, 2, 4]}),
        ("use gpus 2-3 for this", {"use_gpus": [2, 3]}),
        ("run it on 4-5", {"use_gpus": [4, 5]}),
        ("put it on GPU's 2 to 3", {"use_gpus": [2, 3]}),
        # a flag named by one word whose values SGLang names, or by its first words
        ("quantization fp8", {"use_flags": [["--quantization", "fp8"]]}),
        ("set quantization to awq", {"use_flags": [["--quantization", "awq"]]}),
        ("max running 48", {"use_flags": [["--max-running-requests", "48"]]}),
        ("context length 16k nobody needs more", {"use_flags": [["--context-length", "16384"]]}),
        ("unset NCCL_ALGO before launching", {"unset_env": ["NCCL_ALGO"]}),
        ("get rid of NCCL_ALGO it breaks ring", {"unset_env": ["NCCL_ALGO"]}),
        # an editor's substitution is the change it makes
        ("s/tp 2/tp 8/", {"layout": {"tp": 8, "dp": 1}}),
        ("s/0.9/0.8/ on --mem-fraction-static", {"use_flags": [["--mem-fraction-static", "0.8"]]}),
        (
            "--attention-backend flashinfr s/flashinfr/flashinfer/",
            {"use_flags": [["--attention-backend", "flashinfer"]]},
        ),
        # a pronoun after a fact about what it names
        ("gpu 6 is flaky, never schedule on it", {"avoid_gpus": [6]}),
        ("5 is reserved, never put anything on it", {"avoid_gpus": [5]}),
        ("6 thru 7 belong to the vm team. don't touch them", {"avoid_gpus": [6, 7]}),
        ("torch compile keeps crashing, drop it", {"avoid_flags": ["--enable-torch-compile"]}),
        # a slip of a must-not's verb, "period", a port said in words, "go with" a port
        ("avod gpu 1", {"avoid_gpus": [1]}),
        ("gpus 0 and 1 are off limits, period", {"avoid_gpus": [0, 1]}),
        ("stay off thirty thousand", {"avoid_ports": [30000]}),
        ("go with 30007", {"use_port": 30007}),
        # a phone's words (sre37): a level said after the variable, "fa 3", "r", "on the rest"
        ("nccl debug warn pls", {"set_env": {"NCCL_DEBUG": "WARN"}}),
        ("attention backend fa 3", {"use_flags": [["--attention-backend", "fa3"]]}),
        ("fa3 backend", {"use_flags": [["--attention-backend", "fa3"]]}),
        ("stop the server but keep the run going", {"stop_server": True, "no_relaunch": True}),
        ("gpu five is dead stay off it", {"avoid_gpus": [5]}),
        ("0-1 only, 2-7 r busy", {"use_gpus": [0, 1]}),
        ("skip 0 and 1, tp2 dp3 on the rest", {"avoid_gpus": [0, 1], "layout": {"tp": 2, "dp": 3}}),
        # round fourteen (sre41-sre45): kebab-case settings, "rm", "or" after a must-not, a must-not
        # until a repair, who asked for it, "for the benchmark"
        (
            "max-running-requests=96, context-length=8192",
            {"use_flags": [["--max-running-requests", "96"], ["--context-length", "8192"]]},
        ),
        ("rm NCCL_ALGO from env", {"unset_env": ["NCCL_ALGO"]}),
        ("never use gpu 2 or port 8080", {"avoid_gpus": [2], "avoid_ports": [8080]}),
        ("gpu 4 and 5 are off limits until the RMA is done", {"avoid_gpus": [4, 5]}),
        ("--cuda-graph-max-bs 32 per Priya", {"use_flags": [["--cuda-graph-max-bs", "32"]]}),
        ("turn off cuda graph for the benchmark", {"use_flags": [["--disable-cuda-graph"]]}),
        ("limit concurrency to 48 in-flight requests", {"use_flags": [["--max-running-requests", "48"]]}),
        # a must-not said in everyday words carries to the next clause with no verb: before, "gpu 1 as
        # well" after "never schedule on gpu 0" was read on its own, as "use GPU 1"
        ("never schedule on gpu 0; gpu 1 as well", {"avoid_gpus": [0, 1]}),
        ("nothing goes on gpu 2, and gpu 3", {"avoid_gpus": [2, 3]}),
        ("keep off gpu 4, NVML sits on it", {"avoid_gpus": [4]}),  # an acronym after it is no variable
        # signs that say a word (sre43): before, a cross was dropped as a gesture and "0-3 ✗" was "use 0-3"
        ("4-5 ✗", {"avoid_gpus": [4, 5]}),
        ("gpu 2 ✗ port 8080 ✗", {"avoid_gpus": [2], "avoid_ports": [8080]}),
        ("gpus 2,3 ✗ reserved", {"avoid_gpus": [2, 3]}),
        ("port≠31000", {"avoid_ports": [31000]}),
        ("tp2->tp4", {"layout": {"tp": 4, "dp": 1}}),
        ("mem .8", {"use_flags": [["--mem-fraction-static", "0.8"]]}),
        ("quant awq", {"use_flags": [["--quantization", "awq"]]}),
        ("kv=fp8_e5m2", {"use_flags": [["--kv-cache-dtype", "fp8_e5m2"]]}),
        ("p2p=off", {"set_env": {"NCCL_P2P_DISABLE": "1"}}),
        ("model → /models/phi-4", {"use_model": "/models/phi-4"}),
        ("prot 30005", {"use_port": 30005}),
        ("30001 + 30002 taken, stay off em", {"avoid_ports": [30001, 30002]}),
        # a French SRE's English (sre45)
        ("attention : never use --enable-torch-compile", {"avoid_flags": ["--enable-torch-compile"]}),
        ("we must not use 30000, take 31500", {"avoid_ports": [30000], "use_port": 31500}),
        ("kv cache in fp8 svp", {"use_flags": [["--kv-cache-dtype", "fp8_e4m3"]]}),
        ("keep the kv cache in bf16", {"use_flags": [["--kv-cache-dtype", "bf16"]]}),  # as heldout2 had it
        ("please to use the model in /data/m", {"use_model": "/data/m"}),
        # sre46, written to aim at this round's forms: a value's arrow, lists in brackets and numerals,
        # a port substituted, a variable or a model named before "it"/"that"
        ("mem frac 0.9 -> 0.8", {"use_flags": [["--mem-fraction-static", "0.8"]]}),
        ("tp8 ✗ → tp2 on gpus 2-3", {"layout": {"tp": 2, "dp": 1}, "use_gpus": [2, 3]}),
        ("(1) --disable-cuda-graph (2) port 30007", {"use_flags": [["--disable-cuda-graph"]], "use_port": 30007}),
        ("i) unset NCCL_ALGO ii) tp 2", {"unset_env": ["NCCL_ALGO"], "layout": {"tp": 2, "dp": 1}}),
        ("s/30000/30009/", {"use_port": 30009}),
        ("s/0.9/0.7/ on mem-fraction-static", {"use_flags": [["--mem-fraction-static", "0.7"]]}),
        ("gpus 0-3 minus 1, tp2 dp1", {"use_gpus": [0, 2, 3], "layout": {"tp": 2, "dp": 1}}),
        ("NCCL_PROTO is a leftover, unset it", {"unset_env": ["NCCL_PROTO"]}),
        ("/models/phi-4 is the one we want, serve that", {"use_model": "/models/phi-4"}),
        ("9000 is minio's api, stay off it", {"avoid_ports": [9000]}),
    ],
)
def test_round_thirteen_forms_are_heard(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    "text",
    [
        "drop the mem fraction a bit",  # lower it by an amount never said, not the flag left out
        "drop the chunked prefill size",  # lower it, or leave the flag out? Not a guess to make
        "lower the context length slightly",
        "INC0012345",  # a ticket, never a variable
        "use 0-3 except 5",  # 5 is not in 0-3: not a set taken from that list
        "s/foo/bar/",  # a substitution of words said nowhere before it
        "the model is too big, drop it",  # the model is no flag to leave out
        "triton backend",  # attention, MoE runner or sampling: SGLang has triton for each
        "0-7 but not 4",  # bare ids, with or without an exception, are only asked back
        "NCCL_DEBUG is noisy, set it",  # set it to what?
    ],
)
def test_words_that_change_nothing_certain_set_nothing(text: str) -> None:
    assert rules_said(text) == {}


@pytest.mark.parametrize(
    ("text", "kind", "sign_off"),
    [
        ("+1", "say", False),  # round 36: a bare vote at a proposal is asked again (it may be for a teammate's line)
        ("-1", "deny", False),
        ("-1, not until the bench is rerun", "deny", True),
        ("+1 sign it", "approve", True),
        ("carry on as planned", "continue", False),
        ("no need to wait on me for read-only stuff", "continue", False),
        ("don't keep checking in with me for these, keep going with your own plan", "continue", False),
        ("go on with your own plan, I'll check back after lunch", "continue", False),
        ("stop everything would you", "stop", False),
        ("do 3 only", "pick 3", False),
        ("end the whole run we are done", "stop", False),
        ("go 2x4 -- tp 2, dp 4", "say", False),  # words the grammar reads, not a step count refused
        ("s/30000/30006/", "say", False),  # read as words, where a reply with no two letters was refused
        ("please hold off", "deny", False),
        ("let's not sign off yet, the customer wants p99 first", "deny", True),
        ("keep going, I'll check back after the standup", "continue", False),
        ("carry on, you dont need to wait for me on every step lol", "continue", False),
        ("non, not now svp", "deny", False),
        ("go on without me, I look at the results later", "continue", False),
        ("the 2 svp", "pick 2", False),
        ("carry on w/ whatever u had", "continue", False),
        ("nah ✗ not that one", "deny", False),
    ],
)
def test_votes_and_do_not_wait_on_me_are_heard(text: str, kind: str, sign_off: bool) -> None:
    assert kind_of(text, sign_off) == kind


@pytest.mark.parametrize(
    "text",
    [
        "no need to wait on me for the relaunch",  # a go-ahead for a launch is not "carry on"
        "don't wait on me for launches",
        "carry on as planned but not on gpu 3",  # a condition: words to read, never a bare continue
        "carry on, I'll check back after you relaunch on gpu 3",
    ],
)
def test_do_not_wait_on_me_about_an_action_is_no_bare_continue(text: str) -> None:
    assert kind_of(text) != "continue"


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("Priya says: 'use port 30002'", "use port 30002"),
        ('our engineer said, quote, "disable cuda graph"', "use --disable-cuda-graph"),
        ("the vendor recommended NCCL_ALGO=Ring for this box", "NCCL_ALGO=Ring"),
    ],
)
def test_an_instruction_relayed_from_someone_else_is_asked_back_never_taken(text: str, reading: str) -> None:
    _, _, missed = hear(OperatorRules(), text)
    asked = ask_back(OperatorRules(), text, None, list(range(8)))
    assert missed and asked is not None and asked.confirm == reading
