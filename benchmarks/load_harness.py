"""Many runs and many repliers on one state directory: what is lost, doubled or broken under load.

`run_load()` starts N lab runs detached at the same moment in a fresh directory (real
`opsagent run --detach` processes), lets several replier processes answer the inbox concurrently
with a mix of replies (approve, deny with a reason, an instruction, continue N, stop), has two
repliers answer some questions at the same moment, SIGKILLs a few run processes in the middle
and resumes them (`opsagent resume`), then checks what an operator relies on:

- every run started, and ended as it was answered (stop -> stopped, sign-off -> finished);
- each question was accepted exactly once; a second answer was refused, never applied twice;
- each journaled action ran once (no key with two results);
- every transcript verifies;
- no "database is locked" or other error in any process;
- the time from a reply to the run moving on (median, p99), against one run alone.

Used by `benchmarks/bench_load.py` (N=50) and, smaller, by `tests/load/test_load.py`. The state
is SQLite in `workdir/.opsagent` unless `state` names a postgresql:// URL (the same checks then run
against Postgres; the run's local files go to `workdir/.opsagent` all the same). With Postgres,
`machines=2` starts the runs in turn in two directories with their own HOME and files, resumes each
killed run in the other one, and verifies every transcript as the database records it.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# Scenarios whose runs stop and ask; each ends at a sign-off question or an escalation.
SCENARIOS = ("healthy-host", "stale-port", "oom-mem-fraction", "unreachable-goal", "renamed-flag")
FIRST_REPLIES = ("approve", "deny", "say", "continue", "stop")
TERMINAL = ("finished", "stopped", "failed")
ERROR_MARKS = (
    "Traceback",
    "database is locked",
    "OperationalError",
    "IntegrityError",
    "UniqueViolation",
    "deadlock detected",
    "lost the Postgres state",
)


@dataclass
class LoadReport:
    runs: int
    started: int = 0
    ended_as_answered: int = 0
    final_status: dict[str, str] = field(default_factory=dict)
    mismatched: list[str] = field(default_factory=list)
    questions_answered: int = 0
    replies_accepted: int = 0
    replies_refused_as_answered: int = 0
    double_applied: list[str] = field(default_factory=list)
    actions: int = 0
    actions_run_twice: list[str] = field(default_factory=list)
    transcripts_verified: int = 0
    transcript_problems: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    killed: list[str] = field(default_factory=list)
    latencies_s: list[float] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def lost(self) -> int:
        return self.runs - self.started + sum(1 for s in self.final_status.values() if s not in TERMINAL)

    @property
    def ok(self) -> bool:
        return (
            self.lost == 0
            and not self.mismatched
            and not self.double_applied
            and not self.actions_run_twice
            and not self.transcript_problems
            and not self.errors
        )

    def latency(self, q: float) -> float:
        if not self.latencies_s:
            return float("nan")
        ordered = sorted(self.latencies_s)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    def lines(self) -> list[str]:
        return [
            f"runs started:               {self.started}/{self.runs}",
            f"runs ended as answered:     {self.ended_as_answered}/{self.runs}  (lost: {self.lost})",
            f"questions answered:         {self.questions_answered}",
            f"replies accepted:           {self.replies_accepted}"
            f"  (second answers refused: {self.replies_refused_as_answered}, applied twice: "
            f"{len(self.double_applied)})",
            f"actions run:                {self.actions}  (run twice: {len(self.actions_run_twice)})",
            f"transcripts verified:       {self.transcripts_verified}/{self.runs}",
            f"runs killed and resumed:    {len(self.killed)}",
            f"errors:                     {len(self.errors)}",
            f"reply -> run moves on:      median {self.latency(0.5):.2f} s, p99 {self.latency(0.99):.2f} s",
        ]


def _opsagent() -> list[str]:
    return [sys.executable, "-m", "agent.cli"]


def _env(state: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPSAGENT_MODEL", None)
    env.pop("OPSAGENT_STATE", None)
    return {**env, **state}


def _state_env(workdir: Path, state: str | None) -> dict[str, str]:
    """Where the processes keep the state: SQLite in workdir/.opsagent (their default), or Postgres."""
    if state is None:
        return {}
    return {"OPSAGENT_STATE": state, "OPSAGENT_STATE_FILES": str(workdir / ".opsagent")}


@dataclass
class Machine:
    """Where a process runs: its working directory and environment. Several of them stand for
    several machines of a team: nothing shared but the database URL (own directory, HOME, files)."""

    directory: Path
    env: dict[str, str]


def _machines(workdir: Path, state: str | None, count: int) -> list[Machine]:
    if count == 1:
        return [Machine(workdir, _env(_state_env(workdir, state)))]
    if state is None:
        raise ValueError("several machines share a state only through Postgres: pass a postgresql:// URL")
    found = []
    for k in range(count):
        where = workdir / f"machine-{k}"
        (where / "home").mkdir(parents=True)
        env = {**_env(_state_env(where, state)), "HOME": str(where / "home")}
        env["OPSAGENT_TRANSCRIPTS"] = str(where / "transcripts")
        found.append(Machine(where, env))
    return found


def _reply_for(run_index: int, ordinal: int, trigger: str, has_action: bool) -> dict[str, Any]:
    """A fixed mix: the first question of run i gets FIRST_REPLIES[i % 5]; later ones converge."""
    kind = FIRST_REPLIES[run_index % len(FIRST_REPLIES)] if ordinal == 0 else ("approve" if ordinal < 3 else "stop")
    approvable = has_action or trigger in ("goal_met", "gave_up")
    if kind == "approve" and not approvable:
        kind = "continue"
    if kind == "deny":
        return {"verb": "deny", "reason": "not this one; try something else"}
    if kind == "say":
        if trigger == "goal_met":  # "keep going" is refused at a met goal: there is nothing to go on with
            return {"say": "measure again before I sign off"}
        return {"say": "keep going, and keep the benchmark at the goal's concurrency"}
    if trigger == "goal_met" and kind == "continue":
        kind = "approve"  # continue has nothing to go on with at a sign-off: the operator signs off
    if trigger == "gave_up" and kind in ("approve", "continue"):
        return {"verb": "sign-off"}  # only an explicit sign-off ends a failed run (approve is refused there)
    if kind == "continue":
        return {"verb": "continue", "steps": 3}
    return {"verb": kind}


def _replier(state: str, index: int, count: int, contested_every: int, deadline: float, out: Any) -> None:
    """One answering process: takes the questions of the runs hashed to it."""
    sys.path.insert(0, str(ROOT))
    from agent.hearing.post import post_cli_reply
    from agent.hearing.replies import ReplyError
    from agent.store.open import open_store

    store = open_store(state)
    seen: set[tuple[str, str]] = set()
    ordinals: dict[str, int] = {}
    while time.time() < deadline:
        try:
            waiting = store.open_questions()
        except Exception as exc:  # any store error is a finding of the load test
            out.put(("error", f"replier {index}: inbox: {type(exc).__name__}: {exc}"))
            time.sleep(0.2)
            continue
        for run_id, question in waiting:
            if (run_id, question.id) in seen:
                continue
            run_index = _index(run_id)
            if run_index % contested_every == 0 or run_index % count != index:
                continue  # contested questions are answered twice at once by the coordinator
            seen.add((run_id, question.id))
            ordinal = ordinals.get(run_id, 0)
            ordinals[run_id] = ordinal + 1
            words = _reply_for(run_index, ordinal, question.trigger, question.action is not None)
            try:
                post_cli_reply(
                    store,
                    run_id,
                    verb=words.get("verb"),
                    steps=words.get("steps"),
                    until=None,
                    edit=None,
                    say=words.get("say"),
                    reason=words.get("reason"),
                    who=f"replier-{index}",
                    question_id=question.id,
                )
                out.put(("accepted", run_id, question.id, words.get("verb") or "say", time.time()))
            except ReplyError as exc:
                kind = "refused" if "already answered" in str(exc) or "no open question" in str(exc) else "error"
                out.put((kind, f"replier {index} {run_id} {question.id}: {exc}"))
            except Exception as exc:
                out.put(("error", f"replier {index} {run_id} {question.id}: {type(exc).__name__}: {exc}"))
        time.sleep(0.1)


def _start_runs(machines: list[Machine], n: int, prefix: str) -> tuple[list[str], list[str]]:
    """Start n detached runs at the same moment, in turn on each machine; returns (run ids that
    started, errors)."""
    procs = []
    for i in range(n):
        scenario = SCENARIOS[i % len(SCENARIOS)]
        cmd = [*_opsagent(), "run", "--target", f"lab:{scenario}", "--detach", "--run-id", f"{prefix}-{i}"]
        on = machines[i % len(machines)]
        procs.append(
            (
                f"{prefix}-{i}",
                subprocess.Popen(cmd, cwd=on.directory, env=on.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT),
            )
        )
    started, errors = [], []
    for run_id, proc in procs:
        output = proc.communicate(timeout=900)[0].decode(errors="replace")
        # The exit code says whether the run waits or ended; a start that worked ends with its id.
        if output.strip().splitlines()[-1:] != [run_id]:
            errors.append(f"start {run_id}: exit {proc.returncode}: {output.strip().splitlines()[-1:]}")
        else:
            started.append(run_id)
    return started, errors


def _cli_reply(
    workdir: Path, run_id: str, question_id: str, words: dict[str, Any], env: dict[str, str]
) -> subprocess.Popen[bytes]:
    """`opsagent reply` as an operator types it, bound to the question they read, in a process of its own."""
    argv = [*_opsagent(), "reply", run_id, "--question", question_id]
    if "verb" in words:
        argv.append(words["verb"])
    for option in ("steps", "reason", "say"):
        if option in words:
            argv += [f"--{option}", str(words[option])]
    return subprocess.Popen(argv, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _verb_of(argv: Any) -> str:
    words = [str(a) for a in argv]
    after = words[words.index("reply") + 4 :]  # reply RUN --question ID [VERB]
    return "say" if not after or after[0].startswith("--") else after[0]


def _resume(workdir: Path, run_id: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    log = open(workdir / f"resume-{run_id}.log", "ab")  # noqa: SIM115 - the child owns it
    return subprocess.Popen(
        [*_opsagent(), "resume", run_id, "--approver", "inbox"],
        cwd=workdir,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


class _Coordinator:
    """The main process's share: collects what repliers did, answers contested questions twice at
    once through the real CLI, and kills and resumes a few runs mid-work."""

    def __init__(
        self,
        machines: list[Machine],
        store: Any,
        report: LoadReport,
        to_kill: list[str],
        contested_every: int,
    ):
        self.machines, self.store, self.report = machines, store, report
        self.to_kill, self.contested_every = to_kill, contested_every
        self.accepted: dict[tuple[str, str], list[str]] = {}
        self.last_reply: dict[str, str] = {}
        self.contested: dict[tuple[str, str], list[subprocess.Popen[bytes]]] = {}
        self.resumers: list[subprocess.Popen[bytes]] = []

    def note(self, item: tuple[Any, ...]) -> None:
        if item[0] == "accepted":
            self.accepted.setdefault((item[1], item[2]), []).append(item[3])
            self.last_reply[item[1]] = item[3]
        elif item[0] == "refused":
            self.report.replies_refused_as_answered += 1
        else:
            self.report.errors.append(item[1])

    def kill_answered(self) -> None:
        """SIGKILL a run's process right after its first answer, while it works on; resume it."""
        for run_id in list(self.to_kill):
            if not any(key[0] == run_id for key in self.accepted):
                continue
            pid = self.store.get_run(run_id).pid
            if pid:
                with contextlib.suppress(ProcessLookupError):  # it ended on its own just now
                    os.killpg(pid, signal.SIGKILL)
                _wait_gone(pid)
            self.to_kill.remove(run_id)
            self.report.killed.append(run_id)
            # resumed on the next machine: with several, never where the run started
            on = self.machines[(_index(run_id) + 1) % len(self.machines)]
            self.resumers.append(_resume(on.directory, run_id, on.env))

    def answer_contested(self) -> None:
        for run_id, question in self.store.open_questions():
            index = _index(run_id)
            if index % self.contested_every or (run_id, question.id) in self.contested:
                continue
            ordinal = sum(1 for key in self.contested if key[0] == run_id)
            words = _reply_for(index, ordinal, question.trigger, question.action is not None)
            self.contested[(run_id, question.id)] = [
                _cli_reply(on.directory, run_id, question.id, words, on.env) for on in (self.machines * 2)[:2]
            ]
        self.collect_contested()

    def collect_contested(self, wait: bool = False) -> None:
        for (run_id, qid), procs in self.contested.items():
            if wait:
                for proc in procs:
                    proc.wait(timeout=120)
            if not procs or any(proc.poll() is None for proc in procs):
                continue
            for proc in procs:
                said = proc.communicate()[0].decode(errors="replace")
                if proc.returncode == 0:
                    self.note(("accepted", run_id, qid, _verb_of(proc.args)))
                elif "already answered" in said or "no open question" in said:  # refused: answered first
                    self.report.replies_refused_as_answered += 1
                else:
                    self.report.errors.append(f"reply {run_id} {qid}: exit {proc.returncode}: {said.strip()[-200:]}")
            procs.clear()

    def finish(self) -> None:
        self.collect_contested(wait=True)
        for proc in self.resumers:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def run_load(
    workdir: Path,
    runs: int,
    repliers: int = 4,
    kills: int = 3,
    contested_every: int = 4,
    timeout_s: float = 900.0,
    prefix: str = "load",
    state: str | None = None,
    machines: int = 1,
) -> LoadReport:
    """Run the whole load test in `workdir` (fresh, empty; `state`: a fresh Postgres database's URL,
    else SQLite in workdir) and return what it saw. `machines` > 1 (Postgres only): runs start in
    turn in that many directories with their own HOME and files, killed runs resume on the next."""
    sys.path.insert(0, str(ROOT))
    from agent.store.open import open_store

    report = LoadReport(runs=runs)
    begin = time.time()
    deadline = begin + timeout_s
    ctx = mp.get_context("spawn")
    outbox: Any = ctx.Queue()
    hosts = _machines(workdir, state, machines)
    where = state or str(workdir / ".opsagent")
    workers = [
        ctx.Process(target=_replier, args=(where, i, repliers, contested_every, deadline, outbox))
        for i in range(repliers)
    ]
    started, start_errors = _start_runs(hosts, runs, prefix)
    report.started = len(started)
    report.errors.extend(start_errors)
    for w in workers:
        w.start()
    store = open_store(where)
    # Runs whose first answer keeps them working (deny, an instruction, continue): killing those
    # lands mid-work, not after a run already ended.
    to_kill = [r for r in started if _index(r) % len(FIRST_REPLIES) in (1, 2, 3)][:kills]
    coordinator = _Coordinator(hosts, store, report, to_kill, contested_every)
    while time.time() < deadline:
        while not outbox.empty():
            coordinator.note(outbox.get())
        coordinator.kill_answered()
        coordinator.answer_contested()
        statuses = {r.spec.run_id: r.status for r in store.list_runs()}
        if all(statuses.get(r) in TERMINAL for r in started) and not coordinator.to_kill:
            break
        time.sleep(0.2)
    for w in workers:
        w.terminate()
        w.join()
    while not outbox.empty():
        coordinator.note(outbox.get())
    coordinator.finish()
    report.wall_s = time.time() - begin
    _check(report, store, started, coordinator, hosts, workdir / "audit" if state else None)
    _stop_leftovers(store, started)
    return report


