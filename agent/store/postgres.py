"""The state store in Postgres (`--state postgresql://USER:PASSWORD@HOST:PORT/DBNAME`).

The same tables and the same API as the SQLite store (agent.store), for a team whose runs,
inbox, action journal, users and leases live in one database that many processes and machines
share; LangGraph's checkpoints go through LangGraph's own Postgres checkpointer on the same
connection pool. Everything stored is scrubbed of secrets first, as in SQLite (agent.store.at_rest).

Everything a run needs is a row, so any machine that reaches the database can drive, replay or
verify any run: the transcript's events (each line exactly as the JSONL file has it, so the hash
chain is the file's), its blobs by content hash, the policy files by content hash with the list each
run loaded, and the lab's simulated host. Files on a machine's disk ($OPSAGENT_STATE_FILES, or a
directory per database under ~/.cache/opsagent) are a cache rebuilt from the rows.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from agent.state import Question, Reply
from agent.store import at_rest
from agent.store.records import DRIVEN, RUN_COLUMNS, RunRecord, RunSpec, StateDirError, UnknownRun, ensure_writable_dir
from agent.store.sqlite import Store
from agent.transcript.blobs import blob_dir_for
from agent.transcript.writer import TranscriptError

FILES_ENV = "OPSAGENT_STATE_FILES"
_SCHEMA_LOCK = 0x6F707361  # pg_advisory_lock key: one process at a time creates the tables
_SCHEMA_WAIT_S = 300.0  # longer than any real first setup; a stuck one is reported, not waited on forever
_NOW = "extract(epoch from clock_timestamp())"  # the database's clock: leases compare on one clock

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, spec TEXT NOT NULL, status TEXT NOT NULL, pid INTEGER,
    transcript TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, updated DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS questions (
    run_id TEXT NOT NULL, question_id TEXT NOT NULL, payload TEXT NOT NULL,
    status TEXT NOT NULL, asked_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (run_id, question_id)
);
CREATE TABLE IF NOT EXISTS replies (
    run_id TEXT NOT NULL, question_id TEXT NOT NULL, payload TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL, consumed INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run_id, question_id)
);
CREATE TABLE IF NOT EXISTS journal (
    key TEXT PRIMARY KEY, run_id TEXT NOT NULL, step INTEGER NOT NULL, action TEXT NOT NULL,
    status TEXT NOT NULL, started_at DOUBLE PRECISION NOT NULL, finished_at DOUBLE PRECISION, result TEXT
);
CREATE TABLE IF NOT EXISTS leases (
    run_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY, role TEXT NOT NULL, password_hash TEXT NOT NULL, created DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS transcript_events (
    run_id TEXT NOT NULL, seq INTEGER NOT NULL, line TEXT NOT NULL, PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS blobs (digest TEXT PRIMARY KEY, data BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS policy_files (digest TEXT PRIMARY KEY, data BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS run_policies (
    run_id TEXT NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL, digest TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
);
CREATE TABLE IF NOT EXISTS target_states (
    run_id TEXT PRIMARY KEY, data BYTEA NOT NULL, updated DOUBLE PRECISION NOT NULL
);
"""


def redact_url(url: str) -> str:
    """The URL as messages show it: the password replaced, in the user part or as a parameter."""
    url = re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)
    return re.sub(r"([?&]password=)[^&]*", r"\1***", url)


def _why(exc: Exception) -> str:
    """psycopg's reason in one line, with what to do about it."""
    text = " ".join(str(exc).split())
    text = re.sub(r"^connection failed: ", "", text)
    text = re.sub(r"connection to server at \S+ \([^)]*\), port \d+ failed: ", "", text)
    text = re.sub(r"connection to server at \S+, port \d+ failed: ", "", text)
    lowered = text.lower()
    if "password" in lowered or "authentication" in lowered:
        todo = "check the user and password in the URL"
    elif "does not exist" in lowered and "database" in lowered:
        todo = "create the database (createdb NAME) or name one that exists"
    elif "refused" in lowered or "timeout" in lowered or "could not" in lowered or "no such file" in lowered:
        todo = "check that the server runs and the host and port in the URL"
    else:
        todo = "check the URL: postgresql://USER:PASSWORD@HOST:PORT/DBNAME"
    return f"{text.split(' Is the server running')[0].rstrip('. ')}; {todo}"


