"""The runbook's reading of the host's own evidence (tools/host_evidence.py, tools/sglang/diagnosis.py):
which GPUs no layout may use, and why, with the line that shows it; the diagnosis of a failed launch.

A GPU the driver lost, one in MIG mode, one with uncorrectable ECC errors, one where another
user's process holds memory, and one found throttled under our own load are left out of every
layout and every proposal, and each is said with its evidence.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from agent.state import AgentState, Observation
from tools.host_evidence import HostEvidence
from tools.sglang.diagnosis import FOREIGN_MIB, Diagnosis, diagnose

EVIDENCE_TOOL = "read_host_evidence"


def host_evidence(observation: Observation | None) -> HostEvidence | None:
    if observation is None or not observation.ok:
        return None
    return HostEvidence.model_validate(observation.data)


def evidences(observations: list[Observation]) -> list[HostEvidence]:
    return [e for e in (host_evidence(o) for o in observations if o.tool == EVIDENCE_TOOL) if e is not None]


def bus_ids(observations: list[Observation]) -> dict[int, str]:
    """GPU index -> PCI address, from the first look at the GPUs (a lost GPU may list no more)."""
    first = next((o for o in observations if o.tool == "observe_gpus" and o.ok), None)
    gpus = (first.data.get("gpus") if first is not None else None) or []
    return {int(g["index"]): str(g["bus_id"]) for g in gpus if g.get("bus_id")}


def foreign_memory(state: AgentState, observations: list[Observation]) -> dict[int, int]:
    """MiB other users' processes held on each GPU at the first look (before anything of mine ran)."""
    first = next((o for o in observations if o.tool == "observe_gpus" and o.ok), None)
    mine = {p.get("pid") if isinstance(p, dict) else p.pid for p in (state.get("processes") or {}).values()}
    held: dict[int, int] = {}
    for gpu in (first.data.get("gpus") if first is not None else None) or []:
        mib = sum(int(p.get("used_memory_mib") or 0) for p in gpu.get("processes") or [] if p.get("pid") not in mine)
        if mib:
            held[int(gpu["index"])] = mib
    return held


def unusable(state: AgentState, observations: list[Observation]) -> dict[int, str]:
    """GPU -> why no layout may use it, with the evidence."""
    out: dict[int, str] = {}
    known = bus_ids(observations)
    for ev in evidences(observations):
        ev.bus_ids = {**known, **ev.bus_ids}
        for g in ev.lost_indices():
            line = next((x[2] for x in ev.xid if x[1] == 79), None) or next(iter(ev.lost.values()), "")
            out.setdefault(g, f"lost by the driver ({line})")
        for g in ev.ecc_indices():
            out.setdefault(g, f"uncorrectable ECC errors ({ev.ecc.get(g, 0)} counted)")
        for g in ev.mig:
            out.setdefault(g, "in MIG mode (nvidia-smi -L lists MIG devices on it)")
        for g, reason in ev.throttled.items():
            out.setdefault(g, f"throttled under load: {reason} is Active (nvidia-smi -q -d PERFORMANCE)")
    for g, mib in foreign_memory(state, observations).items():
        if mib >= FOREIGN_MIB:
            out.setdefault(g, f"{mib} MiB held by another user's process (nvidia-smi)")
    return out


def failure_diagnosis(
    state: AgentState, observations: list[Observation], cls: str, lines: list[str], launched: list[int]
) -> Diagnosis:
    after = [o for o in observations if o.tool == EVIDENCE_TOOL]
    host = host_evidence(after[-1]) if after else None
    if host is not None:
        host.bus_ids = {**bus_ids(observations), **host.bus_ids}
    return diagnose(cls, lines, host, launched, foreign_memory(state, observations))


def evidence_args(observations: list[Observation], paths: list[str], model_dir: str | None = None) -> dict[str, Any]:
    """The next look: only kernel lines after the last one seen, addresses from the first look."""
    seen = evidences(observations)
    return {
        "paths": paths,
        "model_dir": model_dir,
        "kernel_after": seen[-1].kernel_lines if seen else 0,
        "known_bus_ids": {str(k): v for k, v in bus_ids(observations).items()},
    }


def launched_gpus(args: dict[str, Any], all_gpus: list[int]) -> list[int]:
    gpus = args.get("gpus")
    return [int(g) for g in gpus] if isinstance(gpus, list) and gpus else list(all_gpus)


def looked_under_load(observations: list[Observation], launch: Observation) -> bool:
    """The host's health was read after a measurement of a launch on these same GPUs already."""
    gpus = launch.args.get("gpus")
    measured = same = False
    for o in observations:
        if o.tool == "launch_server":
            measured = False
            same = o.args.get("gpus") == gpus
        elif o.tool == "run_benchmark" and o.ok:
            measured = True
        elif o.tool == EVIDENCE_TOOL and measured and same:
            return True
    return False


def short_shards(observations: list[Observation]) -> list[str]:
    seen = evidences(observations)
    return seen[-1].short_shards if seen else []


# Files an earlier session of mine leaves that nothing needs: core dumps, profiler captures, traces.
FIND_DEBRIS = "find . -type f -size +100M"
_DEBRIS = re.compile(r"(^|/)(core(\.[\w-]+)*|[^/]+\.(nsys-rep|qdrep|ncu-rep|pt\.trace\.json(\.gz)?|prof|dump))$")


def debris(observation: Observation) -> list[str]:
    """The big files `FIND_DEBRIS` listed in my work directory that are disposable by their kind."""
    out = str(observation.data.get("stdout") or "")
    return [line.strip() for line in out.splitlines() if line.strip().startswith("./") and _DEBRIS.search(line.strip())]


def remove_command(files: list[str]) -> str:
    return "rm -f -- " + " ".join(shlex.quote(f) for f in files)
