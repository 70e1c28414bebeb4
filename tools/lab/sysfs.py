"""The host's file view: sysfs and procfs generated from the scenario, over the files in `Host`;
plus the commands that read the same facts (`lspci -nnk`, `dmesg`, `systemd-detect-virt`)."""

from __future__ import annotations

import posixpath

from tools.lab import gpuhealth
from tools.lab.host import Host

Out = tuple[str, str, int]


class FsError(Exception):
    """errno-style failure: `reason` is strerror (No such file or directory, Is a directory, ...)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


NOENT = "No such file or directory"
ISDIR = "Is a directory"
DEVICES = "/sys/bus/pci/devices"
GROUPS = "/sys/kernel/iommu_groups"
DRIVERS = "/sys/bus/pci/drivers"


class Fs:
    """Reads of the simulated machine: host files first, then generated /sys and /proc."""

    def __init__(self, host: Host) -> None:
        self.host = host
        s = host.scenario
        self.by_bus = {d.bus_id: d for d in s.gpus.devices}
        self.iommu_on = s.iommu.vendor != "none" and s.iommu.mode != "off"

    # ---- symlinks -----------------------------------------------------------------------

    def canonical(self, path: str) -> str:
        """Resolve the sysfs symlinks the tools follow (driver, iommu_group) and normalise."""
        path = posixpath.normpath(path)
        if path.startswith(DEVICES + "/"):
            parts = path[len(DEVICES) + 1 :].split("/")
            dev = self.by_bus.get(parts[0])
            if dev is not None and len(parts) >= 2:
                if parts[1] == "driver":
                    return posixpath.join(DRIVERS, dev.driver, *parts[2:])
                if parts[1] == "iommu_group" and self.iommu_on:
                    return posixpath.join(GROUPS, str(dev.iommu_group), *parts[2:])
        return path

    def readlink(self, path: str) -> str | None:
        """Where a symlink points (canonical form), None when `path` is not a link."""
        resolved = self.canonical(path)
        return resolved if resolved != posixpath.normpath(path) else None

    # ---- generated files ----------------------------------------------------------------

    def _generated(self, path: str) -> bytes | None:
        s, host = self.host.scenario, self.host
        t = host.clock.now()
        if path == "/proc/cmdline":
            return (s.host.cmdline + "\n").encode()
        if path == "/proc/uptime":
            up = s.host.uptime_s + t
            return f"{up:.2f} {up * 100.3:.2f}\n".encode()
        if path == "/proc/version":
            return f"Linux version {s.host.kernel} (buildd@lcy02-amd64-040) #60-Ubuntu SMP\n".encode()
        if path == "/proc/driver/nvidia/version":
            return (
                f"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  {s.software.driver}  "
                "Release Build  (dvs-builder@U22-I3-AM02-24-3)  Wed Jul 30 18:15:23 UTC 2025\n"
                "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n"
            ).encode()
        if path == "/sys/module/nvidia/version":
            return (s.software.driver + "\n").encode()
        if path == "/proc/meminfo":
            kb = s.host.memory_gib * 1024 * 1024
            text = f"MemTotal:       {kb} kB\nMemFree:        {kb * 9 // 10} kB\n"
            return (text + f"MemAvailable:   {kb * 19 // 20} kB\n").encode()
        if path.startswith("/proc/") and path.split("/")[2].isdigit():
            pid = int(path.split("/")[2])
            proc = host.processes.get(pid)
            if proc is None or not proc.alive(t):
                return None
            rest = path.split("/")[3:]
            if rest == ["cmdline"]:
                return proc.args.replace(" ", "\0").encode() + b"\0"
            if rest == ["comm"]:
                return (proc.comm + "\n").encode()
            return None
        if path.startswith(DEVICES + "/"):
            parts = path[len(DEVICES) + 1 :].split("/")
            dev = self.by_bus.get(parts[0])
            if dev is None or len(parts) != 2:
                return None
            vendor, device = s.gpus.pci_id.split(":")
            attrs = {
                "vendor": f"0x{vendor}",
                "device": f"0x{device}",
                "class": "0x030200",
                "numa_node": str(dev.numa_node),
                "current_link_speed": "32.0 GT/s PCIe",
                "current_link_width": "16",
                "max_link_speed": "32.0 GT/s PCIe",
                "max_link_width": "16",
                "enable": "1",
                "driver_override": "(null)" if dev.driver == "nvidia" else "vfio-pci",
            }
            value = attrs.get(parts[1])
            return None if value is None else (value + "\n").encode()
        if path.startswith(GROUPS + "/") and self.iommu_on:
            parts = path[len(GROUPS) + 1 :].split("/")
            if len(parts) == 2 and parts[1] == "type" and parts[0] in self._groups():
                return (s.iommu.group_type + "\n").encode()
        return None

    def _groups(self) -> set[str]:
        return {str(d.iommu_group) for d in self.host.scenario.gpus.devices} if self.iommu_on else set()

    def _generated_dirs(self, path: str) -> list[str] | None:
        s = self.host.scenario
        if path == DEVICES:
            return sorted(self.by_bus)
        if path.startswith(DEVICES + "/") and path[len(DEVICES) + 1 :] in self.by_bus:
            names = [
                "class",
                "current_link_speed",
                "current_link_width",
                "device",
                "driver",
                "driver_override",
                "enable",
                "max_link_speed",
                "max_link_width",
                "numa_node",
                "vendor",
            ]
            return sorted([*names, "iommu_group"] if self.iommu_on else names)
        if path == GROUPS:
            return sorted(self._groups(), key=int)
        if path.startswith(GROUPS + "/"):
            rest = path[len(GROUPS) + 1 :].split("/")
            if rest[0] in self._groups():
                if len(rest) == 1:
                    return ["devices", "reserved_regions", "type"]
                if rest[1:] == ["devices"]:
                    return sorted(d.bus_id for d in s.gpus.devices if str(d.iommu_group) == rest[0])
        if path == DRIVERS:
            return ["nvidia", "pcieport", "vfio-pci"]
        if path.startswith(DRIVERS + "/"):
            name = path[len(DRIVERS) + 1 :]
            if name in ("nvidia", "vfio-pci"):
                return sorted([d.bus_id for d in s.gpus.devices if d.driver == name] + ["bind", "new_id", "unbind"])
        if path in ("/proc", "/sys", "/sys/bus", "/sys/bus/pci", "/sys/kernel", "/proc/driver"):
            return []
        return None

    # ---- public -------------------------------------------------------------------------

    def read(self, path: str) -> bytes:
        path = self.canonical(path)
        entry = self.host.files.get(path)
        if entry is not None:
            return entry.content(self.host.clock.now())[0]
        data = self._generated(path)
        if data is not None:
            return data
        if self.is_dir(path):
            raise FsError(path, ISDIR)
        raise FsError(path, NOENT)

    def exists(self, path: str) -> bool:
        path = self.canonical(path)
        return path in self.host.files or self._generated(path) is not None or self.is_dir(path)

    def is_dir(self, path: str) -> bool:
        path = self.canonical(path)
        return self.host.is_dir(path) or self._generated_dirs(path) is not None

    def listdir(self, path: str) -> list[str]:
        path = self.canonical(path)
        generated = self._generated_dirs(path)
        names = set(generated or []) | set(self.host.listdir(path))
        if generated is None and not self.host.is_dir(path):
            if self.exists(path):
                return [posixpath.basename(path)]
            raise FsError(path, NOENT)
        return sorted(names)


# ---- commands reading the same facts ------------------------------------------------------


def detect_virt(host: Host, argv: list[str]) -> Out:
    virt = host.scenario.host.virtualization
    if "--container" in argv or "-c" in argv:
        virt = "none"
    return (virt + "\n", "", 1 if virt == "none" else 0)


OTHER_PCI = [
    (
        "00:00.0",
        "Host bridge [0600]: Advanced Micro Devices, Inc. [AMD] Genoa/Bergamo Root Complex [1022:14a4]",
        "Subsystem: Advanced Micro Devices, Inc. [AMD] Genoa/Bergamo Root Complex [1022:14a4]",
        None,
    ),
    (
        "00:01.1",
        "PCI bridge [0604]: Advanced Micro Devices, Inc. [AMD] Genoa/Bergamo GPP Bridge [1022:14ab]",
        None,
        "pcieport",
    ),
    (
        "c2:00.0",
        "Ethernet controller [0200]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]",
        "Subsystem: Mellanox Technologies Device [15b3:0026]",
        "mlx5_core",
    ),
    (
        "e1:00.0",
        "Non-Volatile memory controller [0108]: Samsung Electronics Co Ltd NVMe SSD Controller PM174X [144d:a826]",
        "Subsystem: Samsung Electronics Co Ltd Device [144d:aa0a]",
        "nvme",
    ),
]


def lspci(host: Host, argv: list[str]) -> Out:
    s = host.scenario
    select = None
    vendor = None
    for i, a in enumerate(argv):
        if a == "-s" and i + 1 < len(argv):
            select = argv[i + 1].removeprefix("0000:")
        if a == "-d" and i + 1 < len(argv):
            vendor = argv[i + 1]
    entries: list[tuple[str, str, str | None, str | None, str | None, str]] = []
    for slot, desc, sub, drv in OTHER_PCI:
        entries.append((slot, desc, sub, drv, None, "1022:14a4" if "AMD" in desc else "x:x"))
    vendor_id, device_id = s.gpus.pci_id.split(":")
    lost = {b for b, t in gpuhealth.lost_since(s, host.lost_at).items() if t <= host.clock.now()}
    for d in s.gpus.devices:
        # A GPU off the bus answers config reads with all ones: lspci shows revision ff.
        rev = "ff" if d.bus_id in lost else "a1"
        desc = f"3D controller [0302]: NVIDIA Corporation {s.gpus.lspci_name} [{s.gpus.pci_id}] (rev {rev})"
        entries.append(
            (
                d.bus_id[5:],
                desc,
                f"Subsystem: NVIDIA Corporation Device [{vendor_id}:204e]",
                d.driver,
                "nvidiafb, nouveau, nvidia_drm, nvidia",
                s.gpus.pci_id,
            )
        )
    entries.sort(key=lambda e: e[0])
    out = []
    for slot, desc, sub, drv, modules, ids in entries:
        if select is not None and not slot.endswith(select) and select != slot:
            continue
        if vendor is not None and not ids.startswith(vendor.rstrip(":")):
            continue
        out.append(f"{slot} {desc}")
        if sub:
            out.append(f"\t{sub}")
        if drv:
            out.append(f"\tKernel driver in use: {drv}")
        if modules:
            out.append(f"\tKernel modules: {modules}")
    del device_id
    return "".join(line + "\n" for line in out), "", 0


def distro(os_name: str) -> str:
    low = os_name.lower()
    if "ubuntu" in low:
        return "ubuntu"
    if "debian" in low:
        return "debian"
    if any(w in low for w in ("red hat", "rhel", "rocky", "alma", "centos", "oracle")):
        return "rhel"
    return "ubuntu"


def linux_banner(os_name: str, kernel: str) -> str:
    """The first kernel line, as each distribution's build farm stamps it."""
    kind = distro(os_name)
    if kind == "rhel":
        return (
            f"Linux version {kernel} (mockbuild@x86-64-04.build.eng.rdu2.redhat.com) (gcc (GCC) 11.5.0 20240719 "
            "(Red Hat 11.5.0-2), GNU ld version 2.35.2-54.el9) #1 SMP PREEMPT_DYNAMIC Wed Nov 13 07:23:59 EST 2024"
        )
    if kind == "debian":
        return (
            f"Linux version {kernel} (debian-kernel@lists.debian.org) (x86_64-linux-gnu-gcc-12 (Debian 12.2.0-14) "
            "12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22)"
        )
    return (
        f"Linux version {kernel} (buildd@lcy02-amd64-040) (x86_64-linux-gnu-gcc-13 (Ubuntu "
        "13.3.0-6ubuntu2~24.04) 13.3.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #60-Ubuntu SMP"
    )


