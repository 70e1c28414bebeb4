"""The routes of `opsagent serve`.

agent.web.guard stands in front of every route (Host, body limit, session, CSRF, headers); only
operators and admins may answer or start runs (403 for a viewer). Sign-in is throttled
(agent.web.throttle); a session lives in the state store (agent.store.sessions) and ends at
sign-out. What a reply did is kept in the session for the next page, never put in the URL. Pages
name the server's directories relative to the project or the state. Pages read the live snapshot
(agent.web.live), so the inbox costs the same with 10 runs or 1,000 whatever the store costs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agent.hearing.replies import Answered, ReplyError
from agent.store import at_rest
from agent.store.records import UnknownRun
from agent.store.sessions import Session, SessionStore
from agent.store.sqlite import Store
from agent.store.users import authenticate_account, can_answer
from agent.web.actions import MAX_GOAL, Launcher, ReplyForm, reply_from_form, valid_run_id
from agent.web.audit import audit_fragment
from agent.web.auth import COOKIE, Access, set_session_cookie
from agent.web.guard import Guard
from agent.web.live import Poller, RunView, Tracker, clock, driver_alive, scrub_lines
from agent.web.thread import pending, read_thread
from agent.web.throttle import SignInThrottle, log_refused

LOGIN_COOKIE = "opsagent_login"
# a policy or facts file elsewhere on the server: its name is enough to tell which it was
_ELSEWHERE_YAML = re.compile(r"(?<![\w.~<-])/(?:[\w.@+-]+/)+([\w.@+-]+\.ya?ml)\b")
READ_ONLY = "refused: this server reads a read-only copy of the state; answer where the run's state can be written"
STREAM_CHECK_S = 2.0  # how often an open event stream checks that its session still lives


@dataclass
class Web:
    store: Store
    tracker: Tracker
    sessions: SessionStore
    launcher: Launcher
    templates: Environment
    access: Access = field(default_factory=Access)
    throttle: SignInThrottle = field(default_factory=SignInThrottle)
    places: list[tuple[str, str]] = field(default_factory=list)  # server directories and how pages name them

    def shown(self, text: str) -> str:
        """`text` with the server's directories named relative to the project or the state: a
        viewer reads a run, not the layout of the server's disk."""
        for prefix, name in self.places:
            text = text.replace(prefix, name)
        return _ELSEWHERE_YAML.sub(r"…/\1", text)

    @property
    def read_only(self) -> bool:
        """Serving a state it cannot write (an auditor's copy): pages read, nothing is answered."""
        return bool(getattr(self.store, "read_only", False))

    def page(self, name: str, request: Request, status: int = 200, **context: Any) -> HTMLResponse:
        session: Session | None = request.scope.get("session")
        role = request.scope.get("role")
        html = self.templates.get_template(name).render(
            user=session.user if session else None,
            role=role,
            can_answer=bool(role and can_answer(role)) and not self.read_only,
            csrf=session.csrf if session else "",
            clock=clock,
            **context,
        )
        return HTMLResponse(self.shown(html), status_code=status)


