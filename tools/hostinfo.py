"""observe_host: the host facts a GPU deployment depends on, read-only, each one optional.

Virtualisation, the kernel's IOMMU settings, per-GPU IOMMU group type and bound driver (nvidia
vs vfio-pci: a vfio-bound GPU is passed through to someone's VM), which GPUs are someone else's,
IOMMU faults in the kernel log, and the driver/CUDA/NCCL/PyTorch/SGLang versions. A fact that
cannot be read is `value=None` with the reason, never an exception.
"""

from __future__ import annotations

import re
from typing import Generic, TypeVar

from pydantic import BaseModel, Field

from tools.gpus import GpuInfo, NoNvidiaDriver, UnparseableOutput, query_smi
from tools.registry import ToolContext, ToolOutput, tool
from tools.sglang.flags import version_command
from tools.target import CommandResult, Target

T = TypeVar("T")

DETECT_VIRT = "systemd-detect-virt"
CMDLINE = "cat /proc/cmdline"
LSPCI = "lspci -nnk"
DMESG = "dmesg"
SMI_VERSION = "nvidia-smi --version"
SMI_PLAIN = "nvidia-smi"
TORCH_VERSIONS = (
    "python3 -c 'import torch; print(torch.__version__); print(torch.version.cuda); "
    'print(".".join(map(str, torch.cuda.nccl.version())))\''
)

# One pattern per vendor, each matching the line that records one faulting DMA and nothing else:
# not the boot lines every IOMMU host prints ("iommu: Default domain type: Translated"), not the
# rate-limit notices ("amd_iommu_report_page_fault: 6 callbacks suppressed", "dmar_fault: ...") nor
# Intel's per-batch "DMAR: DRHD: handling fault status reg 3".
IOMMU_FAULT = re.compile(
    # AMD-Vi: "nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001c address=0x... flags=0x0020]"
    # (older kernels put the event on its own line: "IO_PAGE_FAULT device=05:00.0 domain=... address=...")
    r"\bIO_PAGE_FAULT\b.*\baddress=0x[0-9a-f]+"
    # Intel VT-d: "DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0x7cd80000 [fault reason 0x01] ..."
    # (older: "DMAR: [DMA Write] Request device [3b:00.0] PASID ffffffff fault addr 9c000000 [fault reason 06] ...")
    r"|DMAR: \[DMA (?:Read|Write)[^\]]*\] Request device \[[^\]]+\].*\bfault addr\b",
    re.I,
)
# "NVRM: Xid (PCI:0000:01:00): 13, pid=1773, name=..., Graphics Exception: ..." (one line per event)
XID = re.compile(r"NVRM: Xid \(PCI:[0-9a-fA-F:.]+\): \d+")


def driver_command(bdf: str) -> str:
    return f"readlink -f /sys/bus/pci/devices/{bdf}/driver"


def group_command(bdf: str) -> str:
    return f"readlink -f /sys/bus/pci/devices/{bdf}/iommu_group"


def group_type_command(bdf: str) -> str:
    return f"cat /sys/bus/pci/devices/{bdf}/iommu_group/type"


class Fact(BaseModel, Generic[T]):
    """A value, or None with the reason it could not be read."""

    value: T | None = None
    reason: str | None = None
    source: str = ""


class IommuSettings(BaseModel):
    flags: list[str] = Field(default_factory=list, description="IOMMU-related kernel parameters.")
    mode: str = Field(description="'passthrough', 'translated', 'off' or 'kernel default' from the cmdline.")


class HostGpu(BaseModel):
    bdf: str
    index: int | None = Field(default=None, description="nvidia-smi index; None when the nvidia driver hides it.")
    name: str | None = None
    driver: Fact[str]
    iommu_group: Fact[str]
    iommu_group_type: Fact[str]
    translated: bool | None = Field(
        default=None, description="True when its IOMMU group translates DMA (DMA/DMA-FQ), False for identity."
    )
    owner: str = Field(description="'agent', 'other' or 'unassigned'.")
    owner_reason: str = ""


class HostVersions(BaseModel):
    driver: Fact[str]
    cuda: Fact[str]
    torch: Fact[str]
    torch_cuda: Fact[str]
    nccl: Fact[str]
    sglang: Fact[str]


