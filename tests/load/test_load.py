"""A small load test: runs started at once on one fresh state directory, answered concurrently.

The full one is `benchmarks/bench_load.py` (50 runs); this one keeps the same checks at a size
the test suite can afford: one run per reply kind, two repliers, one contested question answered
twice at the same moment through the CLI, one run killed mid-work and resumed.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from pathlib import Path
from typing import Any

import pytest

from agent.hearing.post import post_cli_reply
from agent.hearing.replies import ReplyError
from agent.loop.lab_facts import open_lab, write_facts_overlay
from agent.policy.policyset import load_policy_set
from agent.state import Question, Reply
from agent.store.records import RunSpec
from agent.store.sqlite import Store
from benchmarks.load_harness import LoadReport, run_load
from tests.pg_fixture import pg_server, pg_url

__all__ = ["pg_server", "pg_url"]  # the Postgres fixtures, for the test on Postgres


def _open_store(directory: str) -> str:
    try:
        Store(Path(directory) / ".opsagent")
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return "ok"


def test_concurrent_starts_in_a_fresh_directory_all_open_the_state(tmp_path: Path) -> None:
    # Ten starts at once used to lose one to a shared write-probe file ("No such file or directory").
    results = []
    for trial in range(4):
        with mp.get_context("fork").Pool(8) as pool:
            results += pool.map(_open_store, [str(tmp_path / str(trial))] * 24)
    assert [r for r in results if r != "ok"] == []


def _answer(directory: str, question_id: str, who: str, barrier: Any) -> bool:
    store = Store(Path(directory))
    barrier.wait()
    return store.post_reply("r1", Reply(kind="stop", question_id=question_id, who=who, at=time.time()))


def test_two_processes_answering_one_question_at_once_one_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path)
    ctx = mp.get_context("fork")
    for attempt in range(5):
        qid = f"q{attempt}"
        store.post_question("r1", Question(id=qid, trigger="low_confidence", reason="r", question="go?", asked_at=0))
        barrier = ctx.Manager().Barrier(2)
        with ctx.Pool(2) as pool:
            outcomes = pool.starmap(_answer, [(str(tmp_path), qid, who, barrier) for who in ("alice", "bob")])
        assert sorted(outcomes) == [False, True], (attempt, outcomes)
        assert store.take_reply("r1", qid) is not None


def _write_and_read_facts(state_dir: str) -> str:
    try:
        for _ in range(5):
            path = write_facts_overlay(open_lab("lab:healthy-host"), Path(state_dir))
            load_policy_set([path])
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return "ok"


def test_concurrent_starts_never_read_a_half_written_facts_file(tmp_path: Path) -> None:
    # Two of fifty detached starts failed with "the file is empty" while another wrote it.
    with mp.get_context("fork").Pool(6) as pool:
        results = pool.map(_write_and_read_facts, [str(tmp_path)] * 12)
    assert [r for r in results if r != "ok"] == []


def test_a_reply_bound_to_a_question_that_was_answered_is_refused(tmp_path: Path) -> None:
    # Two operators read q1; one answers; the run asks q2. The other's reply to q1 must not land on q2.
    store = Store(tmp_path)
    spec = RunSpec(run_id="r1", goal={}, target="lab:healthy-host", decider="runbook", transcript="t.jsonl")
    store.add_run(spec)
    store.post_question("r1", Question(id="q1", trigger="low_confidence", reason="r", question="go?", asked_at=0))
    common: dict[str, Any] = {"steps": None, "until": None, "edit": None, "say": None, "reason": None}
    post_cli_reply(store, "r1", verb="continue", who="alice", question_id="q1", **common)
    store.post_question("r1", Question(id="q2", trigger="low_confidence", reason="r", question="and now?", asked_at=1))
    with pytest.raises(ReplyError, match="question q1 of run r1 was already answered"):
        post_cli_reply(store, "r1", verb="stop", who="bob", question_id="q1", **common)
    assert store.question_status("r1", "q2") == "open"
    post_cli_reply(store, "r1", verb="stop", who="bob", question_id="q2", **common)
    reply = store.take_reply("r1", "q2")
    assert reply is not None and reply.kind == "stop" and reply.who == "bob"


def test_runs_and_repliers_on_one_state_lose_nothing(tmp_path: Path) -> None:
    _nothing_lost(run_load(tmp_path, runs=5, repliers=2, kills=1, contested_every=5, timeout_s=420))


def test_runs_and_repliers_on_one_postgres_database_lose_nothing(tmp_path: Path, pg_url: str) -> None:
    report = run_load(tmp_path, runs=5, repliers=2, kills=1, contested_every=5, timeout_s=420, state=pg_url)
    _nothing_lost(report)
    assert not list(tmp_path.rglob("*.sqlite")), "the state went to SQLite, not Postgres"


def test_runs_from_two_machines_directories_on_one_postgres_database_lose_nothing(tmp_path: Path, pg_url: str) -> None:
    """A team: runs start in turn in two directories (own HOME and files), a killed run resumes in
    the other one, and every transcript verifies as the database records it."""
    report = run_load(tmp_path, runs=5, repliers=2, kills=1, contested_every=5, timeout_s=420, state=pg_url, machines=2)
    _nothing_lost(report)
    assert not list(tmp_path.rglob("*.sqlite")), "the state went to SQLite, not Postgres"
    assert sorted(p.name for p in (tmp_path / "audit").glob("*.jsonl")) == [f"load-{i}.jsonl" for i in range(5)]


def _nothing_lost(report: LoadReport) -> None:
    summary = "\n".join(report.lines())
    assert report.started == 5, summary
    assert report.lost == 0, (summary, report.final_status)
    assert report.mismatched == [], summary
    assert report.double_applied == [], summary
    assert report.replies_refused_as_answered >= 1, summary  # the contested question's second answer
    assert report.actions_run_twice == [], summary
    assert report.transcripts_verified == 5, report.transcript_problems
    assert report.errors == [], report.errors
    assert report.killed, summary
