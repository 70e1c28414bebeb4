"""The performance model: output throughput as a function of concurrency and launch config.

Throughput follows a saturation curve `rate(c) = peak * c / (c + k)`: `rate(1)` is the
single-stream rate and `rate(at_concurrency)` the aggregate rate the scenario states. Modifiers
whose `when` holds (TP, P2P transport, backends, flags, env) scale the two anchor rates; seeded
noise is applied per benchmark run by the caller.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tools.lab.launch import LaunchConfig, holds
from tools.lab.scenario import PerfSpec


@dataclass(frozen=True)
class Curve:
    single_stream: float
    peak: float
    k: float
    replicas: int = 1  # DP: independent copies, each serving its share of the streams

    def rate(self, concurrency: int) -> float:
        c = max(concurrency, 1)
        if self.replicas > 1:
            share = max(c / self.replicas, 1.0)
            return min(self.replicas, c) * self.peak * share / (share + self.k)
        return self.peak * c / (c + self.k)


def curve(spec: PerfSpec, cfg: LaunchConfig, interconnect: str = "pcie") -> Curve:
    """The curve for a launch: the anchors, scaled for TP (relative to `reference_tp`), for an
    NVLink or PCIe host whose TP all-reduce cannot use P2P, for pipeline stages, then by every
    modifier whose `when` holds. DP runs that curve once per replica (no all-reduce between them)."""
    single, aggregate = spec.single_stream_tps, spec.aggregate_tps
    a = cfg.args
    pp = max(int(getattr(a, "pipeline_parallel_size", 1) or 1), 1)
    dp = max(int(getattr(a, "data_parallel_size", 1) or 1), 1)
    replicas = 1 if getattr(a, "enable_dp_attention", False) else dp
    if spec.reference_tp is not None and cfg.tp != spec.reference_tp:
        ratio = cfg.tp / spec.reference_tp
        single *= ratio**spec.tp_exponent_single
        aggregate *= ratio**spec.tp_exponent_aggregate
    if interconnect == "nvlink" and cfg.tp > 1 and not cfg.p2p_transport:
        single *= spec.nvlink_without_p2p
        aggregate *= spec.nvlink_without_p2p
    if interconnect == "pcie" and cfg.tp > 1 and not cfg.p2p_transport:
        # Through host memory, every doubling of the TP group costs the factor again: DP replicas
        # with smaller TP groups avoid most of it.
        cost = spec.pcie_without_p2p ** math.log2(cfg.tp)
        single *= cost
        aggregate *= cost
    if pp > 1:
        single *= spec.pp_single
        aggregate *= pp**spec.pp_exponent_aggregate
    for mod in spec.modifiers:
        if holds(mod.when, cfg):
            single *= mod.single_stream
            aggregate *= mod.aggregate
    fitted = _fit(single, aggregate, spec.at_concurrency)
    return Curve(fitted.single_stream, fitted.peak, fitted.k, replicas)


def base_curve(spec: PerfSpec) -> Curve:
    """The unmodified curve (a server the agent did not start: its configuration is unknown)."""
    return _fit(spec.single_stream_tps, spec.aggregate_tps, spec.at_concurrency)


def _fit(single: float, aggregate: float, c0: int) -> Curve:
    # Keep the curve well formed: more streams never lower the total, never beat linear scaling.
    aggregate = min(max(aggregate, single * 1.05), single * c0 * 0.95)
    k = c0 * (single - aggregate) / (aggregate - c0 * single)
    return Curve(single_stream=single, peak=single * (1 + k), k=k)
