"""The `opsagent` command line. The contract is in DESIGN.md, "Command-line contract"."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer

from agent.cli import exitcodes
from agent.cli.lazy import lazy_group
from agent.cli.notify import NotifyFormatOpt, NotifyOpt, PublicUrlOpt

# What drives a run (LangGraph, the lab, the deciders, the store, rich's console) is imported by
# the commands that use it, and the sub-commands below when they run: `opsagent policy check`
# loads the policy gate and little else (benchmarks/bench_policy.py measures its start-up).
if TYPE_CHECKING:
    from rich.console import Console

    from agent.config import LoopConfig
    from agent.hearing.approvers import Approver, InboxApprover
    from agent.state import Goal, Question, Reply
    from agent.store.records import RunSpec
    from agent.store.sqlite import Store
    from tools.lab.target import LabTarget

# Sub-commands by name -> 'module:attribute', imported when used (agent/cli/lazy.py): a
# typer.Typer is mounted as a group (`opsagent policy check`), a function as one command. To add
# one, write it in its own module and add a line here; `opsagent --help` lists them in this order.
SUBCOMMANDS: dict[str, str] = {
    "verify": "agent.cli.transcript:verify",
    "replay": "agent.cli.transcript:replay",
    "rerun": "agent.cli.transcript:rerun",
    "transcript": "agent.cli.transcript:pull_app",
    "doctor": "agent.cli.doctor:doctor_command",
    "policy": "agent.cli.policy:policy_app",
    "lab": "agent.cli.lab:lab_app",
    "inbox": "agent.cli.inbox:inbox_app",
    "sandbox": "agent.cli.sandbox:sandbox_app",
    "serve": "agent.cli.serve:serve_command",
    "user": "agent.cli.user:user_app",
}

app = typer.Typer(
    cls=lazy_group(SUBCOMMANDS),
    name="opsagent",
    help="An agent that runs long, risky GPU deployment sessions for you, and asks when it must.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's plain layout: metavars in words, readable at 80 columns
)


class _LazyConsole:
    """rich's console, made when first printed to: commands that print with typer.echo (policy)
    or not at all start without it."""

    def __init__(self, stderr: bool) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from agent.cli.outcome import output_console

            self._console = output_console(stderr=self._stderr)
        return getattr(self._console, name)


console = cast("Console", _LazyConsole(stderr=False))
err_console = cast("Console", _LazyConsole(stderr=True))

DEMO_SCENARIO = "p2p-corruption"
MILESTONES = ("server-ready", "benchmarked")  # what deciders mark their actions with (state.Decision.milestone)
SCRIPTED_NOTE = (
    "stdin is not a terminal: a scripted operator answers my questions. It says 'continue if you have "
    "next steps', signs off a met goal, and denies anything the policy marks for approval."
)

StateOpt = Annotated[
    str | None,
    typer.Option(
        "--state", help="state directory or postgresql://USER:PASSWORD@HOST/DB (default ./.opsagent or $OPSAGENT_STATE)"
    ),
]
TranscriptsOpt = Annotated[
    str | None,
    typer.Option("--transcripts", help="transcripts directory (default ./transcripts or $OPSAGENT_TRANSCRIPTS)"),
]
AsOpt = Annotated[str | None, typer.Option("--as", help="the name recorded for your replies (default: your OS user)")]


@app.callback()
def main_options(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="show opsagent's own diagnostic log")] = False,
) -> None:
    if verbose:  # quiet is the default, set by whoever logs (agent/loop/graph.py imports agent.diagnostics)
        from agent.diagnostics import configure as configure_diagnostics

        configure_diagnostics(verbose)


class AnnouncedInbox:
    """Without a terminal: print the report and exactly how to answer, say that it waits, then wait."""

    name = "inbox"

    def __init__(self, inner: InboxApprover, run_id: str) -> None:
        self.inner, self.run_id = inner, run_id
        self._shown = ""  # the last report printed whole: the next one shows what changed

    def answer(self, question: Question) -> Reply | None:
        from rich.markdown import Markdown

        from agent.hearing.hints import reply_hint, report_changes

        report = question.report_markdown
        if self._shown and report:
            console.print(Markdown(report_changes(self._shown, report)))
            console.print(f"whole report: opsagent inbox show {self.run_id}", soft_wrap=True, markup=False)
        else:
            console.print(Markdown(report or question.question))
        self._shown = report
        console.print(
            f"waiting for a reply (no terminal to ask at); answer from any shell: {reply_hint(self.run_id, question)}",
            soft_wrap=True,
            markup=False,
            highlight=False,
        )
        return self.inner.answer(question)


def _approver_factory(kind: str, store: Store, who: str | None) -> Any:
    from agent.hearing.approvers import InboxApprover, LeaveInInbox, ScriptedOperator, TerminalApprover
    from agent.loop.graph import operator_name

    def make(run_id: str) -> Approver:
        if kind == "scripted":
            return ScriptedOperator(console=console)
        if kind == "none":
            return LeaveInInbox()
        if kind == "inbox":
            return AnnouncedInbox(InboxApprover(store, run_id), run_id)
        return TerminalApprover(store, run_id, operator_name(who), console)

    return make


def _transcripts_dir(flag: str | None) -> Path:
    from agent.store.records import ensure_writable_dir, resolve_transcripts_dir

    return ensure_writable_dir(
        resolve_transcripts_dir(flag), "transcripts directory", "--transcripts (or OPSAGENT_TRANSCRIPTS)"
    )


def _auto_approver(requested: str) -> str:
    if requested != "auto":
        return requested
    return "terminal" if sys.stdin.isatty() else "inbox"


def _choose_decider(requested: str, model: str | None) -> str:
    """The runbook is the default when no model is configured (DESIGN.md, "The loop")."""
    if requested != "auto":
        return requested
    from agent.llm_config import LLMConfigError, load_llm_settings

    try:
        load_llm_settings(model=model)
    except LLMConfigError as exc:
        why = str(exc)
        if why.startswith("no model configured"):
            why = "no model configured (--model NAME or OPSAGENT_MODEL lets a model decide)"
        console.print(f"[dim]using the runbook decider: {why}[/dim]", highlight=False)
        return "runbook"
    return "llm"


def _policies_for(lab: LabTarget | None, policies: list[Path], store: Store) -> list[str]:
    """The operator's policy files; on the lab, plus the scenario's host facts as an overlay."""
    from agent.loop.lab_facts import write_facts_overlay

    paths = [str(p) for p in policies]
    if lab is not None:
        paths.append(str(write_facts_overlay(lab, store.state_dir)))
    return paths


def _spec(
    *,
    goal: Goal,
    target: str,
    decider: str,
    model: str | None,
    policies: list[str],
    loop: LoopConfig,
    identity: Path | None,
    accept_new_host_key: bool,
    seed: int,
    transcripts: Path,
    run_id: str | None = None,
) -> RunSpec:
    from agent.loop.runner import new_run_id
    from agent.store.records import RunSpec

    rid = run_id or new_run_id()
    return RunSpec(
        run_id=rid,
        goal=goal.model_dump(mode="json"),
        target=target,
        decider=decider,
        model=model,
        policies=policies,
        loop=loop.model_dump(mode="json"),
        identity=str(identity) if identity else None,
        accept_new_host_key=accept_new_host_key,
        seed=seed,
        transcript=str((transcripts / f"{rid}.jsonl").resolve()),
    )


@app.command()
def demo(
    scenario: Annotated[str, typer.Option(help="lab scenario to run")] = DEMO_SCENARIO,
    state: StateOpt = None,
    transcripts: TranscriptsOpt = None,
    as_: AsOpt = None,
) -> None:
    """An offline run on a lab scenario with the runbook decider, asking you when it must."""
    from agent.cli.outcome import print_outcome
    from agent.config import load_loop_config
    from agent.loop.lab_facts import open_lab, scenario_goal
    from agent.loop.runner import start_run
    from agent.store.open import open_store

    store = open_store(state)
    transcripts_dir = _transcripts_dir(transcripts)
    target = f"lab:{scenario}"
    lab = open_lab(target)
    goal = scenario_goal(lab)
    interactive = sys.stdin.isatty()
    if not interactive:
        console.print(f"[bold]{SCRIPTED_NOTE}[/bold]")
    console.print(f"[bold]opsagent demo[/bold] on {target}: {goal.text}")
    spec = _spec(
        goal=goal,
        target=target,
        decider="runbook",
        model=None,
        policies=_policies_for(lab, [], store),
        loop=load_loop_config({}),
        identity=None,
        accept_new_host_key=False,
        seed=0,
        transcripts=transcripts_dir,
    )
    approvers = _approver_factory("terminal" if interactive else "scripted", store, as_)
    outcome = start_run(spec, store, approvers, target=lab, echo=console)
    raise typer.Exit(print_outcome(console, outcome))


@app.command()
def run(
    goal: Annotated[
        str | None,
        typer.Option(help="what to achieve, with the numbers and constraints (lab: the scenario's goal)"),
    ] = None,
    goal_stdin: Annotated[
        bool, typer.Option("--goal-stdin", help="read the goal from standard input (kept out of `ps`)")
    ] = False,
    target: Annotated[str, typer.Option(help="lab:NAME, local, or ssh://user@host[:port]")] = "",
    policy: Annotated[list[Path] | None, typer.Option("--policy", help="policy file (repeatable)")] = None,
    decider: Annotated[
        str, typer.Option(help="runbook, llm, or auto: llm when a model is configured, else runbook")
    ] = "auto",
    model: Annotated[str | None, typer.Option(help="model name for the llm decider")] = None,
    max_steps: Annotated[int | None, typer.Option(help="ask after this many actions (default 200)")] = None,
    question_ttl: Annotated[
        float | None, typer.Option(help="seconds before an unanswered question counts as deny (default 1 day)")
    ] = None,
    detach: Annotated[bool, typer.Option(help="return once the run waits; prints the run id last")] = False,
    queue: Annotated[
        bool, typer.Option(help="leave the run to 'opsagent worker': record it as queued, print its id")
    ] = False,
    identity: Annotated[Path | None, typer.Option(help="SSH private key file")] = None,
    accept_new_host_key: Annotated[
        bool, typer.Option(help="trust an unknown SSH host key (its fingerprint goes into the transcript)")
    ] = False,
    approver: Annotated[
        str, typer.Option(help="auto, terminal, inbox (wait for 'opsagent reply'), none, scripted")
    ] = "auto",
    seed: Annotated[int, typer.Option(help="lab seed")] = 0,
    run_id: Annotated[str | None, typer.Option(help="choose the run id (default: time + random)")] = None,
    state: StateOpt = None,
    transcripts: TranscriptsOpt = None,
    as_: AsOpt = None,
    notify_url: NotifyOpt = None,
    notify_format: NotifyFormatOpt = None,
    public_url: PublicUrlOpt = None,
) -> None:
    """Run the agent towards a goal on a target."""
    from agent.cli.notify import setup_notify
    from agent.cli.outcome import print_outcome
    from agent.config import load_loop_config
    from agent.hearing.goal import on_lab, parse_goal
    from agent.loop.lab_facts import open_lab, scenario_goal
    from agent.loop.runner import start_run
    from agent.store.open import open_store

    setup_notify(notify_url, notify_format, public_url)

    if not target:
        raise typer.BadParameter("--target is required: lab:NAME, local, or ssh://user@host[:port]")
    if goal_stdin:
        if goal is not None:
            raise typer.BadParameter("give the goal once: --goal TEXT or --goal-stdin")
        goal = sys.stdin.read().strip() or None  # the web's runs: a goal in argv shows in `ps`
    lab = open_lab(target, seed) if target.startswith("lab:") else None
    lab_goal = scenario_goal(lab) if lab is not None else None
    if lab_goal is not None and goal is None:
        parsed = lab_goal  # a lab scenario carries its own goal
    else:
        parsed = parse_goal(goal or "")  # an empty --goal is an error, also on the lab
        if lab_goal is not None:
            parsed = on_lab(parsed, lab_goal)  # never the scenario's numbers, silently
    store = open_store(state)
    transcripts_dir = _transcripts_dir(transcripts)
    spec = _spec(
        goal=parsed,
        target=target,
        decider=_choose_decider(decider, model),
        model=model,
        policies=_policies_for(lab, policy or [], store),
        loop=load_loop_config({"max_steps": max_steps, "question_ttl_s": question_ttl}),
        identity=identity,
        accept_new_host_key=accept_new_host_key,
        seed=seed,
        transcripts=transcripts_dir,
        run_id=run_id,
    )
    spec = _with_goal_rules(spec, parsed, store)
    if queue:
        _queue(spec, store)
        return
    if detach:
        _detach(spec, store)
        return
    approvers = _approver_factory(_auto_approver(approver), store, as_)
    outcome = start_run(spec, store, approvers, target=lab, echo=console)
    raise typer.Exit(print_outcome(console, outcome))


def _with_goal_rules(spec: RunSpec, goal: Goal, store: Store) -> RunSpec:
    """The goal's "never X" clauses, as deny rules in a policy overlay of this run (agent.hearing.goal)."""
    from agent.hearing.goal import with_goal_rules

    return spec.model_copy(update={"policies": with_goal_rules(spec.policies, goal, store.state_dir, spec.run_id)})


