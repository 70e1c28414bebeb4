"""Sessions in the state store, on real SQLite and real Postgres: a state made before sessions
existed gains their table on first use and keeps its accounts; a session ends when revoked, when
its account's password or role changes or the account goes, when idle too long, when too old."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agent.store.open import open_store
from agent.store.sessions import SessionStore
from agent.store.sqlite import Store
from agent.store.users import add_user, authenticate_account
from tests.pg_fixture import pg_server, pg_url  # noqa: F401  (fixtures)


@pytest.fixture(params=["sqlite", "postgres"])
def old_state(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """A state as the store alone makes it (no sessions table), with an account in it."""
    if request.param == "sqlite":
        store = open_store(str(tmp_path / "state"))
        assert store.list_users() == []  # the users table, made the old way
        with sqlite3.connect(tmp_path / "state" / "opsagent.sqlite") as db:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "web_sessions" not in tables and "users" in tables
    else:
        monkeypatch.setenv("OPSAGENT_STATE_FILES", str(tmp_path / "files"))
        store = open_store(request.getfixturevalue("pg_url"))
        with store._connect() as db:
            found = db.execute("SELECT to_regclass('web_sessions') AS t").fetchone()
        assert found["t"] is None
    add_user(store, "alice", "operator", "first-password")
    return store


def _sign_in(sessions: SessionStore, store: Store, password: str = "first-password") -> str:
    account = authenticate_account(store, "alice", password)
    assert account is not None
    return sessions.create("alice", *account, address="127.0.0.1", agent="test")


def test_an_old_state_gains_sessions_and_they_end_when_they_must(old_state: Store) -> None:
    store = old_state
    sessions = SessionStore(store)
    assert store.get_user("alice") is not None  # the accounts made before are kept

    token = _sign_in(sessions, store)
    session = sessions.read(token)
    assert session is not None and (session.user, session.role) == ("alice", "operator")
    assert sessions.read(token + "x") is None
    assert [i.address for i in sessions.of_user("alice")] == ["127.0.0.1"]

    sessions.revoke_token(token)  # signing out
    assert sessions.read(token) is None

    token = _sign_in(sessions, store)
    add_user(store, "alice", "operator", "second-password")  # a new password, nobody revoked anything
    assert sessions.read(token) is None

    token = _sign_in(sessions, store, "second-password")
    add_user(store, "alice", "admin", "second-password")  # the same password, another role
    assert sessions.read(token) is None

    token = _sign_in(sessions, store, "second-password")
    assert sessions.remove_account("alice") and sessions.read(token) is None
    assert store.get_user("alice") is None and sessions.of_user("alice") == []
    add_user(store, "alice", "admin", "second-password")  # made again: the old token stays dead
    assert sessions.read(token) is None

    short = SessionStore(store, idle_s=60, absolute_s=300)
    token = _sign_in(short, store, "second-password")
    created = short.read(token)
    assert created is not None
    assert short.read(token, now=created.created + 50) is not None  # used within the idle limit
    assert short.read(token, now=created.created + 100) is not None  # 50 s after its last use
    assert short.read(token, now=created.created + 170) is None  # idle 70 s
    token = _sign_in(short, store, "second-password")
    began = short.read(token)
    assert began is not None
    for later in range(50, 300, 50):
        assert short.read(token, now=began.created + later) is not None
    assert short.read(token, now=began.created + 301) is None  # too old, however busy

    token = _sign_in(sessions, store, "second-password")
    live = sessions.read(token)
    assert live is not None
    key = sessions.set_flash(live.sid, "reply recorded; set HF_TOKEN=hf_FlashSecret0123456789abcdefABCDE")
    assert sessions.pop_flash(live.sid, "another-key") is None
    note = sessions.pop_flash(live.sid, key)
    assert note is not None and note.startswith("reply recorded") and "hf_FlashSecret" not in note
    assert sessions.pop_flash(live.sid, key) is None  # once
