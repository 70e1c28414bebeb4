"""Sign-in sessions of `opsagent serve`, kept in the state store (SQLite or Postgres).

The cookie holds only a random token; the store keeps its SHA-256 (a copy of the database signs
no one in), the account's name, a stamp of the account as it was at sign-in (its role and
password hash), the session's CSRF token, when it began and when it was last used. A session is
over when it is revoked (sign-out, `opsagent user sessions NAME --revoke`, a password or role
change made with `opsagent user add`, the account removed), when it has been idle longer than the
idle limit, or when it is older than the absolute limit. The stamp makes a changed or re-made
account end its sessions even when no one revoked them.

The table is created on first use, in either backend, so an older state gains it unmigrated.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from agent.store import at_rest

IDLE_S = 2 * 3600.0
ABSOLUTE_S = 12 * 3600.0
SEEN_EVERY_S = 30.0  # `seen` is written at most this often: a page costs a read, not a write

_SQLITE = """
CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY, role TEXT NOT NULL,
    password_hash TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS web_sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL, stamp TEXT NOT NULL,
    csrf TEXT NOT NULL, created REAL NOT NULL, seen REAL NOT NULL, address TEXT NOT NULL,
    agent TEXT NOT NULL, flash TEXT);
CREATE INDEX IF NOT EXISTS web_sessions_name ON web_sessions (name);
"""
_POSTGRES = _SQLITE.replace(" REAL ", " DOUBLE PRECISION ")


@dataclass(frozen=True)
class Session:
    """A live session as a request sees it."""

    sid: str  # the stored id (the token's hash), never the token
    user: str
    role: str
    csrf: str
    created: float
    seen: float


@dataclass(frozen=True)
class SessionInfo:
    sid: str
    created: float
    seen: float
    address: str
    agent: str


def stamp(role: str, password_hash: str) -> str:
    """What a session remembers of its account: a new password or role gives another stamp."""
    return hashlib.sha256(f"{role}\0{password_hash}".encode()).hexdigest()[:32]


def _sid(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class SessionStore:
    """Sessions in the same database as the store's accounts (`store._connect`, either backend)."""

    def __init__(self, store: Any, *, idle_s: float = IDLE_S, absolute_s: float = ABSOLUTE_S) -> None:
        self.store, self.idle_s, self.absolute_s = store, idle_s, absolute_s
        self._pg = hasattr(store, "url")  # agent.store.postgres.PostgresStore; its rows are dicts, its marks %s
        self._scrubber = at_rest.scrubber()
        with self._db() as db:
            if not self._pg:
                db.executescript(_SQLITE)
                return
            from agent.store.postgres import _SCHEMA_LOCK

            store._take_schema_lock(db)  # servers and `opsagent user` starting together create it once
            try:
                db.execute(_POSTGRES, prepare=False)
            finally:
                db.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))

    @contextmanager
    def _db(self) -> Iterator[Any]:
        with self.store._connect() as db:
            yield db

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._db() as db:
            cursor = db.execute(sql.replace("?", "%s") if self._pg else sql, tuple(args))
            rows = cursor.fetchall() if cursor.description else []
        return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in rows]

    def _write(self, sql: str, args: Sequence[Any] = ()) -> int:
        with self._db() as db:
            return int(db.execute(sql.replace("?", "%s") if self._pg else sql, tuple(args)).rowcount)

    def create(self, name: str, role: str, password_hash: str, *, address: str = "", agent: str = "") -> str:
        """A new session for the account; the token for the cookie (shown once, stored hashed)."""
        token, now = secrets.token_urlsafe(32), time.time()
        self._write(
            "INSERT INTO web_sessions (id, name, stamp, csrf, created, seen, address, agent, flash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            (_sid(token), name, stamp(role, password_hash), secrets.token_urlsafe(24), now, now, address[:64],
             agent[:200]),
        )  # fmt: skip
        return token

    def read(self, token: str | None, now: float | None = None, *, touch: bool = True) -> Session | None:
        """The live session a cookie names, or None (unknown, revoked, expired, account changed).
        `touch`: this counts as using the session (a request does; an open event stream does not)."""
        if not token or len(token) > 200:
            return None
        now = time.time() if now is None else now
        found = self._rows(
            "SELECT s.id, s.name, s.stamp, s.csrf, s.created, s.seen, u.role, u.password_hash "
            "FROM web_sessions s LEFT JOIN users u ON u.name = s.name WHERE s.id = ?",
            (_sid(token),),
        )
        if not found:
            return None
        sid, name, kept, csrf, created, seen, role, password_hash = found[0]
        if role is None or kept != stamp(role, password_hash) or now - seen > self.idle_s:
            self.revoke(sid)  # the account changed or went, or the session lapsed: it is over for good
            return None
        if now - created > self.absolute_s:
            self.revoke(sid)
            return None
        if touch and now - seen > min(SEEN_EVERY_S, self.idle_s / 4):
            self._write("UPDATE web_sessions SET seen = ? WHERE id = ?", (now, sid))
            seen = now
        return Session(sid=sid, user=name, role=role, csrf=csrf, created=created, seen=seen)

    def revoke(self, sid: str) -> None:
        self._write("DELETE FROM web_sessions WHERE id = ?", (sid,))

    def revoke_token(self, token: str | None) -> None:
        if token:
            self.revoke(_sid(token))

    def revoke_user(self, name: str) -> int:
        """End every session of the account; how many there were."""
        return self._write("DELETE FROM web_sessions WHERE name = ?", (name,))

    def of_user(self, name: str) -> list[SessionInfo]:
        rows = self._rows(
            "SELECT id, created, seen, address, agent FROM web_sessions WHERE name = ? ORDER BY created", (name,)
        )
        return [SessionInfo(str(r[0]), float(r[1]), float(r[2]), str(r[3]), str(r[4])) for r in rows]

    def remove_account(self, name: str) -> bool:
        """Delete the account and its sessions; False when there was no such account."""
        self.revoke_user(name)
        return self._write("DELETE FROM users WHERE name = ?", (name,)) > 0

    # one note for the next page (what a reply did), kept here rather than in the URL -----------
    def set_flash(self, sid: str, text: str) -> str:
        """Keep `text` (scrubbed) for this session's next page; the key the redirect names."""
        key = secrets.token_urlsafe(8)
        clean, _ = self._scrubber.scrub_text(text)
        self._write("UPDATE web_sessions SET flash = ? WHERE id = ?", (f"{key}:{clean[:500]}", sid))
        return key

    def pop_flash(self, sid: str, key: str | None) -> str | None:
        """The note kept under `key` for this session, once; None for any other key."""
        if not key:
            return None
        rows = self._rows("SELECT flash FROM web_sessions WHERE id = ?", (sid,))
        kept = str(rows[0][0]) if rows and rows[0][0] else ""
        stored_key, _, text = kept.partition(":")
        if not stored_key or not secrets.compare_digest(stored_key, key):
            return None
        self._write("UPDATE web_sessions SET flash = NULL WHERE id = ?", (sid,))
        return text


class SessionsInMemory:
    """Where a server of a read-only state (an auditor's copy, agent.store.sqlite.Store's
    read_only) keeps its sessions: an in-memory database with the copy's accounts, since the copy
    cannot take a session row. Sign-ins last while the server runs; the copy is never written."""

    def __init__(self, store: Any) -> None:
        self._name = f"file:opsagent-sessions-{secrets.token_hex(8)}?mode=memory&cache=shared"
        self._keep = sqlite3.connect(self._name, uri=True, check_same_thread=False)  # the memory lives while open
        self._keep.executescript(_SQLITE)
        accounts = [(n, *(store.get_user(n) or ("", "")), time.time()) for n, _ in store.list_users()]
        self._keep.executemany("INSERT INTO users VALUES (?, ?, ?, ?)", accounts)
        self._keep.commit()

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self._name, uri=True, timeout=30, isolation_level=None)
        try:
            yield db
        finally:
            db.close()
