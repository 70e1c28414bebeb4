"""observe_gpus: what each NVIDIA GPU is doing, from nvidia-smi queries (or NVML on a local target).

nvidia-smi reports memory in MiB and power in W; NVML reports bytes and milliwatts. Both are
converted to MiB and W here so the result does not depend on where it came from. Fields a GPU
does not support print `[N/A]` (or `[Not Supported]`) and become None.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from pydantic import BaseModel, Field

from tools.local import LocalTarget
from tools.registry import ToolContext, ToolOutput, tool
from tools.target import CommandResult, Target, TargetError

QUERY_FIELDS = (
    "index",
    "name",
    "pci.bus_id",
    "memory.used",
    "memory.total",
    "utilization.gpu",
    "temperature.gpu",
    "power.draw",
)
QUERY_GPUS = f"nvidia-smi --query-gpu={','.join(QUERY_FIELDS)} --format=csv,noheader,nounits"
QUERY_APPS = "nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory,process_name --format=csv,noheader,nounits"

_NO_DRIVER_HINTS = (
    "couldn't communicate with the nvidia driver",
    "nvidia-smi: command not found",
    "no devices were found",
    "nvml shared library not found",
    "driver/library version mismatch",
    "driver not loaded",
    # a container without the device cgroup's permission, or /dev/nvidia* missing in it
    "failed to initialize nvml: unknown error",
    "failed to initialize nvml: insufficient permissions",
    # the library missing (a driver without its user-space part, a broken container runtime)
    "couldn't find libnvidia-ml.so",
    "libnvidia-ml.so.1: cannot open shared object file",
)


class NoNvidiaDriver(Exception):
    """nvidia-smi / NVML is absent or cannot reach the driver."""


def observation_failure(tool_name: str, target: Target, exc: Exception) -> ToolOutput:
    """A missing driver or output in no known format, as a typed result the decider can read."""
    if isinstance(exc, NoNvidiaDriver):
        return ToolOutput(
            tool=tool_name,
            ok=False,
            summary=f"no NVIDIA driver on {target.describe()}: {exc}",
            error_kind="no_nvidia_driver",
            data={"reason": str(exc)},
        )
    return ToolOutput(tool=tool_name, ok=False, summary=str(exc), error_kind="unparseable_output")


LOST = "[GPU is lost]"  # every field of a GPU that fell off the bus, as nvidia-smi prints it


class UnparseableOutput(Exception):
    """A command's output matches no format this parser knows."""


class GpuProcess(BaseModel):
    pid: int
    used_memory_mib: int | None = None
    name: str = ""


class GpuInfo(BaseModel):
    index: int
    name: str
    bus_id: str | None = Field(default=None, description="PCI address as sysfs spells it: 0000:41:00.0.")
    memory_used_mib: int | None = None
    memory_total_mib: int | None = None
    utilization_pct: float | None = None
    temperature_c: float | None = None
    power_w: float | None = None
    processes: list[GpuProcess] = Field(default_factory=list)


class GpusObservation(BaseModel):
    source: str = Field(description="'nvidia-smi' or 'nvml'.")
    gpus: list[GpuInfo]


class ObserveGpusArgs(BaseModel):
    """No arguments: every GPU the driver shows is reported."""


def _missing(value: str) -> bool:
    v = value.strip()
    return not v or v.startswith("[") or v.upper() in {"N/A", "NA"}


def _float(value: str) -> float | None:
    if _missing(value):
        return None
    try:
        return float(value.strip().split()[0])
    except ValueError:
        return None


def _int(value: str) -> int | None:
    number = _float(value)
    return None if number is None else round(number)


def sysfs_bus_id(bus_id: str) -> str:
    """nvidia-smi's `00000000:41:00.0` (8-digit domain) -> sysfs's `0000:41:00.0`."""
    text = bus_id.strip().lower()
    parts = text.split(":")
    if len(parts) == 3:
        domain, bus, devfn = parts
        try:
            return f"{int(domain, 16):04x}:{bus}:{devfn}"
        except ValueError:
            return text
    if len(parts) == 2:
        return f"0000:{text}"
    return text


def _rows(text: str) -> list[list[str]]:
    return [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(text)) if any(c.strip() for c in row)]


