"""Where a transcript is kept besides its file: a team's database (agent.store.postgres).

The writer hands every event line and every blob to the record before the file gets them, so the
record is never behind the file: a process killed between the two leaves the event in the record,
and the next writer rebuilds its file from there. The file is then a cache of the record.
"""

from __future__ import annotations

from typing import Protocol


class TranscriptRecord(Protocol):
    def put_event(self, run_id: str, seq: int, line: str) -> None:
        """Keep one event, exactly the JSONL line (without its newline) that the file gets."""
        ...

    def put_blob(self, digest: str, data: bytes) -> None:
        """Keep a blob by its SHA-256 (a blob already kept is kept once)."""
        ...
