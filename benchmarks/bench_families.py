"""Family variants through the whole agent: simulated time over wall time, and the cost of
`opsagent eval --families --variants 20` on two cores.

Runs VARIANTS variants of every shipped family with the runbook decider in two worker processes
(what `eval --families` does on a 2-core machine). Baseline: real time (1x). Prints the CPU
seconds one variant costs and, from that, what 20 variants of every family take on two otherwise
idle cores (goal: under 3 minutes); on a shared machine the wall time is also printed, for what
it is worth.
"""

from __future__ import annotations

import resource
import time

from agent.loop.evaluate import run_eval
from tools.lab.family import family_paths

VARIANTS = 3
JOBS = 2
GOAL_FULL_S = 180.0


def _cpu_s() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> int:
    families = family_paths()
    cpu0, started = _cpu_s(), time.perf_counter()
    card = run_eval([], families=families, variants=VARIANTS, jobs=JOBS)
    wall, cpu = time.perf_counter() - started, _cpu_s() - cpu0
    runs = len(card.scenarios)
    per_variant = cpu / runs
    full = per_variant * len(families) * 20 / JOBS
    print(f"{'family':<20} {'variants':>8} {'passed':>6}")
    for f in card.families:
        print(f"{f.name:<20} {f.variants:>8} {f.passed:>6}")
    print(
        f"{runs} variants: {card.total_sim_time_s / 3600:.1f} h simulated in {wall:.1f} s wall "
        f"= {card.total_sim_time_s / wall:,.0f}x real time (baseline 1x); {cpu:.1f} CPU s "
        f"= {per_variant:.2f} CPU s per variant"
    )
    print(
        f"--families --variants 20 ({len(families) * 20} variants) on {JOBS} idle cores: ~{full:.0f} s "
        f"(goal < {GOAL_FULL_S:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