class HostInfo(BaseModel):
    virtualization: Fact[str]
    kernel_cmdline: Fact[str]
    iommu: Fact[IommuSettings]
    gpus: list[HostGpu]
    gpu_list: Fact[int] = Field(description="How many NVIDIA GPUs were found (nvidia-smi + lspci).")
    other_tenant_gpus: list[str] = Field(default_factory=list, description="BDFs of GPUs that are someone else's.")
    iommu_faults: Fact[int]
    iommu_fault_lines: list[str] = Field(default_factory=list)
    xid_lines: list[str] = Field(default_factory=list)
    versions: HostVersions


class ObserveHostArgs(BaseModel):
    agent_gpus: list[int] | None = Field(
        default=None,
        description="nvidia-smi indexes of the GPUs the agent may use; the others are someone else's.",
    )


def _why(result: CommandResult) -> str:
    said = (result.stderr.strip() or result.stdout.strip()).splitlines()
    detail = said[-1] if said else "no output"
    if result.timed_out:
        return f"timed out: {detail}"
    return f"exit {result.exit_code}: {detail}"


def _read(target: Target, command: str, timeout: float = 30) -> tuple[str | None, str | None]:
    result = target.run(command, timeout=timeout)
    if result.ok:
        return result.stdout, None
    return None, _why(result)


def parse_virt(result: CommandResult) -> Fact[str]:
    word = result.stdout.strip()
    # systemd-detect-virt prints "none" and exits 1 on bare metal: still an answer.
    if word and re.match(r"^[a-z0-9_-]+$", word):
        return Fact(value=word, source=DETECT_VIRT)
    return Fact(reason=_why(result), source=DETECT_VIRT)


def parse_iommu(cmdline: str) -> IommuSettings:
    flags = [w for w in cmdline.split() if re.match(r"^(intel_iommu|amd_iommu|iommu(\.\w+)?)=", w)]
    values = {w.split("=", 1)[0]: w.split("=", 1)[1] for w in flags}
    if values.get("iommu") == "pt" or values.get("iommu.passthrough") == "1":
        mode = "passthrough"
    elif "off" in (values.get("intel_iommu"), values.get("amd_iommu"), values.get("iommu")):
        mode = "off"
    elif (
        values.get("intel_iommu", "").startswith("on")
        or values.get("amd_iommu") in ("on", "force_isolation")
        or values.get("iommu.passthrough") == "0"
        or values.get("iommu") in ("force", "nopt")
    ):
        mode = "translated"
    else:
        mode = "kernel default"
    return IommuSettings(flags=flags, mode=mode)


def parse_lspci(text: str) -> list[tuple[str, str, str | None]]:
    """NVIDIA display/3D devices in `lspci -nnk`: (BDF, description, driver in use)."""
    found: list[tuple[str, str, str | None]] = []
    current: list[str | None] | None = None
    for line in text.splitlines():
        header = re.match(r"^([0-9a-fA-F]{4}:)?([0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) (.*)$", line)
        if header:
            if current is not None:
                found.append((str(current[0]), str(current[1]), current[2]))
            current = None
            rest = header.group(3)
            if "[10de:" in rest and re.search(r"\[(0300|0302)\]", rest):
                bdf = (header.group(1) or "0000:").lower() + header.group(2).lower()
                current = [bdf, rest, None]
        elif current is not None and "Kernel driver in use:" in line:
            current[2] = line.split(":", 1)[1].strip()
    if current is not None:
        found.append((str(current[0]), str(current[1]), current[2]))
    return found


# Drivers up to 5xx print "DRIVER version : 595.71.05" / "CUDA Version : 13.2" (`--version`) and
# "Driver Version: 595.71.05  CUDA Version: 13.2" (table header); from 610 the header says
# "KMD Version: 610.57.04  CUDA UMD Version: 13.3" and `--version` adds "KMD version" and
# "CUDA UMD version" lines while the old two say "Deprecated, see ...": only numbers are taken.
DRIVER_VERSION = re.compile(r"\b(?:KMD|DRIVER) version\s*:\s*(\d+(?:\.\d+)+)", re.I)
CUDA_VERSION = re.compile(r"\bCUDA (?:UMD )?version\s*:\s*(\d+(?:\.\d+)+)", re.I)


def parse_versions_smi(text: str) -> tuple[str | None, str | None]:
    """Driver and CUDA versions from `nvidia-smi --version` or the plain nvidia-smi header."""
    driver = DRIVER_VERSION.search(text)
    cuda = CUDA_VERSION.search(text)
    return (driver.group(1) if driver else None, cuda.group(1) if cuda else None)


