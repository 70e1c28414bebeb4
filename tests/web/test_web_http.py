"""`opsagent serve` over HTTP against a real server process and real lab runs: who may see and do
what, the CSRF token, approvals bound to the exact action shown, and replies recorded with who."""

from __future__ import annotations

import html
import json
import re

import pytest

from agent.store.sqlite import Store
from tests.web.server import Client, Server, Workspace, events, hidden, wait_for

RUN = "web-http-1"


@pytest.fixture(scope="module")
def waiting(ws: Workspace, server: Server) -> str:
    ws.start_waiting_run(RUN)
    return RUN


def page_with(client: Client, path: str, text: str) -> str:
    """The page at `path` once it holds `text` (the run gets there in its own time)."""

    def body() -> str | None:
        page = client.get(path).body
        return page if text in page else None

    found: str = wait_for(body, f"{text!r} on {path}")
    return found


def alert(body: str) -> str:
    """The page's error line (what the refusal said), or "" when it shows none."""
    found = re.findall(r'<p class="error" role="alert">([^<]*)</p>', body)
    return html.unescape(found[0]) if found else ""


def _store(ws: Workspace) -> Store:
    return Store(ws.state)


def test_unauthenticated_requests_are_refused(server: Server, waiting: str) -> None:
    anon = Client(server.base)
    page = anon.get("/")
    assert page.status == 303 and page.headers["location"] == "/login?next=/"
    assert anon.get(f"/runs/{waiting}").status == 303
    assert anon.get("/events").status == 401
    refused = anon.post(f"/runs/{waiting}/reply", {"verb": "stop", "question_id": "q1-s6", "digest": ""})
    assert refused.status == 401
    forged = Client(server.base)
    forged.cookies["opsagent_session"] = "eyJ1IjogImFsaWNlIn0.bm90LWEtbWFj"  # {"u": "alice"} with a made-up MAC
    assert forged.get("/").status == 303
    assert anon.get("/healthz").status == 200  # the one open endpoint says nothing


def test_sign_in_needs_the_right_password_and_the_forms_token(server: Server) -> None:
    wrong = Client(server.base)
    assert wrong.login("alice", "not-her-password").status == 401
    assert "opsagent_session" not in wrong.cookies
    no_token = Client(server.base)
    no_token.get("/login")
    assert no_token.post("/login", {"name": "alice", "password": "alice-pw-1"}).status == 403
    good = Client(server.base)
    signed = good.login("alice")
    assert signed.status == 303 and "opsagent_session" in good.cookies
    (cookie,) = [c for c in signed.set_cookies if c.startswith("opsagent_session=")]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie


def test_the_inbox_shows_the_waiting_question_with_its_exact_command_and_verdict(
    ws: Workspace, server: Server, waiting: str
) -> None:
    alice = Client(server.base)
    alice.login("alice")
    inbox = page_with(alice, "/", "The policy needs your approval")
    assert f'href="/runs/{waiting}"' in inbox and "1 waiting" in inbox
    thread = alice.get(f"/runs/{waiting}").body
    assert "--tp-size 8 --port 30000</pre>" in thread  # the exact command, as the gate judged it
    assert "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 python3 -m sglang.launch_server" in thread
    assert 'class="verdict-ask">ask</b> (launch-needs-approval)' in thread
    assert "<table>" in thread and "<th>metric</th>" in thread  # the report's Markdown tables as tables
    question = _store(ws).current_question(waiting)
    assert question is not None and hidden(thread, "digest") == question.digest


def test_a_post_without_the_csrf_token_is_refused(ws: Workspace, server: Server, waiting: str) -> None:
    alice = Client(server.base)
    alice.login("alice")
    thread = alice.get(f"/runs/{waiting}").body
    form = {"question_id": hidden(thread, "question_id"), "digest": hidden(thread, "digest"), "verb": "stop"}
    assert alice.post(f"/runs/{waiting}/reply", form).status == 403
    assert alice.post(f"/runs/{waiting}/reply", {**form, "csrf": "not-the-token"}).status == 403
    other = Client(server.base)  # another session's token is not this session's
    other.login("alice")
    assert alice.post(f"/runs/{waiting}/reply", {**form, "csrf": hidden(other.get("/").body, "csrf")}).status == 403
    assert _store(ws).current_question(waiting) is not None  # nothing was answered
    assert alice.post("/runs", {"target": "lab:healthy-host"}).status == 403


def test_a_viewer_sees_but_cannot_answer(ws: Workspace, server: Server, waiting: str) -> None:
    victor = Client(server.base)
    victor.login("victor")
    thread = victor.get(f"/runs/{waiting}")
    assert thread.status == 200 and "You sign in as a viewer" in thread.body
    assert 'action="/runs/' + waiting + '/reply"' not in thread.body
    question = _store(ws).current_question(waiting)
    assert question is not None
    form = {"csrf": hidden(thread.body, "csrf"), "question_id": question.id, "digest": question.digest or ""}
    refused = victor.post(f"/runs/{waiting}/reply", {**form, "verb": "approve"})
    assert refused.status == 403 and "viewer" in refused.body
    assert victor.post("/runs", {"csrf": form["csrf"], "target": "lab:healthy-host"}).status == 403
    assert _store(ws).question_status(waiting, question.id) == "open"


