"""Secrets at rest: what the state store and the checkpointer write is scrubbed first.

The transcript has always been scrubbed before the write (agent.transcript.scrub); the state
directory held the same events unscrubbed: the run's goal in the runs table, questions with
their situation reports in the inbox, actions and results in the journal, and LangGraph's
checkpoints (every observation, as msgpack blobs, first in the SQLite WAL). Everything those
write passes the same scrubber here, so a token given in the goal, set in the environment or
printed by a tool is in no file under the state or transcript directories.

`scrubber()` adds to the transcript's patterns the values of this process's environment
variables named like secrets (`HF_TOKEN`, `*_API_KEY`, ...), so a token of no known shape is
still caught wherever it is echoed back.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Mapping
from typing import Any

import ormsgpack

from agent.transcript.scrub import Scrubber

_SECRET_NAME = re.compile(
    r"^[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)(?:_[A-Z0-9_]*)?$"
)
_MIN_SECRET_LEN = 8  # shorter values ("1", "true") would redact ordinary text


def environment_secrets(environ: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """Named patterns for the values of secret-named environment variables."""
    env = os.environ if environ is None else environ
    values = sorted({v for k, v in env.items() if _SECRET_NAME.match(k) and len(v) >= _MIN_SECRET_LEN}, key=len)
    return [("environment_secret", re.escape(v)) for v in reversed(values)]


def scrubber(environ: Mapping[str, str] | None = None) -> Scrubber:
    """One scrubber per set of secrets, shared: the store, the transcript and the checkpointer
    scrub the same texts, and a shared one (see Scrubber's memo) scans each text once."""
    return _scrubber_for(tuple(environment_secrets(environ)))


@functools.lru_cache(maxsize=8)
def _scrubber_for(named: tuple[tuple[str, str], ...]) -> Scrubber:
    return Scrubber(named=named)


def scrub_value(scrub: Scrubber, obj: Any, memo: PackedMemo | None = None) -> Any:
    """A scrubbed copy of JSON-like `obj` (strings, lists, dicts; other values kept as they are)."""
    if isinstance(obj, str):
        return scrub.scrub_text(obj)[0]
    if isinstance(obj, dict):
        out: dict[Any, Any] = {}
        for key, value in obj.items():
            if isinstance(key, str) and isinstance(value, str):
                out[key] = scrub.scrub({key: value})[0][key]  # a secret-named key hides its value
            else:
                out[key] = scrub_value(scrub, value, memo)
        return out
    if isinstance(obj, list | tuple):
        return [scrub_value(scrub, v, memo) for v in obj]
    if isinstance(obj, _Ext):
        return ormsgpack.Ext(obj.tag, scrub_packed(scrub, obj.data, memo))
    return obj


class _Ext:
    """An extension value as read (ormsgpack.Ext does not show its fields)."""

    def __init__(self, tag: int, data: bytes) -> None:
        self.tag, self.data = tag, data


def scrub_json(scrub: Scrubber, text: str) -> str:
    """A JSON document with every string in it scrubbed (still valid JSON)."""
    return json.dumps(scrub_value(scrub, json.loads(text)), sort_keys=False)


class PackedMemo:
    """Scrubbed msgpack payloads by their bytes (bounded; cleared when full). A checkpoint holds
    the whole state, so every step stores again the same observation and result objects as the
    step before; their payloads are scrubbed once, not once per step."""

    MAX_BYTES = 32_000_000

    def __init__(self) -> None:
        self._done: dict[bytes, bytes] = {}
        self._size = 0

    def get(self, data: bytes) -> bytes | None:
        return self._done.get(data)

    def put(self, data: bytes, scrubbed: bytes) -> None:
        if self._size + len(data) + len(scrubbed) > self.MAX_BYTES:
            self._done.clear()
            self._size = 0
        self._done[data] = scrubbed
        self._size += len(data) + len(scrubbed)


def scrub_packed(scrub: Scrubber, data: bytes, memo: PackedMemo | None = None) -> bytes:
    """msgpack bytes with every string inside scrubbed, extension payloads (pydantic models,
    dataclasses: themselves msgpack) included; bytes that are not msgpack stay as they are."""
    done = memo.get(data) if memo is not None else None
    if done is not None:
        return done
    try:
        obj = ormsgpack.unpackb(data, ext_hook=_Ext, option=ormsgpack.OPT_NON_STR_KEYS)
    except (ormsgpack.MsgpackDecodeError, ValueError, TypeError):
        return data
    scrubbed = ormsgpack.packb(scrub_value(scrub, obj, memo), option=ormsgpack.OPT_NON_STR_KEYS)
    if memo is not None:
        memo.put(data, scrubbed)
    return scrubbed
