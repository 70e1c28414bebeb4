"""#27 on the web: a run that gave up is signed off only by the explicit button that says the goal
is NOT met; the plain Approve (shown before #27), "approve" and "continue" typed in the box are
refused, as `opsagent reply` and the terminal refuse them."""

from __future__ import annotations

import html
import re
import time

from agent.store.sqlite import Store
from tests.web.server import Client, Server, Workspace, hidden, wait_for

RUN = "web-gave-up"
GOAL = (
    "Serve /models/Qwen3-235B-A22B-Instruct-2507-FP8 on GPUs 0-7 at >= 2,000 tok/s aggregate output"
    " at concurrency 8192"
)  # the KV cache cannot hold it: asked, then (continue) nothing left to try


def _alert(body: str) -> str:
    found = re.findall(r'<p class="error" role="alert">([^<]*)</p>', body)
    return html.unescape(found[0]) if found else ""


def _gave_up(ws: Workspace) -> str:
    started = ws.cli("run", "--target", "lab:healthy-host", "--goal", GOAL, "--detach", "--run-id", RUN)
    assert started.returncode == 3, started.stdout + started.stderr
    store = Store(ws.state)
    first = wait_for(lambda: store.current_question(RUN), "the first question")
    assert ws.cli("reply", RUN, "continue").returncode == 0

    def final() -> str | None:
        question = store.current_question(RUN)
        return question.id if question is not None and question.id != first.id else None

    found: str = wait_for(final, "the gave-up question")
    return found


def test_a_failed_run_is_signed_off_only_by_the_button_that_says_so(ws: Workspace, server: Server) -> None:
    question_id = _gave_up(ws)
    alice = Client(server.base)
    alice.login("alice")
    thread = alice.get(f"/runs/{RUN}").body
    assert "the goal is NOT met" in thread
    assert 'value="approve"' not in thread and 'value="sign-off"' in thread  # no plain Approve
    form = {"csrf": hidden(thread, "csrf"), "question_id": question_id, "digest": ""}
    for refused in ({"verb": "approve"}, {"verb": "continue"}, {"verb": "text", "text": "continue"}):
        posted = alice.post(f"/runs/{RUN}/reply", {**form, **refused})
        assert posted.status == 409 and "sign off" in _alert(posted.body), refused
    assert Store(ws.state).current_question(RUN) is not None  # nothing was answered
    signed = alice.post(f"/runs/{RUN}/reply", {**form, "verb": "sign-off"})
    assert signed.status == 303
    deadline = time.monotonic() + 60
    while '"type":"run_finished"' not in (ws.transcripts / f"{RUN}.jsonl").read_text():
        assert time.monotonic() < deadline, "the run did not finish"
        time.sleep(0.2)
    finished = (ws.transcripts / f"{RUN}.jsonl").read_text()
    assert '"signed_off_by":"alice"' in finished.replace(" ", "") and '"goal_met":false' in finished.replace(" ", "")
    # the thread says what happened: the operator signed off (not "approve"), the goal is not met
    page = alice.get(f"/runs/{RUN}").body
    said = re.findall(r'<b class="who">alice</b> <time>[^<]*</time></div><div class="body">([^<]*)</div>', page)
    assert said[-1] == "sign off", said
    assert "Run finished</strong>; the goal is NOT met; signed off by alice" in page, page[-1500:]
    # the inbox tells a run finished short of its goal from one that met it, not a bare "finished"
    deadline = time.monotonic() + 30
    while "finished: goal NOT met" not in (inbox := alice.get("/").body):
        assert time.monotonic() < deadline, re.findall(r'<span class="badge[^"]*">[^<]*</span>', inbox)
        time.sleep(0.3)
