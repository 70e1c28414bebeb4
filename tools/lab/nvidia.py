"""nvidia-smi as the driver prints it: --query-gpu / --query-compute-apps CSV, the plain table,
`--version`, `-L` and the `topo -m` / `topo -p2p` matrices, from the scenario and the processes
running at the current virtual time."""

from __future__ import annotations

from dataclasses import dataclass

from tools.lab.host import Host
from tools.lab.launch import gpu_uuid, p2p_status
from tools.lab.scenario import GpuDevice

Out = tuple[str, str, int]  # stdout, stderr, exit code


@dataclass
class GpuNow:
    index: int
    device: GpuDevice
    used_mib: int
    util: int
    power_w: float
    temp_c: int


@dataclass
class ComputeApp:
    pid: int
    gpu: int
    used_mib: int
    name: str


def smi_bus(bus_id: str) -> str:
    """sysfs 0000:41:00.0 -> nvidia-smi 00000000:41:00.0 (upper-case hex)."""
    domain, rest = bus_id.split(":", 1)
    return f"{int(domain, 16):08X}:{rest.upper()}"


def uuid(host: Host, device: GpuDevice) -> str:
    return gpu_uuid(host.scenario, device)


def compute_apps(host: Host) -> list[ComputeApp]:
    t = host.clock.now()
    apps: list[ComputeApp] = []
    for proc in host.alive(t):
        if proc.server is not None:
            gib = proc.server.gpu_memory_gib(t)
            if gib <= 0:
                continue
            titles = proc.server.layout.rank_names()
            for rank, gpu in enumerate(proc.server.cfg.gpus):
                apps.append(ComputeApp(proc.pid + 2 + rank, gpu, int(gib * 1024), titles[rank]))
        for gpu, mib in proc.gpu_memory_mib.items():
            apps.append(ComputeApp(proc.pid, gpu, mib, proc.comm if "/" not in proc.comm else proc.args.split()[0]))
    return sorted(apps, key=lambda a: (a.gpu, a.pid))


def gpus_now(host: Host) -> list[GpuNow]:
    s, t = host.scenario, host.clock.now()
    apps = compute_apps(host)
    busy: set[int] = set()
    for proc in host.alive(t):
        if proc.server is not None and proc.server.state(t) == "hung":
            busy |= set(proc.server.cfg.gpus)  # a rank stuck in a collective spins at 100%
        if proc.gpu_busy:
            busy |= set(proc.gpu_memory_mib)
    out = []
    for i, dev in enumerate(s.visible_devices()):
        used = 0 + sum(a.used_mib for a in apps if a.gpu == i)
        on = i in busy
        power = s.gpus.busy_power_w if on else s.gpus.idle_power_w + (used > 0) * 40.0
        out.append(
            GpuNow(
                i,
                dev,
                used,
                100 if on else 0,
                power + i * 0.37,
                s.gpus.busy_temp_c if on else s.gpus.idle_temp_c + i % 3,
            )
        )
    return out


FIELDS_UNITS = {
    "memory.used": "MiB",
    "memory.total": "MiB",
    "memory.free": "MiB",
    "memory.reserved": "MiB",
    "utilization.gpu": "%",
    "utilization.memory": "%",
    "power.draw": "W",
    "power.limit": "W",
    "power.draw.instant": "W",
    "power.draw.average": "W",
    "clocks.sm": "MHz",
    "clocks.mem": "MHz",
    "clocks.max.sm": "MHz",
    "used_memory": "MiB",
}


