"""Situation report edge cases: empty state, caps, odd tool data, escaping, number formats."""

from __future__ import annotations

from typing import get_args

from rich.console import Console

from agent.loop.report import (
    TRIGGER_TEXT,
    SituationReport,
    build_report,
    fmt_duration,
    fmt_gpus,
    fmt_number,
    render_markdown,
    render_terminal,
)
from agent.state import (
    Action,
    AgentState,
    Alternative,
    Attempt,
    Decision,
    Goal,
    Metrics,
    Observation,
    TriggerKind,
    Verdict,
)

GOAL = Goal(text="serve the model fast.", min_aggregate_tps=1000, min_single_stream_tps=100)


def terminal_text(report: SituationReport) -> str:
    console = Console(record=True, width=120)
    render_terminal(report, console)
    return console.export_text()


def table_rows(md: str, header: str) -> list[str]:
    """The data rows of the Markdown table whose header line starts with `header`."""
    lines = md.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header)) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_empty_state_still_renders_everywhere() -> None:
    report = build_report(
        AgentState(), trigger="decider_error", reason="the endpoint timed out twice", question="Retry?"
    )
    md = render_markdown(report)
    assert md.startswith("## opsagent needs a decision: run ?, step 0\n")
    assert "**Goal:** (no goal recorded)" in md
    assert "**Why I stopped:** the component that chooses my next step failed: the endpoint timed out twice." in md
    assert "Nothing measured yet." in md
    assert "| aggregate tok/s (conc 64) | - | not measured yet | - | - |" in md
    assert "### Attempts\nNone yet." in md
    for absent in (
        "### Findings",
        "### Hypotheses",
        "### Next steps",
        "### Proposed action",
        "### Your latest",
    ):
        assert absent not in md
    assert "**Question:** Retry?" in md
    assert "a number" not in md and "Reply `edit <command>`, `continue`" in md  # no steps listed: none offered
    text = terminal_text(report)
    assert "Attempts: none yet" in text
    assert "not measured yet" in text
    assert "Retry?" in text


def test_attempts_findings_and_steps_are_capped_so_the_report_stays_short() -> None:
    attempts = [
        Attempt(id=f"A{i}", step=i, change=f"change {i}", outcome="ok", aggregate_tps=100.0 + i) for i in range(1, 31)
    ]
    decision = Decision(
        findings=[f"finding number {i}" for i in range(20)],
        hypotheses=[f"hypothesis {i}" for i in range(9)],
        alternatives=[Alternative(description=f"idea {i}") for i in range(10)],
    )
    state = AgentState(goal=GOAL, attempts=attempts, decisions=[decision])
    report = build_report(state, trigger="budget", reason="200 steps used", question="Go on?")
    md = render_markdown(report)

    rows = table_rows(md, "| id |")
    assert [r.split("|")[1].strip() for r in rows] == [f"A{i}" for i in range(19, 31)]
    assert "18 earlier attempt(s) omitted; the last 12:" in md
    assert "| 130 | 13% of the goal | A30 |" in md  # best is still computed over every attempt
    assert md.count("- finding number") == 8
    assert "- (12 more omitted)" in md
    assert md.count("hypothesis ") == 5
    assert len(table_rows(md, "| # |")) == 6
    assert "(4 more omitted)" in md
    assert "a number (1-6) to pick a next step" in md
    # Readable in under a minute: everything capped, the whole report stays around a screenful.
    assert len(md.splitlines()) < 70
    assert "(18 earlier omitted)" in terminal_text(report)


def test_recorded_metrics_are_shown_when_no_attempt_carries_them() -> None:
    state = AgentState(goal=GOAL, metrics=Metrics(best_aggregate_tps=999.9, best_ttft_ms=640, best_attempt="A2"))
    md = render_markdown(build_report(state, trigger="stalled", reason="r", question="q"))
    # Floored, never rounded up to a goal not reached.
    assert "| aggregate tok/s (conc 64) | 1,000 | 1,000 | 99% of the goal | A2 |" in md
    assert "| single-stream tok/s | 100 | not measured yet | - | - |" in md
    assert "| TTFT (conc 64) | - | 640 ms | - | - |" in md


