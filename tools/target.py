"""Where commands run: the `Target` interface and the typed results every target returns.

Implementations: `tools.local.LocalTarget` (subprocess on this machine), `tools.ssh.SSHTarget`
(a remote host over paramiko) and `tools.lab.LabTarget` (the simulated GPU host). Tools and the
agent see only this interface, so the same tool runs unchanged on all three.

Errors are data where the caller can act on them: a command that fails, times out or whose
outcome is unknown returns a `CommandResult` saying so. Exceptions (see `TargetError` below) are
for a target that cannot be used at all: unreachable, refused host key, bad credentials.

    TargetError                  the target cannot be used (base)
     +-- TargetUnreachable       cannot connect / the connection is gone and cannot be rebuilt
     +-- TargetAuthError         credentials or host key refused
     +-- TargetFileError         a file could not be read or written (missing, permission)
     +-- ProcessNotOwned         stop/status asked for a process this agent did not start
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, cast, runtime_checkable

from pydantic import BaseModel, Field

DEFAULT_OUTPUT_CAP = 256 * 1024
"""Bytes of stdout (and of stderr) kept per command: head and tail, the middle dropped."""

DEFAULT_TIMEOUT_S = 60.0


class TargetError(Exception):
    """The target cannot be used; the message says what to do."""


class TargetUnreachable(TargetError):
    pass


class TargetAuthError(TargetError):
    pass


class TargetFileError(TargetError):
    pass


class ProcessNotOwned(TargetError):
    pass


class StreamCapture(BaseModel):
    """One output stream, possibly capped: `text` holds head + marker + tail when truncated."""

    text: str = ""
    total_bytes: int = 0
    sha256: str = ""
    truncated: bool = False


class CommandResult(BaseModel):
    """What happened when a command ran. `exit_code` is None when it never finished."""

    command: str
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    stdout_sha256: str = ""
    truncated: bool = False
    timed_out: bool = False
    outcome_unknown: bool = Field(
        default=False,
        description="The connection died while the command ran: it may or may not have had its "
        "effect. Never re-run automatically; verify or ask.",
    )
    duration_s: float = 0.0
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.outcome_unknown


class DetachedProcess(BaseModel):
    """A process this agent started on a target, with what is needed to stop it safely later."""

    name: str
    command: str
    pid: int
    pgid: int
    log_path: str
    pid_file: str
    start_ticks: str = Field(
        default="",
        description="The process start time as the target reports it (field 22 of "
        "/proc/PID/stat); a pid whose start time differs is a recycled pid and is never killed.",
    )
    sandboxed: bool = Field(
        default=False,
        description="Started inside the sandbox: `pid` is bubblewrap's, and a stop also ends the "
        "sandbox's first process (its PID namespace), so nothing the process started outlives it.",
    )


class FileStat(BaseModel):
    size: int
    inode: int
    mtime: float


class ProcessStatus(BaseModel):
    pid: int
    running: bool
    exit_code: int | None = None
    detail: str = ""


@runtime_checkable
class Target(Protocol):
    """Where commands run. `describe()` is the target as the operator named it."""

    @property
    def work_dir(self) -> str:
        """The agent's own directory on the target: logs, pid files, scripts."""
        ...

    def describe(self) -> str: ...

    def run(
        self,
        command: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run `command` with bash, stdin closed; on timeout the whole process group dies."""
        ...

    def read_file(self, path: str, *, offset: int = 0, max_bytes: int = DEFAULT_OUTPUT_CAP) -> bytes:
        """Up to `max_bytes` of `path` starting at byte `offset`; raises TargetFileError."""
        ...

    def stat(self, path: str) -> FileStat | None:
        """Size, inode and mtime of `path`, or None when it does not exist."""
        ...

    def write_file(self, path: str, data: bytes) -> None:
        """Create or replace `path` (used for scripts in the work directory)."""
        ...

    def start_detached(
        self, command: str, *, name: str, env: Mapping[str, str] | None = None, unset: Sequence[str] = ()
    ) -> DetachedProcess:
        """Start `command` in its own session with a log and pid file in the work directory; `unset`:
        variables it starts without, whatever the login shell exports (`env` sets win over them)."""
        ...

    def process_status(self, process: DetachedProcess) -> ProcessStatus: ...

    def stop_process(self, process: DetachedProcess, *, grace_s: float = 10.0) -> ProcessStatus:
        """SIGTERM the process group, SIGKILL after `grace_s`; only for processes it started."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait. The lab advances its virtual clock instead of sleeping."""
        ...

    def now(self) -> float:
        """Seconds on the target's clock (virtual on the lab)."""
        ...

    def close(self) -> None: ...


OutputListener = Callable[[str, str], None]
"""Called with ("stdout" or "stderr", text) for each piece of a command's output as it arrives."""


def run_watching(target: Target, command: str, *, timeout: float, on_output: OutputListener) -> CommandResult:
    """`target.run(command)`, its output also passed to `on_output` while it runs, on targets that
    can (`streams_output`: local, SSH, the lab); on others the result alone, when it ends."""
    if getattr(target, "streams_output", False):
        return cast(Any, target).run(command, timeout=timeout, on_output=on_output)  # type: ignore[no-any-return]
    return target.run(command, timeout=timeout)
