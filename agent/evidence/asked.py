"""The evidence a question carries (`QuestionEvidence`), read from the run's observations when it
is asked: failures with their log lines, what holds each GPU, the attempts with their commands and
numbers, ports, the interconnect. The operator's questions ("why did it OOM?") are answered from
it (agent/hearing/answers.py), never from what the report happened to print.

Tool data is read defensively (a missing key leaves a field empty, never breaks the question), and
everything is clipped: a question is stored with the run and must stay a few KB.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agent.evidence.findings import fact_lines
from agent.state import (
    AgentState,
    Attempt,
    AttemptSeen,
    FailureSeen,
    GpuProcessSeen,
    GpuSeen,
    Observation,
    PortSeen,
    QuestionEvidence,
)
from tools.host_evidence import HostEvidence
from tools.sglang.diagnosis import diagnose
from tools.sglang.failures import classify_benchmark, classify_launch

LINE = 300  # characters of one quoted line: an OOM's sentence with its numbers fits
MOST_FAILURES = 6
MOST_ATTEMPTS = 12
MOST_LINES = 3
_BUSY = re.compile(r"address already in use|Errno 98|port \d+ is already taken", re.I)


def clip(text: Any, limit: int = LINE) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def question_evidence(state: AgentState) -> QuestionEvidence:
    observations = list(state.get("observations") or [])
    attempts = list(state.get("attempts") or [])
    running = {p.pid for p in (state.get("processes") or {}).values() if hasattr(p, "pid")}
    launches = {o.step: o for o in observations if o.tool == "launch_server"}
    by_step = {a.step: a.id for a in attempts}
    mine = {
        int(o.data["pid"]): by_step.get(o.step, "") for o in launches.values() if isinstance(o.data.get("pid"), int)
    }
    return QuestionEvidence(
        failures=_failures(observations, by_step, mine)[-MOST_FAILURES:],
        gpus=_gpus(observations, attempts, launches, mine, running),
        attempts=[_attempt(a, launches.get(a.step), observations) for a in attempts][-MOST_ATTEMPTS:],
        ports=_ports(observations, by_step),
        interconnect=_interconnect(observations),
        memory=[clip(line) for line in fact_lines(o for o in observations if o.tool == "plan_layouts")],
        host=_host(observations),
    )


def _attempt_at(step: int, by_step: Mapping[int, str]) -> str | None:
    before = [s for s in by_step if s <= step]
    return by_step[max(before)] if before else None


def _host_after(observations: list[Observation], step: int) -> HostEvidence | None:
    """The host's evidence read after a failure at `step` and before the next launch."""
    for o in observations:
        if o.step <= step:
            continue
        if o.tool == "launch_server":
            return None
        if o.tool == "read_host_evidence" and o.ok:
            try:
                return HostEvidence.model_validate(o.data)
            except ValueError:
                return None
    return None


def _foreign_mib(observations: list[Observation], mine: Mapping[int, str]) -> dict[int, int]:
    first = next((o for o in observations if o.tool == "observe_gpus" and o.ok), None)
    held: dict[int, int] = {}
    for gpu in _records(first.data.get("gpus") if first else None):
        mib = sum(
            _int(p.get("used_memory_mib")) or 0 for p in _records(gpu.get("processes")) if p.get("pid") not in mine
        )
        if mib and _int(gpu.get("index")) is not None:
            held[int(gpu["index"])] = mib
    return held


def _failures(
    observations: list[Observation], by_step: Mapping[int, str], mine: Mapping[int, str]
) -> list[FailureSeen]:
    out: list[FailureSeen] = []
    launched: list[int] = []
    for o in observations:
        if o.tool == "launch_server":
            launched = [int(g) for g in o.args.get("gpus") or [] if _int(g) is not None]
        if o.ok or o.outcome_unknown or o.tool not in ("launch_server", "wait_server", "run_benchmark"):
            continue
        attempt = _attempt_at(o.step, by_step)
        if o.tool == "launch_server":
            cls: str = classify_launch(o.error_kind, evidence=[o.summary], refusal=True)
            lines = [o.summary.splitlines()[0]] if o.summary else []
            out.append(FailureSeen(step=o.step, tool=o.tool, attempt=attempt, cls=cls, cause=o.error_kind, lines=lines))
            continue
        if o.tool == "run_benchmark":
            cls = classify_benchmark(o.error_kind)
            lines = [line for line in o.summary.splitlines()[:2] if line.strip()]
            out.append(FailureSeen(step=o.step, tool=o.tool, attempt=attempt, cls=cls, cause=o.error_kind, lines=lines))
            continue
        cause = str(o.data.get("cause") or o.error_kind or "") or None
        phase = str(o.data.get("phase") or "") or None
        log = [str(x) for x in [*(o.data.get("evidence") or []), *(o.data.get("errors") or [])] if str(x).strip()]
        cls = classify_launch(cause, phase, log)
        diagnosis = ""
        host = _host_after(observations, o.step)
        if host is not None and log:
            placed = diagnose(cls, log, host, launched, _foreign_mib(observations, mine))
            if placed.cls != cls:  # the host's evidence says more than the log alone
                diagnosis = f"{placed.cls}: {placed.description}"
                log = [*placed.lines, *log]
        lines = list(dict.fromkeys(clip(line) for line in log))[:MOST_LINES] or [clip(o.summary.splitlines()[0])]
        hint = str(o.data.get("hint") or "") or None
        out.append(
            FailureSeen(
                step=o.step, tool=o.tool, attempt=attempt, cls=cls, cause=cause, diagnosis=diagnosis,
                phase=phase, lines=lines, hint=hint,
            )
        )  # fmt: skip
    return out


