"""The real pieces the web tests drive: a state with accounts, `opsagent serve` as its own process
on a free loopback port, lab runs that wait in the inbox, and a small cookie-keeping HTTP client."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from tests.opsagent_process import run_opsagent

REPO = Path(__file__).resolve().parents[2]

# A team rule for the tests: every SGLang launch waits for an operator's approval, so a lab run
# asks a question with an action (the exact launch command) before it continues.
ASK_LAUNCH = """\
version: 1
description: launches need approval (web tests)
default: allow
rules:
  - id: launch-needs-approval
    decision: ask
    reason: this team approves every server launch
    match:
      program: [python3]
      args_regex: 'sglang\\.launch_server .*--model-path'
"""

PASSWORDS = {"alice": "alice-pw-1", "victor": "victor-pw-2"}


@dataclass
class Workspace:
    root: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def transcripts(self) -> Path:
        return self.root / "transcripts"

    @property
    def policy(self) -> Path:
        return self.root / "ask-launch.yaml"

    def cli(self, *args: str, input: str = "", timeout: float = 180) -> subprocess.CompletedProcess[str]:
        return run_opsagent(*args, cwd=self.root, env=self.env, input=input, timeout=timeout)

    def start_waiting_run(self, run_id: str, scenario: str = "healthy-host") -> None:
        """A lab run, driven by its own detached process, that waits on the launch's approval."""
        done = self.cli(
            "run", "--target", f"lab:{scenario}", "--policy", str(self.policy), "--approver", "inbox",
            "--detach", "--run-id", run_id,
        )  # fmt: skip
        assert done.returncode == 3, done.stdout + done.stderr  # 3: waiting for an answer


def make_workspace(root: Path) -> Workspace:
    ws = Workspace(root)
    for d in (ws.state, ws.transcripts):
        d.mkdir(parents=True, exist_ok=True)
    ws.policy.write_text(ASK_LAUNCH)
    ws.env = {
        **os.environ,
        "OPSAGENT_STATE": str(ws.state),
        "OPSAGENT_TRANSCRIPTS": str(ws.transcripts),
        "OPSAGENT_CONFIG": str(root / "no-config.yaml"),  # no model: the runbook decides
        "PYTHONPATH": str(REPO),
        "COLUMNS": "200",
        # a secret in the server's environment: no page may ever show it
        "HF_TOKEN": "hf_WebTestSecretTokenValue1234567890abcd",
    }
    ws.env.pop("OPSAGENT_MODEL", None)
    for name, role in (("alice", "operator"), ("victor", "viewer")):
        added = ws.cli("user", "add", name, "--role", role, "--password-stdin", input=PASSWORDS[name] + "\n")
        assert added.returncode == 0, added.stderr
    return ws


def stop_drivers(ws: Workspace) -> None:
    """End the processes still driving the workspace's runs (a run waiting on a question waits for
    a day): each was started by the test, detached, and is named by its run's pid."""
    from agent.store.records import process_alive
    from agent.store.sqlite import Store

    for record in Store(ws.state).list_runs():
        if record.pid is not None and process_alive(record.pid):
            os.kill(record.pid, signal.SIGTERM)


@dataclass
class Server:
    proc: subprocess.Popen[str]
    base: str

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def start_server(ws: Workspace, *args: str, stderr: Path | None = None) -> Server:
    """`args`: more flags for `opsagent serve`; `stderr`: a file for its standard error (its log)."""
    err = open(stderr, "w") if stderr is not None else subprocess.DEVNULL  # noqa: SIM115  (the server's lifetime)
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "serve", "--port", "0", "--transcripts", str(ws.transcripts), *args],
        cwd=ws.root,
        env=ws.env,
        stdout=subprocess.PIPE,
        stderr=err,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # "opsagent serve: http://127.0.0.1:PORT/ (state ...)"
    match = re.search(r"http://127\.0\.0\.1:\d+", line)
    assert match, f"no address in {line!r}"
    base = match.group(0)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            Client(base).get("/healthz")
            return Server(proc, base)
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("the server did not answer /healthz")


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: str
    set_cookies: list[str] = field(default_factory=list)


class Client:
    """HTTP/1.1 over loopback that keeps the cookies a browser would send back."""

    def __init__(self, base: str, headers: dict[str, str] | None = None) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.cookies: dict[str, str] = {}
        self.headers = dict(headers or {})  # sent with every request (a Host, a proxy's X-Forwarded-*)

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> Answer:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}
        headers.update(self.headers)
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        text = resp.read().decode()
        for name, value in resp.getheaders():
            if name.lower() == "set-cookie":
                key, _, rest = value.partition("=")
                val = rest.split(";", 1)[0]
                if val in ('""', "") or "Max-Age=0" in value:
                    self.cookies.pop(key, None)
                else:
                    self.cookies[key] = val
        conn.close()
        set_cookies = [v for k, v in resp.getheaders() if k.lower() == "set-cookie"]
        return Answer(resp.status, {k.lower(): v for k, v in resp.getheaders()}, text, set_cookies)

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def post(self, path: str, form: dict[str, str]) -> Answer:
        return self.request("POST", path, form)

    def login(self, name: str, password: str | None = None) -> Answer:
        page = self.get("/login")
        token = hidden(page.body, "csrf")
        return self.post("/login", {"csrf": token, "name": name, "password": password or PASSWORDS[name], "next": "/"})


def hidden(html: str, name: str) -> str:
    """The value of the page's last hidden input `name` (the reply form's, after the header's)."""
    found = re.findall(rf'name="{name}" value="([^"]*)"', html)
    assert found, f"no {name} field on the page"
    return found[-1]


def wait_for(predicate: Any, what: str, timeout: float = 90.0) -> Any:
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def events(base: str, cookies: dict[str, str], path: str, until: Any, timeout: float = 90.0) -> list[dict[str, Any]]:
    """Read the server-sent events at `path` until `until(messages)` holds."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    conn.request("GET", path, headers={"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())})
    resp = conn.getresponse()
    assert resp.status == 200, resp.status
    got: list[dict[str, Any]] = []
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            line = resp.readline().decode()
            if line.startswith("data: "):
                got.append(json.loads(line[6:]))
                if until(got):
                    return got
    finally:
        conn.close()
    raise AssertionError(f"the event stream never showed what was awaited; it sent {got[-3:]}")