def test_a_stale_page_cannot_approve_a_different_action(ws: Workspace, server: Server, waiting: str) -> None:
    alice = Client(server.base)
    alice.login("alice")
    thread = alice.get(f"/runs/{waiting}").body
    csrf, qid = hidden(thread, "csrf"), hidden(thread, "question_id")
    other_action = "0" * 64  # the digest a page showing another action would carry
    refused = alice.post(f"/runs/{waiting}/reply", {"csrf": csrf, "question_id": qid, "digest": other_action,
                                                    "verb": "approve"})  # fmt: skip
    assert refused.status == 409 and "nothing was approved" in alert(refused.body)
    typed = alice.post(f"/runs/{waiting}/reply", {"csrf": csrf, "question_id": qid, "digest": other_action,
                                                  "verb": "text", "text": "approve"})  # fmt: skip
    assert typed.status == 409 and "nothing was approved" in alert(typed.body)
    assert _store(ws).question_status(waiting, qid) == "open"


def test_an_approval_is_recorded_with_who_and_the_run_continues_live(
    ws: Workspace, server: Server, waiting: str
) -> None:
    alice = Client(server.base)
    alice.login("alice")
    thread = alice.get(f"/runs/{waiting}").body
    form = {"csrf": hidden(thread, "csrf"), "question_id": hidden(thread, "question_id"),
            "digest": hidden(thread, "digest")}  # fmt: skip
    posted = alice.post(f"/runs/{waiting}/reply", {**form, "verb": "approve"})
    assert posted.status == 303, posted.body
    reply = _store(ws).take_reply(waiting, form["question_id"])
    assert reply is not None and reply.kind == "approve" and reply.who == "alice"
    assert reply.digest == form["digest"]
    # the run goes on in its own process; the event stream shows it reach the next question
    seen = events(server.base, alice.cookies, f"/events?run={waiting}",
                  lambda got: any(r.get("question", "") and "goal is met" in r["question"]
                                  for m in got for r in m["runs"]))  # fmt: skip
    steps = [r["step"] for m in seen for r in m["runs"]]
    assert max(steps) > 6  # it went past the launch it asked about
    again = alice.post(f"/runs/{waiting}/reply", {**form, "verb": "approve"})  # the stale page, once more
    assert again.status == 409
    assert alert(again.body).startswith(f"this page showed question {form['question_id']}, which was already answered")
    shown = alice.get(f"/runs/{waiting}").body
    assert '<b class="who">alice</b>' in shown


def test_free_text_is_read_like_opsagent_reply(ws: Workspace, server: Server, waiting: str) -> None:
    alice = Client(server.base)
    alice.login("alice")
    thread = page_with(alice, f"/runs/{waiting}", 'name="question_id" value="q2-')
    form = {"csrf": hidden(thread, "csrf"), "question_id": hidden(thread, "question_id"), "digest": ""}
    bad = alice.post(f"/runs/{waiting}/reply", {**form, "verb": "text", "text": "?!"})
    assert bad.status == 409 and alert(bad.body).startswith("cannot understand '?!'")
    said = alice.post(f"/runs/{waiting}/reply", {**form, "verb": "text", "text": "please stop the server"})
    assert said.status == 303
    reply = _store(ws).take_reply(waiting, form["question_id"])
    assert reply is not None and (reply.kind, reply.text, reply.who) == ("say", "please stop the server", "alice")

    def replies() -> list[tuple[str, str]] | None:
        text = (ws.transcripts / f"{waiting}.jsonl").read_text()
        found = [json.loads(line)["payload"] for line in text.splitlines() if '"type":"reply"' in line]
        return [(r["kind"], r["who"]) for r in found] if len(found) == 2 else None

    # the run's own process takes the reply and writes it to the transcript
    assert wait_for(replies, "the second reply in the transcript") == [("approve", "alice"), ("say", "alice")]


def test_no_page_shows_a_secret(ws: Workspace, server: Server, waiting: str) -> None:
    alice = Client(server.base)
    alice.login("alice")
    pages = [alice.get(p).body for p in ("/", f"/runs/{waiting}", f"/runs/{waiting}/audit", "/runs/new")]
    secret = ws.env["HF_TOKEN"]
    assert all(secret not in page and secret[:12] not in page for page in pages)
    assert all("alice-pw-1" not in page and "$argon2" not in page for page in pages)


def test_a_reply_to_a_run_no_process_drives_starts_one(ws: Workspace, server: Server) -> None:
    run_id = "web-http-undriven"
    left = ws.cli("run", "--target", "lab:healthy-host", "--policy", str(ws.policy), "--approver", "none",
                  "--run-id", run_id)  # fmt: skip
    assert left.returncode == 3, left.stderr  # it asked, and its process left the question in the inbox
    alice = Client(server.base)
    alice.login("alice")
    thread = page_with(alice, f"/runs/{run_id}", 'name="question_id" value="q1-')
    form = {"csrf": hidden(thread, "csrf"), "question_id": hidden(thread, "question_id"),
            "digest": hidden(thread, "digest"), "verb": "approve"}  # fmt: skip
    posted = alice.post(f"/runs/{run_id}/reply", form)
    assert posted.status == 303
    said = html.unescape(alice.get(posted.headers["location"]).body)  # the note is kept server-side, not in the URL
    assert "this server's worker continues the run" in said or "a process was started to continue the run" in said
    # the server (its worker, or a process it started) takes the approval to the run's next question
    page_with(alice, f"/runs/{run_id}", 'name="question_id" value="q2-')