def _gpus(
    observations: list[Observation],
    attempts: list[Attempt],
    launches: Mapping[int, Observation],
    mine: Mapping[int, str],
    running: set[int],
) -> list[GpuSeen]:
    looks = [o for o in observations if o.tool == "observe_gpus" and o.ok]
    # the first look (before anything of mine ran) and the latest one, when they differ
    chosen = looks[:1] + looks[-1:] if len(looks) > 1 else looks
    health = _health(observations)
    servers = _servers(attempts, launches, running)
    out: list[GpuSeen] = []
    for look in chosen:
        for gpu in _records(look.data.get("gpus")):
            index = _int(gpu.get("index"))
            if index is None:
                continue
            procs = [
                GpuProcessSeen(
                    pid=pid, name=clip(p.get("name") or "", 80), used_mib=_int(p.get("used_memory_mib")) or 0,
                    mine=mine.get(pid),
                )
                for p in _records(gpu.get("processes"))[:6]
                if (pid := _int(p.get("pid"))) is not None
            ]  # fmt: skip
            out.append(
                GpuSeen(
                    index=index, step=look.step, used_mib=_int(gpu.get("memory_used_mib")),
                    total_mib=_int(gpu.get("memory_total_mib")), processes=procs, health=health.get(index, []),
                    servers=servers.get(index, []),
                )
            )  # fmt: skip
    return out[:32]


def _health(observations: list[Observation]) -> dict[int, list[str]]:
    """GPU -> what read_host_evidence found wrong with it (lost, MIG, ECC, throttled)."""
    out: dict[int, list[str]] = {}
    for o in observations:
        if o.tool != "read_host_evidence" or not o.ok:
            continue
        try:
            ev = HostEvidence.model_validate(o.data)
        except ValueError:
            continue
        said: list[tuple[int, str]] = []
        for g in ev.lost_indices():
            line = next((x[2] for x in ev.xid if x[1] == 79), None) or next(iter(ev.lost.values()), "")
            said.append((g, f"lost by the driver: {line}"))
        said += [(g, f"{ev.ecc.get(g, 0)} uncorrectable ECC errors") for g in ev.ecc_indices()]
        said += [(g, "in MIG mode (nvidia-smi -L lists MIG devices on it)") for g in ev.mig]
        said += [(g, f"throttled: {reason} is Active") for g, reason in ev.throttled.items()]
        for g, text in said:
            line = clip(f"{text} (read_host_evidence, step {o.step})")
            if line not in out.setdefault(g, []) and len(out[g]) < 3:
                out[g].append(line)
    return out