def iommu_boot_lines(vendor: str, mode: str, cmdline: str) -> list[tuple[float, str]]:
    """What the kernel logs about the IOMMU at boot: the vendor driver's lines (Intel DMAR/VT-d,
    AMD-Vi), then the IOMMU core's harmless `Default domain type` line (drivers/iommu/iommu.c)."""
    if vendor == "none" or mode == "off":
        return []
    out: list[tuple[float, str]] = []
    if vendor == "intel":
        out += [
            (0.0, "DMAR: IOMMU enabled"),
            (0.011, "DMAR: Host address width 52"),
            (0.011, "DMAR: DRHD base: 0x000000d37fc000 flags: 0x0"),
            (0.011, "DMAR: dmar0: reg_base_addr d37fc000 ver 6:0 cap 9ed008c40780466 ecap 3ee9e86f050df"),
            (0.52, "DMAR-IR: Enabled IRQ remapping in x2apic mode"),
            (1.93, "DMAR: Intel(R) Virtualization Technology for Directed I/O"),
        ]
    else:
        out += [
            (1.91, "pci 0000:00:00.2: AMD-Vi: IOMMU performance counters supported"),
            (1.92, "AMD-Vi: Using global IVHD EFR:0x246577efa2254afa, EFR2:0x0"),
            (1.92, "AMD-Vi: Extended features (0x246577efa2254afa, 0x0): PPR NX GT [5] IA GA PC GA_vAPIC"),
            (1.93, "AMD-Vi: Interrupt remapping enabled"),
            (1.94, "perf/amd_iommu: Detected AMD IOMMU #0 (2 banks, 4 counters/bank)."),
        ]
    by_cmdline = any(
        w in cmdline.split() for w in ("iommu=pt", "iommu=nopt", "iommu.passthrough=1", "iommu.passthrough=0")
    )
    kind = "Translated" if mode == "translated" else "Passthrough"
    out.append((2.01, f"iommu: Default domain type: {kind}{' (set via kernel command line)' if by_cmdline else ''}"))
    if mode == "translated":
        strict = "iommu.strict=1" in cmdline.split()
        out.append((2.01, f"iommu: DMA domain TLB invalidation policy: {'strict' if strict else 'lazy'} mode"))
    return out


