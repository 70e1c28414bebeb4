"""The `Decider` interface: the run's state in, one `Decision` out.

Errors by audience: a decider that cannot produce a usable decision (a model returning garbage
twice, an endpoint that stays down) raises `DeciderError`; the loop turns it into a question for
the operator, never a crash.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from agent.state import AgentState, Decision


class DeciderError(Exception):
    """The decider could not decide; the message goes into the situation report."""


@runtime_checkable
class Decider(Protocol):
    name: str

    def decide(self, state: AgentState) -> Decision: ...
