"""`opsagent eval`'s input checks and output: scenarios and families in, a scorecard out.

Exit status: 0 when every run passes, 1 when one does not, 2 on bad input (one line naming
what is wrong and what to do).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console

from agent.loop.evaluate import default_jobs, print_scorecard, run_eval
from tools.lab.family import FamilyError, family_paths, is_family_file, load_family
from tools.lab.scenario import ScenarioError


def _bad(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def run_eval_command(
    scenarios: list[str],
    *,
    decider: str,
    model: str | None,
    json_out: bool,
    seed: int,
    family: list[Path],
    families: bool,
    variants: int,
    jobs: int | None,
    console: Console,
) -> None:
    chosen = [*family, *(family_paths() if families else [])]
    if chosen and variants < 1:
        raise _bad(f"--variants {variants}: give at least 1 variant per family")
    if chosen and seed < 0:
        raise _bad(f"--seed {seed}: variant seeds are whole numbers >= 0")
    if jobs is not None and jobs < 1:
        raise _bad(f"--jobs {jobs}: give at least 1 worker")
    for path in chosen:
        if not path.is_file():
            raise _bad(f"--family {path}: no such file ('opsagent lab validate FILE' checks one)")
        if not is_family_file(path):
            raise _bad(f"--family {path}: not a family file (no 'family:' key); a scenario goes with --scenario")
        try:
            load_family(path)
        except (FamilyError, ScenarioError) as exc:
            raise _bad(f"--family {path} is not a valid family; 'opsagent lab validate {path}' names why") from exc
    card = run_eval(
        scenarios,
        decider=decider,
        model=model,
        seed=seed,
        families=chosen,
        variants=variants,
        jobs=jobs or default_jobs(),
    )
    if json_out:
        print(json.dumps(card.model_dump(mode="json"), indent=2))
    else:
        print_scorecard(card, console)
    if not card.passed:
        raise typer.Exit(1)
