"""What a broken GPU looks like from the outside: the driver's kernel lines, MIG instances and
their memory, a throttled GPU's clocks, torch's arch list, and the messages of NVML and CUDA when
they cannot reach the driver. Pure functions of the scenario (and of when a GPU was lost), read
by nvidia.py, sysfs.py, pyexec.py and breakage.py; this module imports none of them.

Real output lines, and where they were read:
- `NVRM: Xid (PCI:0000:9b:00): 94, pid=1234, name=python3, Contained ECC error` (leptonai/gpud PR #1174,
  tests/corpus/kernel/); the Xid 79 sequence of leptonai/gpud's sxid README (see loss_lines), the
  `pid=..., name=...` form of a process holding the GPU as in `79, pid=..., name=nvidia-smi, GPU has
  fallen off the bus.` reports.
- `Unable to determine the device handle for GPU0000:0B:00.0: Unknown Error` (xxd3vin/workspace #19,
  NVIDIA/dcgm-exporter #604).
- `Failed to initialize NVML: Driver/library version mismatch` + `NVML library version: 570.124`
  (tinygrad/open-gpu-kernel-modules #47); `Failed to initialize NVML: Unknown Error` (a container
  that lost access to /dev/nvidia*: NVIDIA/nvidia-docker #1671, #1730); `NVIDIA-SMI has failed because
  it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed
  and running.` (NVIDIA/nvidia-docker #988, ci-for-research/self-hosted-runners #40); `NVIDIA-SMI couldn't
  find libnvidia-ml.so library in your system. ...` (NVIDIA/nvidia-docker #1163, #407).
- torch's `... with CUDA capability sm_120 is not compatible with the current PyTorch installation.`
  warning (torch/cuda/__init__.py, quoted in jiangyzy/GOAE #16) and `CUDA error: no kernel image is
  available for execution on the device` (pytorch/pytorch #31285).
- `Remapped Rows` block of `nvidia-smi -q` (leptonai/gpud PR #80); `Clocks Event Reasons` block
  (kubeflow/kubeflow #68, renamed from "Clocks Throttle Reasons" in driver 535).
"""

from __future__ import annotations

from collections.abc import Mapping

from tools.lab.launch import gpu_uuid, mig_chosen
from tools.lab.scenario import GpuDevice, Scenario

# MIG instance memory as nvidia-smi shows it on an H200 (tests/corpus/nvidia-smi/table/h200-mig_590.48.01.txt):
# 1g.18gb 16384 MiB, 2g.35gb 33280 MiB, 3g.71gb 71424 MiB. Other profiles: their GB name at the same ratio.
MIG_MIB = {"1g.18gb": 16384, "2g.35gb": 33280, "3g.71gb": 71424, "4g.71gb": 71424, "7g.141gb": 143360}
MIG_MIB |= {"1g.10gb": 9984, "1g.20gb": 19968, "2g.20gb": 20096, "3g.40gb": 40320, "4g.40gb": 40320}
MIG_MIB |= {"7g.80gb": 80896, "1g.12gb": 10496, "1g.24gb": 21504, "2g.24gb": 22528, "3g.47gb": 46848}

SMI_NO_DRIVER = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
    "latest NVIDIA driver is installed and running.\n\n"
)


SMI_NO_LIBRARY = (
    "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display "
    "Driver is properly installed and present in your system.\nPlease also try adding directory that contains "
    "libnvidia-ml.so to your system PATH.\n"
)


def pci_short(bus_id: str) -> str:
    """0000:41:00.0 -> PCI:0000:41:00 (the Xid lines' spelling)."""
    return "PCI:" + bus_id.rsplit(".", 1)[0]


def loss_lines(scenario: Scenario, dev: GpuDevice, pid: int | None) -> list[str]:
    """The driver's lines when a GPU falls off the bus (leptonai/gpud
    components/accelerator/nvidia/error/sxid/README.md, driver 5xx): the GPU's identity, the Xid 79
    line (with the process that held it, else `pid='<unknown>', name=<unknown>`), then the GPU's own."""
    visible = scenario.visible_devices()
    index = visible.index(dev) if dev in visible else 0
    serial = dev.serial or f"16{index:011d}"
    who = f"pid={pid}, name=python3" if pid is not None else "pid='<unknown>', name=<unknown>"
    return [
        f"NVRM: GPU at {pci_short(dev.bus_id)}: {gpu_uuid(scenario, dev)}",
        f"NVRM: GPU Board Serial Number: {serial}",
        f"NVRM: Xid ({pci_short(dev.bus_id)}): 79, {who}, GPU has fallen off the bus.",
        f"NVRM: GPU {dev.bus_id}: GPU has fallen off the bus.",
        f"NVRM: GPU {dev.bus_id}: GPU serial number is {serial}.",
    ]


def xid94(bus_id: str, pid: int) -> str:
    return f"NVRM: Xid ({pci_short(bus_id)}): 94, pid={pid}, name=python3, Contained ECC error"


def handle_error(bus_id: str) -> str:
    """nvidia-smi's line for a GPU whose handle NVML cannot get (fallen off the bus)."""
    domain, rest = bus_id.split(":", 1)
    return f"Unable to determine the device handle for GPU{int(domain, 16):04X}:{rest.upper()}: Unknown Error"


