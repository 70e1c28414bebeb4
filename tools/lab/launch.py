"""A launch configuration as the lab sees it, and the test of a scenario's `when` against it."""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tools.lab import sglang_flags
from tools.lab.scenario import GpuDevice, Match, Scalar, Scenario, When


@dataclass
class LaunchConfig:
    """What a launch_server invocation amounts to on this host."""

    version: str
    args: argparse.Namespace
    env: dict[str, str]
    gpus: list[int]  # nvidia-smi indices the ranks run on
    defaults: dict[str, Scalar] = field(default_factory=dict)  # scenario's computed defaults, by dest
    p2p_transport: bool = False

    @property
    def tp(self) -> int:
        return int(getattr(self.args, "tensor_parallel_size", 1) or 1)

    @property
    def model_path(self) -> str:
        return str(self.args.model_path).rstrip("/")

    @property
    def port(self) -> int:
        return int(self.args.port)

    @property
    def host(self) -> str:
        return str(self.args.host)

    def flag(self, option: str) -> Any:
        """The effective value of `option`: given, else the scenario's computed default, else argparse's."""
        dest = sglang_flags.dest_of(self.version, option)
        if dest is None:
            return None
        return self.value(dest)

    def value(self, dest: str) -> Any:
        given = getattr(self.args, dest, None)
        parser_default = sglang_flags.default_of(self.version, dest)
        if given is not None and given != parser_default:
            return given
        if dest in self.defaults:
            return self.defaults[dest]
        return given


def _norm(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _equal(a: Any, b: Any) -> bool:
    na, nb = _norm(a), _norm(b)
    if na is None or nb is None:
        return na is nb
    try:
        return float(na) == float(nb)
    except ValueError:
        return na == nb


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def match(m: Match, value: Any) -> bool:
    if m.in_ is not None and not any(_equal(value, v) for v in m.in_):
        return False
    if m.not_in is not None and any(_equal(value, v) for v in m.not_in):
        return False
    number = _number(value)
    bounds = (m.gt, m.ge, m.lt, m.le)
    if all(b is None for b in bounds):
        return True
    if number is None:
        return False
    return not (
        (m.gt is not None and not number > m.gt)
        or (m.ge is not None and not number >= m.ge)
        or (m.lt is not None and not number < m.lt)
        or (m.le is not None and not number <= m.le)
    )


def holds(when: When, cfg: LaunchConfig) -> bool:
    for option, m in when.flags.items():
        if not match(m, cfg.flag(option)):
            return False
    for name, m in when.env.items():
        if not match(m, cfg.env.get(name)):
            return False
    if when.tp is not None and not match(when.tp, cfg.tp):
        return False
    if when.model is not None and when.model.rstrip("/") != cfg.model_path:
        return False
    if when.gpus_any_of is not None and not set(when.gpus_any_of) & set(cfg.gpus):
        return False
    return not (when.p2p_transport is not None and when.p2p_transport != cfg.p2p_transport)


def gpu_uuid(scenario: Scenario, device: GpuDevice) -> str:
    """The GPU's UUID as `nvidia-smi -L` prints it (stable per host and PCI address)."""
    h = hashlib.sha256(f"{scenario.host.hostname}/{device.bus_id}".encode()).hexdigest()
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def mig_uuid(scenario: Scenario, device: GpuDevice, instance: int) -> str:
    """A MIG instance's UUID as `nvidia-smi -L` prints it (stable per host, PCI address and instance)."""
    h = hashlib.sha256(f"{scenario.host.hostname}/{device.bus_id}/mig{instance}".encode()).hexdigest()
    return f"MIG-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def mig_chosen(scenario: Scenario, device: GpuDevice, env: Mapping[str, str]) -> int:
    """The MIG instance of `device` a process sees: the one CUDA_VISIBLE_DEVICES names, else the first."""
    mig = device.health.mig
    raw = env.get("CUDA_VISIBLE_DEVICES") or ""
    for n in range(len(mig.instances) if mig else 0):
        if mig_uuid(scenario, device, n).lower() in raw.lower():
            return n
    return 0


def visible_gpus(scenario: Scenario, env: Mapping[str, str]) -> list[int] | None:
    """nvidia-smi indices CUDA may use under `env`; None when CUDA_VISIBLE_DEVICES names a bad one.
    Entries are indices or UUIDs (`GPU-...`, a unique prefix is enough, as CUDA takes it), or a MIG
    instance's full `MIG-...` UUID (a process enumerates one MIG device: later ones are ignored)."""
    devices = scenario.visible_devices()
    count = len(devices)
    raw = env.get("CUDA_VISIBLE_DEVICES")
    if raw is None:
        return list(range(count))
    uuids = [gpu_uuid(scenario, d).lower() for d in devices]
    migs = {
        mig_uuid(scenario, d, n).lower(): i
        for i, d in enumerate(devices)
        for n in range(len(d.health.mig.instances) if d.health.mig else 0)
    }
    chosen: list[int] = []
    mig_seen = False
    for part in raw.split(","):
        part = part.strip()
        if not part:
            continue
        if part.isdigit() and int(part) < count:
            chosen.append(int(part))
            continue
        if part.lower() in migs:
            if not mig_seen:
                chosen.append(migs[part.lower()])
            mig_seen = True
            continue
        hits = [i for i, u in enumerate(uuids) if part.lower().startswith("gpu-") and u.startswith(part.lower())]
        if len(hits) != 1:
            break  # CUDA stops at the first invalid (or ambiguous) entry
        chosen.append(hits[0])
    return chosen


def p2p_status(scenario: Scenario) -> str:
    """What `nvidia-smi topo -p2p r` says between two nvidia-bound GPUs."""
    if scenario.topology.p2p_read is not None:
        return scenario.topology.p2p_read
    return "NS" if scenario.host.virtualization != "none" else "OK"


def uses_p2p(scenario: Scenario, env: Mapping[str, str], ranks: int) -> bool:
    if ranks < 2 or env.get("NCCL_P2P_DISABLE", "0") not in ("0", ""):
        return False
    return env.get("NCCL_P2P_LEVEL") != "LOC" and p2p_status(scenario) == "OK"


def build(scenario: Scenario, args: argparse.Namespace, env: Mapping[str, str]) -> LaunchConfig | str:
    """The launch config, or the reason CUDA cannot place it (a message for the crash log)."""
    version = scenario.software.sglang
    dests = sglang_flags.option_dests(version)
    defaults = {dests[k]: v for k, v in scenario.software.sglang_defaults.items()}
    visible = visible_gpus(scenario, env) or []
    tp = int(args.tensor_parallel_size or 1)
    # Every rank gets its own GPU: TP x PP per replica, DP replicas side by side (DP attention
    # runs its DP ranks inside the TP group). A rank past the visible GPUs fails at set_device.
    ranks = tp * int(getattr(args, "pipeline_parallel_size", 1) or 1)
    if not getattr(args, "enable_dp_attention", False):
        ranks *= int(getattr(args, "data_parallel_size", 1) or 1)
    base = int(args.base_gpu_id or 0)
    if not visible:
        return "RuntimeError: No CUDA GPUs are available"
    if base + ranks > len(visible):
        return "RuntimeError: CUDA error: invalid device ordinal"
    gpus = visible[base : base + ranks]
    cfg = LaunchConfig(version, args, dict(env), gpus, defaults)
    cfg.p2p_transport = uses_p2p(scenario, env, tp)  # the all-reduce runs inside one TP group
    return cfg
