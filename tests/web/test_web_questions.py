"""A question to the agent typed on the web page (#27): the answer from the waiting question's
evidence is shown as a note (not a refusal), nothing is recorded, and the run's question still waits."""

from __future__ import annotations

import html
import json
import re

from agent.store.sqlite import Store
from tests.web.server import Client, Server, Workspace, hidden, wait_for

RUN = "web-ask-1"


def test_a_question_typed_on_the_page_is_answered_and_the_question_still_waits(ws: Workspace, server: Server) -> None:
    ws.start_waiting_run(RUN, "oom-mem-fraction")  # waits on the first launch's approval
    alice = Client(server.base)
    alice.login("alice")

    def form_shown() -> str | None:
        page = alice.get(f"/runs/{RUN}").body
        return page if 'name="question_id"' in page else None

    thread = wait_for(form_shown, "the reply form")
    form = {"csrf": hidden(thread, "csrf"), "question_id": hidden(thread, "question_id"), "digest": ""}
    asked = alice.post(f"/runs/{RUN}/reply", {**form, "verb": "text", "text": "what's using gpu 2?"})
    assert asked.status == 200, asked.body
    notes = [html.unescape(n) for n in re.findall(r'<p class="note">([^<]*)</p>', asked.body)]
    assert notes and "GPU 2 (nvidia-smi, step" in notes[0] and "no processes listed" in notes[0], notes
    assert "The run still waits on my question: The policy needs your approval" in notes[0]
    assert 'class="error"' not in asked.body  # an answer, not a refusal
    store = Store(ws.state)
    assert store.take_reply(RUN, form["question_id"]) is None
    current = store.current_question(RUN)
    assert current is not None and current.id == form["question_id"]
    alice.headers["Accept"] = "application/json"
    answered = json.loads(alice.post(f"/runs/{RUN}/reply", {**form, "verb": "text", "text": "is there nvlink?"}).body)
    assert answered["answered"] is True and "Interconnect (nvidia-smi topo -m, step" in answered["message"], answered
