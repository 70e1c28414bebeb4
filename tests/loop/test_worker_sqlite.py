"""`opsagent worker` on the default SQLite state: a queued run is started, left waiting at its
question, brought back by a reply from another process, and a run whose `opsagent run` process is
alive is never taken from it (its lease)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from agent.store.sqlite import Store
from agent.transcript.reader import read_events
from agent.transcript.verify import verify_transcript
from tests.opsagent_process import CliRun

RUN_ARGS = ("--approver", "inbox", "--run-id", "d1")


def _worker(workspace: Path) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "OPSAGENT_STATE": str(workspace / "state"),
        "OPSAGENT_TRANSCRIPTS": str(workspace / "transcripts"),
        "OPSAGENT_CONFIG": str(workspace / "no-config.yaml"),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "worker", "--poll", "0.2"],
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _until(what: str, check, timeout: float = 120) -> None:  # type: ignore[no-untyped-def]
    deadline = time.time() + timeout
    while not check():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_a_worker_starts_a_queued_run_and_a_reply_brings_it_back(cli: CliRun, workspace: Path) -> None:
    store = Store(workspace / "state")
    worker = _worker(workspace)
    try:
        queued = cli("run", "--target", "lab:healthy-host", "--queue", "--run-id", "q1")
        assert queued.returncode == 0 and queued.stdout.splitlines()[-1] == "q1", queued.stdout + queued.stderr
        _until("the run's question", lambda: store.current_question("q1") is not None)
        _until("the run to be left waiting", lambda: store.get_run("q1").status == "waiting")
        _until("the lease to be let go", lambda: store.lease_holder("q1") is None)  # no sitting on a waiting run
        said = cli("reply", "q1", "approve")
        assert said.returncode == 0, said.stderr
        _until("the run to finish", lambda: store.get_run("q1").status == "finished")
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        out = worker.communicate(timeout=60)[0]
    assert "starting queued run q1" in out and "resuming run q1 (answered)" in out, out
    assert "run q1 finished" in out, out
    transcript = workspace / "transcripts" / "q1.jsonl"
    assert verify_transcript(transcript).ok
    assert [e.payload["kind"] for e in read_events(transcript) if e.type == "reply"] == ["approve"]


def test_a_worker_leaves_a_run_whose_driver_is_alive(cli: CliRun, workspace: Path) -> None:
    env = {
        **os.environ,
        "OPSAGENT_STATE": str(workspace / "state"),
        "OPSAGENT_TRANSCRIPTS": str(workspace / "transcripts"),
        "OPSAGENT_CONFIG": str(workspace / "no-config.yaml"),
    }
    driver = subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "run", "--target", "lab:healthy-host", *RUN_ARGS],
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    store = Store(workspace / "state")
    worker = _worker(workspace)
    try:
        _until("the run's question", lambda: store.current_question("d1") is not None)
        holder = store.lease_holder("d1")
        assert holder is not None and holder.split(":")[1] == str(driver.pid)  # `run` holds the lease
        assert cli("reply", "d1", "approve").returncode == 0
        assert driver.wait(timeout=120) == 0
    finally:
        driver.kill()
        os.killpg(worker.pid, signal.SIGTERM)
        out = worker.communicate(timeout=60)[0]
    # the worker never touched it (its own random id may hold the letters "d1": a word, not a substring)
    assert not re.search(r"\bd1\b", out), out
    events = list(read_events(workspace / "transcripts" / "d1.jsonl"))
    assert [e.type for e in events].count("run_resumed") == 0 and events[-1].type == "run_finished"
