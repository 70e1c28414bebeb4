"""A real Postgres server for the tests: Debian's `postgresql` binaries, started once per session in
a temporary directory as a non-root user, listening on 127.0.0.1 at a free port (password auth)
and on a unix socket in that directory. Each test gets a database of its own.

Skipped, with the reason, only when the binaries are not installed (`.ci/run` installs them).
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
USER, PASSWORD = "opsagent", "pg-test-pw-1"
# password over TCP (what a team's URL uses); trust on the unix socket in the server's private directory
INITDB_AUTH = ["--auth-host=scram-sha-256", "--auth-local=trust", "--no-sync", "-E", "UTF8"]


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    port: int
    root: Path
    proc: subprocess.Popen[bytes]

    def url(self, dbname: str = "postgres", password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@127.0.0.1:{self.port}/{dbname}"


def _as_user(argv: list[str]) -> list[str]:
    """initdb and postgres refuse to run as root: run them as the `postgres` user (or nobody)."""
    if os.geteuid() != 0:
        return argv
    user = "postgres" if _has_user("postgres") else "nobody"
    return ["runuser", "-u", user, "--", *argv]


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    initdb, postgres = _bin("initdb"), _bin("postgres")
    if initdb is None or postgres is None:
        pytest.skip("the Postgres server binaries (initdb, postgres) are not installed: apt-get install postgresql")
    import psycopg

    root = Path(tempfile.mkdtemp(prefix="opsagent-pg-"))
    (root / "pw").write_text(PASSWORD + "\n")
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres" if _has_user("postgres") else "nobody")
        os.chown(root, owner.pw_uid, owner.pw_gid)
        os.chown(root / "pw", owner.pw_uid, owner.pw_gid)
    data = root / "data"
    subprocess.run(
        _as_user([initdb, "-D", str(data), "-U", USER, f"--pwfile={root / 'pw'}", *INITDB_AUTH]),
        check=True,
        capture_output=True,
    )
    port = _free_port()
    settings = {
        "listen_addresses": "127.0.0.1",
        "unix_socket_directories": str(root),
        "max_connections": "400",
        "fsync": "off",  # a throwaway server: durability is not what the tests check
        "synchronous_commit": "off",
        "full_page_writes": "off",
        "shared_buffers": "32MB",
    }
    argv = [postgres, "-D", str(data), "-p", str(port)]
    for key, value in settings.items():
        argv += ["-c", f"{key}={value}"]
    log = open(root / "server.log", "wb")  # noqa: SIM115 - the server writes it until the end
    proc = subprocess.Popen(_as_user(argv), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    server = PgServer(port, root, proc)
    deadline = time.time() + 60
    while True:
        try:
            psycopg.connect(server.url(), connect_timeout=2).close()
            break
        except psycopg.OperationalError:
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("postgres did not start: " + (root / "server.log").read_text()[-2000:]) from None
            time.sleep(0.2)
    try:
        yield server
    finally:
        pid_file = data / "postmaster.pid"
        if pid_file.exists():
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGINT)  # fast shutdown
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
        shutil.rmtree(root, ignore_errors=True)


_numbers = itertools.count()


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """A fresh, empty database of this test's own."""
    import psycopg

    name = f"t{os.getpid()}_{next(_numbers)}"
    with psycopg.connect(pg_server.url(), autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    return pg_server.url(name)


CliRun = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def pg_env(tmp_path: Path, pg_url: str) -> dict[str, str]:
    """The environment of an opsagent process using this test's database."""
    (tmp_path / "transcripts").mkdir(exist_ok=True)
    return {
        **os.environ,
        "OPSAGENT_STATE": pg_url,
        "OPSAGENT_STATE_FILES": str(tmp_path / "files"),
        "OPSAGENT_TRANSCRIPTS": str(tmp_path / "transcripts"),
        "OPSAGENT_CONFIG": str(tmp_path / "no-config.yaml"),
        "COLUMNS": "200",
        "PYTHONPATH": str(REPO),
    }


@pytest.fixture
def pg_cli(tmp_path: Path, pg_env: dict[str, str]) -> CliRun:
    """`opsagent ...` as its own process on this test's database."""

    def run(
        *args: str, timeout: float = 180, extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agent.cli", *args],
            cwd=tmp_path,
            env={**pg_env, **(extra_env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            input="",
        )

    return run
