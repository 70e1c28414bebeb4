"""Classes found on the blind sets sre5-sre11 (#27), each checked on sentences written here, not
copied from the sets: an answer among remarks, a step picked in words, an instruction run on into
its reason with no comma, a refusal run on into its reason, and what must still never be heard."""

from __future__ import annotations

import pytest
from hearing_testkit import NOTHING, kind_of, rules_said

from agent.hearing.heed import ask_back
from agent.hearing.instructions import hear
from agent.state import OperatorRules


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("sure thing, run it", "approve"),
        ("ok, do it. the matrix is cheap to read", "approve"),
        ("ack, send it", "approve"),
        ("the topo read is harmless, go", "approve"),
        ("yes please. I have no concerns with it", "approve"),
        ("lets go with option 2 thx", "pick 2"),
        ("the third one please", "pick 3"),
        ("skip ahead to 1, the list is all we need", "pick 1"),
        ("halt the run, the box is needed elsewhere", "stop"),
        ("abort the whole thing", "stop"),
        ("do your own plan, ping me when you have numbers", "continue"),
        ("nah pls skip that, it wedges the driver", "deny"),
        ("nope no point reading that again", "deny"),
        ("hard no on that one", "deny"),
        ("I'd rather you didn't. it hangs on this host", "deny"),
        ("ship it 🚀", "approve"),
        ("yep that read is harmless go ahead", "approve"),
        ("denied sorry (it wedged the driver last time)", "deny"),
        ("not needed, the matrix is all PCIe here", "deny"),
        ("I prefer you don't run it, the tenant audits every command", "deny"),
        ("carry on as you see fit, I will look at the report later", "continue"),
        ("you dont need to ask me about each step, just work through your plan", "continue"),
        ("2 list the GPUs first", "pick 2"),
        ("do #3 first (read the log) the topology has not changed", "pick 3"),
        ("yep thats fine to run", "approve"),
        ("don't bother running it, we have the matrix already", "deny"),
        ("carry on, use your judgement", "continue"),
        ("that's enough for tonight. halt everything", "stop"),
        ("fine fine do it whatever", "approve"),
        ("k", "approve"),
        ("dont ask me just do your plan", "continue"),
        ("ya go ahead its harmless", "approve"),
        ("go ahead w/ topo -m", "approve"),
        ("I am afraid I must decline that one. It hangs here", "deny"),
        ("I would prefer that you did not run that at present", "deny"),
        ("That is read-only, so I have no objection whatsoever. Kindly proceed.", "approve"),
        ("There is really no need to consult me on each individual step. Please carry on with your plan", "continue"),
        ("Please stop the entire run at this point.", "stop"),
        ("I would appreciate it if you could begin with step 3 rather than the topology", "pick 3"),
        ("I'd rather you didn't touch nvidia-smi here right now", "deny"),
        ("don't wait on me for this, carry on with whatever you had planned", "continue"),
        ("Just this once, run it.", "approve"),
        ("nack", "deny"),
        ("Denied for now. not sure it is allowed here", "deny"),
        ("up to you honestly. carry on without me", "continue"),
        ("you dont have to ask me before each of those, just keep going with your plan", "continue"),
        ("yes go ahead and run nvidia-smi topo -m", "approve"),
        ("Yes, go ahead. It is read-only, so there's no risk to the tenant.", "approve"),
        ("Negative on nvidia-smi for now / the driver team is patching", "deny"),
        ("meh no. just dont", "deny"),
        ("✅ ship", "approve"),
    ],
)
def test_answers_said_among_remarks_are_heard(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "yes, but check the log first",  # a condition: not a plain yes
        "ok run it if the tenant has gone",
        "go ahead? is it read-only",
        "you can to use only gpu 2 and 3",  # a bare number after other words is no pick
        "pass --trust-remote-code from now on",  # "pass" with a flag is an instruction, not a refusal
        "sure, run it on gpu 2 instead",
        "hold off on relaunching till I say",  # an instruction about launches, not a deny of the question
        "3 restart the server",  # a number with another step's words (or none of any) picks nothing
        "1 read the log",
        "ok one sec",  # "ok" alone before more words is no answer
        "go easy on the host",
        "stop disabling cuda graph, capture works now",
        "run it on 4 cards",  # never an approval with a condition on where
        "go ahead with the log instead",  # words after "go ahead with" that are not the proposal
        "quit passing --enable-torch-compile",  # an instruction about a flag, never the run's stop
        "Stop the current server, and keep GPU 3 out of every future launch",  # the server, never the run
    ],
)
def test_an_answer_with_a_condition_or_instruction_beside_it_is_not_taken(text: str) -> None:
    assert kind_of(text) not in ("approve", "pick 2", "pick 3", "continue", "stop", "deny")


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("export NCCL_DEBUG=WARN we need quieter logs", {"set_env": {"NCCL_DEBUG": "WARN"}}),
        ("never gpu 4 it keeps dropping off the bus", {"avoid_gpus": [4]}),
        (
            "mem frac 0.7 disable cuda graph",
            {"use_flags": [["--mem-fraction-static", "0.7"], ["--disable-cuda-graph"]]},
        ),
        ("just gpu2 + gpu3 its a tiny model", {"use_gpus": [2, 3]}),
        ("steer clear of gpu 1 or 6 today", {"avoid_gpus": [1, 6]}),
        ("dont touch GPU #5", {"avoid_gpus": [5]}),
        ("--port 8123 pls", {"use_port": 8123}),
        ("add --cuda-graph-max-bs 64", {"use_flags": [["--cuda-graph-max-bs", "64"]]}),
        ("point it at /models/Mixtral-8x7B instead", {"use_model": "/models/Mixtral-8x7B"}),
        ("cap running requests at 32", {"use_flags": [["--max-running-requests", "32"]]}),
        # "take it down rn, users see garbage": since round 44 asked back with the server named, never taken (an
        # "it" the message never names; test_blind_round44.test_a_stop_of_an_unnamed_it_is_only_asked_back)
        ("anything but gpu 6 is fair game", {"avoid_gpus": [6]}),
        ("Leave --enable-torch-compile off the command line", {"avoid_flags": ["--enable-torch-compile"]}),
        ("three tp2 replicas", {"layout": {"tp": 2, "dp": 3}}),
        ("shut the server off ✋", {"stop_server": True, "no_relaunch": True}),
        ("context length 16384 is plenty for us", {"use_flags": [["--context-length", "16384"]]}),
        ("ctx len 16k thats plenty", {"use_flags": [["--context-length", "16384"]]}),
        ("mem frac point 75", {"use_flags": [["--mem-fraction-static", "0.75"]]}),
        ("unset nccl_algo the default is fine", {"unset_env": ["NCCL_ALGO"]}),
        ("the network team is still on it just rerun the bench", {"measure_again": True}),
        ("relaunch on gpus 4-7 as tp4", {"use_gpus": [4, 5, 6, 7], "layout": {"tp": 4, "dp": 1}}),
        ("gpu1 and gpu2 are off limits", {"avoid_gpus": [1, 2]}),
        ("keep hands off gpus 3 and 4", {"avoid_gpus": [3, 4]}),
        ("NCCL_DEBUG=INFO (we need to see the rings, for the vendor)", {"set_env": {"NCCL_DEBUG": "INFO"}}),
        ("whatever you do dont pass --enable-dp-attention", {"avoid_flags": ["--enable-dp-attention"]}),
        ("chunked prefill put to 2048", {"use_flags": [["--chunked-prefill-size", "2048"]]}),
        ("relaunch without NCCL_ALGO", {"unset_env": ["NCCL_ALGO"]}),
        ("port 9000 is firewalled, dont use it never", {"avoid_ports": [9000]}),
        ("add --disable-cuda-graph while we chase the crash", {"use_flags": [["--disable-cuda-graph"]]}),
        ("take NCCL_ALGO out of the launch env", {"unset_env": ["NCCL_ALGO"]}),
        ("leave the context length flag out entirely", {"avoid_flags": ["--context-length"]}),
        ("do one more benchmark pass please", {"measure_again": True}),
        ("any gpu is fine except 2", {"avoid_gpus": [2]}),
        ("attention backend: flashinfer", {"use_flags": [["--attention-backend", "flashinfer"]]}),
        ("back to tp4 dp2", {"layout": {"tp": 4, "dp": 2}}),
        ("launch on four through seven", {"use_gpus": [4, 5, 6, 7]}),
        ("replicas: 2\ntp: 4", {"layout": {"tp": 4, "dp": 2}}),
        ("env:\n  - name: NCCL_DEBUG\n    value: WARN", {"set_env": {"NCCL_DEBUG": "WARN"}}),
        ("set `port: 30200` on it", {"use_port": 30200}),
        ("taint gpu 5 NoSchedule", {"avoid_gpus": [5]}),
        ("blacklist 30000", {"avoid_ports": [30000]}),
        ("schedule it on gpus 2-3", {"use_gpus": [2, 3]}),
        ("bounce it without NCCL_ALGO", {"unset_env": ["NCCL_ALGO"]}),
        ("cap ctx at 4096", {"use_flags": [["--context-length", "4096"]]}),
        ("model should be /models/Qwen3-8B", {"use_model": "/models/Qwen3-8B"}),
        ("restart on 30002 w mem frac .8", {"use_port": 30002, "use_flags": [["--mem-fraction-static", "0.8"]]}),
        ("never touch 1 or 2 again", {"avoid_gpus": [1, 2]}),
        ("serve on 30001, 30000 is still held by the old one", {"use_port": 30001}),  # never GPUs 30000, 30001
        ("rip NCCL_ALGO out of the env block", {"unset_env": ["NCCL_ALGO"]}),
        ("add --disable-radix-cache to the args", {"use_flags": [["--disable-radix-cache"]]}),
        ("gpus 0-3, --mem-frac 0.8", {"use_gpus": [0, 1, 2, 3], "use_flags": [["--mem-fraction-static", "0.8"]]}),
        ("Under no circumstances should --enable-dp-attention be used", {"avoid_flags": ["--enable-dp-attention"]}),
        ("Under no circumstances should the server listen on port 9000", {"avoid_ports": [9000]}),
        ("Please ensure that gpu2 is not used", {"avoid_gpus": [2]}),
        (
            "please ensure that:\n- port 30000 is avoided\n- GPU 4 is left alone\n- NCCL_DEBUG=WARN is set",
            {"avoid_ports": [30000], "avoid_gpus": [4], "set_env": {"NCCL_DEBUG": "WARN"}},
        ),
        ("Please refrain from passing --enable-torch-compile", {"avoid_flags": ["--enable-torch-compile"]}),
        ("ensure that:\n* port 30000 is avoided\n* GPU 4 is left alone", {"avoid_ports": [30000], "avoid_gpus": [4]}),
        ("I would like the server to run on GPUs 1 through 3 only", {"use_gpus": [1, 2, 3]}),
        ("Kindly keep well away from gpus 2 & 3", {"avoid_gpus": [2, 3]}),
        (
            "I would appreciate it if you could turn on the fp8 KV cache",
            {"use_flags": [["--kv-cache-dtype", "fp8_e4m3"]]},
        ),
        ("no prefix caching for this bench", {"use_flags": [["--disable-radix-cache"]]}),
        ("exclude 2 and 3 from anything you launch", {"avoid_gpus": [2, 3]}),
        ("pin it to CUDA_VISIBLE_DEVICES=4,5", {"use_gpus": [4, 5]}),
        ("Please bring the mem frac down to 0.75", {"use_flags": [["--mem-fraction-static", "0.75"]]}),
        ("quit passing the disable-cuda-graph flag", {"avoid_flags": ["--disable-cuda-graph"]}),
        ("anything but 30000/30001 for the port", {"avoid_ports": [30000, 30001]}),
        ("cap the graph batch at 64 (`--cuda-graph-max-bs 64`)", {"use_flags": [["--cuda-graph-max-bs", "64"]]}),
        ("split it into two tp4 replicas", {"layout": {"tp": 4, "dp": 2}}),
        ("hold the next launch, I will ping you", {"no_relaunch": True}),
        ("put it back to tp 8 across the whole box, single replica", {"layout": {"tp": 8, "dp": 1}}),
        ("move it over to gpus 0-3 at tp4", {"use_gpus": [0, 1, 2, 3], "layout": {"tp": 4, "dp": 1}}),
        ("Every GPU except 7 for this launch", {"avoid_gpus": [7]}),
        ("!gpu3 throws xid 79", {"avoid_gpus": [3]}),  # an IRC "not", never "use GPU 3"
        ("!30000 !8080", {"avoid_ports": [8080, 30000]}),
        ("so dp 4 and tp 2", {"layout": {"tp": 2, "dp": 4}}),
        ("drop both NCCL_ALGO and NCCL_PROTO from the launch env", {"unset_env": ["NCCL_ALGO", "NCCL_PROTO"]}),
        ("pcie box, no nvlink -> --disable-custom-all-reduce", {"use_flags": [["--disable-custom-all-reduce"]]}),
        ("keep gpu1 out of it pls", {"avoid_gpus": [1]}),
        (
            "lets go with --kv-cache-dtype fp8_e4m3 and --context-length 4096 together",
            {"use_flags": [["--kv-cache-dtype", "fp8_e4m3"], ["--context-length", "4096"]]},
        ),
        ("go back to plain tp 4", {"layout": {"tp": 4, "dp": 1}}),
        ("CUDA_VISIBLE_DEVICES=0,1 <- that set", {"use_gpus": [0, 1]}),
        (
            "Stop the current server, and keep GPU 3 out of every future launch",
            {"stop_server": True, "no_relaunch": True, "avoid_gpus": [3]},
        ),
        ("leave out --kv-cache-dtype altogether", {"avoid_flags": ["--kv-cache-dtype"]}),  # never its value
        ("KV cache stays bf16: no --kv-cache-dtype fp8/fp4", {"avoid_flags": ["--kv-cache-dtype"]}),  # any value
        ("Don't bind 9090 (Prometheus lives there)", {"avoid_ports": [9090]}),
        ("Never schedule on GPU 0 or GPU 1", {"avoid_gpus": [0, 1]}),
        ("Cap max running requests at 64 / the SLA is on latency", {"use_flags": [["--max-running-requests", "64"]]}),
        ("Switch to tp 2 / dp 4", {"layout": {"tp": 2, "dp": 4}}),
        ("Shut down the server on :30000 now", {"stop_server": True, "no_relaunch": True}),
        ("Relaunch as TP4 on gpu4-gpu7", {"use_gpus": [4, 5, 6, 7], "layout": {"tp": 4, "dp": 1}}),
        ("Serve on 30002 and never on 30000/30001", {"use_port": 30002, "avoid_ports": [30000, 30001]}),
        ("Use GPUs 0-3 and leave 4-7 untouched", {"use_gpus": [0, 1, 2, 3], "avoid_gpus": [4, 5, 6, 7]}),
        ("never put anything on gpus 6/7", {"avoid_gpus": [6, 7]}),
        ("kv cache fp8 e4m3 pls", {"use_flags": [["--kv-cache-dtype", "fp8_e4m3"]]}),
        ("stay off 30000 and 30001 both", {"avoid_ports": [30000, 30001]}),
        ("chunked prefill off", {"use_flags": [["--chunked-prefill-size", "-1"]]}),
        ("gpus 2 through 3 are the tenant's (vfio-pci) so keep off them no matter what", {"avoid_gpus": [2, 3]}),
        ("Port 31000 belongs to the gateway. You do not bind it.", {"avoid_ports": [31000]}),
        ("next launch goes on 8002", {"use_port": 8002}),
        ("put it on the odd-numbered cards 1 3 5 7 only", {"use_gpus": [1, 3, 5, 7]}),
        # a verb never carries into an assignment: the reading asked back is read again the same way
        ("don't use GPU 5; NCCL_DEBUG=WARN", {"avoid_gpus": [5], "set_env": {"NCCL_DEBUG": "WARN"}}),
        (
            "--disable-radix-cache and --max-running-requests 48",
            {"use_flags": [["--disable-radix-cache"], ["--max-running-requests", "48"]]},
        ),
    ],
)
def test_instructions_run_on_or_in_everyday_words_are_heard(text: str, meant: dict[str, object]) -> None:
    assert rules_said(text) == meant


