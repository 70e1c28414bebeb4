from __future__ import annotations

import os
from pathlib import Path

from tools.local import LocalTarget
from tools.logs import LogCursor, cursor_at_end, last_lines, read_new, wait_for
from tools.registry import ToolContext
from tools.shell import tail_log


def test_read_new_returns_only_complete_lines_and_advances(tmp_path: Path) -> None:
    target = LocalTarget(str(tmp_path))
    log = tmp_path / "a.log"
    log.write_bytes(b"one\ntwo\nthr")
    chunk = read_new(target, LogCursor(path=str(log)))
    assert chunk.lines == ["one", "two"]
    with log.open("ab") as f:
        f.write(b"ee\nfour\n")
    chunk2 = read_new(target, chunk.cursor)
    assert chunk2.lines == ["three", "four"]
    assert read_new(target, chunk2.cursor).lines == []


def test_rotation_and_truncation_restart_from_zero(tmp_path: Path) -> None:
    target = LocalTarget(str(tmp_path))
    log = tmp_path / "a.log"
    log.write_text("old 1\nold 2\n")
    cursor = read_new(target, LogCursor(path=str(log))).cursor
    os.rename(log, tmp_path / "a.log.1")
    log.write_text("new 1\n")
    chunk = read_new(target, cursor)
    assert chunk.rotated and chunk.lines == ["new 1"]
    log.write_text("x\n")  # same inode, shorter than the cursor: truncated
    with log.open("r+b") as f:
        f.truncate(2)
    chunk2 = read_new(target, chunk.cursor.model_copy(update={"offset": 100}))
    assert chunk2.truncated and chunk2.lines == ["x"]


def test_missing_file_is_reported_not_raised(tmp_path: Path) -> None:
    chunk = read_new(LocalTarget(str(tmp_path)), LogCursor(path=str(tmp_path / "nope.log")))
    assert chunk.missing and chunk.lines == []


def test_last_lines_of_a_big_file_reads_only_the_end(tmp_path: Path) -> None:
    class Counting(LocalTarget):
        read = 0

        def read_file(self, path: str, *, offset: int = 0, max_bytes: int = 1 << 18) -> bytes:
            data = super().read_file(path, offset=offset, max_bytes=max_bytes)
            Counting.read += len(data)
            return data

    log = tmp_path / "big.log"
    with log.open("wb") as f:
        f.truncate(256 * 1024 * 1024)  # a sparse 256 MiB file: reading it all would be noticed
        f.seek(0, 2)
        f.write(b"".join(b"line %d\n" % i for i in range(100)))
    target = Counting(str(tmp_path))
    assert last_lines(target, str(log), 3) == ["line 97", "line 98", "line 99"]
    assert Counting.read <= 2 * 65536


def test_wait_for_matches_first_kind_in_order_and_times_out_on_virtual_clock(tmp_path: Path) -> None:
    class Virtual(LocalTarget):
        clock = 0.0

        def sleep(self, seconds: float) -> None:
            Virtual.clock += seconds

        def now(self) -> float:
            return Virtual.clock

    target = Virtual(str(tmp_path))
    log = tmp_path / "s.log"
    log.write_text("loading\nRuntimeError: CUDA error: device-side assert triggered\nready to roll!\n")
    match = wait_for(
        target,
        LogCursor(path=str(log)),
        {"fatal": [r"device-side assert"], "ready": [r"ready to roll"]},
        timeout_s=10,
        poll_s=1,
    )
    assert match.kind == "fatal" and "device-side" in (match.line or "")
    again = wait_for(target, match.cursor, {"fatal": [r"nothing like this"]}, timeout_s=30, poll_s=5)
    assert again.timed_out and again.kind is None and again.lines == ["ready to roll!"]
    assert again.elapsed_s >= 30


def test_tail_log_with_cursor_returns_new_lines_only(tmp_path: Path) -> None:
    ctx = ToolContext(target=LocalTarget(str(tmp_path)))
    log = tmp_path / "t.log"
    log.write_text("a\nb\nc\n")
    first = tail_log.invoke(ctx, {"path": str(log), "lines": 2})
    assert first.ok and first.data["lines"] == ["b", "c"]
    with log.open("a") as f:
        f.write("d\ne\n")
    second = tail_log.invoke(ctx, {"path": str(log), "cursor": first.data["cursor"]})
    assert second.data["lines"] == ["d", "e"]
    third = tail_log.invoke(ctx, {"path": str(log), "cursor": second.data["cursor"]})
    assert third.ok and third.data["lines"] == []
    assert cursor_at_end(ctx.target, str(log)).offset == log.stat().st_size
    missing = tail_log.invoke(ctx, {"path": str(tmp_path / "none.log")})
    assert not missing.ok and missing.error_kind == "file_error"
