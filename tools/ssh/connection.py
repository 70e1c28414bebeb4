"""One authenticated SSH connection (paramiko Transport), opened through jump hosts, with retries.

Transient faults while connecting (refused, reset, timed out, banner or key-exchange cut short)
are retried with exponential backoff up to `SSHOptions.connect_attempts`; what cannot get better
by waiting (an unknown host name, a refused host key, a refused user key) fails at once.
"""

from __future__ import annotations

import contextlib
import errno
import socket
from dataclasses import dataclass, field
from pathlib import Path

import paramiko
from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)

from tools.ssh import hostkeys
from tools.ssh.config import (
    ResolvedHost,
    SSHOptions,
    default_identity_files,
    load_ssh_config,
    parse_ssh_url,
    resolve,
)
from tools.target import TargetAuthError, TargetUnreachable


class TransientConnectError(Exception):
    """A connect attempt failed in a way that may succeed on retry."""


_TRANSIENT_ERRNOS = {
    errno.ECONNREFUSED,
    errno.ECONNRESET,
    errno.ECONNABORTED,
    errno.ETIMEDOUT,
    errno.EHOSTUNREACH,
    errno.ENETUNREACH,
    errno.EPIPE,
}


def _is_transient(exc: BaseException) -> bool:
    if isinstance(exc, socket.gaierror):
        return False
    if isinstance(exc, TimeoutError | EOFError | ConnectionError):
        return True
    if isinstance(exc, OSError):
        return exc.errno in _TRANSIENT_ERRNOS
    # Banner, key exchange or channel-open cut short: the peer went away mid-handshake.
    return isinstance(exc, paramiko.SSHException) and not isinstance(
        exc, paramiko.AuthenticationException | paramiko.BadHostKeyException
    )


