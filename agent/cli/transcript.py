"""`opsagent verify`, `opsagent replay` and `opsagent rerun`: the transcript commands.

The lead mounts these at the top level with
`app.registered_commands.extend(transcript_app.registered_commands)`.
`verify` and `replay` only read files; `rerun` is the one that executes, and only against the lab.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from agent.cli.terminal_text import safe
from agent.transcript.export import export_report
from agent.transcript.reader import not_a_transcript
from agent.transcript.timeline import ONLY_CHOICES, Filter, follow, parse_steps, render_file
from agent.transcript.verify import verify_transcript

transcript_app = typer.Typer(help="Transcripts: verify, replay (read-only) and rerun against the lab.")

TranscriptArg = Annotated[
    str,
    typer.Argument(
        help="A transcript file (<run_id>.jsonl, its blobs/ folder beside it), or a run id read from --state.",
        metavar="TRANSCRIPT|RUN_ID",
    ),
]
StateOpt = Annotated[
    str | None,
    typer.Option(
        "--state", help="Where a RUN_ID's run lives: a state directory or a postgresql:// URL.", metavar="DIR|URL"
    ),
]


def _transcript(given: str, state: str | None) -> Path:
    """The transcript file a command reads: the path given, or the run's, from its store (a team's
    database writes it into this machine's cache first). A bad argument ends in one line, exit 2."""
    path = Path(given)
    if not path.exists() and not given.endswith(".jsonl") and "/" not in given:
        from agent.store.open import open_store
        from agent.store.records import StateDirError, UnknownRun

        try:
            path = open_store(state, read_only=True).readable_transcript(given)
        except UnknownRun:
            typer.echo(
                f"error: no transcript file {given} and no run {given!r} in the state; "
                "pass a <run_id>.jsonl file, or a run id with --state DIR|URL",
                err=True,
            )
            raise typer.Exit(2) from None
        except StateDirError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
    _exists(path)
    return path


def _exists(path: Path) -> None:
    """A readable file whose first line is a transcript event; anything else ends in one line, exit 2."""
    if not path.is_file():
        typer.echo(f"error: no transcript at {path}; pass the path of a <run_id>.jsonl file", err=True)
        raise typer.Exit(2)
    try:
        problem = not_a_transcript(path)
    except OSError as exc:
        problem = f"cannot read {path} ({exc.strerror})"
    if problem is not None:
        typer.echo(f"error: {problem}; pass the path of a <run_id>.jsonl file that opsagent wrote", err=True)
        raise typer.Exit(2)


@transcript_app.command("verify")
def verify(
    given: TranscriptArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as a JSON object.")] = False,
    state: StateOpt = None,
) -> None:
    """Check the hash chain and the referenced blobs; exit 1 naming the first bad sequence number."""
    transcript = _transcript(given, state)
    result = verify_transcript(transcript)
    if as_json:
        obj: dict[str, Any] = {
            "ok": result.ok,
            "events": result.events,
            "head": result.head,
            "finished": result.finished,
            "problems": [{"kind": p.kind, "seq": p.seq, "line": p.line, "message": p.message} for p in result.problems],
        }
        typer.echo(json.dumps(obj))
    elif result.ok:
        blobs = f" and {result.blobs_checked} blobs" if result.blobs_checked else ""
        typer.echo(f"ok: {result.events} events{blobs} verified in {transcript}; last hash {result.head}")
        if result.torn_lines_recorded:
            typer.echo(f"note: {result.torn_lines_recorded} torn line(s) from a crash, each recorded by the writer")
        if not result.finished:
            typer.echo("note: no run_finished event: the run is still going, crashed, or its tail was cut")
    else:
        first = result.problems[0]
        typer.echo(f"FAILED: {first.kind} at seq {first.seq}: {first.message}")
        for p in result.problems[1:]:
            typer.echo(f"also: {p}")
        typer.echo(f"{result.events} events verify before the first problem")
    if not result.ok:
        raise typer.Exit(1)