@pytest.mark.parametrize(
    "text",
    [
        "GPU 3 looks hot",  # a GPU named as a subject: no "use GPU 3"
        "gpu 6 is free now fyi",
        "tp4 dp2 was slower last time",
        "P2P on this box is dodgy",  # never "P2P on": the words after decide what it says
        "mem frac 0.9 caused the OOM",
        "the first half is still draining traffic",
        "use nsa decode backend trtllm and more",  # never "use the nsa attention backend"
        "last week someone set NCCL_P2P_DISABLE=1 and it halved throughput",  # a story, not an instruction
        "context length put to 8192",  # never the port 8192: the setting's name is no remark
        "refrain from passing --disable-cuda-graph",  # never "use" it: the words before say the opposite
        "one replica per gpu",  # never DP 1
    ],
)
def test_a_subject_is_never_cut_off_its_sentence_and_taken(text: str) -> None:
    said = rules_said(text)
    assert "use_gpus" not in said and "layout" not in said and "unset_env" not in said, said
    assert "use_port" not in said and "set_env" not in said, said
    assert ["--attention-backend", "nsa"] not in said.get("use_flags", []), said  # type: ignore[operator]


@pytest.mark.parametrize(
    "text",
    [
        "turn off cuda graphs, no wait, keep them",
        "set NCCL_DEBUG=INFO. actually no, leave the env alone",
        "drop tp to 4 nvm",
    ],
)
def test_a_message_that_corrects_itself_is_not_taken(text: str) -> None:
    """Which half stands is not a guess to make: nothing is taken, and all of it is reported."""
    _, heard, missed = hear(OperatorRules(), text)
    assert heard == [] and missed == [text]
    assert rules_said(text) == {}


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("tp 8, no wait, tp 4", "tp 4"),
        ("use port 30001, scratch that, 30002", "use port 30002"),  # the port said again, in the words before
        ("port 31337.. no, 31338. typo", "port 31338"),
        ("tp 4 dp 2.. er no i mean tp2 dp4", "tp2 dp4"),
    ],
)
def test_a_correction_that_says_what_stands_is_asked_back_and_nothing_taken(text: str, asked: str) -> None:
    """The words after the correction, when they set what the words before it set: asked back as the
    reading, never taken before a yes."""
    effect = ask_back(OperatorRules(), text, None, list(range(8)))
    assert effect is not None and effect.confirm == asked
    taken = effect.rules.model_dump()
    assert all(taken[k] == NOTHING[k] for k in ("use_port", "layout", "use_gpus", "use_flags", "set_env"))