def _servers(attempts: list[Attempt], launches: Mapping[int, Observation], running: set[int]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for a in attempts:
        launch = launches.get(a.step)
        if launch is None or not launch.ok:
            continue
        pid = _int(launch.data.get("pid"))
        gpus = [int(g) for g in launch.args.get("gpus") or [] if _int(g) is not None]
        if not gpus:
            visible = str((launch.data.get("env") or {}).get("CUDA_VISIBLE_DEVICES") or "")
            gpus = [int(g) for g in visible.split(",") if g.strip().isdigit()]
        now = "running now" if pid is not None and pid in running else "no longer running"
        name = launch.data.get("name") or launch.args.get("name") or "server"
        text = f"my {name} of {a.id} (pid {pid}, port {launch.data.get('port') or launch.args.get('port')}), {now}"
        for g in gpus:
            out.setdefault(g, []).append(text)
    return {g: lines[-4:] for g, lines in out.items()}


def _attempt(a: Attempt, launch: Observation | None, observations: list[Observation]) -> AttemptSeen:
    data = launch.data if launch is not None else {}
    command = str(data.get("command") or a.config.get("command") or "")
    env = {str(k): clip(v, 80) for k, v in (data.get("env") or {}).items()}
    levels: list[str] = []
    bench = next(
        (
            o
            for o in observations
            if o.tool == "run_benchmark" and o.ok and o.step > a.step and _owner(o, observations) == a.step
        ),
        None,
    )
    for level in _records(bench.data.get("levels") if bench else None)[:6]:
        tps = level.get("output_throughput")
        ttft = level.get("median_ttft_ms")
        if isinstance(tps, int | float):
            text = f"concurrency {level.get('concurrency')}: {tps:,.1f} tok/s output"
            levels.append(text + (f", median TTFT {ttft:,.0f} ms" if isinstance(ttft, int | float) else ""))
    return AttemptSeen(
        id=a.id, step=a.step, change=clip(a.change, 200), outcome=clip(a.outcome, 200),
        failure_class=a.failure_class, aggregate_tps=a.aggregate_tps, single_stream_tps=a.single_stream_tps,
        ttft_ms=a.ttft_ms, command=clip(command, 400), env=env, pid=_int(data.get("pid")),
        port=_int(data.get("port") or (launch.args.get("port") if launch else None)), levels=levels,
    )  # fmt: skip


def _owner(obs: Observation, observations: list[Observation]) -> int | None:
    """The step of the launch a measurement measured: the latest before it."""
    steps = [o.step for o in observations if o.tool == "launch_server" and o.step < obs.step]
    return max(steps) if steps else None


def _ports(observations: list[Observation], by_step: Mapping[int, str]) -> list[PortSeen]:
    out: list[PortSeen] = []
    for o in observations:
        port = _int(o.data.get("port")) or _int(o.args.get("port"))
        if port is None or o.tool not in ("launch_server", "wait_server", "run_benchmark"):
            continue
        attempt = _attempt_at(o.step, by_step) or "a launch"
        busy = o.error_kind == "port_in_use" or o.data.get("cause") == "port_in_use"
        if busy:
            said = [str(x) for x in [*(o.data.get("evidence") or []), *(o.data.get("errors") or [])]]
            line = next((x for x in said if _BUSY.search(x)), o.summary.splitlines()[0] if o.summary else "")
            out.append(
                PortSeen(port=port, step=o.step, what=f"held by a process I did not start ({attempt}): {clip(line)}")
            )
        elif o.tool == "launch_server" and o.ok:
            out.append(
                PortSeen(port=port, step=o.step, what=f"my server {by_step.get(o.step, attempt)} was started on it")
            )
        elif o.tool == "wait_server" and o.ok:
            out.append(
                PortSeen(port=port, step=o.step, what=f"my server {attempt} answered on it: {clip(o.summary, 120)}")
            )
    return out[-10:]


def _interconnect(observations: list[Observation]) -> list[str]:
    lines: list[str] = []
    topo = next((o for o in reversed(observations) if o.tool == "observe_topology" and o.ok), None)
    if topo is not None:
        kind = topo.data.get("interconnect")
        pairs = _records(topo.data.get("pairs"))
        links: dict[str, int] = {}
        for p in pairs:
            if _int(p.get("src")) is not None and _int(p.get("dst")) is not None and p["src"] < p["dst"]:
                links[str(p.get("link"))] = links.get(str(p.get("link")), 0) + 1
        shown = ", ".join(f"{link} on {n} pair(s)" for link, n in sorted(links.items()))
        if kind or shown:
            lines.append(
                f"Interconnect (nvidia-smi topo -m, step {topo.step}): {kind or 'unknown'}; "
                f"links: {shown or 'none listed'}."
            )
    lines += fact_lines(o for o in observations if o.tool in ("observe_host", "observe_topology", "p2p_check"))
    check = next((o for o in reversed(observations) if o.tool == "p2p_check" and o.ok), None)
    rates = [
        float(p["bandwidth_gbps"])
        for p in _records(check.data.get("pairs") if check else None)
        if isinstance(p.get("bandwidth_gbps"), int | float)
    ]
    if check is not None and rates:
        lines.append(
            f"P2P copy bandwidth (p2p_check, step {check.step}): {min(rates):,.0f}-{max(rates):,.0f} GB/s "
            f"over {len(rates)} pairs."
        )
    for o in observations:
        if o.tool == "wait_server" and o.data.get("transport"):
            lines.append(f"NCCL transport seen by my server at step {o.step}: {o.data['transport']}.")
        for warning in (o.data.get("nccl_warnings") or [])[:2] if o.tool == "wait_server" else []:
            lines.append(f"NCCL warning at step {o.step}: {clip(warning)}")
    return list(dict.fromkeys(clip(line) for line in lines))[-8:]


def _host(observations: list[Observation]) -> list[str]:
    lines: list[str] = []
    looks = [o for o in observations if o.tool == "read_host_evidence" and o.ok]
    for o in looks:
        lines += [f"kernel log (step {o.step}): {k}" for k in (o.data.get("kernel") or [])[-3:]]
    if looks:
        last = looks[-1]
        lines += [f"free disk (step {last.step}): {d.get('line')}" for d in _records(last.data.get("disks"))[:3]]
        lines += [f"weight file (step {last.step}): {s}" for s in (last.data.get("short_shards") or [])[:2]]
        lines += [f"could not read (step {last.step}): {u}" for u in (last.data.get("unread") or [])[:2]]
    return list(dict.fromkeys(clip(line) for line in lines))[-10:]


def _records(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None
