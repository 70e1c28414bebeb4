"""The sandbox every command and server launch runs in on local and SSH targets (bubblewrap and
Landlock). What it shows and who runs inside is tools.sandbox_view's; this module probes the host
and decides.

The policy gate judges a command by reading it; the sandbox contains what the gate cannot see
(text written now and run later, libraries loaded through `LD_LIBRARY_PATH`, ...). Inside it:

- the system's directories are read-only; writable are the work directory and the paths the
  policy lists (`sandbox_writable`), and `TMPDIR` points into the work directory; `/tmp`, `/run`,
  `/var/tmp` and `/var/run` are private, the homes hidden but for the login's own without its
  dot-entries (tools.sandbox_view);
- a root login's commands run as `SANDBOX_UID`; the work directory and writable paths are given
  to it (`PREPARE_SCRIPT`);
- TCP bind and connect only on the run's ports (`DEFAULT_PORTS`, a launch's `--port`, the spec's),
  abstract Unix sockets and signals scoped to the sandbox (Landlock, tools/scripts/landlock_exec.py);
- `/dev` is a fresh minimal one (null, zero, random, tty, pts) plus the agent's own GPUs' nodes
  (`/dev/nvidiaN`, N read from `/proc/driver/nvidia/gpus/PCI/information`) and the driver's
  shared nodes (`nvidiactl`, `nvidia-uvm`, `nvidia-uvm-tools`, `nvidia-caps`); no block devices,
  no `/dev/vfio`; `/dev/shm` is a private tmpfs;
- `/sys` is read-only and `/proc` is this sandbox's own, mounted read-only (so `/proc/sys`,
  `/proc/sysrq-trigger` and the driver's `/proc` files cannot be written);
- its own PID namespace: host processes cannot be seen or signalled, and when the command ends
  everything it started ends with it (a server launch: when the server ends or is stopped);
- every capability dropped and `no_new_privs` set, so a setuid `sudo` cannot elevate.

A target first asks the host what it has (`PROBE_SCRIPT`: bubblewrap, a python3 and the kernel's
Landlock ABI, the top-level directories, the home's dot-entries, pathname sockets, the GPUs'
information files, the nvidia nodes), then checks that bubblewrap works with the exact arguments
it will use. Modes: `require` refuses to run where that check fails or the network cannot be
contained (one line, with what is needed), `auto` runs with what there is and says what is not
contained, `off` never uses one.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from tools.sandbox_view import (
    READABLE_TOOLCHAINS,
    SANDBOX_GID,
    SANDBOX_UID,
    RootEntry,
    View,
    bwrap_argv,
    helper_text,
)
from tools.target import TargetError

Mode = Literal["require", "auto", "off"]
MODES: tuple[Mode, ...] = ("require", "auto", "off")
INSTALL_HINT = "install bubblewrap on the host (Debian, Ubuntu, Proxmox: apt-get install -y bubblewrap)"

# The driver's nodes every CUDA process needs besides its GPUs' own (nvidia-caps: MIG handles).
SHARED_NODES = ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-caps")
# Runs a short script on the host, outside any sandbox: (exit code, stdout, stderr).
HostRunner = Callable[[str], tuple[int | None, str, str]]
# The port the agent's launches use unless told otherwise (SGLang's default, the deciders' too).
DEFAULT_PORTS = (30000,)
# A server launched on port P also owns P..P+SERVER_PORT_SPAN (SGLang's NCCL port: P+100..P+1000).
SERVER_PORT_SPAN = 1000
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
    ports: tuple[int, ...] = ()  # TCP ports commands may bind and connect to besides the run's own
    readable: tuple[str, ...] = READABLE_TOOLCHAINS  # shown read-only though in the home (absolute or ~/)


class HostSandboxFacts(BaseModel):
    """What `PROBE_SCRIPT` found on the host."""

    uid: int | None = None
    bwrap: str | None = None
    python: str | None = None  # a python3 the sandbox shows (runs its first process)
    landlock_abi: int = 0
    root: list[RootEntry] = []  # the top-level entries of /
    var_run_is_dir: bool = False
    home_dots: list[str] = []  # the login's home's dot-entries ("NAME/" for a directory)
    sockets: list[str] = []  # pathname sockets found in what the sandbox shows
    ephemeral: tuple[int, int] = (32768, 60999)  # net.ipv4.ip_local_port_range
    gpu_info: dict[str, str] = {}  # information file's directory name (a PCI address) -> its text
    nvidia_nodes: list[str] = []  # names under /dev (nvidia-caps entries as nvidia-caps/NAME)


class SandboxStatus(BaseModel):
    """Whether commands on a target run inside the sandbox, and why (stated in reports)."""

    mode: Mode
    active: bool
    detail: str
    devices: list[str] = []
    drops_root: bool = False  # the login is root and commands run as SANDBOX_UID inside
    ports: list[int] = []  # the TCP ports commands may use, when Landlock limits them

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


INIT_NAME = "opsagent-sandbox"


# Process 1 makes TMPDIR inside the sandbox (a host-side mkdir could follow a planted link).
_INIT = '[ -d "$TMPDIR" ] || mkdir -p -- "$TMPDIR"; bash -c "$1"; exit $?'


def command_argv(prefix: Sequence[str], command: str) -> list[str]:
    """`command` run with `bash -c` inside the sandbox under a bash of its own as process 1: a
    lone `bash -c` would exec a simple command, which as process 1 ignores SIGTERM and reaps no
    orphans. `INIT_NAME` names that process 1 (its $0), so a probe can recognise it."""
    return [*prefix, "bash", "-c", _INIT, INIT_NAME, command]


def wrap(prefix: Sequence[str], command: str) -> str:
    """`command_argv` as one shell line."""
    return shlex.join(command_argv(prefix, command))


# Asked on the host, outside any sandbox; only reads. Sections start with a line "@@NAME". $1 is
# the login's home, $2 the first process's Python text (asked for the kernel's Landlock ABI).
PROBE_SCRIPT = r"""
printf '@@uid %s\n' "$(id -u)"
b=$(command -v bwrap 2>/dev/null) && printf '@@bwrap %s\n' "$b"
for p in /usr/bin/python3 /usr/local/bin/python3 /bin/python3; do
  [ -x "$p" ] || continue
  printf '@@python %s\n@@abi %s\n' "$p" "$("$p" -I -S -c "$2" --abi 2>/dev/null)"; break
