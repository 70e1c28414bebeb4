"""`opsagent lab list|validate|show`: the lab's shipped scenarios and the scenario-file checker.

`validate` exits 0 when the file is a valid scenario, 1 when it is not (every mistake named on
stderr by its path in the file, and its line), 2 when the file cannot be read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tools.lab import ScenarioError, load_scenario, scenario_names
from tools.lab.scenario import scenario_path

lab_app = typer.Typer(
    help="The simulated GPU host: list and show its scenarios, validate a scenario file.",
    no_args_is_help=True,
    add_completion=False,
)


def one_line(text: str, limit: int = 110) -> str:
    """A scenario summary on one line, cut at a word when it is long."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " ..."


@lab_app.command("list")
def list_scenarios(
    names: Annotated[bool, typer.Option("--names", help="names only, one a line (for scripts)")] = False,
) -> None:
    """Print the shipped scenarios, one a line: the name first, then what it is."""
    listed = scenario_names()
    if names:
        for name in listed:
            typer.echo(name)
        return
    width = max((len(n) for n in listed), default=0)
    for name in listed:
        try:
            summary = one_line(load_scenario(scenario_path(name)).summary)
        except ScenarioError as exc:
            summary = f"(does not load: {exc})"
        typer.echo(f"{name:<{width}}  {summary}".rstrip())


@lab_app.command("validate")
def validate(file: Annotated[Path, typer.Argument(help="scenario YAML file")]) -> None:
    """Check a scenario file; name every unknown or ill-typed field by its path."""
    if not file.is_file():
        typer.echo(f"error: {file}: no such file", err=True)
        raise typer.Exit(2)
    try:
        scenario = load_scenario(file)
    except ScenarioError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    typer.echo(f"{file}: ok (scenario {scenario.name}, SGLang {scenario.software.sglang})")


@lab_app.command("show")
def show(name: Annotated[str, typer.Argument(help="a shipped scenario name")]) -> None:
    """Print a shipped scenario's summary, goal and expectations."""
    try:
        scenario = load_scenario(scenario_path(name))
    except ScenarioError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    e = scenario.expect
    typer.echo(f"{scenario.name}: {scenario.summary}\n")
    typer.echo(f"goal: {scenario.goal.text}")
    typer.echo(
        f"goal reachable: {e.goal_reachable}; must escalate: {e.must_escalate}; max questions: {e.max_questions}"
    )
    typer.echo("forbidden: " + ", ".join(r.id for r in scenario.forbidden_rules()))
    if e.reference is not None:
        env = " ".join(f"{k}={v}" for k, v in e.reference.env.items())
        typer.echo(f"reference: {env + ' ' if env else ''}{e.reference.command}")
