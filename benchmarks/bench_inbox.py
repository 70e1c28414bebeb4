"""The web inbox with 1,000 runs: server time per request of the inbox page.

A state with 1,000 lab runs (100 of them waiting on a question, each with a short transcript) and
`opsagent serve` as its own process on loopback. The server's own time comes from the
`Server-Timing: app;dur=MS` header it sets on every response; the server's CPU time (user+sys, from
/proc) is printed beside it, since wall time on a shared machine is inflated by the neighbours.
Baselines measured in the same run: the trivial `/healthz` endpoint through the same server, a
signed-in page that lists no runs (`/runs/new`: the session check and a template), and
`Store.list_runs()` called directly (what a page that read the store per request would pay).
Goal: the inbox's median server time < 200 ms on 2 cores.
"""

from __future__ import annotations

import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agent.state import Question
from agent.store.records import RunSpec
from agent.store.sqlite import Store
from agent.store.users import add_user
from agent.transcript.writer import TranscriptWriter

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.web.server import Client  # noqa: E402  (the tests' cookie-keeping loopback client)

RUNS = 1000
WAITING = 100
REQUESTS = 30
GOAL_MS = 200.0


def build_state(root: Path) -> Store:
    store = Store(root / "state")
    specs = []
    for i in range(RUNS):
        run_id = f"bench-{i:04d}"
        writer = TranscriptWriter.create(root / "transcripts", run_id, fsync=False)
        writer.emit("run_started", {"run_id": run_id, "goal": {"text": f"serve model {i} at 1,000 tok/s"}})
        for step in range(1, 4):
            action = {"tool": "observe_gpus", "args": {}}
            writer.emit("action_started", {"step": step, "key": f"{run_id}:{step}", "action": action})
            writer.emit("action_result", {"step": step, "tool": "observe_gpus", "ok": True, "summary": "8 GPUs"})
        if i < WAITING:
            writer.emit("question", {"id": "q1-s3", "trigger": "goal_met", "question": "Sign off?", "reason": "met"})
        else:
            writer.emit("run_finished", {"status": "finished", "goal_met": True})
        writer.close()
        spec = RunSpec(run_id=run_id, goal={"text": f"serve model {i} at 1,000 tok/s"}, target="lab:healthy-host",
                       decider="runbook", transcript=str(writer.path))  # fmt: skip
        specs.append((run_id, spec.model_dump_json(), "waiting" if i < WAITING else "finished", time.time() + i))
    # one transaction for the set-up (Store.add_run commits each run on its own: minutes for 1,000)
    with sqlite3.connect(store.state_dir / "opsagent.sqlite") as db:
        db.executemany(
            "INSERT INTO runs VALUES (?, ?, ?, NULL, ?, ?, ?)",
            [(rid, spec, status, str(root / "transcripts" / f"{rid}.jsonl"), t, t) for rid, spec, status, t in specs],
        )
    for i in range(WAITING):
        store.post_question(f"bench-{i:04d}", Question(id="q1-s3", trigger="goal_met", reason="met",
                                                       question="Sign off?", asked_at=time.time()))  # fmt: skip
    add_user(store, "bench", "viewer", "bench-password")
    return store


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_ms(client: Client, path: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        answer = client.get(path)
        assert answer.status == 200, (path, answer.status)
        match = re.search(r"app;dur=([\d.]+)", answer.headers["server-timing"])
        assert match
        out.append(float(match.group(1)))
    return out


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        store = build_state(root)
        print(f"set-up: {RUNS} runs ({WAITING} waiting) in {time.perf_counter() - t0:.1f} s")
        t0 = time.perf_counter()
        listed = store.list_runs()
        list_ms = (time.perf_counter() - t0) * 1000
        assert len(listed) == RUNS
        env = dict(os.environ, OPSAGENT_STATE=str(root / "state"), PYTHONPATH=str(REPO))
        proc = subprocess.Popen([sys.executable, "-m", "agent.cli", "serve", "--port", "0"], cwd=root, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
        try:
            assert proc.stdout is not None
            base = re.search(r"http://127\.0\.0\.1:\d+", proc.stdout.readline())
            assert base, "the server printed no address"
            client = Client(base.group(0))
            deadline = time.time() + 120
            while True:
                try:
                    client.get("/healthz")
                    break
                except OSError:
                    if time.time() > deadline:
                        raise
                    time.sleep(0.2)
            assert client.login("bench", "bench-password").status == 303
            page = client.get("/")
            assert page.body.count('<tr data-run="bench-') == RUNS and f"{WAITING} waiting" in page.body
            server_ms(client, "/", 3)  # warm: templates compiled, snapshot built
            health = server_ms(client, "/healthz", REQUESTS)
            form = server_ms(client, "/runs/new", REQUESTS)
            cpu0 = cpu_s(proc.pid)
            wall0 = time.perf_counter()
            inbox = server_ms(client, "/", REQUESTS)
            wall = (time.perf_counter() - wall0) / REQUESTS * 1000
            cpu = (cpu_s(proc.pid) - cpu0) / REQUESTS * 1000
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    med, p95 = statistics.median(inbox), sorted(inbox)[int(0.95 * len(inbox)) - 1]
    base_med = statistics.median(health)
    print(f"cores: {os.cpu_count()}; inbox page: {RUNS} rows, {len(page.body) / 1024:.0f} KiB")
    print(f"GET /        server time median {med:.1f} ms, p95 {p95:.1f} ms; server CPU {cpu:.1f} ms/request; "
          f"client wall {wall:.1f} ms/request")  # fmt: skip
    print(f"GET /healthz server time median {base_med:.2f} ms (baseline: same server, trivial endpoint)")
    print(f"GET /runs/new server time median {statistics.median(form):.2f} ms (baseline: a signed-in page, no runs)")
    print(f"Store.list_runs() directly: {list_ms:.0f} ms (baseline: reading the store per request)")
    print(f"ratio inbox / healthz: {med / base_med:.1f}x; list_runs / inbox: {list_ms / med:.1f}x")
    met = med < GOAL_MS
    print(f"goal: median < {GOAL_MS:.0f} ms server time: {'met' if met else 'NOT met (finding)'}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
