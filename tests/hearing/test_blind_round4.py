"""Classes found on the blind sets sre26-sre35 (#27), each checked on sentences written here, not
copied from the sets: names and numbers said as a speech engine writes them, a shell comment or
"&&" in a chat line, a switch that is not carried to a choice, and an answer whose remark points
at something else."""

from __future__ import annotations

import pytest
from hearing_testkit import kind_of, rules_said

from agent.hearing.instructions import hear
from agent.state import OperatorRules


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # a variable said in words, in its own order: before, "disable" in it was read as the verb
        ("set nccl p2p disable equals one", {"set_env": {"NCCL_P2P_DISABLE": "1"}}),
        ("drop the NCCL P2P disable variable", {"unset_env": ["NCCL_P2P_DISABLE"]}),
        ("set nccl ib disable equals one", {"set_env": {"NCCL_IB_DISABLE": "1"}}),
        ("set nickel debug to trace", {"set_env": {"NCCL_DEBUG": "TRACE"}}),
        ("cuda launch blocking equals 1 please", {"set_env": {"CUDA_LAUNCH_BLOCKING": "1"}}),
        ("drop the NCCL P2P level variable", {"unset_env": ["NCCL_P2P_LEVEL"]}),
        # numbers said in words where a number is expected
        ("serve on port three one zero zero zero", {"use_port": 31000}),
        ("stay off port thirty thousand five", {"avoid_ports": [30005]}),
        ("mem fraction static point seven five", {"use_flags": [["--mem-fraction-static", "0.75"]]}),
        ("cuda graph max bs to two fifty six", {"use_flags": [["--cuda-graph-max-bs", "256"]]}),
        ("tp for on gpus 0-3", {"use_gpus": [0, 1, 2, 3], "layout": {"tp": 4, "dp": 1}}),
        ("serve on port 32,000", {"use_port": 32000}),
        # a shell comment is a remark, "&&" joins two instructions, ":thumbsup:" is a gesture
        ("--cuda-graph-max-bs 64 # the bench tops out at 64", {"use_flags": [["--cuda-graph-max-bs", "64"]]}),
        ("stop the server && dont relaunch", {"stop_server": True, "no_relaunch": True}),
        ("launch on 0-3 :thumbsup:", {"use_gpus": [0, 1, 2, 3]}),
        # "disable" switches a feature; a backend named after it is a choice of its own
        (
            "disable radix cache + flashinfer attention",
            {"use_flags": [["--disable-radix-cache"], ["--attention-backend", "flashinfer"]]},
        ),
        ("disable cuda graph and radix cache", {"use_flags": [["--disable-cuda-graph"], ["--disable-radix-cache"]]}),
        # everyday ways to say the grammar's forms
        ("you must not bind port 30002", {"avoid_ports": [30002]}),
        ("never turn off the radix cache", {"avoid_flags": ["--disable-radix-cache"]}),
        ("don't enable torch compile on this host", {"avoid_flags": ["--enable-torch-compile"]}),
        ("go with every card except 5", {"avoid_gpus": [5]}),
        ("unset NCCL_ALGO in the launch env", {"unset_env": ["NCCL_ALGO"]}),
        ("stop the server & don't bring it back up till i say so", {"stop_server": True, "no_relaunch": True}),
        (
            "model=/models/qwen-7b tp=2 gpus=4..5",
            {"use_model": "/models/qwen-7b", "layout": {"tp": 2, "dp": 1}, "use_gpus": [4, 5]},
        ),
        ("tp=4, dp=2", {"layout": {"tp": 4, "dp": 2}}),
        ("don't touch four and five, they are passed through", {"avoid_gpus": [4, 5]}),
        ("4 and 5 are off limits", {"avoid_gpus": [4, 5]}),
        ("restart on /models/mistral-7b", {"use_model": "/models/mistral-7b"}),
        ("move the attention backend over to flashinfer", {"use_flags": [["--attention-backend", "flashinfer"]]}),
        ("never put a rank on cuda device 2", {"avoid_gpus": [2]}),
        ("hold off on bringing the server back up", {"no_relaunch": True}),
        ("add max running requests 32", {"use_flags": [["--max-running-requests", "32"]]}),
        ("big model so tp 8", {"layout": {"tp": 8, "dp": 1}}),
        # what a speech engine writes for the field's words
        ("kill the SG lang server", {"stop_server": True, "no_relaunch": True}),
        ("disable the radix cash", {"use_flags": [["--disable-radix-cache"]]}),
        ("KV cash d type fp8 e5m2", {"use_flags": [["--kv-cache-dtype", "fp8_e5m2"]]}),
        ("chunked pre fill size 2048", {"use_flags": [["--chunked-prefill-size", "2048"]]}),
        ("tenser parallel four", {"layout": {"tp": 4, "dp": 1}}),
        # settings typed as Python, a port as host:port writes it, the agent addressed by name
        ("avoid_gpus = range(2, 5)  # lent out", {"avoid_gpus": [2, 3, 4]}),
        ("gpus=[0, 1]", {"use_gpus": [0, 1]}),
        (
            "context_length=4096, disable_radix_cache=True",
            {"use_flags": [["--context-length", "4096"], ["--disable-radix-cache"]]},
        ),
        ("attention_backend='flashinfer'", {"use_flags": [["--attention-backend", "flashinfer"]]}),
        (
            "env={'NCCL_DEBUG': 'WARN', 'NCCL_ALGO': 'Ring,Tree'}",
            {"set_env": {"NCCL_DEBUG": "WARN", "NCCL_ALGO": "Ring,Tree"}},
        ),
        ("model_path='/models/phi-4'", {"use_model": "/models/phi-4"}),
        ("relaunch on :31005", {"use_port": 31005}),
        ("opsagent: stay off gpu 1", {"avoid_gpus": [1]}),
        # the polite and the plain ways to say the grammar's forms
        ("Would you mind moving it to 30020?", {"use_port": 30020}),
        ("keep clear of 9090 please", {"avoid_ports": [9090]}),
        ("hold fire on relaunching", {"no_relaunch": True}),
        ("give it a restart", {}),
        ("lay it out as 4 replicas of tp2", {"layout": {"tp": 2, "dp": 4}}),
        (
            "take out --disable-cuda-graph and put --cuda-graph-max-bs 64 in instead",
            {"avoid_flags": ["--disable-cuda-graph"], "use_flags": [["--cuda-graph-max-bs", "64"]]},
        ),
        ("layout tp2, on cuda 2-3", {"layout": {"tp": 2, "dp": 1}, "use_gpus": [2, 3]}),
        ("put it on 1, 3 and 5", {"use_gpus": [1, 3, 5]}),
        ("dont bring anything back up", {"no_relaunch": True}),
        # two readings joined by "with", each in its own everyday words (a bare range, a nickname)
        ("restart on 2-5 with tp4", {"use_gpus": [2, 3, 4, 5], "layout": {"tp": 4, "dp": 1}}),
        (
            "relaunch on 0-3 with mem frac 0.8",
            {"use_gpus": [0, 1, 2, 3], "use_flags": [["--mem-fraction-static", "0.8"]]},
        ),
    ],
)
def test_names_and_numbers_as_spoken_or_typed_in_chat_are_heard(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    "text",
    [
        "skip one of them",
        "try one more time",
        "use one of the free ones",
        "avoid gpus two three",  # GPUs 2 and 3, or 23: never joined into one number
        "never enable cuda graph",  # on by default: a double negative is not guessed at
        "no_such_knob=3",  # a setting typed as code that SGLang has no flag for
        "avoid_gpus = range(0, 4",  # cut off: the numbers are never taken as a list of GPUs
    ],
)
def test_a_number_word_that_counts_nothing_stays_a_word(text: str) -> None:
    assert rules_said(text) == {}


