"""What the running agent tells the gate, and what the gate offers the structured-tool checks.

Its own module so that `actions.py` (structured tool calls) depends on this interface and not on
`PolicySet`, which dispatches to it: the imports point one way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agent.policy.evaluate import InvocationVerdict
    from agent.policy.facts import Facts
    from agent.policy.model import HostFacts
    from agent.verdict import VerdictWord
    from tools.target import DetachedProcess

OBSERVE_TOOLS = {
    "observe_gpus",
    "observe_topology",
    "observe_host",
    "read_host_evidence",
    "p2p_check",
    "plan_layouts",
    "sglang_flags",
    "wait_server",
    "server_status",
    "run_benchmark",
}
CONTROL_TOOLS = {"ask_operator", "finish"}
PATH_KEYS = ("path", "file", "log_path", "output_file", "script_path", "dataset_path")


@dataclass
class GateContext:
    """What the running agent knows that the policy files do not."""

    work_dir: str
    own_processes: dict[str, DetachedProcess] = field(default_factory=dict)
    facts: HostFacts | None = None


class Gate(Protocol):
    """What the checks of structured tool calls ask of a loaded policy set."""

    default: VerdictWord

    def facts_for(self, ctx: GateContext | None) -> Facts: ...

    def explain(self, command: str, ctx: GateContext | None = None) -> list[InvocationVerdict]: ...

    def evaluate_tool(self, tool: str, ctx: GateContext | None, **extra: Any) -> list[InvocationVerdict]: ...
