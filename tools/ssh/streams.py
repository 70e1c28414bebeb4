"""Reading a channel's stdout and stderr apart, in bounded memory, with framing markers.

Both the persistent shell and exec channels frame their output with a random per-command token
the command itself never sees: `TOKEN P <pid> \\n` opens stdout, `TOKEN E <rc> <extra> \\n` closes
stdout and a bare `TOKEN E` closes stderr (the persistent shell only). Everything between goes
into a `CappedBuffer`, so a command printing gigabytes costs a constant amount of memory.
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable
from typing import Literal

import paramiko

from tools.output import CappedBuffer

CHUNK = 1 << 16


class Header:
    """Parses the `TOKEN P <pid>\\n` line that opens stdout, then passes the rest on."""

    def __init__(self, token: bytes, sink: Callable[[bytes], None]) -> None:
        self._prefix = token + b"P"
        self._sink = sink
        self._pending = bytearray()
        self.pid: int | None = None
        self.done = False

    def feed(self, chunk: bytes) -> None:
        if self.done:
            self._sink(chunk)
            return
        self._pending += chunk
        if len(self._pending) < len(self._prefix):
            return
        newline = self._pending.find(b"\n")
        if not self._pending.startswith(self._prefix) or (newline < 0 and len(self._pending) > 256):
            # Not our frame (should not happen): pass everything through rather than lose output.
            self.done = True
            data, self._pending = bytes(self._pending), bytearray()
            self._sink(data)
            return
        if newline < 0:
            return
        value = self._pending[len(self._prefix) : newline].decode(errors="replace").strip()
        self.pid = int(value) if value.isdigit() and int(value) > 0 else None
        rest = bytes(self._pending[newline + 1 :])
        self._pending = bytearray()
        self.done = True
        if rest:
            self._sink(rest)


class Marker:
    """Feeds bytes to `buffer` until `token + b"E"` appears; what follows is the trailer."""

    def __init__(self, token: bytes, buffer: CappedBuffer, *, trailer_line: bool) -> None:
        self._marker = token + b"E"
        self._buffer = buffer
        self._trailer_line = trailer_line
        self._pending = bytearray()
        self._found = False
        self.trailer = bytearray()

    @property
    def complete(self) -> bool:
        return self._found and (not self._trailer_line or b"\n" in self.trailer)

    def feed(self, chunk: bytes) -> None:
        if self._found:
            self.trailer += chunk
            return
        self._pending += chunk
        index = self._pending.find(self._marker)
        if index >= 0:
            self._buffer.feed(bytes(self._pending[:index]))
            self.trailer += self._pending[index + len(self._marker) :]
            self._pending = bytearray()
            self._found = True
            return
        # Hold back only an end that could begin a marker split across two chunks: the rest is
        # output now, for a watcher reading it while the command runs.
        keep = next(
            (
                k
                for k in range(min(len(self._marker) - 1, len(self._pending)), 0, -1)
                if self._pending.endswith(self._marker[:k])
            ),
            0,
        )
        if len(self._pending) > keep:
            self._buffer.feed(bytes(self._pending[: len(self._pending) - keep]))
            del self._pending[: len(self._pending) - keep]

    def flush(self) -> None:
        """The stream ended without a marker: what was held back is output too."""
        if not self._found and self._pending:
            self._buffer.feed(bytes(self._pending))
            self._pending = bytearray()


PumpEnd = Literal["finished", "deadline", "closed"]


def pump(
    channel: paramiko.Channel,
    on_stdout: Callable[[bytes], None],
    on_stderr: Callable[[bytes], None],
    finished: Callable[[], bool],
    deadline: float,
) -> PumpEnd:
    """Move data from `channel` to the callbacks until `finished()`, `deadline` or the channel closes."""
    fd = channel.fileno()
    while True:
        while channel.recv_ready():
            on_stdout(channel.recv(CHUNK))
        while channel.recv_stderr_ready():
            on_stderr(channel.recv_stderr(CHUNK))
        if finished():
            return "finished"
        if channel.closed or not channel.get_transport().is_active():  # type: ignore[union-attr]
            if not channel.recv_ready() and not channel.recv_stderr_ready():
                return "closed"
            continue
        # Both streams ended and the exit status is in: nothing more will come.
        if (
            channel.eof_received
            and channel.exit_status_ready()
            and not channel.recv_ready()
            and not channel.recv_stderr_ready()
        ):
            return "finished" if finished() else "closed"
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return "deadline"
        select.select([fd], [], [], min(remaining, 0.5))
