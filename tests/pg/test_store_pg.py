"""The store's API on a real Postgres server: runs, the inbox, the single-answer rule across
processes, the action journal, users, leases, secrets scrubbed at rest, and what a bad URL says."""

from __future__ import annotations

import multiprocessing as mp
import time
from typing import Any

import psycopg
import pytest

from agent.store.open import open_store
from agent.store.postgres import PostgresStore
from agent.store.records import RunSpec, StateDirError, UnknownRun
from agent.store.sqlite import Store
from tests.opsagent_process import CliRun
from tests.pg.conftest import PgServer


def _spec(run_id: str, goal: str = "serve it") -> RunSpec:
    return RunSpec(
        run_id=run_id, goal={"text": goal}, target="lab:healthy-host", decider="runbook", transcript="t.jsonl"
    )


def _question(qid: str, asked_at: float = 0.0, text: str = "go?") -> Any:
    from agent.state import Question

    return Question(id=qid, trigger="low_confidence", reason="r", question=text, asked_at=asked_at)


def test_open_store_picks_postgres_for_a_url_and_sqlite_for_a_directory(pg_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert isinstance(open_store(pg_url), PostgresStore)
    local = open_store(str(tmp_path / "state"))
    assert type(local) is Store and (tmp_path / "state" / "opsagent.sqlite").exists()


def test_runs_inbox_and_replies(pg_url: str) -> None:
    from agent.state import Reply

    store = open_store(pg_url)
    store.add_run(_spec("r1"))
    store.add_run(_spec("r2"), status="queued")
    assert [r.spec.run_id for r in store.list_runs()] == ["r1", "r2"]
    assert store.get_run("r2").status == "queued" and store.get_run("r2").pid is None
    store.set_run_status("r1", "waiting", None)
    assert store.get_run("r1").status == "waiting"
    with pytest.raises(UnknownRun):
        store.get_run("nope")

    store.post_question("r1", _question("q1"))
    store.post_question("r1", _question("q2", 1.0))  # a new question withdraws the open one
    assert store.question_status("r1", "q1") == "withdrawn"
    assert [(r, q.id) for r, q in store.open_questions()] == [("r1", "q2")]
    current = store.current_question("r1")
    assert current is not None and current.id == "q2"

    assert not store.post_reply("r1", Reply(kind="stop", question_id="q1", who="a", at=2.0))  # withdrawn
    assert store.post_reply("r1", Reply(kind="continue", question_id="q2", who="alice", at=3.0))
    assert not store.post_reply("r1", Reply(kind="stop", question_id="q2", who="bob", at=4.0))  # answered
    taken = store.take_reply("r1", "q2")
    assert taken is not None and taken.kind == "continue" and taken.who == "alice"
    last = store.last_reply("r1")
    assert last is not None and last.who == "alice"
    assert store.open_questions() == [] and store.current_question("r1") is None

    store.post_question("r2", _question("q9"))
    store.expire_question("r2", "q9")
    assert store.question_status("r2", "q9") == "expired"


def _answer(url: str, qid: str, who: str, barrier: Any) -> bool:
    from agent.state import Reply

    store = open_store(url)  # a store of its own, in a process of its own
    barrier.wait()
    return store.post_reply("r1", Reply(kind="stop", question_id=qid, who=who, at=time.time()))


def test_two_processes_answering_one_question_at_once_one_is_refused(pg_url: str) -> None:
    store = open_store(pg_url)
    store.add_run(_spec("r1"))
    ctx = mp.get_context("spawn")
    with ctx.Manager() as manager, ctx.Pool(2) as pool:
        for attempt in range(6):
            qid = f"q{attempt}"
            store.post_question("r1", _question(qid, float(attempt)))
            barrier = manager.Barrier(2)
            outcomes = pool.starmap(_answer, [(pg_url, qid, who, barrier) for who in ("alice", "bob")])
            assert sorted(outcomes) == [False, True], (attempt, outcomes)
            reply = store.take_reply("r1", qid)
            assert reply is not None and reply.who == ["alice", "bob"][outcomes.index(True)]


def test_the_journal(pg_url: str) -> None:
    store = open_store(pg_url)
    store.journal_start("r1:1", "r1", 1, {"tool": "shell", "args": {"cmd": "nvidia-smi"}})
    assert store.journal_get("r1:1") == ("started", None)
    with pytest.raises(psycopg.errors.UniqueViolation):  # a second start of one action is refused
        store.journal_start("r1:1", "r1", 1, {"tool": "shell"})
    store.journal_finish("r1:1", {"ok": True, "summary": "8 GPUs"})
    store.journal_start("r1:2", "r1", 2, {"tool": "shell"})
    assert store.journal_get("r1:1") == ("finished", {"ok": True, "summary": "8 GPUs"})
    assert store.journal_entries("r1") == [("r1:1", 1, "finished"), ("r1:2", 2, "started")]
    assert store.journal_get("r1:3") is None


def test_users(pg_url: str) -> None:
    store = open_store(pg_url)
    assert isinstance(store, PostgresStore)
    store.put_user("bob", "viewer", "hash-1")
    store.put_user("alice", "operator", "hash-2")
    store.put_user("bob", "admin", "hash-3")  # insert or replace
    assert store.get_user("bob") == ("admin", "hash-3")
    assert store.get_user("carol") is None
    assert store.list_users() == [("alice", "operator"), ("bob", "admin")]


def test_leases_one_holder_expiry_and_a_dead_holder(pg_url: str) -> None:
    store = open_store(pg_url)
    assert store.claim_lease("r1", "h:1:a", 30)
    assert not store.claim_lease("r1", "h:2:b", 30)  # held
    assert store.lease_holder("r1") == "h:1:a"
    assert store.renew_lease("r1", "h:1:a", 30) and not store.renew_lease("r1", "h:2:b", 30)
    assert store.claim_lease("r1", "h:2:b", 30, steal_from="h:1:a")  # the holder is known dead
    assert store.lease_holder("r1") == "h:2:b"
    assert store.claim_lease("r2", "h:1:a", 0.3)
    time.sleep(0.6)
    assert store.lease_holder("r2") is None
    assert store.claim_lease("r2", "h:2:b", 30)  # lapsed: taken over
    store.release_lease("r2", "h:1:a")  # not the holder: nothing happens
    assert store.lease_holder("r2") == "h:2:b"
    store.release_lease("r2", "h:2:b")
    assert store.lease_holder("r2") is None
    store.add_run(_spec("r1"))
    store.add_run(_spec("r2"), status="queued")
    assert store.driver_candidates() == [
        ("r1", "running", store.get_run("r1").pid, "h:2:b"),
        ("r2", "queued", None, None),
    ]


def test_secrets_never_reach_the_database(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent.state import Reply

    token = "hf_" + "Q" * 34
    monkeypatch.setenv("MY_SERVICE_TOKEN", "s3cr3t-value-of-no-shape")
    store = open_store(pg_url)
    store.add_run(_spec("r1", goal=f"serve with HF_TOKEN={token}"))
    store.post_question("r1", _question("q1", text="the key s3cr3t-value-of-no-shape leaked?"))
    store.post_reply("r1", Reply(kind="say", question_id="q1", who="a", at=1.0, text=f"use {token}"))
    store.journal_start("r1:1", "r1", 1, {"cmd": f"export HF_TOKEN={token}"})
    store.journal_finish("r1:1", {"stdout": "s3cr3t-value-of-no-shape"})
    with psycopg.connect(pg_url) as db:
        dump = " ".join(
            str(row)
            for table in ("runs", "questions", "replies", "journal")
            for row in db.execute(f"SELECT * FROM {table}").fetchall()
        )
    assert "REDACTED" in dump
    assert token not in dump and "s3cr3t-value-of-no-shape" not in dump


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("wrong-password", 'password authentication failed for user "opsagent"; check the user and password'),
        ("no-database", 'database "nosuchdb" does not exist; create the database'),
        ("refused", "Connection refused; check that the server runs and the host and port in the URL"),
        ("bad-url", "check the URL: postgresql://USER:PASSWORD@HOST:PORT/DBNAME"),
    ],
)
def test_a_bad_url_says_what_is_wrong_in_one_line(pg_server: PgServer, pg_cli: CliRun, url: str, said: str) -> None:
    urls = {
        "wrong-password": pg_server.url(password="not-the-password"),
        "no-database": pg_server.url("nosuchdb"),
        "refused": f"postgresql://opsagent:pw@127.0.0.1:{_closed_port()}/x",
        "bad-url": "postgresql://opsagent@127.0.0.1:notaport/x",
    }
    for command in (["inbox"], ["run", "--target", "lab:healthy-host"], ["worker"]):
        result = pg_cli(*command, "--state", urls[url])
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: cannot open the Postgres state"), result.stderr
        assert said in lines[0] and "Traceback" not in result.stderr
        assert "not-the-password" not in lines[0]  # the password is not repeated on the screen
    with pytest.raises(StateDirError):
        open_store(urls[url])


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _open_and_report(url: str, out: Any) -> None:
    PostgresStore(url).close()
    out.put("opened")


