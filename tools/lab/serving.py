"""A benchmark against a simulated server: the server's own limits (running requests, KV pool),
a server that degrades over time, a client that loses requests, and what the server logs.

Everything is seeded: client faults draw from the lab's `client` stream (only when a rate is set,
so scenarios without faults keep their exact numbers), degradation follows the simulated clock and
the requests the server has served.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tools.lab import kv
from tools.lab.scenario import ClientFaults, Degrade
from tools.lab.sglang_sim import SITE, Server

BENCH = f"{SITE}/sglang/bench_serving.py"
RESET = "aiohttp.client_exceptions.ClientOSError: [Errno 104] Connection reset by peer"
TIMEOUT = "TimeoutError"


@dataclass(frozen=True)
class ClientOutcome:
    warmup_error: str | None  # the traceback bench_serving prints when its warmup request fails
    lost: int  # requests of the main run that failed (reset or timed out)


def client_outcome(spec: ClientFaults, rng: random.Random | None, n: int) -> ClientOutcome:
    if rng is None:
        return ClientOutcome(None, 0)
    if spec.run_fail_rate > 0 and rng.random() < spec.run_fail_rate:
        reason = RESET if rng.random() < 0.5 or spec.timeout_rate == 0 else TIMEOUT
        return ClientOutcome(warmup_traceback(reason), 0)
    rate = min(spec.reset_rate + spec.timeout_rate, 1.0)
    lost = sum(1 for _ in range(n) if rng.random() < rate) if rate > 0 else 0
    return ClientOutcome(None, lost)


def any_faults(spec: ClientFaults) -> bool:
    return spec.reset_rate > 0 or spec.timeout_rate > 0 or spec.run_fail_rate > 0


def warmup_traceback(reason: str) -> str:
    """bench_serving's ValueError when no warmup request succeeded, the request's own traceback inside."""
    inner = (
        "Traceback (most recent call last):\n"
        f'  File "{BENCH}", line 241, in async_request_sglang_generate\n'
        "    async with session.post(url=api_url, json=payload, headers=headers) as response:\n"
        f"{reason}\n"
    )
    return (
        "Traceback (most recent call last):\n"
        f'  File "{BENCH}", line 2466, in <module>\n'
        "    run_benchmark(args)\n"
        f'  File "{BENCH}", line 2270, in run_benchmark\n'
        "    return asyncio.run(\n"
        f'  File "{BENCH}", line 1640, in benchmark\n'
        "    raise ValueError(\n"
        "ValueError: Warmup failed - Please make sure benchmark arguments are correctly specified. "
        f"Error: {inner}"
    )


def degrade_factor(spec: Degrade | None, server: Server, start: float, duration: float) -> float:
    """1.0 for a fresh server; `spec.factor` once it has served `after_s` seconds or `after_requests`
    requests; a run that crosses the point gets the time-weighted mix."""
    if spec is None or server.ready_at is None:
        return 1.0
    if spec.after_requests is not None and server.requests_served >= spec.after_requests:
        return spec.factor
    if spec.after_s is None:
        return 1.0
    turn = server.ready_at + spec.after_s
    if start >= turn:
        return spec.factor
    end = start + max(duration, 1e-9)
    if end <= turn:
        return 1.0
    before = (turn - start) / (end - start)
    return before + (1 - before) * spec.factor


def limits(server: Server, client_concurrency: int, in_len: float, out_len: float) -> kv.Load:
    return kv.load(
        client_concurrency, server.layout.replicas, server.max_running, server.max_total_tokens, in_len, out_len
    )


def log_run(
    server: Server, start: float, duration: float, ld: kv.Load, in_len: float, out_len: float, tps: float
) -> None:
    """The scheduler's lines during a run, per DP replica: a prefill, then decode batches whose
    token usage follows the load, and retractions when the pool runs out."""
    steps = min(12, max(2, int(duration // 30)))
    per_gpu = max(len(server.cfg.gpus) // server.layout.dp, 1)
    replica_tps = tps / server.layout.replicas
    cuda_graph = not server.cfg.args.disable_cuda_graph
    for replica in range(server.layout.replicas):
        rank = replica * per_gpu
        first = int(ld.running * in_len)
        server.add_log(
            start + duration * 0.1 / steps,
            f"Prefill batch, #new-seq: {ld.running}, #new-token: {first}, #cached-token: 0, token usage: "
            f"{min(first / max(server.max_total_tokens, 1), 1.0):.2f}, #running-req: 0, #queue-req: {ld.queued}, "
            "input throughput (token/s): 0.00, cuda graph: False",
            rank,
        )
        lines = kv.decode_lines(ld, server.max_total_tokens, in_len, out_len, replica_tps, steps, cuda_graph)
        for frac, message in lines:
            server.add_log(start + duration * frac, message, rank)
