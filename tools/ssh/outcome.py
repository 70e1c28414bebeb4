"""What one command run over SSH produced, before it becomes a `CommandResult`."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

from tools.output import CappedBuffer
from tools.target import CommandResult


def new_token() -> bytes:
    """A per-command framing token; random, so no command output can forge it."""
    return b"__oa" + secrets.token_hex(12).encode()


@dataclass(frozen=True)
class StartCheck:
    """What is needed to find out later whether a command sent to the fast path ever started."""

    token: str
    journal: str
    shell_pid: int


@dataclass
class Outcome:
    stdout: CappedBuffer
    stderr: CappedBuffer
    started: float = field(default_factory=time.monotonic)
    exit_code: int | None = None
    timed_out: bool = False
    outcome_unknown: bool = False
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    unverified_start: StartCheck | None = None

    def result(self, command: str, timeout: float) -> CommandResult:
        so, se = self.stdout.capture(), self.stderr.capture()
        stderr = se.text
        if self.timed_out:
            stderr += f"\n[opsagent: timed out after {timeout:g}s]"
        for note in self.notes:
            stderr += f"\n[opsagent: {note}]"
        return CommandResult(
            command=command,
            exit_code=None if (self.timed_out or self.outcome_unknown) else self.exit_code,
            stdout=so.text,
            stderr=stderr,
            stdout_bytes=so.total_bytes,
            stderr_bytes=se.total_bytes,
            stdout_sha256=so.sha256,
            truncated=so.truncated or se.truncated,
            timed_out=self.timed_out,
            outcome_unknown=self.outcome_unknown,
            duration_s=time.monotonic() - self.started,
            error=self.error,
        )
