"""The bounded context and the strict prompt templates."""

from __future__ import annotations

import jinja2
import pytest

from agent.deciders.context import build_context
from agent.prompts import render
from agent.state import AgentState, Attempt, Goal, Observation, Reply

GOAL = Goal(text="serve the model", constraints=["never reboot the host"], min_aggregate_tps=1000)


def observations(n: int, summary_lines: int = 1) -> list[Observation]:
    body = "\n".join(f"line {j}" for j in range(summary_lines))
    return [
        Observation(
            step=i,
            tool="run_command",
            args={"command": f"probe {i}"},
            ok=i % 2 == 0,
            summary=f"out {i}\n{body}",
        )
        for i in range(n)
    ]


def attempts(n: int) -> list[Attempt]:
    return [
        Attempt(
            id=f"A{i}",
            step=i,
            change=f"flag set {i}",
            outcome="crashed" if i % 3 else "ran",
            aggregate_tps=float(i),
        )
        for i in range(1, n + 1)
    ]


def user_prompt(state: AgentState, **kw: int) -> str:
    return render("user", ctx=build_context(state, **kw))


def test_recent_observations_in_full_older_summarised_one_line_each() -> None:
    state: AgentState = {"goal": GOAL, "observations": observations(20, summary_lines=3)}
    ctx = build_context(state, keep_last=4)
    assert [o.step for o in ctx.recent] == [16, 17, 18, 19]
    assert len(ctx.older) == 16
    assert ctx.older[1] == "step 1: run_command: probe 1 -> FAILED: out 1"
    text = user_prompt(state, keep_last=4)
    assert "line 2" in text.split("## Recent observations")[1]
    assert "### step 15" not in text


def test_attempts_table_is_exact_and_always_present_however_long_the_run() -> None:
    state: AgentState = {"goal": GOAL, "observations": observations(400), "attempts": attempts(60)}
    text = user_prompt(state, keep_last=3, max_older=20)
    for a in attempts(60):
        row = f"| {a.id} | {a.step} | {a.change} | {a.outcome} |"
        assert row in text
    assert "(377 earlier observations omitted" in text


def test_context_stays_bounded_as_observations_grow() -> None:
    big = "x" * 50_000
    few: AgentState = {"goal": GOAL, "observations": observations(10)}
    many: AgentState = {
        "goal": GOAL,
        "observations": [
            *observations(5000),
            Observation(step=5000, tool="tail_log", args={"path": "/l"}, ok=False, summary=big),
        ],
    }
    small_len, large_len = len(user_prompt(few)), len(user_prompt(many))
    assert large_len < small_len + 30_000
    assert "characters cut" in user_prompt(many)


def test_long_output_keeps_its_tail_where_the_error_is() -> None:
    summary = "\n".join(["noise"] * 5000 + ["RuntimeError: probability tensor contains either inf, nan"])
    obs = Observation(step=1, tool="tail_log", args={"path": "/l"}, ok=False, summary=summary)
    text = user_prompt({"goal": GOAL, "observations": [obs]})
    assert "probability tensor contains either inf, nan" in text


def test_denials_instructions_and_replies_are_kept() -> None:
    state: AgentState = {
        "goal": GOAL,
        "denials": ["no-host-reboot: run_command: reboot"],
        "instructions": ["stay on GPUs 0-3"],
        "replies": [Reply(question_id="q1", kind="say", text="try the trtllm decode backend")],
        "observations": [
            Observation(
                step=1,
                tool="run_command",
                args={"command": "reboot"},
                ok=False,
                summary="denied: no-host-reboot",
                error_kind="policy_denied",
            ),
            *observations(30),
        ],
    }
    ctx = build_context(state, keep_last=2)
    assert ctx.denials == [
        "no-host-reboot: run_command: reboot",
        "step 1: run_command: reboot -> denied: no-host-reboot",
    ]
    system = render("system", ctx=ctx, json_mode=False, tools=[])
    assert "no-host-reboot: run_command: reboot" in system
    assert "stay on GPUs 0-3" in system
    assert "never reboot the host" in system
    assert "say: try the trtllm decode backend" in render("user", ctx=ctx)


def test_templates_render_strictly() -> None:
    ctx = build_context({"goal": GOAL})
    with pytest.raises(jinja2.UndefinedError, match="json_mode"):
        render("system", ctx=ctx, tools=[])
    with pytest.raises(jinja2.UndefinedError):
        render("attempts")
    assert render("attempts.md.j2", attempts=[]).startswith("## Attempts")


def test_a_denial_recorded_twice_by_the_gate_is_listed_once() -> None:
    note = "denied by policy (no-host-reboot): run_command: reboot - never reboot the host"
    obs = Observation(
        step=2,
        tool="run_command",
        args={"command": "reboot"},
        ok=False,
        summary=note,
        error_kind="policy_denied",
    )
    ctx = build_context({"goal": GOAL, "denials": [note], "observations": [obs]})
    assert ctx.denials == [note]
