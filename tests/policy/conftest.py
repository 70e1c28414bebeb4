"""What the policy tests share: the shipped policy on the lab host, and a gate context with
only the agent's work directory (files that need the agent's own processes override `ctx`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.policy import GateContext, PolicySet, load_policy_set

REPO = Path(__file__).resolve().parents[2]
WORK_DIR = "/home/ops/opsagent-work"


@pytest.fixture(scope="session")
def policy() -> PolicySet:
    return load_policy_set([REPO / "policies" / "lab-host.yaml"])


@pytest.fixture(scope="module")
def ctx() -> GateContext:
    return GateContext(work_dir=WORK_DIR)
