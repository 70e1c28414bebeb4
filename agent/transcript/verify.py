"""Checks a transcript: every line's own hash, the chain of `prev` hashes, the sequence numbers,
the blobs it references, and whether its last line is whole.

The first break in the chain is classified and named by the sequence number of the first event
that is not where an intact transcript would have it:

- `edited`: a line's bytes no longer match its hash, or an event was rewritten with a recomputed
  hash so the next event no longer chains to it;
- `removed`: events are missing (the next line carries a later sequence number);
- `inserted`: a line that belongs to no event, a second event with a sequence number already
  used, or a copy of an earlier event;
- `reordered`: the missing sequence number turns up later in the file;
- `torn_tail`: the last line has no newline (the writer stopped mid-write); everything before it
  verifies;
- `missing_blob` / `blob_mismatch`: a referenced blob is absent or its bytes do not hash to its name.

Events after the first break are not trusted and not checked further. A cut made exactly at a
line boundary cannot be seen from the file alone: `finished` says whether the last event is
`run_finished`, and `head` is the last hash, to compare with one recorded elsewhere.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent.transcript.blobs import blob_dir_for
from agent.transcript.schema import GENESIS, HASH_KEY, HASH_SUFFIX_LEN, SCHEMA_VERSION, TORN_TAIL_KIND

ProblemKind = Literal[
    "edited",
    "removed",
    "inserted",
    "reordered",
    "torn_tail",
    "missing_blob",
    "blob_mismatch",
    "unsupported_version",
    "unreadable",
]

_HK_START = -HASH_SUFFIX_LEN
_HK_END = -HASH_SUFFIX_LEN + len(HASH_KEY)


@dataclass(frozen=True)
class Problem:
    kind: ProblemKind
    seq: int | None
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"seq {self.seq}" if self.seq is not None else "transcript"
        at = f" (line {self.line})" if self.line is not None else ""
        return f"{self.kind} at {where}{at}: {self.message}"


@dataclass
class VerifyResult:
    path: Path
    events: int = 0
    """Events that verified, from seq 0 up to the first problem."""
    problems: list[Problem] = field(default_factory=list)
    head: str = GENESIS
    finished: bool = False
    blobs_checked: int = 0
    torn_lines_recorded: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def first(self) -> Problem | None:
        return self.problems[0] if self.problems else None


def _self_ok(line: bytes, obj: Any) -> bool:
    h = obj.get("hash")
    if type(h) is not str or line[_HK_START:_HK_END] != HASH_KEY:
        return False
    d = hashlib.sha256(line[:_HK_START])
    d.update(b"}")
    return d.hexdigest() == h


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return obj if type(obj) is dict else None


def verify_transcript(path: Path | str, *, check_blobs: bool = True) -> VerifyResult:
    path = Path(path)
    result = VerifyResult(path=path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        result.problems.append(Problem("unreadable", None, None, f"cannot read {path}: {exc}"))
        return result
    lines = data.split(b"\n")
    torn = lines.pop()  # b"" when the file ends with a newline
    blob_refs: dict[str, int] = {}
    loads = json.loads
    sha256 = hashlib.sha256
    expected_seq, expected_prev = 0, GENESIS
    last_type = ""
    n = len(lines)
    i = 0
    while i < n:
        line = lines[i]
        # The hot path, inlined: parse, check the line's own hash, then its place in the chain.
        try:
            obj = loads(line)
            h = obj["hash"]
            if line[_HK_START:_HK_END] == HASH_KEY and obj["seq"] == expected_seq and obj["prev"] == expected_prev:
                d = sha256(line[:_HK_START])
                d.update(b"}")
                if d.hexdigest() == h:
                    if obj["v"] != SCHEMA_VERSION:
                        result.problems.append(
                            Problem(
                                "unsupported_version",
                                expected_seq,
                                i + 1,
                                f"schema version {obj['v']!r}; this opsagent reads version {SCHEMA_VERSION}",
                            )
                        )
                        break
                    blobs = obj["blobs"]
                    if blobs:
                        for b in blobs:
                            blob_refs.setdefault(b, expected_seq)
                    last_type = obj["type"]
                    expected_seq += 1
                    expected_prev = h
                    i += 1
                    continue
        except (ValueError, KeyError, TypeError):
            pass
        if i + 1 < n and _records_torn(lines[i + 1], line, expected_seq, expected_prev):
            result.torn_lines_recorded += 1
            i += 1
            continue
        result.problems.append(_classify(lines, i, expected_seq, expected_prev))
        break
    result.events = expected_seq
    result.head = expected_prev
    result.finished = last_type == "run_finished"
    if torn and not result.problems:
        obj = _parse(torn)
        if (
            obj is not None
            and obj.get("seq") == expected_seq
            and obj.get("prev") == expected_prev
            and _self_ok(torn, obj)
        ):
            # Whole event, only its newline missing: it counts, but the tail is still torn.
            result.events += 1
            result.head = obj["hash"]
        result.problems.append(
            Problem(
                "torn_tail",
                expected_seq,
                n + 1,
                f"the last line is incomplete ({len(torn)} bytes, no newline): the writer stopped mid-write; "
                f"events 0..{expected_seq - 1} verify",
            )
        )
    if check_blobs:
        _check_blobs(path, blob_refs, result)
    return result


def _records_torn(next_line: bytes, torn: bytes, seq: int, prev: str) -> bool:
    """True when `next_line` is the writer's `error` event recording `torn` as a torn tail."""
    obj = _parse(next_line)
    if obj is None or obj.get("type") != "error" or obj.get("seq") != seq or obj.get("prev") != prev:
        return False
    payload = obj.get("payload")
    return (
        isinstance(payload, dict)
        and payload.get("kind") == TORN_TAIL_KIND
        and payload.get("torn_sha256") == hashlib.sha256(torn).hexdigest()
        and _self_ok(next_line, obj)
    )


