"""The lab models the sandbox: writes outside the work directory and the policy's writable paths
fail with "Read-only file system" (as root too), sudo fails as under no_new_privs, an approved
escalation runs outside; with `sandbox: off` the lab behaves as before."""

from __future__ import annotations

from agent.loop.targets import open_target, sandbox_spec
from agent.policy.policyset import load_policy_set
from tools.lab.sandbox import SUDO_NO_NEW_PRIVS
from tools.lab.target import LabTarget
from tools.sandbox import SandboxSpec


def _lab(spec: SandboxSpec | None) -> LabTarget:
    lab = LabTarget.from_name("healthy-host")
    if spec is not None:
        lab.model_sandbox(spec)
    return lab


def test_writes_outside_the_work_directory_fail_read_only() -> None:
    lab = _lab(SandboxSpec())
    for command in (
        "echo x > /etc/opsagent.conf",
        "touch /opt/x",
        "echo 1 | tee /proc/sys/vm/panic_on_oom",
        "mkdir /srv/models",
        "echo x > ~/notes.txt",
    ):
        result = lab.run(command)
        assert result.exit_code == 1 and "Read-only file system" in result.stderr, command
    assert (
        lab.run("mkdir -p ~/opsagent-work; echo x > ~/opsagent-work/notes.txt; cat ~/opsagent-work/notes.txt").stdout
        == "x\n"
    )


def test_sudo_fails_as_under_no_new_privs_even_for_root_writes() -> None:
    lab = _lab(SandboxSpec())
    result = lab.run("sudo echo ok")
    assert result.exit_code == 1 and result.stderr == SUDO_NO_NEW_PRIVS
    assert "Read-only file system" in lab.run("sudo tee /etc/x <<< y").stderr + lab.run("echo y > /etc/x").stderr


def test_writable_paths_from_the_policy_are_writable() -> None:
    lab = _lab(SandboxSpec(writable=("~/.cache",)))
    assert lab.run("mkdir -p ~/.cache/hf && echo x > ~/.cache/hf/t && cat ~/.cache/hf/t").stdout == "x\n"


def test_an_escalation_runs_outside_as_root() -> None:
    lab = _lab(SandboxSpec())
    result = lab.run_outside_sandbox("echo x > /etc/opsagent.conf")
    assert result.exit_code == 0, result.stderr
    assert lab.sandbox is not None and lab.sandbox.active, "the walls are back after it"
    assert lab.run("echo x > /etc/opsagent.conf").exit_code == 1


def test_sandbox_off_leaves_the_lab_as_it_was() -> None:
    lab = _lab(SandboxSpec(mode="off"))
    assert lab.run("sudo echo ok").exit_code == 0
    assert _lab(None).run("sudo echo ok").exit_code == 0
    status = lab.sandbox_status()
    assert status is not None and not status.active and "sandbox: off" in status.detail


def test_a_lab_target_opened_for_a_run_models_the_policys_sandbox() -> None:
    spec = sandbox_spec(load_policy_set([]), "lab:healthy-host")
    lab = open_target("lab:healthy-host", sandbox=spec)
    status = lab.sandbox_status()  # type: ignore[attr-defined]
    assert status.active and "modelled by the lab" in status.detail
