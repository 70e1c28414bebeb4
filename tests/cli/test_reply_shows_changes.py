"""A reply shows what changed, not the whole report again; the whole report is one word away; a
proposed launch is never cut (#30, item 5)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.opsagent_process import CliRun
from tests.terminal import at_terminal, read_until


def test_a_reply_shows_what_changed_and_report_shows_it_whole(workspace: Path) -> None:
    pid, fd = at_terminal(workspace, "run", "--target", "lab:vm-no-p2p")
    seen = bytearray()
    read_until(fd, b"reply>", seen)
    first = seen.decode(errors="replace")
    os.write(fd, b"make it sing\n")  # words it cannot act on: the same question again
    start = len(seen)
    read_until(fd, b"reply>", seen)
    again = seen[start:].decode(errors="replace")
    os.write(fd, b"report\n")
    start = len(seen)
    read_until(fd, b"reply>", seen)
    whole = seen[start:].decode(errors="replace")
    os.write(fd, b"stop\n")
    read_until(fd, b"transcript:", seen)
    os.waitpid(pid, 0)
    os.close(fd)
    assert "Findings (with evidence)" in first and "Hypotheses" in first
    asked = again[again.index("Why I stopped") :]
    assert "I did not understand" in asked and "Unchanged:" in asked and "type report for the whole report" in asked
    assert "Findings (with evidence)" not in asked and "Goal:" not in asked, asked
    assert "Findings (with evidence)" in whole and "Goal:" in whole  # `report`: all of it


def test_the_launch_a_number_would_run_is_shown_whole(cli: CliRun, workspace: Path) -> None:
    config = workspace / "config.yaml"
    config.write_text("loop:\n  max_launches: 2\n")
    waiting = cli(
        "run", "--target", "lab:vm-no-p2p", "--run-id", "bud", "--approver", "none",
        extra_env={"OPSAGENT_CONFIG": str(config)},
    )  # fmt: skip
    assert waiting.returncode == 3
    report = json.loads(cli("inbox", "--json").stdout)[0]["report"]
    shown = report[report.index("Step 1 runs, exactly:") :].split("```")[1].strip()
    assert shown.endswith("cuda_graph_max_bs=256, disable_custom_all_reduce=True, name='sglang')"), shown
    assert "…" not in shown and "..." not in shown
    at_terminal = cli("inbox", "show", "bud", extra_env={"COLUMNS": "80"}).stdout
    assert "…" not in at_terminal[at_terminal.index("Step 1 runs") :].split("Question")[0], at_terminal