def dma_fault_line(vendor: str, bus_id: str, domain: int, addr: int) -> list[str]:
    """The kernel's lines when a device's DMA hits an unmapped address, per IOMMU vendor."""
    if vendor == "intel":
        short = bus_id[5:]
        return [
            "DMAR: DRHD: handling fault status reg 2",
            f"DMAR: [DMA Read NO_PASID] Request device [{short}] fault addr 0x{addr:x} [fault reason 0x06] "
            "PTE Read access is not set",
        ]
    return [
        f"nvidia {bus_id}: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x{domain:04x} address=0x{addr:x} flags=0x0020]"
    ]


def boot_messages(host: Host) -> list[tuple[float, str]]:
    s = host.scenario
    lines = [(0.0, linux_banner(s.host.os, s.host.kernel)), (0.0, f"Command line: {s.host.cmdline}")]
    if s.host.virtualization != "none":
        lines.append((0.0, f"Hypervisor detected: {s.host.virtualization.upper()}"))
    lines += iommu_boot_lines(s.iommu.vendor, s.iommu.mode, s.host.cmdline)
    if s.iommu.mode != "off" and s.iommu.vendor != "none":
        for d in s.gpus.devices:
            lines.append((2.3, f"pci {d.bus_id}: Adding to iommu group {d.iommu_group}"))
    lines.append((9.71, "nvidia: loading out-of-tree module taints kernel."))
    lines.append(
        (
            9.85,
            f"NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  {s.software.driver}  Release "
            "Build  (dvs-builder@U22-I3-AM02-24-3)  Wed Jul 30 18:15:23 UTC 2025",
        )
    )
    for d in s.gpus.devices:
        if d.driver == "vfio-pci":
            lines.append((11.2, f"vfio-pci {d.bus_id}: enabling device (0000 -> 0002)"))
    for i, text in enumerate(s.host.dmesg):
        lines.append((12.0 + i * 0.01, text))
    for d in s.gpus.devices:
        if d.health.lost:  # fell off the bus before the session, half-way through the uptime
            at = s.host.uptime_s / 2
            lines += [(at, x) for x in gpuhealth.loss_lines(s, d, None)]
    return lines


def dmesg(host: Host, argv: list[str], root: bool) -> Out:
    s = host.scenario
    if s.host.dmesg_restricted and not root:
        return "", "dmesg: read kernel buffer failed: Operation not permitted\n", 1
    now = host.clock.now()
    events = boot_messages(host) + [(s.host.uptime_s + d.t, d.text) for d in host.dmesg if d.t <= now]
    human = "-T" in argv or "--ctime" in argv
    bare = "-t" in argv or "--notime" in argv
    out = []
    for up, text in events:
        if bare:
            out.append(text)
        elif human:
            dt = host.clock.datetime_at(up - s.host.uptime_s)
            out.append(f"[{dt:%a %b} {dt.day:>2} {dt:%H:%M:%S %Y}] {text}")
        else:
            out.append(f"[{up:12.6f}] {text}")
    return "".join(line + "\n" for line in out), "", 0
