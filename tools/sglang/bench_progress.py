"""The benchmark client's progress while one level runs: requests done and the throughput so far.

Read from the client's output as it streams: `sglang.bench_serving` draws a tqdm bar on stderr
(`' 37%|███▋      | 95/256 [00:31<00:52,  3.06it/s]'`, redrawn with carriage returns), and
opsagent's load generator prints `progress: 95/256 requests, 31.0 s, 24320 output tokens` lines.
bench_serving's bar counts requests only; with the fixed output length the command asks for
(`--random-range-ratio 1.0`, EOS ignored) each finished request is `output_len` tokens.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

TQDM = re.compile(r"(\d+)/(\d+) \[(?:(\d+):)?(\d+):(\d+)<[^,\]]*(?:, *([\d.]+)(it/s|s/it))?")
LOADGEN = re.compile(r"progress: (\d+)/(\d+) requests, ([\d.]+) s, (\d+) output tokens")


@dataclass(frozen=True)
class LevelProgress:
    done: int
    total: int
    elapsed_s: float
    output_tokens: int
    rate_tok_s: float | None = None  # the client's own running rate, where it prints one

    @property
    def tok_s(self) -> float | None:
        if self.rate_tok_s is not None:
            return self.rate_tok_s
        return self.output_tokens / self.elapsed_s if self.elapsed_s > 0 else None

    def line(self) -> str:
        rate = self.tok_s
        return f"{self.done}/{self.total} requests" + (f", {rate:,.0f} tok/s so far" if rate is not None else "")


def parse_progress(segment: str, output_len: int) -> LevelProgress | None:
    """One redraw of the bar or one load-generator line; None for anything else."""
    found = LOADGEN.search(segment)
    if found:
        done, total, secs, tokens = found.groups()
        return LevelProgress(int(done), int(total), float(secs), int(tokens))
    found = TQDM.search(segment)
    if found:
        done, total, hours, minutes, secs, rate, unit = found.groups()
        elapsed = int(hours or 0) * 3600 + int(minutes) * 60 + int(secs)
        # tqdm's rate (requests a second, or seconds a request when slow) is finer than its whole seconds
        per_s = None if rate is None or float(rate) <= 0 else (float(rate) if unit == "it/s" else 1 / float(rate))
        tok_s = per_s * output_len if per_s is not None else None
        return LevelProgress(int(done), int(total), float(elapsed), int(done) * output_len, tok_s)
    return None


class ProgressReader:
    """Fed the client's output in chunks as they arrive; tells `report` each new count of requests
    done (a bar redrawn without progress says nothing new)."""

    def __init__(self, output_len: int, report: Callable[[LevelProgress], None]) -> None:
        self.output_len = output_len
        self.report = report
        self.latest: LevelProgress | None = None
        self._partial = ""

    def feed(self, text: str) -> None:
        segments = re.split(r"[\r\n]", self._partial + text)
        self._partial = segments.pop()[-1000:]  # not ended yet: the next chunk completes it
        for segment in segments:
            self._take(parse_progress(segment, self.output_len))
        if self._partial.rstrip().endswith("]"):  # a whole bar, redrawn; its end comes with the next
            self._take(parse_progress(self._partial, self.output_len))

    def _take(self, found: LevelProgress | None) -> None:
        if found is not None and (self.latest is None or found.done != self.latest.done):
            self.latest = found
            self.report(found)


class StreamWatch:
    """The listener a target calls with each chunk of a command's output, by stream: one reader per
    stream, so that a line split across chunks is not mixed with the other stream's."""

    def __init__(self, output_len: int, report: Callable[[LevelProgress], None]) -> None:
        self._lock = threading.Lock()
        self._readers = {name: ProgressReader(output_len, report) for name in ("stdout", "stderr")}

    def __call__(self, stream: str, text: str) -> None:
        with self._lock:  # a local target's two streams are read by two threads
            self._readers.get(stream, self._readers["stdout"]).feed(text)