def test_table_cells_are_escaped_and_long_text_is_cut() -> None:
    attempts = [
        Attempt(id="A1", step=1, change="dmesg | grep -i iommu", outcome="x" * 300, aggregate_tps=None),
    ]
    md = render_markdown(build_report(AgentState(attempts=attempts), trigger="stalled", reason="r", question="q"))
    (row,) = table_rows(md, "| id |")
    assert "dmesg \\| grep -i iommu" in row
    assert row.replace("\\|", "").count("|") == 5  # still exactly four cells
    assert "x" * 109 + "…" in row and "x" * 111 not in row


def test_odd_tool_data_never_breaks_the_report_and_summaries_stand_in() -> None:
    observations = [
        Observation(step=1, tool="observe_host", ok=True, summary="host: unknown", data={"virtualization": 3}),
        Observation(step=2, tool="observe_topology", ok=True, summary="topology unreadable", data={"p2p": ["x"]}),
        Observation(step=3, tool="p2p_check", ok=False, summary="p2p_check crashed", data={"pairs": "nope"}),
        Observation(step=4, tool="wait_server", ok=False, summary="timed out after 900 s", data={"evidence": 7}),
        Observation(step=5, tool="run_command", ok=True, summary="not a fact tool", data={"virtualization": "kvm"}),
    ]
    md = render_markdown(
        build_report(AgentState(observations=observations), trigger="stalled", reason="r", question="q")
    )
    for summary in ("host: unknown", "topology unreadable", "p2p_check crashed", "timed out after 900 s"):
        assert f"- {summary}" in md
    assert "not a fact tool" not in md and "KVM" not in md


def test_latest_observation_per_tool_wins_and_mixed_p2p_is_itemised() -> None:
    topo = {"0": {"1": "OK", "2": "NS"}, "1": {"2": "NS"}}
    observations = [
        Observation(step=1, tool="observe_host", ok=True, summary="", data={"virtualization": "kvm"}),
        Observation(step=9, tool="observe_host", ok=True, summary="", data={"virtualization": "none"}),
        Observation(step=9, tool="observe_topology", ok=True, summary="", data={"p2p": topo}),
        Observation(
            step=10,
            tool="p2p_check",
            ok=True,
            summary="",
            data={"pairs": [{"pair": "0-1", "ok": True}, {"pair": "0-2", "ok": True}]},
        ),
        Observation(step=11, tool="wait_server", ok=True, summary="ready in 6m 10s", data={"ready": True}),
    ]
    md = render_markdown(
        build_report(AgentState(observations=observations), trigger="stalled", reason="r", question="q")
    )
    assert "bare metal" in md and "KVM" not in md
    assert "- P2P read status over 3 GPU pairs: 2 `NS`, 1 `OK`; not OK: 0-2, 1-2." in md
    assert "- A data-integrity P2P copy test passed on all 2 GPU pairs tested." in md
    assert "ready in 6m 10s" not in md  # a server that came up is not a finding


def test_explicit_proposal_for_low_confidence_and_verdict_callable() -> None:
    seen: list[Action] = []

    def verdict_for(action: Action) -> Verdict:
        seen.append(action)
        return Verdict(decision="allow")

    action = Action(tool="launch_server", args={"tp": 8, "extra": ["--nsa-decode-backend", "trtllm"]})
    decision = Decision(action=action, rationale="the last backend left", confidence=0.3)
    report = build_report(
        AgentState(decisions=[decision]),
        trigger="low_confidence",
        reason="confidence 0.30 is below 0.60",
        question="Launch it?",
        proposed=action,
        verdict_for=verdict_for,
        elapsed_s=45,
    )
    md = render_markdown(report)
    assert seen == [action]
    assert "step 0, 45s" in md
    assert "```\nlaunch_server(tp=8, extra=['--nsa-decode-backend', 'trtllm'])\n```" in md
    assert "**Policy:** allowed" in md
    assert "**Why this action:** the last backend left (confidence 0.30)" in md


def test_goal_met_and_every_trigger_has_plain_words() -> None:
    assert set(TRIGGER_TEXT) == set(get_args(TriggerKind))
    report = build_report(AgentState(goal=GOAL), trigger="goal_met", reason="1,050 tok/s", question="Sign off?")
    assert render_markdown(report).startswith("## opsagent met the goal and asks for sign-off: run ?, step 0")