def test_two_first_opens_waiting_on_a_third_all_finish(pg_url: str) -> None:
    """The CI hang: LangGraph's setup builds its indexes CONCURRENTLY, which waits for every other
    statement of the database to end. A second opener blocked inside pg_advisory_lock is such a
    statement while it waits for the first opener, who holds the lock: neither ever ends, and
    Postgres cannot see the cycle (the lock is held by another connection of the first process)."""
    from agent.store.postgres import _SCHEMA_LOCK

    holder = psycopg.connect(pg_url, autocommit=True)
    holder.execute("SELECT pg_advisory_lock(%s)", (_SCHEMA_LOCK,))  # as an opener mid-setup would
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    openers = [ctx.Process(target=_open_and_report, args=(pg_url, out)) for _ in range(2)]
    for proc in openers:
        proc.start()
    # Both openers have connected and are waiting for the lock before the holder lets go of it.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        waiting = holder.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND query ILIKE '%%advisory_%%lock%%'"
        ).fetchone()
        if waiting is not None and waiting[0] >= 2:
            break
        time.sleep(0.05)
    holder.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))
    holder.close()
    for proc in openers:
        proc.join(timeout=120)
    hung = [proc for proc in openers if proc.is_alive()]
    for proc in hung:
        proc.kill()
    assert not hung, f"{len(hung)} of 2 first opens never finished"
    assert [out.get(timeout=5) for _ in openers] == ["opened", "opened"]