def _classify(lines: list[bytes], i: int, seq: int, prev: str) -> Problem:
    line = lines[i]
    lineno = i + 1
    obj = _parse(line)
    nxt = _parse(lines[i + 1]) if i + 1 < len(lines) else None
    if obj is None or not _self_ok(line, obj):
        if obj is not None and nxt is not None and nxt.get("prev") == obj.get("hash"):
            return Problem(
                "edited",
                seq,
                lineno,
                f"event {seq} was changed after it was written (its hash no longer matches)",
            )
        if nxt is not None and nxt.get("prev") == prev:
            return Problem(
                "inserted",
                seq,
                lineno,
                f"a line that is not part of the chain was inserted before event {seq}",
            )
        return Problem(
            "edited",
            seq,
            lineno,
            f"event {seq} was changed after it was written (its hash no longer matches)",
        )
    got_seq, got_prev = obj.get("seq"), obj.get("prev")
    if not isinstance(got_seq, int):
        return Problem("edited", seq, lineno, f"event {seq} has no valid sequence number")
    if got_seq == seq:
        if seq == 0:
            return Problem("edited", 0, lineno, "event 0 does not start the chain")
        return Problem(
            "edited",
            seq - 1,
            lineno - 1,
            f"event {seq - 1} was rewritten with a recomputed hash: event {seq} no longer chains to it",
        )
    if got_seq > seq:
        for j in range(i + 1, len(lines)):
            later = _parse(lines[j])
            if later is not None and later.get("seq") == seq:
                return Problem(
                    "reordered",
                    seq,
                    j + 1,
                    f"event {seq} appears out of order, at line {j + 1} after event {got_seq}",
                )
        missing = f"event {seq} is" if got_seq == seq + 1 else f"events {seq}..{got_seq - 1} are"
        return Problem("removed", seq, lineno, f"{missing} missing: line {lineno} holds event {got_seq}")
    # A sequence number already used: find the earlier line that took it.
    for j in range(i - 1, -1, -1):
        earlier = _parse(lines[j])
        if earlier is not None and earlier.get("seq") == got_seq:
            if earlier.get("hash") == obj.get("hash"):
                return Problem("inserted", seq, lineno, f"a copy of event {got_seq} was inserted before event {seq}")
            if got_prev == earlier.get("prev"):
                return Problem(
                    "inserted",
                    got_seq,
                    j + 1,
                    f"event {got_seq} appears twice: the one at line {j + 1} was inserted",
                )
            break
    return Problem("reordered", seq, lineno, f"event {got_seq} appears after event {seq - 1}")


def _check_blobs(path: Path, refs: dict[str, int], result: VerifyResult) -> None:
    directory = blob_dir_for(path)
    for digest, seq in refs.items():
        blob = directory / digest
        try:
            h = hashlib.sha256()
            with open(blob, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    h.update(chunk)
        except FileNotFoundError:
            result.problems.append(
                Problem(
                    "missing_blob",
                    seq,
                    None,
                    f"blob {digest} referenced by event {seq} is missing from {directory}",
                )
            )
            continue
        result.blobs_checked += 1
        if h.hexdigest() != digest:
            result.problems.append(
                Problem(
                    "blob_mismatch",
                    seq,
                    None,
                    f"blob {digest} referenced by event {seq} was changed (its bytes hash differently)",
                )
            )
