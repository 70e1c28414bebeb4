"""What stands in front of every route of `opsagent serve` (pure ASGI, before any parsing):

1. the Host header must be one this server answers to (a DNS-rebinding page cannot reach it);
2. a body is limited before it is read: a Content-Length over the limit is refused at once, and a
   body that grows past it while read is refused there (open routes, /login, get a small limit);
3. a session, read from the state store, for every route but the open ones (a page redirects to
   /login, anything else gets 401);
4. every POST of a signed-in page carries the session's CSRF token (403 without it).

Responses get the security headers, `Cache-Control: no-store` (signed-in pages must not stay in
a shared or back-button cache) and the timing header (Server-Timing: app;dur=MS).
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent.store.sessions import SessionStore
from agent.web.auth import COOKIE, Access, check_csrf

OPEN_PATHS = ("/login", "/static/", "/healthz", "/favicon.ico")
CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'"
MAX_BODY = 1 << 20  # a reply or a run's form; more is refused
MAX_OPEN_BODY = 16 << 10  # the sign-in form: a name, a password, two tokens


def _too_large(limit: int) -> Response:
    return PlainTextResponse(f"refused: the request body is over {limit // 1024} kB", status_code=413)


class Guarded(Protocol):
    """What the guard reads of the web app (agent.web.app.Web): who may reach it, and the sessions."""

    access: Access
    sessions: SessionStore


class Guard:
    def __init__(self, app: ASGIApp, web: Guarded) -> None:
        self.app, self.web = app, web

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        static = scope["path"].startswith("/static/")

        async def timed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Server-Timing"] = f"app;dur={(time.perf_counter() - started) * 1000:.2f}"
                headers["Content-Security-Policy"] = CSP
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "same-origin"
                headers["X-Frame-Options"] = "DENY"
                if not static:
                    headers["Cache-Control"] = "no-store"
            await send(message)

        refused = await self._refusal(scope, receive)
        if isinstance(refused, Response):
            await refused(scope, receive, timed_send)
            return
        await self.app(scope, refused, timed_send)

    async def _body(self, scope: Scope, receive: Receive, limit: int) -> bytes | Response:
        """The whole body, read up to `limit` and no further."""
        declared = Request(scope).headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            return _too_large(limit)
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return PlainTextResponse("the client went away", status_code=400)
            body += message.get("body", b"")
            if len(body) > limit:
                return _too_large(limit)
            if not message.get("more_body"):
                return bytes(body)

    async def _refusal(self, scope: Scope, receive: Receive) -> Response | Receive:
        """A response that refuses the request, or the `receive` the route reads the body from."""
        request = Request(scope, receive)
        access = self.web.access
        if not access.host_allowed(request.headers.get("host")):
            shown = (request.headers.get("host") or "")[:100]
            return PlainTextResponse(
                f"refused: this server does not answer to Host {shown!r}; start it with --allowed-host NAME to add one",
                status_code=421,
            )
        scope["opsagent.client"] = access.client(request)
        scope["opsagent.secure"] = access.secure(request)
        path = request.url.path
        open_path = path.startswith(OPEN_PATHS)
        body: bytes | Response = b""
        if request.method not in ("GET", "HEAD"):
            body = await self._body(scope, receive, MAX_OPEN_BODY if open_path else MAX_BODY)
            if isinstance(body, Response):
                return body
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        if open_path:
            return replay
        session = await asyncio.to_thread(self.web.sessions.read, request.cookies.get(COOKIE))
        if session is None:  # no session, or it ended (signed out, revoked, expired, account changed)
            if path == "/logout":  # signed out already (in another tab): nothing to end, say where to go
                gone = RedirectResponse("/login", status_code=303)
                gone.delete_cookie(COOKIE, path="/")
                return gone
            if request.method == "GET" and path != "/events":
                return RedirectResponse(f"/login?next={path}", status_code=303)
            return PlainTextResponse("sign in first: /login", status_code=401)
        scope["session"], scope["role"] = session, session.role
        if request.method != "POST":
            return replay
        form = await Request(scope, replay).form()
        token = form.get("csrf") or request.headers.get("x-csrf-token")
        await form.close()
        if not check_csrf(session.csrf, str(token) if token else None):
            return PlainTextResponse("refused: the form's CSRF token is missing or wrong; reload the page", 403)
        replayed = False
        return replay
