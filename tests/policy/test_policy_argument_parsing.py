"""Programs' arguments read as their own parsers read them: bash's `kill` (options only before the
first target), cp/mv/ln/install/rsync/scp option values and GNU abbreviations, container bind
mounts, `docker container VERB`; and the agent's pid files, which only its own tools write."""

from __future__ import annotations

import pytest

from agent.policy.gate import GateContext
from agent.policy.policyset import PolicySet
from agent.policy.programs.docker import bind_mounts
from agent.policy.programs.files import copy_operands
from agent.policy.programs.table import subcommand_of

W = "/home/ops/opsagent-work"


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("kill -9 1 -l", "deny"),  # bash signals 1, then complains about `-l`
        ("kill 4321 --list", "deny"),
        ("kill -9 -0 1", "deny"),  # after the signal, `-0` is a target (this group), then PID 1
        ("kill -s KILL -0 -1", "deny"),
        ("kill -l", "allow"),
        ("kill -l 9", "allow"),
        ("kill -0 1", "allow"),  # signal 0 sends nothing
        (f"kill $(cat {W}/run/sglang.pid)", "allow"),
        (f'kill -TERM "$(cat {W}/run/sglang.pid)"', "allow"),
        (f"kill -9 1$(cat {W}/run/sglang.pid)", "deny"),  # more than the pid the file names
        (f"pkill -F {W}/run/sglang.pid -F /run/qemu-server/101.pid", "deny"),  # procps reads the last -F
        (f"pkill -F {W}/run/sglang.pid", "allow"),
        (f"echo 1 > {W}/run/sglang.pid", "deny"),
        (f"ln -sf /run/qemu-server/101.pid {W}/run/vm.pid", "deny"),
    ],
)
def test_signals_are_read_as_bash_and_procps_read_them(
    policy: PolicySet, ctx: GateContext, command: str, decision: str
) -> None:
    assert policy.evaluate_command(command, ctx).decision == decision


@pytest.mark.parametrize(
    ("name", "args", "operands", "target"),
    [
        ("rsync", ["-a", "--delete", "src/", "-P", "/models/"], ["src/", "/models/"], None),
        ("rsync", ["-avP", "--exclude", "x", "a/", "b/"], ["a/", "b/"], None),
        ("rsync", ["-avze", "ssh -p 2", "a", "h:b"], ["a", "h:b"], None),
        ("mv", ["-t/models", "f"], ["f"], "/models"),
        ("cp", ["--target", "/models", "f"], ["f"], "/models"),
        ("mv", ["--targ=/models", "f"], ["f"], "/models"),
        ("ln", ["-ft/models", "f"], ["f"], "/models"),
        ("install", ["f", "-p", "/models/x"], ["f", "/models/x"], None),  # -p preserves times
        ("install", ["-m", "755", "f", "d/f"], ["f", "d/f"], None),
        ("scp", ["-p", "-P", "2222", "f", "h:/tmp/"], ["f", "h:/tmp/"], None),
        ("cp", ["--", "-t", "x"], ["-t", "x"], None),
    ],
)
def test_copy_operands_follow_each_programs_option_parser(
    name: str, args: list[str], operands: list[str], target: str | None
) -> None:
    pos, target_dir, _ = copy_operands(name, args)
    assert (pos, target_dir) == (operands, target)


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("rsync -a --delete ~/opsagent-work/empty/ -P /models/", "deny"),
        ("rsync -a --remove-source-files /models/x ~/opsagent-work/", "deny"),
        ("rsync -a --temp-dir=/models ~/opsagent-work/a ~/opsagent-work/b", "deny"),
        ("rsync -a -P ~/.ssh/ ~/opsagent-work/k/", "deny"),
        ("rsync -avP --exclude '*.tmp' ~/opsagent-work/a/ ~/opsagent-work/b/", "allow"),
        ("cp --target=/models ~/opsagent-work/x", "deny"),
        ("ln -ft/models ~/opsagent-work/x", "deny"),
        ("ln --sym /models ~/opsagent-work/m", "ask"),
        ("cp /models/llama/config.json ~/opsagent-work/", "allow"),
    ],
)
def test_copies_moves_and_links_land_where_the_program_puts_them(
    policy: PolicySet, ctx: GateContext, command: str, decision: str
) -> None:
    assert policy.evaluate_command(command, ctx).decision == decision


