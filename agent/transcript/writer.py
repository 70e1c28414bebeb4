"""Writes a run's transcript event by event: scrub, move large strings to blobs, chain, write, fsync.

Each event is one `os.write` of one whole line to a file opened with O_APPEND, then fsync'd, so a
crash loses at most the line being written, and a reader following the file sees whole lines or a
torn last line, never interleaved ones. The file is only ever appended to; an exclusive `flock`
keeps a second writer off a live transcript.

Resuming (`open_append`) after a crash that tore the last line leaves the torn bytes where they
are, ends them with a newline and writes an `error` event (kind `torn_tail`) whose payload names
the torn line's SHA-256, length and offset; that event chains to the last complete event, and the
verifier accepts a torn line only when such an event follows it immediately. Nothing is dropped
and nothing already written is rewritten.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.transcript.blobs import BlobStore, blob_dir_for
from agent.transcript.record import TranscriptRecord
from agent.transcript.schema import (
    EVENT_TYPES,
    GENESIS,
    HASH_SUFFIX_LEN,
    SCHEMA_VERSION,
    TORN_TAIL_KIND,
    Event,
    line_hash,
)
from agent.transcript.scrub import Scrubber

CRASH_ENV = "OPSAGENT_CRASH_AFTER_EVENT"
"""Fault injection for crash tests: the process SIGKILLs itself right after writing this seq."""


def _crash_point() -> int:
    value = os.environ.get(CRASH_ENV, "")
    return int(value) if value.strip().isdigit() else -1


class TranscriptError(Exception):
    """The transcript cannot be written or resumed; the message says what to do."""


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def format_ts(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TranscriptWriter:
    """Append-only writer of one run's transcript. Use `create` or `open_append`, then `emit`."""

    def __init__(
        self,
        path: Path,
        fd: int,
        run_id: str,
        *,
        seq: int,
        prev: str,
        scrubber: Scrubber | None,
        clock: Callable[[], float] | None,
        fsync: bool,
        record: TranscriptRecord | None = None,
    ) -> None:
        self.path = path
        self.record = record
        self.run_id = run_id
        self._fd = fd
        self._seq = seq
        self._prev = prev
        self._scrubber = scrubber if scrubber is not None else Scrubber()
        self._clock = clock or time.time
        self._fsync = fsync
        self.blobs = BlobStore(blob_dir_for(path), fsync=fsync, record=record)
        self._crash_after = _crash_point()
        self._emitting = threading.Lock()  # webhook outcomes are recorded from a background thread

    @classmethod
    def create(
        cls,
        directory: Path,
        run_id: str,
        scrubber: Scrubber | None = None,
        *,
        clock: Callable[[], float] | None = None,
        fsync: bool = True,
        record: TranscriptRecord | None = None,
    ) -> TranscriptWriter:
        """Start `<directory>/<run_id>.jsonl`; refuses to overwrite an existing transcript. With a
        `record`, every event and blob is kept there first (agent.transcript.record)."""
        if not run_id or "/" in run_id or run_id.startswith("."):
            raise TranscriptError(f"run id {run_id!r} cannot name a file; use letters, digits, '-' and '_'")
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{run_id}.jsonl"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o640)
        except FileExistsError:
            raise TranscriptError(
                f"transcript {path} already exists; resume it with open_append or choose another run id"
            ) from None
        _lock(fd, path)
        return cls(path, fd, run_id, seq=0, prev=GENESIS, scrubber=scrubber, clock=clock, fsync=fsync, record=record)

    @classmethod
    def open_append(
        cls,
        path: Path,
        scrubber: Scrubber | None = None,
        *,
        clock: Callable[[], float] | None = None,
        fsync: bool = True,
        record: TranscriptRecord | None = None,
    ) -> TranscriptWriter:
        """Continue the chain after the last complete event (see the module docstring for a torn tail).
        With a `record`, the file must have been rebuilt from it first (the record is never behind)."""
        path = Path(path)
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND)
        except FileNotFoundError:
            raise TranscriptError(f"transcript {path} does not exist; start it with TranscriptWriter.create") from None
        _lock(fd, path)
        data = _read_all(path)
        body, _, torn = data.rpartition(b"\n")
        last = _last_complete(body)
        seq, prev, run_id = 0, GENESIS, path.stem
        if last is not None:
            seq, prev, run_id = last["seq"] + 1, last["hash"], last["run"]
        writer = cls(path, fd, run_id, seq=seq, prev=prev, scrubber=scrubber, clock=clock, fsync=fsync, record=record)
        if torn:
            complete = _complete_event(torn, prev, seq)
            os.write(fd, b"\n")
            if complete is not None:
                # The crash came after the whole line but before its newline: it is a real event.
                writer._seq, writer._prev = complete["seq"] + 1, complete["hash"]
            else:
                writer.emit(
                    "error",
                    {
                        "kind": TORN_TAIL_KIND,
                        "message": "the previous process stopped mid-write; the line before this event is "
                        "the torn remainder of the event it was writing and is not part of the chain",
                        "torn_sha256": hashlib.sha256(torn).hexdigest(),
                        "torn_bytes": len(torn),
                        "torn_offset": len(data) - len(torn),
                    },
                )
        return writer

    @property
    def next_seq(self) -> int:
        return self._seq

    @property
    def last_hash(self) -> str:
        """The hash of the last event written: anchor it elsewhere to detect a cut tail."""
        return self._prev

    def emit(self, type: str, payload: dict[str, Any]) -> Event:
        """Scrub, externalise large strings, chain, write one line, flush and fsync; returns the event."""
        with self._emitting:
            return self._emit(type, payload)

    def _emit(self, type: str, payload: dict[str, Any]) -> Event:
        if type not in EVENT_TYPES:
            raise ValueError(f"unknown transcript event type {type!r}; known: {', '.join(sorted(EVENT_TYPES))}")
        if self._fd < 0:
            raise TranscriptError(f"transcript {self.path} is closed")
        clean, redactions = self._scrubber.scrub(payload)
        clean, blobs = self.blobs.externalise(clean)
        ts = format_ts(self._clock())
        red = [r.to_json() for r in redactions]
        body = (
            f'{{"v":{SCHEMA_VERSION},"seq":{self._seq},"ts":"{ts}","run":{_dumps(self.run_id)},'
            f'"type":"{type}","payload":{_dumps(clean)},"redactions":{_dumps(red)},'
            f'"blobs":{_dumps(blobs)},"prev":"{self._prev}"'
        ).encode()
        digest = hashlib.sha256(body + b"}").hexdigest()
        line = body + b',"hash":"' + digest.encode() + b'"}\n'
        if self.record is not None:
            self.record.put_event(self.run_id, self._seq, line[:-1].decode())
        _write_all(self._fd, line)
        if self._fsync:
            os.fsync(self._fd)
        event = Event(
            seq=self._seq,
            ts=ts,
            run=self.run_id,
            type=type,
            payload=clean,
            prev=self._prev,
            hash=digest,
            redactions=red,
            blobs=blobs,
        )
        self._seq += 1
        self._prev = digest
        if event.seq == self._crash_after:
            os.kill(os.getpid(), signal.SIGKILL)  # the crash tests' kill point: this event is on disk, nothing after
        return event

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing releases the flock
            self._fd = -1

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _lock(fd: int, path: Path) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise TranscriptError(
            f"transcript {path} is being written by another process; stop that run before resuming it"
        ) from None


def _read_all(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _last_complete(body: bytes) -> dict[str, Any] | None:
    """The last line of `body` that is a whole event (torn lines that were already recorded are skipped)."""
    end = len(body)
    while end > 0:
        start = body.rfind(b"\n", 0, end) + 1
        line = body[start:end]
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and "hash" in obj and "seq" in obj:
            if len(line) < HASH_SUFFIX_LEN or line_hash(line) != obj["hash"]:
                raise TranscriptError(
                    f"the last event of the transcript (seq {obj['seq']}) does not match its hash; "
                    "run `opsagent verify` on it before resuming"
                )
            return obj
        end = start - 1
    return None


def _complete_event(line: bytes, prev: str, seq: int) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if not isinstance(obj, dict) or obj.get("seq") != seq or obj.get("prev") != prev:
        return None
    if len(line) < HASH_SUFFIX_LEN or line_hash(line) != obj.get("hash"):
        return None
    return obj
