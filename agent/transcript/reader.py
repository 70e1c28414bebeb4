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
