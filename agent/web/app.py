"""The routes of `opsagent serve`.

Every page but the sign-in page needs a session (a page redirects to /login, anything else gets
401); every POST needs the session's CSRF token (403 without it); only operators and admins may
answer or start runs (403 for a viewer). Pages read the live snapshot (agent.web.live), so the
inbox costs the same with 10 runs or 1,000 whatever the store costs to list them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent.hearing.replies import ReplyError
from agent.store.records import UnknownRun
from agent.store.sqlite import Store
from agent.store.users import authenticate, can_answer
from agent.web.actions import Launcher, ReplyForm, reply_from_form, valid_run_id
from agent.web.audit import audit_fragment
from agent.web.auth import COOKIE, Session, Signer
from agent.web.live import Poller, RunView, Tracker, clock, driver_alive, scrub_lines
from agent.web.thread import pending, read_thread

LOGIN_COOKIE = "opsagent_login"
OPEN_PATHS = ("/login", "/static/", "/healthz", "/favicon.ico")
CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'"


@dataclass
class Web:
    store: Store
    tracker: Tracker
    signer: Signer
    launcher: Launcher
    templates: Environment

    def page(self, name: str, request: Request, status: int = 200, **context: Any) -> HTMLResponse:
        session: Session | None = request.scope.get("session")
        role = request.scope.get("role")
        html = self.templates.get_template(name).render(
            user=session.user if session else None,
            role=role,
            can_answer=bool(role and can_answer(role)),
            csrf=self.signer.csrf(session) if session else "",
            clock=clock,
            **context,
        )
        return HTMLResponse(html, status_code=status)


USER_TTL_S = 2.0
MAX_BODY = 1 << 20  # a reply or a run's form; more is refused


class Guard:
    """Sessions and CSRF in front of every route, plus the timing header (Server-Timing: app;dur=MS).

    Pure ASGI: the body of a POST is read once here, checked for its CSRF token, and replayed to
    the route unchanged.
    """

    def __init__(self, app: ASGIApp, web: Web) -> None:
        self.app, self.web = app, web
        self._users: dict[str, tuple[float, tuple[str, str] | None]] = {}

    async def _user(self, name: str) -> tuple[str, str] | None:
        """The account (role, hash), read from the store at most every USER_TTL_S per name: a page
        costs no store round trip, and a removed or changed account takes effect within seconds."""
        now = time.monotonic()
        cached = self._users.get(name)
        if cached is not None and now - cached[0] < USER_TTL_S:
            return cached[1]
        found = await asyncio.to_thread(self.web.store.get_user, name)
        self._users[name] = (now, found)
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()

        async def timed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Server-Timing"] = f"app;dur={(time.perf_counter() - started) * 1000:.2f}"
                headers["Content-Security-Policy"] = CSP
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "same-origin"
            await send(message)

        refused = await self._refusal(scope, receive)
        if isinstance(refused, Response):
            await refused(scope, receive, timed_send)
            return
        await self.app(scope, refused, timed_send)

    async def _refusal(self, scope: Scope, receive: Receive) -> Response | Receive:
        """A response that refuses the request, or the `receive` the route reads the body from."""
        request = Request(scope, receive)
        path = request.url.path
        if path.startswith(OPEN_PATHS):
            return receive
        session = self.web.signer.read(request.cookies.get(COOKIE))
        found = await self._user(session.user) if session else None
        if session is None or found is None:  # no session, or the account was removed
            if request.method == "GET" and path != "/events":
                return RedirectResponse(f"/login?next={path}", status_code=303)
            return PlainTextResponse("sign in first: /login", status_code=401)
        scope["session"], scope["role"] = session, found[0]
        if request.method != "POST":
            return receive
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > MAX_BODY:
                return PlainTextResponse("refused: the form is too large", status_code=413)
            if not message.get("more_body"):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        form = await Request(scope, replay).form()
        token = form.get("csrf") or request.headers.get("x-csrf-token")
        await form.close()
        if not self.web.signer.check_csrf(session, str(token) if token else None):
            return PlainTextResponse("refused: the form's CSRF token is missing or wrong; reload the page", 403)
        replayed = False
        return replay


def create_app(
    store: Store, *, state: str, transcripts: str | None, poll_s: float = 0.25, worker: bool = False
) -> Starlette:
    """`worker`: drive the runs that need a driver in this process (agent.loop.worker), as
    `opsagent worker` would: answered runs whose process is gone, runs whose driver died."""
    log_dir = Path(getattr(store, "state_dir", Path(".opsagent"))) / "specs"
    launcher = Launcher(state, transcripts, log_dir, worker=worker)
    tracker = Tracker(store, log_dir=lambda run_id: log_dir / f"{run_id}.log")
    templates = Environment(loader=PackageLoader("agent.web", "templates"), autoescape=select_autoescape(default=True))
    web = Web(store, tracker, Signer(), launcher, templates)
    poller = Poller(tracker, poll_s)

    async def login_form(request: Request) -> Response:
        # one token per browser until it signs in: a second tab (or a favicon's redirect) must not
        # invalidate the form already open
        token = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(16)
        response = web.page("login.html.j2", request, next=_safe_next(request.query_params.get("next")), token=token)
        response.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict", path="/login")
        return response

    async def login(request: Request) -> Response:
        form = await request.form()
        token = str(form.get("csrf") or "")
        if not token or not secrets.compare_digest(token, request.cookies.get(LOGIN_COOKIE, "")):
            return PlainTextResponse("refused: the sign-in form's CSRF token is missing or wrong; reload it", 403)
        name, password = str(form.get("name") or ""), str(form.get("password") or "")
        role = await asyncio.to_thread(authenticate, store, name, password)
        if role is None:
            fresh = secrets.token_urlsafe(16)
            again = web.page(
                "login.html.j2", request, 401, next=_safe_next(str(form.get("next") or "")), token=fresh,
                error="wrong name or password",
            )  # fmt: skip
            again.set_cookie(LOGIN_COOKIE, fresh, httponly=True, samesite="strict", path="/login")
            return again
        response = RedirectResponse(_safe_next(str(form.get("next") or "")), status_code=303)
        response.set_cookie(COOKIE, web.signer.issue(name), httponly=True, samesite="strict", path="/")
        response.delete_cookie(LOGIN_COOKIE, path="/login")
        return response

    async def logout(request: Request) -> Response:
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    async def inbox(request: Request) -> Response:
        runs = sorted(tracker.snapshot(), key=lambda r: not r.waiting)  # what waits on you first, then newest
        waiting = [r for r in runs if r.waiting]
        return web.page("inbox.html.j2", request, runs=runs, waiting=waiting, now=time.time())

    async def thread(request: Request) -> Response:
        run_id = request.path_params["run_id"]
        context = await asyncio.to_thread(_thread_context, web, run_id)
        if context is None:
            return web.page("missing.html.j2", request, 404, run_id=run_id)
        return web.page("thread.html.j2", request, request_note=request.query_params.get("said"), **context)

    async def thread_parts(request: Request) -> Response:
        """The messages and the reply form alone: what the page swaps in when the run moves."""
        run_id = request.path_params["run_id"]
        context = await asyncio.to_thread(_thread_context, web, run_id)
        if context is None:
            return PlainTextResponse("unknown run", 404)
        return web.page("thread_parts.html.j2", request, **context)

    async def reply(request: Request) -> Response:
        run_id = request.path_params["run_id"]
        if not can_answer(str(request.scope.get("role"))):
            return PlainTextResponse("refused: a viewer cannot answer questions; ask an operator", 403)
        form = await request.form()
        fields = {k: str(form.get(k) or "") for k in ("reason", "command", "steps", "text")}
        verb = str(form.get("verb") or "")
        verb, _, pick = verb.partition(":")  # a numbered step's button says pick:N
        reply_form = ReplyForm(
            question_id=str(form.get("question_id") or ""), digest=str(form.get("digest") or ""),
            verb=verb, pick=pick, **fields,
        )  # fmt: skip
        who = request.scope["session"].user
        try:
            message = await asyncio.to_thread(reply_from_form, store, run_id, reply_form, who)
            resumed = await asyncio.to_thread(launcher.resume_if_undriven, store, run_id)
        except UnknownRun:
            return PlainTextResponse(f"unknown run {run_id}", 404)
        except ReplyError as exc:
            context = await asyncio.to_thread(_thread_context, web, run_id) or {}
            return web.page("thread.html.j2", request, 409, error=str(exc), **context)
        recorded, _, undriven = message.partition("; continue the run with:")
        note = message
        if resumed:
            note = recorded + "; a process was started to continue the run"
        elif undriven and launcher.worker:
            note = recorded + "; this server's worker continues the run"
        if request.headers.get("accept", "").startswith("application/json"):
            return Response(json.dumps({"ok": True, "message": note}), media_type="application/json")
        return RedirectResponse(f"/runs/{run_id}?said={_quote(note)}", status_code=303)

    async def audit(request: Request) -> Response:
        run_id = request.path_params["run_id"]
        view = tracker.get(run_id)
        if view is None:
            return web.page("missing.html.j2", request, 404, run_id=run_id)
        fragment = await asyncio.to_thread(audit_fragment, Path(view.transcript))
        return web.page("audit.html.j2", request, run=view, fragment=fragment)

    async def new_run_form(request: Request) -> Response:
        return web.page("new_run.html.j2", request)

    async def start_run(request: Request) -> Response:
        if not can_answer(str(request.scope.get("role"))):
            return PlainTextResponse("refused: a viewer cannot start runs; ask an operator", 403)
        form = await request.form()
        policies = [p.strip() for p in str(form.get("policies") or "").splitlines() if p.strip()]
        target, goal = str(form.get("target") or ""), str(form.get("goal") or "")
        try:
            run_id = launcher.start(target, goal, policies)
        except ReplyError as exc:
            return web.page("new_run.html.j2", request, 400, error=str(exc), target=target, goal=goal)
        return RedirectResponse(f"/runs/{run_id}", status_code=303)

    async def events(request: Request) -> Response:
        only = request.query_params.get("run")
        return StreamingResponse(_stream(request, tracker, only), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})  # fmt: skip

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)

    static = StaticFiles(packages=[("agent.web", "static")])
    routes = [
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/", inbox),
        Route("/events", events),
        Route("/healthz", healthz),
        Route("/favicon.ico", favicon),
        Route("/runs/new", new_run_form, methods=["GET"]),
        Route("/runs", start_run, methods=["POST"]),
        Route("/runs/{run_id}", thread),
        Route("/runs/{run_id}/parts", thread_parts),
        Route("/runs/{run_id}/reply", reply, methods=["POST"]),
        Route("/runs/{run_id}/audit", audit),
        Mount("/static", static, name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        poller.start()
        stop = threading.Event()
        driver = None
        if worker:
            from agent.loop.worker import run_worker

            driver = threading.Thread(
                target=run_worker,
                args=(state,),
                kwargs={"stop": stop, "poll_s": 0.5},
                name="opsagent-worker",
                daemon=True,
            )
            driver.start()
        try:
            yield
        finally:
            stop.set()
            poller.stop()
            if driver is not None:
                driver.join(timeout=30)  # the drives under way end at their next question

    app = Starlette(routes=routes, middleware=[Middleware(Guard, web=web)], lifespan=lifespan)
    app.state.web = web
    return app


def _thread_context(web: Web, run_id: str) -> dict[str, Any] | None:
    if not valid_run_id(run_id):
        return None
    view: RunView | None = web.tracker.get(run_id)
    if view is None:
        log = web.launcher.log_for(run_id)
        if log is None:
            return None
        # started from the page and not in the store yet (or it failed to start): its output says
        tail = scrub_lines(log.read_text(errors="replace").splitlines()[-15:])
        return {"run": None, "run_id": run_id, "messages": [], "pending": None, "starting": tail, "alive": False}
    messages, verdicts = read_thread(Path(view.transcript))
    question = web.store.current_question(run_id)
    return {
        "run": view,
        "run_id": run_id,
        "messages": messages,
        "pending": pending(question, verdicts),
        "starting": None,
        "alive": driver_alive(view),
        "now": time.time(),
    }


async def _stream(request: Request, tracker: Tracker, only: str | None) -> AsyncIterator[str]:
    """Server-sent events: the runs that changed since the last message, and every second the
    running ones (their elapsed time moves). The tracker polls; this only compares versions."""
    seen, last_tick = -1, 0.0
    yield "retry: 1000\n\n"
    while not await request.is_disconnected():
        now = time.time()
        tick = now - last_tick >= 1.0
        if tracker.version != seen or tick:
            runs = [r for r in tracker.snapshot() if (only is None or r.run_id == only)]
            changed = [r for r in runs if r.version > seen or (tick and r.status not in ("finished", "stopped"))]
            if changed or seen < 0:
                yield f"data: {json.dumps({'runs': [r.to_json(now) for r in changed]})}\n\n"
            seen, last_tick = tracker.version, now if tick else last_tick
        await asyncio.sleep(0.2)


def _safe_next(value: str | None) -> str:
    """Only a path on this server: a sign-in must not send anyone elsewhere."""
    return value if value and value.startswith("/") and not value.startswith("//") else "/"


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text[:300])