done
for e in /* /.[!.]*; do
  n=${e#/}
  if [ -L "$e" ]; then printf '@@root l %s %s\n' "$n" "$(readlink -- "$e")"
  elif [ -d "$e" ]; then printf '@@root d %s\n' "$n"; fi
done
[ -d /var/run ] && [ ! -L /var/run ] && printf '@@varrun\n'
printf '@@ephemeral %s\n' "$(cat /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)"
for e in "$1"/.[!.]* "$1"/..?*; do
  [ -e "$e" ] || [ -L "$e" ] || continue
  if [ -d "$e" ] && [ ! -L "$e" ]; then printf '@@dot %s/\n' "${e##*/}"; else printf '@@dot %s\n' "${e##*/}"; fi
done
set --
for d in /*; do
  case ${d#/} in proc|sys|dev|tmp|run|root|usr|bin|sbin|lib|lib32|lib64|libx32|boot|lost+found) continue;; esac
  [ -d "$d" ] && [ ! -L "$d" ] && set -- "$@" "$d"
done
[ "$#" -gt 0 ] && timeout 5 find "$@" -xdev -type s 2>/dev/null | head -n 500 | sed 's/^/@@sock /'
for f in /proc/driver/nvidia/gpus/*/information; do
  [ -r "$f" ] || continue
  d=${f%/information}; printf '@@info %s\n' "${d##*/}"; cat "$f"
done
printf '@@dev\n'
ls -1 /dev 2>/dev/null | grep '^nvidia'
ls -1 /dev/nvidia-caps 2>/dev/null | sed 's|^|nvidia-caps/|'
exit 0
"""

# Run on the host as root before a sandbox that drops to SANDBOX_UID: the work directory and the
# writable paths become that uid's. find never follows links (-P) and chown -h changes a link
# itself, from inside each directory (-execdir: a directory swapped for a link meanwhile is not
# followed); files with other hard links are left alone (a link to a host file must not pass). The
# work directory gets o+x: bubblewrap enters it as root without capabilities, before the drop.
PREPARE_SCRIPT = r"""
work=$1 owner=$2; shift 2
mkdir -p -- "$work" && chown -h "$owner" -- "$work" && chmod o+x -- "$work" || exit 1
find "$work" "$@" -xdev \( -type d -o -links 1 \) ! -user "${owner%%:*}" -execdir chown -h "$owner" -- {} + 2>/dev/null
exit 0
"""


def parse_probe(text: str) -> HostSandboxFacts:
    facts = HostSandboxFacts()
    section = ""
    info_name = ""
    info_lines: dict[str, list[str]] = {}
    for line in text.splitlines():
        head, _, rest = line.partition(" ")
        if head == "@@uid":
            facts.uid = int(rest) if rest.strip().isdigit() else None
        elif head == "@@bwrap":
            facts.bwrap = rest.strip() or None
        elif head == "@@python":
            facts.python = rest.strip() or None
        elif head == "@@abi":
            facts.landlock_abi = int(rest) if rest.strip().isdigit() else 0
        elif head == "@@root":
            kind, _, entry = rest.partition(" ")
            name, _, link = entry.partition(" ") if kind == "l" else (entry, "", "")
            if name:
                facts.root.append(RootEntry(name=name, kind=kind, link=link))
        elif head == "@@ephemeral":
            bounds = rest.split()
            if len(bounds) == 2 and all(b.isdigit() for b in bounds):
                facts.ephemeral = (int(bounds[0]), int(bounds[1]))
        elif head == "@@varrun":
            facts.var_run_is_dir = True
        elif head == "@@dot":
            facts.home_dots.append(rest)
        elif head == "@@sock":
            facts.sockets.append(rest)
        elif head == "@@info":
            section, info_name = "info", rest.strip()
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
    `where` names the target in messages. `generation` changes whenever the prefix would (a
    launch took a new port): a long-lived sandboxed shell started earlier must be replaced."""

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
        self.home = home
        self.where = where
        self._run_host = run_host
        self.writable = [work_dir, *expand_home(spec.writable, home)]
        self.readable = expand_home(spec.readable, home)
        self._status: SandboxStatus | None = None
        self._facts = HostSandboxFacts()
        self._devices: list[str] = []
        self._owned: set[int] = set(DEFAULT_PORTS)
        self.generation = 0

    @property
    def uid(self) -> int | None:
        self.status()
        return self._facts.uid

    @property
    def ports(self) -> list[int]:
        """The TCP ports commands may bind and connect to: the run's own and the policy's."""
        return sorted(self._owned | set(self.spec.ports))

    def own_ports(self, ports: Sequence[int]) -> None:
        """The run now owns `ports` too (a launch named them); later sandboxes allow them."""
        new = {p for p in ports if 0 < p < 65536} - self._owned
        if new:
            self._owned |= new
            self.generation += 1

    def _host(self, script: str, *args: str) -> tuple[int | None, str, str]:
        if args:
            script = f"set -- {shlex.join(args)}\n{script}"
        return self._run_host(script)

    def status(self) -> SandboxStatus:
        """Probe the host on first use; raises SandboxError under `require` when it cannot."""
        if self._status is None:
            self._status = self._probe()
        return self._status

    def _probe(self) -> SandboxStatus:
        mode = self.spec.mode
        code, out, _ = self._host(PROBE_SCRIPT, self.home, helper_text())
        self._facts = parse_probe(out)
        if mode == "off":
            return SandboxStatus(mode=mode, active=False, detail="turned off by the policy (sandbox: off)")
        if code != 0 or self._facts.bwrap is None:
            return self._cannot("bubblewrap (bwrap) is not installed")
        facts = self._facts
        limits: list[str] = []
        if facts.uid == 0 and facts.python is None:
            return self._cannot(
                "the login is root and the host has no python3 in /usr/bin to drop to an unprivileged uid"
            )
        if facts.python is None or facts.landlock_abi < 4:
            why = "no python3 in /usr/bin" if facts.python is None else f"Landlock ABI {facts.landlock_abi}"
            if mode == "require":
                return self._cannot(f"the network cannot be contained ({why}; Landlock ABI 4, Linux 6.7+, is needed)")
            limits.append(f"network NOT contained ({why})")
        elif facts.landlock_abi < 6:
            limits.append(f"abstract Unix sockets and signals NOT scoped (Landlock ABI {facts.landlock_abi} < 6)")
        self._devices = device_nodes(facts, self.spec)
        if facts.uid == 0:
            owner = f"{SANDBOX_UID}:{SANDBOX_GID}"
            self._host(PREPARE_SCRIPT, self.work_dir, owner, *self.writable[1:])
        check = shlex.join(command_argv(self._argv(), "echo opsagent-sandbox-ok"))
        code, out, err = self._host(check)
        if code != 0 or "opsagent-sandbox-ok" not in out:
            why = (err.strip().splitlines() or [f"exit code {code}"])[-1]
            return self._cannot(f"bubblewrap does not work here ({why})")
        gpus = [d for d in self._devices if _GPU_NODE.match(d.rsplit("/", 1)[-1])]
        who = f"uid {SANDBOX_UID} (the login is root)" if facts.uid == 0 else f"uid {facts.uid} (the login's)"
        net = "shared"
        if facts.python is not None and facts.landlock_abi >= 4:
            ports = ", ".join(map(str, self.ports))
            net = f"TCP only on ports {ports} and the run's launches' (Landlock ABI {facts.landlock_abi})"
        detail = (
            f"bubblewrap at {facts.bwrap}; runs as {who}; network: {net}; writable: {', '.join(self.writable)}; "
            f"GPU nodes: {', '.join(gpus) if gpus else 'none'}"
        )
        if limits:
            detail += "; " + "; ".join(limits)
        limited = self.ports if facts.python is not None and facts.landlock_abi >= 4 else []
        return SandboxStatus(
            mode=mode, active=True, detail=detail, devices=self._devices, drops_root=facts.uid == 0, ports=limited
        )

    def _port_ranges(self, server_ports: Sequence[int]) -> list[tuple[int, int]]:
        """The TCP port ranges a sandbox may bind and connect to: the run's ports; for a server
        launched on port P also P..P+SERVER_PORT_SPAN (SGLang's NCCL/TCPStore port is P+100..1000)
        and, bound as port 0 and connected to, the kernel's ephemeral range (NCCL's and gloo's
        bootstrap sockets): without them no SGLang server starts."""
        ranges = [(p, p) for p in self.ports]
        if server_ports:
            low, high = self._facts.ephemeral
            ranges += [(0, 0), (low, high)]
            ranges += [(p, min(p + SERVER_PORT_SPAN, 65535)) for p in server_ports if 0 < p < 65536]
        merged: list[tuple[int, int]] = []
        for a, b in sorted(ranges):
            if merged and a <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return merged

    def _argv(self, server_ports: Sequence[int] = ()) -> list[str]:
        facts = self._facts
        assert facts.bwrap is not None
        contained_net = facts.python is not None and facts.landlock_abi >= 4
        view = View(
            bwrap=facts.bwrap,
            work_dir=self.work_dir,
            home=self.home,
            writable=self.writable,
            readable=self.readable,
            devices=self._devices,
            root=facts.root,
            home_dots=facts.home_dots,
            sockets=facts.sockets,
            var_run_is_dir=facts.var_run_is_dir,
            drop_to=(SANDBOX_UID, SANDBOX_GID) if facts.uid == 0 else None,
            python=facts.python,
            ports=self._port_ranges(server_ports) if contained_net else None,
            landlock_abi=facts.landlock_abi,
        )
        return bwrap_argv(view)

    def _cannot(self, why: str) -> SandboxStatus:
        if self.spec.mode == "require":
            hint = INSTALL_HINT if "bubblewrap" in why else "needed: /usr/bin/python3 and Linux 6.7+ (Landlock ABI 4)"
            raise SandboxError(
                f"{self.where}: the policy requires the sandbox (sandbox: require) but {why}; "
                f"{hint}, or set 'sandbox: auto' in a policy file to run without it"
            )
        return SandboxStatus(
            mode=self.spec.mode, active=False, detail=f"{why}; commands run unconfined ({INSTALL_HINT})"
        )

    def prefix(self, server_ports: Sequence[int] = ()) -> list[str] | None:
        """The bubblewrap argv to put before `bash -c COMMAND`, or None when commands run bare;
        `server_ports`: the command is a server launched on these ports (see `_port_ranges`)."""
        if not self.status().active or self._facts.bwrap is None:
            return None
        return self._argv(server_ports)

    def file_owner(self) -> tuple[int, int] | None:
        """Who files the target writes into the sandbox's paths should belong to: the sandbox's
        uid when commands run as another uid than the login's (root), else None (keep as is)."""
        status = self.status()
        return (SANDBOX_UID, SANDBOX_GID) if status.active and status.drops_root else None

    def refuse_read(self, requested: str, real: str) -> str | None:
        """Why the target's own read of `requested` (really `real`) is refused, or None: a path in
        the sandbox's writable places may be a link a command planted, leading the host's read
        to a file the sandbox cannot read (a root-only file read as the login)."""
        if self._status is None or not self._status.active:
            return None
        if within(requested, self.writable) and not within(real, self.writable):
            return f"it leads to {real}, outside the paths the sandbox may write (a link made inside is not followed)"
        return None

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


_PORT_FLAG = re.compile(r"--port[= ](\d{1,5})\b")


def launch_ports(command: str) -> list[int]:
    """The TCP ports a launch command names (`--port N`): the run owns them from then on."""
    return [int(m) for m in _PORT_FLAG.findall(command)]