def cut(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word and marked with an ellipsis."""
    flat = " ".join(str(text).split())
    if len(flat) <= limit:
        return flat
    head = flat[: limit - 1]
    return (head.rsplit(" ", 1)[0] if " " in head else head).rstrip(",.;: ") + "…"


def create_app(
    store: Store,
    *,
    state: str,
    transcripts: str | None,
    poll_s: float = 0.25,
    worker: bool = False,
    access: Access | None = None,
    sessions: SessionStore | None = None,
    project: Path | None = None,
) -> Starlette:
    """`worker`: drive the runs that need a driver in this process (agent.loop.worker), as
    `opsagent worker` would: answered runs whose process is gone, runs whose driver died.
    `project`: the directory policy files of runs started from the page are read under (the
    server's working directory by default)."""
    state_dir = Path(getattr(store, "state_dir", Path(".opsagent")))
    log_dir = state_dir / "specs"
    launcher = Launcher(state, transcripts, log_dir, worker=worker, roots=[project or Path.cwd(), state_dir])
    tracker = Tracker(store, log_dir=lambda run_id: log_dir / f"{run_id}.log")
    templates = Environment(loader=PackageLoader("agent.web", "templates"), autoescape=select_autoescape(default=True))
    templates.filters["cut"] = cut
    web = Web(store, tracker, sessions or SessionStore(store), launcher, templates, access or Access())
    places = [(str(state_dir.resolve()) + "/", "<state>/"), (str((project or Path.cwd()).resolve()) + "/", "")]
    if transcripts:
        places.append((str(Path(transcripts).resolve()) + "/", "<transcripts>/"))
    web.places = sorted(places, key=lambda p: -len(p[0]))  # the deepest first: the state may be in the project
    poller = Poller(tracker, poll_s)
    scrubber = at_rest.scrubber()

    def clean(text: str) -> str:
        """Text about to reach a page or a header, scrubbed of secrets (a reply may carry a token)."""
        return str(scrubber.scrub_text(text)[0])

    async def login_form(request: Request) -> Response:
        # one token per browser until it signs in: a second tab (or a favicon's redirect) must not
        # invalidate the form already open
        token = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(16)
        response = web.page("login.html.j2", request, next=_safe_next(request.query_params.get("next")), token=token)
        response.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict", path="/login",
                            secure=bool(request.scope.get("opsagent.secure")))  # fmt: skip
        return response

    def login_again(request: Request, status: int, error: str, next_path: str) -> Response:
        fresh = secrets.token_urlsafe(16)
        again = web.page("login.html.j2", request, status, next=_safe_next(next_path), token=fresh, error=error)
        again.set_cookie(LOGIN_COOKIE, fresh, httponly=True, samesite="strict", path="/login",
                         secure=bool(request.scope.get("opsagent.secure")))  # fmt: skip
        return again

    async def login(request: Request) -> Response:
        form = await request.form()
        token = str(form.get("csrf") or "")
        if not token or not secrets.compare_digest(token, request.cookies.get(LOGIN_COOKIE, "")):
            return PlainTextResponse("refused: the sign-in form's CSRF token is missing or wrong; reload it", 403)
        name, password = str(form.get("name") or ""), str(form.get("password") or "")
        next_path, address = str(form.get("next") or ""), str(request.scope.get("opsagent.client", ""))
        wait_s = web.throttle.wait_s(name, address)
        if wait_s:
            log_refused(name, address, wait_s)
            error = f"too many failed sign-ins for this account or from this address; try again in {wait_s} s"
            refused = login_again(request, 429, error, next_path)
            refused.headers["Retry-After"] = str(wait_s)
            return refused
        account = await asyncio.to_thread(authenticate_account, store, name, password)
        if account is None:
            web.throttle.failed(name, address)
            return login_again(request, 401, "wrong name or password", next_path)
        web.throttle.succeeded(name)
        agent = request.headers.get("user-agent", "")
        session = await asyncio.to_thread(web.sessions.create, name, *account, address=address, agent=agent)
        response = RedirectResponse(_safe_next(next_path), status_code=303)
        set_session_cookie(response, session, secure=bool(request.scope.get("opsagent.secure")))
        response.delete_cookie(LOGIN_COOKIE, path="/login")
        return response

    async def logout(request: Request) -> Response:
        await asyncio.to_thread(web.sessions.revoke, request.scope["session"].sid)  # over here, for every tab
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
        # the note of this session's last reply, by the key its redirect named: never text from the URL
        note = await asyncio.to_thread(web.sessions.pop_flash, request.scope["session"].sid,
                                       request.query_params.get("said"))  # fmt: skip
        return web.page("thread.html.j2", request, request_note=note, **context)

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
        if web.read_only:
            return PlainTextResponse(READ_ONLY, 403)
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
        except Answered as answered:  # the operator asked the agent: an answer, not a refusal; nothing recorded
            said = clean(str(answered))
            if request.headers.get("accept", "").startswith("application/json"):
                body = json.dumps({"ok": True, "answered": True, "message": said})
                return Response(body, media_type="application/json")
            thread_context = await asyncio.to_thread(_thread_context, web, run_id)
            return web.page("thread.html.j2", request, request_note=said, **(thread_context or {}))
        except ReplyError as exc:
            context = await asyncio.to_thread(_thread_context, web, run_id) or {}
            return web.page("thread.html.j2", request, 409, error=clean(str(exc)), **context)
        recorded, _, undriven = message.partition("; continue the run with:")
        note = message
        if resumed:
            note = recorded + "; a process was started to continue the run"
        elif undriven and launcher.worker:
            note = recorded + "; this server's worker continues the run"
        note = clean(note)
        if request.headers.get("accept", "").startswith("application/json"):
            return Response(json.dumps({"ok": True, "message": note}), media_type="application/json")
        key = await asyncio.to_thread(web.sessions.set_flash, request.scope["session"].sid, note)
        return RedirectResponse(f"/runs/{run_id}?said={key}", status_code=303)

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
        if web.read_only:
            return PlainTextResponse(READ_ONLY, 403)
        form = await request.form()
        policies = [p.strip() for p in str(form.get("policies") or "").splitlines() if p.strip()]
        target, goal = str(form.get("target") or ""), str(form.get("goal") or "")
        try:
            run_id = await asyncio.to_thread(launcher.start, target, goal, policies)
        except ReplyError as exc:
            shown_goal = clean(goal) if len(goal) <= MAX_GOAL else ""
            status = 413 if len(goal) > MAX_GOAL else 400
            return web.page("new_run.html.j2", request, status, error=clean(str(exc)), target=target, goal=shown_goal)
        return RedirectResponse(f"/runs/{run_id}", status_code=303)

    async def events(request: Request) -> Response:
        only = request.query_params.get("run")
        return StreamingResponse(_stream(request, web, only), media_type="text/event-stream",
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


async def _stream(request: Request, web: Web, only: str | None) -> AsyncIterator[str]:
    """Server-sent events: the runs that changed since the last message, and every second the
    running ones (their elapsed time moves). The tracker polls; this only compares versions."""
    seen, last_tick, tracker = -1, 0.0, web.tracker
    token, checked = request.cookies.get(COOKIE), time.time()
    yield "retry: 1000\n\n"
    while not await request.is_disconnected():
        now = time.time()
        if now - checked >= STREAM_CHECK_S:
            # a tab left open must not go on reading runs once its session ended (signed out
            # elsewhere, revoked, expired); reading it here does not count as using it
            if await asyncio.to_thread(web.sessions.read, token, touch=False) is None:
                return
            checked = now
        tick = now - last_tick >= 1.0
        if tracker.version != seen or tick:
            runs = [r for r in tracker.snapshot() if (only is None or r.run_id == only)]
            changed = [r for r in runs if r.version > seen or (tick and r.status not in ("finished", "stopped"))]
            if changed or seen < 0:
                yield f"data: {web.shown(json.dumps({'runs': [r.to_json(now) for r in changed]}))}\n\n"
            seen, last_tick = tracker.version, now if tick else last_tick
        await asyncio.sleep(0.2)


def _safe_next(value: str | None) -> str:
    """Only a path on this server: a sign-in must not send anyone elsewhere."""
    return value if value and value.startswith("/") and not value.startswith("//") else "/"
