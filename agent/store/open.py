"""The store `--state` names: a directory (SQLite) or a postgresql:// URL (Postgres)."""

from __future__ import annotations

import os

from agent.store.records import STATE_ENV, is_database_url, resolve_state_dir
from agent.store.sqlite import Store


def open_store(state: str | None, read_only: bool = False) -> Store:
    """The store `--state` names: a directory (SQLite, the default) or a postgresql:// URL.
    `read_only`: the command only reads, so a directory it cannot write is opened as it is."""
    chosen = state or os.environ.get(STATE_ENV) or ".opsagent"
    if is_database_url(chosen):
        from agent.store.postgres import PostgresStore  # psycopg is loaded only by those who use it

        return PostgresStore(chosen)
    return Store(resolve_state_dir(chosen), read_only=read_only)
