"""`scripted` decider: decisions from a list, in order (tests, and reproducing a session by hand)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import yaml

from agent.deciders.base import DeciderError
from agent.state import AgentState, Decision


class ScriptedDecider:
    name = "scripted"

    def __init__(self, decisions: Iterable[Decision | Callable[[AgentState], Decision]]) -> None:
        self._script = list(decisions)
        self._cursor: int | None = None

    @classmethod
    def from_file(cls, path: Path) -> ScriptedDecider:
        items = yaml.safe_load(path.read_text())
        if not isinstance(items, list):
            raise DeciderError(f"{path}: a scripted decider file is a YAML list of decisions")
        return cls(Decision.model_validate(item) for item in items)

    def decide(self, state: AgentState) -> Decision:
        # The position is derived from the state, so a resumed run continues where it stopped.
        index = len(state.get("decisions", []))
        if index >= len(self._script):
            return Decision(kind="finish", goal_met=False, rationale="the script has no more decisions")
        item = self._script[index]
        return item(state) if callable(item) else item
