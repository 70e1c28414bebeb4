"""Replay (timeline, filters, follow), export and the CLI contract; all read-only."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli.transcript import transcript_app
from agent.deciders.base import Decider
from agent.deciders.replay import ReplayDecider
from agent.state import AgentState, Decision
from agent.transcript.export import render_report
from agent.transcript.timeline import Filter, follow, parse_steps, render_file
from agent.transcript.writer import TranscriptWriter

runner = CliRunner()


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(transcript_app, list(args))
    return result.exit_code, result.output


def seqs(lines: list[str]) -> list[int]:
    return [int(line.split()[0].lstrip("#")) for line in lines if line.startswith("#")]


def test_full_timeline_has_one_line_per_event(session: Path) -> None:
    lines = list(render_file(session))
    # seq 5 is the loop's observation of the action_result at seq 4: the same result is shown once
    assert seqs(lines) == [s for s in range(20) if s != 5]
    lines.insert(5, "")
    assert "approve by alice at 2025-10-09 08:56:40 UTC" in lines[14]
    assert "DENY run_command: sudo reboot [rules: no-reboot]" in lines[8]


@pytest.mark.parametrize(
    ("only", "expected"),
    [("approvals", [14]), ("denials", [8]), ("errors", [4, 18]), ("actions", [3, 4, 15, 16])],
)
def test_only_filters(session: Path, only: str, expected: list[int]) -> None:
    assert seqs(list(render_file(session, Filter(only=only)))) == expected


def test_step_range_and_grep(session: Path) -> None:
    assert seqs(list(render_file(session, Filter(steps=parse_steps("2-"))))) == [15, 16, 17, 18, 19]
    assert seqs(list(render_file(session, Filter(steps=parse_steps("0"))))) == [0, 1, 2]
    assert seqs(list(render_file(session, Filter(grep="TRTLLM", only="actions")))) == [15]


def test_bad_filters_are_named() -> None:
    with pytest.raises(ValueError, match="--steps"):
        parse_steps("x-y")
    with pytest.raises(ValueError, match="--only"):
        Filter(only="everything")


def test_replay_marks_a_broken_chain(session: Path) -> None:
    data = session.read_bytes().replace(b"never reboot the host", b"rebooting is fine   ")
    session.write_bytes(data)
    lines = list(render_file(session))
    assert any(line.startswith("!!") for line in lines)


def test_follow_prints_a_live_run_as_it_grows(tmp_path: Path) -> None:
    w = TranscriptWriter.create(tmp_path, "live", fsync=False)
    w.emit("run_started", {"goal": "g", "target": "lab:x"})
    seen: list[str] = []

    def reader() -> None:
        seen.extend(follow(w.path, poll_s=0.01, idle_timeout_s=20))

    thread = threading.Thread(target=reader)
    thread.start()
    for i in range(1, 4):
        time.sleep(0.05)
        w.emit("observation", {"step": i, "ok": True, "tool": "t", "summary": f"obs {i}"})
    w.emit("run_finished", {"status": "finished"})
    w.close()
    thread.join(timeout=30)
    assert not thread.is_alive()  # follow stops at run_finished
    assert seqs(seen) == [0, 1, 2, 3, 4]


def test_follow_waits_for_a_partial_line(tmp_path: Path) -> None:
    with TranscriptWriter.create(tmp_path, "r", fsync=False) as w:
        w.emit("run_started", {})
        w.emit("run_finished", {"status": "finished"})
    data = w.path.read_bytes()
    split = data.index(b"\n") + 30
    part = tmp_path / "part.jsonl"
    part.write_bytes(data[:split])
    appended = threading.Event()

    def sleep(_: float) -> None:
        if not appended.is_set():
            with open(part, "ab") as fh:
                fh.write(data[split:])
            appended.set()

    assert seqs(list(follow(part, sleep=sleep, idle_timeout_s=5))) == [0, 1]


def test_same_lab_run_replayed_and_exported_gives_the_same_report(
    tmp_path: Path, session_writer: Callable[[Path], Path]
) -> None:
    first = session_writer(tmp_path / "a")
    second = session_writer(tmp_path / "b")  # the same scripted run, on the virtual clock, again
    assert first.read_bytes() == second.read_bytes()
    for fmt in ("md", "html"):
        once = render_report(first, fmt)
        assert once == render_report(first, fmt) == render_report(second, fmt)
    assert list(render_file(first)) == list(render_file(second))


def test_export_markdown_holds_the_audit_facts(session: Path) -> None:
    md = render_report(session, "md")
    assert "verified: the hash chain is intact" in md
    assert "| A3 | 2 | --nsa-decode-backend trtllm | ready | 485.0 |" in md
    assert "| 14 | 1 | approve | alice | 2025-10-09 08:56:40 UTC | Launch with trtllm? |" in md
    assert "| 8 | 1 | policy |" in md and "no-reboot" in md
    assert "## opsagent needs a decision" in md
    assert "SessionSecretToken" not in md


def test_export_html_is_self_contained(session: Path, tmp_path: Path) -> None:
    code, out = cli("replay", str(session), "--export", str(tmp_path / "audit.html"))
    assert code == 0, out
    html = (tmp_path / "audit.html").read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert "<table>" in html and "<td>alice</td>" in html and "no-reboot" in html
    # the situation report's Markdown, rendered, its headings nested under the report's own <h3>
    assert "<h4>opsagent needs a decision</h4>" in html
    assert "http://" not in html and "https://" not in html and "<script" not in html


def test_export_reports_tampering(session: Path) -> None:
    data = session.read_bytes().replace(b'"who":"alice"', b'"who":"mallo"')
    session.write_bytes(data)
    md = render_report(session, "md")
    assert "FAILED: edited at seq 14" in md


def test_cli_verify_ok_and_tampered(session: Path) -> None:
    code, out = cli("verify", str(session))
    assert code == 0 and out.startswith("ok: 20 events")
    lines = session.read_bytes().splitlines(keepends=True)
    del lines[7]
    session.write_bytes(b"".join(lines))
    code, out = cli("verify", str(session))
    assert code == 1
    assert out.startswith("FAILED: removed at seq 7")
    code, out = cli("verify", "--json", str(session))
    assert code == 1
    obj = json.loads(out)
    assert obj["ok"] is False and obj["problems"][0]["kind"] == "removed" and obj["problems"][0]["seq"] == 7


def test_cli_replay_filters(session: Path) -> None:
    code, out = cli("replay", str(session), "--only", "denials")
    assert code == 0
    assert seqs(out.splitlines()) == [8]
    code, out = cli("replay", str(session), "--steps", "1-1", "--grep", "reboot")
    assert code == 0 and seqs(out.splitlines()) == [7, 8]
    code, out = cli("replay", str(session), "--only", "nothing")
    assert code == 2 and "--only" in out


def test_cli_missing_file_is_named(tmp_path: Path) -> None:
    code, out = cli("verify", str(tmp_path / "nope.jsonl"))
    assert code == 2 and "no transcript at" in out


def test_cli_rerun_refuses_anything_but_the_lab(session: Path) -> None:
    code, out = cli("rerun", str(session), "--target", "ssh://root@gpu-box")
    assert code == 2 and "only re-executes against the lab" in out


def test_cli_rerun_refuses_a_tampered_transcript(session: Path) -> None:
    session.write_bytes(session.read_bytes().replace(b"reset the GPUs", b"reset the GPUz"))
    code, out = cli("rerun", str(session), "--target", "lab:vm-no-p2p")
    assert code == 1 and "does not verify" in out


def test_replay_decider_returns_the_recorded_decisions_in_order(session: Path) -> None:
    decider = ReplayDecider.from_transcript(session)
    assert isinstance(decider, Decider)
    state: AgentState = {"decisions": []}
    got: list[Decision] = []
    for _ in range(4):
        d = decider.decide(state)
        got.append(d)
        state = {"decisions": [*state.get("decisions", []), d]}
    assert [d.action.args["command"] if d.action else None for d in got[:3]] == [
        "HF_TOKEN=[REDACTED:hf_token_env] python -m sglang.launch_server --model-path /m/GLM-5 --tp 8",
        "sudo reboot",
        "python -m sglang.launch_server --tp 8 --nsa-decode-backend trtllm",
    ]
    assert got[0].confidence == 0.9 and got[0].usage == []
    assert got[3].kind == "finish"
    # Resumable: the position comes from the state, not from the decider object.
    fresh = ReplayDecider.from_transcript(session)
    assert fresh.decide({"decisions": got[:2]}) == got[2]


# ---------------------------------------------------------------- issue 17: replay and export


def test_a_filter_that_matches_nothing_says_so(session: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean.jsonl"
    with TranscriptWriter.create(tmp_path, "clean", fsync=False) as w:
        w.emit("run_started", {"run_id": "clean", "goal": "g", "target": "lab:x", "decider": "runbook"})
        w.emit("run_finished", {"status": "finished", "goal_met": True, "steps": 0})
    for only in ("denials", "errors"):
        code, out = cli("replay", str(clean), "--only", only)
        assert code == 0 and out.strip() == f"no events match --only {only} in {clean}"
    code, out = cli("replay", str(session), "--only", "denials")
    assert "no events match" not in out


def test_grep_matches_the_visible_line_only(session: Path) -> None:
    # "sampling" is in the action_result's stored output (seq 4) but not in any line as shown
    code, out = cli("replay", str(session), "--grep", "probability tensor")
    assert code == 0 and out.strip().startswith("no events match --grep")
    code, out = cli("replay", str(session), "--grep", "NaN in sampling")
    assert seqs(out.splitlines()) == [4]


def test_attempts_keep_the_timeline_in_order(session: Path) -> None:
    lines = list(render_file(session))
    steps = [int(line.split()[2]) for line in lines if line.startswith("#")]
    assert steps == sorted(steps)
    assert any("A1 TP8, defaults -> NaN at first decode (launched at step 1)" in line for line in lines)


def test_the_timeline_keeps_whole_commands(tmp_path: Path) -> None:
    command = "python3 -c 'import torch; " + "x = torch.ones(8); " * 20 + "print(x.sum())'"
    with TranscriptWriter.create(tmp_path, "long", fsync=False) as w:
        w.emit("action_started", {"step": 1, "action": {"tool": "run_command", "args": {"command": command}}})
    (line,) = render_file(tmp_path / "long.jsonl")
    assert line.endswith(command)


def test_markdown_export_nests_the_report_under_its_heading(session: Path) -> None:
    text = render_report(session, "md")
    at = text.index("### Report at seq")
    assert "#### opsagent needs a decision" in text[at:]
    assert "\n## opsagent needs a decision" not in text


def test_a_sign_off_reads_as_one_and_the_end_says_whether_the_goal_was_met(tmp_path: Path) -> None:
    """The walk of #30: 'sign off' at the gave-up question echoed as 'approve by root', and the
    end as 'goal met: False'; the timeline (terminal and replay) says what the operator did."""
    with TranscriptWriter.create(tmp_path, "signed", fsync=False) as w:
        w.emit("question", {"id": "q1-s3", "trigger": "gave_up", "question": "I have no further step"})
        w.emit("reply", {"question_id": "q1-s3", "kind": "approve", "who": "root", "at": "2026-12-02T08:21:54Z"})
        w.emit("run_finished", {"status": "finished", "goal_met": False, "steps": 31, "signed_off_by": "root"})
    lines = list(render_file(tmp_path / "signed.jsonl"))
    assert "sign off by root at 2026-12-02 08:21:54 UTC" in lines[1], lines[1]
    assert lines[2].endswith("status finished, goal NOT met, steps 31, signed off by root"), lines[2]
