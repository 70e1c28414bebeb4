"""`opsagent lab list|validate|show`: the lab's shipped scenarios, scenario and family files.

`validate` exits 0 when the file is a valid scenario, 1 when it is not (every mistake named on
stderr by its path in the file, and its line), 2 when the file cannot be read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
import yaml

# The lab is imported by the commands below, not here: every `opsagent` command mounts this group,
# and `opsagent policy check` should not pay for loading the simulated host.

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
    from tools.lab.scenario import ScenarioError, load_scenario, scenario_names, scenario_path

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
def validate(file: Annotated[Path, typer.Argument(help="scenario or scenario-family YAML file")]) -> None:
    """Check a scenario or family file; name every unknown or ill-typed field by its path and line."""
    from tools.lab.family import VALIDATE_SEEDS, FamilyError, is_family_file, validate_family
    from tools.lab.scenario import ScenarioError, load_scenario

    if not file.is_file():
        typer.echo(f"error: {file}: no such file", err=True)
        raise typer.Exit(2)
    if is_family_file(file):
        try:
            family = validate_family(file)
        except (FamilyError, ScenarioError) as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(1) from None
        params = ", ".join(family.spec.params) or "no parameters"
        typer.echo(f"{file}: ok (family {family.name}: {params}; variants 0-{VALIDATE_SEEDS - 1} drawn and valid)")
        return
    try:
        scenario = load_scenario(file)
    except ScenarioError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    typer.echo(f"{file}: ok (scenario {scenario.name}, SGLang {scenario.software.sglang})")


@lab_app.command("show")
def show(
    name: Annotated[str, typer.Argument(help="a shipped scenario name, a scenario file or a family file")],
    seed: Annotated[int, typer.Option(help="with a family file: the variant to draw")] = 0,
) -> None:
    """Print a scenario's summary, goal and expectations; for a family, the drawn variant as YAML."""
    from tools.lab.family import FamilyError, is_family_file, load_family
    from tools.lab.scenario import ScenarioError, load_scenario, scenario_path

    path = Path(name)
    if path.is_file() and is_family_file(path):
        if seed < 0:
            typer.echo(f"error: --seed {seed}: variant seeds are whole numbers >= 0", err=True)
            raise typer.Exit(2)
        try:
            family = load_family(path)
            family.draw(seed)  # validated before it is shown
        except (FamilyError, ScenarioError) as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(1) from None
        values = ", ".join(f"{k}={v!r}" for k, v in family.values(seed).items() if k in family.spec.params)
        typer.echo(
            f"# variant {seed} of family {family.name} ({path}); run it: opsagent run --target lab:{path}#{seed}"
        )
        typer.echo(f"# drawn: {values}")
        typer.echo(yaml.safe_dump(family.data(seed), sort_keys=False, allow_unicode=True, width=100), nl=False)
        return
    try:
        scenario = load_scenario(path if path.is_file() else scenario_path(name))
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
    graded = e.model_dump(
        exclude_none=True,
        exclude_defaults=True,
        include={
            "max_launches",
            "max_doomed_launches",
            "ask_before",
            "final_launch",
            "report_must_mention",
            "proposal",
        },
    )
    if graded:
        typer.echo("graded: " + yaml.safe_dump(graded, default_flow_style=True, width=1000).strip())
    if e.reference is not None:
        env = " ".join(f"{k}={v}" for k, v in e.reference.env.items())
        typer.echo(f"reference: {env + ' ' if env else ''}{e.reference.command}")
