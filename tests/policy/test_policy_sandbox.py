"""The policy's `sandbox:` setting and writable paths, and the containment classes the gate closes
for hosts without the sandbox and for escalated commands (the examples in default.yaml hold the
full list; these are the forms that reach the rules through other programs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent.loop.targets import sandbox_spec
from agent.policy.gate import GateContext
from agent.policy.loader import PolicyLoadError
from agent.policy.policyset import PolicySet, load_policy_set
from agent.state import Action


def _overlay(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text("version: 1\n" + body)
    return path


def test_unset_the_sandbox_is_required_on_ssh_and_automatic_elsewhere() -> None:
    policy = load_policy_set([])
    assert sandbox_spec(policy, "ssh://ops@gpu-box").mode == "require"
    assert sandbox_spec(policy, "local").mode == "auto"


def test_the_strictest_setting_wins_and_writable_paths_add_up(tmp_path: Path) -> None:
    off = _overlay(tmp_path, "off.yaml", "sandbox: off\nsandbox_writable: [/scratch]\n")
    required = _overlay(tmp_path, "req.yaml", "sandbox: require\nsandbox_writable: ['~/.cache/extra']\n")
    policy = load_policy_set([off, required])
    spec = sandbox_spec(policy, "local")
    assert spec.mode == "require"
    assert "/scratch" in spec.writable and "~/.cache/extra" in spec.writable
    assert sandbox_spec(load_policy_set([off]), "ssh://h").mode == "off"


def test_the_sandbox_gets_the_agents_gpus_from_the_facts(tmp_path: Path) -> None:
    lab_host = Path(__file__).resolve().parents[2] / "policies" / "lab-host.yaml"
    spec = sandbox_spec(load_policy_set([lab_host]), "local")
    assert spec.gpu_pci == ("0000:01:00.0", "0000:21:00.0", "0000:41:00.0", "0000:61:00.0")
    assert "0000:81:00.0" in spec.protected_pci


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("sandbox: maybe\n", "sandbox"),
        ("sandbox_writable: [relative/dir]\n", "is not absolute"),
        ("sandbox_writable: ['/']\n", "whole tree"),
    ],
)
def test_a_bad_sandbox_setting_is_one_line_naming_the_file_and_line(tmp_path: Path, body: str, message: str) -> None:
    bad = _overlay(tmp_path, "bad.yaml", body)
    with pytest.raises(PolicyLoadError, match=message) as caught:
        load_policy_set([bad])
    assert str(caught.value).startswith(f"{bad}:2:") and "\n" not in str(caught.value)


def test_a_bad_sandbox_setting_fails_the_cli_with_one_line(tmp_path: Path) -> None:
    bad = _overlay(tmp_path, "bad.yaml", "sandbox: sometimes\n")
    out = subprocess.run(
        [sys.executable, "-m", "agent.cli", "sandbox", "check", "--target", "local", "--policy", str(bad)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert out.stderr.startswith("error: ") and "Traceback" not in out.stderr and "bad.yaml:2" in out.stderr


@pytest.mark.parametrize(
    "code",
    [
        'import os; os.environ["LD_PRELOAD"] = "/home/ops/opsagent-work/x.so"; os.system("ls")',
        'import os; os.putenv("LD_PRELOAD", "/home/ops/opsagent-work/x.so"); os.system("ls")',
    ],
)
def test_python_loading_a_library_from_the_work_directory_is_denied(
    policy: PolicySet, ctx: GateContext, code: str
) -> None:
    import shlex

    verdict = policy.evaluate_command(f"python3 -c {shlex.quote(code)}", ctx)
    assert verdict.decision == "deny" and "libraries-from-agent-paths" in verdict.rules


def test_an_escalation_asks_and_a_denied_command_stays_denied(policy: PolicySet, ctx: GateContext) -> None:
    plain = Action(tool="run_command", args={"command": "ls /etc"})
    escalated = Action(tool="run_command", args={"command": "ls /etc", "outside_sandbox": True})
    assert policy.evaluate_action(plain, ctx).decision == "allow"
    asked = policy.evaluate_action(escalated, ctx)
    assert asked.decision == "ask" and "sandbox-escalation" in asked.rules
    assert "runs outside the sandbox, as root" in asked.reason
    assert plain.digest("local", policy.version) != escalated.digest("local", policy.version)
    reboot = Action(tool="run_command", args={"command": "reboot", "outside_sandbox": True})
    assert policy.evaluate_action(reboot, ctx).decision == "deny"