def _queue(spec: RunSpec, store: Store) -> None:
    from agent.policy.policyset import load_policy_set

    load_policy_set([Path(p) for p in spec.policies])  # a bad policy file is said now, not by the worker
    store.keep_policies(spec)  # a worker on another machine of a team's database loads these bytes
    store.add_run(spec, status="queued")
    console.print(f"queued; 'opsagent worker' on this state drives it. transcript: {spec.transcript}", soft_wrap=True)
    print(spec.run_id)


def _detach(spec: RunSpec, store: Store) -> None:
    from agent.hearing.hints import reply_hint
    from agent.store import at_rest

    spec_file = store.state_dir / "specs" / f"{spec.run_id}.json"
    spec_file.parent.mkdir(parents=True, exist_ok=True)
    # scrubbed as the store keeps it, and readable by this user only
    fd = os.open(spec_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a file left by an older version keeps its mode otherwise
    with os.fdopen(fd, "w") as out:
        out.write(at_rest.scrub_json(at_rest.scrubber(), spec.model_dump_json()))
    log = store.state_dir / "specs" / f"{spec.run_id}.log"
    with os.fdopen(os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "agent.cli", "worker", str(spec_file)],
            env={**os.environ, "OPSAGENT_STATE": store.state_arg},  # a URL's password stays out of `ps`
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    while True:
        try:
            record = store.get_run(spec.run_id)
        except KeyError:
            record = None
        if record is not None and (
            record.status in ("finished", "stopped", "failed", "waiting") or store.current_question(spec.run_id)
        ):
            break
        if worker.poll() is not None and record is None:
            tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
            raise typer.Exit(_fail(f"the run could not start: {tail[0] if tail else 'see ' + str(log)}"))
        time.sleep(0.2)
    status = store.get_run(spec.run_id).status
    question = store.current_question(spec.run_id)
    console.print(f"transcript: {spec.transcript}")
    if question is not None:
        console.print(f"waiting: {question.question}", soft_wrap=True)
        console.print(f"answer with: {reply_hint(spec.run_id, question)}", soft_wrap=True, markup=False)
    else:
        console.print(f"status: {status}")
    print(spec.run_id)
    if question is not None or status == "waiting":
        raise typer.Exit(exitcodes.WAITING)
    raise typer.Exit(_finished_code(Path(spec.transcript)))


def _finished_code(transcript: Path) -> int:
    """A detached run that already ended: its run_finished event says whether it met its goal."""
    from agent.transcript.reader import read_events

    last = [e.payload for e in read_events(transcript) if e.type == "run_finished"][-1:]
    if last:
        p = last[0]
        return exitcodes.for_outcome(str(p.get("status")), bool(p.get("goal_met")), bool(p.get("signed_off_by")))
    return exitcodes.NOT_MET


@app.command()
def worker(
    spec_file: Annotated[Path | None, typer.Argument(hidden=True)] = None,
    poll: Annotated[float, typer.Option(help="seconds between looks for runs that need a driver")] = 1.0,
    state: StateOpt = None,
) -> None:
    """Drive the runs that need a driver: queued ones, those whose driver died (their lease lapsed),
    and waiting ones once answered. Runs until interrupted."""
    from agent.cli.notify import setup_notify

    setup_notify(None, None, None)  # webhooks come through the environment (`run --detach --notify`)
    if spec_file is not None:  # `run --detach` starts one of these for its run; replies come from 'reply'
        from agent.cli.outcome import print_outcome
        from agent.loop.runner import start_run
        from agent.store.open import open_store
        from agent.store.records import RunSpec

        spec = RunSpec.model_validate_json(spec_file.read_text())
        store = open_store(state)
        outcome = start_run(spec, store, _approver_factory("inbox", store, None))
        raise typer.Exit(print_outcome(console, outcome))
    from agent.loop.worker import serve_forever

    serve_forever(state, poll_s=poll, console=console)


@app.command()
def resume(
    run_id: str,
    approver: Annotated[str, typer.Option(help="auto, terminal, inbox, none, scripted")] = "auto",
    state: StateOpt = None,
    as_: AsOpt = None,
    notify_url: NotifyOpt = None,
    notify_format: NotifyFormatOpt = None,
    public_url: PublicUrlOpt = None,
) -> None:
    """Continue a run from its checkpoint (after a crash, or after 'opsagent reply')."""
    from agent.cli.notify import setup_notify
    from agent.cli.outcome import print_outcome
    from agent.loop.runner import resume_run
    from agent.store.open import open_store

    setup_notify(notify_url, notify_format, public_url)

    store = open_store(state)
    outcome = resume_run(run_id, store, _approver_factory(_auto_approver(approver), store, as_), echo=console)
    raise typer.Exit(print_outcome(console, outcome))


@app.command()
def reply(
    run_id: str,
    verb: Annotated[
        str | None,
        typer.Argument(
            help="approve, deny, stop, continue, N to pick step N of the report, or words in quotes"
            " ('looks good, ship it', 'no, too risky') read as the terminal reads them"
        ),
    ] = None,
    steps: Annotated[int | None, typer.Option(help="with continue: autonomous steps granted")] = None,
    until: Annotated[str | None, typer.Option(help="with continue: autonomy until this milestone")] = None,
    edit: Annotated[str | None, typer.Option("--edit", help="run this command instead")] = None,
    say: Annotated[str | None, typer.Option("--say", help="an instruction in plain words")] = None,
    reason: Annotated[str | None, typer.Option(help="with deny: why (the decider reads it)")] = None,
    question: Annotated[
        str | None,
        typer.Option("--question", metavar="ID", help="answer only this question (as 'inbox' lists it)"),
    ] = None,
    digest: Annotated[
        str | None,
        typer.Option(
            "--digest", metavar="HEX", help="approve only the action with this digest ('inbox --json' shows it)"
        ),
    ] = None,
    state: StateOpt = None,
    as_: AsOpt = None,
) -> None:
    """Answer a waiting question; the run resumes from its checkpoint."""
    from agent.hearing.post import post_cli_reply as _post
    from agent.hearing.replies import Answered
    from agent.loop.graph import operator_name
    from agent.store.open import open_store

    if until is not None and until not in MILESTONES:
        raise typer.Exit(_fail(f"--until {until!r}: the milestones are {', '.join(MILESTONES)}"))
    store = open_store(state)
    try:
        message = _post(
            store,
            run_id,
            verb=verb,
            steps=steps,
            until=until,
            edit=edit,
            say=say,
            reason=reason,
            who=operator_name(as_),
            question_id=question,
            shown_digest=digest,
        )
    except Answered as answered:  # a question to the agent: answered, and the run's question still waits
        console.print(str(answered), markup=False, highlight=False)
        return
    closed = _close_stopped(store, run_id) if verb == "stop" else None
    if closed is not None:  # nothing to resume: say what happened, not how to go on
        console.print(message.partition("; continue the run with:")[0], soft_wrap=True)
        console.print(closed, soft_wrap=True)
        return
    console.print(message, soft_wrap=True)


def _close_stopped(store: Store, run_id: str) -> str | None:
    """A stop needs no `resume` when no process drives the run: it is closed here (the line that
    says so is returned); None when the process that drives it takes the stop itself."""
    from agent.cli.inbox import driver_alive
    from agent.hearing.approvers import LeaveInInbox
    from agent.loop.runner import resume_run

    record = store.get_run(run_id)
    if record.status in ("finished", "stopped") or driver_alive(store, record):
        return None
    outcome = resume_run(run_id, store, lambda _rid: LeaveInInbox())
    return f"run {run_id} {outcome.status}; transcript: {outcome.transcript}"


@app.command("eval")
def eval_command(
    scenario: Annotated[list[str] | None, typer.Option("--scenario", help="scenario name or file (repeatable)")] = None,
    decider: Annotated[str, typer.Option(help="runbook or llm")] = "runbook",
    model: Annotated[str | None, typer.Option(help="model for the llm decider")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="machine-readable scorecard")] = False,
    seed: Annotated[int, typer.Option(help="lab seed; with families, the first variant's seed")] = 0,
    family: Annotated[list[Path] | None, typer.Option("--family", help="a scenario family file (repeatable)")] = None,
    families: Annotated[bool, typer.Option("--families", help="every shipped family")] = False,
    variants: Annotated[int, typer.Option(help="variants per family (seeds SEED..SEED+N-1)")] = 20,
    jobs: Annotated[int | None, typer.Option(help="worker processes (default: the CPUs, at most 4)")] = None,
) -> None:
    """Run deciders against lab scenarios (and family variants) with a scripted operator; print a scorecard."""
    from agent.cli.eval import run_eval_command

    run_eval_command(
        scenario or [],
        decider=decider,
        model=model,
        json_out=json_out,
        seed=seed,
        family=family or [],
        families=families,
        variants=variants,
        jobs=jobs,
        console=console,
    )


