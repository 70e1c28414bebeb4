"""ipmitool: the commands a script file (`exec`) or shell mode would run."""

from __future__ import annotations

from agent.policy.invocation import Hook
from agent.policy.options import operands

# options whose value is a file it reads (commands.py, through programs/table.py)
CONTENT_OPTIONS: dict[str, tuple[str, ...]] = {"ipmitool": ("-f",)}  # the BMC password file

_IPMITOOL_VALUE_OPTIONS = frozenset(
    ("-d", "-I", "-H", "-p", "-U", "-f", "-S", "-e", "-k", "-y", "-L", "-A", "-P", "-o", "-O", "-t", "-b", "-m", "-B",
     "-T", "-l", "-C", "-N", "-R", "-z")
)  # fmt: skip


def ipmitool_hooks(name: str, args: list[str]) -> list[Hook]:
    """`ipmitool exec FILE` and `ipmitool shell` run BMC commands the gate cannot see (`chassis power
    cycle` in a file, or on standard input)."""
    words = operands(args, _IPMITOOL_VALUE_OPTIONS)
    if words[:1] == ["exec"]:
        return [Hook(f"{name} exec", opaque=f"{name} runs the BMC commands in a file the gate cannot see")]
    if words[:1] == ["shell"]:
        return [Hook(f"{name} shell", opaque=f"{name} reads BMC commands from its standard input")]
    return []
