"""nvidia-smi as the driver prints it: --query-gpu / --query-compute-apps CSV, the plain table,
`--version`, `-L` and the `topo -m` / `topo -p2p` matrices, from the scenario and the processes
running at the current virtual time."""

from __future__ import annotations

from dataclasses import dataclass

from tools.lab import gpuhealth, smi_query
from tools.lab.host import Host
from tools.lab.launch import gpu_uuid, mig_uuid, p2p_status
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
    lost: bool = False
    sm_mhz: int = 345
    reasons: frozenset[str] = frozenset()


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
    lost = lost_buses(host)
    for i, dev in enumerate(s.visible_devices()):
        used = 0 + sum(a.used_mib for a in apps if a.gpu == i)
        on = i in busy
        power = s.gpus.busy_power_w if on else s.gpus.idle_power_w + (used > 0) * 40.0
        temp = s.gpus.busy_temp_c if on else s.gpus.idle_temp_c + i % 3
        sm_mhz = MAX_SM_MHZ - 15 if on else 345
        throttle = dev.health.throttle
        loaded = on or used > 0  # work on the GPU (a process holds memory): it heats up
        if throttle is not None:  # held-down clocks once work lands on it; a hot card even empty (a failed fan)
            temp = throttle.temp_c if loaded else throttle.temp_c - 20
            sm_mhz = int(MAX_SM_MHZ * throttle.factor) if loaded else sm_mhz
        reasons = smi_query.active_reasons(on, loaded, throttle.reason if throttle else None)
        out.append(
            GpuNow(
                i, dev, used, 100 if on else 0, power + i * 0.37, temp, dev.bus_id in lost, sm_mhz, frozenset(reasons)
            )
        )
    return out


MAX_SM_MHZ = 1980


def lost_buses(host: Host) -> set[str]:
    """GPUs fallen off the bus by now (before the session, or during a launch)."""
    now = host.clock.now()
    return {bus for bus, t in gpuhealth.lost_since(host.scenario, host.lost_at).items() if t <= now}


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
        "clocks.sm": str(g.sm_mhz),
        "clocks.mem": "2619",
        "clocks.max.sm": str(MAX_SM_MHZ),
        "pci.device_id": "0x" + s.gpus.pci_id.split(":")[1].upper() + "10DE",
        "mig.mode.current": "Enabled" if g.device.health.mig else "Disabled",
        "ecc.errors.uncorrected.volatile.total": str(g.device.health.ecc_uncorrectable),
        "remapped_rows.pending": "Yes" if g.device.health.row_remap_pending else "No",
        "fan.speed": "[N/A]",
        "display_mode": "Disabled",
    }
    bits = {"idle": 0x1, "sw_power_cap": 0x4, "hw_slowdown": 0x8, "sw_thermal": 0x20, "hw_thermal": 0x40}
    bits["hw_power_brake"] = 0x80
    for prefix in ("clocks_event_reasons.", "clocks_throttle_reasons."):  # the pre-535 name still answers
        values[prefix + "active"] = f"0x{sum(b for k, b in bits.items() if k in g.reasons):016X}"
        for field, key in (("gpu_idle", "idle"), ("sw_power_cap", "sw_power_cap"), ("hw_slowdown", "hw_slowdown")):
            values[prefix + field] = "Active" if key in g.reasons else "Not Active"
        for field, key in (("hw_thermal_slowdown", "hw_thermal"), ("sw_thermal_slowdown", "sw_thermal")):
            values[prefix + field] = "Active" if key in g.reasons else "Not Active"
        values[prefix + "hw_power_brake_slowdown"] = "Active" if "hw_power_brake" in g.reasons else "Not Active"
    if g.lost and name not in ("index", "pci.bus_id", "gpu_bus_id") and name in values:
        return "[GPU is lost]"
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
        if g.lost:  # persistence mode keeps the handle of a GPU that fell off the bus: every reading fails
            lines += [
                _row(
                    (f"{g.index:>4}  {name:<30}{'On':>3}  ", 41),
                    (f"{smi_bus(g.device.bus_id):>19} Off ", 24),
                    (f"{'ERR!':>21} ", 22),
                ),
                _row(
                    ("ERR!  ERR!  ERR!            ERR! /  ERR! ", 41),
                    (f"{0:>8}MiB / {s.gpus.memory_mib:>6}MiB ", 24),
                    (f"{'ERR!':>8}      Default ", 22),
                ),
                _row(("", 41), ("", 24), (f"{'ERR!':>21} ", 22)),
                sep,
            ]
            continue
        health = g.device.health
        ecc = "On" if health.mig else str(health.ecc_uncorrectable)  # a MIG GPU counts per instance
        util = "N/A" if health.mig else f"{g.util}%"
        lines += [
            _row(
                (f"{g.index:>4}  {name:<30}{'On':>3}  ", 41),
                (f"{smi_bus(g.device.bus_id):>19} Off ", 24),
                (f"{ecc:>21} ", 22),
            ),
            _row(
                (
                    f" N/A{g.temp_c:>5}C{pstate:>6}{f'{int(g.power_w)}W':>16} / {s.gpus.power_limit_w:>4}W ",
                    41,
                ),
                (f"{g.used_mib:>8}MiB / {s.gpus.memory_mib:>6}MiB ", 24),
                (f"{util:>8}      Default ", 22),
            ),
            _row(("", 41), ("", 24), (f"{'Enabled' if health.mig else 'Disabled':>21} ", 22)),
            sep,
        ]
    lines += _mig_block(host)
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


