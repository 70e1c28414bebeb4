"""Host facts for the policy, taken from a lab scenario: one policy then serves every scenario.

On a real host the operator writes this overlay (see policies/README.md); on the lab the scenario
already says which GPUs are ours, which belong to the co-tenant, and where the work dir is.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from agent.targets import open_target


def facts_for_lab(target_spec: str, seed: int = 0) -> dict[str, object]:
    lab = open_target(target_spec, seed=seed)
    scenario = lab.scenario  # type: ignore[attr-defined]
    visible = scenario.visible_devices()
    ours = [i for i, d in enumerate(visible) if d.owner == "agent" and i in scenario.goal.gpus]
    others = [d for d in scenario.gpus.devices if d.owner != "agent"]
    return {
        "work_dir": lab.work_dir,
        "home": f"/home/{scenario.host.user}",
        "agent_gpus": ours,
        "agent_gpu_pci": [visible[i].bus_id for i in ours],
        "protected_gpus": [i for i, d in enumerate(visible) if d.owner != "agent" or i not in ours],
        "protected_pci": [d.bus_id for d in others],
        "protected_iommu_groups": sorted({d.iommu_group for d in others}),
        "pci_iommu_group": {d.bus_id: d.iommu_group for d in scenario.gpus.devices},
        "protected_vm_ids": sorted({str(d.vm_id) for d in others if d.vm_id is not None}),
        "protected_paths": sorted({str(Path(m.path).parent) for m in scenario.models}),
    }


def write_facts_overlay(target_spec: str, state_dir: Path, seed: int = 0) -> Path:
    name = target_spec.split(":", 1)[1].replace("/", "_")
    path = state_dir / "facts" / f"lab-{Path(name).stem}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {
        "description": f"host facts of the lab scenario {name}",
        "facts": facts_for_lab(target_spec, seed),
    }
    path.write_text(yaml.safe_dump(body, sort_keys=False))
    return path
