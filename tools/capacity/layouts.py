"""Every TP/PP/DP layout within the agent's GPUs: does it fit, and how fast should it be?

Fit comes from `memory` (weights, KV for the goal's concurrency, at the lowest fraction that
works, up to `MAX_FRACTION`). Speed is relative and deliberately simple, a model of where decode
time goes, not a measurement:

    one replica of TP t   ~ t / (1 + c x (t - 1))     memory bandwidth scales with t, every extra
                                                       GPU in the all-reduce costs c
    c = 0.03 NVLink, 0.10 PCIe with P2P, 0.30 without P2P (all-reduce through host memory, case 3
        of knowledge/cases.md: TP8 at 485 tok/s where TP4 x DP2 should roughly double it)
    PP s stages           aggregate x s x 0.85^(s-1) (bubbles), single stream x 0.95^(s-1)
    DP d replicas         aggregate x d, single stream unchanged
    a KV cache that holds fewer requests than the goal's concurrency scales aggregate down.

Numbers are relative to the first choice (1.0): one replica over every GPU it can use.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, Field

from tools.capacity.memory import (
    CONTEXT_GIB,
    DEFAULT_FRACTION,
    MAX_FRACTION,
    MIN_KV_GIB,
    GpuMemory,
    Layout,
    Workload,
    kv_bytes_per_token,
    lowest_fraction,
    per_gpu_memory,
)
from tools.capacity.modeldir import ModelArch, ModelFacts, gib

Interconnect = Literal["nvlink", "pcie", "no_p2p"]
COMM_COST: dict[str, float] = {"nvlink": 0.03, "pcie": 0.10, "no_p2p": 0.30}
PP_AGGREGATE = 0.85
PP_SINGLE = 0.95


class LayoutVerdict(BaseModel):
    layout: Layout
    label: str
    gpus: int
    fits: bool = Field(description="weights and the goal's KV fit at some fraction <= MAX_FRACTION")
    weights_fit: bool = Field(description="the weights alone fit (the server can start)")
    fraction: float | None = Field(default=None, description="lowest fraction that fits the goal; None: none does")
    memory: GpuMemory = Field(description="the arithmetic at the planning fraction")
    expected_aggregate: float = Field(description="relative to the first choice (1.0)")
    expected_single: float = Field(description="relative to the first choice (1.0)")
    why: list[str] = Field(default_factory=list, description="why it does not fit, or why it ranks lower")
    rank: int | None = Field(default=None, description="1 = best expected throughput among layouts that fit")


class Plan(BaseModel):
    model_path: str
    weights_gib: float | None
    weights_source: str
    estimated: bool = Field(description="the weight bytes or the KV arithmetic are estimates")
    gpus: list[int]
    gpu_total_gib: float
    foreign_gib: float
    fraction: float
    workload: Workload
    interconnect: Interconnect
    layouts: list[LayoutVerdict] = Field(description="fitting layouts ranked first, then the rest")
    first_choice: Layout | None = Field(description="what to launch first: one replica over the most GPUs")
    first_fraction: float | None = Field(default=None, description="a fraction to pass; None: SGLang's default")
    nothing_fits: bool
    goal_fits: bool = Field(default=True, description="some layout also holds the goal's concurrency in its KV cache")
    kv_known: bool = Field(default=False, description="config.json gave the KV bytes per token")
    min_gpus_needed: int | None = Field(default=None, description="GPUs of this size the weights need")
    summary: str
    notes: list[str] = Field(default_factory=list)

    def finding(self) -> str:
        """One line for a report: the arithmetic, and where its weight number came from."""
        source = {
            "safetensors_index": "safetensors index",
            "shard_sizes": "shard sizes",
            "config_estimate": "config.json estimate",
            "du": "du -sb, an estimate",
        }.get(self.weights_source, self.weights_source)
        return f"Memory arithmetic ({source}): {self.summary}."

    def verdict(self, layout: Layout) -> LayoutVerdict | None:
        key = (layout.tp, layout.pp, layout.dp, layout.ep)
        return next((v for v in self.layouts if (v.layout.tp, v.layout.pp, v.layout.dp, v.layout.ep) == key), None)


def _valid_tp(tp: int, arch: ModelArch | None) -> bool:
    if arch is None or arch.heads is None:
        return True
    if arch.heads % tp:
        return False
    kv = arch.kv_heads or arch.heads
    return (tp <= kv and kv % tp == 0) or (tp > kv and tp % kv == 0)


def candidate_layouts(gpu_count: int, arch: ModelArch | None) -> list[Layout]:
    """TP in powers of two that divide the attention heads, PP in 1/2/4, DP filling the rest."""
    out: list[Layout] = []
    tps = [t for t in (1, 2, 4, 8, 16, 32) if t <= gpu_count and _valid_tp(t, arch)]
    layers = (arch.layers if arch else None) or 0
    for tp in tps:
        for pp in (1, 2, 4):
            if tp * pp > gpu_count or (pp > 1 and layers and layers < 2 * pp):
                continue
            for dp in range(1, gpu_count // (tp * pp) + 1):
                out.append(Layout(tp=tp, pp=pp, dp=dp))
    return out


def speed(layout: Layout, interconnect: Interconnect) -> tuple[float, float]:
    """(aggregate, single stream) in arbitrary units; see the module docstring."""
    c = COMM_COST[interconnect]
    replica = layout.tp / (1 + c * (layout.tp - 1))
    single = replica * PP_SINGLE ** (layout.pp - 1)
    aggregate = layout.dp * replica * layout.pp * PP_AGGREGATE ** (layout.pp - 1)
    return aggregate, single


def _first_choice(fitting: list[LayoutVerdict]) -> LayoutVerdict | None:
    """One replica (no DP, no PP) with the most GPUs: SGLang's documented starting point, no
    router; DP and PP are tried when a measurement shows TP topping out."""
    plain = [v for v in fitting if v.layout.dp == 1 and v.layout.pp == 1]
    pool = plain or [v for v in fitting if v.layout.dp == 1] or fitting
    return max(pool, key=lambda v: (v.layout.per_replica, v.layout.tp), default=None)


def plan_layouts(
    facts: ModelFacts,
    gpus: list[int],
    gpu_total_gib: float,
    *,
    foreign_gib: float = 0.0,
    fraction: float | None = None,
    workload: Workload | None = None,
    interconnect: Interconnect = "pcie",
    kv_dtype: str | None = None,
) -> Plan:
    """Judge and rank every layout of `facts`' model on `gpus` (each `gpu_total_gib`)."""
    work = workload or Workload()
    plan_fraction = fraction or DEFAULT_FRACTION
    weights = facts.weights
    notes = list(facts.notes)
    if weights is None:
        return Plan(
            model_path=facts.path,
            weights_gib=None,
            weights_source="none",
            estimated=True,
            gpus=gpus,
            gpu_total_gib=gpu_total_gib,
            foreign_gib=foreign_gib,
            fraction=plan_fraction,
            workload=work,
            interconnect=interconnect,
            layouts=[],
            first_choice=None,
            nothing_fits=False,
            summary=f"no memory arithmetic: the size of {facts.path} could not be read",
            notes=notes,
        )
    arch = facts.arch
    kv_known = arch is not None and kv_bytes_per_token(arch, Layout()) is not None
    if not kv_known:
        notes.append("KV bytes per token unknown (config.json lacks the layer/head numbers): KV not checked")
    verdicts: list[LayoutVerdict] = []
    for layout in candidate_layouts(len(gpus), arch):
        memory = per_gpu_memory(
            weights,
            arch,
            layout,
            gpu_total_gib,
            fraction=plan_fraction,
            foreign_gib=foreign_gib,
            workload=work,
            kv_dtype=kv_dtype,
        )
        needed = lowest_fraction(
            weights, arch, layout, gpu_total_gib, foreign_gib=foreign_gib, workload=work, kv_dtype=kv_dtype
        )
        at_max = per_gpu_memory(
            weights, arch, layout, gpu_total_gib, fraction=MAX_FRACTION, foreign_gib=foreign_gib, workload=work
        )
        why = list(memory.reasons) if needed is None or needed > plan_fraction else []
        if needed is not None and needed > plan_fraction:
            why = [f"fits only at --mem-fraction-static {needed:.2f} (above the planning {plan_fraction:.2f})"]
        verdicts.append(
            LayoutVerdict(
                layout=layout,
                label=layout.label(),
                gpus=layout.gpus,
                fits=needed is not None,
                weights_fit=at_max.weights_fit,
                fraction=needed,
                memory=memory,
                expected_aggregate=0.0,
                expected_single=0.0,
                why=why,
            )
        )
    fitting = [v for v in verdicts if v.fits] or [v for v in verdicts if v.weights_fit]
    first = _first_choice(fitting)
    base_agg, base_single = speed(first.layout, interconnect) if first else (1.0, 1.0)
    for v in verdicts:
        agg, single = speed(v.layout, interconnect)
        conc = v.memory.max_concurrency
        if conc is not None and conc < work.concurrency:
            agg *= max(conc, 0) / work.concurrency
        v.expected_aggregate = round(agg / base_agg, 2)
        v.expected_single = round(single / base_single, 2)
    fit_ids = {id(v) for v in fitting}
    fitting.sort(key=lambda v: (-v.expected_aggregate, -v.expected_single, -v.gpus))
    for i, v in enumerate(fitting, start=1):
        v.rank = i
        if i > 1:
            best = fitting[0]
            v.why.append(
                f"expected {v.expected_aggregate:.2f}x aggregate / {v.expected_single:.2f}x single stream "
                f"vs {best.label} at {best.expected_aggregate:.2f}x / {best.expected_single:.2f}x"
            )
    rest = [v for v in verdicts if id(v) not in fit_ids]
    rest.sort(key=lambda v: (-v.layout.per_replica, v.layout.dp))
    total_w = weights.total_gib
    per_gpu_usable = MAX_FRACTION * gpu_total_gib - foreign_gib - CONTEXT_GIB - MIN_KV_GIB
    min_gpus = math.ceil(total_w / per_gpu_usable) if per_gpu_usable > 0 else None
    nothing = not any(v.weights_fit for v in verdicts)
    n = len(gpus)
    usable = plan_fraction * gpu_total_gib - foreign_gib
    if nothing:
        summary = (
            f"nothing fits: weights {gib(total_w)} vs {gib(usable * n)} usable on {n} GPU(s) "
            f"({plan_fraction:.2f} x {gib(gpu_total_gib)}"
            + (f" - {gib(foreign_gib)} held by others" if foreign_gib > 0.05 else "")
            + f" each); the weights alone need at least {min_gpus} such GPUs"
        )
    elif first is not None and kv_known and not any(v.fits for v in verdicts):
        summary = (
            f"the goal's concurrency does not fit: weights {gib(total_w)} leave {first.label} a KV cache of "
            f"{gib(max(first.memory.kv_pool_gib, 0))} per GPU at {plan_fraction:.2f}, about "
            f"{first.memory.max_concurrency or 0} of {work.concurrency} concurrent requests of "
            f"{work.tokens_per_request:,} tokens"
        )
    elif first is not None:
        summary = (
            f"weights {gib(total_w)}: {first.label} puts {gib(first.memory.weights_gib)} on each of "
            f"{first.gpus} GPU(s) of {gib(gpu_total_gib)}; {len(fitting)} layout(s) fit"
        )
    else:
        summary = f"weights {gib(total_w)}: no layout was judged"
    return Plan(
        model_path=facts.path,
        weights_gib=round(total_w, 3),
        weights_source=weights.source,
        estimated=weights.estimated or not kv_known,
        gpus=gpus,
        gpu_total_gib=gpu_total_gib,
        foreign_gib=foreign_gib,
        fraction=plan_fraction,
        workload=work,
        interconnect=interconnect,
        layouts=fitting + rest,
        first_choice=first.layout if first else None,
        first_fraction=first.fraction if first and first.fraction and first.fraction > plan_fraction else None,
        nothing_fits=nothing,
        goal_fits=any(v.fits for v in verdicts),
        kv_known=kv_known,
        min_gpus_needed=min_gpus,
        summary=summary,
        notes=notes,
    )
