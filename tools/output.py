"""Bounded capture of command output: keep the head and the tail, count and hash everything."""

from __future__ import annotations

import codecs
import hashlib
from collections.abc import Callable

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


class TeeBuffer(CappedBuffer):
    """A `CappedBuffer` that also tells `on_text` each chunk, as text, as it arrives: what a watcher
    of a long command reads while it runs (tools.target.run_watching)."""

    def __init__(self, cap: int, on_text: Callable[[str], None]) -> None:
        super().__init__(cap)
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode  # a character split across reads
        self._on_text: Callable[[str], None] | None = on_text

    def feed(self, chunk: bytes) -> None:
        super().feed(chunk)
        if chunk and self._on_text is not None:
            try:
                self._on_text(self._decode(chunk))
            except Exception:  # a watcher that fails stops watching; the command and its capture go on
                self._on_text = None


def output_buffers(cap: int, on_output: Callable[[str, str], None] | None) -> tuple[CappedBuffer, CappedBuffer]:
    """The stdout and stderr buffers of one command; each also tells `on_output` when given."""
    if on_output is None:
        return CappedBuffer(cap), CappedBuffer(cap)
    out = TeeBuffer(cap, lambda text: on_output("stdout", text))
    err = TeeBuffer(cap, lambda text: on_output("stderr", text))
    return out, err


def capture_bytes(data: bytes, cap: int) -> StreamCapture:
    buffer = CappedBuffer(cap)
    buffer.feed(data)
    return buffer.capture()