def parse_dmesg(text: str) -> tuple[list[str], list[str]]:
    """The IOMMU fault lines and the NVIDIA Xid lines of a kernel log."""
    lines = text.splitlines()
    return [line for line in lines if IOMMU_FAULT.search(line)], [line for line in lines if XID.search(line)]


def _basename(path: str | None) -> str | None:
    return path.strip().rstrip("/").rsplit("/", 1)[-1] if path and path.strip() else None


def _gpu_facts(target: Target, bdf: str) -> tuple[Fact[str], Fact[str], Fact[str]]:
    out, why = _read(target, driver_command(bdf))
    name = _basename(out)
    # readlink -f on a missing link prints the path itself: no driver is bound.
    if name == "driver":
        driver: Fact[str] = Fact(value="none", source=driver_command(bdf))
    else:
        driver = Fact(value=name, reason=why, source=driver_command(bdf))
    out, why = _read(target, group_command(bdf))
    group_id = _basename(out)
    group: Fact[str] = (
        Fact(value=group_id, source=group_command(bdf))
        if group_id and group_id.isdigit()
        else Fact(reason=why or "no IOMMU group (IOMMU off?)", source=group_command(bdf))
    )
    out, why = _read(target, group_type_command(bdf))
    kind: Fact[str] = (
        Fact(value=out.strip(), source=group_type_command(bdf))
        if out and out.strip()
        else Fact(reason=why or "empty", source=group_type_command(bdf))
    )
    return driver, group, kind


def _versions(target: Target) -> HostVersions:
    out, why = _read(target, SMI_VERSION)
    driver_v, cuda_v = parse_versions_smi(out or "")
    source = SMI_VERSION
    if driver_v is None:
        plain, why_plain = _read(target, SMI_PLAIN)
        driver_v, cuda_v = parse_versions_smi(plain or "")
        source, why = SMI_PLAIN, why or why_plain
    missing = why or "not in nvidia-smi's output"
    torch_out, torch_why = _read(target, TORCH_VERSIONS, timeout=120)
    torch_lines = (torch_out or "").strip().splitlines()[-3:]
    if torch_out is not None and len(torch_lines) < 3:
        torch_why = f"unexpected output: {torch_out.strip()[:200]!r}"
    sg_out, sg_why = _read(target, version_command("python3"), timeout=120)

    def line(index: int) -> Fact[str]:
        if torch_why is not None or len(torch_lines) < 3:
            return Fact(reason=torch_why, source=TORCH_VERSIONS)
        value = torch_lines[index].strip()
        if value in ("None", ""):
            return Fact(reason="torch reports none (CPU-only build?)", source=TORCH_VERSIONS)
        return Fact(value=value, source=TORCH_VERSIONS)

    sglang_value = (sg_out or "").strip().splitlines()[-1:] if sg_out else []
    return HostVersions(
        driver=Fact(value=driver_v, reason=None if driver_v else missing, source=source),
        cuda=Fact(value=cuda_v, reason=None if cuda_v else missing, source=source),
        torch=line(0),
        torch_cuda=line(1),
        nccl=line(2),
        sglang=Fact(
            value=sglang_value[0] if sglang_value else None,
            reason=None if sglang_value else sg_why,
            source=version_command("python3"),
        ),
    )


