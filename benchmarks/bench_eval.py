"""The whole shipped suite through the whole agent: simulated time over wall time.

`opsagent eval` with the runbook decider on every lab scenario: graph, SQLite checkpoints, policy
gate, transcript (fsync per event) and the lab. Baseline: real time (a ratio of 1x), which a real
host would take. Goal: >= 1,000x real time and the whole suite within 60 s on a 2-core machine.
"""

from __future__ import annotations

import time

from agent.evaluate import run_eval

GOAL_RATIO = 1000.0
GOAL_WALL_S = 60.0


def main() -> int:
    started = time.perf_counter()
    card = run_eval([], decider="runbook", seed=0)
    suite_wall = time.perf_counter() - started
    print(f"{'scenario':<20} {'steps':>6} {'simulated s':>12} {'wall s':>8} {'ratio':>9}  passed")
    for s in card.scenarios:
        ratio = s.sim_time_s / s.wall_s if s.wall_s else 0.0
        print(f"{s.name:<20} {s.steps:>6} {s.sim_time_s:>12.0f} {s.wall_s:>8.2f} {ratio:>8.0f}x  {s.passed}")
    ratio = card.total_sim_time_s / suite_wall
    print(
        f"suite: {card.total_sim_time_s / 3600:.1f} h simulated in {suite_wall:.1f} s wall = {ratio:,.0f}x real time "
        f"(baseline 1x; goal >= {GOAL_RATIO:,.0f}x); wall {suite_wall:.1f} s (goal < {GOAL_WALL_S:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