def _stop_leftovers(store: Any, started: list[str]) -> None:
    """A run still driven when the time ran out is counted lost above; its process is ended here so
    the load test leaves nothing running."""
    for record in store.list_runs():
        if record.spec.run_id in started and record.pid and record.status not in TERMINAL:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(record.pid, signal.SIGKILL)


def _check(
    report: LoadReport,
    store: Any,
    started: list[str],
    coordinator: _Coordinator,
    machines: list[Machine],
    pulled: Path | None,
) -> None:
    """What an operator relies on, read back from the store, the transcripts and the logs; with a
    team's database (`pulled`), each transcript as the database records it, pulled there."""
    from agent.transcript.reader import read_events
    from agent.transcript.verify import verify_transcript

    accepted = coordinator.accepted
    records = {r.spec.run_id: r for r in store.list_runs()}
    report.questions_answered = len(accepted)
    report.replies_accepted = sum(len(v) for v in accepted.values())
    report.double_applied.extend(f"{run}/{q}" for (run, q), v in accepted.items() if len(v) > 1)
    for run_id in started:
        record = records.get(run_id)
        status = record.status if record else "missing"
        report.final_status[run_id] = status
        last = coordinator.last_reply.get(run_id, "")
        expected = {"stop": "stopped", "approve": "finished", "sign-off": "finished"}.get(last, "a sign-off or stop")
        if status == expected:
            report.ended_as_answered += 1
        else:
            report.mismatched.append(f"{run_id}: {status} after {last or 'no reply'}")
        if record is None:
            continue
        transcript = Path(record.spec.transcript)
        if pulled is not None:
            try:
                transcript = store.pull_transcript(run_id, pulled / f"{run_id}.jsonl")
            except Exception as exc:  # a run without a recorded transcript is a finding, not a crash
                report.transcript_problems.append(f"{run_id}: cannot pull its transcript: {exc}")
                continue
        result = verify_transcript(transcript)
        if result.ok:
            report.transcripts_verified += 1
        else:
            report.transcript_problems.append(f"{run_id}: {result.first}")
        replies_seen: dict[str, int] = {}
        results_seen: dict[str, int] = {}
        for event in read_events(transcript):
            if event.type == "reply":
                qid = str(event.payload.get("question_id"))
                replies_seen[qid] = replies_seen.get(qid, 0) + 1
                at = event.payload.get("at")
                # A resumed run reads its reply when it is resumed, not when it was posted.
                if isinstance(at, int | float) and run_id not in report.killed:
                    report.latencies_s.append(max(0.0, _ts(event.ts) - float(at)))
            elif event.type == "action_result":
                key = str(event.payload.get("key"))
                results_seen[key] = results_seen.get(key, 0) + 1
        report.double_applied.extend(f"{run_id}/{q} (transcript)" for q, c in replies_seen.items() if c > 1)
        report.actions += len(results_seen)
        report.actions_run_twice.extend(f"{run_id}/{k}" for k, c in results_seen.items() if c > 1)
    kept = Path(tempfile.gettempdir()) / "opsagent-load-errors"
    files = [
        Path(m.env["OPSAGENT_STATE_FILES"]) if "OPSAGENT_STATE_FILES" in m.env else store.state_dir for m in machines
    ]
    logs = [log for f in files for log in (f / "specs").glob("*.log")]
    for log in [*logs, *(log for m in machines for log in m.directory.glob("resume-*.log"))]:
        text = log.read_text(errors="replace")
        found = [f"{log.name}: {mark}" for mark in ERROR_MARKS if mark in text]
        if found:  # kept past the scratch directory, for whoever reads the failure
            kept.mkdir(exist_ok=True)
            (kept / log.name).write_text(text)
            found.append(f"{log.name}: the log is kept in {kept / log.name}")
        report.errors.extend(found)


def _index(run_id: str) -> int:
    return int(run_id.rsplit("-", 1)[1])


def _wait_gone(pid: int, limit_s: float = 10.0) -> None:
    end = time.time() + limit_s
    while time.time() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def _ts(stamp: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def as_json(report: LoadReport) -> str:
    data = {k: v for k, v in report.__dict__.items() if k != "latencies_s"}
    data["lost"] = report.lost
    data["latency_median_s"] = report.latency(0.5)
    data["latency_p99_s"] = report.latency(0.99)
    return json.dumps(data, indent=2, sort_keys=True)
