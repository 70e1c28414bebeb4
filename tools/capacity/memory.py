"""Per-GPU memory of a parallel layout and the KV cache it leaves, at a memory fraction.

SGLang's accounting (server_args / model_runner): `--mem-fraction-static` is the share of each
GPU's total memory for the static pool, weights plus KV cache. What is left outside it holds the
activations and the CUDA graphs. So, per GPU of T GiB with F GiB held by someone else:

    weights per GPU = dense / (TP x PP) + routed experts / (PP x max(TP, EP))
    KV pool         = fraction x T - F - context - weights per GPU
    headroom        = (1 - fraction) x T          (activations, CUDA graphs)

Each DP replica holds a full copy of the weights and serves 1/DP of the requests. The constants
below are documented with where they come from; they are deliberately round.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, Field

from tools.capacity.modeldir import DTYPE_BYTES, GIB, ModelArch, WeightBytes, gib

CONTEXT_GIB = 1.0
"""CUDA context, torch and NCCL buffers per GPU: SGLang logs `Init torch distributed ends. ...
mem usage=0.98 GB` before any weight is loaded (knowledge/sglang-ops.md, log line 2)."""

GRAPH_HEADROOM_GIB = 4.0
"""Activations of one chunked prefill (8,192 tokens) plus CUDA graphs captured up to batch 512:
`Capture cuda graph end ... mem usage=1.90 GB` plus ~2 GiB of prefill activations on 70B-class
models. Below this, capture can OOM even when the weights and KV fit."""

MIN_KV_GIB = 0.5
"""Below this SGLang refuses to start: `RuntimeError: Not enough memory. Please try to increase
--mem-fraction-static`."""

DEFAULT_FRACTION = 0.88
"""What planning assumes when no fraction is given: SGLang's computed default for 80-160 GiB GPUs
is 0.85-0.90 (sglang-ops.md section 1); 0.88 sits in the middle."""

MAX_FRACTION = 0.93
"""The highest fraction worth trying: above it the headroom for activations is under ~6 GiB on
80 GiB GPUs."""

UNKNOWN_KV_SHARE = 0.15
"""When config.json does not give the KV bytes per token, a layout must leave at least this share
of each GPU for the KV cache (about 12 GiB on 80 GiB GPUs: 64 requests of 1,280 tokens of a
70B-class GQA model need ~25 GiB over TP4, 6 GiB per GPU, so the share is generous, not tight)."""

KV_DTYPE_BYTES = {"fp8_e4m3": 1.0, "fp8_e5m2": 1.0, "mxfp8": 1.0, "fp4_e2m1": 0.5, "nvfp4": 0.5}


class Layout(BaseModel):
    tp: int = Field(default=1, ge=1, description="tensor-parallel size")
    pp: int = Field(default=1, ge=1, description="pipeline-parallel stages")
    dp: int = Field(default=1, ge=1, description="data-parallel replicas")
    ep: int = Field(default=1, ge=1, description="expert-parallel size (1: experts split by TP)")

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp

    @property
    def per_replica(self) -> int:
        return self.tp * self.pp

    def label(self) -> str:
        parts = [f"TP{self.tp}"]
        if self.pp > 1:
            parts.append(f"+ PP{self.pp}")
        if self.dp > 1:
            parts.append(f"x DP{self.dp}")
        if self.ep > 1:
            parts.append(f"(EP{self.ep})")
        return " ".join(parts)


class Workload(BaseModel):
    concurrency: int = Field(default=64, ge=1)
    input_len: int = Field(default=1024, ge=1)
    output_len: int = Field(default=256, ge=1)

    @property
    def tokens_per_request(self) -> int:
        return self.input_len + self.output_len


class GpuMemory(BaseModel):
    """One layout on one kind of GPU at one fraction: where every GiB goes, and whether it fits."""

    layout: Layout
    fraction: float
    gpu_total_gib: float
    foreign_gib: float = 0.0
    weights_gib: float = Field(description="weights per GPU")
    context_gib: float = CONTEXT_GIB
    kv_pool_gib: float = Field(description="KV cache per GPU (negative: the weights do not fit)")
    headroom_gib: float = Field(description="outside the static pool: activations, CUDA graphs")
    kv_bytes_per_token: float | None = Field(default=None, description="per GPU; None when config.json lacks it")
    kv_tokens: int | None = Field(default=None, description="tokens the KV cache of one replica holds")
    tokens_needed: int = Field(description="tokens one replica must hold for its share of the concurrency")
    max_concurrency: int | None = Field(default=None, description="requests of the workload all replicas hold")
    weights_fit: bool
    kv_fits: bool | None = Field(default=None, description="None when the KV arithmetic is unknown")
    reasons: list[str] = Field(default_factory=list, description="why it does not fit, or what is tight")

    @property
    def fits(self) -> bool:
        return self.weights_fit and self.kv_fits is not False


def kv_bytes_per_token(arch: ModelArch, layout: Layout, kv_dtype: str | None = None) -> float | None:
    """KV-cache bytes one token takes on one GPU of `layout` (None when config.json lacks it).

    GQA/MHA: K and V, one head_dim vector per KV head per layer; TP splits the KV heads (a rank
    keeps at least one: with TP > KV heads they are replicated). MLA (DeepSeek/GLM): one latent
    of kv_lora_rank + rope dims per layer, replicated on every TP rank. PP splits the layers."""
    layers = arch.attention_layers or arch.layers
    if layers is None:
        return None
    per_elem = KV_DTYPE_BYTES.get(kv_dtype or "", DTYPE_BYTES.get(arch.dtype, 2.0))
    stage_layers = math.ceil(layers / layout.pp)
    if arch.is_mla:
        return float(stage_layers * ((arch.kv_lora_rank or 0) + (arch.qk_rope_head_dim or 0)) * per_elem)
    if arch.kv_heads is None or arch.head_dim is None:
        return None
    heads_per_rank = max(1, math.ceil(arch.kv_heads / layout.tp))
    return float(2 * stage_layers * heads_per_rank * arch.head_dim * per_elem)


def per_gpu_memory(
    weights: WeightBytes,
    arch: ModelArch | None,
    layout: Layout,
    gpu_total_gib: float,
    *,
    fraction: float = DEFAULT_FRACTION,
    foreign_gib: float = 0.0,
    workload: Workload | None = None,
    kv_dtype: str | None = None,
) -> GpuMemory:
    """Where each GiB of one GPU goes under `layout` at `fraction`, and whether the goal's
    concurrency fits in the KV cache that is left."""
    work = workload or Workload()
    dense = (weights.total_bytes - weights.expert_bytes) / GIB
    experts = weights.expert_bytes / GIB
    per_gpu = dense / layout.per_replica + experts / (layout.pp * max(layout.tp, layout.ep))
    pool = fraction * gpu_total_gib
    kv_pool = pool - foreign_gib - CONTEXT_GIB - per_gpu
    headroom = (1 - fraction) * gpu_total_gib
    per_token = kv_bytes_per_token(arch, layout, kv_dtype) if arch is not None else None
    share = math.ceil(work.concurrency / layout.dp)
    needed = share * work.tokens_per_request
    reasons: list[str] = []
    held = f" - {gib(foreign_gib)} held by others" if foreign_gib > 0.05 else ""
    usable = f"{fraction:.2f} x {gib(gpu_total_gib)}{held} = {gib(pool - foreign_gib)}"
    split = f"TP{layout.tp}" if layout.pp == 1 else f"TP{layout.tp} x PP{layout.pp}"
    weights_fit = kv_pool >= MIN_KV_GIB
    if not weights_fit:
        reasons.append(
            f"weights {gib(weights.total_gib)} / {split} = {gib(per_gpu)} per GPU + {gib(CONTEXT_GIB)} context "
            f"leaves {'no' if kv_pool <= 0 else gib(kv_pool)} KV cache: > {usable} usable"
        )
    kv_tokens = int(kv_pool * GIB / per_token) if per_token and kv_pool > 0 else None
    kv_fits: bool | None = None
    max_conc: int | None = None
    if kv_tokens is not None:
        max_conc = (kv_tokens // work.tokens_per_request) * layout.dp
        kv_fits = weights_fit and kv_tokens >= needed
        if weights_fit and not kv_fits:
            reasons.append(
                f"KV cache {gib(kv_pool)} per GPU holds {kv_tokens:,} tokens per replica < {needed:,} needed for "
                f"{share} concurrent requests of {work.tokens_per_request:,} tokens (about {max_conc} fit)"
            )
    elif not weights_fit:
        kv_fits = False
    elif per_token is None:
        kv_fits = kv_pool >= UNKNOWN_KV_SHARE * gpu_total_gib
        if not kv_fits:
            reasons.append(
                f"KV cache {gib(kv_pool)} per GPU < {UNKNOWN_KV_SHARE:.0%} of {gib(gpu_total_gib)} kept for it "
                "(its bytes per token are unknown)"
            )
    if weights_fit and headroom < GRAPH_HEADROOM_GIB:
        reasons.append(
            f"only {gib(headroom)} outside the static pool at {fraction:.2f}: CUDA-graph capture may run out of memory"
        )
    return GpuMemory(
        layout=layout,
        fraction=fraction,
        gpu_total_gib=gpu_total_gib,
        foreign_gib=foreign_gib,
        weights_gib=round(per_gpu, 3),
        kv_pool_gib=round(kv_pool, 3),
        headroom_gib=round(headroom, 3),
        kv_bytes_per_token=per_token,
        kv_tokens=kv_tokens,
        tokens_needed=needed,
        max_concurrency=max_conc,
        weights_fit=weights_fit,
        kv_fits=kv_fits,
        reasons=reasons,
    )


def lowest_fraction(
    weights: WeightBytes,
    arch: ModelArch | None,
    layout: Layout,
    gpu_total_gib: float,
    *,
    foreign_gib: float = 0.0,
    workload: Workload | None = None,
    kv_dtype: str | None = None,
) -> float | None:
    """The smallest memory fraction (two decimals) at which the weights and the goal's KV still fit;
    None when even MAX_FRACTION is not enough."""
    for hundredths in range(30, int(MAX_FRACTION * 100) + 1):
        fraction = hundredths / 100
        mem = per_gpu_memory(
            weights,
            arch,
            layout,
            gpu_total_gib,
            fraction=fraction,
            foreign_gib=foreign_gib,
            workload=workload,
            kv_dtype=kv_dtype,
        )
        if mem.fits:
            return fraction
    return None
