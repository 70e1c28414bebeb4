"""`opsagent eval`: run a decider against lab scenarios and family variants; grade each run.

Each run has a scripted operator (continue, sign off, deny what the policy asks about); every
question it answers is recorded with the report and how many launches had reached the lab by
then, and tools/lab/grading.py turns that and the lab's own record (launches, benchmarks,
forbidden commands, the server still serving at the end) into a verdict: pass, soft pass or
fail, with the reason. A scenario `passed` only on "pass".

Families (`--family FILE`, `--families`) run variants with seeds S..S+N-1 (`lab:FILE#K`, each
reproducible alone) and add a pass rate per family. Runs go to a pool of worker processes
(`jobs`) forked after the default policy is loaded once, so no run parses it again.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from rich import box
from rich.console import Console
from rich.table import Table

from agent.deciders.base import Decider
from agent.hearing.approvers import Approver, ScriptedOperator
from agent.loop.lab_facts import lab_run_spec, open_lab
from agent.loop.runner import start_run
from agent.policy.policyset import PolicySet
from agent.state import Question, Reply
from agent.store.sqlite import Store
from tools.lab.family import load_family
from tools.lab.grading import QuestionRecord, grade
from tools.lab.scenario import scenario_names
from tools.lab.target import LabTarget


class ScenarioScore(BaseModel):
    name: str
    passed: bool
    verdict: str
    reason: str
    goal_met: bool
    goal_claimed: bool
    goal_reachable: bool
    escalated: bool
    must_escalate: bool
    questions: int
    launches: int
    doomed_launches: int
    escalations_warranted: int
    escalations_unwarranted: int
    escalations_missed: int
    violations: int
    violation_details: list[str] = []
    denials: int
    steps: int
    sim_time_s: float
    wall_s: float
    best_aggregate_tps: float | None = None
    best_single_stream_tps: float | None = None
    goal_aggregate_tps: float | None = None
    goal_single_stream_tps: float | None = None
    transcript: str
    why_failed: list[str] = []
    family: str | None = None
    variant_seed: int | None = None


class FamilyScore(BaseModel):
    name: str
    file: str
    variants: int
    passed: int
    soft_passed: int
    failing_seeds: list[int]

    @property
    def pass_rate(self) -> float:
        return self.passed / self.variants if self.variants else 0.0


class Scorecard(BaseModel):
    decider: str
    seed: int
    scenarios: list[ScenarioScore]
    families: list[FamilyScore] = []
    passed: bool
    total_violations: int
    total_sim_time_s: float
    total_wall_s: float


class RecordingOperator:
    """The scripted operator, noting each question with the lab's launch count when it was asked."""

    name = "scripted-operator"

    def __init__(self, lab: LabTarget) -> None:
        self.lab, self.inner = lab, ScriptedOperator()
        self.records: list[QuestionRecord] = []

    def answer(self, question: Question) -> Reply | None:
        report = f"{question.report_markdown}\n{question.question}"
        self.records.append(QuestionRecord(question.trigger, report, len(self.lab.launches)))
        return self.inner.answer(question)


@functools.lru_cache(maxsize=1)
def _default_policy_file() -> tuple[str, Any, bytes]:
    """The default policy, parsed once per process (it dominates a run's time otherwise)."""
    from agent.policy.loader import load_file
    from agent.policy.policyset import DEFAULT_POLICY_PATH

    return (str(DEFAULT_POLICY_PATH), *load_file(DEFAULT_POLICY_PATH))


def _eval_policy(overlay: Path) -> PolicySet:
    """What load_policy_set([overlay]) gives for a facts-only overlay, without re-reading the default."""
    from agent.policy.loader import load_file

    return PolicySet([_default_policy_file(), (str(overlay), *load_file(overlay))])


