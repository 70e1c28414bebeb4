"""read_host_evidence: what the host says about its own health, read before launching and after a
failure (a good operator's look at `nvidia-smi -L`, the health fields, the kernel log and `df`).

Each part is optional: a command that is missing or fails leaves its part empty and says why in
`unread`, never an exception. The kernel log is returned from line `kernel_after` on, so a caller
that remembers the count sees only what happened since its last look (since the launch).

Formats, as the real tools print them:
- `nvidia-smi -L`: `GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)`, MIG devices indented beneath
  (`  MIG 3g.40gb     Device  0: (UUID: MIG-...)`), and for a GPU the driver lost
  `Unable to determine the device handle for GPU0000:5D:00.0: Unknown Error`;
- `--query-gpu` cells read `[GPU is lost]` for such a GPU; `clocks_event_reasons.*` are `Active` or
  `Not Active` (driver 535+; `clocks_throttle_reasons.*` before);
- the kernel's Xid lines: `NVRM: Xid (PCI:0000:5d:00): 79, pid=..., GPU has fallen off the bus.`
  (79: lost, 48/94/95: ECC), and the OOM killer's `Out of memory: Killed process N (name) ...`;
- `df PATH...`: `Filesystem 1K-blocks Used Available Use% Mounted on`.
"""

from __future__ import annotations

import re
import shlex

from pydantic import BaseModel, Field

from tools.gpus import sysfs_bus_id
from tools.registry import ToolContext, ToolOutput, tool
from tools.target import Target

LIST_GPUS = "nvidia-smi -L"
HEALTH_FIELDS = (
    "index",
    "pci.bus_id",
    "mig.mode.current",
    "clocks_event_reasons.hw_thermal_slowdown",
    "clocks_event_reasons.sw_thermal_slowdown",
    "clocks_event_reasons.hw_power_brake_slowdown",
    "ecc.errors.uncorrected.volatile.total",
)
QUERY_HEALTH = f"nvidia-smi --query-gpu={','.join(HEALTH_FIELDS)} --format=csv,noheader"
DMESG = "dmesg"

_GPU_LINE = re.compile(r"^GPU (\d+): .*\(UUID: ")
_MIG_LINE = re.compile(r"^\s+MIG \S+\s+Device\s+\d+:")
_LOST_HANDLE = re.compile(
    r"Unable to determine the device handle for GPU([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)"
)
_PCI = r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}"
_XID = re.compile(rf"NVRM: Xid \(PCI:({_PCI})\): (\d+)")
_KERNEL_SIGNS = re.compile(r"NVRM: Xid|Out of memory: Killed process|fallen off the bus|nvidia.*(?:error|fail)", re.I)
XID_LOST = {79}
XID_ECC = {48, 63, 64, 94, 95}


class Disk(BaseModel):
    path: str
    mount: str
    available_gb: float
    use_pct: int
    line: str


class HostEvidence(BaseModel):
    lost: dict[str, str] = Field(default_factory=dict, description="PCI address (sysfs form) -> the line")
    mig: list[int] = Field(default_factory=list, description="GPUs in MIG mode")
    throttled: dict[int, str] = Field(default_factory=dict, description="GPU -> the active slowdown reason")
    ecc: dict[int, int] = Field(default_factory=dict, description="GPU -> volatile uncorrectable ECC errors")
    bus_ids: dict[int, str] = Field(default_factory=dict, description="GPU index -> PCI address, as listed")
    xid: list[tuple[str, int, str]] = Field(default_factory=list, description="(PCI address, Xid, line) since the mark")
    kernel: list[str] = Field(default_factory=list, description="GPU and OOM-killer lines since the mark")
    kernel_lines: int = Field(default=0, description="lines in the kernel log now: the next call's mark")
    disks: list[Disk] = Field(default_factory=list)
    short_shards: list[str] = Field(
        default_factory=list, description="weight files shorter than their siblings and the index allow, said in a line"
    )
    unread: list[str] = Field(default_factory=list, description="what could not be read, and why")

    def lost_indices(self) -> list[int]:
        """GPUs the driver lost, by index where the listing named their address."""
        by_bus = {bus: i for i, bus in self.bus_ids.items()}
        lost = {by_bus[b] for b in self.lost if b in by_bus}
        lost |= {by_bus[b] for b, xid, _ in self.xid if xid in XID_LOST and b in by_bus}
        return sorted(lost)

    def ecc_indices(self) -> list[int]:
        by_bus = {bus: i for i, bus in self.bus_ids.items()}
        found = {i for i, n in self.ecc.items() if n > 0}
        found |= {by_bus[b] for b, xid, _ in self.xid if xid in XID_ECC and b in by_bus}
        return sorted(found)


