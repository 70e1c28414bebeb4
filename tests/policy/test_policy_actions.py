"""Structured tool calls through `evaluate_action`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agent.policy.gate import GateContext
from agent.policy.policyset import PolicySet
from agent.state import Action

W = "/home/ops/opsagent-work"


@pytest.fixture(scope="module")
def ctx(owning: Callable[[str, int], GateContext]) -> GateContext:
    return owning("sglang-tp4", 777)


def launch(**over: Any) -> Action:
    args: dict[str, Any] = {
        "model_path": "/models/qwen",
        "tp": 4,
        "dp": 1,
        "port": 30000,
        "gpus": None,
        "env": {},
        "extra_args": [],
        "command": None,
    }
    args.update(over)
    return Action(tool="launch_server", args=args)


@pytest.mark.parametrize(
    ("action", "decision"),
    [
        (launch(), "allow"),
        (launch(gpus=[0, 1, 2, 3]), "allow"),
        (launch(tp=2, extra_args=["--base-gpu-id", "2"]), "allow"),
        (launch(tp=8), "deny"),
        (launch(tp=2, dp=4), "deny"),
        (launch(tp=2, gpus=[3, 4]), "deny"),
        (launch(tp=1, env={"CUDA_VISIBLE_DEVICES": "7"}), "deny"),
        (launch(tp=2, extra_args=["--base-gpu-id", "3"]), "deny"),
        (launch(tp=1, extra_args=["--tp-size", "6"]), "deny"),
        (launch(command="sudo reboot"), "deny"),
        (launch(command=f"python3 {W}/serve.py"), "allow"),
    ],
)
def test_launch_server(policy: PolicySet, ctx: GateContext, action: Action, decision: str) -> None:
    verdict = policy.evaluate_action(action, ctx)
    assert verdict.decision == decision, verdict.reason


@pytest.mark.parametrize(
    "action",
    [
        launch(python="reboot;"),
        launch(python="python3 -c 'import os; os.system(\"reboot\")' #"),
        launch(env={"X=1; reboot; Y": "v"}),
        Action(tool="sglang_flags", args={"python": "$(reboot)"}),
    ],
)
def test_arguments_pasted_into_a_command_line_must_be_what_they_claim(
    policy: PolicySet, ctx: GateContext, action: Action
) -> None:
    verdict = policy.evaluate_action(action, ctx)
    assert verdict.decision == "deny"
    assert verdict.rules == ["tool:bad-arguments"]


def test_the_interpreter_a_launch_names_is_judged(policy: PolicySet, ctx: GateContext) -> None:
    assert policy.evaluate_action(launch(python="/opt/venv/bin/python3"), ctx).decision == "allow"
    assert policy.evaluate_action(launch(python="/sbin/reboot"), ctx).decision == "deny"
    flags = Action(tool="sglang_flags", args={"python": "/sbin/reboot"})
    assert policy.evaluate_action(flags, ctx).decision == "deny"


@pytest.mark.parametrize(
    ("gpus", "decision"), [([0, 1], "allow"), ([0, 1, 2, 3], "allow"), ([4, 5], "deny"), ([0, 7], "deny")]
)
def test_p2p_check_runs_only_on_the_agents_gpus(
    policy: PolicySet, ctx: GateContext, gpus: list[int], decision: str
) -> None:
    verdict = policy.evaluate_action(Action(tool="p2p_check", args={"gpus": gpus}), ctx)
    assert verdict.decision == decision, verdict.reason
    if decision == "deny":
        assert verdict.rules == ["launch-gpus-outside-agent"]


def test_launch_outside_names_the_gpus(policy: PolicySet, ctx: GateContext) -> None:
    verdict = policy.evaluate_action(launch(tp=2, gpus=[4, 5]), ctx)
    assert "launch-gpus-outside-agent" in verdict.rules
    assert "4, 5" in verdict.reason


def test_stop_only_own_processes(policy: PolicySet, ctx: GateContext) -> None:
    own = policy.evaluate_action(Action(tool="stop_server", args={"name": "sglang-tp4"}), ctx)
    other = policy.evaluate_action(Action(tool="stop_server", args={"name": "vm-101"}), ctx)
    assert own.decision == "allow"
    assert other.decision == "deny"
    assert other.rules == ["stop-not-own-process"]


@pytest.mark.parametrize(
    ("tool", "args", "decision"),
    [
        ("run_command", {"command": "nvidia-smi", "timeout_s": 30}, "allow"),
        ("run_command", {"command": "systemctl reboot"}, "deny"),
        ("run_command", {"command": 42}, "deny"),
        ("read_file", {"path": f"{W}/logs/sglang-tp4.log"}, "allow"),
        ("read_file", {"path": "/root/.ssh/id_ed25519"}, "deny"),
        ("read_file", {"path": "/srv/app/prod.env"}, "deny"),
        ("tail_log", {"path": "/var/log/syslog", "lines": 100}, "allow"),
        ("tail_log", {"path": "~/.cache/huggingface/token", "lines": 1}, "deny"),
        ("observe_gpus", {}, "allow"),
        ("observe_topology", {}, "allow"),
        ("observe_host", {}, "allow"),
        ("p2p_check", {"gpus": [0, 1]}, "allow"),
        ("sglang_flags", {}, "allow"),
        ("wait_server", {"name": "sglang-tp4"}, "allow"),
        ("server_status", {"name": "sglang-tp4"}, "allow"),
        ("run_benchmark", {"port": 30000, "output_file": f"{W}/bench.jsonl"}, "allow"),
        ("run_benchmark", {"port": 30000, "dataset_path": "/home/ops/.ssh/id_rsa"}, "deny"),
        ("ask_operator", {"question": "may I?"}, "allow"),
        ("finish", {"goal_met": True, "summary": "done"}, "allow"),
        ("wipe_host", {}, "ask"),
    ],
)
def test_tools(policy: PolicySet, ctx: GateContext, tool: str, args: dict[str, Any], decision: str) -> None:
    verdict = policy.evaluate_action(Action(tool=tool, args=args), ctx)
    assert verdict.decision == decision, verdict.reason


def test_unknown_tool_is_named(policy: PolicySet, ctx: GateContext) -> None:
    verdict = policy.evaluate_action(Action(tool="wipe_host", args={}), ctx)
    assert "wipe_host" in verdict.reason