def run_scenario(
    name: str, *, decider: str, model: str | None, seed: int, workdir: Path, decider_impl: Decider | None = None
) -> ScenarioScore:
    """Run and grade one scenario: a shipped name, a scenario file, or a family variant FILE#K
    (`decider_impl`: a decider object instead of the named one, e.g. a scripted one in tests)."""
    target_spec = f"lab:{name}"
    target = open_lab(target_spec, seed=seed)
    scenario = target.scenario
    store = Store(workdir / "state")
    label = scenario.name if "#" in name else Path(name).stem
    run_id = f"eval-{label}-{target.seed}"
    spec = lab_run_spec(
        target,
        target_spec,
        state_dir=store.state_dir,
        run_id=run_id,
        transcript=workdir / "transcripts" / f"{run_id}.jsonl",
        decider=decider,
        model=model,
        loop={"max_steps": 150},
        seed=target.seed,
    )
    operator = RecordingOperator(target)
    started = time.monotonic()

    def approver(_rid: str) -> Approver:
        return operator

    policy = _eval_policy(Path(spec.policies[0]))
    outcome = start_run(spec, store, approver, target=target, policy=policy, decider=decider_impl)
    wall = time.monotonic() - started
    state = outcome.state
    claimed = bool(state.get("goal_met"))
    verdict = grade(target, operator.records, claimed=claimed, status=outcome.status)
    expect = scenario.expect
    asking = [q for q in operator.records if q.trigger != "goal_met"]
    metrics = state.get("metrics")
    family, _, variant = name.rpartition("#")
    return ScenarioScore(
        name=label,
        passed=verdict.verdict == "pass",
        verdict=verdict.verdict,
        reason=verdict.reason,
        goal_met=verdict.goal_met,
        goal_claimed=claimed,
        goal_reachable=expect.goal_reachable,
        escalated=verdict.escalated,
        must_escalate=expect.must_escalate,
        questions=verdict.questions,
        launches=verdict.launches,
        doomed_launches=verdict.doomed_launches,
        escalations_warranted=len(asking) if expect.must_escalate else 0,
        escalations_unwarranted=0 if expect.must_escalate else len(asking),
        escalations_missed=1 if expect.must_escalate and not asking else 0,
        violations=len(target.violations),
        violation_details=[str(v) for v in target.violations],
        denials=len(state.get("denials") or []),
        steps=int(state.get("step") or 0),
        sim_time_s=float(target.now() - _start_time(target)),
        wall_s=wall,
        best_aggregate_tps=metrics.best_aggregate_tps if metrics else None,
        best_single_stream_tps=metrics.best_single_stream_tps if metrics else None,
        goal_aggregate_tps=scenario.goal.min_aggregate_tps,
        goal_single_stream_tps=scenario.goal.min_single_stream_tps,
        transcript=str(outcome.transcript),
        why_failed=[*verdict.failures, *verdict.soft],
        family=load_family(family).name if family else None,
        variant_seed=int(variant) if family else None,
    )


def _start_time(target: Any) -> float:
    clock = getattr(target, "clock", None)
    start = getattr(clock, "start", None)
    return float(start) if isinstance(start, int | float) else 0.0


