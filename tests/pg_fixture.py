"""The Postgres fixtures (import them into a test module or conftest): one real server per session
(benchmarks/pg_server.py: Debian's binaries, a temporary directory, a non-root user, 127.0.0.1 at a
free port) and a fresh database per test. Skipped, with the reason, only when the server binaries
are not installed; `.ci/run` installs them."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import pytest

from benchmarks.pg_server import PgServer, binaries, running_server

_numbers = itertools.count()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    if binaries() is None:
        pytest.skip("the Postgres server binaries (initdb, postgres) are not installed: apt-get install postgresql")
    with running_server() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """A fresh, empty database of this test's own."""
    return pg_server.create_database(f"t{os.getpid()}_{next(_numbers)}")
