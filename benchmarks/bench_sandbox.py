"""What the sandbox costs per command: a short command on the local target inside bubblewrap,
against the same command run bare, measured side by side in one run.

Baseline: `LocalTarget.run("true")` without the sandbox (fork, exec bash, pipes). The sandbox adds
bubblewrap's namespaces and mounts and one more bash (its process 1). Goal: under 50 ms more per
command, far below an SSH round trip plus a model's decision; the ratio is printed.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time

from tools.local import LocalTarget
from tools.sandbox import SandboxSpec

ROUNDS = 30
GOAL_EXTRA_MS = 50.0


def _median_ms(target: LocalTarget) -> float:
    target.run("true")  # the sandbox's host probe runs once, before the clock starts
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        result = target.run("true")
        times.append((time.perf_counter() - started) * 1000)
        assert result.ok, result.stderr
    return statistics.median(times)


def main() -> int:
    if shutil.which("bwrap") is None:
        print("bubblewrap is not installed (apt-get install -y bubblewrap): nothing to measure")
        return 0
    with tempfile.TemporaryDirectory(prefix="opsagent-bench-sandbox-") as work:
        bare = _median_ms(LocalTarget(work, sandbox=SandboxSpec(mode="off")))
        boxed = _median_ms(LocalTarget(work, sandbox=SandboxSpec(mode="require")))
    extra = boxed - bare
    print(
        f"local `true`, median of {ROUNDS}: bare {bare:.1f} ms (baseline), sandboxed {boxed:.1f} ms = "
        f"{boxed / bare:.2f}x; +{extra:.1f} ms per command (goal < {GOAL_EXTRA_MS:.0f} ms)"
    )
    return 0 if extra < GOAL_EXTRA_MS else 1


if __name__ == "__main__":
    sys.exit(main())