@pytest.mark.parametrize(
    "text",
    [
        "the exact thing you ran last time, do it",
        "as before, run it",
        "same as yesterday. go",
        "whatever bob did, do that",
    ],
)
def test_an_answer_about_something_else_is_not_taken(text: str) -> None:
    assert kind_of(text) not in ("approve", "continue", "deny", "stop")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("sure thing", "approve"),
        ("go ahead on this one", "approve"),
        ("carry on w/o me", "continue"),
        ("your call. ping me if it breaks", "continue"),
        ("ok # wanna see the links anyway", "approve"),
        ("nah on that one", "deny"),
        ("yes :thumbsup:", "approve"),
        ("granted", "approve"),
        ("no objection from me", "approve"),
        ("no - skip that, we have the matrix", "deny"),
        ("negative on the topo command", "deny"),
        ("@bot do whatever you had lined up", "continue"),
        ("keep going on your own plan", "continue"),
    ],
)
def test_answers_with_chat_marks_are_heard(text: str, kind: str) -> None:
    assert kind_of(text) == kind


def test_a_relaunch_with_the_same_arguments_is_the_relaunch() -> None:
    rules, heard, missed = hear(OperatorRules(), "restart it with the same flags")
    assert rules.relaunch_wanted and heard and not missed and rules_said("restart it with the same flags") == {}


def test_a_shrug_after_the_answer_is_still_the_answer() -> None:
    assert kind_of("fine fine run it whatever") == "approve"
