"""`LocalTarget`: commands run with bash on this machine, each in its own process group.

Every command and server launch runs inside the sandbox (tools.sandbox) unless the policy's
`sandbox:` setting is `off`, or `auto` on a machine without a working bubblewrap."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from tools import detached
from tools.output import CappedBuffer, output_buffers
from tools.paths import BadPath, resolve_path
from tools.sandbox import Sandbox, SandboxSpec, SandboxStatus, command_argv
from tools.target import (
    DEFAULT_OUTPUT_CAP,
    DEFAULT_TIMEOUT_S,
    CommandResult,
    FileStat,
    OutputListener,
    TargetFileError,
)


def _pump(stream: IO[bytes], buffer: CappedBuffer) -> None:
    fd = stream.fileno()
    for chunk in iter(lambda: os.read(fd, 65536), b""):
        buffer.feed(chunk)


class LocalTarget(detached.DetachedViaShell):
    streams_output = True  # `run(..., on_output=...)` hears the output as it comes (tools.target.run_watching)

    def __init__(self, work_dir: str | None = None, *, sandbox: SandboxSpec | None = None) -> None:
        self._work_dir = str(Path(work_dir or Path.home() / "opsagent-work").expanduser().resolve())
        self._sandbox = Sandbox(
            sandbox or SandboxSpec(),
            work_dir=self._work_dir,
            home=os.path.expanduser("~"),
            run_host=self._host_script,
            where="local",
        )

    def _host_script(self, script: str) -> tuple[int | None, str, str]:
        Path(self._work_dir).mkdir(parents=True, exist_ok=True)
        result = self._run_argv(["bash", "-c", script], script, 60, DEFAULT_OUTPUT_CAP, None)
        return result.exit_code, result.stdout, result.stderr

    def sandbox_status(self) -> SandboxStatus:
        """Whether commands run inside the sandbox; raises SandboxError under `require` without it."""
        return self._sandbox.status()

    def sandbox_prefix(self, server_ports: Sequence[int] = ()) -> list[str] | None:
        return self._sandbox.prefix(server_ports)

    def sandbox_own_ports(self, ports: Sequence[int]) -> None:
        self._sandbox.own_ports(ports)

    @property
    def work_dir(self) -> str:
        return self._work_dir

    def describe(self) -> str:
        return "local"

    def run(
        self,
        command: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        env: Mapping[str, str] | None = None,
        on_output: OutputListener | None = None,
    ) -> CommandResult:
        prefix = self._sandbox.prefix()  # process 1 inside makes TMPDIR: a host mkdir could follow a link
        argv = command_argv(prefix, command) if prefix is not None else ["bash", "-c", command]
        return self._run_argv(argv, command, timeout, output_cap, env, on_output)

    def run_outside_sandbox(
        self, command: str, *, timeout: float = DEFAULT_TIMEOUT_S, output_cap: int = DEFAULT_OUTPUT_CAP
    ) -> CommandResult:
        """An approved escalation: the command on the host itself, as root (never without approval)."""
        return self._run_argv(["bash", "-c", self._sandbox.outside(command)], command, timeout, output_cap, None)

    def _run_argv(
        self,
        argv: list[str],
        command: str,
        timeout: float,
        output_cap: int,
        env: Mapping[str, str] | None,
        on_output: OutputListener | None = None,
    ) -> CommandResult:
        started = time.monotonic()
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, so a timeout kills every child
            env={**os.environ, **(env or {})},
        )
        out, err = output_buffers(output_cap, on_output)
        assert proc.stdout is not None and proc.stderr is not None
        pumps = [
            threading.Thread(target=_pump, args=(proc.stdout, out), daemon=True),
            threading.Thread(target=_pump, args=(proc.stderr, err), daemon=True),
        ]
        for pump in pumps:
            pump.start()
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        # Children left in the group would hold the pipes open (and live on): end them too.
        if timed_out:
            self._kill_group(proc.pid)
            proc.wait()
        for pump in pumps:
            pump.join(timeout=1.0)
        if any(p.is_alive() for p in pumps):
            self._kill_group(proc.pid)
            for pump in pumps:
                pump.join()
        proc.stdout.close()
        proc.stderr.close()
        so, se = out.capture(), err.capture()
        return CommandResult(
            command=command,
            exit_code=None if timed_out else proc.returncode,
            stdout=so.text,
            stderr=se.text if not timed_out else (se.text + f"\n[opsagent: timed out after {timeout:g}s]"),
            stdout_bytes=so.total_bytes,
            stderr_bytes=se.total_bytes,
            stdout_sha256=so.sha256,
            truncated=so.truncated or se.truncated,
            timed_out=timed_out,
            duration_s=time.monotonic() - started,
        )

    @staticmethod
    def _kill_group(pgid: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)

    def _run_quick(self, command: str) -> CommandResult:
        return self._run_argv(["bash", "-c", command], command, 60, DEFAULT_OUTPUT_CAP, None)

    def resolve(self, path: str, what: str = "read") -> str:
        """The absolute path `path` names here (tools.paths: `~` is $HOME, relative is against the
        work directory, never this process's cwd); raises TargetFileError for a refused path."""
        try:
            return resolve_path(path, work_dir=self._work_dir, home=os.path.expanduser("~"))
        except BadPath as exc:
            raise TargetFileError(f"cannot {what} {path} on local: {exc}") from exc

    def read_file(self, path: str, *, offset: int = 0, max_bytes: int = DEFAULT_OUTPUT_CAP) -> bytes:
        full = self.resolve(path)
        try:
            # non-blocking: a FIFO planted in the work directory must not hang the read
            with os.fdopen(os.open(full, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
                refused = self._sandbox.refuse_read(full, os.readlink(f"/proc/self/fd/{handle.fileno()}"))
                if refused:
                    raise TargetFileError(f"cannot read {path} on local: {refused}")
                if offset:
                    handle.seek(offset)
                return handle.read(max_bytes) or b""
        except OSError as exc:
            raise TargetFileError(f"cannot read {path} on local: {exc.strerror or exc}") from exc

    def stat(self, path: str) -> FileStat | None:
        full = self.resolve(path, "stat")
        try:
            info = os.stat(full)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise TargetFileError(f"cannot stat {path} on local: {exc.strerror}") from exc
        return FileStat(size=info.st_size, inode=info.st_ino, mtime=info.st_mtime)

    def write_file(self, path: str, data: bytes) -> None:
        target = Path(self.resolve(path, "write"))
        # the real directory: a link the agent made in its work directory must not carry a write out
        # of it (a link at the file itself is replaced by the write, never followed)
        refused = self._sandbox.refuse_write(os.path.join(os.path.realpath(target.parent), target.name))
        if refused:
            raise TargetFileError(f"cannot write {path} on local: {refused}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._write_pinned(target, data, path)
        except OSError as exc:
            raise TargetFileError(f"cannot write {path} on local: {exc.strerror}") from exc

    def _write_pinned(self, target: Path, data: bytes, path: str) -> None:
        """Write through the parent directory's fd, checked (after opening: the inode is pinned) to
        be where the sandbox may write, into a fresh file (O_EXCL|O_NOFOLLOW) renamed over the
        name: a link a sandboxed command planted in the work directory is replaced, not followed."""
        fd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            refused = self._sandbox.refuse_write(os.path.join(os.readlink(f"/proc/self/fd/{fd}"), target.name))
            if refused:
                raise TargetFileError(f"cannot write {path} on local: {refused}")
            mode = 0o644
            with contextlib.suppress(OSError):  # keep an existing file's mode (a script stays executable)
                info = os.stat(target.name, dir_fd=fd, follow_symlinks=False)
                mode = stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else mode
            temp = f".{target.name}.opsagent-{secrets.token_hex(4)}"
            out = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode, dir_fd=fd)
            try:
                with os.fdopen(out, "wb") as handle:
                    handle.write(data)
                    os.fchmod(handle.fileno(), mode)
                    owner = self._sandbox.file_owner()
                    if owner is not None:  # the sandbox's uid must be able to change what the agent wrote
                        os.fchown(handle.fileno(), *owner)
                os.rename(temp, target.name, src_dir_fd=fd, dst_dir_fd=fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=fd)
                raise
        finally:
            os.close(fd)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def now(self) -> float:
        return time.time()

    def close(self) -> None:
        return None
