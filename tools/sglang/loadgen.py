"""A small load generator for the OpenAI completions protocol (standard library only).

Used where `sglang.bench_serving` is not installed. It streams `/v1/completions` requests with a
fixed input length (a prompt of token ids) and a fixed output length (`max_tokens` with
`ignore_eos`), `concurrency` at a time, and reports the same metric names as bench_serving's JSONL:
TTFT, TPOT, ITL, request/output/total throughput. Output tokens are taken from the final usage
chunk when the server sends one, otherwise counted as one per streamed text chunk.

This file is also sent to the target and run there as a script:
    python3 <work_dir>/loadgen.py --base-url http://127.0.0.1:30000 --input-len 1024 \
        --output-len 256 --num-prompts 64 --concurrency 16
which prints one JSON object on its last line.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RequestResult:
    ok: bool
    start: float
    end: float = 0.0
    ttft: float | None = None
    chunk_times: list[float] = field(default_factory=list)
    output_tokens: int = 0
    error: str = ""


def _connection(url: urllib.parse.SplitResult, timeout: float) -> http.client.HTTPConnection:
    port = url.port or (443 if url.scheme == "https" else 80)
    if url.scheme == "https":
        return http.client.HTTPSConnection(url.hostname or "127.0.0.1", port, timeout=timeout)
    return http.client.HTTPConnection(url.hostname or "127.0.0.1", port, timeout=timeout)


def model_id(base_url: str, timeout: float = 10.0) -> str:
    """The first model the server lists at /v1/models ('default' when it lists none)."""
    url = urllib.parse.urlsplit(base_url)
    conn = _connection(url, timeout)
    try:
        conn.request("GET", url.path.rstrip("/") + "/v1/models")
        body = conn.getresponse().read()
        data = json.loads(body).get("data") or []
        return str(data[0]["id"]) if data else "default"
    except (OSError, ValueError, KeyError, http.client.HTTPException):
        return "default"
    finally:
        conn.close()


def one_request(base_url: str, model: str, prompt: list[int], output_len: int, timeout: float) -> RequestResult:
    url = urllib.parse.urlsplit(base_url)
    body = json.dumps(
        {
            "model": model,
            "prompt": prompt,
            "max_tokens": output_len,
            "temperature": 0.0,
            "stream": True,
            "ignore_eos": True,
            "stream_options": {"include_usage": True},
        }
    )
    result = RequestResult(ok=False, start=time.perf_counter())
    conn = _connection(url, timeout)
    usage_tokens: int | None = None
    try:
        conn.request(
            "POST",
            url.path.rstrip("/") + "/v1/completions",
            body=body,
            headers={"Content-Type": "application/json"},
        )
        resp = conn.getresponse()
        if resp.status != 200:
            result.error = f"HTTP {resp.status}: {resp.read(300).decode(errors='replace')}"
            result.end = time.perf_counter()
            return result
        while True:
            raw = resp.readline()
            if not raw:
                break
            line = raw.decode("utf-8", errors="replace").strip()
            if not line.startswith("data:"):
                continue
            payload = line[5:].strip()
            if payload == "[DONE]":
                break
            chunk = json.loads(payload)
            usage = chunk.get("usage")
            if isinstance(usage, dict) and usage.get("completion_tokens"):
                usage_tokens = int(usage["completion_tokens"])
            choices = chunk.get("choices") or []
            if choices and choices[0].get("text"):
                now = time.perf_counter()
                if result.ttft is None:
                    result.ttft = now - result.start
                result.chunk_times.append(now)
        result.end = time.perf_counter()
        result.output_tokens = usage_tokens if usage_tokens is not None else len(result.chunk_times)
        result.ok = result.output_tokens > 0
        if not result.ok:
            result.error = "the stream carried no tokens"
    except (OSError, ValueError, http.client.HTTPException) as exc:
        result.end = time.perf_counter()
        result.error = f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()
    return result


def _percentile(values: list[float], pct: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = (len(ordered) - 1) * pct / 100.0
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def run_load(
    base_url: str,
    *,
    input_len: int,
    output_len: int,
    num_prompts: int,
    concurrency: int,
    model: str | None = None,
    timeout: float = 600.0,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Send `num_prompts` streaming requests, `concurrency` at a time; bench_serving-style metrics.
    `progress` hears a line after each request ends: requests done, seconds, output tokens so far."""
    model = model or model_id(base_url)
    rng = random.Random(seed)
    prompts = [[rng.randint(100, 20000) for _ in range(input_len)] for _ in range(num_prompts)]
    results: list[RequestResult] = []
    lock = threading.Lock()
    next_index = [0]

    def worker() -> None:
        while True:
            with lock:
                if next_index[0] >= num_prompts:
                    return
                prompt = prompts[next_index[0]]
                next_index[0] += 1
            outcome = one_request(base_url, model, prompt, output_len, timeout)
            with lock:
                results.append(outcome)
                if progress is not None:
                    tokens = sum(r.output_tokens for r in results if r.ok)
                    elapsed = time.perf_counter() - started
                    done = f"{len(results)}/{num_prompts} requests"
                    progress(f"progress: {done}, {elapsed:.1f} s, {tokens} output tokens")

    started = time.perf_counter()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, min(concurrency, num_prompts)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    duration = max(time.perf_counter() - started, 1e-9)
    good = [r for r in results if r.ok]
    ttfts = [r.ttft * 1000 for r in good if r.ttft is not None]
    itls = [(b - a) * 1000 for r in good for a, b in zip(r.chunk_times, r.chunk_times[1:], strict=False)]
    tpots = [(r.end - r.start - (r.ttft or 0)) * 1000 / (r.output_tokens - 1) for r in good if r.output_tokens > 1]
    e2e = [(r.end - r.start) * 1000 for r in good]
    total_out = sum(r.output_tokens for r in good)
    total_in = input_len * len(good)

    def mean(values: list[float]) -> float:
        return statistics.fmean(values) if values else 0.0

    def median(values: list[float]) -> float:
        return statistics.median(values) if values else 0.0

    return {
        "backend": "opsagent-loadgen",
        "dataset_name": "random-ids",
        "max_concurrency": concurrency,
        "random_input_len": input_len,
        "random_output_len": output_len,
        "duration": duration,
        "completed": len(good),
        "failed": len(results) - len(good),
        "errors": sorted({r.error for r in results if r.error})[:5],
        "total_input_tokens": total_in,
        "total_output_tokens": total_out,
        "request_throughput": len(good) / duration,
        "input_throughput": total_in / duration,
        "output_throughput": total_out / duration,
        "total_throughput": (total_in + total_out) / duration,
        "mean_ttft_ms": mean(ttfts),
        "median_ttft_ms": median(ttfts),
        "p99_ttft_ms": _percentile(ttfts, 99),
        "mean_tpot_ms": mean(tpots),
        "median_tpot_ms": median(tpots),
        "p99_tpot_ms": _percentile(tpots, 99),
        "mean_itl_ms": mean(itls),
        "median_itl_ms": median(itls),
        "p99_itl_ms": _percentile(itls, 99),
        "mean_e2e_latency_ms": mean(e2e),
        "median_e2e_latency_ms": median(e2e),
        "concurrency": sum(e2e) / 1000 / duration,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="OpenAI completions load generator (opsagent)")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--input-len", type=int, default=1024)
    parser.add_argument("--output-len", type=int, default=256)
    parser.add_argument("--num-prompts", type=int, default=64)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--model", default=None)
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    metrics = run_load(
        args.base_url,
        input_len=args.input_len,
        output_len=args.output_len,
        num_prompts=args.num_prompts,
        concurrency=args.concurrency,
        model=args.model,
        timeout=args.timeout,
        progress=lambda line: print(line, file=sys.stderr, flush=True),  # read as it comes (bench_progress)
    )
    print(json.dumps(metrics))
    return 0 if metrics["completed"] else 1


if __name__ == "__main__":
    sys.exit(main())
