"""Turn the operator's `--target` into a `Target`: lab:NAME, local, or ssh://user@host[:port]."""

from __future__ import annotations

from pathlib import Path

from tools.target import Target


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
) -> Target:
    if spec.startswith("lab:"):
        from tools.lab import LabTarget, ScenarioError, scenario_names

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


def _family_variant(name: str) -> Target:
    """`lab:FAMILY.yaml#K`: variant K of a scenario family; K also seeds the lab's noise."""
    from tools.lab import LabTarget, ScenarioError
    from tools.lab.family import FamilyError, draw_variant

    path, _, seed = name.rpartition("#")
    if not seed.isdigit():
        raise TargetSpecError(f"lab:{name}: the variant after '#' is a seed, a whole number >= 0 (lab:FILE#3)")
    try:
        return LabTarget(draw_variant(Path(path), int(seed)), seed=int(seed))
    except (ScenarioError, FamilyError) as exc:
        raise TargetSpecError(str(exc)) from exc
