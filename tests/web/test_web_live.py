"""The live snapshot (agent.web.live.Tracker) on a real store and a real transcript being written:
each event moves the run's step, tool and question, and while a server starts the page gets the
last lines of the run's own log."""

from __future__ import annotations

from pathlib import Path

from agent.store.records import RunSpec
from agent.store.sqlite import Store
from agent.transcript.writer import TranscriptWriter
from agent.web.live import Tracker


def test_the_tracker_follows_a_transcript_as_it_is_written(tmp_path: Path) -> None:
    store = Store(tmp_path / "state")
    writer = TranscriptWriter.create(tmp_path / "tr", "r1", fsync=False)
    spec = RunSpec(run_id="r1", goal={"text": "serve it"}, target="lab:x", decider="runbook",
                   transcript=str(writer.path))  # fmt: skip
    store.add_run(spec)
    log = tmp_path / "r1.log"
    tracker = Tracker(store, log_dir=lambda run_id: tmp_path / f"{run_id}.log")

    assert tracker.poll() is True
    view = tracker.get("r1")
    assert view is not None and (view.status, view.step, view.tool) == ("running", 0, None)
    version = tracker.version
    assert tracker.poll() is False and tracker.version == version  # nothing new: nothing sent

    writer.emit("run_started", {"run_id": "r1", "goal": {"text": "serve it"}, "target": "lab:x"})
    writer.emit("action_started", {"step": 3, "key": "r1:3", "action": {"tool": "wait_server", "args": {}}})
    secret = "hf_" + "LiveTailSecretValue0123456789abcdef"  # a token a server printed in its log
    log.write_text(f"started with {secret}\n   ... running wait_server (4s) - phase: loading weights; log: shard 2/8\n")
    assert tracker.poll() is True
    view = tracker.get("r1")
    assert view is not None and (view.step, view.tool, view.tool_running) == (3, "wait_server", True)
    assert view.log_tail[-1].endswith("log: shard 2/8")  # the server's start, as it goes
    assert view.log_tail[0].startswith("started with ") and secret not in "".join(view.log_tail)

    writer.emit("action_result", {"step": 3, "key": "r1:3", "tool": "wait_server", "ok": True, "summary": "ready"})
    writer.emit("question", {"id": "q1-s3", "trigger": "goal_met", "question": "Sign off?", "reason": "met"})
    store.set_run_status("r1", "waiting", None)
    assert tracker.poll() is True
    view = tracker.get("r1")
    assert view is not None and view.log_tail == [] and view.tool_running is False
    assert view.waiting and view.shown_status == "waiting" and view.question == "Sign off?"
    assert view.to_json(view.created + 75)["elapsed"] == "1m 15s"

    writer.emit("reply", {"question_id": "q1-s3", "kind": "approve", "who": "alice"})
    writer.emit("run_finished", {"status": "finished", "goal_met": True})
    store.set_run_status("r1", "finished", None)
    assert tracker.poll() is True
    view = tracker.get("r1")
    assert view is not None and not view.waiting and view.shown_status == "finished" and view.ended is not None
    writer.close()
