"""Turn the operator's `--target` into a `Target`: lab:NAME, local, or ssh://user@host[:port]."""

from __future__ import annotations

from pathlib import Path

from tools.target import Target


class TargetSpecError(ValueError):
    """The --target value names nothing usable; the message lists the forms."""


FORMS = "lab:NAME (see 'opsagent lab list'), local, or ssh://[user@]host[:port]"


def open_target(
    spec: str,
    *,
    identity: Path | None = None,
    accept_new_host_key: bool = False,
    seed: int = 0,
    work_dir: str | None = None,
) -> Target:
    if spec.startswith("lab:"):
        from tools.lab import LabTarget, ScenarioError, scenario_names

        name = spec[4:]
        is_file = name.endswith((".yaml", ".yml")) or "/" in name
        if not is_file and name not in scenario_names():
            known = ", ".join(scenario_names())
            raise TargetSpecError(
                f"unknown lab scenario {name!r}; 'opsagent lab list' shows them ({known}), "
                "or pass lab:path/to/scenario.yaml"
            )
        try:
            if is_file:
                from tools.lab import load_scenario

                return LabTarget(load_scenario(Path(name)), seed=seed)
            return LabTarget.from_name(name, seed=seed)
        except ScenarioError as exc:
            raise TargetSpecError(str(exc)) from exc
    if spec == "local":
        from tools.local import LocalTarget

        return LocalTarget(work_dir)
    if spec.startswith("ssh://"):
        from tools.ssh import SSHOptions, SSHTarget

        options = SSHOptions(identity=identity, accept_new_host_key=accept_new_host_key, work_dir=work_dir)
        return SSHTarget.connect(spec, options)
    raise TargetSpecError(f"unknown target {spec!r}; use {FORMS}")
