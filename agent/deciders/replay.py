"""The `replay` decider: the decisions recorded in a transcript, handed back in order.

Used by `opsagent rerun` to reproduce a session against the lab. The next decision is chosen by
how many decisions the run's state already holds, not by a counter in this object, so a rerun
that is interrupted and resumed in another process continues where it was. Recorded model usage
is dropped (nothing is spent on a rerun); secrets redacted in the transcript stay redacted, so
an action that needed one will not behave as it did originally.
"""

from __future__ import annotations

from pathlib import Path

from agent.deciders.base import DeciderError
from agent.state import AgentState, Decision
from agent.transcript.reader import read_events, resolved_payload


class ReplayDecider:
    name = "replay"

    def __init__(self, decisions: list[Decision], source: str = "") -> None:
        self.decisions = decisions
        self.source = source

    @classmethod
    def from_transcript(cls, path: Path) -> ReplayDecider:
        path = Path(path)
        decisions: list[Decision] = []
        try:
            for event in read_events(path):
                if event.type != "decision":
                    continue
                payload = resolved_payload(path, event)
                decision = Decision.model_validate({**payload, "usage": []})
                note = f"[replayed from {path.name} seq {event.seq}]"
                decisions.append(decision.model_copy(update={"rationale": f"{note} {decision.rationale}".strip()}))
        except FileNotFoundError as exc:
            raise DeciderError(f"cannot replay {path}: {exc}") from exc
        except ValueError as exc:
            raise DeciderError(f"cannot replay {path}: a recorded decision does not load: {exc}") from exc
        return cls(decisions, source=str(path))

    def decide(self, state: AgentState) -> Decision:
        index = len(state.get("decisions", []))
        if index < len(self.decisions):
            return self.decisions[index]
        return Decision(
            kind="finish",
            rationale=f"no further decisions in {self.source} ({len(self.decisions)} replayed)",
        )
