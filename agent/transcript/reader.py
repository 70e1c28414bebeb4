"""Reads a transcript's events (whole lines only) and resolves blob references."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent.transcript.blobs import BlobStore, blob_dir_for
from agent.transcript.schema import Event


def read_events(path: Path | str) -> Iterator[Event]:
    """The events of a transcript in file order; lines that are not events (a torn tail) are skipped.

    Reading does not verify: use `verify_transcript` for that.
    """
    with open(path, "rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                return  # torn tail: the writer has not finished this line (or never will)
            event = parse_line(raw)
            if event is not None:
                yield event


def parse_line(raw: bytes) -> Event | None:
    try:
        obj = json.loads(raw)
        return Event.from_json(obj)
    except (ValueError, KeyError, TypeError):
        return None


def blob_store(path: Path | str) -> BlobStore:
    return BlobStore(blob_dir_for(Path(path)), fsync=False)


def resolved_payload(path: Path | str, event: Event) -> dict[str, Any]:
    """The event's payload with blob references replaced by the stored text."""
    if not event.blobs:
        return event.payload
    inlined: dict[str, Any] = blob_store(path).inline(event.payload)
    return inlined


def not_a_transcript(path: Path | str) -> str | None:
    """Why `path` is not an opsagent transcript (empty, not JSON lines, not events), or None.

    Only the first line is read: a file whose first line is an event is a transcript, damaged or
    not, and `verify_transcript` says how it is damaged.
    """
    with open(path, "rb") as fh:
        first = fh.readline(1 << 20)
    if not first.strip():
        return f"{path} is empty: not an opsagent transcript"
    if parse_line(first.rstrip(b"\n")) is None:
        return f"{path} is not an opsagent transcript (its first line is not a transcript event)"
    return None