def test_bind_mounts_are_host_paths_in_every_spelling() -> None:
    args = ["run", "-v", "/models:/m:ro", "--volume=/data:/d", "-v", "cache:/c", "--mount"]
    args += ["type=bind,source=/srv,target=/s,readonly", "alpine"]
    assert bind_mounts(args) == [("/models", True), ("/data", False), ("/srv", True)]


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("docker run --rm -v /models:/m alpine rm -rf /m", "deny"),
        ("podman run --rm --mount type=bind,src=/models,dst=/m alpine true", "deny"),
        ("docker run --rm -v /home/ops/.ssh:/k:ro alpine cat /k/id_rsa", "deny"),
        # a container's workload is not judged: running one asks (#28: beyond read-only inspection)
        ("docker run --rm -v /models:/models:ro alpine ls /models", "ask"),
        (f"docker run --rm -v {W}:/w alpine ls /w", "ask"),
        ("docker container kill other", "ask"),
        ("docker container ls", "allow"),
        ("docker save -o /models/x.tar alpine", "deny"),
    ],
)
def test_containers_may_do_anything_to_what_is_mounted(
    policy: PolicySet, ctx: GateContext, command: str, decision: str
) -> None:
    assert policy.evaluate_command(command, ctx).decision == decision


def test_docker_management_groups_name_the_verb() -> None:
    assert subcommand_of("docker", ["container", "kill", "x"]) == "kill"
    assert subcommand_of("podman", ["--log-level", "info", "image", "rm", "x"]) == "rm"
    assert subcommand_of("docker", ["container"]) == "container"
    assert subcommand_of("git", ["container", "kill"]) == "container"


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        # a redirect on a function definition applies each time the function runs
        ("f(){ echo b; } > /proc/sysrq-trigger; f", "power-sysrq"),
        ("f(){ echo b; } > /proc/sysrq-trigger 2>/dev/null; f", "power-sysrq"),
        ("f(){ :; } > /models/llama/model.safetensors; f", "write-protected"),
        ("f(){ cat; } < ~/.ssh/id_rsa; f", "secret-files"),
        # bash opens a redirect's file even when no program runs under it
        ("export X=1 > /models/llama/model.safetensors", "write-protected"),
        ("local X=1 > /models/llama/model.safetensors", "write-protected"),
        ("unset X > /models/llama/model.safetensors", "write-protected"),
        ("[[ 1 ]] > /models/llama/model.safetensors", "write-protected"),
        ("{ x=1; } > /models/x", "write-protected"),
        # expansions other than `${name}` are other values
        ("ls=reboot; y=ls; ${!y}", "fail-closed"),
        ("y=x; x=/models; rm -rf ${!y}", "delete-protected"),
        ("x=opsagent-work; rm -rf ~/${x:+}", "delete-outside-workdir"),
        ("x=home/ops/opsagent-work/x; rm -rf /${x:+}models", "delete-protected"),
        ("x=.SSH; cat ~/${x,,}/id_rsa", "secret-files"),
    ],
)
def test_redirects_without_a_program_and_expansion_operators(
    policy: PolicySet, ctx: GateContext, command: str, rule: str
) -> None:
    verdict = policy.evaluate_command(command, ctx)
    assert verdict.decision == "deny" and rule in verdict.rules


@pytest.mark.parametrize(
    "command",
    ["f(){ echo hi; } > notes.txt; f", "export X=1 > out.txt", "f(){ cat; } < notes.txt; f", "x=notes.txt; cat ${x}"],
)
def test_redirects_and_expansions_in_the_work_directory_are_allowed(
    policy: PolicySet, ctx: GateContext, command: str
) -> None:
    assert policy.evaluate_command(command, ctx).decision == "allow"


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        # words after a redirect are still the command's arguments (tree-sitter hangs them on it)
        ("rm -rf 2>/dev/null /models", "delete-protected"),
        ("systemctl 2>/dev/null kexec", "power-systemctl"),
        ("sudo 2>/dev/null reboot", "power-programs"),
        ("kill 2>/dev/null -9 1", "power-signal-init"),
        ("virsh 2>&1 destroy 101", "vm-protected-virsh"),
        ("echo hi | cat 2>/dev/null /home/ops/.ssh/id_rsa", "secret-files"),
        # and after a here-document's start, with the redirects that follow it
        ("rm -rf <<E /models\nE", "delete-protected"),
        ("kill <<E -9 1\nE", "power-signal-init"),
        ("cat <<E > /proc/sysrq-trigger\nb\nE", "power-sysrq"),
        ("cat <<E 2>/dev/null /etc/shadow > out\nE", "secret-files"),
        # what tree-sitter could not parse there, or what a pipe is fed, is not known
        ("cat <<E x > /proc/sysrq-trigger y\nb\nE", "fail-closed"),
        ("echo 2>/dev/null reboot | sh", "fail-closed"),
    ],
)
def test_words_after_a_redirect_are_arguments(policy: PolicySet, ctx: GateContext, command: str, rule: str) -> None:
    verdict = policy.evaluate_command(command, ctx)
    assert verdict.decision == "deny" and rule in verdict.rules
