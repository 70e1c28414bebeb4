"""The checkpointer's serializer: LangGraph's, with every string scrubbed before it is stored
(agent.store.at_rest says why)."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from agent.store.at_rest import PackedMemo, scrub_packed
from agent.transcript.scrub import Scrubber


class ScrubbingSerializer(JsonPlusSerializer):
    """LangGraph's serializer, scrubbing every string of a checkpoint or write before it is stored.

    What is read back is the scrubbed text: a resumed run sees `[REDACTED:...]` where a secret was."""

    def __init__(self, scrub: Scrubber, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._scrub = scrub
        self._memo = PackedMemo()

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        type_, data = super().dumps_typed(obj)
        if type_ == "msgpack":
            return type_, scrub_packed(self._scrub, data, self._memo)
        return type_, data
