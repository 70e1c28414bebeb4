"""`opsagent serve`: the web inbox (agent/web) on 127.0.0.1 unless told otherwise."""

from __future__ import annotations

import errno
import ipaddress
import socket
from typing import Annotated

import typer

from agent.store.open import open_store
from agent.store.sessions import ABSOLUTE_S, IDLE_S

DEFAULT_PORT = 8420


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so a port in use is one clear line, not a server's traceback."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise _fail(f"--host {host!r} does not resolve ({exc.strerror}); use an address such as 127.0.0.1") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise _fail(
                f"port {port} on {host} is in use; pick another with --port N (or stop what holds it)"
            ) from None
        raise _fail(f"cannot listen on {host}:{port} ({exc.strerror}); choose another --host or --port") from None
    sock.listen(128)
    return sock


def _log_to_stderr() -> None:
    """The server's own lines (a throttled sign-in) on standard error, one a line."""
    import logging

    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("opsagent serve: %(asctime)s %(message)s"))
    log = logging.getLogger("opsagent.web")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def serve_command(
    state: Annotated[
        str | None,
        typer.Option("--state", help="state directory or postgresql:// URL (default ./.opsagent or $OPSAGENT_STATE)"),
    ] = None,
    host: Annotated[str, typer.Option(help="address to listen on (loopback unless you mean otherwise)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")] = DEFAULT_PORT,
    no_worker: Annotated[
        bool, typer.Option("--no-worker", help="drive no runs here: leave answered and orphaned runs to workers")
    ] = False,
    transcripts: Annotated[
        str | None,
        typer.Option(
            "--transcripts", help="where runs started from the page write transcripts (default ./transcripts)"
        ),
    ] = None,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            metavar="NAME",
            help="a Host name browsers reach this server by (repeatable; localhost and --host always)",
        ),
    ] = None,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-proxy",
            metavar="ADDR",
            help="the address (or network) of a TLS proxy whose X-Forwarded-Proto/-For to believe (repeatable)",
        ),
    ] = None,
    session_idle_s: Annotated[
        float, typer.Option("--session-idle-s", help="a session unused this long ends (seconds)")
    ] = IDLE_S,
    session_max_s: Annotated[
        float, typer.Option("--session-max-s", help="a session ends this long after sign-in (seconds)")
    ] = ABSOLUTE_S,
) -> None:
    """Serve the inbox as a chat, live runs and the audit view in the browser (sign in first)."""
    import uvicorn

    from agent.store.sessions import SessionsInMemory, SessionStore
    from agent.web.app import create_app
    from agent.web.auth import Access

    if not 0 <= port <= 65535:
        raise _fail(f"--port {port} is not a port number; use 1-65535 (or 0 for a free one)")
    if session_idle_s <= 0 or session_max_s <= 0:
        raise _fail("--session-idle-s and --session-max-s must be positive numbers of seconds")
    try:
        access = Access.make(host, allowed_host or [], trusted_proxy or [])
    except ValueError as exc:
        raise _fail(str(exc)) from None
    store = open_store(state, read_only=True)  # a state it cannot use is one line (StateDirError)
    read_only = bool(getattr(store, "read_only", False))  # an auditor's copy: read, never written
    kept = SessionsInMemory(store) if read_only else store
    sessions = SessionStore(kept, idle_s=session_idle_s, absolute_s=session_max_s)
    sock = _bind(host, port)
    bound = sock.getsockname()[1]
    # what the processes it starts are given as --state (a Postgres store names its URL there)
    app = create_app(
        store, state=str(getattr(store, "state_arg", store.state_dir)), transcripts=transcripts,
        worker=not (no_worker or read_only), access=access, sessions=sessions,
    )  # fmt: skip
    _log_to_stderr()
    if not store.list_users():
        where = "in this read-only copy (add one to a writable copy)" if read_only else "yet"
        typer.echo(
            f"no accounts {where}: add one with 'opsagent user add NAME --role operator' (then sign in)", err=True
        )
    if read_only:
        typer.echo(
            f"state {store.state_dir} is read-only: serving it to read (no answers, no new runs); "
            "sign-ins last while this server runs",
            err=True,
        )
    if not _loopback(host):
        typer.echo(
            f"warning: listening on {host}, beyond this machine; the sign-in is plain HTTP: put a TLS proxy in "
            "front (--trusted-proxy ADDR) and name the address browsers use (--allowed-host NAME)"
        )
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"opsagent serve: http://{shown}:{bound}/ (state {store.state_dir})", err=False)
    # open event streams (a browser tab) would hold a stopping server forever: give them 3 s
    # proxy_headers off: uvicorn believes X-Forwarded-* from 127.0.0.1 by default; only --trusted-proxy may
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=3, proxy_headers=False
    )
    uvicorn.Server(config).run(sockets=[sock])