def _field(header_cell: str) -> str:
    """`memory.used [MiB]` -> `memory.used`: the header names the field, then its unit in brackets."""
    return header_cell.split(" [", 1)[0].strip()


def parse_gpu_query(text: str) -> list[GpuInfo]:
    """Rows of QUERY_GPUS output (index, name, bus id, MiB used, MiB total, %, C, W).

    Output with a header row (`--format=csv`, any fields in any order, units in the cells) is
    read by the field names in the header instead of by position."""
    rows = _rows(text)
    columns = list(QUERY_FIELDS)
    if rows and "index" in (header := [_field(c) for c in rows[0]]):
        missing = [f for f in ("index", "name") if f not in header]
        if missing:
            raise UnparseableOutput(f"nvidia-smi --query-gpu header lacks {', '.join(missing)}")
        columns, rows = header, rows[1:]
    gpus: list[GpuInfo] = []
    for row in rows:
        if any(LOST in cell for cell in row):
            continue  # a GPU the driver lost answers no field (nvidia-smi exits 15); read_host_evidence names it
        if len(row) != len(columns):
            raise UnparseableOutput(f"unexpected nvidia-smi --query-gpu row: {','.join(row)!r}")
        cell = dict(zip(columns, row, strict=True))
        if not cell["index"].isdigit():
            raise UnparseableOutput(f"unexpected nvidia-smi --query-gpu row: {','.join(row)!r}")
        bus = cell.get("pci.bus_id", "")
        gpus.append(
            GpuInfo(
                index=int(cell["index"]),
                name=cell["name"],
                bus_id=None if _missing(bus) else sysfs_bus_id(bus),
                memory_used_mib=_int(cell.get("memory.used", "")),
                memory_total_mib=_int(cell.get("memory.total", "")),
                utilization_pct=_float(cell.get("utilization.gpu", "")),
                temperature_c=_float(cell.get("temperature.gpu", "")),
                power_w=_float(cell.get("power.draw", "")),
            )
        )
    return gpus


def parse_apps_query(text: str) -> list[tuple[str, GpuProcess]]:
    """Rows of QUERY_APPS output -> (sysfs bus id, process)."""
    apps: list[tuple[str, GpuProcess]] = []
    for row in _rows(text):
        if "No running" in row[0]:
            continue
        if len(row) < 4 or not row[0].isdigit():
            raise UnparseableOutput(f"unexpected nvidia-smi --query-compute-apps row: {','.join(row)!r}")
        name = ", ".join(row[3:])  # a process name may itself hold commas
        apps.append((sysfs_bus_id(row[1]), GpuProcess(pid=int(row[0]), used_memory_mib=_int(row[2]), name=name)))
    return apps


def attach_processes(gpus: list[GpuInfo], apps: list[tuple[str, GpuProcess]]) -> None:
    by_bus = {g.bus_id: g for g in gpus if g.bus_id}
    for bus_id, proc in apps:
        gpu = by_bus.get(bus_id)
        if gpu is not None:
            gpu.processes.append(proc)


def no_driver_reason(result: CommandResult) -> str | None:
    """Why nvidia-smi could not report, when the driver (or nvidia-smi itself) is absent."""
    text = f"{result.stdout}\n{result.stderr}".lower()
    if result.exit_code == 127:
        return "nvidia-smi is not installed (command not found)"
    for hint in _NO_DRIVER_HINTS:
        if hint in text:
            first = (result.stdout.strip() or result.stderr.strip()).splitlines()
            return first[0] if first else hint
    return None