class ReadHostEvidenceArgs(BaseModel):
    paths: list[str] = Field(
        default_factory=list, description="Directories whose free space matters (work dir, model)."
    )
    kernel_after: int = Field(default=0, ge=0, description="Kernel-log lines already seen; only later ones are read.")
    model_dir: str | None = Field(default=None, description="A model directory whose shards to size against the index.")
    known_bus_ids: dict[int, str] = Field(
        default_factory=dict,
        description="GPU index -> PCI address from an earlier look (a lost GPU no longer lists it).",
    )


def _bus(address: str) -> str:
    """`0000:5d:00` (Xid, no function) or `00000000:5D:00.0` -> `0000:5d:00.0`."""
    return sysfs_bus_id(address if "." in address else address + ".0")


def read_gpu_list(text: str, evidence: HostEvidence) -> None:
    current: int | None = None
    for line in text.splitlines():
        gpu = _GPU_LINE.match(line)
        if gpu:
            current = int(gpu.group(1))
            continue
        if _MIG_LINE.match(line) and current is not None and current not in evidence.mig:
            evidence.mig.append(current)
        lost = _LOST_HANDLE.search(line)
        if lost:
            evidence.lost[_bus(lost.group(1))] = line.strip()


def read_health(text: str, evidence: HostEvidence) -> None:
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != len(HEALTH_FIELDS) or not cells[0].isdigit():
            if "[GPU is lost]" in line and len(cells) > 1 and cells[1] not in ("", "[GPU is lost]"):
                evidence.lost[_bus(cells[1])] = line.strip()
            continue
        index, bus = int(cells[0]), cells[1]
        evidence.bus_ids[index] = _bus(bus)
        if "[GPU is lost]" in line:
            evidence.lost[_bus(bus)] = line.strip()
            continue
        if cells[2] == "Enabled" and index not in evidence.mig:
            evidence.mig.append(index)
        for name, cell in zip(HEALTH_FIELDS[3:6], cells[3:6], strict=True):
            if cell == "Active":
                evidence.throttled[index] = name.split(".")[1]
        if cells[6].isdigit() and int(cells[6]) > 0:
            evidence.ecc[index] = int(cells[6])


def read_kernel(text: str, after: int, evidence: HostEvidence) -> None:
    lines = text.splitlines()
    evidence.kernel_lines = len(lines)
    for line in lines[min(after, len(lines)) :]:
        xid = _XID.search(line)
        if xid:
            evidence.xid.append((_bus(xid.group(1)), int(xid.group(2)), line.strip()))
        if _KERNEL_SIGNS.search(line):
            evidence.kernel.append(line.strip())
    evidence.kernel = evidence.kernel[-20:]


def read_df(text: str, paths: list[str], evidence: HostEvidence) -> None:
    rows = [line for line in text.splitlines()[1:] if line.strip()]
    for path, line in zip(paths, rows, strict=False):
        cells = line.split()
        if len(cells) < 6 or not cells[3].isdigit() or not cells[4].rstrip("%").isdigit():
            continue
        evidence.disks.append(
            Disk(
                path=path,
                mount=cells[5],
                available_gb=int(cells[3]) / 1024**2,
                use_pct=int(cells[4].rstrip("%")),
                line=line.strip(),
            )
        )


_SHARD = re.compile(r"^model-(\d+)-of-(\d+)\.safetensors$")
_TOTAL = re.compile(r'"total_size"\s*:\s*(\d+)')


