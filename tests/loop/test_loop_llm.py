"""The `llm` decider inside the real loop: a scripted OpenAI-compatible server on loopback, the
real openai client, the real gate, the lab."""

from __future__ import annotations

import json
from pathlib import Path

from agent.hearing.approvers import ListApprover, ScriptedOperator
from agent.loop.lab_facts import lab_run_spec, open_lab
from agent.loop.runner import start_run
from agent.store.records import RunSpec
from agent.store.sqlite import Store
from agent.transcript.reader import read_events
from tests.fakes.openai_server import FakeOpenAIServer, load_script, scripted_llm, tool_call_entry
from tests.opsagent_process import CliRun
from tools.lab.target import LabTarget


def _spec(workspace: Path, store: Store, scenario: str, run_id: str) -> tuple[RunSpec, LabTarget]:
    target = open_lab(f"lab:{scenario}")
    spec = lab_run_spec(
        target,
        f"lab:{scenario}",
        state_dir=store.state_dir,
        run_id=run_id,
        transcript=workspace / "transcripts" / f"{run_id}.jsonl",
        decider="llm",
        model="fake-model",
    )
    return spec, target


def test_recorded_model_completes_the_p2p_case(workspace: Path) -> None:
    store = Store(workspace / "state")
    spec, target = _spec(workspace, store, "p2p-corruption", "llm-p2p")
    with FakeOpenAIServer(load_script("p2p_corruption")) as server:
        outcome = start_run(
            spec,
            store,
            lambda _r: ScriptedOperator(),
            decider=scripted_llm(server),
            target=target,
        )
        sent = [r.text() for r in server.requests]
    assert outcome.status == "finished" and outcome.goal_met
    launch = next(o for o in outcome.state["observations"] if o.tool == "launch_server")
    assert launch.args["env"] == {"NCCL_P2P_DISABLE": "1"}
    # what the model was shown: the goal always, and the corrupt P2P check before it chose the env
    assert all("Qwen3.5-122B-A10B" in text for text in sent)
    assert any("NOT reliable" in text for text in sent)
    usage = [e.payload["usage"] for e in read_events(outcome.transcript) if e.type == "decision"]
    assert usage and all(u and u[0]["model"] == "fake-model" for u in usage)


def test_a_proposed_reboot_is_denied_the_model_sees_it_and_the_run_goes_on(workspace: Path) -> None:
    store = Store(workspace / "state")
    spec, target = _spec(workspace, store, "p2p-corruption", "llm-reboot")
    script = [*load_script("reboot_denied"), tool_call_entry("finish", {"goal_met": False, "summary": "stop here"})]
    with FakeOpenAIServer(script) as server:
        outcome = start_run(
            spec,
            store,
            lambda _r: ListApprover(["sign off"]),  # the goal is not met: only the explicit words (#27)
            decider=scripted_llm(server),
            target=target,
        )
        second_prompt = server.requests[1].text()
    verdicts = [e.payload for e in read_events(outcome.transcript) if e.type == "verdict"]
    assert verdicts[0]["decision"] == "deny" and "reboot" in json.dumps(verdicts[0]["action"])
    assert "denied by policy" in second_prompt and "sudo reboot" in second_prompt
    ran = [o.args.get("command") for o in outcome.state["observations"] if o.tool == "run_command" and o.ok]
    assert ran == ["dmesg | grep -i IO_PAGE_FAULT | tail -n 20"]
    assert not any("reboot" in c.command for c in target.commands)
    assert target.violations == []


def test_model_spend_budget_stops_the_run_with_a_budget_question(workspace: Path) -> None:
    store = Store(workspace / "state")
    spec, target = _spec(workspace, store, "healthy-host", "llm-budget")
    script = load_script("p2p_corruption")
    with FakeOpenAIServer(script) as server:
        decider = scripted_llm(server, budget_tokens=1)  # the first call already spends more than this
        outcome = start_run(spec, store, lambda _r: ListApprover(["stop"]), decider=decider, target=target)
        calls = len(server.requests)
    questions = [e.payload for e in read_events(outcome.transcript) if e.type == "question"]
    assert questions[0]["trigger"] == "budget"
    assert "budget" in questions[0]["reason"]
    assert calls == 1  # checked before calling the model again
    assert outcome.status == "stopped"