def _fail(message: str) -> int:
    from rich.text import Text  # the message is text: `deny [reason]` is not markup

    err_console.print(Text.assemble(("error:", "red"), " ", message), highlight=False, soft_wrap=True)
    return exitcodes.BAD_INPUT


def _internal_error(exc: BaseException) -> int:
    """A bug: one line on stderr, the traceback in a file (or on stderr with --verbose)."""
    import tempfile
    import traceback

    text = "".join(traceback.format_exception(exc))
    if "-v" in sys.argv[1:] or "--verbose" in sys.argv[1:]:
        sys.stderr.write(text)
    with tempfile.NamedTemporaryFile("w", prefix="opsagent-crash-", suffix=".txt", delete=False) as fh:
        fh.write(text)
    err_console.print(
        f"[red]internal error[/red] (a bug in opsagent, not your input): {type(exc).__name__}: {exc}; "
        f"the traceback is in {fh.name}",
        highlight=False,
        soft_wrap=True,
        markup=True,
    )
    return exitcodes.INTERNAL_ERROR


def main() -> None:
    """Errors the operator can fix end in one line naming what to do, never a traceback."""
    from agent.cli.help import word_metavars

    try:
        word_metavars(typer.main.get_command(app))(prog_name="opsagent")
    except KeyboardInterrupt:  # between runs (a run's own Ctrl-C is RunInterrupted, below)
        err_console.print("interrupted (Ctrl-C)", highlight=False, soft_wrap=True, markup=False)
        sys.exit(exitcodes.INTERRUPTED)
    except Exception as exc:
        from agent.loop.interrupt import RunInterrupted

        if isinstance(exc, RunInterrupted):
            console.print()  # end the line the key was pressed on (a prompt, a step's status)
            err_console.print(str(exc), highlight=False, soft_wrap=True, markup=False)
            sys.exit(exitcodes.INTERRUPTED)
        # The user-error classes live beside what raises them (the store, the runner): load
        # them only when something went wrong, so a command's start does not pay for them.
        from agent.cli.errors import USER_ERRORS
        from agent.store.records import UnknownRun

        if isinstance(exc, UnknownRun):
            sys.exit(_fail(f"unknown run {exc.args[0]!r}; 'opsagent inbox' lists waiting runs"))
        sys.exit(_fail(str(exc)) if isinstance(exc, USER_ERRORS) else _internal_error(exc))
