"""`SSHTarget`: the `Target` interface on a remote host over paramiko.

Short commands go through the connection's persistent shell (tools.ssh.fastpath); commands that
may run long, that start background jobs, or that arrive while the shell is busy get their own
exec channel (tools.ssh.execpath). Files move over SFTP. A dead connection is rebuilt before
the next command; a command that was running when it died is reported as "outcome unknown" and
never run again.
"""

from __future__ import annotations

import posixpath
import re
import secrets
import shlex
import stat
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

import paramiko

from tools import detached
from tools.paths import BadPath, resolve_path
from tools.sandbox import Sandbox, SandboxSpec, SandboxStatus, within, wrap
from tools.ssh.config import SSHOptions
from tools.ssh.connection import Connection, open_connection
from tools.ssh.execpath import NotStarted, run_exec
from tools.ssh.fastpath import PersistentShell, ShellBroken, verify_script
from tools.ssh.outcome import Outcome, StartCheck
from tools.target import (
    DEFAULT_OUTPUT_CAP,
    DEFAULT_TIMEOUT_S,
    CommandResult,
    FileStat,
    OutputListener,
    TargetError,
    TargetFileError,
    TargetUnreachable,
)

# A lone `&` (not `&&`, `>&`, `&>`, `|&`) starts a background job. Such a job may outlive the
# command on purpose, which the shared shell cannot allow, so these commands get their own
# channel. Over-matching (an `&` inside quotes) only costs speed.
_BACKGROUND = re.compile(r"(?<![&>|<])&(?![&>])")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ATTEMPTS = 3

T = TypeVar("T")


def with_env(command: str, env: Mapping[str, str] | None) -> str:
    if not env:
        return command
    for name in env:
        if not _ENV_NAME.match(name):
            raise ValueError(f"environment variable name {name!r} is not a valid shell name")
    exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items())
    return exports + command


