"""nvidia-smi: which GPUs a query or a state change touches."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.policy.invocation import Ctx, Invocation, Scope
from agent.policy.programs.base import opt_value, parse_gpu_list

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis

# for `subcommand` rules (programs/table.py): options before the subcommand that take the next
# word as their value, so that `nvidia-smi -i 0 drain` is read as `nvidia-smi drain`
SUBCOMMAND_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "nvidia-smi": frozenset(
        ("-i", "--id", "-f", "--filename", "-l", "--loop", "-lms", "--loop-ms", "-d", "--display", "-u")
    ),
    "dcgmi": frozenset(("--host",)),
}

# options whose value is a file it writes (read by outputs.py through programs/table.py)
OUTPUT_OPTIONS: dict[str, frozenset[str]] = {
    "nvidia-smi": frozenset(("-f", "--filename")),
    "nvidia-debugdump": frozenset(("-f", "--file")),
    "nvidia-bug-report.sh": frozenset(("--output-file",)),
    "nvidia-ctk": frozenset(("--output", "-o")),
}


NVSMI_MODIFY = {
    "-r",
    "--gpu-reset",
    "-pl",
    "--power-limit",
    "-pm",
    "--persistence-mode",
    "-e",
    "--ecc-config",
    "-p",
    "--reset-ecc-errors",
    "-c",
    "--compute-mode",
    "-lgc",
    "--lock-gpu-clocks",
    "-rgc",
    "--reset-gpu-clocks",
    "-lmc",
    "--lock-memory-clocks",
    "-rmc",
    "--reset-memory-clocks",
    "-ac",
    "--applications-clocks",
    "-rac",
    "--reset-applications-clocks",
    "-mig",
    "--multi-instance-gpu",
    "-am",
    "--accounting-mode",
    "-caa",
    "-dm",
    "--driver-model",
    "-fdm",
    "--gom",
    "-cc",
    "--cuda-clocks",
    "-gtt",
    "--gpu-target-temp",
    "-lmcd",
    "--lock-memory-clocks-deviceMode",
    "--lock-memory-clocks-deferred",
    "-acp",
    "--applications-clocks-permission",
    "--auto-boost-default",
    "--auto-boost-permission",
    "--clear-accounted-apps",
    "-pdm",
    "--power-profile",
    "-vm",
    "--virt-mode",
}


# nvidia-smi subcommands that change settings whatever their options say (listing aside)
NVSMI_SETTING_SUBCOMMANDS = frozenset(("boost-slider", "power-smoothing", "power-hint", "set-hostname"))


# the long spellings of what changes a GPU in `mig`, `drain`, `nvlink`, `clocks`:
# --create-gpu-instance, --destroy-compute-instance, --default-compute-instance, --pciid, --modify, --setcontrol
_NVSMI_LONG_CHANGE = re.compile(r"create|destroy|default|set|reset|modify|pciid|enable|disable|lock")


def nvidia_smi(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    args = argv[1:]
    sub = args[0] if args and not args[0].startswith("-") else None
    modifies = sub is None and any(a.partition("=")[0] in NVSMI_MODIFY for a in args)
    if args and args[0] in NVSMI_SETTING_SUBCOMMANDS and not any(a in ("-h", "--help", "-l", "--list") for a in args):
        modifies = True  # `boost-slider --vboost 1`, `power-smoothing ...`: settings of the GPUs named
    if args and args[0] == "vgpu":  # `-sms`, `-shm`, `--set-*`: the vGPU scheduler of the GPUs named
        modifies = modifies or any(a.startswith(("--set", "-s")) and len(a) > 2 for a in args[1:])
    if args and args[0] in ("mig", "drain", "nvlink", "clocks", "conf-compute", "c2c"):
        modifies = modifies or any(
            a in ("-r", "-cgi", "-dgi", "-dci", "-cci", "-C", "-p", "-m", "--set", "-sc")
            or (a.startswith("--") and _NVSMI_LONG_CHANGE.search(a) is not None)
            for a in args
        )
    if args and args[0] == "conf-compute":  # `-srs`, `-scc`, `--set-*`: the CC state of every GPU
        modifies = modifies or any(a.startswith(("-s", "--set")) for a in args[1:])
    if not modifies:
        return
    ids: frozenset[str] | None = None
    # `drain -p/--pciid ADDR` names its one GPU by PCI address (elsewhere `-p` resets ECC counts)
    pci_opts = ("-p", "--pciid") if sub == "drain" else ()
    for i, a in enumerate(args):
        if a in pci_opts and i + 1 < len(args):
            ids = parse_gpu_list(args[i + 1])
        elif pci_opts and a.startswith("--pciid="):
            ids = parse_gpu_list(a.partition("=")[2])
        elif a in ("-i", "--id") and i + 1 < len(args):
            ids = parse_gpu_list(args[i + 1])
        elif a.startswith("--id="):
            ids = parse_gpu_list(a.partition("=")[2])
        elif a.startswith("-i") and len(a) > 2 and a[2:].replace(",", "").isdigit():
            ids = parse_gpu_list(a[2:])
    inv.gpus = ids if ids is not None else frozenset({"all"})


# dcgmi subcommands that run tests on, or change, the GPUs they are given
_DCGMI_ACTS = frozenset(("diag", "config", "policy", "profile", "nvlink", "modules"))


def dcgmi(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """`dcgmi diag -r 3` tests every GPU (DCGM's default group holds them all, the co-tenant's
    too); `-i 0,1` names them; a group (`-g N`) may hold any."""
    args = argv[1:]
    sub = next((a for a in args if not a.startswith("-")), "")
    reads_only = "--get" in args and "--set" not in args  # a `--get` beside a `--set` still sets
    if sub not in _DCGMI_ACTS or reads_only or any(a in ("-l", "--list", "-h", "--help") for a in args):
        return
    listed = opt_value(args, ("-i", "--gpuid", "--gpu-id"))
    group = opt_value(args, ("-g", "--group"))
    inv.gpus = parse_gpu_list(listed) if listed and group is None else frozenset({"all"})
