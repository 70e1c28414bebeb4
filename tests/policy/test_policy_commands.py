"""Commands through `evaluate_command`: what the gate decides, and which rule says so."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agent.policy.gate import GateContext
from agent.policy.policyset import PolicySet, load_policy_set

W = "/home/ops/opsagent-work"


@pytest.fixture(scope="module")
def ctx(owning: Callable[[str, int], GateContext]) -> GateContext:
    return owning("sglang", 5150)


ISSUE_EXAMPLES = [
    ("sudo sh -c 'echo b > /proc/sysrq-trigger'", "deny", "power-sysrq"),
    ("echo identity | tee /sys/bus/pci/devices/0000:41:00.0/iommu_group/type", "deny", "iommu-group-type"),
    ("systemctl --no-wall kexec", "deny", "power-systemctl"),
    ('bash -c "$(echo cmVib290 | base64 -d)"', "deny", "fail-closed"),
    ("cat /sys/kernel/iommu_groups/12/type", "allow", "common-tools"),
    ("grep -c 'reboot' notes.txt", "allow", "common-tools"),
    ("sudo apt-get install -y nvtop", "ask", "pkg-system"),
    ("kill $(cat ~/opsagent-work/run/sglang.pid)", "allow", "common-tools"),
]


@pytest.mark.parametrize(("command", "decision", "rule"), ISSUE_EXAMPLES)
def test_issue_examples(policy: PolicySet, ctx: GateContext, command: str, decision: str, rule: str) -> None:
    verdict = policy.evaluate_command(command, ctx)
    assert verdict.decision == decision, verdict.reason
    assert rule in verdict.rules
    assert verdict.reason


AGENT_MUST_DO = [
    "nvidia-smi --query-gpu=index,name,memory.used --format=csv,noheader",
    "nvidia-smi topo -m",
    "readlink /sys/bus/pci/devices/0000:41:00.0/driver",
    "cat /sys/bus/pci/devices/0000:81:00.0/iommu_group/type",
    "systemd-detect-virt",
    "lspci -nnk",
    "dmesg | tail -100",
    "python3 -m sglang.launch_server --help",
    "curl -s http://127.0.0.1:30000/health",
    "python3 -m sglang.bench_serving --backend sglang --num-prompts 64 --max-concurrency 64",
    f"python3 {W}/p2p_check.py",
    "ss -ltnp",
    "ps -eo pid,cmd",
    f"mkdir -p {W}/logs && echo ok > {W}/logs/x.txt",
    f"cd {W} && echo notes >> notes.md",
    "kill -TERM 5150",
    f"kill -- -$(cat {W}/run/sglang.pid)",
]


@pytest.mark.parametrize("command", AGENT_MUST_DO)
def test_agent_work_is_allowed(policy: PolicySet, ctx: GateContext, command: str) -> None:
    verdict = policy.evaluate_command(command, ctx)
    assert verdict.decision == "allow", verdict.reason


BYPASSES = [
    "re''bo\"\"ot",
    "$'\\x73\\x79\\x73\\x74\\x65\\x6d\\x63\\x74\\x6c' reboot",
    "sudo -u root nice -n 5 timeout 10 env X=1 setsid nohup /usr/sbin/../sbin/shutdown -r now",
    'bash -c "bash -c \'sh -c \\"echo b > /proc/sysrq-trigger\\"\'"',
    "echo b | sudo tee /proc/self/root/proc/sysrq-trigger",
    "cd /sys/kernel/iommu_groups/40 && echo identity > type",
    "cd /sys/bus/pci/devices/0000:81:00.0/ && echo 1 > ./driver/../remove",
    "g=40; echo identity > /sys/kernel/iommu_groups/$g/type",
    "for g in 40 41; do echo DMA > /sys/kernel/iommu_groups/$g/type; done",
    "x=/home/ops/opsagent-work; x=/; rm -rf $x",
    "if false; then d=/home/ops/opsagent-work; fi; rm -rf $d/",
    "(d=/home/ops/opsagent-work); rm -rf $d/",
    "ln -s /models /home/ops/opsagent-work/m; rm -rf /home/ops/opsagent-work/m/",
    "python3 -c \"import subprocess as s; s.call('reboot', shell=True)\"",
    "python3 -c \"from os import system as s; s('reboot')\"",
    "echo 'import os; os.system(\"reboot\")' > /home/ops/opsagent-work/x.py",
    "kill -9 $(pgrep qemu)",
    "kill -9 $(cat /run/qemu-server/101.pid)",
    "pkill -9 -f 'kvm -id 101'",
    "systemctl stop 101.scope",
    "CUDA_VISIBLE_DEVICES=0,1,2,3,4 python3 -m sglang.launch_server --model-path /models/x --tp 5",
    "export CUDA_VISIBLE_DEVICES=6,7; python3 -m sglang.launch_server --model-path /models/x --tp 2",
    "env -S 'systemctl reboot'",
    "xargs -a cmds.txt sh -c",
    "echo reboot > /tmp/c; sh /tmp/c",
    "nvidia-smi -i 0,4 -pl 200",
]


@pytest.mark.parametrize("command", BYPASSES)
def test_bypass_attempts_are_denied(policy: PolicySet, ctx: GateContext, command: str) -> None:
    verdict = policy.evaluate_command(command, ctx)
    assert verdict.decision == "deny", f"{command!r} -> {verdict}"


def test_variable_set_once_at_top_level_resolves(policy: PolicySet, ctx: GateContext) -> None:
    assert policy.evaluate_command(f"D={W}/tmp; rm -rf $D", ctx).decision == "allow"
    assert policy.evaluate_command("D=/etc; rm -rf $D", ctx).decision == "deny"


def test_pid_file_of_another_process_is_foreign(policy: PolicySet, ctx: GateContext) -> None:
    verdict = policy.evaluate_command("kill $(cat /var/run/sshd.pid)", ctx)
    assert verdict.decision == "deny"
    assert "signal-not-own" in verdict.rules


def test_own_pid_from_context_is_allowed_and_others_are_not(policy: PolicySet, ctx: GateContext) -> None:
    assert policy.evaluate_command("kill 5150", ctx).decision == "allow"
    assert policy.evaluate_command("kill 5151", ctx).decision == "deny"
    assert policy.evaluate_command("kill 5150", None).decision == "deny"


def test_parse_error_fails_closed_and_says_where(policy: PolicySet) -> None:
    verdict = policy.evaluate_command("echo 'unterminated")
    assert verdict.decision == "deny"
    assert verdict.rules == ["fail-closed"]
    assert "cannot parse" in verdict.reason


def test_reason_names_the_inner_command_and_its_wrappers(policy: PolicySet) -> None:
    verdict = policy.evaluate_command("sudo timeout 5 reboot")
    assert verdict.decision == "deny"
    assert "via sudo > timeout" in verdict.reason


def test_unknown_program_gets_the_default(policy: PolicySet) -> None:
    verdict = policy.evaluate_command("frobnicate --all")
    assert verdict.decision == "ask"
    assert verdict.rules == ["default"]
    assert "frobnicate" in verdict.reason


def test_empty_command_runs_nothing(policy: PolicySet) -> None:
    assert policy.evaluate_command("   # just a comment").decision == "allow"


def test_gpu_facts_at_run_time_fill_what_the_policy_leaves_open() -> None:
    from agent.policy.model import HostFacts

    bare = load_policy_set([])
    cmd = "CUDA_VISIBLE_DEVICES=2 python3 -m sglang.launch_server --model-path /m"
    assert bare.evaluate_command(cmd).decision == "deny"  # no facts: cannot tell whose GPU 2 is
    ctx = GateContext(work_dir="/w", facts=HostFacts(agent_gpus=[0, 1, 2, 3]))
    assert bare.evaluate_command(cmd, ctx).decision == "allow"


@pytest.mark.parametrize("command", ['bash -c "$X"', "tar -I *.log -cf x x", "man -P $(cat x) ls"])
def test_reasons_show_unknown_words_as_a_person_reads_them(policy: PolicySet, ctx: GateContext, command: str) -> None:
    reason = policy.evaluate_command(command, ctx).reason
    assert "\x00" not in reason and "\x01" not in reason
    assert "$?" in reason or "*" in reason