class SSHTarget(detached.DetachedViaShell):
    """A remote host. Open it with `SSHTarget.connect("ssh://user@host[:port]", SSHOptions(...))`."""

    streams_output = True  # `run(..., on_output=...)` hears the output as it comes (tools.target.run_watching)

    def __init__(self, spec: str, options: SSHOptions, connection: Connection) -> None:
        self._spec = spec
        self._options = options
        self._conn: Connection | None = connection
        self._shell: PersistentShell | None = None  # on the host: host scripts, escalations
        self._boxed: PersistentShell | None = None  # inside the sandbox: commands
        self._boxed_generation = -1
        self._lock = threading.RLock()
        self._host_key_event = connection.host_key_event
        self._home = self._remote_home(connection)
        configured = options.work_dir
        if configured is None:
            self._work_dir = posixpath.join(self._home, "opsagent-work")
        else:
            try:  # relative: against $HOME, where an SSH session starts
                self._work_dir = resolve_path(configured, work_dir=self._home, home=self._home)
            except BadPath as exc:
                raise TargetError(f"work_dir for {spec}: {exc}") from exc
        self._sandbox = Sandbox(
            options.sandbox or SandboxSpec(mode="require"),
            work_dir=self._work_dir,
            home=self._home,
            run_host=self._host_script,
            where=spec,
        )

    @classmethod
    def connect(cls, target: str, options: SSHOptions | None = None) -> SSHTarget:
        """Connect (with retries); raises TargetAuthError or TargetUnreachable."""
        opts = options or SSHOptions()
        connection = open_connection(target, opts)
        try:
            return cls(target, opts, connection)
        except BaseException:
            connection.close()
            raise

    # -- identity -----------------------------------------------------------------------------

    @property
    def host_key_event(self) -> dict[str, str] | None:
        """Set when an unknown host key was accepted because of `accept_new_host_key`."""
        return self._host_key_event.as_dict() if self._host_key_event else None

    @property
    def work_dir(self) -> str:
        return self._work_dir

    @property
    def home(self) -> str:
        return self._home

    @property
    def host_label(self) -> str:
        """user@hostname:port as connected (after ssh config)."""
        conn = self._conn
        return conn.host.label if conn else self._spec

    def describe(self) -> str:
        return self._spec

    def resolve(self, path: str, what: str = "read") -> str:
        """The absolute path `path` names on the host (tools.paths: `~` is the remote $HOME, a
        relative path is against the work directory, not SFTP's $HOME); raises TargetFileError."""
        try:
            return resolve_path(path, work_dir=self._work_dir, home=self._home)
        except BadPath as exc:
            raise TargetFileError(f"cannot {what} {path} on {self._spec}: {exc}") from exc

    # -- connection ---------------------------------------------------------------------------

    def _connection(self) -> Connection:
        with self._lock:
            if self._conn is not None and self._conn.alive:
                return self._conn
            self._drop_connection()
            # Retries with backoff happen inside; what still fails raises TargetUnreachable.
            self._conn = open_connection(self._spec, self._options)
            return self._conn

    def _drop_connection(self) -> None:
        for shell in (self._shell, self._boxed):
            if shell is not None:
                shell.close()
        self._shell = self._boxed = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _persistent_shell(self, conn: Connection, sandbox: list[str] | None = None) -> PersistentShell | None:
        """The host's persistent shell, or with `sandbox` (its prefix) the one inside the sandbox,
        started again when the sandbox changed (a launch took a new port)."""
        with self._lock:
            boxed = sandbox is not None
            shell = self._boxed if boxed else self._shell
            current = not boxed or self._boxed_generation == self._sandbox.generation
            if shell is not None and shell.usable and shell.transport is conn.transport and current:
                return shell
            if shell is not None:
                if not shell.lock.acquire(blocking=False):
                    return None  # a command still runs in it: this one gets its own channel
                try:
                    shell.close()
                finally:
                    shell.lock.release()
            try:
                shell = PersistentShell(conn.transport, posixpath.join(self._work_dir, "run"), sandbox=sandbox)
            except ShellBroken:
                shell = None
            if boxed:
                self._boxed, self._boxed_generation = shell, self._sandbox.generation
            else:
                self._shell = shell
            return shell

    def _fast_path_allowed(self, command: str, timeout: float) -> bool:
        return (
            self._options.fast_path
            and timeout <= self._options.fast_path_max_timeout_s
            and not _BACKGROUND.search(command)
            and "\x00" not in command
        )

    # -- commands -----------------------------------------------------------------------------

    def sandbox_status(self) -> SandboxStatus:
        """Whether commands run inside the sandbox; raises SandboxError under `require` without it."""
        return self._sandbox.status()

    def sandbox_prefix(self, server_ports: Sequence[int] = ()) -> list[str] | None:
        return self._sandbox.prefix(server_ports)

    def sandbox_own_ports(self, ports: Sequence[int]) -> None:
        self._sandbox.own_ports(ports)

    def _host_script(self, script: str) -> tuple[int | None, str, str]:
        q = shlex.quote(self._work_dir)
        result = self._run_script(f"mkdir -p {q} && cd {q} || exit 1\n{script}", command=script, timeout=60)
        return result.exit_code, result.stdout, result.stderr

    def run(
        self,
        command: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        env: Mapping[str, str] | None = None,
        on_output: OutputListener | None = None,
    ) -> CommandResult:
        script = with_env(command, env)
        return self._run_script(
            script,
            command=command,
            timeout=timeout,
            output_cap=output_cap,
            on_output=on_output,
            sandbox=self._sandbox.prefix(),
        )

    def run_outside_sandbox(
        self, command: str, *, timeout: float = DEFAULT_TIMEOUT_S, output_cap: int = DEFAULT_OUTPUT_CAP
    ) -> CommandResult:
        """An approved escalation: the command on the host itself, as root (never without approval)."""
        return self._run_script(self._sandbox.outside(command), command=command, timeout=timeout, output_cap=output_cap)

    def _run_script(
        self,
        script: str,
        *,
        command: str,
        timeout: float,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        on_output: OutputListener | None = None,
        sandbox: list[str] | None = None,
    ) -> CommandResult:
        """Run `script` on the host, or inside the sandbox whose prefix is `sandbox`."""
        last_error = ""
        for _ in range(_ATTEMPTS):
            conn = self._connection()
            try:
                outcome = self._run_once(conn, script, timeout, output_cap, on_output, sandbox)
            except NotStarted as exc:
                # Nothing reached the host, so trying again (on a rebuilt connection) is safe.
                last_error = str(exc)
                if not conn.alive:
                    with self._lock:
                        self._drop_connection()
                continue
            if outcome.outcome_unknown and not conn.alive:
                with self._lock:
                    self._drop_connection()
            if outcome.unverified_start is not None and self._never_started(outcome.unverified_start):
                last_error = "the connection dropped before the command started"
                continue
            return outcome.result(command, timeout)
        raise TargetUnreachable(f"{self.host_label}: could not start a command: {last_error}")

    def _never_started(self, check: StartCheck) -> bool:
        """True only when the host proves a command sent before a connection died never started."""
        try:
            conn = self._connection()
            verdict = run_exec(conn.transport, verify_script(check), 30, 4096)
        except (TargetError, NotStarted):
            return False
        return verdict.exit_code == 0 and verdict.stdout.capture().text.strip() == "NOTSTARTED"

    def _run_once(
        self,
        conn: Connection,
        script: str,
        timeout: float,
        output_cap: int,
        on_output: OutputListener | None,
        sandbox: list[str] | None = None,
    ) -> Outcome:
        if self._fast_path_allowed(script, timeout):
            shell = self._persistent_shell(conn, sandbox)
            # A busy shell (another thread) is not waited for: that command gets its own channel.
            if shell is not None and shell.lock.acquire(blocking=False):
                try:
                    return shell.run(script, timeout, output_cap, on_output)
                finally:
                    shell.lock.release()
        if sandbox is not None:  # its own channel and its own sandbox
            script = wrap(sandbox, script)
        return run_exec(conn.transport, script, timeout, output_cap, on_output)

    def _run_quick(self, script: str) -> CommandResult:
        return self._run_script(script, command=script, timeout=60)

    # -- files --------------------------------------------------------------------------------

    def _sftp_call(self, path: str, what: str, call: Callable[[paramiko.SFTPClient], T]) -> T:
        """Run an idempotent SFTP operation, once more on a rebuilt connection if it dropped."""
        for attempt in range(2):
            conn = self._connection()
            try:
                return call(conn.sftp())
            except FileNotFoundError as exc:
                raise TargetFileError(f"cannot {what} {path} on {self._spec}: no such file") from exc
            except PermissionError as exc:
                raise TargetFileError(f"cannot {what} {path} on {self._spec}: permission denied") from exc
            except (OSError, EOFError, paramiko.SSHException) as exc:
                if conn.alive or attempt == 1:
                    detail = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
                    raise TargetFileError(f"cannot {what} {path} on {self._spec}: {detail}") from exc
                with self._lock:
                    self._drop_connection()
        raise AssertionError("unreachable")

    def read_file(self, path: str, *, offset: int = 0, max_bytes: int = DEFAULT_OUTPUT_CAP) -> bytes:
        full = self.resolve(path)

        def read(sftp: paramiko.SFTPClient) -> bytes:
            if within(full, self._sandbox.writable) and self._sandbox.status().active:
                # a link a command planted there must not lead the login's read out (checked by
                # path: SFTP cannot name an open handle's file), nor a FIFO hang the SFTP server
                refused = self._sandbox.refuse_read(full, sftp.normalize(full))
                if refused is None and not stat.S_ISREG(sftp.stat(full).st_mode or 0):
                    refused = "not a regular file"
                if refused:
                    raise TargetFileError(f"cannot read {path} on {self._spec}: {refused}")
            with sftp.open(full, "rb") as handle:
                handle.seek(offset)
                chunks: list[bytes] = []
                remaining = max_bytes
                while remaining > 0:
                    chunk = handle.read(min(remaining, 1 << 20))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    remaining -= len(chunk)
                return b"".join(chunks)

        return self._sftp_call(path, "read", read)

    def write_file(self, path: str, data: bytes) -> None:
        full = self.resolve(path, "write")
        refused = self._sandbox.refuse_write(full)
        if refused:
            raise TargetFileError(f"cannot write {path} on {self._spec}: {refused}")
        parent = posixpath.dirname(full)
        if parent:
            made = self.run(f"mkdir -p -- {shlex.quote(parent)}", timeout=30)
            if made.exit_code != 0:
                raise TargetFileError(f"cannot create {parent} on {self._spec}: {made.stderr.strip()}")
        # a fresh name, created exclusively (O_EXCL never follows a link planted there)
        temp = f"{full}.opsagent-{secrets.token_hex(4)}"
        owner = self._sandbox.file_owner()

        def write(sftp: paramiko.SFTPClient) -> None:
            # the real directory: a link the agent made in its work directory must not carry the
            # write out of it (the rename below replaces a link at the file itself, never follows it)
            refused = self._sandbox.refuse_write(posixpath.join(sftp.normalize(parent or "/"), "x"))
            if refused:
                raise TargetFileError(f"cannot write {path} on {self._spec}: {refused}")
            with sftp.open(temp, "wbx") as handle:
                handle.set_pipelined(True)
                handle.write(data)
                if owner is not None:  # on the handle: a path could have become a link meanwhile
                    handle.chown(*owner)
            # Replace in one step, so a reader never sees half a file.
            sftp.posix_rename(temp, full)

        self._sftp_call(path, "write", write)

    def stat(self, path: str) -> FileStat | None:
        full = shlex.quote(self.resolve(path, "stat"))
        # on the host, as read_file (SFTP) sees files: the sandbox hides /tmp and the homes
        result = self._run_script(
            f"if [ -e {full} ]; then stat -L -c '%s %i %.9Y' -- {full} 2>/dev/null"
            f" || stat -L -c '%s %i %Y' -- {full}; else echo MISSING; fi",
            command=f"stat {full}",
            timeout=30,
        )
        text = result.stdout.strip()
        if result.exit_code == 0 and text == "MISSING":
            return None
        fields = text.split()
        if result.exit_code != 0 or len(fields) != 3:
            detail = result.error or result.stderr.strip() or f"exit code {result.exit_code}"
            raise TargetFileError(f"cannot stat {path} on {self._spec}: {detail}")
        return FileStat(size=int(fields[0]), inode=int(fields[1]), mtime=float(fields[2]))

    # -- detached processes -------------------------------------------------------------------

    # -- clock --------------------------------------------------------------------------------

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def now(self) -> float:
        result = self.run("date +%s.%N", timeout=30)
        try:
            return float(result.stdout.strip())
        except ValueError as exc:
            raise TargetError(f"cannot read the clock on {self._spec}: {result.stderr.strip()}") from exc

    def _remote_home(self, connection: Connection) -> str:
        # Asked on an exec channel: the persistent shell keeps its journal under the work
        # directory, which is only known once $HOME is.
        try:
            result = run_exec(connection.transport, 'printf %s "$HOME"', 30, 4096).result("home", 30)
        except NotStarted as exc:
            raise TargetUnreachable(f"{self._spec}: could not run a first command: {exc}") from exc
        home = result.stdout.strip()
        if result.exit_code != 0 or not home.startswith("/"):
            raise TargetError(f"cannot find the remote home directory on {self._spec}: {result.stderr.strip()}")
        return home

    def close(self) -> None:
        with self._lock:
            self._drop_connection()

    def __enter__(self) -> SSHTarget:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
