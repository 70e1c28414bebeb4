"""The whole shipped suite through the whole agent: simulated time over wall time, and over CPU time.

`opsagent eval` with the runbook decider on every lab scenario: graph, SQLite checkpoints, policy
gate, transcript (fsync per event) and the lab. Baseline: real time (a ratio of 1x), which a real
host would take. Goal: >= 1,000x real time and the whole suite within 60 s on a 2-core machine.

On a shared machine the wall clock also counts the time other processes held the CPU, so the
ratio over this process's own CPU time (user + system, its workers included) is printed too:
what the suite costs, however busy the machine is.
"""

from __future__ import annotations

import resource
import time

from agent.loop.evaluate import run_eval

GOAL_RATIO = 1000.0
GOAL_WALL_S = 60.0


def _cpu_s() -> float:
    """CPU seconds (user + system) of this process and of the workers it has waited for."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> int:
    cpu0, started = _cpu_s(), time.perf_counter()
    card = run_eval([], decider="runbook", seed=0)
    suite_wall, suite_cpu = time.perf_counter() - started, _cpu_s() - cpu0
    print(f"{'scenario':<20} {'steps':>6} {'simulated s':>12} {'wall s':>8} {'ratio':>9}  passed")
    for s in card.scenarios:
        ratio = s.sim_time_s / s.wall_s if s.wall_s else 0.0
        print(f"{s.name:<20} {s.steps:>6} {s.sim_time_s:>12.0f} {s.wall_s:>8.2f} {ratio:>8.0f}x  {s.passed}")
    sim = card.total_sim_time_s
    wall_ratio = sim / suite_wall
    cpu_ratio = sim / suite_cpu if suite_cpu else 0.0
    print(
        f"suite: {sim / 3600:.1f} h simulated in {suite_wall:.1f} s wall = {wall_ratio:,.0f}x real time "
        f"(baseline 1x; goal >= {GOAL_RATIO:,.0f}x); wall {suite_wall:.1f} s (goal < {GOAL_WALL_S:.0f} s)"
    )
    print(
        f"suite CPU: {suite_cpu:.1f} CPU s (user + system) = {cpu_ratio:,.0f}x real time per CPU second "
        f"(goal >= {GOAL_RATIO:,.0f}x); the wall clock ran {suite_wall / suite_cpu if suite_cpu else 0:.1f}x "
        "the CPU time (above 1x: other processes had the CPU)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
