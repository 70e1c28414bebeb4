"""A throwaway Postgres server for the tests and the load benchmark.

Debian's `postgresql` binaries, started in a temporary directory as a non-root user (initdb and
postgres refuse root: as root they run as `postgres`, or `nobody`), listening on 127.0.0.1 at a
free port with password authentication, and on a unix socket in that directory only.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

USER, PASSWORD = "opsagent", "pg-test-pw-1"
# password over TCP (what a team's URL uses); trust on the unix socket in the server's private directory
INITDB_AUTH = ["--auth-host=scram-sha-256", "--auth-local=trust", "--no-sync", "-E", "UTF8"]
SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "max_connections": "400",  # every opsagent process holds a small pool: 50 runs at once and more
    "fsync": "off",  # a throwaway server: durability is not what is measured or tested
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "shared_buffers": "32MB",
}


def binaries() -> tuple[str, str] | None:
    """(initdb, postgres), or None when the server is not installed."""

    def find(name: str) -> str | None:
        found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
        return found[-1] if found else shutil.which(name)

    initdb, postgres = find("initdb"), find("postgres")
    return (initdb, postgres) if initdb and postgres else None


@dataclass
class PgServer:
    port: int
    root: Path

    def url(self, dbname: str = "postgres", password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@127.0.0.1:{self.port}/{dbname}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)


def _server_user() -> pwd.struct_passwd | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root with neither a 'postgres' nor a 'nobody' user to start Postgres as")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server() -> Iterator[PgServer]:
    """Start a server, yield it, stop it and remove its directory."""
    import psycopg

    found = binaries()
    if found is None:
        raise RuntimeError("the Postgres server binaries are not installed: apt-get install postgresql")
    initdb, postgres = found
    user = _server_user()
    as_user = ["runuser", "-u", user.pw_name, "--"] if user is not None else []
    root = Path(tempfile.mkdtemp(prefix="opsagent-pg-"))
    (root / "pw").write_text(PASSWORD + "\n")
    if user is not None:
        for path in (root, root / "pw"):
            os.chown(path, user.pw_uid, user.pw_gid)
    data = root / "data"
    subprocess.run(
        [*as_user, initdb, "-D", str(data), "-U", USER, f"--pwfile={root / 'pw'}", *INITDB_AUTH],
        check=True,
        capture_output=True,
    )
    port = _free_port()
    argv = [*as_user, postgres, "-D", str(data), "-p", str(port), "-c", f"unix_socket_directories={root}"]
    for key, value in SETTINGS.items():
        argv += ["-c", f"{key}={value}"]
    with open(root / "server.log", "wb") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    server = PgServer(port, root)
    try:
        deadline = time.time() + 60
        while True:
            try:
                psycopg.connect(server.url(), connect_timeout=2).close()
                break
            except psycopg.OperationalError:
                if proc.poll() is not None or time.time() > deadline:
                    log_text = (root / "server.log").read_text(errors="replace")[-2000:]
                    raise RuntimeError(f"postgres did not start: {log_text}") from None
                time.sleep(0.2)
        yield server
    finally:
        pid_file = data / "postmaster.pid"
        if pid_file.exists():
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGINT)  # fast shutdown
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        shutil.rmtree(root, ignore_errors=True)
