"""Webhooks when a question waits, against real loopback HTTP servers (http.server in a thread).

The runs are real `opsagent run` / `opsagent resume` processes on a lab scenario that asks for
sign-off; `--approver none` leaves the question waiting, so the run ends with exit code 3
(waiting) right after posting it: what a webhook does to that exit is what is checked.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent.cli import exitcodes
from agent.notify.webhooks import Hook, Notifier, NotifyConfigError, build, parse_hooks
from agent.state import Action, Question
from agent.transcript.reader import read_events
from agent.transcript.verify import verify_transcript
from agent.transcript.writer import TranscriptWriter
from tests.opsagent_process import run_opsagent

REPO = Path(__file__).resolve().parents[2]
SCENARIO = "p2p-corruption"  # reaches its goal and asks for sign-off
TOKEN = "hf_" + "NotifyPlantedToken0123456789abcdef"


@dataclass
class Hookd:
    """A loopback webhook receiver: answers with `codes` in turn (then 200), or never when `hang`."""

    codes: list[int] = field(default_factory=list)
    hang: bool = False
    bodies: list[dict[str, Any]] = field(default_factory=list)
    received: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    url: str = ""


@pytest.fixture
def hookd() -> Iterator[Any]:
    servers: list[ThreadingHTTPServer] = []
    made: list[Hookd] = []

    def start(codes: list[int] | None = None, hang: bool = False) -> Hookd:
        state = Hookd(codes=list(codes or []), hang=hang)

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                state.bodies.append(json.loads(body))
                state.received.set()
                if state.hang:
                    state.release.wait(120)  # never answers while the test looks
                    return
                code = state.codes.pop(0) if state.codes else 200
                self.send_response(code)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        made.append(state)
        state.url = f"http://127.0.0.1:{server.server_address[1]}/hook/T000/B000/secretpath"
        return state

    yield start
    for state in made:
        state.release.set()
    for server in servers:
        server.shutdown()
        server.server_close()


def refused_url() -> str:
    """A loopback port with nothing listening: connections are refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"