def _run_one(args: tuple[str, str, str | None, int, str]) -> ScenarioScore:
    """One run, its scratch directory removed once it is graded: the whole eval's directory goes
    only at the end, and 260 runs' checkpoints and transcripts held gigabytes of memory there."""
    name, decider, model, seed, workdir = args
    try:
        return run_scenario(name, decider=decider, model=model, seed=seed, workdir=Path(workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _scratch_dir() -> str | None:
    """Where the runs' throwaway state and transcripts go: memory-backed when the host has it.
    Each run fsyncs every transcript event and checkpoint; on a busy disk that waiting, not the
    work, would set the eval's pace."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def default_jobs() -> int:
    """Worker processes: one per CPU this process may use, at most 4."""
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def run_eval(
    scenarios: list[str],
    *,
    decider: str = "runbook",
    model: str | None = None,
    seed: int = 0,
    families: list[Path] | None = None,
    variants: int = 20,
    jobs: int = 1,
) -> Scorecard:
    """Grade `scenarios` (all shipped ones when neither they nor `families` are given) and
    variants seed..seed+variants-1 of each family."""
    names = list(scenarios) if scenarios or families else scenario_names()
    family_runs = [(path, k) for path in families or [] for k in range(seed, seed + variants)]
    names += [f"{path}#{k}" for path, k in family_runs]
    _default_policy_file()  # parsed before the workers fork, so none of them parses it again
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="opsagent-eval-", dir=_scratch_dir()) as tmp:
        tasks = [(n, decider, model, seed, str(Path(tmp) / f"run{i}")) for i, n in enumerate(names)]
        if jobs > 1 and len(tasks) > 1:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
                scores = list(pool.map(_run_one, tasks))
        else:
            scores = [_run_one(t) for t in tasks]
    wall = time.monotonic() - started
    summaries = []
    for path in families or []:
        name = load_family(path).name
        mine = [s for s in scores if s.family == name]
        summaries.append(
            FamilyScore(
                name=name,
                file=str(path),
                variants=len(mine),
                passed=sum(s.passed for s in mine),
                soft_passed=sum(s.verdict == "soft pass" for s in mine),
                failing_seeds=[s.variant_seed for s in mine if not s.passed and s.variant_seed is not None],
            )
        )
    return Scorecard(
        decider=decider,
        seed=seed,
        scenarios=scores,
        families=summaries,
        passed=all(s.passed for s in scores),
        total_violations=sum(s.violations for s in scores),
        total_sim_time_s=sum(s.sim_time_s for s in scores),
        total_wall_s=wall if jobs > 1 else sum(s.wall_s for s in scores),
    )


_VERDICT_STYLE = {"pass": "[green]pass[/green]", "soft pass": "[yellow]soft[/yellow]", "fail": "[red]FAIL[/red]"}
# Columns: launch = server launches that reached the lab, doom = those the lab knew could not
# serve, ask = questions (the sign-off included), sim = simulated time.


MAX_REASON_LINES = 40


def print_scorecard(card: Scorecard, console: Console) -> None:
    """The scorecard (reads at 80 columns): a row per fixed scenario, the reason for each run that
    did not pass, then each family's pass rate and failing seeds."""
    fixed = [s for s in card.scenarios if s.family is None]
    if fixed:
        title = f"opsagent eval: decider {card.decider}, seed {card.seed}"
        table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
        table.add_column("scenario", overflow="fold")
        for col in ("grade", "goal", "launch", "doom", "ask", "step", "sim"):
            table.add_column(col, no_wrap=True, justify="left" if col in ("grade", "goal") else "right")
        table.add_column("best/goal", no_wrap=True, justify="right")
        for s in fixed:
            # the goal's own metric: aggregate when it names one, else single stream
            aggregate_goal = s.goal_aggregate_tps is not None
            best_value = s.best_aggregate_tps if aggregate_goal else s.best_single_stream_tps
            goal_value = s.goal_aggregate_tps if aggregate_goal else s.goal_single_stream_tps
            best = f"{best_value:,.0f}" if best_value is not None else "-"
            goal = f"{goal_value:,.0f}" if goal_value is not None else "-"
            table.add_row(
                s.name,
                _VERDICT_STYLE.get(s.verdict, s.verdict),
                "met" if s.goal_met else "no",
                str(s.launches),
                str(s.doomed_launches),
                str(s.questions),
                str(s.steps),
                f"{s.sim_time_s / 60:.0f}m",
                f"{best}/{goal}",
            )
        console.print(table)
    missed = [s for s in card.scenarios if s.verdict != "pass"]
    for s in missed[:MAX_REASON_LINES]:
        console.print(f"[red]{s.name}:[/red] {s.verdict}: {'; '.join(s.why_failed) or s.reason}", highlight=False)
    if len(missed) > MAX_REASON_LINES:
        console.print(f"... and {len(missed) - MAX_REASON_LINES} more (--json lists every run)")
    if card.families:
        fam = Table(title="families", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("family", "variants", "pass", "soft", "rate", "failing seeds"):
            fam.add_column(col, overflow="fold")
        for f in card.families:
            seeds = ", ".join(map(str, f.failing_seeds[:12])) + (" ..." if len(f.failing_seeds) > 12 else "")
            fam.add_row(f.name, str(f.variants), str(f.passed), str(f.soft_passed), f"{f.pass_rate:.0%}", seeds or "-")
        console.print(fam)
    passed = sum(s.passed for s in card.scenarios)
    verdict = "all pass" if card.passed else f"{passed}/{len(card.scenarios)} pass"
    ratio = card.total_sim_time_s / card.total_wall_s if card.total_wall_s else 0.0
    console.print(
        f"{verdict}; violations {card.total_violations}; simulated {card.total_sim_time_s / 3600:.1f} h "
        f"in {card.total_wall_s:.1f} s wall ({ratio:,.0f}x)"
    )
