"""The state store: where runs, their questions, replies and action journal live.

One directory (``./.opsagent`` unless ``--state``/``OPSAGENT_STATE`` says otherwise) holds:

- ``checkpoints.sqlite``: LangGraph's checkpoints, one thread per run;
- ``opsagent.sqlite``: the runs table, the inbox (questions and replies) and the action journal.

Any process on a machine that sees the directory can list waiting questions and answer them; the
process that waits polls for the reply. Every text stored is scrubbed of secrets first
(agent.store.at_rest): a token in a goal, a report or a tool's output never reaches the disk.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent.state import Question, Reply
from agent.store import at_rest
from agent.store.records import (
    DRIVEN,
    RUN_COLUMNS,
    RunRecord,
    RunSpec,
    StateDirError,
    UnknownRun,
    ensure_writable_dir,
)
from agent.transcript.blobs import blob_dir_for
from agent.transcript.record import TranscriptRecord

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    status TEXT NOT NULL,
    pid INTEGER,
    transcript TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS questions (
    run_id TEXT NOT NULL,
    question_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,          -- open | answered | expired | withdrawn
    asked_at REAL NOT NULL,
    PRIMARY KEY (run_id, question_id)
);
CREATE TABLE IF NOT EXISTS replies (
    run_id TEXT NOT NULL,
    question_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    at REAL NOT NULL,
    consumed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, question_id)
);
CREATE TABLE IF NOT EXISTS journal (
    key TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    step INTEGER NOT NULL,
    action TEXT NOT NULL,
    status TEXT NOT NULL,          -- started | finished
    started_at REAL NOT NULL,
    finished_at REAL,
    result TEXT
);
CREATE TABLE IF NOT EXISTS leases (
    run_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,           -- host:pid:nonce of the process driving the run
    expires REAL NOT NULL
);
"""


def _writable(path: Path) -> bool:
    """The folder can be written (or made): a probe, since os.access is wrong on some mounts."""
    try:
        ensure_writable_dir(path, "state directory", "--state")
    except StateDirError:
        return False
    return True


