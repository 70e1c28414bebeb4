"""The `Approver` interface: a question in, the operator's reply out."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from agent.state import Question, Reply


@runtime_checkable
class Approver(Protocol):
    name: str

    def answer(self, question: Question) -> Reply | None:
        """The reply, or None when nobody can answer now (the run then waits in the inbox)."""
        ...
