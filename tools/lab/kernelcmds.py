"""Kernel and CPU facts as commands: `lsmod`, `journalctl -k`, `lscpu`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.lab import sysfs
from tools.lab.shell import Call, Result

if TYPE_CHECKING:
    from tools.lab.shell import Shell


def lsmod(sh: Shell, c: Call) -> Result:
    s = sh.host.scenario
    rows = [
        ("nvidia_uvm", 4956160, 4, ""),
        ("nvidia_drm", 135168, 0, ""),
        ("nvidia_modeset", 1638400, 1, "nvidia_drm"),
        ("nvidia", 104071168, 30, "nvidia_uvm,nvidia_modeset"),
    ]
    if any(d.driver == "vfio-pci" for d in s.gpus.devices):
        rows += [
            ("vfio_pci", 16384, len([d for d in s.gpus.devices if d.driver == "vfio-pci"]), ""),
            ("vfio_pci_core", 86016, 1, "vfio_pci"),
            ("vfio_iommu_type1", 45056, 1, ""),
            ("vfio", 69632, 5, "vfio_pci_core,vfio_iommu_type1,vfio_pci"),
        ]
    lines = ["Module                  Size  Used by"]
    lines += [f"{name:<19} {size:>8}  {used} {by}".rstrip() for name, size, used, by in rows]
    return Result("".join(line + "\n" for line in lines), duration=0.02)


def journalctl(sh: Shell, c: Call) -> Result:
    if not any(a in ("-k", "--dmesg") for a in c.argv[1:]):
        return Result("-- No entries --\n", duration=0.2)
    out, err, code = sysfs.dmesg(sh.host, ["-t"], True)
    host = sh.host.scenario.host.hostname
    boot = sh.host.clock.datetime_at(-sh.host.scenario.host.uptime_s)
    stamp = f"{boot:%b} {boot.day:02d} {boot:%H:%M:%S}"
    return Result("".join(f"{stamp} {host} kernel: {line}\n" for line in out.splitlines()), err, code, duration=0.3)


def lscpu(sh: Shell, c: Call) -> Result:
    h = sh.host.scenario.host
    per = h.cpus // max(h.numa_nodes, 1)
    lines = [
        ("Architecture:", "x86_64"),
        ("CPU(s):", str(h.cpus)),
        ("Model name:", h.cpu_model),
        ("NUMA node(s):", str(h.numa_nodes)),
    ]
    lines += [(f"NUMA node{n} CPU(s):", f"{n * per}-{(n + 1) * per - 1}") for n in range(h.numa_nodes)]
    return Result("".join(f"{k:<33} {v}\n" for k, v in lines), duration=0.02)
