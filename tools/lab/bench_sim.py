"""`python -m sglang.bench_serving`: the printed result block and the JSONL line, from the perf model.

Formats follow sglang/bench_serving.py: rows `"{:<40} {:<10}"`, section rules centred in 50
characters, and one JSON object appended per run to `--output-file`.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from tools.lab.perf import Curve

PROG = "bench_serving.py"


class BenchArgError(Exception):
    def __init__(self, usage: str, message: str) -> None:
        super().__init__(message)
        self.text = f"{usage}{PROG}: error: {message}\n"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise BenchArgError(self.format_usage(), message)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Benchmark the online serving throughput.")
    p.add_argument(
        "--backend",
        type=str,
        default="sglang",
        choices=["sglang", "sglang-native", "sglang-oai", "sglang-oai-chat", "vllm", "lmdeploy", "trt"],
    )
    p.add_argument("--base-url", type=str, default=None)
    p.add_argument("--host", type=str, default="0.0.0.0")
    p.add_argument("--port", type=int)
    p.add_argument(
        "--dataset-name",
        type=str,
        default="sharegpt",
        choices=["sharegpt", "random", "random-ids", "generated-shared-prefix", "mmmu", "image"],
    )
    p.add_argument("--dataset-path", type=str, default="")
    p.add_argument("--model", type=str)
    p.add_argument("--tokenizer", type=str)
    p.add_argument("--num-prompts", type=int, default=1000)
    p.add_argument("--random-input-len", type=int, default=1024)
    p.add_argument("--random-output-len", type=int, default=1024)
    p.add_argument("--random-range-ratio", type=float, default=0.0)
    p.add_argument("--request-rate", type=float, default=float("inf"))
    p.add_argument("--max-concurrency", type=int, default=None)
    p.add_argument("--output-file", type=str)
    p.add_argument("--output-details", action="store_true")
    p.add_argument("--disable-tqdm", action="store_true")
    p.add_argument("--disable-stream", action="store_true")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--warmup-requests", type=int, default=1)
    p.add_argument("--flush-cache", action="store_true")
    p.add_argument("--extra-request-body", type=str)
    p.add_argument("--tag", type=str)
    return p


@dataclass
class BenchResult:
    stdout: str
    record: dict[str, Any]
    duration_s: float
    output_throughput: float
    concurrency_used: int


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    pos = (len(ordered) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _std(values: list[float]) -> float:
    if not values:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def simulate(
    args: argparse.Namespace,
    curve: Curve,
    prefill_tps: float,
    noise_pct: float,
    rng: random.Random,
    max_running: int | None,
    efficiency: float = 1.0,
    failed: int = 0,
) -> BenchResult:
    """`max_running`: requests the server decodes at once (its own limit and KV pool; the rest
    queue); `efficiency`: share of decode work kept (retractions redo work); `failed`: requests the
    client lost (connection reset, timeout), left out of every total as bench_serving does."""
    n = max(int(args.num_prompts), 1)
    conc = int(args.max_concurrency) if args.max_concurrency else n
    conc_eff = max(1, min(conc, n))
    running = max(1, min(conc_eff, max_running or conc_eff))
    ratio = float(args.random_range_ratio)

    def lengths(full: int) -> list[int]:
        low = max(1, int(full * ratio))
        return [full if ratio >= 1.0 else rng.randint(low, max(low, full)) for _ in range(n)]

    in_lens, out_lens = lengths(int(args.random_input_len)), lengths(int(args.random_output_len))
    noise = 1.0 + rng.gauss(0.0, noise_pct / 100.0)
    aggregate = max(curve.rate(running) * noise * efficiency, 0.1)
    per_stream = aggregate / running
    tpot_ms = 1000.0 / per_stream
    mean_in = sum(in_lens) / n
    ttft_base_ms = 1000.0 * mean_in * max(1.0, running / 4.0) / prefill_tps + 15.0
    ttfts = [ttft_base_ms * (0.8 + 0.4 * rng.random()) for _ in range(n)]
    tpots = [tpot_ms * (0.97 + 0.06 * rng.random()) for _ in range(n)]
    if conc_eff > running:  # a queued request waits for a running one to finish before its prefill
        slots = math.ceil(conc_eff / running)
        wait_ms = sum(out_lens) / n * tpot_ms
        ttfts = [t + wait_ms * (i % slots) for i, t in enumerate(ttfts)]
    e2es = [t + (o - 1) * p for t, o, p in zip(ttfts, out_lens, tpots, strict=True)]
    all_out = sum(out_lens)
    duration = all_out / aggregate + ttft_base_ms / 1000.0
    waves = math.ceil(n / running)
    duration = max(duration, waves * (sum(e2es) / n) / 1000.0 * 0.98 * (running / conc_eff))
    ok = max(n - failed, 0)
    in_lens, out_lens, ttfts, tpots, e2es = in_lens[:ok], out_lens[:ok], ttfts[:ok], tpots[:ok], e2es[:ok]
    total_in, total_out = sum(in_lens), sum(out_lens)
    n_done = max(ok, 1)  # the means below stay defined when every request failed
    itl_mean = tpot_ms
    peak = aggregate * 1.12
    req_tput, in_tput, out_tput = ok / duration, total_in / duration, total_out / duration
    total_tput = (total_in + total_out) / duration
    concurrency = sum(e2es) / 1000.0 / duration
    rate = args.request_rate
    rows: list[tuple[str, Any, bool]] = [
        ("Backend:", args.backend, False),
        ("Traffic request rate:", rate, False),
        ("Max request concurrency:", args.max_concurrency if args.max_concurrency else "not set", False),
        ("Successful requests:", ok, False),
        ("Benchmark duration (s):", duration, True),
        ("Total input tokens:", total_in, False),
        ("Total input text tokens:", total_in, False),
        ("Total generated tokens:", total_out, False),
        ("Total generated tokens (retokenized):", total_out, False),
        ("Request throughput (req/s):", req_tput, True),
        ("Input token throughput (tok/s):", in_tput, True),
        ("Output token throughput (tok/s):", out_tput, True),
        ("Peak output token throughput (tok/s):", peak, True),
        ("Peak concurrent requests:", conc_eff, False),
        ("Total token throughput (tok/s):", total_tput, True),
        ("Concurrency:", concurrency, True),
    ]
    lat = {
        "e2e": (
            sum(e2es) / n_done,
            _percentile(e2es, 50),
            _percentile(e2es, 90),
            _percentile(e2es, 99),
            _std(e2es),
        ),
        "ttft": (sum(ttfts) / n_done, _percentile(ttfts, 50), _percentile(ttfts, 99), _std(ttfts)),
        "tpot": (sum(tpots) / n_done, _percentile(tpots, 50), _percentile(tpots, 99), _std(tpots)),
    }
    itl = (itl_mean, itl_mean * 0.99, itl_mean * 1.4, itl_mean * 2.1, itl_mean * 6.5, itl_mean * 0.3)
    out = ["", "{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="=")]
    for label, value, is_float in rows:
        out.append(f"{label:<40} {value:<10.2f}" if is_float else f"{label:<40} {value!s:<10}")
    out.append("{s:{c}^{n}}".format(s="End-to-End Latency", n=50, c="-"))
    for label, v in zip(("Mean", "Median", "P90", "P99"), lat["e2e"][:4], strict=True):
        out.append(f"{label + ' E2E Latency (ms):':<40} {v:<10.2f}")
    out.append("{s:{c}^{n}}".format(s="Time to First Token", n=50, c="-"))
    for label, v in zip(("Mean", "Median", "P99"), lat["ttft"][:3], strict=True):
        out.append(f"{label + ' TTFT (ms):':<40} {v:<10.2f}")
    out.append("{s:{c}^{n}}".format(s="Time per Output Token (excl. 1st token)", n=50, c="-"))
    for label, v in zip(("Mean", "Median", "P99"), lat["tpot"][:3], strict=True):
        out.append(f"{label + ' TPOT (ms):':<40} {v:<10.2f}")
    out.append("{s:{c}^{n}}".format(s="Inter-Token Latency", n=50, c="-"))
    for label, v in zip(("Mean", "Median", "P95", "P99", "Max"), itl[:5], strict=True):
        out.append(f"{label + ' ITL (ms):':<40} {v:<10.2f}")
    out.append("=" * 50)
    record: dict[str, Any] = {
        "tag": args.tag,
        "backend": args.backend,
        "dataset_name": args.dataset_name,
        "request_rate": "inf" if math.isinf(rate) else rate,
        "max_concurrency": args.max_concurrency,
        "sharegpt_output_len": None,
        "random_input_len": args.random_input_len,
        "random_output_len": args.random_output_len,
        "random_range_ratio": args.random_range_ratio,
        "duration": duration,
        "completed": ok,
        "total_input_tokens": total_in,
        "total_input_text_tokens": total_in,
        "total_input_vision_tokens": 0,
        "total_output_tokens": total_out,
        "total_output_tokens_retokenized": total_out,
        "request_throughput": req_tput,
        "input_throughput": in_tput,
        "output_throughput": out_tput,
        "total_throughput": total_tput,
        "mean_e2e_latency_ms": lat["e2e"][0],
        "median_e2e_latency_ms": lat["e2e"][1],
        "std_e2e_latency_ms": lat["e2e"][4],
        "p90_e2e_latency_ms": lat["e2e"][2],
        "p99_e2e_latency_ms": lat["e2e"][3],
        "mean_ttft_ms": lat["ttft"][0],
        "median_ttft_ms": lat["ttft"][1],
        "std_ttft_ms": lat["ttft"][3],
        "p99_ttft_ms": lat["ttft"][2],
        "mean_tpot_ms": lat["tpot"][0],
        "median_tpot_ms": lat["tpot"][1],
        "std_tpot_ms": lat["tpot"][3],
        "p99_tpot_ms": lat["tpot"][2],
        "mean_itl_ms": itl[0],
        "median_itl_ms": itl[1],
        "std_itl_ms": itl[5],
        "p95_itl_ms": itl[2],
        "p99_itl_ms": itl[3],
        "concurrency": concurrency,
        "accept_length": None,
        "max_output_tokens_per_s": peak,
        "max_concurrent_requests": conc_eff,
    }
    return BenchResult("\n".join(out) + "\n", record, duration, out_tput, conc_eff)


def preamble(args: argparse.Namespace, model_id: str) -> str:
    """What bench_serving prints before the block (arguments, dataset sizes, warmup)."""
    ns = ", ".join(f"{k}={v!r}" for k, v in sorted(vars(args).items()))
    n = int(args.num_prompts)
    return (
        f"benchmark_args=Namespace({ns})\n"
        f"Namespace({ns}, model={model_id!r})\n\n"
        f"#Input tokens: {n * int(args.random_input_len)}\n"
        f"#Output tokens: {n * int(args.random_output_len)}\n"
        "Starting warmup with 1 sequences...\n"
        "Warmup completed with 1 sequences. Starting main benchmark run...\n"
    )


def jsonl(record: dict[str, Any], server_info: dict[str, Any] | None) -> str:
    full = dict(record)
    full["server_info"] = server_info
    return json.dumps(full) + "\n"


def _interval(seconds: float) -> str:
    """tqdm's MM:SS, H:MM:SS past an hour."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def progress_bar(done: int, total: int, elapsed_s: float) -> str:
    """One redraw of the tqdm bar bench_serving draws on stderr while requests finish."""
    total = max(total, 1)
    rate = done / elapsed_s if elapsed_s > 0 else 0.0
    left = (total - done) / rate if rate > 0 else 0.0
    filled = 10 * done // total
    bar = "\u2588" * filled + " " * (10 - filled)
    times = f"[{_interval(elapsed_s)}<{_interval(left)}, {rate:5.2f}it/s]"
    return f"\r{100 * done // total:3d}%|{bar}| {done}/{total} {times}"


def run_with_bar(spend: Callable[[float], None], duration_s: float, total: int, tell: Callable[[str], None]) -> str:
    """Spend a run's time in tenths, the bar redrawn after each and told as it is drawn (a reader of
    the output sees the requests finish while the level runs); returns the bar's text for stderr."""
    slices = max(1, min(total, 10))
    text, spent = "", 0.0
    for i in range(1, slices + 1):
        step = duration_s * i / slices - spent
        spend(step)
        spent += step
        bar = progress_bar(total * i // slices, total, spent)
        tell(bar)
        text += bar
    return text + "\n"