def _files_dir(url: str) -> Path:
    configured = os.environ.get(FILES_ENV)
    if configured:
        return Path(configured).expanduser().resolve()
    info = psycopg.conninfo.conninfo_to_dict(url)
    where = f"{info.get('host', 'local')}-{info.get('port', '5432')}-{info.get('dbname', '')}"
    label = re.sub(r"[^A-Za-z0-9_.-]", "_", where)
    digest = hashlib.sha256(redact_url(url).encode()).hexdigest()[:8]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return (cache / "opsagent" / f"{label}-{digest}").resolve()


class PostgresStore(Store):
    """Runs, inbox, journal, leases and users in Postgres; the API of agent.store.Store."""

    pids_are_local = False  # a run's driver may be on another machine: only its lease tells

    def __init__(self, url: str, *, pool_size: int = 4) -> None:
        self.url = url
        self.state_arg = url
        self._scrubber = at_rest.scrubber()
        try:
            # One direct connection first: a bad URL, a refused connection or a wrong password
            # says so at once, in one line (a pool would only time out).
            psycopg.connect(url, connect_timeout=10).close()
        except (psycopg.Error, ValueError) as exc:
            raise StateDirError(f"cannot open the Postgres state {redact_url(url)}: {_why(exc)}") from exc
        files = _files_dir(url)
        self.state_dir = ensure_writable_dir(files, "local directory for the state's files", f"{FILES_ENV}=DIR")
        self.checkpoint_path = self.state_dir / "unused-checkpoints-are-in-postgres"
        self._pool: ConnectionPool[Any] = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
            open=False,
        )
        try:
            self._pool.open(wait=True, timeout=30)
        except PoolTimeout as exc:
            raise StateDirError(f"cannot open the Postgres state {redact_url(url)}: no connection within 30 s") from exc
        self._initialise()

    def close(self) -> None:
        self._pool.close()

    def _initialise(self) -> None:
        """The tables, and LangGraph's, created once: concurrent first opens wait on an advisory lock."""
        from langgraph.checkpoint.postgres import PostgresSaver

        with self._connect() as db:
            self._take_schema_lock(db)
            try:
                db.execute(_SCHEMA, prepare=False)
                PostgresSaver(self._pool).setup()
            finally:
                db.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))

    def _take_schema_lock(self, db: psycopg.Connection[Any]) -> None:
        """Polls for the lock rather than waiting inside pg_advisory_lock: LangGraph's setup builds
        its indexes CONCURRENTLY, which waits for every statement of the database to end, and a
        statement blocked on this lock never would while the opener holding it builds them."""
        deadline = time.monotonic() + _SCHEMA_WAIT_S
        while True:
            row = db.execute("SELECT pg_try_advisory_lock(%s) AS taken", (_SCHEMA_LOCK,)).fetchone()
            if row is not None and row["taken"]:
                return
            if time.monotonic() > deadline:
                raise StateDirError(
                    f"cannot open the Postgres state {redact_url(self.url)}: another process has been creating"
                    f" its tables for {_SCHEMA_WAIT_S:.0f} s; check it (pg_stat_activity) and try again"
                )
            time.sleep(0.05)

    @contextmanager
    def _connect(self) -> Iterator[psycopg.Connection[Any]]:  # type: ignore[override]
        try:
            with self._pool.connection() as db:
                yield db
        except psycopg.OperationalError as exc:
            raise StateDirError(f"lost the Postgres state {redact_url(self.url)}: {_why(exc)}") from exc

    def _one(self, sql: str, args: tuple[Any, ...] = ()) -> dict[str, Any] | None:
        with self._connect() as db:
            row: dict[str, Any] | None = db.execute(sql, args).fetchone()
        return row

    def _all(self, sql: str, args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        with self._connect() as db:
            rows: list[dict[str, Any]] = db.execute(sql, args).fetchall()
        return rows

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> int:
        with self._connect() as db:
            return db.execute(sql, args).rowcount

    def checkpoint_saver(self, serde: Any) -> Any:
        from langgraph.checkpoint.postgres import PostgresSaver

        return PostgresSaver(self._pool, serde=serde)

    # runs -----------------------------------------------------------------
    def add_run(self, spec: RunSpec, status: str = "running") -> None:
        now = time.time()
        pid = os.getpid() if status == "running" else None
        self._run(
            "INSERT INTO runs VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (spec.run_id, self._clean(spec.model_dump_json()), status, pid, spec.transcript, now, now),
        )

    def set_run_status(self, run_id: str, status: str, pid: int | None = None) -> None:
        self._run(
            "UPDATE runs SET status = %s, pid = %s, updated = %s WHERE run_id = %s", (status, pid, time.time(), run_id)
        )

    def get_run(self, run_id: str) -> RunRecord:
        row = self._one(f"SELECT {RUN_COLUMNS} FROM runs WHERE run_id = %s", (run_id,))
        if row is None:
            raise UnknownRun(run_id)
        return RunRecord.from_row(**row)

    def list_runs(self) -> list[RunRecord]:
        return [RunRecord.from_row(**r) for r in self._all(f"SELECT {RUN_COLUMNS} FROM runs ORDER BY created")]

    def runs_updated_since(self, after: float) -> list[RunRecord]:
        """Runs added or whose status changed after `after` (the web inbox's one-query poll)."""
        rows = self._all(f"SELECT {RUN_COLUMNS} FROM runs WHERE updated > %s ORDER BY created", (after,))
        return [RunRecord.from_row(**r) for r in rows]

    # inbox ----------------------------------------------------------------
    def post_question(self, run_id: str, question: Question) -> None:
        with self._connect() as db, db.transaction():
            db.execute("UPDATE questions SET status = 'withdrawn' WHERE run_id = %s AND status = 'open'", (run_id,))
            db.execute(
                "INSERT INTO questions VALUES (%s, %s, %s, 'open', %s) ON CONFLICT (run_id, question_id) "
                "DO UPDATE SET payload = EXCLUDED.payload, status = 'open', asked_at = EXCLUDED.asked_at",
                (run_id, question.id, self._clean(question.model_dump_json()), question.asked_at),
            )

    def open_questions(self) -> list[tuple[str, Question]]:
        rows = self._all("SELECT run_id, payload FROM questions WHERE status = 'open' ORDER BY asked_at")
        return [(r["run_id"], Question.model_validate_json(r["payload"])) for r in rows]

    def question_status(self, run_id: str, question_id: str) -> str | None:
        row = self._one("SELECT status FROM questions WHERE run_id = %s AND question_id = %s", (run_id, question_id))
        return None if row is None else str(row["status"])

    def current_question(self, run_id: str) -> Question | None:
        row = self._one("SELECT payload FROM questions WHERE run_id = %s AND status = 'open'", (run_id,))
        return None if row is None else Question.model_validate_json(row["payload"])

    def post_reply(self, run_id: str, reply: Reply) -> bool:
        """Store a reply to an open question; False when it is no longer open (single answer).

        The conditional UPDATE is the whole rule: of two transactions answering at once, the
        second waits on the row lock, then finds the question no longer open and changes nothing."""
        with self._connect() as db, db.transaction():
            taken = db.execute(
                "UPDATE questions SET status = 'answered' WHERE run_id = %s AND question_id = %s AND status = 'open'",
                (run_id, reply.question_id),
            ).rowcount
            if taken != 1:
                return False
            db.execute(
                "INSERT INTO replies VALUES (%s, %s, %s, %s, 0) ON CONFLICT (run_id, question_id) "
                "DO UPDATE SET payload = EXCLUDED.payload, at = EXCLUDED.at",
                (run_id, reply.question_id, self._clean(reply.model_dump_json()), reply.at),
            )
        return True

    def expire_question(self, run_id: str, question_id: str) -> None:
        self._run(
            "UPDATE questions SET status = 'expired' WHERE run_id = %s AND question_id = %s AND status = 'open'",
            (run_id, question_id),
        )

    def take_reply(self, run_id: str, question_id: str) -> Reply | None:
        row = self._one("SELECT payload FROM replies WHERE run_id = %s AND question_id = %s", (run_id, question_id))
        return None if row is None else Reply.model_validate_json(row["payload"])

    def last_reply(self, run_id: str) -> Reply | None:
        row = self._one("SELECT payload FROM replies WHERE run_id = %s ORDER BY at DESC LIMIT 1", (run_id,))
        return None if row is None else Reply.model_validate_json(row["payload"])

    # action journal ----------------------------------------------------------
    def journal_get(self, key: str) -> tuple[str, dict[str, Any] | None] | None:
        row = self._one("SELECT status, result FROM journal WHERE key = %s", (key,))
        if row is None:
            return None
        return str(row["status"]), (json.loads(row["result"]) if row["result"] else None)

    def journal_start(self, key: str, run_id: str, step: int, action: dict[str, Any]) -> None:
        self._run(
            "INSERT INTO journal VALUES (%s, %s, %s, %s, 'started', %s, NULL, NULL)",
            (key, run_id, step, self._clean(json.dumps(action, sort_keys=True)), time.time()),
        )

    def journal_finish(self, key: str, result: dict[str, Any]) -> None:
        self._run(
            "UPDATE journal SET status = 'finished', finished_at = %s, result = %s WHERE key = %s",
            (time.time(), self._clean(json.dumps(result)), key),
        )

    def journal_entries(self, run_id: str) -> list[tuple[str, int, str]]:
        rows = self._all("SELECT key, step, status FROM journal WHERE run_id = %s ORDER BY step", (run_id,))
        return [(str(r["key"]), int(r["step"]), str(r["status"])) for r in rows]

    # leases -------------------------------------------------------------------
    def claim_lease(self, run_id: str, owner: str, ttl_s: float, steal_from: str | None = None) -> bool:
        row = self._one(
            f"INSERT INTO leases VALUES (%s, %s, {_NOW} + %s) ON CONFLICT (run_id) DO UPDATE "
            f"SET owner = EXCLUDED.owner, expires = EXCLUDED.expires "
            f"WHERE leases.expires < {_NOW} OR leases.owner = EXCLUDED.owner OR leases.owner = %s RETURNING owner",
            (run_id, owner, ttl_s, steal_from),
        )
        return row is not None

    def renew_lease(self, run_id: str, owner: str, ttl_s: float) -> bool:
        return (
            self._run(
                f"UPDATE leases SET expires = {_NOW} + %s WHERE run_id = %s AND owner = %s", (ttl_s, run_id, owner)
            )
            == 1
        )

    def release_lease(self, run_id: str, owner: str) -> None:
        self._run("DELETE FROM leases WHERE run_id = %s AND owner = %s", (run_id, owner))

    def lease_holder(self, run_id: str) -> str | None:
        row = self._one(f"SELECT owner FROM leases WHERE run_id = %s AND expires >= {_NOW}", (run_id,))
        return None if row is None else str(row["owner"])

    def driver_candidates(self) -> list[tuple[str, str, int | None, str | None]]:
        rows = self._all(
            f"SELECT r.run_id, r.status, r.pid, CASE WHEN l.expires >= {_NOW} THEN l.owner END AS holder "
            "FROM runs r LEFT JOIN leases l ON l.run_id = r.run_id WHERE r.status IN (%s, %s, %s) ORDER BY r.created",
            DRIVEN,
        )
        return [(str(r["run_id"]), str(r["status"]), r["pid"], r["holder"]) for r in rows]

    # users (the web server's accounts) ------------------------------------------------
    def put_user(self, name: str, role: str, password_hash: str) -> None:
        self._run(
            "INSERT INTO users VALUES (%s, %s, %s, %s) ON CONFLICT (name) DO UPDATE "
            "SET role = EXCLUDED.role, password_hash = EXCLUDED.password_hash, created = EXCLUDED.created",
            (name, role, password_hash, time.time()),
        )

    def get_user(self, name: str) -> tuple[str, str] | None:
        row = self._one("SELECT role, password_hash FROM users WHERE name = %s", (name,))
        return None if row is None else (str(row["role"]), str(row["password_hash"]))

    def list_users(self) -> list[tuple[str, str]]:
        return [(str(r["name"]), str(r["role"])) for r in self._all("SELECT name, role FROM users ORDER BY name")]

    # what a run needs besides its rows: rows too, so another machine can drive or audit it --------
    def transcript_record(self) -> PostgresStore:
        return self

    def put_event(self, run_id: str, seq: int, line: str) -> None:
        try:
            self._run("INSERT INTO transcript_events VALUES (%s, %s, %s)", (run_id, seq, line))
        except psycopg.errors.UniqueViolation:
            raise TranscriptError(
                f"event {seq} of run {run_id}'s transcript is already recorded: two processes drove the run"
            ) from None

    def put_blob(self, digest: str, data: bytes) -> None:
        self._run("INSERT INTO blobs VALUES (%s, %s) ON CONFLICT (digest) DO NOTHING", (digest, data))

    def writable_transcript(self, spec: RunSpec) -> Path:
        """The file this machine's driver appends to, rebuilt from the rows first: the run's own
        path where this machine can write it (the machine that started it), else the local cache."""
        own = Path(spec.transcript)
        if not self._has_events(spec.run_id):
            if own.exists():
                return own  # a run whose events were not kept as rows (started by an earlier opsagent)
            empty = self._cached(spec.run_id)  # killed before its first event: it starts here
            empty.parent.mkdir(parents=True, exist_ok=True)
            empty.touch()
            return empty
        path = own if own.parent.is_dir() and os.access(own.parent, os.W_OK) else self._cached(spec.run_id)
        self.pull_transcript(spec.run_id, path)
        return path

    def readable_transcript(self, run_id: str) -> Path:
        if not self._has_events(run_id):
            own = Path(self.get_run(run_id).spec.transcript)
            if own.exists():
                return own
        return self.pull_transcript(run_id, self._cached(run_id))

    def _has_events(self, run_id: str) -> bool:
        return self._one("SELECT 1 AS found FROM transcript_events WHERE run_id = %s LIMIT 1", (run_id,)) is not None

    def pull_transcript(self, run_id: str, out: Path) -> Path:
        """The recorded events, byte for byte as the JSONL file, and the blobs they name beside it."""
        rows = self._all("SELECT line FROM transcript_events WHERE run_id = %s ORDER BY seq", (run_id,))
        if not rows:
            self.get_run(run_id)  # an unknown run says so
            raise StateDirError(f"run {run_id} has no transcript events in {redact_url(self.url)} yet")
        lines = [str(r["line"]) for r in rows]
        tmp = out.with_name(f".{out.name}.{os.getpid()}.pulled")
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        blobs = blob_dir_for(out)
        wanted = {d for line in lines for d in json.loads(line).get("blobs") or [] if not (blobs / d).exists()}
        if wanted:
            blobs.mkdir(parents=True, exist_ok=True)
            for row in self._all("SELECT digest, data FROM blobs WHERE digest = ANY(%s)", (sorted(wanted),)):
                (blobs / str(row["digest"])).write_bytes(bytes(row["data"]))
        os.replace(tmp, out)
        return out

    def _cached(self, run_id: str) -> Path:
        return self.state_dir / "transcripts" / f"{run_id}.jsonl"

    def keep_policies(self, spec: RunSpec) -> None:
        """The run's policy files, by content hash: a driver on another machine loads these bytes."""
        with self._connect() as db, db.transaction():
            for position, name in enumerate(spec.policies):
                try:
                    data = Path(name).read_bytes()
                except OSError as exc:
                    raise StateDirError(f"cannot read the policy file {name} ({exc.strerror})") from None
                digest = hashlib.sha256(data).hexdigest()
                db.execute("INSERT INTO policy_files VALUES (%s, %s) ON CONFLICT (digest) DO NOTHING", (digest, data))
                db.execute(
                    "INSERT INTO run_policies VALUES (%s, %s, %s, %s) ON CONFLICT (run_id, position) DO NOTHING",
                    (spec.run_id, position, Path(name).name, digest),
                )

    def run_policies(self, spec: RunSpec) -> list[Path]:
        """The policy files the run started with, written from the rows into this machine's cache
        (a run kept before the rows existed loads its paths as they are)."""
        rows = self._all(
            "SELECT p.name, p.digest, f.data FROM run_policies p JOIN policy_files f ON f.digest = p.digest "
            "WHERE p.run_id = %s ORDER BY p.position",
            (spec.run_id,),
        )
        if not rows:
            return [Path(p) for p in spec.policies]
        paths = []
        for row in rows:
            path = self.state_dir / "policies" / str(row["digest"]) / str(row["name"])
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
                tmp.write_bytes(bytes(row["data"]))
                os.replace(tmp, path)
            paths.append(path)
        return paths

    def save_target_state(self, run_id: str, data: bytes) -> None:
        self._run(
            "INSERT INTO target_states VALUES (%s, %s, %s) ON CONFLICT (run_id) DO UPDATE "
            "SET data = EXCLUDED.data, updated = EXCLUDED.updated",
            (run_id, data, time.time()),
        )

    def target_state(self, run_id: str) -> bytes | None:
        row = self._one("SELECT data FROM target_states WHERE run_id = %s", (run_id,))
        return None if row is None else bytes(row["data"])
