"""The closing lines of `run`, `resume` and `demo`: the attempts, the outcome, what is left running
on the host, how to answer a waiting question, and the exit code (agent/cli/exitcodes.py)."""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from agent.cli import exitcodes
from agent.hearing.hints import reply_hint

if TYPE_CHECKING:  # the runner pulls in LangGraph; commands that print no outcome never load it
    from agent.loop.runner import RunOutcome
    from tools.target import DetachedProcess

_PORT = re.compile(r"--port[= ](\d+)")


PIPED_WIDTH = 200  # a file or pipe has no width: wide enough that tables and findings are not cut


def output_console(stderr: bool = False) -> Console:
    """At a terminal, its width; piped to a file, $COLUMNS or a wide page instead of rich's 80."""
    from agent.cli.terminal_text import make_safe  # text a model, a host or a web page wrote is shown, not obeyed

    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty() or os.environ.get("COLUMNS"):
        return make_safe(Console(stderr=stderr))
    return make_safe(Console(stderr=stderr, width=PIPED_WIDTH))


def left_running(processes: dict[str, DetachedProcess]) -> str:
    """What the agent started and did not stop, with pid and port, or that nothing is."""
    if not processes:
        return "left running on the host: nothing (every process the agent started has stopped)"
    parts = []
    for name, proc in sorted(processes.items()):
        port = _PORT.search(proc.command)
        parts.append(f"{name} (pid {proc.pid}" + (f", port {port.group(1)}" if port else "") + ")")
    return "left running on the host: " + ", ".join(parts)


def print_outcome(console: Console, outcome: RunOutcome) -> int:
    """Print the run's closing summary and return its exit code."""
    state = outcome.state
    attempts = state.get("attempts") or []
    if attempts:
        table = Table(title="Attempts")
        for col in ("id", "change", "outcome", "aggregate tok/s", "single-stream tok/s"):
            table.add_column(col, overflow="fold")
        for a in attempts:
            table.add_row(
                a.id,
                a.change,
                a.outcome,
                f"{a.aggregate_tps:,.0f}" if a.aggregate_tps is not None else "-",
                f"{a.single_stream_tps:,.0f}" if a.single_stream_tps is not None else "-",
            )
        console.print(table)
    signed = exitcodes.signed_off(state)
    if outcome.status == "waiting" and outcome.question is not None:
        console.print(
            f"[yellow]run {outcome.run_id} is waiting for an answer:[/yellow] {outcome.question.question}",
            soft_wrap=True,
        )
        console.print(f"answer with: {reply_hint(outcome.run_id, outcome.question)}", soft_wrap=True, markup=False)
        console.print(f"then continue it with: opsagent resume {outcome.run_id}", soft_wrap=True, markup=False)
    else:
        met = "goal met" if outcome.goal_met else "goal NOT met"
        if outcome.goal_met and outcome.status == "finished":
            met += ", signed off" if signed else ", not signed off"
        console.print(
            f"run {outcome.run_id} {outcome.status} after {state.get('step', 0)} steps: {met}", soft_wrap=True
        )
    from agent.loop.restore import serving_line

    serving = serving_line(state)
    if serving is not None:
        console.print(serving, soft_wrap=True, markup=False, highlight=False)
    console.print(left_running(dict(state.get("processes") or {})), soft_wrap=True, markup=False, highlight=False)
    console.print(f"transcript: {outcome.transcript}", soft_wrap=True, markup=False, highlight=False)
    return exitcodes.for_outcome(outcome.status, outcome.goal_met, signed)
