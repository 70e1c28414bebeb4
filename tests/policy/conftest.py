"""What the policy tests share: the shipped policy on the lab host, a gate context with only the
agent's work directory, and one that owns a server (files that need it override `ctx` with `owning`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent.policy.gate import GateContext
from agent.policy.policyset import PolicySet, load_policy_set
from tools.target import DetachedProcess

REPO = Path(__file__).resolve().parents[2]
WORK_DIR = "/home/ops/opsagent-work"


@pytest.fixture(scope="session")
def policy() -> PolicySet:
    return load_policy_set([REPO / "policies" / "lab-host.yaml"])


@pytest.fixture(scope="module")
def ctx() -> GateContext:
    return GateContext(work_dir=WORK_DIR)


@pytest.fixture(scope="session")
def owning() -> Callable[[str, int], GateContext]:
    """A gate context in which the agent started one SGLang server, `name`, as process `pid`."""

    def context(name: str, pid: int) -> GateContext:
        proc = DetachedProcess(
            name=name,
            command="python3 -m sglang.launch_server",
            pid=pid,
            pgid=pid,
            log_path=f"{WORK_DIR}/logs/{name}.log",
            pid_file=f"{WORK_DIR}/run/{name}.pid",
        )
        return GateContext(work_dir=WORK_DIR, own_processes={name: proc})

    return context
