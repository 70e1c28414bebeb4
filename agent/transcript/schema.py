"""The transcript's event types, its on-disk line layout and the hashing rule.

One JSON object per line, keys always in this order (documented in docs/transcript-schema.md):

    {"v":1,"seq":N,"ts":"...","run":"...","type":"...","payload":{...},
     "redactions":[...],"blobs":[...],"prev":"<64 hex>","hash":"<64 hex>"}

`hash` is always the last key and has a fixed width, so a line's hash is the SHA-256 of the line's
exact bytes with the trailing `,"hash":"<64 hex>"}` replaced by `}`. Nothing is re-serialised to
verify: what was written is what is hashed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Final, Literal

SCHEMA_VERSION: Final = 1

EventType = Literal[
    "run_started",
    "observation",
    "decision",
    "verdict",
    "question",
    "reply",
    "action_started",
    "action_result",
    "escalation",
    "error",
    "run_finished",
    "run_resumed",
    "report",
    "attempt",
    "notification",
]
EVENT_TYPES: Final[frozenset[str]] = frozenset(EventType.__args__)  # type: ignore[attr-defined]

GENESIS: Final = "0" * 64
"""The `prev` of the first event (seq 0)."""

HASH_KEY: Final = b',"hash":"'
HASH_SUFFIX_LEN: Final = len(HASH_KEY) + 64 + 2  # ,"hash":"<64 hex>"}

BLOB_KEY: Final = "$blob"
"""A string moved to a blob is replaced by {"$blob": sha256, "size": bytes, "head": ..., "tail": ...}."""

TORN_TAIL_KIND: Final = "torn_tail"
"""`error` payload kind written by `open_append` right after an unterminated line it found."""


def line_hash(line: bytes) -> str:
    """The hash of one written line (without its newline): SHA-256 of the bytes before `hash`, plus `}`."""
    h = hashlib.sha256(line[:-HASH_SUFFIX_LEN])
    h.update(b"}")
    return h.hexdigest()


@dataclass(frozen=True, slots=True)
class Redaction:
    """One secret removed before the write: which pattern found it and where (JSON pointer into payload)."""

    pattern: str
    path: str

    def to_json(self) -> dict[str, str]:
        return {"pattern": self.pattern, "path": self.path}


@dataclass(frozen=True, slots=True)
class Event:
    """One transcript event as written (payload holds blob references, not the blob text)."""

    seq: int
    ts: str
    run: str
    type: str
    payload: dict[str, Any]
    prev: str
    hash: str
    redactions: list[dict[str, str]] = field(default_factory=list)
    blobs: list[str] = field(default_factory=list)
    v: int = SCHEMA_VERSION

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Event:
        return cls(
            seq=obj["seq"],
            ts=obj["ts"],
            run=obj["run"],
            type=obj["type"],
            payload=obj["payload"],
            prev=obj["prev"],
            hash=obj["hash"],
            redactions=obj.get("redactions", []),
            blobs=obj.get("blobs", []),
            v=obj.get("v", SCHEMA_VERSION),
        )
