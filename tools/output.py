"""Bounded capture of command output: keep the head and the tail, count and hash everything."""

from __future__ import annotations

import hashlib

from tools.target import StreamCapture

TRUNCATION_MARKER = "\n[... {dropped} bytes omitted by opsagent ...]\n"


class CappedBuffer:
    """Accumulates a byte stream in bounded memory: the first and last `cap // 2` bytes."""

    def __init__(self, cap: int) -> None:
        self._half = max(cap // 2, 1)
        self._head = bytearray()
        self._tail = bytearray()
        self._total = 0
        self._hash = hashlib.sha256()

    def feed(self, chunk: bytes) -> None:
        if not chunk:
            return
        self._total += len(chunk)
        self._hash.update(chunk)
        room = self._half - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            if len(self._tail) > self._half:
                del self._tail[: len(self._tail) - self._half]

    @property
    def total_bytes(self) -> int:
        return self._total

    def capture(self) -> StreamCapture:
        kept = len(self._head) + len(self._tail)
        truncated = kept < self._total
        if truncated:
            marker = TRUNCATION_MARKER.format(dropped=self._total - kept).encode()
            data = bytes(self._head) + marker + bytes(self._tail)
        else:
            data = bytes(self._head) + bytes(self._tail)
        return StreamCapture(
            text=data.decode("utf-8", errors="replace"),
            total_bytes=self._total,
            sha256=self._hash.hexdigest(),
            truncated=truncated,
        )


def capture_bytes(data: bytes, cap: int) -> StreamCapture:
    buffer = CappedBuffer(cap)
    buffer.feed(data)
    return buffer.capture()