def query_smi(target: Target) -> list[GpuInfo]:
    result = target.run(QUERY_GPUS, timeout=60)
    if result.exit_code is None:  # never finished (dropped link, timeout): neither an answer nor a missing driver
        raise TargetError(f"nvidia-smi did not finish on {target.describe()}: {result.error or 'no exit'}")
    reason = no_driver_reason(result)
    if reason is not None:
        raise NoNvidiaDriver(reason)
    if not result.ok and LOST not in result.stdout:
        said = result.stderr.strip() or result.stdout.strip()
        raise UnparseableOutput(f"nvidia-smi --query-gpu failed (exit {result.exit_code}): {said}")
    gpus = parse_gpu_query(result.stdout)
    apps = target.run(QUERY_APPS, timeout=60)
    if apps.ok:
        attach_processes(gpus, parse_apps_query(apps.stdout))
    return gpus


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def read_nvml(nvml: Any) -> list[GpuInfo]:
    """Every GPU through an initialised NVML module (`pynvml`); bytes -> MiB, milliwatts -> W."""
    gpus: list[GpuInfo] = []
    for index in range(nvml.nvmlDeviceGetCount()):
        handle = nvml.nvmlDeviceGetHandleByIndex(index)

        def optional(fn: str, *extra: Any, _h: Any = handle) -> Any:
            try:
                return getattr(nvml, fn)(_h, *extra)
            except nvml.NVMLError:
                return None  # the same meaning as nvidia-smi's [N/A]

        memory = optional("nvmlDeviceGetMemoryInfo")
        util = optional("nvmlDeviceGetUtilizationRates")
        temp = optional("nvmlDeviceGetTemperature", nvml.NVML_TEMPERATURE_GPU)
        power_mw = optional("nvmlDeviceGetPowerUsage")
        pci = optional("nvmlDeviceGetPciInfo")
        procs = optional("nvmlDeviceGetComputeRunningProcesses") or []
        bus = _text(pci.busId) if pci is not None else None
        gpus.append(
            GpuInfo(
                index=index,
                name=_text(nvml.nvmlDeviceGetName(handle)),
                bus_id=sysfs_bus_id(bus) if bus else None,
                memory_used_mib=None if memory is None else memory.used // (1024 * 1024),
                memory_total_mib=None if memory is None else memory.total // (1024 * 1024),
                utilization_pct=None if util is None else float(util.gpu),
                temperature_c=None if temp is None else float(temp),
                power_w=None if power_mw is None else power_mw / 1000.0,
                processes=[
                    GpuProcess(
                        pid=p.pid,
                        used_memory_mib=None if p.usedGpuMemory is None else p.usedGpuMemory // (1024 * 1024),
                        name=_proc_name(p.pid),
                    )
                    for p in procs
                ],
            )
        )
    return gpus


def _proc_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def load_nvml() -> Any | None:
    """The initialised `pynvml` module, or None when the library or driver is not there."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        return None
    return pynvml


def observe(target: Target) -> GpusObservation:
    """GPUs on `target`: NVML when it is this machine and loads, nvidia-smi otherwise."""
    if isinstance(target, LocalTarget):
        nvml = load_nvml()
        if nvml is not None:
            try:
                gpus = read_nvml(nvml)
            finally:
                nvml.nvmlShutdown()
            return GpusObservation(source="nvml", gpus=gpus)
    return GpusObservation(source="nvidia-smi", gpus=query_smi(target))


def _line(gpu: GpuInfo) -> str:
    def fmt(value: float | int | None, unit: str) -> str:
        return "?" if value is None else f"{value:g}{unit}"

    mem = f"{fmt(gpu.memory_used_mib, '')}/{fmt(gpu.memory_total_mib, ' MiB')}"
    procs = ", ".join(f"{p.pid} {p.name} {fmt(p.used_memory_mib, ' MiB')}" for p in gpu.processes) or "no processes"
    return (
        f"GPU{gpu.index} {gpu.name} [{gpu.bus_id or '?'}] mem {mem}, util {fmt(gpu.utilization_pct, '%')}, "
        f"{fmt(gpu.temperature_c, 'C')}, {fmt(gpu.power_w, 'W')}; {procs}"
    )


@tool(read_only=True)
def observe_gpus(ctx: ToolContext, args: ObserveGpusArgs) -> ToolOutput:
    """List the host's NVIDIA GPUs: index, name, PCI bus id, memory used/total (MiB), utilisation,
    temperature, power and the compute processes on each. Reports `no_nvidia_driver` when there is none."""
    try:
        result = observe(ctx.target)
    except (NoNvidiaDriver, UnparseableOutput) as exc:
        return observation_failure("observe_gpus", ctx.target, exc)
    lines = [_line(g) for g in result.gpus] or ["no GPUs listed"]
    return ToolOutput(
        tool="observe_gpus",
        ok=True,
        summary=f"{len(result.gpus)} GPU(s) via {result.source}:\n" + "\n".join(lines),
        data=result.model_dump(mode="json"),
    )
