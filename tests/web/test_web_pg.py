"""`opsagent serve --state postgresql://...` on a real Postgres server (tests/pg's fixtures): an
account made with `opsagent user add` on the database signs in, a lab run started from the page
waits on its question, and the approval given on the page reaches it."""

from __future__ import annotations

from pathlib import Path

from tests.pg.conftest import pg_env, pg_server, pg_url  # noqa: F401  (fixtures)
from tests.web.server import ASK_LAUNCH, PASSWORDS, Client, Workspace, hidden, start_server, wait_for


def test_the_web_inbox_on_postgres(tmp_path: Path, pg_env: dict[str, str]) -> None:  # noqa: F811
    ws = Workspace(tmp_path, env=dict(pg_env))
    ws.policy.write_text(ASK_LAUNCH)
    added = ws.cli("user", "add", "alice", "--role", "operator", "--password-stdin", input=PASSWORDS["alice"] + "\n")
    assert added.returncode == 0, added.stderr
    assert not (tmp_path / "state").exists() and not (tmp_path / ".opsagent").exists()  # the account is in Postgres
    server = start_server(ws)
    try:
        alice = Client(server.base)
        assert alice.login("alice").status == 303
        csrf = hidden(alice.get("/runs/new").body, "csrf")
        started = alice.post(
            "/runs", {"csrf": csrf, "target": "lab:healthy-host", "goal": "", "policies": str(ws.policy)}
        )
        assert started.status == 303, started.body
        run_id = started.headers["location"].rsplit("/", 1)[1]

        def thread_with(text: str) -> str | None:
            page = alice.get(f"/runs/{run_id}").body
            return page if text in page else None

        thread = wait_for(lambda: thread_with('name="question_id" value="q1-'), "the launch's question", timeout=180)
        assert "--tp-size 8 --port 30000</pre>" in thread
        form = {"csrf": hidden(thread, "csrf"), "question_id": hidden(thread, "question_id"),
                "digest": hidden(thread, "digest"), "verb": "approve"}  # fmt: skip
        assert alice.post(f"/runs/{run_id}/reply", form).status == 303
        shown = wait_for(lambda: thread_with('name="question_id" value="q2-'), "the next question", timeout=180)
        assert '<b class="who">alice</b>' in shown
        # the session lives in Postgres: signing out ends it for every copy of the cookie
        copy = Client(server.base)
        copy.cookies = dict(alice.cookies)
        assert alice.post("/logout", {"csrf": hidden(shown, "csrf")}).status == 303
        assert copy.get("/").status == 303
    finally:
        server.stop()
        stopped = ws.cli("reply", run_id, "stop") if "run_id" in locals() else None
        assert stopped is None or stopped.returncode == 0, stopped.stderr if stopped else ""
