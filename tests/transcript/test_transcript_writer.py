"""The writer: line layout, blobs, resume after a crash (torn tail), one writer at a time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.transcript.reader import read_events, resolved_payload
from agent.transcript.schema import line_hash
from agent.transcript.verify import verify_transcript
from agent.transcript.writer import TranscriptError, TranscriptWriter

ROOT = Path(__file__).resolve().parents[2]


def test_each_event_is_one_chained_line_on_disk_as_soon_as_emitted(tmp_path: Path) -> None:
    w = TranscriptWriter.create(tmp_path, "r1")
    e0 = w.emit("run_started", {"goal": "g", "target": "lab:x"})
    # Written and flushed before emit returns: another reader sees it now.
    on_disk = w.path.read_bytes()
    assert on_disk.endswith(b"\n") and on_disk.count(b"\n") == 1
    e1 = w.emit("observation", {"step": 1, "summary": "ok"})
    w.close()
    raw = w.path.read_bytes().splitlines()
    first, second = (json.loads(x) for x in raw)
    assert list(first) == ["v", "seq", "ts", "run", "type", "payload", "redactions", "blobs", "prev", "hash"]
    assert first["seq"] == 0 and second["seq"] == 1
    assert first["prev"] == "0" * 64 and second["prev"] == first["hash"] == e0.hash
    assert second["hash"] == e1.hash == line_hash(raw[1])
    assert w.path == tmp_path / "r1.jsonl"


def test_create_refuses_to_overwrite(tmp_path: Path) -> None:
    TranscriptWriter.create(tmp_path, "r1").close()
    with pytest.raises(TranscriptError, match="already exists"):
        TranscriptWriter.create(tmp_path, "r1")


def test_unknown_event_type_is_a_developer_error(tmp_path: Path) -> None:
    with (
        TranscriptWriter.create(tmp_path, "r1") as w,
        pytest.raises(ValueError, match="unknown transcript event"),
    ):
        w.emit("chitchat", {})


def test_large_output_is_stored_once_and_referenced(tmp_path: Path) -> None:
    big = "".join(f"line {i}: decode step ok\n" for i in range(2_000))  # ~48 KB
    with TranscriptWriter.create(tmp_path, "r1", fsync=False) as w:
        w.emit("action_result", {"step": 1, "output": big})
        w.emit("action_result", {"step": 2, "output": big})
        path = w.path
    assert path.stat().st_size < 5_000  # the transcript stays small
    blobs = list((tmp_path / "blobs").iterdir())
    assert len(blobs) == 1  # stored once
    events = list(read_events(path))
    ref = events[0].payload["output"]
    assert ref["$blob"] == blobs[0].name and ref["size"] == len(big)
    assert ref["tail"].endswith("line 1999: decode step ok\n")
    assert resolved_payload(path, events[1])["output"] == big
    assert verify_transcript(path).ok


def test_second_writer_on_a_live_transcript_is_refused(tmp_path: Path) -> None:
    with TranscriptWriter.create(tmp_path, "r1") as w:
        w.emit("run_started", {})
        with pytest.raises(TranscriptError, match="another process"):
            TranscriptWriter.open_append(w.path)


def test_open_append_continues_the_chain(tmp_path: Path) -> None:
    with TranscriptWriter.create(tmp_path, "r1") as w:
        w.emit("run_started", {})
        w.emit("observation", {"step": 1})
    with TranscriptWriter.open_append(tmp_path / "r1.jsonl") as w2:
        assert w2.run_id == "r1"
        e = w2.emit("run_finished", {"status": "finished"})
    assert e.seq == 2
    result = verify_transcript(tmp_path / "r1.jsonl")
    assert result.ok and result.events == 3 and result.finished


def test_open_append_after_torn_tail_records_it_and_keeps_a_valid_chain(tmp_path: Path) -> None:
    with TranscriptWriter.create(tmp_path, "r1") as w:
        w.emit("run_started", {})
        w.emit("observation", {"step": 1, "summary": "x" * 200})
        path = w.path
    data = path.read_bytes()
    cut = data[: len(data) - 100]  # crash in the middle of the second event
    path.write_bytes(cut)
    torn = verify_transcript(path)
    assert [p.kind for p in torn.problems] == ["torn_tail"] and torn.events == 1
    with TranscriptWriter.open_append(path) as w2:
        w2.emit("run_finished", {"status": "finished"})
    events = list(read_events(path))
    assert [e.type for e in events] == ["run_started", "error", "run_finished"]
    assert events[1].payload["kind"] == "torn_tail"
    assert events[1].payload["torn_bytes"] == len(cut) - data.index(b"\n") - 1
    assert path.read_bytes().startswith(cut)  # nothing written was rewritten
    result = verify_transcript(path)
    assert result.ok, result.problems
    assert result.torn_lines_recorded == 1 and result.events == 3


def test_open_append_rejects_a_damaged_last_event(tmp_path: Path) -> None:
    with TranscriptWriter.create(tmp_path, "r1") as w:
        w.emit("run_started", {"goal": "g"})
        path = w.path
    path.write_bytes(path.read_bytes().replace(b'"g"', b'"h"'))
    with pytest.raises(TranscriptError, match="does not match its hash"):
        TranscriptWriter.open_append(path)


CHILD = """
import sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from agent.transcript.writer import TranscriptWriter
w = TranscriptWriter.create(Path({dir!r}), "crash")
w.emit("run_started", {{"goal": "g"}})
print("started", flush=True)
i = 0
while True:
    i += 1
    w.emit("action_result", {{"step": i, "output": "o" * 3000}})
"""


def test_process_killed_mid_run_leaves_a_transcript_that_verifies_to_its_last_event(tmp_path: Path) -> None:
    code = CHILD.format(root=str(ROOT), dir=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"started"
    path = tmp_path / "crash.jsonl"
    deadline = time.monotonic() + 30
    while path.stat().st_size < 200_000 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    result = verify_transcript(path)
    complete = path.read_bytes().count(b"\n")
    assert result.events == complete
    assert all(p.kind == "torn_tail" for p in result.problems)  # a torn tail or none at all
    with TranscriptWriter.open_append(path) as w:
        w.emit("run_finished", {"status": "failed"})
    after = verify_transcript(path)
    assert after.ok and after.finished and after.events >= complete + 1
