"""Lab speed: simulated time over wall time for the standard deployment sequence on every scenario.

For each shipped scenario the fixed drill (observe the host, P2P integrity check, launch SGLang
with the scenario's reference configuration, poll health, benchmark at concurrency 1 and at the
goal's concurrency, read the log, stop) runs through `LabTarget`. Baseline: real time, i.e. a
ratio of 1x. Goal: >= 1,000x, and the whole suite within 60 s on a 2-core machine.
"""

from __future__ import annotations

import sys
import time

from tools.lab.drill import run_drill
from tools.lab.scenario import scenario_names
from tools.lab.target import LabTarget

GOAL_RATIO = 1000.0


def main() -> int:
    total_sim = total_wall = 0.0
    commands = 0
    print(f"{'scenario':<20} {'commands':>8} {'simulated s':>12} {'wall ms':>9} {'ratio':>10}  ready goal_met")
    suite_start = time.perf_counter()
    for name in scenario_names():
        target = LabTarget.from_name(name, seed=0)
        s = target.scenario
        ref = s.expect.reference
        start = time.perf_counter()
        result = run_drill(
            target,
            model=s.goal.model_path,
            gpus=s.goal.gpus,
            concurrency=s.goal.concurrency,
            reference=(ref.command, ref.env) if ref else None,
        )
        wall = time.perf_counter() - start
        sim = target.now()
        total_sim += sim
        total_wall += wall
        commands += len(target.commands)
        print(
            f"{name:<20} {len(target.commands):>8} {sim:>12.1f} {wall * 1000:>9.1f} {sim / wall:>9.0f}x  "
            f"{result.ready!s:<5} {target.goal_met()}"
        )
    suite_wall = time.perf_counter() - suite_start
    ratio = total_sim / total_wall
    print(f"{'total':<20} {commands:>8} {total_sim:>12.1f} {total_wall * 1000:>9.1f} {ratio:>9.0f}x")
    print(
        f"baseline (real time): 1x; lab: {ratio:.0f}x real time (goal >= {GOAL_RATIO:.0f}x); "
        f"suite wall time {suite_wall:.2f} s (goal < 60 s)"
    )
    if ratio < GOAL_RATIO:
        print("WARNING: below the goal ratio", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
