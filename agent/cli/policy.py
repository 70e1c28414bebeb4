"""`opsagent policy check|test|explain`: the policy gate from the command line.

Exit codes: check 0 allow, 10 ask, 20 deny; test 1 when an example fails; 2 when a policy file
cannot be loaded (one line on stderr, no traceback).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from agent.policy.examples import ExampleResult, run_examples
from agent.policy.facts import visible
from agent.policy.loader import PolicyLoadError
from agent.policy.policyset import PolicySet, load_policy_set

EXIT = {"allow": 0, "ask": 10, "deny": 20}

policy_app = typer.Typer(
    help="Judge commands against the policy gate, test a policy's examples, explain a verdict.",
    no_args_is_help=True,
    add_completion=False,
)

PolicyOpt = Annotated[
    list[Path] | None,
    typer.Option("--policy", "-p", help="policy file (repeatable; an overlay of host facts only adds to the default)"),
]


def _load(paths: list[Path] | None) -> PolicySet:
    try:
        return load_policy_set(paths or [])
    except PolicyLoadError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def _command_text(words: list[str]) -> str:
    return words[0] if len(words) == 1 else " ".join(words)


@policy_app.command("check")
def check(
    command: Annotated[list[str], typer.Argument(help="the command (after --)")],
    policy: PolicyOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help='print {"decision", "rules", "reason"}')] = False,
) -> None:
    """Judge COMMAND: exit 0 allow, 10 ask, 20 deny."""
    ps = _load(policy)
    verdict = ps.evaluate_command(_command_text(command))
    if as_json:
        typer.echo(json.dumps({"decision": verdict.decision, "rules": verdict.rules, "reason": verdict.reason}))
    else:
        typer.echo(f"{verdict.decision}  rules: {', '.join(verdict.rules) or '-'}")
        typer.echo(f"  {verdict.reason}")
    raise typer.Exit(EXIT[verdict.decision])


@policy_app.command("explain")
def explain(
    command: Annotated[list[str], typer.Argument(help="the command (after --)")],
    policy: PolicyOpt = None,
) -> None:
    """Print every command the gate found in COMMAND, what it does, and the rule that decided it."""
    ps = _load(policy)
    text = _command_text(command)
    verdicts = ps.explain(text)
    typer.echo(f"policy {ps.version}: {len(verdicts)} command(s) in {text!r}")
    for n, v in enumerate(verdicts, 1):
        inv = v.invocation
        typer.echo(f"{n}. {inv.describe()}")
        for w in inv.writes:
            content = "" if w.content is None else f" content={w.content.strip()[:40]!r}"
            typer.echo(f"     writes  {' = '.join(visible(a) for a in w.path.aliases)}{content}")
        for d in inv.deletes:
            typer.echo(f"     deletes {' = '.join(visible(a) for a in d.aliases)}")
        for r in inv.reads:
            typer.echo(f"     reads   {' = '.join(visible(a) for a in r.aliases)}")
        for s in inv.signals:
            typer.echo(f"     signal  {s.detail} -> {s.target}")
        if inv.env:
            typer.echo(f"     env     {', '.join(f'{k}={visible(val)}' for k, val in inv.env.items())}")
        if inv.gpus is not None:
            typer.echo(f"     gpus    {', '.join(sorted(inv.gpus))}")
        rules = ", ".join(r.id for r in v.rules) or ("fail-closed" if inv.opaque else "default")
        typer.echo(f"   -> {v.decision} ({rules}): {v.reason}")
    final = ps.evaluate_command(text)
    typer.echo(f"verdict: {final.decision} ({', '.join(final.rules)})")
    raise typer.Exit(EXIT[final.decision])


@policy_app.command("test")
def test(
    files: Annotated[list[Path] | None, typer.Argument(help="policy files (default: the default policy)")] = None,
    policy: PolicyOpt = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="list every example")] = False,
) -> None:
    """Check every example in the policy files; exit 1 when one does not hold."""
    ps = _load([*(files or []), *(policy or [])])
    results = run_examples(ps)
    failed = [r for r in results if not r.ok]
    for r in results if verbose else failed:
        _print_result(r)
    by_cat: dict[str, int] = {}
    for r in results:
        by_cat[r.example.category] = by_cat.get(r.example.category, 0) + 1
    cats = ", ".join(f"{k} {v}" for k, v in sorted(by_cat.items()))
    typer.echo(f"{len(results) - len(failed)}/{len(results)} examples hold ({cats}); policy {ps.version}")
    if not results:
        typer.echo("error: the policy has no examples", err=True)
        raise typer.Exit(1)
    raise typer.Exit(1 if failed else 0)


def _print_result(r: ExampleResult) -> None:
    mark = "ok  " if r.ok else "FAIL"
    subject = r.example.command if r.example.command is not None else f"action {r.example.action}"
    out = sys.stdout
    print(f"{mark} {r.source}: [{r.example.category}] {subject!r}", file=out)
    if not r.ok:
        want = r.example.decision + (f" by {r.example.rule}" if r.example.rule else "")
        print(f"     expected {want}, got {r.verdict.decision} by {', '.join(r.verdict.rules) or '-'}", file=out)
        print(f"     reason: {r.verdict.reason}", file=out)


def main() -> None:  # pragma: no cover - `python -m agent.cli.policy` before the lead wires the CLI
    policy_app()


if __name__ == "__main__":  # pragma: no cover
    main()
