"""A long step is never silent: a live status line at a terminal, a heartbeat line without one,
and the tools' own progress (the server's startup phase and last log line, the benchmark's levels)."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import yaml

from agent.loop.progress import result_line
from agent.state import Action, Decision
from tools.lab.target import LabTarget
from tools.registry import ToolContext
from tools.sglang.bench import RunBenchmarkArgs, bench_serving_command, measure
from tools.sglang.launch import launch_server
from tools.sglang.wait import wait
from tools.target import DetachedProcess, run_watching

HERE = Path(__file__).parent
DRIVE = HERE / "drive.py"
REPO = HERE.parents[1]


def _script(workspace: Path, command: str) -> Path:
    decisions = [
        Decision(action=Action(tool="run_command", args={"command": command}), rationale="test", confidence=0.9),
        Decision(kind="finish", goal_met=True, rationale="done"),
    ]
    path = workspace / "script.yaml"
    path.write_text(yaml.safe_dump([d.model_dump(mode="json") for d in decisions]))
    return path


def _drive_args(workspace: Path, script: Path, run_id: str) -> list[str]:
    return [
        sys.executable, str(DRIVE), "start",
        "--state", str(workspace / "state"), "--transcripts", str(workspace / "transcripts"),
        "--script", str(script), "--run-id", run_id, "--work-dir", str(workspace / "work"),
        "--approver", "scripted", "--echo",
    ]  # fmt: skip


def test_a_ten_second_command_shows_a_live_status_line_at_a_terminal(workspace: Path) -> None:
    args = _drive_args(workspace, _script(workspace, "sleep 10"), "tty-progress")
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(REPO)
        os.execve(sys.executable, args, {**os.environ, "TERM": "xterm", "COLUMNS": "120"})
    seen = bytearray()
    stamps: list[tuple[float, bytes]] = []
    deadline = time.monotonic() + 120
    while b"STATUS" not in seen:
        assert time.monotonic() < deadline, bytes(seen[-2000:])
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            stamps.append((time.monotonic(), chunk))
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0, seen.decode(errors="replace")[-2000:]
    text = seen.decode(errors="replace")
    updates = re.findall(r"running run_command: sleep 10 \((\d+)s\)", text)
    seconds = sorted({int(s) for s in updates})
    # redrawn in place while the command runs: many updates, the clock going up through the 10 s
    assert len(seconds) >= 5 and seconds[0] <= 3 and seconds[-1] >= 8, seconds
    assert "\r" in text and "ok: exit code 0" not in text.split("running run_command")[0]
    # the updates arrived over time, not all at the end
    arrived = [t for t, chunk in stamps if b"running run_command" in chunk]
    assert arrived[-1] - arrived[0] >= 5


def test_without_a_terminal_a_heartbeat_line_comes_every_interval(workspace: Path) -> None:
    args = _drive_args(workspace, _script(workspace, "sleep 4"), "beat")
    env = {**os.environ, "OPSAGENT_HEARTBEAT_S": "1"}
    done = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    beats = [line for line in done.stdout.splitlines() if "... running run_command: sleep 4" in line]
    assert 2 <= len(beats) <= 5, done.stdout
    assert "\r" not in done.stdout and "\x1b" not in done.stdout  # plain lines in a log file


def _launched(lab: LabTarget) -> DetachedProcess:
    args = {"model_path": lab.scenario.goal.model_path, "tp": 8, "gpus": list(range(8))}
    out = launch_server.invoke(ToolContext(target=lab), args)
    assert out.ok, out.summary
    return out.started[0]


def test_wait_server_reports_the_startup_phase_and_the_last_log_line() -> None:
    lab = LabTarget.from_name("healthy-host")
    started = _launched(lab)
    heard: list[str] = []
    result = wait(lab, started, 30000, timeout_s=1800, poll_s=10, on_progress=heard.append)
    assert result.ready
    phases = [h.split(";")[0] for h in heard]
    assert "phase: loading weights" in " ".join(phases) and "phase: ready" in phases[-1]
    assert any("; log: " in h for h in heard)
    assert len(set(phases)) >= 3  # the phase moves on as the log does


def test_the_benchmark_reports_each_level_and_the_throughput_so_far() -> None:
    lab = LabTarget.from_name("healthy-host")
    started = _launched(lab)
    assert wait(lab, started, 30000, timeout_s=1800, poll_s=10).ready
    heard: list[str] = []
    measure(lab, RunBenchmarkArgs(port=30000, concurrency=[1, 64]), on_progress=heard.append)
    second = next(h for h in heard if h.startswith("level 2/2"))
    assert heard[0].startswith("level 1/2")
    assert re.search(r"done: \d+ requests at concurrency 1: [\d,]+ tok/s", second), heard


def test_the_lab_benchmark_draws_its_bar_while_the_level_runs() -> None:
    lab = LabTarget.from_name("healthy-host")
    assert wait(lab, _launched(lab), 30000, timeout_s=1800, poll_s=10).ready
    heard: list[tuple[float, str, str]] = []
    command = bench_serving_command(30000, 1024, 256, 256, 64, f"{lab.work_dir}/bench/out.jsonl")
    start = lab.now()
    result = run_watching(lab, command, timeout=3600, on_output=lambda s, t: heard.append((lab.now(), s, t)))
    assert result.ok, result.stderr
    bars = [(when, text) for when, stream, text in heard if stream == "stderr" and "it/s]" in text]
    done = [int(re.search(r"(\d+)/256 \[", text).group(1)) for _, text in bars]  # type: ignore[union-attr]
    # told as the virtual clock moves through the level, the count going up to all 256
    assert len(bars) >= 5 and done == sorted(done) and done[-1] == 256 and done[0] < 256, done
    assert bars[0][0] > start and bars[0][0] < bars[-1][0] <= lab.now()
    assert "256/256 [" in result.stderr  # the bar is in the command's stderr too, as bench_serving's is


def test_the_benchmark_reports_requests_done_and_throughput_while_a_level_runs() -> None:
    lab = LabTarget.from_name("healthy-host")
    assert wait(lab, _launched(lab), 30000, timeout_s=1800, poll_s=10).ready
    heard: list[str] = []
    clock: list[float] = []  # the lab's time at each report

    def hear(text: str) -> None:
        heard.append(text)
        clock.append(lab.now())

    result = measure(lab, RunBenchmarkArgs(port=30000, concurrency=[1, 64]), on_progress=hear)
    running = [
        (int(m.group(1)), float(m.group(2).replace(",", "")), when)
        for h, when in zip(heard, clock, strict=True)
        if h.startswith("level 2/2") and (m := re.search(r": (\d+)/256 requests, ([\d,]+) tok/s so far", h))
    ]
    assert len(running) >= 5 and [n for n, _, _ in running] == sorted(n for n, _, _ in running), heard
    assert running[0][0] < 256 and running[0][2] < running[-1][2]  # heard while the level ran
    final = result.levels[1].output_throughput
    assert 0.7 * final <= running[-1][1] <= 1.3 * final, (running, final)  # the running number is the level's
    assert all("done: 8 requests at concurrency 1" in h for h in heard if h.startswith("level 2/2"))


def test_result_lines_show_the_number_that_matters() -> None:
    bench = {
        "tool": "run_benchmark",
        "ok": True,
        "summary": "source bench_serving-jsonl, input 1024, output 256 tokens\n...",
        "data": {
            "levels": [
                {"concurrency": 1, "output_throughput": 108.2},
                {"concurrency": 64, "output_throughput": 2193.5},
            ],
            "targets_met": True,
        },
    }
    expected = "108 tok/s single stream, 2,194 tok/s aggregate at concurrency 64; goal met"
    assert result_line(bench) == expected
    failed = {
        "tool": "run_command",
        "ok": False,
        "summary": "$ python3 x.py\nexit code: 1",
        "data": {
            "exit_code": 1,
            "stderr": "Traceback (most recent call last):\n  File x\nRuntimeError: CUDA out of memory\n",
        },
    }
    line = result_line(failed)
    assert line.startswith("exit code 1") and "RuntimeError: CUDA out of memory" in line


def test_event_lines_are_never_cut_mid_word(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from agent.loop.progress import ProgressEcho
    from agent.transcript.writer import TranscriptWriter

    screen = io.StringIO()
    console = Console(file=screen, width=60, force_terminal=True, color_system=None)
    echo = ProgressEcho(TranscriptWriter.create(tmp_path, "oom", fsync=False), console)
    message = (
        "sglang failed: cuda_oom after 95s (phase: capturing CUDA graphs): torch.OutOfMemoryError: "
        "CUDA out of memory. Tried to allocate 2.00 GiB"
    )
    echo.emit("action_result", {"step": 3, "tool": "wait_server", "ok": False, "summary": message})
    shown = " ".join(screen.getvalue().split())
    assert f"FAILED: {message}" in shown and "…" not in shown
