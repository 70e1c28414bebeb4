"""Findings the situation report derives from observations, one reader a tool.

Tool data is read defensively: keys may be missing or shaped differently as the tools evolve,
and a missing key must never break the report. Only what the data shows is stated: a boot line
that names the IOMMU is not a fault, the memory arithmetic says where its numbers came from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from agent.state import Observation
from tools.capacity.layouts import Plan

FACT_TOOLS = ("observe_host", "observe_topology", "p2p_check", "plan_layouts", "wait_server")
# What a real IOMMU fault looks like in dmesg (AMD-Vi events, Intel DMAR faults); boot lines such
# as `iommu: Default domain type: Translated` mention the IOMMU without being one.
REAL_IOMMU_FAULT = re.compile(
    r"IO_PAGE_FAULT|Event logged|DMAR: \[DMA (Read|Write)|DMAR: DRHD: handling fault|fault addr|PTE (Read|Write)",
    re.I,
)


def _str(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _fact(value: Any) -> Any:
    """observe_host reports each fact as {value, reason, source}; older shapes hold the value itself."""
    if isinstance(value, Mapping) and "value" in value and ("source" in value or "reason" in value):
        return value["value"]
    return value


def _host_facts(raw: Mapping[str, Any]) -> list[str]:
    facts: list[str] = []
    data = {key: _fact(value) for key, value in raw.items()}
    virt = _str(data.get("virtualization"))
    if virt is not None:
        if virt.lower() in ("none", "bare-metal", "bare metal"):
            facts.append(f"The host is bare metal: `systemd-detect-virt` -> `{virt}`.")
        else:
            facts.append(f"The host is a {virt.upper()} guest: `systemd-detect-virt` -> `{virt}`.")
    iommu = data.get("iommu")
    mode = _str(iommu) if not isinstance(iommu, Mapping) else None
    cmdline = _str(data.get("kernel_cmdline")) or ""
    if isinstance(iommu, Mapping):
        mode = _str(iommu.get("mode")) or _str(iommu.get("type")) or _str(iommu.get("domain_type"))
        cmdline = _str(iommu.get("cmdline")) or " ".join(str(f) for f in iommu.get("flags") or []) or cmdline
        if mode is None and isinstance(iommu.get("enabled"), bool):
            mode = "enabled" if iommu["enabled"] else "disabled"
    mode = mode or _str(data.get("iommu_mode"))
    flags = [tok for tok in cmdline.split() if "iommu" in tok.lower()]
    if mode is not None or flags:
        text = f"IOMMU: {mode or 'see kernel command line'}"
        if flags:
            text += f" (kernel command line: `{' '.join(flags)}`)"
        facts.append(text + ".")
    faults = data.get("iommu_faults")
    lines = data.get("iommu_fault_lines")
    if isinstance(lines, list) and lines:
        faults = sum(1 for line in lines if REAL_IOMMU_FAULT.search(str(line)))
    if isinstance(faults, int) and faults > 0:
        facts.append(f"The kernel log holds {faults} IOMMU fault line(s) (`dmesg`: IO_PAGE_FAULT).")
    vfio = data.get("vfio_devices", data.get("vfio_groups", data.get("other_tenant_gpus")))
    if isinstance(vfio, list) and vfio:
        shown = ", ".join(str(v) for v in vfio[:4]) + (", ..." if len(vfio) > 4 else "")
        facts.append(f"{len(vfio)} device(s) are bound to vfio-pci (not mine to touch): {shown}.")
    return facts


def _p2p_statuses(p2p: Any) -> dict[str, str]:
    """Pair -> status from a flat dict, a nested matrix dict or a list of pair records."""
    out: dict[str, str] = {}
    if isinstance(p2p, Mapping):
        for key, value in p2p.items():
            if isinstance(value, Mapping):
                for other, status in value.items():
                    a, b = sorted((str(key), str(other)))
                    if a != b and _str(status):
                        out[f"{a}-{b}"] = str(status).strip()
            elif _str(value):
                out[str(key)] = str(value).strip()
    elif isinstance(p2p, list):
        for rec in p2p:
            if isinstance(rec, Mapping) and _str(rec.get("status")):
                a = rec.get("a", rec.get("src", rec.get("gpu_a")))
                b = rec.get("b", rec.get("dst", rec.get("gpu_b")))
                out[f"{a}-{b}"] = str(rec["status"]).strip()
    return out


def _topology_facts(data: Mapping[str, Any]) -> list[str]:
    statuses = _p2p_statuses(data.get("p2p", data.get("p2p_read", data.get("p2p_matrix"))))
    if not statuses:
        status = _str(data.get("p2p_status"))
        return [f"P2P status: {status}."] if status else []
    counts: dict[str, int] = {}
    for status in statuses.values():
        counts[status] = counts.get(status, 0) + 1
    n = len(statuses)
    if set(counts) == {"NS"}:
        return [f"P2P is not supported between any GPU pair: `nvidia-smi topo -p2p r` shows `NS` for all {n} pairs."]
    if set(counts) == {"OK"}:
        return [
            f"The driver reports P2P read `OK` for all {n} GPU pairs "
            "(a claim, not proof: only a data-integrity copy test shows it works)."
        ]
    bad = [pair for pair, status in statuses.items() if status != "OK"]
    summary = ", ".join(f"{c} `{s}`" for s, c in sorted(counts.items()))
    shown = ", ".join(bad[:6]) + (", ..." if len(bad) > 6 else "")
    return [f"P2P read status over {n} GPU pairs: {summary}; not OK: {shown}."]


def _pair_name(rec: Mapping[str, Any]) -> str:
    if _str(rec.get("pair")):
        return str(rec["pair"])
    a = rec.get("src", rec.get("a", rec.get("gpu_a", "?")))
    b = rec.get("dst", rec.get("b", rec.get("gpu_b", "?")))
    return f"{a}->{b}"


def _mismatches(rec: Mapping[str, Any]) -> int | None:
    value = rec.get("mismatches", rec.get("mismatched"))
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if rec.get("ok") is False or rec.get("match") is False:
        return -1  # wrong data, count unknown
    if rec.get("ok") is True or rec.get("match") is True:
        return 0
    return None


def _p2p_check_facts(data: Mapping[str, Any]) -> list[str]:
    pairs = [p for p in data.get("pairs", []) if isinstance(p, Mapping)] if isinstance(data.get("pairs"), list) else []
    judged = [(p, m) for p in pairs if (m := _mismatches(p)) is not None]
    if not judged:
        return []
    bad = [(p, m) for p, m in judged if m != 0]
    if not bad:
        return [f"A data-integrity P2P copy test passed on all {len(judged)} GPU pairs tested."]
    claims = data.get("can_access_peer")
    claimed = claims is True or (
        isinstance(claims, Mapping) and bool(claims) and all(v is True for v in claims.values())
    )
    claimed = claimed or all(p.get("can_access_peer") is True for p, _ in bad)
    example, count = bad[0]
    detail = f"{_pair_name(example)}: {count:,} mismatched values" if count > 0 else _pair_name(example)
    text = f"P2P copies return wrong data on {len(bad)} of {len(judged)} GPU pairs (e.g. {detail})"
    if claimed:
        text += ", although `can_device_access_peer()` reports True"
    return [text + "."]


def _wait_server_facts(data: Mapping[str, Any]) -> list[str]:
    cause = _str(data.get("cause"))
    if cause is None:
        return []
    evidence = data.get("evidence", [])
    lines = [evidence] if isinstance(evidence, str) else [str(e) for e in evidence or [] if _str(str(e))]
    text = f"The server did not come up: {cause}"
    if lines:
        text += ": " + "; ".join(f"`{_clip(line, 120)}`" for line in lines[:2])
    return [text + ("" if text.endswith(".") else ".")]


def _plan_facts(data: Mapping[str, Any]) -> list[str]:
    try:
        plan = Plan.model_validate(data.get("plan"))
    except ValidationError:
        return []
    return [plan.finding()]


_FACT_READERS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "plan_layouts": _plan_facts,
    "observe_host": _host_facts,
    "observe_topology": _topology_facts,
    "p2p_check": _p2p_check_facts,
    "wait_server": _wait_server_facts,
}


def _clip(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def fact_lines(observations: Iterable[Observation]) -> list[str]:
    """What the latest observation of each fact tool shows, in the report's words."""
    latest: dict[str, Observation] = {}
    for obs in observations:
        if obs.tool in FACT_TOOLS:
            latest[obs.tool] = obs
    derived: list[str] = []
    for tool in FACT_TOOLS:
        if tool not in latest:
            continue
        last = latest[tool]
        facts = _FACT_READERS[tool](last.data)
        if not facts and last.summary and (not last.ok or tool != "wait_server"):
            facts = [last.summary]
        derived.extend(facts)
    return derived


