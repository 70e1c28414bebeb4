"""The simulated server's memory and its own limits: the parallel layout, weights per GPU, the
KV-cache pool (`max_total_num_tokens`), `max_running_requests`, and what a benchmark's load does
to that pool (running and queued requests, token usage, retractions) as SGLang logs it.

Arithmetic (per GPU, in GiB; weights are `size_gb * 10^9` bytes split as the model's shape says):
- layout: TP x PP GPUs per replica, DP replicas (`--enable-dp-attention` keeps DP inside the TP
  group: TP x PP GPUs in all, attention split TP/DP ways);
- weights: attention and embeddings / (attention TP x PP), MLP or experts / (TP x PP) (EP x MoE-TP = TP);
- KV pool: `total * mem_fraction_static - weights - 1 GiB - memory other processes hold`;
  `max_total_num_tokens = pool / KV bytes per token on one GPU` (modelfs.Shape);
- `max_running_requests` (unset): `min(max_total // 2, min(max(max_total / context * 512, 2048), 4096))`,
  per DP replica, as SGLang's model runner sizes its request pool.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tools.lab import modelfs
from tools.lab.launch import LaunchConfig
from tools.lab.scenario import ModelSpec

GIB = 1024**3
RUNTIME_OVERHEAD_GIB = 1.0  # CUDA context and NCCL buffers outside the static pool
KV_DTYPE_BYTES = {"fp8_e5m2": 1.0, "fp8_e4m3": 1.0, "mxfp8": 1.0, "fp4_e2m1": 0.5, "nvfp4": 0.5, "fp4_mx_block16": 0.5}


@dataclass(frozen=True)
class Layout:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    ep: int = 1
    dp_attention: bool = False

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * (1 if self.dp_attention else self.dp)

    @property
    def attn_tp(self) -> int:
        return max(self.tp // self.dp, 1) if self.dp_attention else self.tp

    @property
    def replicas(self) -> int:
        """Independent schedulers, each with its own KV pool and request limit."""
        return self.dp

    def rank_names(self) -> list[str]:
        """One scheduler process per GPU, named as SGLang's setproctitle does."""
        names = []
        per_replica = self.tp * self.pp if not self.dp_attention else self.tp * self.pp // max(self.dp, 1)
        for g in range(self.gpus):
            parts = []
            if self.dp > 1:
                parts.append(f"DP{g // max(per_replica, 1)}")
            if self.pp > 1:
                parts.append(f"PP{(g // self.tp) % self.pp}")
            if self.tp > 1:
                parts.append(f"TP{g % self.tp}")
            if self.ep > 1:
                parts.append(f"EP{g % self.ep}")
            names.append("sglang::scheduler" + "".join("_" + p for p in parts))
        return names


def layout(cfg: LaunchConfig) -> Layout:
    a = cfg.args
    return Layout(
        tp=max(int(getattr(a, "tensor_parallel_size", 1) or 1), 1),
        pp=max(int(getattr(a, "pipeline_parallel_size", 1) or 1), 1),
        dp=max(int(getattr(a, "data_parallel_size", 1) or 1), 1),
        ep=max(int(getattr(a, "expert_parallel_size", 1) or 1), 1),
        dp_attention=bool(getattr(a, "enable_dp_attention", False)),
    )


def weights_gib(model: ModelSpec, lay: Layout) -> float:
    """Weight memory on one GPU."""
    sh = modelfs.shape(model)
    total = modelfs.weight_bytes(model)
    attn_share = sh.attn_params / max(sh.params, 1)
    attn = total * attn_share / (lay.attn_tp * lay.pp)
    ffn = total * (1 - attn_share) / (lay.tp * lay.pp)
    return (attn + ffn) / GIB


