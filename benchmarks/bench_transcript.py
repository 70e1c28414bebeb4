"""Verify a 100,000-event transcript; compare with merely reading and parsing it as JSON lines.

Goal: verification within 2x of the plain read+parse time. Plain script, prints numbers, exits 0.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.transcript.verify import verify_transcript  # noqa: E402
from agent.transcript.writer import TranscriptWriter  # noqa: E402

EVENTS = 100_000


def payloads(step: int) -> list[tuple[str, dict[str, Any]]]:
    """One realistic step: decision, verdict, action started, result, observation."""
    cmd = f"python -m sglang.launch_server --model-path /models/GLM-5-NVFP4 --tp 8 --port {30000 + step % 7}"
    return [
        (
            "decision",
            {
                "kind": "act",
                "action": {"tool": "run_command", "args": {"command": cmd}},
                "rationale": "last launch crashed with NaN in sampling; try the trtllm NSA decode backend",
                "confidence": 0.8,
                "usage": [{"model": "runbook", "prompt_tokens": 0, "completion_tokens": 0, "latency_s": 0.0}],
                "step": step,
            },
        ),
        ("verdict", {"decision": "allow", "rules": ["gpu-scope"], "reason": "within GPUs 0-7", "step": step}),
        (
            "action_started",
            {"step": step, "tool": "run_command", "args": {"command": cmd}, "key": f"k{step}"},
        ),
        (
            "action_result",
            {"step": step, "ok": True, "exit_code": 0, "duration_s": 1.25, "output": "ready\n" * 20},
        ),
        (
            "observation",
            {
                "step": step,
                "tool": "run_command",
                "ok": True,
                "summary": "server ready on port 30000",
                "data": {},
            },
        ),
    ]


def write(directory: Path) -> Path:
    with TranscriptWriter.create(directory, "bench", fsync=False, clock=lambda: 1_700_000_000.0) as w:
        step = 0
        while w.next_seq < EVENTS:
            for kind, payload in payloads(step):
                if w.next_seq >= EVENTS:
                    break
                w.emit(kind, payload)
            step += 1
        return w.path


def read_parse(path: Path) -> int:
    """The baseline: read the file and parse every line as JSON."""
    n = 0
    loads = json.loads
    for line in path.read_bytes().split(b"\n"):
        if line:
            loads(line)
            n += 1
    return n


def best_of(fn: Any, repeats: int = 5) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return best, value


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        path = write(Path(tmp))
        t_write = time.perf_counter() - t0
        size = path.stat().st_size
        t_read, n = best_of(lambda: read_parse(path))
        t_verify, result = best_of(lambda: verify_transcript(path))
        assert result.ok and result.events == EVENTS, result.problems
        print(f"events: {n}, file: {size / 1e6:.1f} MB, written in {t_write:.2f} s ({n / t_write:,.0f} ev/s, no fsync)")
        print(f"read+parse (baseline): {t_read:.3f} s  {n / t_read:,.0f} events/s")
        print(f"verify:                {t_verify:.3f} s  {n / t_verify:,.0f} events/s")
        ratio = t_verify / t_read
        print(f"verify / read+parse: {ratio:.2f}x (goal <= 2.00x) {'OK' if ratio <= 2.0 else 'OVER GOAL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
