"""Load: N lab runs started detached at once, several repliers, a few runs killed and resumed.

Prints what `benchmarks/load_harness.py` checks (runs lost, replies applied twice, actions run
twice, transcripts that fail to verify, errors) and the time from a reply to the run moving on,
against the same time measured with one run alone in the same invocation. Exits 1 when anything
was lost, doubled or broken. `python benchmarks/bench_load.py [N]` (default 50).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.load_harness import run_load  # noqa: E402


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    # Runs still writing when the time is up leave files behind: that is reported, not an error here.
    with tempfile.TemporaryDirectory(prefix="opsagent-load-alone-", ignore_cleanup_errors=True) as alone_dir:
        alone = run_load(Path(alone_dir), runs=1, repliers=1, kills=0, contested_every=10**9, prefix="alone")
    with tempfile.TemporaryDirectory(prefix="opsagent-load-", ignore_cleanup_errors=True) as load_dir:
        loaded = run_load(Path(load_dir), runs=runs, repliers=4, kills=max(1, runs // 15), contested_every=4)
    print(f"one run alone: reply -> run moves on: median {alone.latency(0.5):.2f} s, p99 {alone.latency(0.99):.2f} s")
    print(f"{runs} runs at once, 4 repliers ({loaded.wall_s:.0f} s):")
    for line in loaded.lines():
        print(f"  {line}")
    ratio = loaded.latency(0.5) / alone.latency(0.5) if alone.latency(0.5) > 0 else float("nan")
    print(f"reply latency under load / alone (median): {ratio:.2f}x")
    for problem in [*loaded.mismatched, *loaded.double_applied, *loaded.actions_run_twice, *loaded.errors][:20]:
        print(f"  problem: {problem}")
    return 0 if loaded.ok and alone.ok else 1


if __name__ == "__main__":
    sys.exit(main())