def observe(target: Target, agent_gpus: list[int] | None) -> HostInfo:
    virt = parse_virt(target.run(DETECT_VIRT, timeout=30))
    cmdline_out, cmdline_why = _read(target, CMDLINE)
    cmdline: Fact[str] = Fact(value=(cmdline_out or "").strip() or None, reason=cmdline_why, source=CMDLINE)
    iommu: Fact[IommuSettings] = (
        Fact(value=parse_iommu(cmdline.value), source=CMDLINE)
        if cmdline.value
        else Fact(reason=cmdline_why, source=CMDLINE)
    )

    smi: list[GpuInfo] = []
    smi_why: str | None = None
    try:
        smi = query_smi(target)
    except (NoNvidiaDriver, UnparseableOutput) as exc:
        smi_why = str(exc)
    lspci_out, lspci_why = _read(target, LSPCI)
    listed = parse_lspci(lspci_out or "")
    bdfs = [g.bus_id for g in smi if g.bus_id] + [b for b, _, _ in listed]
    bdfs = list(dict.fromkeys(bdfs))
    by_bdf = {g.bus_id: g for g in smi if g.bus_id}
    lspci_driver = {b: d for b, _, d in listed}

    gpus: list[HostGpu] = []
    for bdf in bdfs:
        driver, group, kind = _gpu_facts(target, bdf)
        if driver.value is None and lspci_driver.get(bdf):
            driver = Fact(value=lspci_driver[bdf], source=LSPCI)
        smi_gpu = by_bdf.get(bdf)
        index = smi_gpu.index if smi_gpu else None
        if driver.value == "vfio-pci":
            owner, why = "other", "bound to vfio-pci: passed through to a VM"
        elif agent_gpus is not None and (index is None or index not in agent_gpus):
            owner, why = "other", "not among the agent's GPUs"
        elif agent_gpus is not None:
            owner, why = "agent", "among the agent's GPUs"
        else:
            owner, why = "unassigned", "no agent GPU set given"
        translated = None
        if kind.value is not None:
            translated = kind.value.startswith("DMA")
        gpus.append(
            HostGpu(
                bdf=bdf,
                index=index,
                name=smi_gpu.name if smi_gpu else next((d for b, d, _ in listed if b == bdf), None),
                driver=driver,
                iommu_group=group,
                iommu_group_type=kind,
                translated=translated,
                owner=owner,
                owner_reason=why,
            )
        )
    gpu_count: Fact[int] = (
        Fact(value=len(gpus), source="nvidia-smi + lspci")
        if gpus or (smi_why is None or lspci_why is None)
        else Fact(reason=f"nvidia-smi: {smi_why}; lspci: {lspci_why}", source="nvidia-smi + lspci")
    )

    dmesg_out, dmesg_why = _read(target, DMESG)
    fault_lines, xid_lines = parse_dmesg(dmesg_out or "")
    faults: Fact[int] = (
        Fact(value=len(fault_lines), source=DMESG) if dmesg_out is not None else Fact(reason=dmesg_why, source=DMESG)
    )
    return HostInfo(
        virtualization=virt,
        kernel_cmdline=cmdline,
        iommu=iommu,
        gpus=gpus,
        gpu_list=gpu_count,
        other_tenant_gpus=[g.bdf for g in gpus if g.owner == "other"],
        iommu_faults=faults,
        iommu_fault_lines=fault_lines[-10:],
        xid_lines=xid_lines[-10:],
        versions=_versions(target),
    )


def _show(fact: Fact[str] | Fact[int]) -> str:
    return str(fact.value) if fact.value is not None else f"unknown ({fact.reason})"


def _summary(info: HostInfo) -> str:
    v = info.versions
    lines = [
        f"virtualisation: {_show(info.virtualization)}",
        "IOMMU: "
        + (
            f"{info.iommu.value.mode} ({' '.join(info.iommu.value.flags) or 'no IOMMU flags'})"
            if info.iommu.value
            else f"unknown ({info.iommu.reason})"
        ),
        f"IOMMU faults in dmesg: {_show(info.iommu_faults)}",
        f"driver {_show(v.driver)}, CUDA {_show(v.cuda)}, torch {_show(v.torch)} "
        f"(CUDA {_show(v.torch_cuda)}), NCCL {_show(v.nccl)}, SGLang {_show(v.sglang)}",
    ]
    for g in info.gpus:
        label = f"GPU{g.index}" if g.index is not None else "GPU(hidden)"
        lines.append(
            f"{label} {g.bdf}: driver {_show(g.driver)}, IOMMU group {_show(g.iommu_group)} "
            f"type {_show(g.iommu_group_type)}, owner {g.owner} ({g.owner_reason})"
        )
    if info.other_tenant_gpus:
        lines.append(f"someone else's GPUs (never touch): {', '.join(info.other_tenant_gpus)}")
    return "\n".join(lines)


@tool(read_only=True)
def observe_host(ctx: ToolContext, args: ObserveHostArgs) -> ToolOutput:
    """Read the host facts a deployment depends on (read-only): virtualisation, kernel IOMMU mode
    (iommu=pt or translated), each GPU's IOMMU group type and bound driver (nvidia vs vfio-pci),
    which GPUs are someone else's, IOMMU faults in dmesg, and driver/CUDA/NCCL/PyTorch/SGLang
    versions. Facts that cannot be read are reported as unknown with the reason."""
    info = observe(ctx.target, args.agent_gpus)
    return ToolOutput(tool="observe_host", ok=True, summary=_summary(info), data=info.model_dump(mode="json"))
