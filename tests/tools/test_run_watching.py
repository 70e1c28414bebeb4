"""A command's output reaches a watcher while the command runs (tools.target.run_watching), here
on this machine; the SSH target is checked in tests/ssh/test_ssh_run.py, the lab in
tests/loop/test_progress.py."""

from __future__ import annotations

from pathlib import Path

from watching import Reader, handshake_command

from tools.local import LocalTarget
from tools.target import run_watching


def test_a_local_commands_output_is_heard_while_it_runs(tmp_path: Path) -> None:
    target = LocalTarget(str(tmp_path / "work"))
    flag = Path(target.work_dir) / "flag"
    reader = Reader(flag)
    result = run_watching(target, handshake_command(str(flag)), timeout=60, on_output=reader)
    # exit 7 would mean the first line was only read after the command ended
    assert result.exit_code == 0, result.stderr
    assert ("stderr", "first line\n") in reader.heard and ("stdout", "second line\n") in reader.heard
    assert result.stdout == "second line\n" and result.stderr == "first line\n"  # the capture is whole too


def test_without_a_watcher_the_same_command_waits_for_nobody(tmp_path: Path) -> None:
    target = LocalTarget(str(tmp_path / "work"))
    result = target.run(handshake_command(str(Path(target.work_dir) / "flag"), wait_s=1), timeout=60)
    assert result.exit_code == 7  # the command really depends on being read while it runs
