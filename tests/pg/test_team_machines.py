"""A team across machines: nothing shared but the database URL.

Each "machine" is its own working directory and HOME (so its own cache of the state's files, and
no OPSAGENT_STATE_FILES): A queues a run with a policy file only A has, and A's worker SIGKILLs
itself mid-launch (`OPSAGENT_CRASH_AFTER_EVENT`, agent/transcript/writer.py); A's whole directory
is then deleted, so nothing on its disk can help. B's worker takes the run over when A's lease
expires and drives it to the end, answered from C. D, a fourth directory, verifies, replays and
exports the run by its id, and pulls the transcript, which verifies offline byte for byte.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import psycopg

from agent.store.open import open_store
from agent.transcript.reader import read_events
from agent.transcript.verify import verify_transcript
from tests.opsagent_process import REPO, CliRun, run_opsagent
from tests.pg.test_runs_pg import LAUNCH_STARTED, SCENARIO, _answer_until_over

A_ONLY_POLICY = """\
version: 1
description: an overlay that lives only on machine A's disk
rules:
  - id: a-only-no-halt
    decision: deny
    reason: machine A's own rule
    match:
      program: [halt]
"""


def _machine(root: Path, name: str, url: str) -> tuple[Path, dict[str, str]]:
    where = root / name
    (where / "home").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPSAGENT_", "XDG_"))}
    env.update(
        HOME=str(where / "home"),
        OPSAGENT_STATE=url,
        OPSAGENT_TRANSCRIPTS=str(where / "transcripts"),
        OPSAGENT_CONFIG=str(where / "no-config.yaml"),
        PYTHONPATH=str(REPO),
        COLUMNS="200",
        OPSAGENT_LEASE_S="3",
    )
    return where, env


def _cli_on(where: Path, env: dict[str, str]) -> CliRun:
    def run(
        *args: str, timeout: float = 180, extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return run_opsagent(*args, cwd=where, env={**env, **(extra_env or {})}, timeout=timeout)

    return run


def _worker(where: Path, env: dict[str, str], extra: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "worker", "--poll", "0.2"],
        cwd=where,
        env={**env, **(extra or {})},
        stdin=subprocess.DEVNULL,
        stdout=open(where.parent / f"{where.name}-worker.log", "wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def test_a_run_started_on_one_machine_is_finished_on_another_and_audited_on_a_third(
    tmp_path: Path, pg_url: str
) -> None:
    a, env_a = _machine(tmp_path, "a", pg_url)
    b, env_b = _machine(tmp_path, "b", pg_url)
    c, env_c = _machine(tmp_path, "c", pg_url)
    d, env_d = _machine(tmp_path, "d", pg_url)
    policy = a / "a-only.yaml"
    policy.write_text(A_ONLY_POLICY)
    queued = _cli_on(a, env_a)("run", "--target", SCENARIO, "--queue", "--run-id", "t1", "--policy", str(policy))
    assert queued.returncode == 0, queued.stdout + queued.stderr

    store = open_store(pg_url)
    answered: list[str] = []
    answering = threading.Thread(target=lambda: answered.extend(_answer_until_over(_cli_on(c, env_c), store, "t1")))
    answering.start()  # C answers every question, whoever drives the run
    worker_a = _worker(a, env_a, {"OPSAGENT_CRASH_AFTER_EVENT": str(LAUNCH_STARTED)})
    worker_b: subprocess.Popen[bytes] | None = None
    try:
        assert worker_a.wait(timeout=240) == -signal.SIGKILL, (tmp_path / "a-worker.log").read_text()[-3000:]
        shutil.rmtree(a)  # nothing on A's disk may be needed from here on
        assert store.lease_holder("t1") is not None  # A's lease has not expired yet: B waits for it
        worker_b = _worker(b, env_b)
        answering.join(timeout=300)
    finally:
        for worker in (worker_a, worker_b):
            if worker is not None and worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
                worker.wait(timeout=60)
    assert worker_b is not None and not answering.is_alive()
    log_b = (tmp_path / "b-worker.log").read_text()
    assert "resuming run t1 (its driver is gone)" in log_b, log_b[-3000:]
    assert store.get_run("t1").status == "finished", log_b[-3000:]
    assert answered[-1] in ("goal_met", "gave_up"), answered  # C answered up to the sign-off

    cli_d = _cli_on(d, env_d)
    verified = cli_d("verify", "t1")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("ok: ")
    pulled = cli_d("transcript", "pull", "t1", "-o", str(d / "t1.jsonl"))
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    events = list(read_events(d / "t1.jsonl"))
    assert verify_transcript(d / "t1.jsonl").ok
    resumed = [e.payload["pid"] for e in events if e.type == "run_resumed"]
    # A resumed it after each answer until it died; B from then on
    assert set(resumed) == {worker_a.pid, worker_b.pid} and resumed[-1] == worker_b.pid, resumed
    started = events[0].payload
    assert [p["sha256"] for p in started["policies"]][-1:] and any(
        p["path"].endswith("a-only.yaml") for p in started["policies"]
    )
    # the byte-for-byte record: B's own copy of the transcript is the pulled file
    cached = list((b / "home" / ".cache" / "opsagent").rglob("t1.jsonl"))
    assert len(cached) == 1 and cached[0].read_bytes() == (d / "t1.jsonl").read_bytes()
    # and B's gate loaded A's overlay from the database: its rule is in force there
    overlays = list((b / "home" / ".cache" / "opsagent").rglob("a-only.yaml"))
    assert len(overlays) == 1 and overlays[0].read_text() == A_ONLY_POLICY
    replay = cli_d("replay", "t1", "--export", str(d / "audit.html"))
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "t1" in (d / "audit.html").read_text()


def test_a_transcript_record_in_the_database_names_a_tampered_pull(tmp_path: Path, pg_url: str) -> None:
    """The pulled file is the record: an edit to it is caught offline, naming the event."""
    m, env = _machine(tmp_path, "m", pg_url)
    done = _cli_on(m, env)("run", "--target", SCENARIO, "--approver", "scripted", "--run-id", "p1")
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr
    shutil.rmtree(m / "transcripts")
    n, env_n = _machine(tmp_path, "n", pg_url)
    out = n / "p1.jsonl"
    assert _cli_on(n, env_n)("transcript", "pull", "p1", "-o", str(out)).returncode == 0
    lines = out.read_bytes().splitlines(keepends=True)
    lines[3] = lines[3].replace(b'"seq":3', b'"seq":3 ', 1)
    out.write_bytes(b"".join(lines))
    bad = _cli_on(n, env_n)("verify", str(out))
    assert bad.returncode == 1 and "seq 3" in bad.stdout, bad.stdout
    again = _cli_on(n, env_n)("verify", "p1")  # the database's record is untouched
    assert again.returncode == 0, again.stdout + again.stderr


def test_pull_of_an_unknown_run_and_a_bad_output_name_are_one_line_errors(tmp_path: Path, pg_url: str) -> None:
    m, env = _machine(tmp_path, "m", pg_url)
    cli = _cli_on(m, env)
    unknown = cli("transcript", "pull", "nope", "-o", str(m / "x.jsonl"))
    assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1, unknown.stderr
    assert "no run 'nope'" in unknown.stderr
    badname = cli("transcript", "pull", "nope", "-o", str(m / "x.txt"))
    assert badname.returncode == 2 and ".jsonl" in badname.stderr


def _parts(url: str) -> tuple[str, str, str, str]:
    info = psycopg.conninfo.conninfo_to_dict(url)
    return str(info["user"]), str(info["password"]), str(info["port"]), str(info["dbname"])


def test_connection_settings_the_postgres_way_and_no_password_in_sight(tmp_path: Path, pg_url: str) -> None:
    user, password, port, db = _parts(pg_url)
    m, env = _machine(tmp_path, "m", pg_url)
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"127.0.0.1:{port}:{db}:{user}:{password}\n")
    pgpass.chmod(0o600)
    services = tmp_path / "pg_service.conf"
    services.write_text(f"[team]\nhost=127.0.0.1\nport={port}\ndbname={db}\nuser={user}\nsslmode=disable\n")
    quiet = {**env, "PGPASSFILE": str(pgpass), "PGSERVICEFILE": str(services)}
    quiet.pop("OPSAGENT_STATE")
    cli = _cli_on(m, quiet)
    # a URL without its password (the password file has it), with sslmode; and a service file
    for state in (f"postgresql://{user}@127.0.0.1:{port}/{db}?sslmode=disable", "postgresql:///?service=team"):
        shown = cli("inbox", "--json", "--state", state)
        assert shown.returncode == 0 and shown.stdout.strip() == "[]", (state, shown.stdout + shown.stderr)
    # sslmode that this server cannot give: one line that says so, and never the password
    refused = cli("inbox", "--state", f"{pg_url}?sslmode=require")
    assert refused.returncode != 0 and refused.stderr.count("\n") == 1, refused.stderr
    assert "SSL" in refused.stderr and password not in refused.stderr and "Traceback" not in refused.stderr

    # a detached run with the password in OPSAGENT_STATE: not in its worker's argv, log or transcript
    started = _cli_on(m, env)("run", "--target", SCENARIO, "--detach", "--run-id", "pw1", "--approver", "inbox")
    assert started.stdout.strip().splitlines()[-1] == "pw1", started.stdout + started.stderr
    store = open_store(pg_url)
    try:
        pid = store.get_run("pw1").pid
        if pid:
            with contextlib.suppress(FileNotFoundError):
                assert password.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
        assert password not in started.stdout + started.stderr
        logs = list((m / "home" / ".cache" / "opsagent").rglob("*.log"))
        assert logs and all(password not in log.read_text(errors="replace") for log in logs)
        out = m / "pw1.jsonl"
        assert _cli_on(m, env)("transcript", "pull", "pw1", "-o", str(out)).returncode == 0
        assert password not in out.read_text()
    finally:
        record = store.get_run("pw1")
        if record.pid and record.status not in ("finished", "stopped", "failed"):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(record.pid, signal.SIGKILL)