def kv_dtype_bytes(model: ModelSpec | None, kv_cache_dtype: str | None, compute_capability: str) -> float:
    """`auto` is the model's dtype, except sparse-attention models on SM100+ (fp8 KV, as SGLang picks)."""
    if kv_cache_dtype in KV_DTYPE_BYTES:
        return KV_DTYPE_BYTES[kv_cache_dtype]
    if model is not None and model.sparse_attention and float(compute_capability) >= 10:
        return 1.0
    if kv_cache_dtype in ("bf16", "bfloat16"):
        return 2.0
    return modelfs.DTYPE_BYTES.get(model.dtype if model else "bfloat16", 2.0)


def kv_bytes_per_token(model: ModelSpec, lay: Layout, dtype_bytes: float) -> float:
    return modelfs.shape(model).kv_bytes_per_token(dtype_bytes, lay.attn_tp, lay.pp)


def max_total_tokens(pool_gib: float, per_token: float) -> int:
    return max(int(pool_gib * GIB / max(per_token, 1.0)), 0)


def default_max_running(max_total: int, context_len: int) -> int:
    pool = min(max(int(max_total / max(context_len, 1) * 512), 2048), 4096)
    return max(min(max_total // 2, pool), 1)


# ---- a benchmark's load on the pool ----------------------------------------------------------


@dataclass(frozen=True)
class Load:
    """What one DP replica's scheduler holds while a benchmark runs."""

    running: int  # requests decoding at once
    queued: int  # waiting at the start of the run
    retracted: int  # requests retracted for lack of KV over the run
    efficiency: float  # share of decode work not thrown away by retractions


def load(
    client_concurrency: int, replicas: int, max_running: int, max_total: int, in_len: float, out_len: float
) -> Load:
    """SGLang admits a request when its prompt plus a reserved share of its output fits the pool
    (new_token_ratio starts at 0.7); requests that then grow past the pool are retracted and redone."""
    per_replica = math.ceil(client_concurrency / max(replicas, 1))
    reserve = in_len + 0.7 * out_len
    fits = max(int(max_total / max(reserve, 1.0)), 1)
    running = max(min(per_replica, max_running, fits), 1)
    peak = running * (in_len + out_len)
    retracted = 0
    efficiency = 1.0
    if peak > max_total:
        overflow = (peak - max_total) / max(in_len + out_len, 1.0)
        retracted = max(1, math.ceil(overflow))
        efficiency = max(0.5, 1.0 - 0.5 * retracted / running)
    return Load(running, max(per_replica - running, 0), retracted, efficiency)


def decode_lines(
    ld: Load, max_total: int, in_len: float, out_len: float, gen_tps: float, steps: int, cuda_graph: bool
) -> list[tuple[float, str]]:
    """(fraction of the run, message) for one replica: token usage climbs as outputs grow, the queue
    drains, a full pool retracts. `gen_tps` is this replica's decode rate."""
    lines: list[tuple[float, str]] = []
    ratio = 0.7
    retracts_left = ld.retracted
    for i in range(steps):
        frac = (i + 0.5) / steps
        progress = (i % max(steps // 2, 1) + 0.5) / max(steps // 2, 1)  # two waves of requests
        tokens = int(ld.running * (in_len + out_len * progress))
        tokens = min(tokens, max_total)
        queued = int(ld.queued * (1 - frac))
        usage = tokens / max(max_total, 1)
        lines.append(
            (
                frac,
                f"Decode batch, #running-req: {ld.running}, #token: {tokens}, token usage: {usage:.2f}, "
                f"cuda graph: {cuda_graph}, gen throughput (token/s): {gen_tps:.2f}, #queue-req: {queued}",
            )
        )
        if retracts_left and usage >= 0.99:
            n = max(1, ld.retracted // max(steps // 2, 1))
            n = min(n, retracts_left)
            retracts_left -= n
            new_ratio = min(1.0, ratio + 0.25)
            lines.append(
                (
                    frac + 0.01 / steps,
                    f"KV cache pool is full. Retract requests. #retracted_reqs: {n}, "
                    f"#new_token_ratio: {ratio:.4f} -> {new_ratio:.4f}",
                )
            )
            ratio = new_ratio
    return lines
