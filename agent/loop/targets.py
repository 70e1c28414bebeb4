"""Turn the operator's `--target` into a `Target`: lab:NAME, local, or ssh://user@host[:port]."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tools.sandbox import SandboxError, SandboxSpec, SandboxStatus
from tools.sandbox_view import READABLE_TOOLCHAINS
from tools.target import Target, TargetError

if TYPE_CHECKING:
    from agent.policy.policyset import PolicySet


class TargetSpecError(ValueError):
    """The --target value names nothing usable; the message lists the forms."""


FORMS = "lab:NAME (see 'opsagent lab list'), lab:FAMILY.yaml#SEED, local, or ssh://[user@]host[:port]"


def open_target(
    spec: str,
    *,
    identity: Path | None = None,
    accept_new_host_key: bool = False,
    seed: int = 0,
    work_dir: str | None = None,
    sandbox: SandboxSpec | None = None,
) -> Target:
    """Open the target; local and SSH targets check their sandbox first, so a policy that
    requires one refuses here, before anything runs (TargetError with the install command)."""
    target = _open(spec, identity, accept_new_host_key, seed, work_dir, sandbox)
    try:
        sandbox_status(target)
    except SandboxError as exc:
        target.close()
        raise TargetError(str(exc)) from exc
    return target


def sandbox_spec(policy: PolicySet, target: str) -> SandboxSpec:
    """The policy's sandbox for `target`: its `sandbox:` setting (unset: require for SSH targets,
    auto elsewhere), the writable and readable paths and the ports it lists, the agent's GPUs from
    its facts."""
    facts = policy.facts
    mode = policy.sandbox or ("require" if target.startswith("ssh://") else "auto")
    return SandboxSpec.model_validate(
        {
            "mode": mode,
            "writable": tuple(policy.sandbox_writable),
            "gpu_pci": tuple(facts.agent_gpu_pci) if facts.agent_gpu_pci else None,
            "gpu_indices": tuple(facts.agent_gpus) if facts.agent_gpus is not None else None,
            "protected_pci": tuple(facts.protected_pci),
            "ports": tuple(policy.sandbox_ports),
            "readable": (*READABLE_TOOLCHAINS, *policy.sandbox_readable),
        }
    )


def sandbox_status(target: Target) -> SandboxStatus | None:
    """The target's sandbox, or None for a target that has none (a test double)."""
    status = getattr(target, "sandbox_status", None)
    return status() if callable(status) else None


def _open(
    spec: str,
    identity: Path | None,
    accept_new_host_key: bool,
    seed: int,
    work_dir: str | None,
    sandbox: SandboxSpec | None,
) -> Target:
    if spec.startswith("lab:"):
        from tools.lab.scenario import ScenarioError, scenario_names
        from tools.lab.target import LabTarget

        name = spec[4:]
        if "#" in name:
            return _family_variant(name)
        is_file = name.endswith((".yaml", ".yml")) or "/" in name
        if not is_file and name not in scenario_names():
            known = ", ".join(scenario_names())
            raise TargetSpecError(
                f"unknown lab scenario {name!r}; 'opsagent lab list' shows them ({known}), "
                "or pass lab:path/to/scenario.yaml"
            )
        try:
            if is_file:
                from tools.lab.scenario import load_scenario

                lab = LabTarget(load_scenario(Path(name)), seed=seed)
            else:
                lab = LabTarget.from_name(name, seed=seed)
            if sandbox is not None:
                lab.model_sandbox(sandbox)
            return lab
        except ScenarioError as exc:
            raise TargetSpecError(str(exc)) from exc
    if spec == "local":
        from tools.local import LocalTarget

        return LocalTarget(work_dir, sandbox=sandbox)
    if spec.startswith("ssh://"):
        from tools.ssh.config import SSHOptions
        from tools.ssh.target import SSHTarget

        options = SSHOptions(
            identity=identity, accept_new_host_key=accept_new_host_key, work_dir=work_dir, sandbox=sandbox
        )
        return SSHTarget.connect(spec, options)
    raise TargetSpecError(f"unknown target {spec!r}; use {FORMS}")


def _family_variant(name: str) -> Target:
    """`lab:FAMILY.yaml#K`: variant K of a scenario family; K also seeds the lab's noise."""
    from tools.lab.family import FamilyError, draw_variant
    from tools.lab.scenario import ScenarioError
    from tools.lab.target import LabTarget

    path, _, seed = name.rpartition("#")
    if not seed.isdigit():
        raise TargetSpecError(f"lab:{name}: the variant after '#' is a seed, a whole number >= 0 (lab:FILE#3)")
    try:
        return LabTarget(draw_variant(Path(path), int(seed)), seed=int(seed))
    except (ScenarioError, FamilyError) as exc:
        raise TargetSpecError(str(exc)) from exc
