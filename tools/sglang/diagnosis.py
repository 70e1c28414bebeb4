"""A failed launch read from the evidence: the log's real error line, the kernel log since the
launch, nvidia-smi and free disk (tools/host_evidence.py), placed in a taxonomy that says whose
move it is.

Families: `hardware` (a GPU lost or with uncorrectable ECC errors: leave it out), `driver_build`
(no kernels for this GPU, a driver/library mismatch, the launch's program not found: no launch
can fix it), `held_by_others`
(another user's process holds the memory, or the host's RAM ran out), `disk` (no space left),
`corrupt_model` (a weight file that does not read), `configuration` (what the launch's own
arguments can change: the classes of failures.py with remedies), and `unknown`. Unknown is not
known: a failure this module cannot place is never answered by a relaunch as it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from tools.host_evidence import HostEvidence
from tools.sglang.failures import FailureClass

Family = Literal["hardware", "driver_build", "held_by_others", "disk", "corrupt_model", "configuration", "unknown"]

# The log's own words for each class, most specific first (sources: tools/lab/breakage.py cites
# where each real line comes from).
SIGNS: list[tuple[str, Family, re.Pattern[str]]] = [
    ("gpu_lost", "hardware", re.compile(r"fallen off the bus|GPU is lost|CUDA error: unknown error")),
    ("ecc_error", "hardware", re.compile(r"uncorrectable ECC error")),
    ("no_kernel_image", "driver_build", re.compile(r"no kernel image is available")),
    (
        "driver_mismatch",
        "driver_build",
        re.compile(
            r"Driver/library version mismatch|Error 803|Found no NVIDIA driver|No CUDA GPUs are available|"
            r"couldn't communicate with the NVIDIA driver"
        ),
    ),
    # the shell's own words when the program is not there or not runnable (exit 127/126)
    (
        "program_missing",
        "driver_build",
        re.compile(
            r"^(?:ba|da|z)?sh: (?:line \d+: )?\S+: (?:No such file or directory|command not found|Permission denied)",
            re.M,
        ),
    ),
    ("mig_device", "configuration", re.compile(r"invalid device ordinal")),
    ("shm_too_small", "configuration", re.compile(r"Error while creating shared memory segment")),
    ("disk_full", "disk", re.compile(r"No space left on device|\[Errno 28\]")),
    (
        "corrupt_model",
        "corrupt_model",
        re.compile(r"SafetensorError|Error while deserializing header|MetadataIncompleteBuffer|HeaderTooLarge"),
    ),
    ("host_oom", "held_by_others", re.compile(r"Out of memory: Killed process|exit code: -9\b")),
]
DESCRIPTIONS = {
    "gpu_lost": "a GPU fell off the bus (hardware fault): no launch over it can work",
    "ecc_error": "a GPU has uncorrectable ECC errors (hardware fault)",
    "no_kernel_image": "the installed torch has no kernels for this GPU's compute capability (a build mismatch)",
    "driver_mismatch": "the NVIDIA driver cannot be reached (a driver or library mismatch, or no device access)",
    "program_missing": "the shell could not find or run the launch's program",
    "mig_device": "a GPU in MIG mode cannot take part in this launch as a whole GPU",
    "shm_too_small": "/dev/shm is too small for NCCL's shared-memory transport",
    "disk_full": "a filesystem the server writes to is full",
    "corrupt_model": "a weight file of the model does not read (truncated or corrupt)",
    "host_oom": "the host ran out of RAM and the kernel killed the server",
    "gpu_held": "another user's process holds memory on a GPU of this launch",
    "unknown": "a failure I cannot place",
}
# what the operator can do about each class that no launch can fix: the question's first proposal
REMEDIES = {
    "gpu_lost": "have the lost GPU looked at (a reset or reseat after its Xid; yours), then tell me to use it again",
    "ecc_error": "have the GPU with ECC errors reset or replaced (yours to do); until then I leave it out",
    "no_kernel_image": "install a torch build with kernels for this GPU's compute capability (a newer CUDA wheel, "
    "cu128 or later) or run SGLang from a container image built for it, then reply continue",
    "driver_mismatch": "make the driver reachable (the loaded kernel module matching the user-space library, or the "
    "GPU devices given to the container), then reply continue",
    "program_missing": "install the program the quoted line names, or give its path as the sandbox shows it (/tmp, "
    "/run and /var/tmp are private there, and the homes' dot-entries hidden), then reply continue",
    "mig_device": "disable MIG on the partitioned GPU (nvidia-smi -mig 0 and a GPU reset, yours) or keep it out",
    "shm_too_small": "give /dev/shm more room (a container's --shm-size) or allow NCCL P2P, then reply continue",
    "disk_full": "free space on the full filesystem (or point the caches at another disk), then reply continue",
    "corrupt_model": "copy the named weight file again (re-download or restore it from its source) and check its "
    "size against the index, then reply continue",
    "host_oom": "free host RAM (other processes hold it) or let me load with fewer threads, then reply continue",
    "gpu_held": "ask the owner of the process on that GPU to free it, or let me serve on the other GPUs",
    "unknown": "read the quoted lines and tell me what this is, or instruct me; I will not relaunch it as it was",
}
GENERIC = {"child_crash", "load_timeout", "unknown"}  # says a process died, not why
# the rest of failures.py's classes: a remedy in the launch's own arguments (runbook.yaml)
CONFIGURATION = set(get_args(FailureClass)) - GENERIC

# An exception's own line as Python prints it ("RuntimeError: CUDA error: ...",
# "safetensors_rust.SafetensorError: ..."), anywhere on a log line (SGLang prefixes its own).
_EXCEPTION = re.compile(r"\b([A-Za-z_][\w.]*(?:Error|Exception)): \S")
_OTHER = re.compile(r"NCCL WARN|No space left on device|Killed process|CUDA error:")
FOREIGN_MIB = 1024  # less than this on a GPU is a monitoring agent's context, not a tenant


def error_lines(lines: Sequence[str], most: int = 3) -> list[str]:
    """The log's decisive lines: the exceptions' last lines (their cause, not the traceback's
    header), newest last, each once."""
    found: list[str] = []
    for line in lines:
        text = line.strip()
        if not text or "Traceback" in text or text.startswith("File "):
            continue
        if _EXCEPTION.search(text) or _OTHER.search(text):
            if text in found:
                found.remove(text)
            found.append(text)
    return found[-most:]


@dataclass
class Diagnosis:
    cls: str
    family: Family
    lines: list[str] = field(default_factory=list)
    gpus: list[int] = field(default_factory=list)  # GPUs to leave out of every later layout
    checked: list[str] = field(default_factory=list)

    @property
    def description(self) -> str:
        return DESCRIPTIONS.get(self.cls, self.cls)


def diagnose(
    cls: str,
    log_lines: Sequence[str],
    host: HostEvidence | None,
    launched: Sequence[int],
    foreign_mib: dict[int, int] | None = None,
) -> Diagnosis:
    """Place a failed launch: `cls` is what the log's cause alone said (failures.classify_launch),
    `launched` the GPUs the launch used, `foreign_mib` memory other users' processes hold per GPU."""
    checked = ["the server's log"]
    decisive = error_lines(log_lines)
    if host is not None:
        checked += ["the kernel log since the launch", "nvidia-smi -L and its health fields", "free disk"]
        lost = [g for g in host.lost_indices() if g in launched]
        if lost:
            lines = [x[2] for x in host.xid if x[1] == 79][-2:] or list(host.lost.values())[:2]
            return Diagnosis("gpu_lost", "hardware", lines + decisive[-1:], lost, checked)
        ecc = [g for g in host.ecc_indices() if g in launched]
        if ecc:
            lines = [x[2] for x in host.xid if x[1] != 79][-2:] or [
                f"GPU{g}: {host.ecc.get(g, 0)} uncorrectable ECC errors" for g in ecc
            ]
            return Diagnosis("ecc_error", "hardware", lines + decisive[-1:], ecc, checked)
    text = "\n".join(log_lines)
    for name, family, pattern in SIGNS:
        if pattern.search(text):
            lines = [line.strip() for line in log_lines if pattern.search(line)][-2:]
            gpus: list[int] = []
            if name == "mig_device" and host is not None:
                gpus = [g for g in host.mig if g in launched]
            if name == "disk_full" and host is not None:
                full = sorted(host.disks, key=lambda d: d.available_gb)[:1]
                lines += [f"df: {d.line}" for d in full]
            if name == "corrupt_model" and host is not None:
                lines = host.short_shards[:2] + lines  # the file, by name, before the loader's words
            if name == "host_oom" and host is not None:
                lines += [k for k in host.kernel if "Killed process" in k][-1:]
            return Diagnosis(name, family, _unique(lines + decisive[-1:]), gpus, checked)
    held = {g: mib for g, mib in (foreign_mib or {}).items() if g in launched and mib >= FOREIGN_MIB}
    if held and cls in ("weights_oom", "cuda_graph_oom", "kv_too_small"):
        lines = [f"GPU{g}: {mib} MiB held by another user's process" for g, mib in sorted(held.items())]
        return Diagnosis("gpu_held", "held_by_others", lines + decisive[-1:], sorted(held), checked)
    if cls in CONFIGURATION:
        return Diagnosis(cls, "configuration", decisive, [], checked)
    return Diagnosis("unknown", "unknown", decisive or [line.strip() for line in log_lines[-3:]], [], checked)


def _unique(lines: list[str]) -> list[str]:
    return list(dict.fromkeys(line for line in lines if line))
