"""The policy gate's answer about one action: allow, ask or deny, the rules that decided, why.

Its own module so that the gate (`opsagent policy check`) loads without the run's state models;
`agent.state` re-exports both names, and checkpoints name either module (agent/loop/runner.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

VerdictWord = Literal["allow", "ask", "deny"]


class Verdict(BaseModel):
    decision: VerdictWord
    rules: list[str] = []
    reason: str = ""