@transcript_app.command("replay")
def replay(
    given: TranscriptArg,
    only: Annotated[
        str | None, typer.Option("--only", help=f"Show only: {'|'.join(ONLY_CHOICES)}.", metavar="KIND")
    ] = None,
    steps: Annotated[str | None, typer.Option("--steps", help="Step range: 5, 3-8, 3- or -8.")] = None,
    grep: Annotated[str | None, typer.Option("--grep", help="Only events containing TEXT (any case).")] = None,
    follow_: Annotated[
        bool, typer.Option("--follow", "-f", help="Keep printing as a live run appends, until it finishes.")
    ] = False,
    export: Annotated[
        Path | None,
        typer.Option(
            "--export",
            help="Write a self-contained audit report (FILE.md, or FILE.html with charts); the filters apply "
            "to its timeline.",
        ),
    ] = None,
    state: StateOpt = None,
) -> None:
    """A readable timeline of a run. Reads files only; never touches a host."""
    transcript = _transcript(given, state)
    try:
        flt = Filter(only=only, steps=parse_steps(steps), grep=grep)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if export is not None:
        try:
            out = export_report(transcript, export, flt)
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"wrote {out}")
        exported = verify_transcript(transcript)
        if not exported.ok:  # the report is written for the auditor, but never passes for a good one
            typer.echo(f"!! WARNING: this transcript does not verify: {exported.problems[0]}; see `opsagent verify`")
            raise typer.Exit(1)
        return
    checked = None if follow_ else verify_transcript(transcript)
    if checked is not None and not checked.ok:
        typer.echo(safe(f"!! WARNING: this transcript does not verify: {checked.problems[0]}; see `opsagent verify`"))
    lines = follow(transcript, flt) if follow_ else render_file(transcript, flt)
    shown = 0
    try:
        for line in lines:
            shown += 0 if line.startswith("!!") else 1
            typer.echo(safe(line))  # a goal, a reply or a host's output may hold escape sequences
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    if shown == 0 and (only or steps or grep):
        typer.echo(f"no events match {_describe_filter(only, steps, grep)} in {transcript}")
    if checked is not None and not checked.ok:
        raise typer.Exit(1)


def _describe_filter(only: str | None, steps: str | None, grep: str | None) -> str:
    parts = [f"--only {only}"] if only else []
    parts += [f"--steps {steps}"] if steps else []
    parts += [f"--grep {grep!r}"] if grep else []
    return " ".join(parts)


@transcript_app.command("rerun")
def rerun(
    given: TranscriptArg,
    target: Annotated[str, typer.Option("--target", help="lab:NAME - the lab scenario to re-execute against.")],
    force: Annotated[bool, typer.Option("--force", help="Rerun even when the transcript does not verify.")] = False,
) -> None:
    """Re-execute the recorded decisions against the lab to reproduce a session (unlike replay, it acts)."""
    transcript = _transcript(given, None)
    if not target.startswith("lab:") or target == "lab:":
        typer.echo(
            f"error: --target {target!r}: rerun only re-executes against the lab (lab:NAME); "
            "to inspect a run without executing anything use `opsagent replay`",
            err=True,
        )
        raise typer.Exit(2)
    result = verify_transcript(transcript)
    if not result.ok and not force:
        typer.echo(
            f"error: the transcript does not verify ({result.problems[0]}); use --force to rerun anyway",
            err=True,
        )
        raise typer.Exit(1)
    from agent.loop.rerun import rerun_transcript

    outcome = rerun_transcript(transcript, target)
    if outcome is not None:
        typer.echo(str(outcome))


pull_app = typer.Typer(help="A run's transcript out of its state (a team's database), to verify or keep offline.")


@pull_app.command("pull")
def pull(
    run_id: Annotated[str, typer.Argument(help="The run whose transcript to write.", metavar="RUN_ID")],
    out: Annotated[Path, typer.Option("-o", "--output", help="The .jsonl file to write; blobs/ goes beside it.")],
    state: StateOpt = None,
) -> None:
    """Write RUN_ID's transcript to FILE, byte for byte as recorded, with its blobs beside it."""
    from agent.store.open import open_store
    from agent.store.records import StateDirError, UnknownRun

    if out.suffix != ".jsonl":
        typer.echo(f"error: -o {out}: name a .jsonl file (its blobs/ folder is written beside it)", err=True)
        raise typer.Exit(2)
    try:
        written = open_store(state).pull_transcript(run_id, out)
    except UnknownRun:
        typer.echo(f"error: no run {run_id!r} in the state; 'opsagent inbox' lists runs", err=True)
        raise typer.Exit(2) from None
    except (StateDirError, OSError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        typer.echo(f"error: cannot write {out}: {why}", err=True)
        raise typer.Exit(2) from None
    result = verify_transcript(written)
    typer.echo(
        f"wrote {written}: {result.events} events"
        + ("" if result.ok else f"; it does not verify: {result.problems[0]}")
    )
    if not result.ok:
        raise typer.Exit(1)
