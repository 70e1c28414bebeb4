"""Whole lab runs with their state in Postgres: a run answered with `opsagent reply` from another
process, a run SIGKILLed and resumed from its Postgres checkpoint, and two workers on one
database where the one driving a run is SIGKILLed and the other takes it over.

The kills are real: `OPSAGENT_CRASH_AFTER_EVENT=K` makes the transcript writer SIGKILL its own
process right after event K is on disk (agent/transcript/writer.py). On lab:healthy-host event 38
is the `action_started` of launch_server (journal key RUN:8): the launch's outcome is unknown.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psycopg

from agent.store.open import open_store
from agent.store.sqlite import Store
from agent.transcript.reader import read_events
from agent.transcript.verify import verify_transcript
from tests.opsagent_process import CliRun

SCENARIO = "lab:healthy-host"
LAUNCH_STARTED = 38  # seq of the action_started of launch_server on SCENARIO (checked below)


def _words_for(trigger: str) -> list[str]:
    """An operator's answer to each kind of question, as typed on the command line."""
    if trigger == "gave_up":
        return ["sign off"]  # only the explicit words sign off a failed run (#27)
    if trigger == "goal_met":
        return ["approve"]
    if trigger == "outcome_unknown":
        return ["--say", "verify the state of the host before doing anything else"]
    if trigger == "policy_ask":
        return ["deny", "--reason", "not in this test"]
    return ["continue"]


def _answer_until_over(cli: CliRun, store: Store, run_id: str, timeout: float = 300) -> list[str]:
    """Answer each question of the run from a process of its own until the run is over."""
    deadline = time.time() + timeout
    answered: list[str] = []
    while time.time() < deadline:
        if run_id not in {r.spec.run_id for r in store.list_runs()}:
            time.sleep(0.2)  # its process has not recorded it yet
            continue
        if store.get_run(run_id).status in ("finished", "stopped", "failed"):
            return answered
        question = store.current_question(run_id)
        if question is not None and question.id not in answered:
            said = cli("reply", run_id, "--question", question.id, *_words_for(question.trigger))
            assert said.returncode == 0, said.stdout + said.stderr
            answered.append(question.id)
            answered.append(question.trigger)
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} still {store.get_run(run_id).status} after {timeout} s")


def _checkpoints(url: str, run_id: str) -> int:
    with psycopg.connect(url) as db:
        row = db.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (run_id,)).fetchone()
    return int(row[0]) if row else 0


def _actions_once(store: Store, transcript: Path) -> Counter[str]:
    """Each journaled action started once; returns the transcript's action_started count per key."""
    events = list(read_events(transcript))
    started = Counter(str(e.payload["key"]) for e in events if e.type == "action_started")
    reruns = [e.payload["key"] for e in events if e.type == "action_started" and e.payload.get("rerun_after_crash")]
    assert reruns == [], reruns
    assert set(started.values()) == {1}, started
    keys = [key for key, _step, _status in store.journal_entries(events[0].payload["run_id"])]
    assert sorted(keys) == sorted(started), (keys, started)
    return started


def test_a_lab_run_on_postgres_answered_from_another_process(
    pg_cli: CliRun, pg_env: dict[str, str], tmp_path: Path
) -> None:
    run = subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "run", "--target", SCENARIO, "--approver", "inbox", "--run-id", "r1"],
        cwd=tmp_path,
        env=pg_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    store = open_store(pg_env["OPSAGENT_STATE"])
    try:
        answered = _answer_until_over(pg_cli, store, "r1")
        out = run.communicate(timeout=120)[0]
    finally:
        run.kill()
    assert run.returncode == 0, out[-3000:]
    assert answered[1::2] == ["goal_met"]
    assert store.get_run("r1").status == "finished"
    transcript = tmp_path / "transcripts" / "r1.jsonl"
    assert verify_transcript(transcript).ok
    replies = [e.payload for e in read_events(transcript) if e.type == "reply"]
    assert [(r["kind"], r["question_id"]) for r in replies] == [("approve", answered[0])]
    assert _checkpoints(pg_env["OPSAGENT_STATE"], "r1") > 0  # LangGraph's checkpoints are in Postgres
    assert not list(tmp_path.rglob("*.sqlite"))  # and nothing went to a SQLite file
    _actions_once(store, transcript)
    shown = pg_cli("inbox", "--json")
    assert shown.returncode == 0 and shown.stdout.strip() == "[]"


