"""`opsagent inbox` (what waits for the operator, across runs) and `opsagent inbox show RUN`.

The list marks, for each run, whether a process is still there to take the reply; runs that were
answered but whose process is gone are listed too, with the `opsagent resume` that continues them.
`--json` keeps the contract: a list of the open questions, each with at least `run_id` and
`question` (plus `driver`: `alive`, or `none` when `opsagent resume` must follow the reply).
"""

from __future__ import annotations

import json
import time
from typing import Annotated

import typer
from rich.markdown import Markdown

from agent.cli.outcome import output_console
from agent.hearing.hints import reply_hint
from agent.state import Question
from agent.store.open import open_store
from agent.store.records import RunRecord, UnknownRun, process_alive
from agent.store.sqlite import Store

inbox_app = typer.Typer(help="Questions waiting for an answer, across runs.", add_completion=False)
console = output_console()

StateOpt = Annotated[
    str | None,
    typer.Option(
        "--state",
        metavar="DIR|URL",
        help="state directory or postgresql:// URL (default ./.opsagent or $OPSAGENT_STATE)",
    ),
]


def driver_alive(store: Store, record: RunRecord) -> bool:
    """A process drives the run now: it holds the run's lease (or, on a local store, its pid lives)."""
    from agent.store.lease import live_holder

    if live_holder(store, record.spec.run_id) is not None:
        return True
    return store.pids_are_local and record.pid is not None and process_alive(record.pid)


def _item(store: Store, run_id: str, q: Question) -> dict[str, object]:
    record = store.get_run(run_id)
    return {
        "run_id": run_id,
        "question_id": q.id,
        "question": q.question,
        "trigger": q.trigger,
        "reason": q.reason,
        "action": q.action.model_dump(mode="json") if q.action else None,
        "digest": q.digest,  # what `opsagent reply RUN approve --digest` binds an approval to
        "asked_at": q.asked_at,
        "expires_at": q.expires_at,
        "report": q.report_markdown,
        "driver": "alive" if driver_alive(store, record) else "none",
    }


def needs_resume(store: Store, waiting: set[str]) -> list[RunRecord]:
    """Runs not over, with no open question and no live process: answered, or their process died."""
    return [
        r
        for r in store.list_runs()
        if r.status not in ("finished", "stopped") and r.spec.run_id not in waiting and not driver_alive(store, r)
    ]


@inbox_app.callback(invoke_without_command=True)
def inbox(
    ctx: typer.Context,
    json_out: Annotated[bool, typer.Option("--json", help="machine-readable list of the open questions")] = False,
    state: StateOpt = None,
) -> None:
    """Questions waiting for an answer, across runs; 'inbox show RUN' prints one run's whole report."""
    if ctx.invoked_subcommand is not None:
        return
    store = open_store(state, read_only=True)
    waiting = store.open_questions()
    if json_out:
        print(json.dumps([_item(store, run_id, q) for run_id, q in waiting], indent=2))
        return
    stale = needs_resume(store, {run_id for run_id, _ in waiting})
    if not waiting and not stale:
        console.print("no questions waiting")
        return
    for run_id, q in waiting:
        age = time.time() - q.asked_at
        say(f"{run_id} ({q.trigger}, asked {age / 60:.0f} min ago): {q.question}")
        say(f"  reply: {reply_hint(run_id, q)}")
        if not driver_alive(store, store.get_run(run_id)):
            say(f"  no process waits for it: after replying, run: opsagent resume {run_id}")
        say(f"  whole report: opsagent inbox show {run_id}")
    for record in stale:
        run_id = record.spec.run_id
        last = _last_answer(store, run_id)
        if last:
            why = f"answered ({last})"
        elif record.status == "interrupted":
            why = "interrupted (Ctrl-C) by its operator"
        else:
            why = f"its process is gone (status {record.status}: crashed or killed)"
        say(f"{run_id}: {why}; continue it with: opsagent resume {run_id}")


def say(text: str) -> None:
    """One line as written: never wrapped into the middle of a command to copy."""
    console.print(text, soft_wrap=True, markup=False, highlight=False)


def _last_answer(store: Store, run_id: str) -> str | None:
    record = store.get_run(run_id)
    if record.status != "waiting":
        return None
    reply = store.last_reply(run_id)
    return f"{reply.kind} by {reply.who}" if reply is not None else None


@inbox_app.command("show")
def show(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="the run id, as 'opsagent inbox' lists it")],
    state: StateOpt = None,
) -> None:
    """Print the whole situation report of a run's waiting question, and how to answer it."""
    store = open_store(state, read_only=True)
    try:
        record = store.get_run(run_id)
    except UnknownRun:
        typer.echo(f"error: unknown run {run_id!r}; 'opsagent inbox' lists waiting runs", err=True)
        raise typer.Exit(2) from None
    question = store.current_question(run_id)
    if question is None:
        typer.echo(
            f"error: run {run_id} has no question waiting (status {record.status}); "
            f"its transcript: {record.spec.transcript}",
            err=True,
        )
        raise typer.Exit(1)
    console.print(Markdown(question.report_markdown or question.question))
    say(f"reply: {reply_hint(run_id, question)}")
    if not driver_alive(store, record):
        say(f"then: opsagent resume {run_id}")
