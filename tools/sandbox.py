"""The sandbox every command and server launch runs in on local and SSH targets (bubblewrap).

The policy gate judges a command by reading it; the sandbox contains what the gate cannot see
(text written now and run later, libraries loaded through `LD_LIBRARY_PATH`, ...). Inside it:

- the root filesystem is read-only; writable are the work directory and the paths the policy
  lists (`sandbox_writable`), and `TMPDIR` points into the work directory;
- `/dev` is a fresh minimal one (null, zero, random, tty, pts) plus the agent's own GPUs' nodes
  (`/dev/nvidiaN`, N read from `/proc/driver/nvidia/gpus/PCI/information`) and the driver's
  shared nodes (`nvidiactl`, `nvidia-uvm`, `nvidia-uvm-tools`, `nvidia-caps`); no block devices,
  no `/dev/vfio`; `/dev/shm` is a private tmpfs per command;
- `/sys` is read-only and `/proc` is this sandbox's own, mounted read-only (so `/proc/sys`,
  `/proc/sysrq-trigger` and the driver's `/proc` files cannot be written);
- `/run` is an empty tmpfs (only the resolver's directory is shown again): a login as root keeps
  uid 0 even without capabilities, and uid 0 may talk to D-Bus, docker, libvirt and QEMU sockets;
- its own PID namespace: host processes cannot be seen or signalled, and when the command ends
  everything it started ends with it (a server launch: when the server ends or is stopped);
- every capability dropped and `no_new_privs` set, so a setuid `sudo` cannot elevate;
- the network is shared: servers listen and benchmarks connect as before.

A target first asks the host what it has (`PROBE_SCRIPT`: bubblewrap, the GPUs' information
files, the nvidia nodes), then checks that bubblewrap works with the exact arguments it will use.
Modes: `require` refuses to run where that check fails (with the install command), `auto` runs
without a sandbox and says so, `off` never uses one.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from tools.target import TargetError

Mode = Literal["require", "auto", "off"]
MODES: tuple[Mode, ...] = ("require", "auto", "off")
INSTALL_HINT = "install bubblewrap on the host (Debian, Ubuntu, Proxmox: apt-get install -y bubblewrap)"

# The driver's nodes every CUDA process needs besides its GPUs' own (nvidia-caps: MIG handles).
SHARED_NODES = ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-caps")
# Runs a short script on the host, outside any sandbox: (exit code, stdout, stderr).
HostRunner = Callable[[str], tuple[int | None, str, str]]
_GPU_NODE = re.compile(r"^nvidia(\d+)$")
_PCI = re.compile(r"^(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$")


class SandboxError(TargetError):
    """`require` was asked for and the host cannot give it; the message says how to fix that."""


class SandboxSpec(BaseModel):
    """What the policy says about the sandbox for one target."""

    model_config = ConfigDict(frozen=True)

    mode: Mode = "auto"
    writable: tuple[str, ...] = ()
    gpu_pci: tuple[str, ...] | None = None  # the agent's GPUs; None: every GPU not protected
    gpu_indices: tuple[int, ...] | None = None  # used when gpu_pci is not known (PCI order)
    protected_pci: tuple[str, ...] = ()


class HostSandboxFacts(BaseModel):
    """What `PROBE_SCRIPT` found on the host."""

    uid: int | None = None
    bwrap: str | None = None
    gpu_info: dict[str, str] = {}  # information file's directory name (a PCI address) -> its text
    nvidia_nodes: list[str] = []  # names under /dev (nvidia-caps entries as nvidia-caps/NAME)


class SandboxStatus(BaseModel):
    """Whether commands on a target run inside the sandbox, and why (stated in reports)."""

    mode: Mode
    active: bool
    detail: str
    devices: list[str] = []

    def line(self) -> str:
        state = "on" if self.active else "OFF"
        return f"{state} (policy setting {self.mode}): {self.detail}"


def normalise_pci(address: str) -> str:
    m = _PCI.match(address.strip())
    if not m:
        raise ValueError(f"not a PCI address: {address!r} (expected like 0000:41:00.0)")
    domain = (m.group(1) or "0000")[-4:]
    return f"{domain}:{m.group(2)}:{m.group(3)}.{m.group(4)}".lower()


def parse_information(text: str) -> tuple[str | None, int | None]:
    """The bus location and device minor in one `/proc/driver/nvidia/gpus/*/information` file
    (the driver prints `Bus Location: \\t 0000:01:00.0` and `Device Minor: \\t 0`)."""
    bus: str | None = None
    minor: int | None = None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        value = value.strip()
        if key.strip() == "Bus Location" and value:
            try:
                bus = normalise_pci(value)
            except ValueError:
                bus = None
        elif key.strip() == "Device Minor" and value.isdigit():
            minor = int(value)
    return bus, minor


def gpu_minors(gpu_info: Mapping[str, str], spec: SandboxSpec) -> dict[str, int]:
    """The agent's GPUs as PCI address -> minor number of `/dev/nvidiaN`.

    Which GPUs: `spec.gpu_pci` when the policy names them; else `spec.gpu_indices` counted in
    PCI order (nvidia-smi's default order); else every GPU not in `spec.protected_pci`. A GPU
    whose file gives no minor is left out: a node nobody can name is a node nobody needs."""
    found: dict[str, int] = {}
    for name, text in gpu_info.items():
        bus, minor = parse_information(text)
        if bus is None:
            try:
                bus = normalise_pci(name)
            except ValueError:
                continue
        if minor is not None:
            found[bus] = minor
    if spec.gpu_pci is not None:
        wanted = {normalise_pci(p) for p in spec.gpu_pci}
    elif spec.gpu_indices is not None:
        ordered = sorted(found)
        wanted = {ordered[i] for i in spec.gpu_indices if 0 <= i < len(ordered)}
    else:
        wanted = set(found)
    wanted -= {normalise_pci(p) for p in spec.protected_pci}
    return {bus: minor for bus, minor in sorted(found.items()) if bus in wanted}


def device_nodes(facts: HostSandboxFacts, spec: SandboxSpec) -> list[str]:
    """The `/dev` entries bound into the sandbox: the agent's GPUs, then the shared nodes, only
    those that exist on the host."""
    present = set(facts.nvidia_nodes)
    minors = gpu_minors(facts.gpu_info, spec)
    nodes = [f"/dev/nvidia{m}" for m in sorted(minors.values()) if f"nvidia{m}" in present]
    nodes += [f"/dev/{name}" for name in SHARED_NODES if name in present]
    return nodes


def bwrap_argv(
    bwrap: str,
    work_dir: str,
    writable: Sequence[str],
    devices: Sequence[str],
) -> list[str]:
    """The bubblewrap command line that runs what follows it inside the sandbox, starting in the
    work directory (where the policy judges commands to start).

    What follows is the namespace's process 1 (`--as-pid-1`): when it ends, the kernel ends
    everything else inside, daemons that left the process group too. Not `--die-with-parent`: a
    server launch outlives the shell that started it, and a command outlives a crashed agent as
    before (its outcome is then asked about, never re-run). The process group is kept, so a
    SIGKILL to the group (a timeout, a stop's last step) reaches process 1 as well."""
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev"]
    for node in devices:
        argv += ["--dev-bind", node, node]
    argv += ["--tmpfs", "/dev/shm", "--proc", "/proc", "--remount-ro", "/proc"]
    # /run holds the control sockets (D-Bus, docker, libvirt, qemu-server); the resolver's
    # directory comes back because /etc/resolv.conf often links into it.
    argv += ["--tmpfs", "/run", "--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve"]
    argv += ["--bind", work_dir, work_dir]
    for path in writable:
        if path != work_dir:
            argv += ["--bind-try", path, path]
    argv += ["--setenv", "TMPDIR", f"{work_dir}/tmp", "--chdir", work_dir]
    return [*argv, "--unshare-pid", "--as-pid-1", "--cap-drop", "ALL", "--"]


INIT_NAME = "opsagent-sandbox"


def command_argv(prefix: Sequence[str], command: str) -> list[str]:
    """`command` run with `bash -c` inside the sandbox under a bash of its own as process 1: a
    lone `bash -c` would exec a simple command, which as process 1 ignores SIGTERM and reaps no
    orphans. `INIT_NAME` names that process 1 (its $0), so a probe can recognise it."""
    return [*prefix, "bash", "-c", 'bash -c "$1"; exit $?', INIT_NAME, command]


def wrap(prefix: Sequence[str], command: str) -> str:
    """`command_argv` as one shell line."""
    return shlex.join(command_argv(prefix, command))


# Asked on the host, outside any sandbox; only reads. Sections start with a line "@@NAME".
PROBE_SCRIPT = r"""
printf '@@uid %s\n' "$(id -u)"
b=$(command -v bwrap 2>/dev/null) && printf '@@bwrap %s\n' "$b"
for f in /proc/driver/nvidia/gpus/*/information; do
  [ -r "$f" ] || continue
  d=${f%/information}; printf '@@info %s\n' "${d##*/}"; cat "$f"
done
printf '@@dev\n'
ls -1 /dev 2>/dev/null | grep '^nvidia'
ls -1 /dev/nvidia-caps 2>/dev/null | sed 's|^|nvidia-caps/|'
exit 0
"""


def parse_probe(text: str) -> HostSandboxFacts:
    facts = HostSandboxFacts()
    section = ""
    info_name = ""
    info_lines: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.startswith("@@uid "):
            value = line[6:].strip()
            facts.uid = int(value) if value.isdigit() else None
        elif line.startswith("@@bwrap "):
            facts.bwrap = line[8:].strip() or None
        elif line.startswith("@@info "):
            section, info_name = "info", line[7:].strip()
            info_lines[info_name] = []
        elif line == "@@dev":
            section = "dev"
        elif section == "info":
            info_lines[info_name].append(line)
        elif section == "dev" and line.strip():
            facts.nvidia_nodes.append(line.strip())
    facts.gpu_info = {k: "\n".join(v) + "\n" for k, v in info_lines.items()}
    return facts


def expand_home(paths: Sequence[str], home: str) -> list[str]:
    """Policy paths may start with `~` (the target user's home); relative ones are refused by the
    policy loader, so only absolute paths come out."""
    out: list[str] = []
    for path in paths:
        full = home + path[1:] if path == "~" or path.startswith("~/") else path
        if full.startswith("/"):
            out.append(full.rstrip("/") or "/")
    return out


def within(path: str, roots: Sequence[str]) -> bool:
    """Whether the absolute, normalised `path` lies in one of `roots` (or is one)."""
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


class Sandbox:
    """One target's sandbox: probes the host once (lazily), then gives the bubblewrap prefix.

    `run_host(script)` returns (exit code, stdout, stderr) of a script run outside the sandbox;
    `where` names the target in messages."""

    def __init__(
        self,
        spec: SandboxSpec,
        *,
        work_dir: str,
        home: str,
        run_host: HostRunner,
        where: str,
    ) -> None:
        self.spec = spec
        self.work_dir = work_dir
        self.where = where
        self._run_host = run_host
        self.writable = [work_dir, *expand_home(spec.writable, home)]
        self._status: SandboxStatus | None = None
        self._facts = HostSandboxFacts()
        self._devices: list[str] = []

    @property
    def uid(self) -> int | None:
        self.status()
        return self._facts.uid

    def _host(self, script: str) -> tuple[int | None, str, str]:
        return self._run_host(script)

    def status(self) -> SandboxStatus:
        """Probe the host on first use; raises SandboxError under `require` when it cannot."""
        if self._status is None:
            self._status = self._probe()
        return self._status

    def _probe(self) -> SandboxStatus:
        mode = self.spec.mode
        if mode == "off":
            _, out, _ = self._host(PROBE_SCRIPT)
            self._facts = parse_probe(out)
            return SandboxStatus(mode=mode, active=False, detail="turned off by the policy (sandbox: off)")
        code, out, err = self._host(PROBE_SCRIPT)
        self._facts = parse_probe(out)
        if code != 0 or self._facts.bwrap is None:
            return self._cannot("bubblewrap (bwrap) is not installed")
        self._devices = device_nodes(self._facts, self.spec)
        argv = bwrap_argv(self._facts.bwrap, self.work_dir, self.writable, self._devices)
        q = shlex.quote
        check = f"mkdir -p {q(self.work_dir)}/tmp && {wrap(argv, 'echo opsagent-sandbox-ok')}"
        code, out, err = self._host(check)
        if code != 0 or "opsagent-sandbox-ok" not in out:
            why = (err.strip().splitlines() or [f"exit code {code}"])[-1]
            return self._cannot(f"bubblewrap does not work here ({why})")
        gpus = [d for d in self._devices if _GPU_NODE.match(d.rsplit("/", 1)[-1])]
        detail = (
            f"bubblewrap at {self._facts.bwrap}; writable: {', '.join(self.writable)}; "
            f"GPU nodes: {', '.join(gpus) if gpus else 'none'}"
        )
        return SandboxStatus(mode=mode, active=True, detail=detail, devices=self._devices)

    def _cannot(self, why: str) -> SandboxStatus:
        if self.spec.mode == "require":
            raise SandboxError(
                f"{self.where}: the policy requires the sandbox (sandbox: require) but {why}; "
                f"{INSTALL_HINT}, or set 'sandbox: auto' in a policy file to run without it"
            )
        return SandboxStatus(
            mode=self.spec.mode, active=False, detail=f"{why}; commands run unconfined ({INSTALL_HINT})"
        )

    def prefix(self) -> list[str] | None:
        """The bubblewrap argv to put before `bash -c COMMAND`, or None when commands run bare."""
        if not self.status().active or self._facts.bwrap is None:
            return None
        return bwrap_argv(self._facts.bwrap, self.work_dir, self.writable, self._devices)

    def refuse_write(self, path: str) -> str | None:
        """Why a file write by the target itself (not a command) to `path` is refused, or None."""
        if not self.status().active or within(path, self.writable):
            return None
        return f"Read-only file system (the sandbox lets the agent write only under {', '.join(self.writable)})"

    def outside(self, command: str) -> str:
        """`command` as an escalation runs it: outside the sandbox, as root (sudo -n unless root)."""
        if self.uid == 0:
            return command
        return f"sudo -n -- bash -c {shlex.quote(command)}"