def test_a_run_killed_mid_action_resumes_from_its_postgres_checkpoint(
    pg_cli: CliRun, pg_env: dict[str, str], tmp_path: Path
) -> None:
    killed = pg_cli(
        "run", "--target", SCENARIO, "--approver", "scripted", "--run-id", "k1",
        extra_env={"OPSAGENT_CRASH_AFTER_EVENT": str(LAUNCH_STARTED)},
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stdout[-2000:] + killed.stderr
    transcript = tmp_path / "transcripts" / "k1.jsonl"
    last = list(read_events(transcript))[-1]
    assert (last.seq, last.type, last.payload["action"]["tool"]) == (LAUNCH_STARTED, "action_started", "launch_server")
    store = open_store(pg_env["OPSAGENT_STATE"])
    assert _checkpoints(pg_env["OPSAGENT_STATE"], "k1") > 0

    resumed = pg_cli("resume", "k1", "--approver", "scripted")
    # the runbook has no safe next step once the launch's outcome is unknown: it ends, goal not met (1)
    assert resumed.returncode in (0, 1), resumed.stdout[-3000:] + resumed.stderr
    events = list(read_events(transcript))
    assert [e.type for e in events].count("run_resumed") == 1
    unknown = [e for e in events if e.type == "question" and e.payload.get("trigger") == "outcome_unknown"]
    assert unknown, "the launch cut short was asked about"
    assert store.journal_get("k1:8") == ("started", None)  # never run again, so never finished
    _actions_once(store, transcript)
    assert store.get_run("k1").status == "finished" and verify_transcript(transcript).ok
    assert not list(tmp_path.rglob("*.sqlite"))


def _worker(env: dict[str, str], cwd: Path, log: Path, crash_at: int | None = None) -> subprocess.Popen[bytes]:
    extra = {"OPSAGENT_CRASH_AFTER_EVENT": str(crash_at)} if crash_at is not None else {}
    return subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "worker", "--poll", "0.2"],
        cwd=cwd,
        env={**env, **extra, "OPSAGENT_LEASE_S": "3"},
        stdin=subprocess.DEVNULL,
        stdout=open(log, "wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _wait_for(what: str, check, timeout: float = 120) -> None:  # type: ignore[no-untyped-def]
    deadline = time.time() + timeout
    while not check():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_two_workers_one_killed_mid_run_the_other_takes_over(
    pg_cli: CliRun, pg_env: dict[str, str], tmp_path: Path
) -> None:
    # Both workers poll the whole time, and both would SIGKILL themselves at event 38: whichever
    # takes the run dies there, mid-launch, while the other has been looking at a run it must
    # leave alone (its lease) until then. The other's resumed writer goes on past 38: it lives.
    store = open_store(pg_env["OPSAGENT_STATE"])
    workers = [_worker(pg_env, tmp_path, tmp_path / f"worker-{n}.log", crash_at=LAUNCH_STARTED) for n in "ab"]
    try:
        for n in "ab":
            _wait_for(f"worker {n} to start", lambda n=n: "driving runs" in (tmp_path / f"worker-{n}.log").read_text())
        queued = pg_cli("run", "--target", SCENARIO, "--queue", "--run-id", "w1")
        assert queued.returncode == 0 and queued.stdout.strip().splitlines()[-1] == "w1", queued.stdout + queued.stderr
        _wait_for("a worker to die driving the run", lambda: any(w.poll() is not None for w in workers))
        first, second = sorted(workers, key=lambda w: w.poll() is None)
        assert first.returncode == -signal.SIGKILL
        answered = _answer_until_over(pg_cli, store, "w1")
        assert second.poll() is None  # the other one is still serving
    finally:
        for proc in workers:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=60)
    name_b = "ab"[workers.index(second)]
    log_b = (tmp_path / f"worker-{name_b}.log").read_text()
    assert "resuming run w1 (its driver is gone)" in log_b, log_b
    assert store.get_run("w1").status == "finished", log_b
    assert "outcome_unknown" in answered and answered[-1] in ("goal_met", "gave_up"), answered
    transcript = tmp_path / "transcripts" / "w1.jsonl"
    events = list(read_events(transcript))
    resumed_by = [e.payload["pid"] for e in events if e.type == "run_resumed"]
    assert resumed_by and set(resumed_by) == {second.pid}, resumed_by
    assert store.journal_get("w1:8") == ("started", None)  # the launch A was in: asked about, never re-run
    started = _actions_once(store, transcript)
    assert len(started) >= 7  # up to the launch the kill cut short
    assert verify_transcript(transcript).ok
    assert store.lease_holder("w1") is None  # released when the run ended


def test_checkpoints_in_postgres_are_scrubbed_of_secrets(pg_cli: CliRun, pg_env: dict[str, str]) -> None:
    secret = "s3cr3t-" + "x7" * 12
    result = pg_cli(
        "run", "--target", SCENARIO, "--approver", "scripted", "--run-id", "s1",
        "--goal", f"serve the scenario's model; the API key is {secret}",
        extra_env={"MY_SERVICE_API_KEY": secret},
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stdout[-2000:] + result.stderr
    assert _checkpoints(pg_env["OPSAGENT_STATE"], "s1") > 0
    with psycopg.connect(pg_env["OPSAGENT_STATE"]) as db:
        stored = b"".join(
            bytes(value) if isinstance(value, bytes | memoryview) else str(value).encode()
            for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "runs", "journal")
            for row in db.execute(f"SELECT * FROM {table}").fetchall()
            for value in row
            if value is not None
        )
    assert b"REDACTED" in stored
    assert secret.encode() not in stored
