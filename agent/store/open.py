"""The store `--state` names: a directory (SQLite) or a postgresql:// URL (Postgres)."""

from __future__ import annotations

import os

from agent.store.records import STATE_ENV, is_database_url, resolve_state_dir
from agent.store.sqlite import Store


def open_store(state: str | None) -> Store:
    """The store `--state` names: a directory (SQLite, the default) or a postgresql:// URL."""
    chosen = state or os.environ.get(STATE_ENV) or ".opsagent"
    if is_database_url(chosen):
        from agent.store.postgres import PostgresStore  # psycopg is loaded only by those who use it

        return PostgresStore(chosen)
    return Store(resolve_state_dir(chosen))