def test_run_decides_with_the_configured_model_by_default(cli: CliRun, workspace: Path) -> None:
    with FakeOpenAIServer(load_script("p2p_corruption")) as server:
        env = {"OPSAGENT_MODEL": server.model, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test"}
        result = cli(
            "run", "--target", "lab:p2p-corruption", "--approver", "scripted", "--run-id", "auto-llm",
            extra_env=env, timeout=300,
        )  # fmt: skip
        served = len(server.requests)
    assert result.returncode == 0, result.stderr
    assert "goal met" in result.stdout and "goal NOT met" not in result.stdout
    started = next(e.payload for e in read_events(workspace / "transcripts" / "auto-llm.jsonl"))
    assert started["decider"] == "llm" and served >= 8


def test_without_a_model_run_says_it_uses_the_runbook(cli: CliRun, workspace: Path) -> None:
    result = cli("run", "--target", "lab:healthy-host", "--approver", "scripted", "--run-id", "auto-runbook")
    assert result.returncode == 0, result.stderr
    assert "using the runbook decider: no model configured" in " ".join(result.stdout.split())
    started = next(e.payload for e in read_events(workspace / "transcripts" / "auto-runbook.jsonl"))
    assert started["decider"] == "runbook"


def test_the_model_is_sent_the_arithmetic_and_the_operators_instruction_and_obeyed(workspace: Path) -> None:
    store = Store(workspace / "state")
    spec, target = _spec(workspace, store, "vm-no-p2p", "llm-heard")
    launch = {"model_path": "/models/GLM-5-NVFP4", "tp": 8, "port": 30000, "gpus": list(range(8))}
    script = [
        tool_call_entry("ask_operator", {"question": "Which port may I use?", "reason": "a port was busy before"}),
        tool_call_entry("launch_server", launch),
        tool_call_entry("finish", {"goal_met": False, "summary": "stop here"}),
    ]
    # read in part: asked back (#27), and "yes" takes exactly the reading
    approver = ListApprover(["use port 30001 and set NCCL_DEBUG=INFO, and make it sing", "yes", "sign off"])
    with FakeOpenAIServer(script) as server:
        outcome = start_run(spec, store, lambda _r: approver, decider=scripted_llm(server), target=target)
        prompts = [r.text() for r in server.requests]
        tools = [t["function"]["name"] for t in server.requests[1].tools]
    assert len(prompts) == 3
    assert "plan_layouts" in tools and "call plan_layouts" in prompts[1]  # the arithmetic is a tool too
    after = prompts[1]  # the first request after the operator's answer
    # the operator's instruction, as heard, and the words outside the grammar
    assert "use port 30001 and set NCCL_DEBUG=INFO" not in prompts[0]
    assert "serve on port 30001" in after and "set NCCL_DEBUG=INFO in the server's environment" in after
    assert '"make it sing"' in after
    # the arithmetic: the goal against what was measured, and the launches spent
    assert "aggregate at concurrency 64: not measured yet; goal 1,000 tok/s" in after
    assert "launches so far: 0" in after
    assert "launches so far: 1" in prompts[2]
    # the same reply semantics as the runbook: the model's launch was rewritten by the instruction
    ran = next(o for o in outcome.state["observations"] if o.tool == "launch_server")
    assert ran.args["port"] == 30001 and ran.args["env"] == {"NCCL_DEBUG": "INFO"}


def test_the_model_is_sent_the_memory_plan_it_asked_for_with_the_operators_gpus(workspace: Path) -> None:
    store = Store(workspace / "state")
    spec, target = _spec(workspace, store, "vm-no-p2p", "llm-plan")
    plan_args = {"model_path": "/models/GLM-5-NVFP4", "gpus": list(range(8)), "interconnect": "no_p2p"}
    script = [
        tool_call_entry("plan_layouts", plan_args),
        tool_call_entry("ask_operator", {"question": "TP8 or TP4 x DP2?", "reason": "the plan ranks both"}),
        tool_call_entry("finish", {"goal_met": False, "summary": "stop here"}),
    ]
    approver = ListApprover(["use GPUs 0-3"])  # then a launch on them (#27: advice taken leads to a plan)
    with FakeOpenAIServer(script) as server:
        outcome = start_run(spec, store, lambda _r: approver, decider=scripted_llm(server), target=target)
        prompts = [r.text() for r in server.requests]
    plan = next(o for o in outcome.state["observations"] if o.tool == "plan_layouts")
    assert plan.ok and "GiB" in plan.summary
    assert "memory plan" not in prompts[0]
    # the plan's numbers, as the tool computed them, in every prompt after it (not only as the last result)
    for prompt in prompts[1:]:
        assert "memory plan (plan_layouts(" in prompt
        assert all(line in prompt for line in plan.summary.splitlines()[:4])
    # and the operator's answer next to it
    assert "use GPUs 0-3" not in prompts[1]
    assert "use exactly GPUs 0, 1, 2, 3" in prompts[2] and "memory plan (plan_layouts(" in prompts[2]