def opsagent(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OPSAGENT_NOTIFY")}
    # timeout: a run that waited on a hanging webhook (an hour per request, below) would hit it
    return run_opsagent(*args, cwd=cwd, env={**clean, "PYTHONPATH": str(REPO), **(env or {})}, timeout=240)


def port(url: str) -> str:
    found = re.search(r"127\.0\.0\.1:(\d+)", url)
    assert found, url
    return found.group(1)


def notifications(transcript: Path) -> list[dict[str, Any]]:
    return [e.payload for e in read_events(transcript) if e.type == "notification"]


def test_run_posts_retries_and_never_waits_on_a_bad_hook(tmp_path: Path, hookd: Any) -> None:
    flaky = hookd(codes=[500, 503])  # two failures, then 200
    hanging = hookd(hang=True)
    refused = refused_url()
    run = opsagent(
        "run",
        f"--target=lab:{SCENARIO}",
        "--approver=none",
        "--state=st",
        "--transcripts=tr",
        "--run-id=n1",
        f"--notify={flaky.url}",
        f"--notify={hanging.url}",
        f"--notify={refused}",
        "--notify-format=generic",
        "--public-url=https://ops.example.test/",
        cwd=tmp_path,
        env={"OPSAGENT_NOTIFY_TIMEOUT": "3600"},  # a run that waited for the hanging hook would hang
    )
    assert run.returncode == exitcodes.WAITING, run.stdout + run.stderr
    # the run ended while the hanging hook still held its request unanswered
    assert hanging.received.is_set() and not hanging.release.is_set()
    assert len(flaky.bodies) == 3 and flaky.bodies[0] == flaky.bodies[1] == flaky.bodies[2]
    body = flaky.bodies[0]
    transcript = tmp_path / "tr" / "n1.jsonl"
    question = next(e.payload for e in read_events(transcript) if e.type == "question")
    assert body == {
        "event": "question_waiting",
        "run_id": "n1",
        "question_id": question["id"],
        "trigger": "goal_met",
        "question": question["question"],
        "reason": question["reason"],
        "action": None,
        "digest": None,
        "asked_at": question["asked_at"],
        "expires_at": question["expires_at"],
        "link": "https://ops.example.test/runs/n1",
        "reply": body["reply"],
    }
    assert body["reply"].startswith("opsagent reply n1 ")
    assert hanging.bodies == [body]
    records = {port(r["hook"]): r for r in notifications(transcript)}
    assert len(records) == 3
    assert records[port(flaky.url)]["status"] == "sent" and records[port(flaky.url)]["attempts"] == 3
    assert records[port(hanging.url)]["status"] == "abandoned"
    assert records[port(refused)]["status"] in ("failed", "abandoned") and records[port(refused)]["error"]
    assert "secretpath" not in transcript.read_text(), "a hook's path (its secret) is not recorded"
    assert verify_transcript(transcript).ok
    assert "notification: sent generic webhook" in run.stdout


def test_resume_posts_slack_json_with_the_thread_link(tmp_path: Path, hookd: Any) -> None:
    first = opsagent(
        "run",
        f"--target=lab:{SCENARIO}",
        "--approver=none",
        "--state=st",
        "--transcripts=tr",
        "--run-id=n2",
        cwd=tmp_path,
    )
    assert first.returncode == exitcodes.WAITING, first.stderr
    assert notifications(tmp_path / "tr" / "n2.jsonl") == [], "nothing configured, nothing sent"
    slack = hookd()
    again = opsagent(
        "resume",
        "n2",
        "--approver=none",
        "--state=st",
        cwd=tmp_path,
        env={"OPSAGENT_NOTIFY": slack.url, "OPSAGENT_NOTIFY_FORMAT": "slack", "OPSAGENT_PUBLIC_URL": "http://ops:8080"},
    )
    assert again.returncode == exitcodes.WAITING, again.stderr
    assert slack.received.wait(5)
    (body,) = slack.bodies
    assert list(body) == ["text"]
    assert "opsagent run `n2` is waiting for you (goal_met): The goal is met." in body["text"]
    assert body["text"].endswith("\n<http://ops:8080/runs/n2|Open the thread>")
    (record,) = notifications(tmp_path / "tr" / "n2.jsonl")
    assert record["status"] == "sent" and record["format"] == "slack" and record["attempts"] == 1


@pytest.mark.parametrize(
    ("args", "env", "named"),
    [
        (["--notify=ftp://example.test/hook"], {}, "--notify 'ftp://example.test/hook'"),
        (["--notify=hooks.slack.com/services/x"], {}, "--notify 'hooks.slack.com/services/x'"),
        (["--notify=http://127.0.0.1:1/h", "--notify-format=teams"], {}, "--notify-format 'teams'"),
        (["--notify=http://127.0.0.1:1/h", "--public-url=ops:8080"], {}, "--public-url 'ops:8080'"),
        ([], {"OPSAGENT_NOTIFY": "not a url"}, "OPSAGENT_NOTIFY 'not'"),
    ],
)
def test_bad_notify_settings_end_in_one_line(tmp_path: Path, args: list[str], env: dict[str, str], named: str) -> None:
    run = opsagent(
        "run",
        f"--target=lab:{SCENARIO}",
        "--approver=none",
        "--state=st",
        "--transcripts=tr",
        *args,
        cwd=tmp_path,
        env=env,
    )
    assert run.returncode == exitcodes.BAD_INPUT
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {named}"), run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "tr").exists(), "nothing ran"


def _question(text: str) -> Question:
    action = Action(tool="run_command", args={"command": f"HF_TOKEN={TOKEN} python3 -m sglang.launch_server"})
    return Question(
        id="q1-s3", trigger="policy_ask", reason="launches need approval", question=text, action=action, asked_at=1.0
    )


def test_payload_is_scrubbed_and_outcome_recorded_once(tmp_path: Path, hookd: Any) -> None:
    seen = hookd()
    notifier = Notifier(parse_hooks([seen.url], "generic"), None, backoff_s=0.01)
    with TranscriptWriter.create(tmp_path, "r", fsync=False) as writer:
        writer.emit("run_started", {"target": "local"})
        notifier.question_waiting("r", _question(f"Launch with {TOKEN}?"), writer.emit)
        notifier.close(wait_s=30)
    (body,) = seen.bodies
    assert TOKEN not in json.dumps(body) and body["link"] is None
    assert body["question"].startswith("Launch with ") and body["action"]["tool"] == "run_command"
    (record,) = notifications(tmp_path / "r.jsonl")
    assert record["status"] == "sent" and record["http_status"] == 200
    assert verify_transcript(tmp_path / "r.jsonl").ok


def test_a_client_error_is_not_retried(tmp_path: Path, hookd: Any) -> None:
    gone = hookd(codes=[404, 200])
    notifier = Notifier([Hook(gone.url, "slack")], None, backoff_s=0.01)
    records: list[dict[str, Any]] = []
    notifier.question_waiting("r", _question("ok?"), lambda _t, p: records.append(p))
    notifier.close(wait_s=30)
    assert len(gone.bodies) == 1
    assert records[0]["status"] == "failed" and records[0]["http_status"] == 404


def test_auto_format_and_config_errors() -> None:
    hooks = parse_hooks(["https://hooks.slack.com/services/A/B/C", "https://example.test/h"], "auto")
    assert [h.format for h in hooks] == ["slack", "generic"]
    assert "services" not in hooks[0].label and hooks[0].label.startswith("https://hooks.slack.com/")
    assert build([], "auto", None) is None
    with pytest.raises(NotifyConfigError, match="OPSAGENT_NOTIFY_TIMEOUT"):
        build(["https://example.test/h"], "auto", None, environ={"OPSAGENT_NOTIFY_TIMEOUT": "soon"})


def test_a_detached_run_notifies_from_its_worker(tmp_path: Path, hookd: Any) -> None:
    seen = hookd()
    run = opsagent(
        "run",
        f"--target=lab:{SCENARIO}",
        "--detach",
        "--state=st",
        "--transcripts=tr",
        "--run-id=d1",
        f"--notify={seen.url}",
        "--notify-format=slack",
        cwd=tmp_path,
    )
    try:
        assert run.returncode == exitcodes.WAITING, run.stdout + run.stderr
        assert seen.received.wait(60), "the worker process posted the webhook"
        assert "opsagent run `d1` is waiting for you (goal_met)" in seen.bodies[0]["text"]
    finally:
        stop = opsagent("reply", "d1", "stop", "--state=st", cwd=tmp_path)  # ends the waiting worker
        assert stop.returncode == 0, stop.stderr
