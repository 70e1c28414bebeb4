"""The audit view on real transcripts: a lab run made through the CLI here, the shipped example,
and a run on the local target (harmless echo commands, one planted token, one denied reboot).

What the charts show is read back from the SVG (bar heights, the goal line's height, the marks'
x positions) and compared with what the transcript's events say, computed here independently.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from agent.deciders.scripted import ScriptedDecider
from agent.hearing.approvers import ListApprover
from agent.loop.runner import start_run
from agent.state import Action, Decision, Goal
from agent.store.records import RunSpec
from agent.store.sqlite import Store
from agent.transcript.audit_view import render_audit_html
from agent.transcript.timeline import Filter
from tests.opsagent_process import run_opsagent
from tools.local import LocalTarget

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = next((REPO / "transcripts" / "examples").glob("*.jsonl"))
LOOP_POLICY = REPO / "tests" / "loop" / "policy.yaml"
TOKEN = "hf_" + "AuditViewPlantedToken0123456789ab"  # shaped like a Hugging Face token
SCENARIO = "oom-mem-fraction"  # two launches that run out of memory, then one that serves


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _opsagent(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_opsagent(*args, cwd=cwd)


@pytest.fixture(scope="module")
def lab_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A lab scenario run by `opsagent run`, then exported by `opsagent replay --export`."""
    work = tmp_path_factory.mktemp("lab")
    run = _opsagent(
        "run",
        f"--target=lab:{SCENARIO}",
        "--approver=scripted",
        "--state=state",
        "--transcripts=tr",
        "--run-id=audit-lab",
        cwd=work,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    transcript = work / "tr" / "audit-lab.jsonl"
    export = _opsagent("replay", str(transcript), "--export", str(work / "audit.html"), cwd=work)
    assert export.returncode == 0, export.stderr
    return transcript, (work / "audit.html").read_text()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run on the local target: echo commands (one prints a token), and a reboot the policy denies."""
    root = tmp_path_factory.mktemp("local")
    (root / "work").mkdir()

    def act(command: str) -> Decision:
        return Decision(action=Action(tool="run_command", args={"command": command}), rationale="t", confidence=0.9)

    decider = ScriptedDecider(
        [
            act("echo checking the host"),
            act(f"echo 'download token {TOKEN}'"),
            act("sudo reboot"),  # denied by the policy: it never runs
            act("echo done; sleep 0"),
            Decision(kind="finish", goal_met=True, rationale="done"),
        ]
    )
    spec = RunSpec(
        run_id="audit-local",
        goal=Goal(text="check the host").model_dump(mode="json"),
        target="local",
        decider="scripted",
        policies=[str(LOOP_POLICY)],
        transcript=str(root / "tr" / "audit-local.jsonl"),
    )
    approver = ListApprover(["approve"])  # the denied reboot asks nothing; the met goal is signed off
    outcome = start_run(
        spec, Store(root / "state"), lambda _r: approver, decider=decider, target=LocalTarget(str(root / "work"))
    )
    return outcome.transcript


def _svgs(page: str, cls: str) -> list[ET.Element]:
    found = re.findall(r'<svg class="audit-chart ' + cls + r'".*?</svg>', page, flags=re.S)
    return [ET.fromstring(s) for s in found]


def _attempts(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    latest: dict[str, dict[str, Any]] = {}
    for e in events:
        if e["type"] == "attempt":
            latest[e["payload"]["id"]] = e["payload"]  # a later row for the same id updates it
    return latest


def _goal(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e["payload"]["goal"] for e in events if e["type"] == "run_started")


def _check_bars(svg: ET.Element, attempts: dict[str, dict[str, Any]], key: str, goal: float | None) -> None:
    bars = [g for g in svg.iter("g") if "audit-bar" in g.get("class", "").split()]
    assert [b.get("data-attempt") for b in bars] == list(attempts), "one bar per attempt, in order"
    base = float(svg.get("data-baseline", "nan"))
    scales = []
    for bar in bars:
        want = attempts[bar.get("data-attempt", "")][key]
        rect = bar.find("rect")
        assert rect is not None
        height = float(rect.get("height", "nan"))
        if want is None:
            assert bar.get("data-value") == "" and height <= 2  # no measurement: an empty slot
            continue
        assert float(bar.get("data-value", "nan")) == pytest.approx(want)
        assert float(rect.get("y", "nan")) + height == pytest.approx(base, abs=0.02)  # stands on the axis
        scales.append(height / want)
    assert scales and max(scales) == pytest.approx(min(scales), rel=1e-3), "bar heights are proportional to values"
    goals = [g for g in svg.iter("g") if g.get("class") == "audit-goal"]
    if goal is None:
        assert goals == []
        return
    assert len(goals) == 1 and float(goals[0].get("data-value", "nan")) == pytest.approx(goal)
    line = goals[0].find("line")
    assert line is not None
    assert base - float(line.get("y1", "nan")) == pytest.approx(goal * scales[0], abs=0.05)


def test_throughput_charts_hold_one_bar_per_attempt_at_its_value_and_the_goal_line(lab_run: tuple[Path, str]) -> None:
    transcript, page = lab_run
    events = _events(transcript)
    attempts, goal = _attempts(events), _goal(events)
    assert len(attempts) >= 3 and any(a["aggregate_tps"] is None for a in attempts.values())
    (aggregate,) = _svgs(page, 'audit-throughput" data-metric="aggregate')
    _check_bars(aggregate, attempts, "aggregate_tps", goal.get("min_aggregate_tps"))
    (single,) = _svgs(page, 'audit-throughput" data-metric="single')
    _check_bars(single, attempts, "single_stream_tps", goal.get("min_single_stream_tps"))


def test_example_transcript_chart_matches_its_attempt() -> None:
    events = _events(EXAMPLE)
    page = render_audit_html(EXAMPLE, standalone=True)
    (aggregate,) = _svgs(page, 'audit-throughput" data-metric="aggregate')
    _check_bars(aggregate, _attempts(events), "aggregate_tps", _goal(events)["min_aggregate_tps"])


def _expected_marks(events: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """Launches and readiness when their observations say; questions and replies at the clock of
    the last observation before them (nothing passes on the target's clock in between)."""
    now, out = 0.0, []
    for e in events:
        p = e["payload"]
        if e["type"] == "observation" and isinstance(p.get("sim_time"), int | float):
            now = p["sim_time"]
            data = p.get("data") or {}
            if p["tool"] == "launch_server":
                out.append(("launch", now))  # a refused launch too: then its failure (#30)
                if not p["ok"]:
                    out.append(("failed", now))
            elif p["tool"] == "wait_server" and "ready" in data:
                out.append(("ready" if data["ready"] else "failed", now))
        elif e["type"] in ("question", "reply"):
            out.append((e["type"], now))
    return out


def test_timeline_chart_places_launches_readiness_and_questions_at_their_times(lab_run: tuple[Path, str]) -> None:
    transcript, page = lab_run
    expected = _expected_marks(_events(transcript))
    kinds = {k for k, _ in expected}
    assert {"launch", "ready", "failed", "question"} <= kinds
    (svg,) = _svgs(page, "audit-timeline-chart")
    origin, scale = float(svg.get("data-origin", "nan")), float(svg.get("data-scale", "nan"))
    marks = [g for g in svg.iter("g") if "audit-mark" in g.get("class", "").split()]
    got = [(g.get("data-kind"), float(g.get("data-at", "nan"))) for g in marks]
    assert [k for k, _ in got] == [k for k, _ in expected]
    for (_, at), (_, want) in zip(got, expected, strict=True):
        assert at == pytest.approx(want, abs=1e-3)
    for g, (_, want) in zip(marks, expected, strict=True):
        shape = g.find("circle")
        x = float(shape.get("cx", "nan")) if shape is not None else float(g.get("data-x", "nan"))
        assert x == pytest.approx(origin + want * scale, abs=0.02), "drawn where its time is"


def _shown_commands(page: str) -> list[str]:
    table = re.search(r'<table class="audit-commands">.*?</table>', page, flags=re.S)
    if table is None:
        return []
    return [html.unescape(c) for c in re.findall(r'<code class="audit-command">(.*?)</code>', table.group(0), re.S)]


def _expected_commands(events: list[dict[str, Any]]) -> list[str]:
    """What ran: every action_started that has its action_result; run_command's command line, a
    launch's `$ ...` line as the tool reported it."""
    started = {e["payload"]["key"]: e["payload"]["action"] for e in events if e["type"] == "action_started"}
    out = []
    for e in events:
        if e["type"] != "action_result":
            continue
        action = started[e["payload"]["key"]]
        if action["tool"] == "run_command":
            out.append(action["args"]["command"])
        elif action["tool"] == "launch_server":
            out.append(next(ln[2:] for ln in e["payload"]["summary"].splitlines() if ln.startswith("$ ")))
    return out


def test_commands_section_lists_exactly_the_commands_that_ran(lab_run: tuple[Path, str], local_run: Path) -> None:
    transcript, page = lab_run
    lab_expected = _expected_commands(_events(transcript))
    assert len(lab_expected) == 3 and all("sglang.launch_server" in c for c in lab_expected)
    assert _shown_commands(page) == lab_expected
    local_page = render_audit_html(local_run, standalone=True)
    local_expected = _expected_commands(_events(local_run))
    assert _shown_commands(local_page) == local_expected
    assert "echo checking the host" in local_expected and "echo done; sleep 0" in local_expected
    assert not any("reboot" in c for c in _shown_commands(local_page)), "a denied command never ran"


def test_clock_simulated_note_only_for_lab_runs(lab_run: tuple[Path, str], local_run: Path) -> None:
    _, page = lab_run
    assert "Clock simulated (lab run)" in page
    assert "Clock simulated (lab run)" in render_audit_html(EXAMPLE, standalone=False)
    local_page = render_audit_html(local_run, standalone=True)
    assert "Clock simulated" not in local_page and "simulated lab clock" not in local_page
    assert "the target host&#39;s clock" in local_page or "the target host's clock" in local_page


def test_benchmark_table_holds_the_measured_levels(lab_run: tuple[Path, str]) -> None:
    transcript, page = lab_run
    levels = [
        lvl
        for e in _events(transcript)
        if e["type"] == "action_result" and e["payload"]["tool"] == "run_benchmark"
        for lvl in e["payload"]["data"]["levels"]
    ]
    table = re.search(r'<table class="audit-bench">.*?</table>', page, flags=re.S)
    assert table is not None and levels
    rows = re.findall(r"<tr><td>.*?</tr>", table.group(0), flags=re.S)
    assert len(rows) == len(levels)
    for row, lvl in zip(rows, levels, strict=True):
        cells = re.findall(r"<td>(.*?)</td>", row)
        assert cells[4] == str(lvl["concurrency"]) and cells[5] == f"{lvl['output_throughput']:,.1f}"


def test_integrity_verdict_flips_on_a_tampered_transcript(tmp_path: Path) -> None:
    copy = tmp_path / EXAMPLE.name
    copy.write_bytes(EXAMPLE.read_bytes())
    page = render_audit_html(copy, standalone=False)
    assert "audit-verdict-ok" in page and "Integrity: verified" in page and "Integrity: FAILED" not in page
    copy.write_bytes(copy.read_bytes().replace(b'"aggregate_tps":2193.5', b'"aggregate_tps":3193.5', 1))
    page = render_audit_html(copy, standalone=False)
    assert page.index("Integrity: FAILED") < page.index("<h2>"), "the verdict comes first"
    assert "audit-verdict-failed" in page and "Integrity: verified" not in page
    assert "edited at seq 43" in page


def test_no_secret_reaches_the_page(local_run: Path) -> None:
    outputs = [e for e in _events(local_run) if e["type"] == "action_result"]
    assert any("download token" in str(e["payload"]) for e in outputs), "the command that printed it ran"
    for standalone in (True, False):
        page = render_audit_html(local_run, standalone=standalone)
        assert TOKEN not in page and TOKEN[:12] not in page
        assert re.search(r"<td>\d+</td><td>action_result</td><td>[^<]+</td>", page), "the redaction is listed"


def test_fragment_is_embeddable(lab_run: tuple[Path, str]) -> None:
    transcript, _ = lab_run
    frag = render_audit_html(transcript, standalone=False)
    assert "<html" not in frag and "<body" not in frag and "<script" not in frag.lower()
    assert not re.search(r"\b(src|href|xlink:href)=|@import|url\(", frag), "no external asset is loaded"
    classes = {c for attr in re.findall(r'class="([^"]*)"', frag) for c in attr.split()}
    assert classes and all(c.startswith("audit-") for c in classes), sorted(
        c for c in classes if not c.startswith("audit-")
    )


def test_export_timeline_takes_the_replay_filters(lab_run: tuple[Path, str], tmp_path: Path) -> None:
    transcript, _ = lab_run
    page = render_audit_html(transcript, standalone=True, flt=Filter(only="actions"))
    rows = re.findall(r'<span class="audit-row([^"]*)">(.*?)\n</span>', page, flags=re.S)
    assert rows and all("audit-is-actions" in cls for cls, _ in rows)
    assert all(re.search(r"action_(started|result)", text) for _, text in rows)
    assert "Filtered as <code>opsagent replay --only actions</code>" in page
    out = _opsagent("replay", str(transcript), "--only", "errors", "--export", str(tmp_path / "e.html"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "--only errors" in (tmp_path / "e.html").read_text()


def test_a_refused_launch_is_drawn_as_a_launch_that_failed(tmp_path: Path) -> None:
    """#30: stale-port's first launch is refused (its port is taken): a launch dot, then a failure
    dot, not a failure with no launch."""
    run = _opsagent(
        "run", "--target=lab:stale-port", "--approver=scripted", "--state=state", "--transcripts=tr",
        "--run-id=refused", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode in (0, 1), run.stdout + run.stderr
    transcript = tmp_path / "tr" / "refused.jsonl"
    refused = [
        e for e in _events(transcript)
        if e["type"] == "observation" and e["payload"]["tool"] == "launch_server" and not e["payload"]["ok"]
    ]  # fmt: skip
    assert refused, "the scenario's launch is refused"
    (svg,) = _svgs(render_audit_html(transcript, standalone=True), "audit-timeline-chart")
    kinds = [g.get("data-kind") for g in svg.iter("g") if "audit-mark" in g.get("class", "").split()]
    assert kinds[:2] == ["launch", "failed"], kinds
