"""The sandbox as the lab models it, so evals measure the agent under the same walls as a host.

A real host runs every command inside bubblewrap (tools.sandbox): the root filesystem, /sys and
/proc are read-only, only the work directory and the paths the policy lists can be written, and
`no_new_privs` stops a setuid `sudo`. The lab cannot run bubblewrap on a simulated host, so it
answers the same way: a write elsewhere fails with "Read-only file system" (even as root) and
`sudo` fails with the message sudo prints when `no_new_privs` is set. An approved escalation
(`run_outside_sandbox`) runs with the walls down, through `sudo` as on a host.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Protocol

from tools.sandbox import SandboxSpec, SandboxStatus, expand_home, within
from tools.target import DEFAULT_OUTPUT_CAP, DEFAULT_TIMEOUT_S, CommandResult

SUDO_NO_NEW_PRIVS = (
    'sudo: The "no new privileges" flag is set, which prevents sudo from running as root.\n'
    "sudo: If sudo is running in a container, you may need to adjust the container configuration "
    "to disable the flag.\n"
)
READ_ONLY = "Read-only file system"


@dataclass
class LabSandbox:
    mode: str
    writable: list[str] = field(default_factory=list)
    suspended: bool = False  # while an approved escalation runs

    @property
    def active(self) -> bool:
        return self.mode != "off" and not self.suspended

    def blocks_write(self, path: str) -> bool:
        """A write to the absolute `path` fails inside the sandbox (/dev/null and /dev/shm do not)."""
        if not self.active or path == "/dev/null" or path.startswith("/dev/shm/"):
            return False
        return not within(path, self.writable)

    def status(self) -> SandboxStatus:
        if self.mode == "off":
            return SandboxStatus(mode="off", active=False, detail="turned off by the policy (sandbox: off)")
        detail = f"bubblewrap, modelled by the lab; writable: {', '.join(self.writable)}"
        return SandboxStatus(mode="require" if self.mode == "require" else "auto", active=True, detail=detail)


def model(work_dir: str, home: str, spec: SandboxSpec) -> LabSandbox:
    writable = [work_dir, *expand_home(spec.writable, home)]
    return LabSandbox(mode=spec.mode, writable=writable)


class _Runs(Protocol):
    """The lab target (tools.lab.target.LabTarget), as an escalation needs it."""

    sandbox: LabSandbox | None

    def run(self, command: str, *, timeout: float = ..., output_cap: int = ...) -> CommandResult: ...


def run_outside(
    lab: _Runs, command: str, *, timeout: float = DEFAULT_TIMEOUT_S, output_cap: int = DEFAULT_OUTPUT_CAP
) -> CommandResult:
    """An approved escalation on the lab: no walls, as root through sudo (as on a host)."""
    box = lab.sandbox
    if box is not None:
        box.suspended = True
    try:
        return lab.run(f"sudo -n -- bash -c {shlex.quote(command)}", timeout=timeout, output_cap=output_cap)
    finally:
        if box is not None:
            box.suspended = False