def _tcp_keepalive(sock: socket.socket, keepalive_s: float) -> None:
    # The kernel notices a silently dead link and errors the socket, so a waiting command ends
    # as "outcome unknown" instead of hanging; paramiko's own keepalive only keeps NATs warm.
    idle = max(int(keepalive_s), 1)
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, idle)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, max(idle // 3, 1))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 3)
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _load_key(path: Path) -> paramiko.PKey:
    try:
        return paramiko.PKey.from_path(str(path))
    except paramiko.PasswordRequiredException as exc:
        raise TargetAuthError(
            f"identity {path} is encrypted: load it into ssh-agent (ssh-add {path}) and retry"
        ) from exc
    except (OSError, paramiko.SSHException, ValueError) as exc:
        raise TargetAuthError(f"cannot read identity {path}: {exc}") from exc


@dataclass
class Connection:
    """An open, authenticated transport to `host`, plus the jump connections it rides on."""

    host: ResolvedHost
    transport: paramiko.Transport
    jumps: list[Connection] = field(default_factory=list)
    host_key_event: hostkeys.HostKeyEvent | None = None
    _sftp: paramiko.SFTPClient | None = None

    @property
    def alive(self) -> bool:
        return self.transport.is_active()

    def sftp(self) -> paramiko.SFTPClient:
        if self._sftp is None:
            self._sftp = paramiko.SFTPClient.from_transport(self.transport)
            if self._sftp is None:
                raise TargetUnreachable(f"{self.host.label}: the server refused the SFTP subsystem")
        return self._sftp

    def close(self) -> None:
        with contextlib.suppress(Exception):
            if self._sftp is not None:
                self._sftp.close()
        self._sftp = None
        with contextlib.suppress(Exception):
            self.transport.close()
        for jump in self.jumps:
            jump.close()


def _authenticate(transport: paramiko.Transport, host: ResolvedHost, options: SSHOptions) -> None:
    tried: list[str] = []
    files = list(host.identity_files) or ([] if options.identity else default_identity_files())
    candidates: list[tuple[str, paramiko.PKey]] = []
    for path in files:
        if not path.is_file():
            if options.identity is not None and path == options.identity.expanduser():
                raise TargetAuthError(f"identity file {path} does not exist")
            continue
        candidates.append((str(path), _load_key(path)))
    if options.use_agent:
        with contextlib.suppress(paramiko.SSHException, OSError):
            candidates.extend(("ssh-agent", key) for key in paramiko.Agent().get_keys())
    for source, key in candidates:
        label = f"{source} ({key.get_name()} {key.fingerprint})"
        try:
            transport.auth_publickey(host.user, key)
        except paramiko.AuthenticationException:
            tried.append(label)
            continue
        if transport.is_authenticated():
            return
        tried.append(label + " (more factors required)")
    what = "; ".join(tried) if tried else "no keys (no --identity, no usable ~/.ssh/id_* key, no agent keys)"
    raise TargetAuthError(
        f"authentication failed for {host.label}: the server refused {what}. "
        f"Check that the public key is in ~{host.user}/.ssh/authorized_keys on {host.hostname}, "
        "or pass --identity KEY with the right private key."
    )


def _open_once(
    host: ResolvedHost, options: SSHOptions, sock: socket.socket | paramiko.Channel | None
) -> tuple[paramiko.Transport, hostkeys.HostKeyEvent | None]:
    timeout = host.connect_timeout or options.connect_timeout
    if sock is None:
        sock = socket.create_connection((host.hostname, host.port), timeout=timeout)
        _tcp_keepalive(sock, options.keepalive_s)
    transport = paramiko.Transport(sock)
    try:
        transport.banner_timeout = timeout
        transport.auth_timeout = timeout
        transport.handshake_timeout = timeout
        hostkeys.prefer_known_key_types(transport, host)
        transport.start_client(timeout=timeout)
        event = hostkeys.verify(host, transport.get_remote_server_key(), options.accept_new_host_key)
        _authenticate(transport, host, options)
        transport.set_keepalive(max(int(options.keepalive_s), 1))
        return transport, event
    except BaseException:
        transport.close()
        raise


def open_connection(target: str, options: SSHOptions) -> Connection:
    """Connect to `target` (an ssh:// URL or ssh config alias), through its ProxyJump hops."""
    config = load_ssh_config(options.ssh_config)
    host = resolve(parse_ssh_url(target), options, config)
    jumps: list[Connection] = []
    try:
        for spec in host.proxy_jump:
            # A jump host authenticates with its own config entry; the operator's --identity is
            # still offered to it, as ssh -J does with -i.
            jump_host = resolve(parse_ssh_url(spec), options, config)
            via = jumps[-1] if jumps else None
            jumps.append(_connect_with_retry(jump_host, options, via))
        conn = _connect_with_retry(host, options, jumps[-1] if jumps else None)
    except BaseException:
        for jump in jumps:
            jump.close()
        raise
    conn.jumps = jumps
    return conn


def _connect_with_retry(host: ResolvedHost, options: SSHOptions, via: Connection | None) -> Connection:
    timeout = host.connect_timeout or options.connect_timeout

    def attempt() -> Connection:
        try:
            sock: paramiko.Channel | None = None
            if via is not None:
                sock = via.transport.open_channel(
                    "direct-tcpip", (host.hostname, host.port), ("127.0.0.1", 0), timeout=timeout
                )
            transport, event = _open_once(host, options, sock)
        except (TargetAuthError, TargetUnreachable):
            raise
        except Exception as exc:
            if _is_transient(exc):
                raise TransientConnectError(f"{type(exc).__name__}: {exc}") from exc
            raise TargetUnreachable(f"cannot connect to {host.label}: {type(exc).__name__}: {exc}") from exc
        return Connection(host=host, transport=transport, host_key_event=event)

    retrying = Retrying(
        stop=stop_after_attempt(max(options.connect_attempts, 1)),
        wait=wait_exponential(multiplier=0.25, max=4.0),
        retry=retry_if_exception_type(TransientConnectError),
        reraise=False,
    )
    try:
        return retrying(attempt)
    except RetryError as exc:
        cause = exc.last_attempt.exception()
        hop = f" via {via.host.label}" if via is not None else ""
        raise TargetUnreachable(
            f"cannot connect to {host.hostname}:{host.port}{hop} after {options.connect_attempts} "
            f"attempts: {cause}. Check that the host is up and sshd listens on port {host.port}."
        ) from cause
