"""Following log files on a target with a cursor, using only `Target.stat`, `read_file`, `sleep`, `now`.

A `LogCursor` is (path, inode, offset): the next read starts at `offset` of the file whose inode is
`inode`. When the inode changes the file was rotated (replaced), and when the size drops below the
offset it was truncated; both restart from byte 0 and say so. Reads stop at the last complete
line, so a line being written is never split between two reads. Waiting polls on the target's
clock, so it runs in virtual time on the lab.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from tools.target import Target, TargetFileError

READ_CHUNK = 1024 * 1024
"""Bytes read per call while following; a larger backlog is read over several calls."""


class LogCursor(BaseModel):
    """Where the next read of a log starts."""

    path: str = Field(description="Path of the log file on the target.")
    inode: int = Field(default=0, description="Inode of the file at the last read (0: not yet seen).")
    offset: int = Field(default=0, ge=0, description="Byte offset of the next unread line.")


class LogChunk(BaseModel):
    """New complete lines since a cursor, and the cursor to use next time."""

    lines: list[str]
    cursor: LogCursor
    rotated: bool = False
    truncated: bool = False
    missing: bool = False
    more: bool = Field(default=False, description="More complete lines are waiting past this chunk.")
    ends: list[int] = Field(default_factory=list, description="Byte offset just after each line.")


class LogMatch(BaseModel):
    """The outcome of waiting for a pattern: which kind matched (None on timeout) and where."""

    kind: str | None
    line: str | None = None
    lines: list[str] = Field(default_factory=list, description="Every line read while waiting.")
    cursor: LogCursor
    elapsed_s: float
    timed_out: bool = False


def read_new(target: Target, cursor: LogCursor, *, max_bytes: int = READ_CHUNK) -> LogChunk:
    """Complete lines appended since `cursor`; handles rotation (new inode) and truncation."""
    info = target.stat(cursor.path)
    if info is None:
        return LogChunk(lines=[], cursor=cursor, missing=True)
    rotated = cursor.inode not in (0, info.inode)
    truncated = not rotated and info.size < cursor.offset
    offset = 0 if rotated or truncated else cursor.offset
    if info.size <= offset:
        return LogChunk(
            lines=[],
            cursor=LogCursor(path=cursor.path, inode=info.inode, offset=offset),
            rotated=rotated,
            truncated=truncated,
        )
    want = min(max_bytes, info.size - offset)
    data = target.read_file(cursor.path, offset=offset, max_bytes=want)
    end = data.rfind(b"\n")
    # A line longer than a whole chunk is handed over as it is rather than stalling on it forever.
    consumed = end + 1 if end >= 0 else (len(data) if len(data) >= max_bytes else 0)
    lines: list[str] = []
    ends: list[int] = []
    pos = 0
    for piece in data[:consumed].split(b"\n"):
        if pos >= consumed:
            break
        pos += len(piece) + 1
        lines.append(piece.decode("utf-8", errors="replace").rstrip("\r"))
        ends.append(offset + min(pos, consumed))
    new_offset = offset + consumed
    return LogChunk(
        lines=lines,
        cursor=LogCursor(path=cursor.path, inode=info.inode, offset=new_offset),
        rotated=rotated,
        truncated=truncated,
        ends=ends,
        more=consumed > 0 and want == max_bytes and new_offset < info.size,
    )


def last_lines(target: Target, path: str, count: int, *, chunk: int = 65536) -> list[str]:
    """The last `count` lines of `path`, reading backwards from the end (never the whole file)."""
    info = target.stat(path)
    if info is None:
        raise TargetFileError(f"{path} does not exist on {target.describe()}")
    end = info.size
    data = b""
    while end > 0 and data.count(b"\n") <= count:
        start = max(0, end - chunk)
        data = target.read_file(path, offset=start, max_bytes=end - start) + data
        end = start
    return data.decode("utf-8", errors="replace").splitlines()[-count:]


def cursor_at_end(target: Target, path: str) -> LogCursor:
    """A cursor that skips everything already in the file."""
    info = target.stat(path)
    if info is None:
        return LogCursor(path=path)
    return LogCursor(path=path, inode=info.inode, offset=info.size)


def compile_patterns(patterns: Mapping[str, Sequence[str]]) -> dict[str, list[re.Pattern[str]]]:
    return {kind: [re.compile(p) for p in items] for kind, items in patterns.items()}


def first_match(line: str, patterns: Mapping[str, Sequence[re.Pattern[str]]]) -> str | None:
    for kind, items in patterns.items():
        if any(p.search(line) for p in items):
            return kind
    return None


def wait_for(
    target: Target,
    cursor: LogCursor,
    patterns: Mapping[str, Sequence[str]],
    *,
    timeout_s: float,
    poll_s: float = 1.0,
    keep_lines: int = 2000,
) -> LogMatch:
    """Follow the log from `cursor` until a line matches one of `patterns` (kind -> regexes).

    Kinds are tried in the mapping's order, so put the most specific first. Returns on the first
    matching line, or with `kind=None, timed_out=True` once `timeout_s` passes on the target's clock.
    """
    compiled = compile_patterns(patterns)
    start = target.now()
    seen: list[str] = []
    while True:
        chunk = read_new(target, cursor)
        cursor = chunk.cursor
        for line, end in zip(chunk.lines, chunk.ends, strict=True):
            seen.append(line)
            kind = first_match(line, compiled)
            if kind is not None:
                cursor = cursor.model_copy(update={"offset": end})  # resume just after the match
                return LogMatch(
                    kind=kind,
                    line=line,
                    lines=seen[-keep_lines:],
                    cursor=cursor,
                    elapsed_s=target.now() - start,
                )
        del seen[:-keep_lines]
        if chunk.more:
            continue
        elapsed = target.now() - start
        if elapsed >= timeout_s:
            return LogMatch(kind=None, lines=seen, cursor=cursor, elapsed_s=elapsed, timed_out=True)
        target.sleep(min(poll_s, max(timeout_s - elapsed, 0.0)))