def test_report_is_pure_data_and_survives_a_round_trip() -> None:
    state = AgentState(
        goal=GOAL,
        attempts=[Attempt(id="A1", step=1, change="TP8", outcome="ok", aggregate_tps=512)],
        decisions=[Decision(alternatives=[Alternative(description="TP4")])],
    )
    report = build_report(state, trigger="stalled", reason="r", question="q")
    again = SituationReport.model_validate_json(report.model_dump_json())
    assert again == report
    assert render_markdown(again) == render_markdown(report)


def test_number_and_time_formats() -> None:
    assert [fmt_number(x) for x in (1000, 512.4, 41.3, 9.5, 3.0, 3740.2)] == [
        "1,000",
        "512",
        "41",
        "9.5",
        "3",
        "3,740",
    ]
    assert [fmt_duration(s) for s in (45, 370, 7980, 0)] == ["45s", "6m 10s", "2h 13m", "0s"]
    assert fmt_gpus([6, 0, 1, 2, 3]) == "0-3, 6"
    assert fmt_gpus(range(8)) == "0-7"


def test_the_decision_behind_the_question_leads_even_before_it_is_in_state() -> None:
    old = Decision(alternatives=[Alternative(description="stale idea")], findings=["old finding"])
    new = Decision(
        kind="ask",
        action=Action(tool="run_command", args={"command": "nvidia-smi -r"}),
        rationale="reset the stuck GPU",
        alternatives=[Alternative(description="fresh idea")],
        findings=["new finding"],
    )
    report = build_report(
        AgentState(decisions=[old], verdict=Verdict(decision="ask", rules=["gpu-reset"])),
        trigger="policy_ask",
        reason="r",
        question="q",
        decision=new,
    )
    md = render_markdown(report)
    assert "| 1 | fresh idea |" in md and "stale idea" not in md
    assert "```\nrun_command: nvidia-smi -r\n```" in md
    assert "**Policy:** needs approval; rules `gpu-reset`" in md
    assert "**Why this action:** reset the stuck GPU (confidence 1.00)" in md
    assert md.index("new finding") < md.index("old finding")


def test_the_reply_line_offers_only_replies_the_question_accepts() -> None:
    """A question with no action and nothing to sign off refuses `approve` (and reads `deny <reason>`
    as an instruction): its report does not offer them; one with an action, or a sign-off, does."""
    from agent.hearing.replies import ReplyError, parse_reply
    from agent.state import Question

    state = AgentState(goal=GOAL, run_id="r1", step=3)
    action = Action(tool="launch_server", args={"tp": 4})
    cases = [("decider_asks", None), ("policy_ask", action), ("gave_up", None), ("goal_met", None)]
    for trigger, proposed in cases:
        md = render_markdown(build_report(state, trigger=trigger, reason="r", question="Q?", proposed=proposed))
        reply_line = next(line for line in md.splitlines() if line.startswith("Reply "))
        question = Question(id="q1", trigger=trigger, reason="r", question="Q?", action=proposed, asked_at=0.0)
        for verb in ("approve", "continue"):  # a failed run or a met goal: continue signs nothing off (#27)
            try:
                parse_reply(verb, question, "op", now=0.0)
                accepted = True
            except ReplyError:
                accepted = False
            assert (f"`{verb}`" in reply_line) == accepted, (trigger, verb, reply_line)
        assert "`stop`" in reply_line
        assert ("`sign off`" in reply_line) == (trigger == "gave_up")


def test_the_headings_time_says_whose_clock_it_is() -> None:
    """The run's time in a heading is the target's (the lab's virtual clock on the lab), not the
    wall clock the web page's "wall clock since start" counts: it says so, the same words on every
    surface the heading reaches (Markdown for the transcript and the web page, the terminal)."""
    report = build_report(AgentState(goal=GOAL), trigger="stalled", reason="r", question="Q?", elapsed_s=2808)
    assert render_markdown(report).startswith(
        "## opsagent needs a decision: run ?, step 0, 46m 48s on the target host's clock\n"
    )
    assert "run ?, step 0, 46m 48s on the target host's clock" in terminal_text(report)