class Store:
    """The SQLite store; agent.store.postgres.PostgresStore keeps the same API in Postgres."""

    pids_are_local = True  # every process using it runs on this machine: a run's pid can be checked

    def __init__(self, state_dir: Path, read_only: bool = False) -> None:
        # read_only: commands that only read (inbox, replay) work on a copy an auditor cannot write;
        # the database is opened immutable, nothing is created.
        self.read_only = read_only and not _writable(state_dir)
        if self.read_only:
            if not (state_dir / "opsagent.sqlite").is_file():
                raise StateDirError(
                    f"state directory {state_dir} cannot be written and holds no opsagent state (no opsagent.sqlite); "
                    "pass --state DIR"
                )
            self.state_dir = state_dir
        else:
            self.state_dir = ensure_writable_dir(state_dir, "state directory", "--state (or OPSAGENT_STATE)")
        self.state_arg = str(self.state_dir.resolve())  # what another process is given as --state
        self.checkpoint_path = self.state_dir / "checkpoints.sqlite"
        self._db_path = self.state_dir / "opsagent.sqlite"
        self._scrubber = at_rest.scrubber()
        if not self.read_only:
            self._initialise()

    def _initialise(self) -> None:
        """Create the tables and switch to WAL once, one process at a time.

        Switching the journal mode and creating tables take write locks that SQLite can refuse at
        once ("database is locked", no busy wait) when many processes open a fresh file together;
        a lock file serialises them. WAL is persistent, so later connections need not set it.
        """
        with open(self.state_dir / ".opsagent.sqlite.init-lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                with self._connect() as db:
                    db.execute("PRAGMA journal_mode=WAL")
                    db.executescript(_SCHEMA)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _clean(self, text: str) -> str:
        """JSON text with every string in it scrubbed, as it is stored."""
        return at_rest.scrub_json(self._scrubber, text)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        if self.read_only:  # immutable: no -wal/-shm files are made beside it (the folder is read-only)
            uri = f"{self._db_path.resolve().as_uri()}?mode=ro&immutable=1"
            db = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
        else:
            db = sqlite3.connect(self._db_path, timeout=30, isolation_level=None)
        try:
            yield db
        finally:
            db.close()

    # runs -----------------------------------------------------------------
    def checkpoint_saver(self, serde: Any) -> Any:
        """LangGraph's checkpointer on this store (a SqliteSaver on checkpoints.sqlite)."""
        from langgraph.checkpoint.sqlite import SqliteSaver

        # Many runs share one checkpoint file: wait for a writer as long as the store's tables do.
        conn = sqlite3.connect(self.checkpoint_path, check_same_thread=False, timeout=30)
        return SqliteSaver(conn, serde=serde)

    def add_run(self, spec: RunSpec, status: str = "running") -> None:
        now = time.time()
        pid = os.getpid() if status == "running" else None
        with self._connect() as db:
            db.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
                (spec.run_id, self._clean(spec.model_dump_json()), status, pid, spec.transcript, now, now),
            )

    def set_run_status(self, run_id: str, status: str, pid: int | None = None) -> None:
        with self._connect() as db:
            db.execute(
                "UPDATE runs SET status = ?, pid = ?, updated = ? WHERE run_id = ?",
                (status, pid, time.time(), run_id),
            )

    def get_run(self, run_id: str) -> RunRecord:
        with self._connect() as db:
            row = db.execute(f"SELECT {RUN_COLUMNS} FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise UnknownRun(run_id)
        return RunRecord.from_row(*row)

    def list_runs(self) -> list[RunRecord]:
        # one query: a query per run made the web inbox's full listing of 1,000 runs take ~0.3 s
        with self._connect() as db:
            rows = db.execute(f"SELECT {RUN_COLUMNS} FROM runs ORDER BY created").fetchall()
        return [RunRecord.from_row(*r) for r in rows]

    # inbox ----------------------------------------------------------------
    def post_question(self, run_id: str, question: Question) -> None:
        with self._connect() as db:
            db.execute("UPDATE questions SET status = 'withdrawn' WHERE run_id = ? AND status = 'open'", (run_id,))
            db.execute(
                "INSERT OR REPLACE INTO questions VALUES (?, ?, ?, 'open', ?)",
                (run_id, question.id, self._clean(question.model_dump_json()), question.asked_at),
            )

    def open_questions(self) -> list[tuple[str, Question]]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT run_id, payload FROM questions WHERE status = 'open' ORDER BY asked_at"
            ).fetchall()
        return [(r[0], Question.model_validate_json(r[1])) for r in rows]

    def question_status(self, run_id: str, question_id: str) -> str | None:
        with self._connect() as db:
            row = db.execute(
                "SELECT status FROM questions WHERE run_id = ? AND question_id = ?", (run_id, question_id)
            ).fetchone()
        return None if row is None else str(row[0])

    def current_question(self, run_id: str) -> Question | None:
        with self._connect() as db:
            row = db.execute("SELECT payload FROM questions WHERE run_id = ? AND status = 'open'", (run_id,)).fetchone()
        return None if row is None else Question.model_validate_json(row[0])

    def post_reply(self, run_id: str, reply: Reply) -> bool:
        """Store a reply to an open question; False when it is no longer open (single answer)."""
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute(
                "SELECT status FROM questions WHERE run_id = ? AND question_id = ?",
                (run_id, reply.question_id),
            ).fetchone()
            if row is None or row[0] != "open":
                db.execute("ROLLBACK")
                return False
            db.execute(
                "UPDATE questions SET status = 'answered' WHERE run_id = ? AND question_id = ?",
                (run_id, reply.question_id),
            )
            db.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, 0)",
                (run_id, reply.question_id, self._clean(reply.model_dump_json()), reply.at),
            )
            db.execute("COMMIT")
        return True

    def expire_question(self, run_id: str, question_id: str) -> None:
        with self._connect() as db:
            db.execute(
                "UPDATE questions SET status = 'expired' WHERE run_id = ? AND question_id = ? AND status = 'open'",
                (run_id, question_id),
            )

    def take_reply(self, run_id: str, question_id: str) -> Reply | None:
        with self._connect() as db:
            row = db.execute(
                "SELECT payload FROM replies WHERE run_id = ? AND question_id = ?", (run_id, question_id)
            ).fetchone()
        return None if row is None else Reply.model_validate_json(row[0])

    def last_reply(self, run_id: str) -> Reply | None:
        with self._connect() as db:
            row = db.execute(
                "SELECT payload FROM replies WHERE run_id = ? ORDER BY at DESC LIMIT 1", (run_id,)
            ).fetchone()
        return None if row is None else Reply.model_validate_json(row[0])

    # action journal ----------------------------------------------------------
    def journal_get(self, key: str) -> tuple[str, dict[str, Any] | None] | None:
        with self._connect() as db:
            row = db.execute("SELECT status, result FROM journal WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return str(row[0]), (json.loads(row[1]) if row[1] else None)

    def journal_start(self, key: str, run_id: str, step: int, action: dict[str, Any]) -> None:
        with self._connect() as db:
            db.execute(
                "INSERT INTO journal VALUES (?, ?, ?, ?, 'started', ?, NULL, NULL)",
                (key, run_id, step, self._clean(json.dumps(action, sort_keys=True)), time.time()),
            )

    def journal_finish(self, key: str, result: dict[str, Any]) -> None:
        with self._connect() as db:
            db.execute(
                "UPDATE journal SET status = 'finished', finished_at = ?, result = ? WHERE key = ?",
                (time.time(), self._clean(json.dumps(result)), key),
            )

    def journal_entries(self, run_id: str) -> list[tuple[str, int, str]]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT key, step, status FROM journal WHERE run_id = ? ORDER BY step", (run_id,)
            ).fetchall()
        return [(str(r[0]), int(r[1]), str(r[2])) for r in rows]

    # users (opsagent user add / opsagent serve) -------------------------------
    def _users_table(self, db: sqlite3.Connection) -> bool:
        """Whether the table is there. Created on first use so an older state directory gains it
        without a migration step; a read-only copy without it has no accounts."""
        if self.read_only:
            return (
                db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'users'").fetchone() is not None
            )
        db.execute(
            "CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY, role TEXT NOT NULL, "
            "password_hash TEXT NOT NULL, created REAL NOT NULL)"
        )
        return True

    def put_user(self, name: str, role: str, password_hash: str) -> None:
        with self._connect() as db:
            self._users_table(db)
            db.execute("INSERT OR REPLACE INTO users VALUES (?, ?, ?, ?)", (name, role, password_hash, time.time()))

    def get_user(self, name: str) -> tuple[str, str] | None:
        with self._connect() as db:
            if not self._users_table(db):
                return None
            row = db.execute("SELECT role, password_hash FROM users WHERE name = ?", (name,)).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def list_users(self) -> list[tuple[str, str]]:
        with self._connect() as db:
            if not self._users_table(db):
                return []
            rows = db.execute("SELECT name, role FROM users ORDER BY name").fetchall()
        return [(str(r[0]), str(r[1])) for r in rows]

    # the web inbox's poll: one query for what changed, not one per run --------
    def runs_updated_since(self, after: float) -> list[RunRecord]:
        """Runs added or whose status changed after `after` (a `RunRecord.updated` value)."""
        with self._connect() as db:
            rows = db.execute(f"SELECT {RUN_COLUMNS} FROM runs WHERE updated > ? ORDER BY created", (after,)).fetchall()
        return [RunRecord.from_row(*r) for r in rows]

    # leases: which process drives a run -------------------------------------------
    def claim_lease(self, run_id: str, owner: str, ttl_s: float, steal_from: str | None = None) -> bool:
        """Take (or renew) the run's lease; True when `owner` holds it now. A lease is taken over
        when it expired, or when its holder is `steal_from` (a driver known to be dead)."""
        now = time.time()
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT owner, expires FROM leases WHERE run_id = ?", (run_id,)).fetchone()
            if row is not None and row[0] not in (owner, steal_from) and row[1] >= now:
                db.execute("ROLLBACK")
                return False
            db.execute("INSERT OR REPLACE INTO leases VALUES (?, ?, ?)", (run_id, owner, now + ttl_s))
            db.execute("COMMIT")
        return True

    def renew_lease(self, run_id: str, owner: str, ttl_s: float) -> bool:
        with self._connect() as db:
            cur = db.execute(
                "UPDATE leases SET expires = ? WHERE run_id = ? AND owner = ?", (time.time() + ttl_s, run_id, owner)
            )
        return cur.rowcount == 1

    def release_lease(self, run_id: str, owner: str) -> None:
        with self._connect() as db:
            db.execute("DELETE FROM leases WHERE run_id = ? AND owner = ?", (run_id, owner))

    def lease_holder(self, run_id: str) -> str | None:
        """The owner of the run's unexpired lease, if any."""
        with self._connect() as db:
            row = db.execute(
                "SELECT owner FROM leases WHERE run_id = ? AND expires >= ?", (run_id, time.time())
            ).fetchone()
        return None if row is None else str(row[0])

    def driver_candidates(self) -> list[tuple[str, str, int | None, str | None]]:
        """(run id, status, pid, lease holder or None) of every run that is not over."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT r.run_id, r.status, r.pid, CASE WHEN l.expires >= ? THEN l.owner END FROM runs r "
                "LEFT JOIN leases l ON l.run_id = r.run_id WHERE r.status IN (?, ?, ?) ORDER BY r.created",
                (time.time(), *DRIVEN),
            ).fetchall()
        return [(str(r[0]), str(r[1]), r[2], r[3]) for r in rows]

    # what a run needs besides its rows: here files on this machine (Postgres keeps them as rows) --
    def transcript_record(self) -> TranscriptRecord | None:
        """Where the transcript is kept besides its file: nowhere, the file is the record."""
        return None

    def writable_transcript(self, spec: RunSpec) -> Path:
        """The file a driver of the run appends to."""
        return Path(spec.transcript)

    def readable_transcript(self, run_id: str) -> Path:
        """A transcript file to replay or verify the run from."""
        return Path(self.get_run(run_id).spec.transcript)

    def pull_transcript(self, run_id: str, out: Path) -> Path:
        """Write the run's transcript to `out`, its blobs beside it, exactly as recorded."""
        copy_transcript(self.readable_transcript(run_id), out)
        return out

    def keep_policies(self, spec: RunSpec) -> None:
        """Keep the run's policy files for drivers elsewhere: here they stay where they are."""

    def run_policies(self, spec: RunSpec) -> list[Path]:
        """The run's policy files as this machine can load them."""
        return [Path(p) for p in spec.policies]

    def save_target_state(self, run_id: str, data: bytes) -> None:
        """The lab lives in memory: its state, for the process that resumes the run."""
        path = self._target_state_path(run_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)  # never a half-written state for a resuming process to read

    def target_state(self, run_id: str) -> bytes | None:
        try:
            return self._target_state_path(run_id).read_bytes()
        except FileNotFoundError:
            return None

    def _target_state_path(self, run_id: str) -> Path:
        return self.state_dir / "targets" / f"{run_id}.json"


def copy_transcript(source: Path, out: Path) -> None:
    """A transcript and the blobs its events name, copied byte for byte (the file is replaced whole)."""
    try:
        data = source.read_bytes()
    except FileNotFoundError:
        raise StateDirError(
            f"the run's transcript {source} is not on this machine; copy it here or use a team state"
        ) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, out)
    source_blobs, out_blobs = blob_dir_for(source), blob_dir_for(out)
    if source_blobs.resolve() == out_blobs.resolve():
        return
    for line in data.splitlines():
        try:
            digests = json.loads(line).get("blobs") or []
        except ValueError:
            continue  # a torn line is copied as it is; verify names it
        for digest in digests:
            target = out_blobs / digest
            if not target.exists() and (source_blobs / digest).exists():
                out_blobs.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source_blobs / digest, target)