def missing_software(observations: list[Observation]) -> list[str]:
    """What the first observations showed missing for good (no driver, no SGLang, no model
    directory); retrying cannot find it."""
    missing: list[str] = []
    gpus = [o for o in observations if o.tool == "observe_gpus"]
    if gpus and not any(o.ok for o in gpus) and gpus[-1].error_kind == "no_nvidia_driver":
        reason = str(gpus[-1].data.get("reason") or gpus[-1].summary).splitlines()[0]
        missing.append(f"no NVIDIA driver ({reason})")
    flags = [o for o in observations if o.tool == "sglang_flags" and not o.outcome_unknown]
    if flags and not any(o.ok for o in flags) and flags[-1].error_kind == "sglang_missing":
        missing.append(f"no SGLang ({flags[-1].summary.splitlines()[0]})")
    elif not flags and missing:
        host = next((o for o in reversed(observations) if o.tool == "observe_host" and o.ok), None)
        sglang = ((host.data.get("versions") or {}).get("sglang") or {}) if host else {}
        if isinstance(sglang, dict) and sglang.get("value") is None and sglang.get("reason"):
            missing.append(f"no SGLang ({sglang['reason']})")
    plans = [o for o in observations if o.tool == "plan_layouts" and not o.outcome_unknown]
    if plans and plans[-1].error_kind == "model_path_missing":
        path = plans[-1].args.get("model_path", "the model directory")
        missing.append(f"no model at {path} ({plans[-1].summary.splitlines()[0]})")
    return missing