def _mig_block(host: Host) -> list[str]:
    """The "MIG devices:" table the H200 MIG capture shows (tests/corpus/nvidia-smi/table/h200-mig_590.48.01.txt)."""
    rows: list[str] = []
    for i, dev in enumerate(host.scenario.visible_devices()):
        mig = dev.health.mig
        for n, profile in enumerate(mig.instances if mig else []):
            mib = gpuhealth.mig_mib(profile, host.scenario.gpus.memory_mib)
            sms = int(profile.split("g.")[0]) * 16
            rows += [
                f"|{i:>3}{n + 1:>5}   0 {n:>3}  |{f'{22}MiB / {mib}MiB':>30}    | {sms:<7} 0 |  3   0    3    0    3 |",
                f"|                  |{f'0MiB / {int(mib * 0.83)}MiB':>30}    |           |                       |",
                "+------------------+----------------------------------+-----------+-----------------------+",
            ]
    if not rows:
        return []
    bar = "+" + "-" * 89 + "+"
    return [
        " " * 89,
        bar,
        "| MIG devices:".ljust(90) + "|",
        "+------------------+----------------------------------+-----------+-----------------------+",
        "| GPU  GI  CI  MIG |              Shared Memory-Usage |        Vol|        Shared         |",
        "|      ID  ID  Dev |                Shared BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |",
        "|                  |                                  |        ECC|                       |",
        "|==================+==================================+===========+=======================|",
        *rows,
    ]


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
    """`nvidia-smi -L`: a lost GPU's line is its handle error; a MIG GPU lists its instances."""
    s, lost, out = host.scenario, lost_buses(host), []
    for i, d in enumerate(s.visible_devices()):
        if d.bus_id in lost:
            out.append(gpuhealth.handle_error(d.bus_id))
            continue
        out.append(f"GPU {i}: {s.gpus.name} (UUID: {uuid(host, d)})")
        for n, profile in enumerate(d.health.mig.instances if d.health.mig else []):
            out.append(f"  MIG {profile:<11} Device {n:>2}: (UUID: {mig_uuid(s, d, n)})")
    return "".join(line + "\n" for line in out)


def full_query(host: Host, sections: set[str] | None = None, only: list[int] | None = None) -> str:
    """`nvidia-smi -q [-d SECTIONS]` (tools/lab/smi_query.py lays it out)."""
    s, dt = host.scenario, host.clock.datetime_at(host.clock.now())
    head = [
        f"Timestamp                                 : {dt:%a %b} {dt.day:>2} {dt:%H:%M:%S %Y}",
        f"Driver Version                            : {s.software.driver}",
        f"CUDA Version                              : {s.software.cuda}",
    ]
    views = []
    for g in gpus_now(host):
        if only is not None and g.index not in only:
            continue
        health = g.device.health
        views.append(
            smi_query.GpuView(
                bus=smi_bus(g.device.bus_id),
                name=s.gpus.name,
                index=g.index,
                uuid=uuid(host, g.device),
                total_mib=s.gpus.memory_mib,
                used_mib=g.used_mib,
                util=g.util,
                temp_c=g.temp_c,
                power_w=g.power_w,
                power_limit_w=s.gpus.power_limit_w,
                sm_mhz=g.sm_mhz,
                max_sm_mhz=MAX_SM_MHZ,
                pstate="P0" if g.util or g.used_mib else "P8",
                reasons=set(g.reasons),
                lost=g.lost,
                mig=health.mig is not None,
                ecc_uncorrectable=health.ecc_uncorrectable,
                remap_pending=health.row_remap_pending,
            )
        )
    return smi_query.report(head, views, sections, len(s.visible_devices()))


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
    failure = gpuhealth.nvml_failure(host.scenario)
    if failure is not None:  # NVML cannot start: every nvidia-smi says so (exit: NVML's return code)
        return failure[0], "", failure[1]
    lost = 15 if lost_buses(host) else 0  # NVML_ERROR_GPU_IS_LOST, nvidia-smi's exit code
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
        elif arg == "-d" and "-q" in argv and i + 1 < len(argv):
            i += 1  # the section list of a -q further on
        elif arg in ("--version",):
            return version(host), "", 0
        elif arg in ("-L", "--list-gpus"):
            return listing(host), "", lost
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
            names = argv[argv.index("-d") + 1] if "-d" in argv[:-1] else None
            if names is not None and not set(names.upper().split(",")) <= smi_query.SECTIONS:
                return (
                    f"Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n\n-d {names}\n",
                    "",
                    2,
                )
            ids = next((argv[k + 1] for k, a in enumerate(argv[:-1]) if a in ("-i", "--id")), None)
            picked = [int(x) for x in ids.split(",") if x.isdigit()] if ids else None
            return full_query(host, set(names.upper().split(",")) if names else None, picked), "", lost
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
        out, err, code = query_gpu(host, query, fmt or "csv", only)
        return out, err, code or (lost if "[GPU is lost]" in out else 0)
    if apps:
        return query_apps(host, apps, fmt or "csv")
    return table(host), "", 0