def _gpu_field(host: Host, g: GpuNow, name: str) -> str | None:
    s = host.scenario
    total = s.gpus.memory_mib
    reserved = 482 if total > 100000 else 413
    values: dict[str, str] = {
        "index": str(g.index),
        "name": s.gpus.name,
        "gpu_name": s.gpus.name,
        "pci.bus_id": smi_bus(g.device.bus_id),
        "gpu_bus_id": smi_bus(g.device.bus_id),
        "memory.used": str(g.used_mib),
        "memory.total": str(total),
        "memory.free": str(total - reserved - g.used_mib),
        "memory.reserved": str(reserved),
        "utilization.gpu": str(g.util),
        "utilization.memory": str(g.util // 2),
        "temperature.gpu": str(g.temp_c),
        "temperature.memory": "[N/A]",
        "power.draw": f"{g.power_w:.2f}",
        "power.draw.instant": f"{g.power_w:.2f}",
        "power.draw.average": f"{g.power_w:.2f}",
        "power.limit": f"{s.gpus.power_limit_w:.2f}",
        "driver_version": s.software.driver,
        "uuid": uuid(host, g.device),
        "gpu_uuid": uuid(host, g.device),
        "compute_cap": s.gpus.compute_capability,
        "count": str(len(s.visible_devices())),
        "pstate": "P0" if g.util else "P8" if not g.used_mib else "P0",
        "persistence_mode": "Enabled",
        "serial": g.device.serial or f"16{g.index:011d}",
        "clocks.sm": "1965" if g.util else "345",
        "clocks.mem": "2619",
        "clocks.max.sm": "1980",
        "pci.device_id": "0x" + s.gpus.pci_id.split(":")[1].upper() + "10DE",
        "mig.mode.current": "Disabled",
        "ecc.errors.uncorrected.volatile.total": "0",
        "fan.speed": "[N/A]",
        "display_mode": "Disabled",
    }
    return values.get(name)


def _parse_format(spec: str) -> tuple[bool, bool]:
    parts = {p.strip() for p in spec.split(",")}
    return "noheader" in parts, "nounits" in parts


def _csv(host: Host, fields: list[str], rows: list[dict[str, str]], fmt: str) -> Out:
    noheader, nounits = _parse_format(fmt)
    lines = []
    if not noheader:
        lines.append(", ".join(f"{f} [{FIELDS_UNITS[f]}]" if f in FIELDS_UNITS and not nounits else f for f in fields))
    for row in rows:
        cells = []
        for f in fields:
            v = row[f]
            if f in FIELDS_UNITS and not nounits and not v.startswith("["):
                v = f"{v} {FIELDS_UNITS[f]}"
            cells.append(v)
        lines.append(", ".join(cells))
    return "".join(line + "\n" for line in lines), "", 0


def _bad_field(name: str) -> Out:
    return f'Field "{name}" is not a valid field to query.\n\n', "", 2


def query_gpu(host: Host, spec: str, fmt: str, only: list[int] | None) -> Out:
    fields = [f.strip() for f in spec.split(",") if f.strip()]
    gpus = [g for g in gpus_now(host) if only is None or g.index in only]
    rows = []
    for g in gpus:
        row = {}
        for f in fields:
            value = _gpu_field(host, g, f)
            if value is None:
                return _bad_field(f)
            row[f] = value
        rows.append(row)
    return _csv(host, fields, rows, fmt)


def query_apps(host: Host, spec: str, fmt: str) -> Out:
    fields = [f.strip() for f in spec.split(",") if f.strip()]
    visible = host.scenario.visible_devices()
    rows = []
    for app in compute_apps(host):
        dev = visible[app.gpu]
        values = {
            "pid": str(app.pid),
            "gpu_bus_id": smi_bus(dev.bus_id),
            "used_memory": str(app.used_mib),
            "process_name": app.name,
            "name": app.name,
            "gpu_uuid": uuid(host, dev),
            "gpu_name": host.scenario.gpus.name,
            "type": "C",
        }
        for f in fields:
            if f not in values:
                return _bad_field(f)
        rows.append({f: values[f] for f in fields})
    return _csv(host, fields, rows, fmt)


W = 91


def _row(*segments: tuple[str, int]) -> str:
    return "|" + "|".join(text[:width].ljust(width) for text, width in segments) + "|"


def table(host: Host) -> str:
    s, dt = host.scenario, host.clock.datetime_at(host.clock.now())
    lines = [f"{dt:%a %b} {dt.day:>2} {dt:%H:%M:%S %Y}       "]
    dash = "+" + "-" * (W - 2) + "+"
    drv = s.software.driver
    if kmd_naming(drv):
        head = f" NVIDIA-SMI {drv:<23}KMD Version: {drv:<14}CUDA UMD Version: {s.software.cuda}"
    else:
        head = f" NVIDIA-SMI {drv:<23}Driver Version: {drv:<15}CUDA Version: {s.software.cuda}"
    lines += [dash, "|" + head.ljust(W - 2) + "|"]
    sep = "+" + "-" * 41 + "+" + "-" * 24 + "+" + "-" * 22 + "+"
    lines += [
        sep.replace("+", "|", 1),
        _row(
            (" GPU  Name                 Persistence-M ", 41),
            (" Bus-Id          Disp.A ", 24),
            (" Volatile Uncorr. ECC ", 22),
        ),
        _row(
            (" Fan  Temp   Perf          Pwr:Usage/Cap ", 41),
            ("           Memory-Usage ", 24),
            (" GPU-Util  Compute M. ", 22),
        ),
        _row(("", 41), ("", 24), ("               MIG M. ", 22)),
        "|" + "=" * 41 + "+" + "=" * 24 + "+" + "=" * 22 + "|",
    ]
    name = s.gpus.name if len(s.gpus.name) <= 29 else s.gpus.name[:24] + "..."
    for g in gpus_now(host):
        pstate = "P0" if g.util or g.used_mib else "P8"
        lines += [
            _row(
                (f"{g.index:>4}  {name:<30}{'On':>3}  ", 41),
                (f"{smi_bus(g.device.bus_id):>19} Off ", 24),
                (f"{'0':>21} ", 22),
            ),
            _row(
                (
                    f" N/A{g.temp_c:>5}C{pstate:>6}{f'{int(g.power_w)}W':>16} / {s.gpus.power_limit_w:>4}W ",
                    41,
                ),
                (f"{g.used_mib:>8}MiB / {s.gpus.memory_mib:>6}MiB ", 24),
                (f"{g.util:>7}%      Default ", 22),
            ),
            _row(("", 41), ("", 24), (f"{'Disabled':>21} ", 22)),
            sep,
        ]
    lines += [
        " " * (W - 2),
        dash,
        "|" + " Processes:".ljust(W - 2) + "|",
        "|"
        + "  GPU   GI   CI              PID   Type   Process name                        GPU Memory".ljust(W - 2)
        + "|",
        "|" + "        ID   ID                                                               Usage".ljust(W - 2) + "|",
        "|" + "=" * (W - 2) + "|",
    ]
    apps = compute_apps(host)
    if not apps:
        lines.append("|" + "  No running processes found".ljust(W - 2) + "|")
    for a in apps:
        text = f"  {a.gpu:>3}   N/A  N/A  {a.pid:>14}      C   {a.name[:36]:<36}{a.used_mib:>7}MiB"
        lines.append("|" + text.ljust(W - 2) + "|")
    lines.append(dash)
    return "\n".join(lines) + "\n"


def kmd_naming(driver: str) -> bool:
    """From driver 610 nvidia-smi names the versions "KMD" and "CUDA UMD" (the old names are deprecated)."""
    major = driver.split(".", 1)[0]
    return major.isdigit() and int(major) >= 610


def version(host: Host) -> str:
    sw = host.scenario.software
    nvml = ".".join(sw.driver.split(".")[:2])
    head = f"NVIDIA-SMI version  : {sw.driver}\nNVML version        : {nvml}\n"
    if kmd_naming(sw.driver):
        return head + (
            'DRIVER version      : Deprecated, see "KMD version" instead\n'
            'CUDA version        : Deprecated, see "CUDA UMD version" instead\n'
            f"KMD version         : {sw.driver}\nCUDA UMD version    : {sw.cuda}\n"
        )
    return head + f"DRIVER version      : {sw.driver}\nCUDA Version        : {sw.cuda}\n"


def listing(host: Host) -> str:
    return "".join(
        f"GPU {i}: {host.scenario.gpus.name} (UUID: {uuid(host, d)})\n"
        for i, d in enumerate(host.scenario.visible_devices())
    )


def full_query(host: Host) -> str:
    """`nvidia-smi -q`, the fields operators read (the real one is much longer)."""
    s, dt = host.scenario, host.clock.datetime_at(host.clock.now())
    out = [
        "",
        "==============NVSMI LOG==============",
        "",
        f"Timestamp                                 : {dt:%a %b} {dt.day:>2} {dt:%H:%M:%S %Y}",
        f"Driver Version                            : {s.software.driver}",
        f"CUDA Version                              : {s.software.cuda}",
        "",
        f"Attached GPUs                             : {len(s.visible_devices())}",
    ]
    for g in gpus_now(host):
        total = s.gpus.memory_mib
        out += [
            f"GPU {smi_bus(g.device.bus_id)}",
            f"    Product Name                          : {s.gpus.name}",
            "    Persistence Mode                      : Enabled",
            f"    Minor Number                          : {g.index}",
            f"    GPU UUID                              : {uuid(host, g.device)}",
            "    PCI",
            f"        Bus Id                            : {smi_bus(g.device.bus_id)}",
            "    FB Memory Usage",
            f"        Total                             : {total} MiB",
            f"        Used                              : {g.used_mib} MiB",
            f"        Free                              : {total - g.used_mib} MiB",
            "    Utilization",
            f"        Gpu                               : {g.util} %",
            "    Temperature",
            f"        GPU Current Temp                  : {g.temp_c} C",
            "",
        ]
    return "".join(line + "\n" for line in out)


def nvlink_status(host: Host) -> str:
    """`nvidia-smi nvlink --status`: each GPU's links (none listed on PCIe-only GPUs)."""
    s = host.scenario
    out: list[str] = []
    for i, d in enumerate(s.visible_devices()):
        out.append(f"GPU {i}: {s.gpus.name} (UUID: {uuid(host, d)})")
        if s.gpus.interconnect == "nvlink":
            out += [f"\t Link {n}: 26.562 GB/s" for n in range(s.gpus.nvlinks)]
    return "".join(line + "\n" for line in out)


def _affinity(host: Host, numa: int) -> str:
    h = host.scenario.host
    per = h.cpus // max(h.numa_nodes, 1)
    return f"{numa * per}-{(numa + 1) * per - 1}"


def link(host: Host, a: int, b: int) -> str:
    s = host.scenario
    if a == b:
        return " X "
    if s.topology.matrix is not None:
        return s.topology.matrix[a][b]
    if s.topology.link is not None:
        return s.topology.link
    if s.gpus.interconnect == "nvlink":
        return f"NV{s.gpus.nvlinks}"
    devs = s.visible_devices()
    return "NODE" if devs[a].numa_node == devs[b].numa_node else "SYS"


TOPO_LEGEND = """
Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks
"""

P2P_LEGEND = """
Legend:

  X    = Self
  OK   = Status Ok
  CNS  = Chipset not supported
  GNS  = GPU not supported
  TNS  = Topology not supported
  NS   = Not supported
  U    = Unknown
"""


def topo_matrix(host: Host) -> str:
    devs = host.scenario.visible_devices()
    n = len(devs)
    head = "\t" + "\t".join(f"GPU{i}" for i in range(n)) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"
    rows = [head]
    for a in range(n):
        cells = [link(host, a, b) for b in range(n)]
        d = devs[a]
        rows.append(f"GPU{a}\t" + "\t".join(cells) + f"\t{_affinity(host, d.numa_node)}\t{d.numa_node}\t\tN/A")
    return "\n".join(rows) + "\n" + TOPO_LEGEND


def topo_p2p(host: Host) -> str:
    n = len(host.scenario.visible_devices())
    status = p2p_status(host.scenario)
    rows = [" \t" + "".join(f"GPU{i}\t" for i in range(n))]
    for a in range(n):
        rows.append(f" GPU{a}\t" + "".join(("X" if a == b else status) + "\t" for b in range(n)))
    return "\n".join(rows) + "\n" + P2P_LEGEND


def run(host: Host, argv: list[str]) -> Out:
    """`nvidia-smi ARGS` (argv without the program name)."""
    if not argv:
        return table(host), "", 0
    if argv[0] == "topo":
        rest = argv[1:]
        if rest in (["-m"], ["--matrix"]):
            return topo_matrix(host), "", 0
        if len(rest) == 2 and rest[0] == "-p2p" and rest[1] in ("r", "w", "n", "a", "p"):
            return topo_p2p(host), "", 0
        return "", "Invalid combination of input arguments. Please run 'nvidia-smi topo -h' for help.\n", 2
    query = apps = fmt = None
    only: list[int] | None = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        value = None
        if "=" in arg and arg.startswith("--"):
            arg, value = arg.split("=", 1)
        elif arg in ("--query-gpu", "--query-compute-apps", "--format", "-i", "--id") and i + 1 < len(argv):
            i += 1
            value = argv[i]
        if arg == "--query-gpu":
            query = value
        elif arg == "--query-compute-apps":
            apps = value
        elif arg == "--format":
            fmt = value
        elif arg in ("-i", "--id") and value is not None:
            try:
                only = [int(x) for x in value.split(",")]
            except ValueError:
                return f"Invalid GPU ID: {value}\n", "", 2
        elif arg in ("--version",):
            return version(host), "", 0
        elif arg in ("-L", "--list-gpus"):
            return listing(host), "", 0
        elif arg in ("-r", "--gpu-reset"):
            return (
                (
                    "Unable to reset this GPU because it's being used by some other process (e.g. CUDA "
                    "application, graphics application like X server, monitoring application like other "
                    "instance of nvidia-smi). Please first kill all processes using this GPU and all compute "
                    "applications running in the system.\n"
                ),
                "",
                255,
            )
        elif arg in ("-q", "--query"):
            return full_query(host), "", 0
        elif arg == "nvlink" and i == 0:
            return nvlink_status(host), "", 0
        else:
            return (
                f"Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n\n{arg}\n",
                "",
                2,
            )
        i += 1
    if (query or apps) and not fmt:
        return "Format must be specified with --format\n", "", 2
    if query:
        return query_gpu(host, query, fmt or "csv", only)
    if apps:
        return query_apps(host, apps, fmt or "csv")
    return table(host), "", 0
