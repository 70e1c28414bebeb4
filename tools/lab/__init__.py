"""The lab: a deterministic simulated multi-GPU host implementing the `Target` interface.

    from tools.lab import LabTarget
    t = LabTarget.from_name("p2p-corruption", seed=0)
    t.run("nvidia-smi topo -p2p r").stdout

Scenarios live in `tools/lab/scenarios/*.yaml` (schema: tools/lab/SCHEMA.md).
"""

from tools.lab.scenario import (
    SCENARIO_DIR,
    Scenario,
    ScenarioError,
    load_scenario,
    parse_scenario,
    scenario_names,
)
from tools.lab.target import BenchRecord, LabCommand, LabTarget, LinkDrop

__all__ = [
    "SCENARIO_DIR",
    "BenchRecord",
    "LabCommand",
    "LabTarget",
    "LinkDrop",
    "Scenario",
    "ScenarioError",
    "load_scenario",
    "parse_scenario",
    "scenario_names",
]
