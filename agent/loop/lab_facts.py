"""A lab scenario as the agent sees it: its goal, and its host facts as a policy overlay.

On a real host the operator writes the facts overlay (see policies/README.md); on the lab the
scenario already says which GPUs are ours, which belong to the co-tenant, and where the work dir
is, so one policy serves every scenario.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from agent.loop.targets import TargetSpecError, open_target
from agent.state import Goal
from agent.store.records import RunSpec
from tools.lab.launch import gpu_uuid
from tools.lab.target import LabTarget


def open_lab(target_spec: str, seed: int = 0) -> LabTarget:
    lab = open_target(target_spec, seed=seed)
    if not isinstance(lab, LabTarget):
        raise TargetSpecError(f"{target_spec!r} is not a lab target (lab:NAME)")
    return lab


def scenario_goal(lab: LabTarget) -> Goal:
    return Goal.model_validate(lab.scenario.goal.model_dump())


def facts_for_lab(lab: LabTarget) -> dict[str, object]:
    scenario = lab.scenario
    visible = scenario.visible_devices()
    ours = [i for i, d in enumerate(visible) if d.owner == "agent" and i in scenario.goal.gpus]
    others = [d for d in scenario.gpus.devices if d.owner != "agent"]
    return {
        "work_dir": lab.work_dir,
        "home": f"/home/{scenario.host.user}",
        "agent_gpus": ours,
        "agent_gpu_pci": [visible[i].bus_id for i in ours],
        "agent_gpu_uuids": [gpu_uuid(scenario, visible[i]) for i in ours],
        "protected_gpus": [i for i, d in enumerate(visible) if d.owner != "agent" or i not in ours],
        "protected_pci": [d.bus_id for d in others],
        "protected_iommu_groups": sorted({d.iommu_group for d in others}),
        "pci_iommu_group": {d.bus_id: d.iommu_group for d in scenario.gpus.devices},
        "protected_vm_ids": sorted({str(d.vm_id) for d in others if d.vm_id is not None}),
        "protected_paths": sorted({str(Path(m.path).parent) for m in scenario.models}),
    }


def write_facts_overlay(lab: LabTarget, state_dir: Path) -> Path:
    name = lab.scenario.name
    path = state_dir / "facts" / f"lab-{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"description": f"host facts of the lab scenario {name}", "facts": facts_for_lab(lab)}
    # Runs started at the same moment write and read this file: each writes a file of its own and
    # renames it into place, so no reader ever sees it half written (an empty file failed a start).
    handle, temp = tempfile.mkstemp(prefix=f".lab-{name}-", suffix=".yaml", dir=path.parent)
    with os.fdopen(handle, "w") as out:
        out.write(yaml.safe_dump(body, sort_keys=False))
    os.replace(temp, path)
    return path


def lab_run_spec(
    lab: LabTarget,
    target_spec: str,
    *,
    state_dir: Path,
    run_id: str,
    transcript: Path,
    decider: str,
    model: str | None = None,
    loop: dict[str, Any] | None = None,
    seed: int = 0,
) -> RunSpec:
    """A run on this lab towards its scenario's goal, under the default policy plus its facts."""
    return RunSpec(
        run_id=run_id,
        goal=scenario_goal(lab).model_dump(mode="json"),
        target=target_spec,
        decider=decider,
        model=model,
        policies=[str(write_facts_overlay(lab, state_dir))],
        loop=loop or {},
        seed=seed,
        transcript=str(transcript),
    )