def read_shards(listing: str, index_head: str, evidence: HostEvidence) -> None:
    """`ls -l` of a model directory and the start of its safetensors index: when the shards hold
    less than the index's total_size (intact ones hold more: their headers), the shard (not the
    last, which may be smaller) short of its siblings by what is missing is named."""
    sizes: dict[str, tuple[int, int, int]] = {}  # name -> (size, number, count)
    for line in listing.splitlines():
        cells = line.split()
        found = _SHARD.match(cells[-1]) if len(cells) >= 9 else None
        if found and cells[4].isdigit():
            sizes[cells[-1]] = (int(cells[4]), int(found.group(1)), int(found.group(2)))
    total = _TOTAL.search(index_head)
    if not sizes or total is None or sum(v[0] for v in sizes.values()) >= int(total.group(1)):
        return
    body = sorted(v[0] for v in sizes.values() if v[1] < v[2])
    typical = body[len(body) // 2] if body else 0
    missing = int(total.group(1)) - sum(v[0] for v in sizes.values())  # intact shards hold more (headers)
    held, declared = sum(v[0] for v in sizes.values()), int(total.group(1))
    for name, (size, number, count) in sorted(sizes.items()):
        # the shards that account for what is missing: shorter than their siblings by half of it or more
        if number < count and typical - size >= missing / 2:
            evidence.short_shards.append(
                f"{name} is {size} bytes where its siblings are {typical}; the shards hold {held} bytes, "
                f"the index declares {declared}"
            )
    last = [(name, v[0]) for name, v in sizes.items() if v[1] == v[2]]
    if not evidence.short_shards and last:
        # none of the others is short: the last shard (smaller by nature) holds less than the rest leaves it
        name, size = last[0]
        expected = declared - (held - size)
        evidence.short_shards.append(
            f"{name} (the last) is {size} bytes where the index leaves it {expected}; the shards hold {held} bytes, "
            f"the index declares {declared}"
        )


def observe(target: Target, args: ReadHostEvidenceArgs) -> HostEvidence:
    evidence = HostEvidence(bus_ids=dict(args.known_bus_ids))
    listed = target.run(LIST_GPUS, timeout=60)
    if listed.exit_code is None:
        evidence.unread.append(f"{LIST_GPUS}: {listed.error or 'did not finish'}")
    else:
        read_gpu_list(f"{listed.stdout}\n{listed.stderr}", evidence)
    health = target.run(QUERY_HEALTH, timeout=60)
    if health.exit_code is None:
        evidence.unread.append(f"nvidia-smi --query-gpu: {health.error or 'did not finish'}")
    else:
        read_health(health.stdout, evidence)
    kernel = target.run(DMESG, timeout=60)
    if kernel.ok:
        read_kernel(kernel.stdout, args.kernel_after, evidence)
    else:
        evidence.unread.append(f"dmesg: {(kernel.stderr or kernel.error or '').strip()[:120] or 'failed'}")
    if args.paths:
        disk = target.run("df " + " ".join(shlex.quote(p) for p in args.paths), timeout=60)
        if disk.exit_code is not None:
            read_df(disk.stdout, args.paths, evidence)
        if not disk.ok:
            evidence.unread.append(f"df: {(disk.stderr or disk.error or '').strip()[:120] or 'failed'}")
    if args.model_dir:
        where = shlex.quote(args.model_dir)
        listing = target.run(f"ls -l {where}", timeout=60)
        index = target.run(f"head -c 4096 {where}/model.safetensors.index.json", timeout=60)
        if listing.ok and index.ok:
            read_shards(listing.stdout, index.stdout, evidence)
    return evidence


def summary(evidence: HostEvidence) -> str:
    parts = []
    for bus, line in evidence.lost.items():
        parts.append(f"GPU {bus} lost: {line}")
    parts += [f"GPU{i}: {name}" for i, name in sorted(evidence.throttled.items())]
    parts += [f"GPU{i} in MIG mode" for i in evidence.mig]
    parts += [f"GPU{i}: {n} uncorrectable ECC errors" for i, n in sorted(evidence.ecc.items())]
    parts += [f"kernel: {line}" for line in evidence.kernel[-5:]]
    parts += [f"disk {d.path}: {d.available_gb:.1f} GB free ({d.use_pct}% used on {d.mount})" for d in evidence.disks]
    parts += [f"model: {line}" for line in evidence.short_shards]
    parts += [f"could not read {u}" for u in evidence.unread]
    return "\n".join(parts) or "nothing wrong seen: every GPU listed, no Xid or OOM-killer line, disks readable"


@tool(read_only=True)
def read_host_evidence(ctx: ToolContext, args: ReadHostEvidenceArgs) -> ToolOutput:
    """Read the host's own health: GPUs the driver lost, MIG mode, thermal or power slowdown, ECC
    errors, the kernel log's GPU and OOM-killer lines since `kernel_after`, and free disk at `paths`."""
    evidence = observe(ctx.target, args)
    return ToolOutput(
        tool="read_host_evidence", ok=True, summary=summary(evidence), data=evidence.model_dump(mode="json")
    )
