"""Each kind of tampering is detected and named by the first bad sequence number."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from agent.transcript.schema import line_hash
from agent.transcript.verify import verify_transcript
from agent.transcript.writer import TranscriptWriter


def lines(p: Path) -> list[bytes]:
    return p.read_bytes().splitlines(keepends=True)


def rewrite(p: Path, new: list[bytes]) -> None:
    p.write_bytes(b"".join(new))


def rehash(line: bytes, **changes: object) -> bytes:
    """Re-sign an edited event the way a careful forger would: valid JSON and a valid own hash."""
    obj = json.loads(line)
    obj.update(changes)
    obj.pop("hash")
    body = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
    full = body[:-1] + b',"hash":"' + b"0" * 64 + b'"}'
    h = line_hash(full)
    return body[:-1] + b',"hash":"' + h.encode() + b'"}\n'


def first(p: Path) -> tuple[str, int | None]:
    result = verify_transcript(p)
    assert not result.ok
    problem = result.problems[0]
    return problem.kind, problem.seq


def test_intact_transcript_verifies(sample: Path) -> None:
    result = verify_transcript(sample)
    assert result.ok, result.problems
    assert result.events == 10
    assert result.finished
    assert result.head == json.loads(lines(sample)[-1])["hash"]


def test_edited_bytes_are_named(sample: Path) -> None:
    ls = lines(sample)
    ls[4] = ls[4].replace(b"step 4 done", b"step 4 DONE")
    rewrite(sample, ls)
    assert first(sample) == ("edited", 4)


def test_edited_last_event_is_named(sample: Path) -> None:
    ls = lines(sample)
    ls[-1] = ls[-1].replace(b'"finished"', b'"stopped!"')
    rewrite(sample, ls)
    assert first(sample) == ("edited", 9)


def test_edit_with_recomputed_hash_is_named(sample: Path) -> None:
    ls = lines(sample)
    forged = json.loads(ls[5])
    forged["payload"]["summary"] = "nothing happened"
    ls[5] = rehash(ls[5], payload=forged["payload"])
    rewrite(sample, ls)
    assert first(sample) == ("edited", 5)


def test_removed_event_is_named(sample: Path) -> None:
    ls = lines(sample)
    del ls[3]
    rewrite(sample, ls)
    kind, seq = first(sample)
    assert (kind, seq) == ("removed", 3)


def test_removed_first_event_is_named(sample: Path) -> None:
    rewrite(sample, lines(sample)[1:])
    assert first(sample) == ("removed", 0)


def test_reordered_events_are_named(sample: Path) -> None:
    ls = lines(sample)
    ls[6], ls[7] = ls[7], ls[6]
    rewrite(sample, ls)
    assert first(sample) == ("reordered", 6)


def test_event_moved_earlier_is_named(sample: Path) -> None:
    ls = lines(sample)
    moved = ls.pop(7)
    ls.insert(2, moved)
    rewrite(sample, ls)
    assert first(sample) == ("reordered", 2)


def test_inserted_garbage_line_is_named(sample: Path) -> None:
    ls = lines(sample)
    ls.insert(3, b'{"note":"added later"}\n')
    rewrite(sample, ls)
    assert first(sample) == ("inserted", 3)


def test_inserted_forged_event_is_named(sample: Path) -> None:
    ls = lines(sample)
    prev = json.loads(ls[2])["hash"]
    forged = rehash(ls[3], prev=prev, payload={"step": 3, "summary": "approved by nobody"})
    ls.insert(3, forged)
    rewrite(sample, ls)
    assert first(sample) == ("inserted", 3)


def test_duplicated_event_is_named(sample: Path) -> None:
    ls = lines(sample)
    ls.insert(5, ls[2])
    rewrite(sample, ls)
    kind, seq = first(sample)
    assert kind == "inserted"
    assert seq == 5  # the copy of event 2 sits where event 5 belongs


def test_blank_line_inserted_is_named(sample: Path) -> None:
    ls = lines(sample)
    ls.insert(8, b"\n")
    rewrite(sample, ls)
    assert first(sample) == ("inserted", 8)


def test_torn_tail_verifies_up_to_last_complete_event(sample: Path) -> None:
    data = sample.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    sample.write_bytes(data[: last_start + 40])
    result = verify_transcript(sample)
    assert [p.kind for p in result.problems] == ["torn_tail"]
    assert result.problems[0].seq == 9
    assert result.events == 9
    assert not result.finished


def test_missing_and_changed_blobs_are_named(tmp_path: Path) -> None:
    with TranscriptWriter.create(tmp_path, "blobby", fsync=False) as w:
        w.emit("run_started", {"goal": "g"})
        w.emit("action_result", {"output": "A" * 20_000})
        w.emit("action_result", {"output": "B" * 20_000})
        path = w.path
    assert verify_transcript(path).ok
    blob_a = tmp_path / "blobs" / hashlib.sha256(b"A" * 20_000).hexdigest()
    blob_b = tmp_path / "blobs" / hashlib.sha256(b"B" * 20_000).hexdigest()
    blob_a.unlink()
    blob_b.write_bytes(b"B" * 19_999 + b"C")
    result = verify_transcript(path)
    assert [(p.kind, p.seq) for p in result.problems] == [("missing_blob", 1), ("blob_mismatch", 2)]


def test_edited_sequence_number_is_named(sample: Path) -> None:
    ls = lines(sample)
    ls[3] = ls[3].replace(b'"seq":3,', b'"seq":4,')
    rewrite(sample, ls)
    assert first(sample) == ("edited", 3)


def test_tail_cut_at_a_line_boundary_verifies_but_is_not_finished(sample: Path) -> None:
    rewrite(sample, lines(sample)[:-2])
    result = verify_transcript(sample)
    assert result.ok and result.events == 8 and not result.finished


def test_a_stray_line_that_mimics_a_torn_record_is_not_accepted(sample: Path) -> None:
    # Only the writer's torn_tail error event, naming the line's exact hash, excuses a broken line.
    ls = lines(sample)
    ls.insert(4, b'{"v":1,"seq":4,"ts":"x"\n')
    rewrite(sample, ls)
    assert first(sample) == ("inserted", 4)
