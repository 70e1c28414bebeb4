"""`read_file` and `tail_log` are judged on the file the target will open (red-team B, 12).

The gate makes the path absolute with `tools.paths.resolve_path`, the rule every target opens
files by: `~` is the home, a relative path is against the work directory, `..` is removed by text.
"""

from __future__ import annotations

import pytest

from agent.policy.gate import GateContext
from agent.policy.policyset import PolicySet
from agent.state import Action
from tools.paths import resolve_path

W = "/home/ops/opsagent-work"
HOME = "/home/ops"
TOOLS = ("read_file", "tail_log")


def judge(policy: PolicySet, ctx: GateContext, tool: str, path: str) -> str:
    return policy.evaluate_action(Action(tool=tool, args={"path": path}), ctx).decision


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize(
    "path",
    [
        "~/../../etc/shadow",
        "~/../../proc/1/environ",
        "~/../../proc/self/environ",
        "~//../../etc/shadow",
        "./../../../etc/shadow",
        "../../../etc/shadow",
        "logs/../../../../etc/shadow",
        "~/opsagent-work/../.ssh/id_rsa",
    ],
)
def test_tilde_and_relative_escapes_are_judged_where_they_lead(
    policy: PolicySet, ctx: GateContext, tool: str, path: str
) -> None:
    assert judge(policy, ctx, tool, path) == "deny"


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize(
    "path",
    [
        "/proc/1/cwd/etc/shadow",
        "/proc/1/task/1/root/etc/shadow",
        "/proc/self/fd/3",
        "/proc/4242/exe",
        "/dev/fd/0",
        "/dev/stdin",
        "~ops/.ssh/id_rsa",
        "~root/notes.txt",
        "~+/notes.txt",
        "",
        "logs/a\x00b",
    ],
)
def test_paths_the_rule_refuses_are_denied_with_a_reason(
    policy: PolicySet, ctx: GateContext, tool: str, path: str
) -> None:
    verdict = policy.evaluate_action(Action(tool=tool, args={"path": path}), ctx)
    assert verdict.decision == "deny"
    assert "tool-bad-path" in verdict.rules
    assert "give" in verdict.reason or "read that path instead" in verdict.reason


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize(
    "path",
    [
        "logs/sglang.log",
        "./logs/sglang.log",
        "~/opsagent-work/logs/sglang.log",
        f"{W}/logs/sglang.log",
        "/var/log/syslog",
        "~/notes.txt",
    ],
)
def test_ordinary_reads_stay_allowed(policy: PolicySet, ctx: GateContext, tool: str, path: str) -> None:
    assert judge(policy, ctx, tool, path) == "allow"


@pytest.mark.parametrize(
    "path",
    [
        "~/../../etc/shadow",
        "../../etc/shadow",
        "../../../models/qwen/config.json",
        "logs/x/../../../.ssh/id_rsa",
        "~/.ssh/../opsagent-work/logs/a.log",
        "/etc/../etc/passwd",
        "//etc///shadow",
        "~",
        ".",
    ],
)
def test_the_decision_is_the_one_for_the_absolute_path_the_target_opens(
    policy: PolicySet, ctx: GateContext, path: str
) -> None:
    opened = resolve_path(path, work_dir=W, home=HOME)
    assert opened.startswith("/") and "/../" not in opened + "/"
    for tool in TOOLS:
        assert judge(policy, ctx, tool, path) == judge(policy, ctx, tool, opened), (tool, path, opened)


def test_relative_paths_are_against_the_targets_work_dir(policy: PolicySet) -> None:
    # A work directory one level deeper: `../../etc/shadow` is then /home/etc/shadow, not /etc/shadow
    # (SFTP alone would have taken it against $HOME, reaching /etc/shadow).
    # (a file named `shadow` is a secret anywhere now: a host key is one by where it is)
    deep = GateContext(work_dir=f"{W}/deep")
    assert judge(policy, deep, "read_file", "../../../etc/ssh/ssh_host_ed25519_key") == "allow"
    assert judge(policy, deep, "read_file", "../../../../etc/ssh/ssh_host_ed25519_key") == "deny"


def test_observation_tool_path_arguments_use_the_same_rule(policy: PolicySet, ctx: GateContext) -> None:
    action = Action(tool="wait_server", args={"name": "x", "log_path": "~/../../etc/shadow"})
    assert policy.evaluate_action(action, ctx).decision == "deny"


def test_sysfs_paths_reach_the_device_the_kernel_would() -> None:
    from agent.policy.facts import DYN, HostFacts, aliases, normalise_path

    facts = HostFacts(protected_pci=["0000:81:00.0"])
    assert "/sys/bus/pci/devices/0000:81:00.0/rom" in aliases(
        "/sys/bus/pci/devices/0000:80:01.1/0000:81:00.0/rom", facts
    )
    assert "/sys/bus/pci/devices/0000:81:00.0/resource0" in aliases(
        "/sys/class/iommu/dmar0/devices/0000:81:00.0/resource0", facts
    )
    # `..` after a sysfs link goes up from where the link leads: not known lexically
    up = normalise_path("/sys/bus/pci/devices/0000:01:00.0/driver/../vfio-pci/unbind", cwd="/", home=None)
    assert up == f"{DYN}/vfio-pci/unbind"
    assert normalise_path("/home/ops/a/../b", cwd="/", home=None) == "/home/ops/b"
