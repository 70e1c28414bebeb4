"""`nvidia-smi -q [-d SECTION,...]`: the per-GPU report, from plain views nvidia.py builds (this
module imports no lab module that imports it). Sections and field names as the driver prints
them; "Clocks Event Reasons" is the driver 535+ name of "Clocks Throttle Reasons" (kubeflow #68
shows the older block), the "Remapped Rows" block as in leptonai/gpud PR #80, MIG mode as in the
H200 MIG capture (tests/corpus/nvidia-smi).
"""

from __future__ import annotations

from dataclasses import dataclass, field

SECTIONS = {
    "MEMORY",
    "UTILIZATION",
    "ECC",
    "TEMPERATURE",
    "POWER",
    "CLOCK",
    "COMPUTE",
    "PIDS",
    "PERFORMANCE",
    "SUPPORTED_CLOCKS",
    "PAGE_RETIREMENT",
    "ACCOUNTING",
    "ENCODER_STATS",
    "SUPPORTED_GPU_TARGET_TEMP",
    "VOLTAGE",
    "FBC_STATS",
    "ROW_REMAPPER",
    "RESET_STATUS",
    "GSP_FIRMWARE_VERSION",
}
REASONS = [
    ("Idle", "idle"),
    ("Applications Clocks Setting", "applications_clocks_setting"),
    ("SW Power Cap", "sw_power_cap"),
    ("HW Slowdown", "hw_slowdown"),
    ("    HW Thermal Slowdown", "hw_thermal"),
    ("    HW Power Brake Slowdown", "hw_power_brake"),
    ("Sync Boost", "sync_boost"),
    ("SW Thermal Slowdown", "sw_thermal"),
    ("Display Clock Setting", "display_clock_setting"),
]


@dataclass
class GpuView:
    """One GPU as `-q` reports it at this moment."""

    bus: str  # nvidia-smi spelling 00000000:41:00.0
    name: str
    index: int
    uuid: str
    total_mib: int
    used_mib: int
    util: int
    temp_c: int
    power_w: float
    power_limit_w: int
    sm_mhz: int
    max_sm_mhz: int
    pstate: str
    reasons: set[str] = field(default_factory=set)  # active clocks event reasons (keys of REASONS)
    lost: bool = False
    mig: bool = False
    ecc_uncorrectable: int = 0
    remap_pending: bool = False


def active_reasons(busy: bool, loaded: bool, throttle_reason: str | None) -> set[str]:
    """The clocks event reasons that hold now: idle when no kernel runs, the throttle once work is on
    the GPU (a process holds its memory)."""
    out = set() if busy else {"idle"}
    if throttle_reason is None or not loaded:
        return out
    out.add(throttle_reason)
    if throttle_reason in ("hw_thermal", "hw_power_brake"):
        out.add("hw_slowdown")  # the HW Slowdown line sums its two causes
    return out


def _line(label: str, value: str, indent: int) -> str:
    pad = " " * indent
    return f"{pad}{label}".ljust(42) + f": {value}"


def report(head: list[str], gpus: list[GpuView], sections: set[str] | None, attached: int) -> str:
    """The whole `-q` text: the header lines, then one block per GPU shown (`-i` picks them; a lost GPU
    reads `[GPU is lost]`). `attached` counts every GPU, as the driver does."""
    out = ["", "==============NVSMI LOG==============", "", *head, ""]
    out.append(_line("Attached GPUs", str(attached), 0))

    def want(name: str) -> bool:
        return sections is None or name in sections

    for g in gpus:
        out.append(f"GPU {g.bus}")
        if g.lost:
            out.append(_line("Product Name", "[GPU is lost]", 4))
            continue
        if sections is None:
            out += [
                _line("Product Name", g.name, 4),
                _line("Persistence Mode", "Enabled", 4),
                "    MIG Mode",
                _line("Current", "Enabled" if g.mig else "Disabled", 8),
                _line("Pending", "Enabled" if g.mig else "Disabled", 8),
                _line("Minor Number", str(g.index), 4),
                _line("GPU UUID", g.uuid, 4),
                "    PCI",
                _line("Bus Id", g.bus, 8),
            ]
        if want("PERFORMANCE"):
            out.append(_line("Performance State", g.pstate, 4))
            out.append("    Clocks Event Reasons")
            out += [_line(label, "Active" if key in g.reasons else "Not Active", 8) for label, key in REASONS]
        if want("MEMORY"):
            out += [
                "    FB Memory Usage",
                _line("Total", f"{g.total_mib} MiB", 8),
                _line("Used", f"{g.used_mib} MiB", 8),
                _line("Free", f"{g.total_mib - g.used_mib} MiB", 8),
            ]
        if want("UTILIZATION"):
            out += ["    Utilization", _line("Gpu", "N/A" if g.mig else f"{g.util} %", 8)]
        if want("ECC"):
            out += [
                "    ECC Errors",
                "        Volatile",
                _line("SRAM Correctable", "0", 12),
                _line("SRAM Uncorrectable", "0", 12),
                _line("DRAM Correctable", "0", 12),
                _line("DRAM Uncorrectable", str(g.ecc_uncorrectable), 12),
            ]
        if want("ROW_REMAPPER"):
            out += [
                "    Remapped Rows",
                _line("Correctable Error", "0", 8),
                _line("Uncorrectable Error", str(g.ecc_uncorrectable + (4 if g.remap_pending else 0)), 8),
                _line("Pending", "Yes" if g.remap_pending else "No", 8),
                _line("Remapping Failure Occurred", "No", 8),
            ]
        if want("TEMPERATURE"):
            out += ["    Temperature", _line("GPU Current Temp", f"{g.temp_c} C", 8)]
        if want("POWER"):
            out += [
                "    GPU Power Readings",
                _line("Average Power Draw", f"{g.power_w:.2f} W", 8),
                _line("Current Power Limit", f"{g.power_limit_w:.2f} W", 8),
            ]
        if want("CLOCK"):
            out += [
                "    Clocks",
                _line("SM", f"{g.sm_mhz} MHz", 8),
                "    Max Clocks",
                _line("SM", f"{g.max_sm_mhz} MHz", 8),
            ]
        out.append("")
    return "".join(line + "\n" for line in out)
