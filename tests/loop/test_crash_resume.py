"""A lab run SIGKILLed at 20 points across its event sequence resumes, every time, to its end or to a
question: never "nothing left to do", never a second run_resumed, never a refusal to touch its own
server, the run's clock going on from where it was, and no approval asked to re-run a read-only
observation the kill cut short.

The kill is real: `OPSAGENT_CRASH_AFTER_EVENT=K` makes the transcript writer SIGKILL its own
process right after event K is on disk (agent/transcript/writer.py).
"""

from __future__ import annotations

import re
import signal

import pytest

from agent.store.sqlite import Store
from agent.transcript.reader import read_events
from agent.transcript.verify import verify_transcript
from tests.opsagent_process import CliRun
from tools.catalog import default_registry

SCENARIO = "lab:p2p-corruption"
EVENTS = 55  # an uninterrupted run of the scenario writes seq 0..54 today (at least that many: checked below)
POINTS = sorted({round(i * (EVENTS - 1) / 19) for i in range(20)})
READ_ONLY = {name for name in default_registry().names() if default_registry().get(name).read_only}


def test_the_uninterrupted_run_has_the_expected_length(cli: CliRun, workspace) -> None:  # type: ignore[no-untyped-def]
    result = cli("run", "--target", SCENARIO, "--approver", "scripted", "--run-id", "whole")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    events = list(read_events(workspace / "transcripts" / "whole.jsonl"))
    assert len(events) >= EVENTS and events[-1].type == "run_finished"  # every kill point lies inside the run
    assert len(POINTS) == 20


# On the OOM scenario the agent stops its own failed server and relaunches: kills around that stop
# (launch done, wait started, before and after the stop) check it still owns the server after resume.
STOPS = [("lab:oom-mem-fraction", k) for k in (29, 34, 39, 41)]


@pytest.mark.parametrize(("scenario", "k"), [(SCENARIO, k) for k in POINTS] + STOPS)
def test_a_run_killed_after_event_k_resumes(cli: CliRun, workspace, scenario: str, k: int) -> None:  # type: ignore[no-untyped-def]
    run_id = f"crash{k}"
    killed = cli(
        "run", "--target", scenario, "--approver", "scripted", "--run-id", run_id,
        extra_env={"OPSAGENT_CRASH_AFTER_EVENT": str(k)},
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stdout[-1000:] + killed.stderr
    transcript = workspace / "transcripts" / f"{run_id}.jsonl"
    assert len(list(read_events(transcript))) == k + 1

    resumed = cli("resume", run_id, "--approver", "scripted")
    out = resumed.stdout + resumed.stderr
    assert "nothing left to do" not in out and "Traceback" not in out
    events = list(read_events(transcript))
    finished = [e for e in events if e.type == "run_finished"]
    waiting = Store(workspace / "state").current_question(run_id)
    assert finished or waiting, out[-2000:]
    assert resumed.returncode in (0, 1, 3), out[-2000:]
    if finished:
        assert resumed.returncode == (0 if finished[0].payload["goal_met"] else 1)
    assert verify_transcript(transcript).ok
    assert sum(e.type == "run_resumed" for e in events) <= 1
    assert "not started by this agent" not in transcript.read_text()

    # the run's clock goes on: observations after the kill are not earlier than those before it
    times = [e.payload["sim_time"] for e in events if e.type == "observation" and "sim_time" in e.payload]
    assert times == sorted(times), times
    # and it goes on from the step it was at: only the step the kill cut short is done again. (A
    # checkpoint written in the background lost steps on a kill; whether a re-done step also moved
    # the clock back depended on timing, so this checks the cause directly.)
    cut = next((i for i, e in enumerate(events) if e.type == "run_resumed"), len(events))
    for kind in ("decision", "observation", "action_started"):
        before = [e.payload["step"] for e in events[:cut] if e.type == kind and "step" in e.payload]
        after = [e.payload["step"] for e in events[cut:] if e.type == kind and "step" in e.payload]
        assert not before or not after or after[0] >= before[-1], (kind, before, after)
    # a read-only observation cut short is re-run, not asked about
    unknown = [e.payload for e in events if e.type == "question" and e.payload.get("trigger") == "outcome_unknown"]
    assert not [q for q in unknown if (q.get("action") or {}).get("tool") in READ_ONLY], unknown

    if scenario == STOPS[0][0]:  # the stop after the kill found the server the agent started
        stops = [e.payload for e in events if e.type == "action_result" and e.payload.get("tool") == "stop_server"]
        assert stops and all(s["ok"] for s in stops), stops
    if finished and k == POINTS[-1]:  # a finished run says so and writes nothing more
        again = cli("resume", run_id, "--approver", "scripted")
        assert again.returncode == 2 and "already finished" in again.stderr
        assert len(list(read_events(transcript))) == len(events)


def _elapsed_s(markdown: str) -> int:
    """The run's time from a report's heading ('... run R, step 21, 46m 44s on the target host's clock')."""
    heading = markdown.splitlines()[0]
    found = re.search(r", ((?:\d+h)?\s*(?:\d+m)?\s*(?:\d+s)?) on the target host's clock$", heading)
    assert found and found.group(1).strip(), heading
    units = {"h": 3600, "m": 60, "s": 1}
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([hms])", found.group(1)))


def test_the_report_after_a_resume_counts_the_time_before_it(cli: CliRun, workspace) -> None:  # type: ignore[no-untyped-def]
    # the run waits (nobody to answer), is resumed in a new process, and asks again: its report's
    # elapsed time goes on from the first report's, it does not start again at 0 s
    assert cli("run", "--target", "lab:vm-no-p2p", "--approver", "none", "--run-id", "el").returncode == 3
    assert cli("reply", "el", "continue").returncode == 0
    resumed = cli("resume", "el", "--approver", "none")
    assert resumed.returncode in (0, 1, 3), resumed.stdout[-2000:] + resumed.stderr
    events = list(read_events(workspace / "transcripts" / "el.jsonl"))
    cut = next(i for i, e in enumerate(events) if e.type == "run_resumed")
    before = [_elapsed_s(e.payload["markdown"]) for e in events[:cut] if e.type == "report"]
    after = [_elapsed_s(e.payload["markdown"]) for e in events[cut:] if e.type == "report"]
    assert before and after, [e.type for e in events]
    assert before[-1] > 600 and after[0] >= before[-1], (before, after)


def test_a_run_killed_right_after_a_reply_records_that_reply_once(cli: CliRun, workspace) -> None:  # type: ignore[no-untyped-def]
    """The node that took the reply runs again on resume and gets the same reply back: the
    transcript must still say it was answered once (the load test saw "applied twice")."""
    assert cli("run", "--target", SCENARIO, "--approver", "scripted", "--run-id", "whole").returncode == 0
    whole = list(read_events(workspace / "transcripts" / "whole.jsonl"))
    k = next(e.seq for e in whole if e.type == "reply")
    killed = cli(
        "run", "--target", SCENARIO, "--approver", "scripted", "--run-id", "cut",
        extra_env={"OPSAGENT_CRASH_AFTER_EVENT": str(k)},
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL
    cli("resume", "cut", "--approver", "scripted")
    events = list(read_events(workspace / "transcripts" / "cut.jsonl"))
    replies = [e.payload["question_id"] for e in events if e.type == "reply"]
    assert replies and len(replies) == len(set(replies)), replies
    assert verify_transcript(workspace / "transcripts" / "cut.jsonl").ok