def nvml_failure(scenario: Scenario) -> tuple[str, int] | None:
    """What every nvidia-smi prints (and its exit code) when NVML cannot start, else None."""
    state = scenario.host.nvml
    if state == "driver_mismatch":
        library = ".".join(scenario.software.driver.split(".")[:2])
        return f"Failed to initialize NVML: Driver/library version mismatch\nNVML library version: {library}\n", 18
    if state == "no_device_access":
        return "Failed to initialize NVML: Unknown Error\n", 255
    if state == "no_driver":
        return SMI_NO_DRIVER, 9
    if state == "no_library":  # NVML_ERROR_LIB_NOT_FOUND
        return SMI_NO_LIBRARY, 12
    return None


def cuda_init_error(scenario: Scenario) -> str | None:
    """How torch fails to start CUDA on this host (None: it starts)."""
    state = scenario.host.nvml
    if state in ("no_driver", "no_library"):  # a container without the driver's libraries lacks libcuda too
        return (
            "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
            "and installed a driver from http://www.nvidia.com/Download/index.aspx"
        )
    if state == "driver_mismatch":
        return (
            "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before "
            "calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported "
            "display driver / cuda driver combination"
        )
    if state == "no_device_access":
        return "RuntimeError: No CUDA GPUs are available"
    return None


def mig_mib(profile: str, gpu_mib: int) -> int:
    if profile in MIG_MIB:
        return MIG_MIB[profile]
    gb = int(profile.split(".")[1][:-2])
    return min(int(gb * 1000 * 0.9537), gpu_mib)


def cuda_memory_mib(scenario: Scenario, dev: GpuDevice, env: Mapping[str, str] | None = None) -> int:
    """The memory CUDA sees on this GPU: a MIG-enabled GPU shows a process one instance, the one
    CUDA_VISIBLE_DEVICES names (its MIG-... UUID), else the first."""
    mig = dev.health.mig
    if mig is None:
        return scenario.gpus.memory_mib
    return mig_mib(mig.instances[mig_chosen(scenario, dev, env or {})], scenario.gpus.memory_mib)


def sm(capability: str) -> str:
    major, minor = capability.split(".")
    return f"sm_{major}{minor}"


def arch_list(scenario: Scenario) -> list[str]:
    """torch.cuda.get_arch_list(): the scenario's, else the usual build's with the GPU's own in it."""
    given = scenario.software.torch_arch_list
    if given is not None:
        return list(given)
    usual = ["sm_75", "sm_80", "sm_86", "sm_90"]
    if _version_at_least(scenario.software.torch_cuda, (12, 8)):
        usual += ["sm_100", "sm_120"]
    own = sm(scenario.gpus.compute_capability)
    return usual if own in usual else sorted([*usual, own], key=lambda a: int(a[3:]))


def arch_supported(scenario: Scenario) -> bool:
    """Whether torch carries kernels for this GPU: its sm_XY, or a PTX (compute_XY) at or below it."""
    arches = arch_list(scenario)
    own = sm(scenario.gpus.compute_capability)
    if own in arches:
        return True
    cap = int(own[3:])
    return any(a.startswith("compute_") and int(a[8:]) <= cap for a in arches)


def arch_warning(scenario: Scenario) -> str:
    name, own = scenario.gpus.name, sm(scenario.gpus.compute_capability)
    supported = " ".join(a for a in arch_list(scenario) if a.startswith("sm_"))
    return (
        f"/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:287: UserWarning: \n"
        f"{name} with CUDA capability {own} is not compatible with the current PyTorch installation.\n"
        f"The current PyTorch install supports CUDA capabilities {supported}.\n"
        f"If you want to use the {name} GPU with PyTorch, please check the instructions at "
        "https://pytorch.org/get-started/locally/\n\n"
        "  warnings.warn(\n"
    )


def cuda_error(scenario: Scenario, what: str) -> str:
    """A CUDA error as torch raises it: torch.AcceleratorError from torch 2.8, RuntimeError before."""
    kind = "torch.AcceleratorError" if _version_at_least(scenario.software.torch, (2, 8)) else "RuntimeError"
    return f"{kind}: CUDA error: {what}"


def slowest_factor(scenario: Scenario, gpus: list[int]) -> float:
    """A TP group runs at its slowest GPU's pace: the lowest throttle factor among `gpus`."""
    visible = scenario.visible_devices()
    factors = [1.0]
    for g in gpus:
        throttle = visible[g].health.throttle if g < len(visible) else None
        if throttle is not None:
            factors.append(throttle.factor)
    return min(factors)


def lost_since(scenario: Scenario, extra: Mapping[str, float]) -> dict[str, float]:
    """bus id -> virtual time the GPU was lost: `health.lost` GPUs before the session, plus `extra`
    (GPUs that fell off the bus during a launch, recorded by the lab as it happened)."""
    out = {d.bus_id: -scenario.host.uptime_s / 2 for d in scenario.gpus.devices if d.health.lost}
    for bus, t in extra.items():
        out[bus] = min(t, out.get(bus, t))
    return out


def _version_at_least(version: str, first: tuple[int, int]) -> bool:
    parts = version.split("+")[0].split(".")
    try:
        return (int(parts[0]), int(parts[1])) >= first
    except (ValueError, IndexError):
        return False
