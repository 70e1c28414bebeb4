"""The simulated host's mutable state: files, processes, listening ports and the kernel log.

Everything here is data in memory; nothing touches the machine running the lab. Time is the
virtual clock's: a process is alive at `t` when `start <= t < end`, so a crash scheduled for the
future happens by itself when the clock gets there.
"""

from __future__ import annotations

import bisect
import json
import math
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tools.lab import diskfs, modelfs
from tools.lab.clock import VirtualClock
from tools.lab.hostspec import Filesystem
from tools.lab.scenario import ModelSpec, OperatorWorkload, Scenario

if TYPE_CHECKING:
    from tools.lab.sglang_sim import Server

DynamicContent = Callable[[float], tuple[bytes, float]]


@dataclass
class FileEntry:
    data: bytes = b""
    mtime: float = 0.0
    inode: int = 0
    dynamic: DynamicContent | None = None  # (content, mtime) as of a virtual time
    size: int | None = None  # a sparse file (a model shard): its declared size; `data` is its head

    def content(self, t: float) -> tuple[bytes, float]:
        if self.dynamic is not None:
            return self.dynamic(t)
        return self.data, self.mtime

    def size_at(self, t: float) -> int:
        return self.size if self.size is not None else len(self.content(t)[0])


@dataclass
class SimProcess:
    pid: int
    pgid: int
    ppid: int
    user: str
    args: str
    start: float
    owner: str  # agent | foreign | system
    end: float | None = None
    exit_code: int | None = None
    signalled: str | None = None
    port: int | None = None
    listen_from: float = 0.0
    host_addr: str = "0.0.0.0"
    gpu_memory_mib: dict[int, int] = field(default_factory=dict)
    server: Server | None = None
    serves_model: str | None = None  # a foreign SGLang server
    gpu_busy: bool = False
    name: str = ""  # the detached name, for agent processes
    waits_for_port: bool = False  # binds `port` as soon as nobody else holds it (a supervised service)
    answers: str = "sglang"  # a foreign listener: sglang | http-404 | reset
    parent: int | None = None  # the main process of a server, for its children

    def alive(self, t: float) -> bool:
        return self.start <= t and (self.end is None or t < self.end)

    @property
    def comm(self) -> str:
        first = self.args.split()[0] if self.args else "?"
        return posixpath.basename(first)[:15]


@dataclass
class DmesgLine:
    t: float
    text: str


class Host:
    """Files, processes, ports and kernel messages of the simulated machine."""

    def __init__(self, scenario: Scenario, clock: VirtualClock, work_dir: str) -> None:
        self.scenario = scenario
        self.clock = clock
        self.work_dir = work_dir
        self.files: dict[str, FileEntry] = {}
        self.dirs: set[str] = {"/"}
        self.processes: dict[int, SimProcess] = {}
        self.dmesg: list[DmesgLine] = []
        self._next_pid = 41000
        self._next_inode = 1000
        self.home = f"/home/{scenario.host.user}"
        self.fs_base: dict[str, int] = {}  # mount -> bytes `used_gb` holds beyond the lab's files
        self._populate()
        self._filesystems()

    # ---- files -----------------------------------------------------------------------------

    def _add_dir(self, path: str) -> None:
        path = posixpath.normpath(path)
        while path not in self.dirs:
            self.dirs.add(path)
            path = posixpath.dirname(path)

    def add_file(self, path: str, data: bytes, mtime: float | None = None) -> FileEntry:
        path = posixpath.normpath(path)
        self._add_dir(posixpath.dirname(path))
        self._next_inode += 1
        entry = FileEntry(data=data, mtime=self.clock.now() if mtime is None else mtime, inode=self._next_inode)
        self.files[path] = entry
        return entry

    def add_dynamic(self, path: str, producer: DynamicContent) -> FileEntry:
        entry = self.add_file(path, b"")
        entry.dynamic = producer
        return entry

    def write(self, path: str, data: bytes, *, append: bool = False) -> None:
        path = posixpath.normpath(path)
        entry = self.files.get(path)
        if entry is None or entry.dynamic is not None:
            self.add_file(path, data)
            return
        entry.data = entry.data + data if append else data
        entry.mtime = self.clock.now()

    def mkdir(self, path: str) -> None:
        self._add_dir(path)

    def is_dir(self, path: str) -> bool:
        return posixpath.normpath(path) in self.dirs

    def listdir(self, path: str) -> list[str]:
        path = posixpath.normpath(path)
        prefix = path.rstrip("/") + "/"
        names = {p[len(prefix) :].split("/")[0] for p in [*self.files, *self.dirs] if p.startswith(prefix)}
        names.discard("")
        return sorted(names)

    # ---- capacity (scenario host.filesystems) ---------------------------------------------

    def _filesystems(self) -> None:
        """Junk files as sparse entries; what `used_gb` holds beyond the files, per mount."""
        t0 = -self.scenario.host.uptime_s
        for fs in self.scenario.host.filesystems:
            for junk in fs.files:
                self.add_file(junk.path, b"\0" * 64, mtime=t0).size = round(junk.size_gb * 1e9)
        for fs in self.scenario.host.filesystems:
            self.fs_base[fs.mount] = round(fs.used_gb * 1e9) - self._bytes_on(fs)

    def _bytes_on(self, fs: Filesystem) -> int:
        every = self.scenario.host.filesystems
        t = self.clock.now()
        return sum(e.size_at(t) for p, e in self.files.items() if diskfs.mount_of(every, p) is fs)

    def fs_used(self, fs: Filesystem) -> int:
        return self.fs_base.get(fs.mount, 0) + self._bytes_on(fs)

    def fs_free(self, path: str) -> int | None:
        """Bytes a write under `path` may still take (None: no capacity modelled there)."""
        fs = diskfs.mount_of(self.scenario.host.filesystems, posixpath.normpath(path))
        return None if fs is None else diskfs.free_bytes(fs, self.fs_used(fs))

    def growth(self, path: str, data: bytes, append: bool) -> int:
        entry = self.files.get(posixpath.normpath(path))
        old = 0 if entry is None else entry.size_at(self.clock.now())
        return len(data) if append else len(data) - old

    # ---- processes ------------------------------------------------------------------------

    def new_pid(self, count: int = 1) -> int:
        pid = self._next_pid
        self._next_pid += count
        return pid

    def add_process(self, proc: SimProcess) -> SimProcess:
        self.processes[proc.pid] = proc
        return proc

    def alive(self, t: float | None = None) -> list[SimProcess]:
        when = self.clock.now() if t is None else t
        return [p for p in sorted(self.processes.values(), key=lambda p: p.pid) if p.alive(when)]

    def listener(self, port: int, t: float | None = None) -> SimProcess | None:
        when = self.clock.now() if t is None else t
        for proc in self.alive(when):
            if proc.port == port:
                bound = self.bound_from(proc)
                if bound is not None and bound <= when:
                    return proc
        return None

    def bound_from(self, proc: SimProcess) -> float | None:
        """When `proc` holds its port: from `listen_from`, or, for a process that waits for the port,
        from the first moment after its start that no other process holds it (None: never)."""
        if proc.port is None:
            return None
        if not proc.waits_for_port:
            return proc.listen_from
        holders = [
            (p.listen_from, math.inf if p.end is None else p.end)
            for p in self.processes.values()
            if p is not proc and p.port == proc.port and not p.waits_for_port and p.start <= p.listen_from
        ]
        at = proc.start
        moved = True
        while moved:
            moved = False
            for start, end in holders:
                if start <= at < end:
                    at, moved = end, True
        return None if math.isinf(at) or (proc.end is not None and at >= proc.end) else at

    def end_process(self, proc: SimProcess, t: float, *, exit_code: int | None, signal: str | None) -> None:
        """End a process (and a server's children) at `t`, unless it already ended earlier."""
        group = [proc] + [p for p in self.processes.values() if p.parent == proc.pid]
        for p in group:
            if p.end is None or p.end > t:
                p.end = t
                p.exit_code = exit_code
                p.signalled = signal
        if proc.server is not None:
            proc.server.stopped_at(t, signal)
            # What the server would have done to the kernel after it stopped never happens.
            later = {line for when, line in proc.server.kernel_lines if when > t}
            self.dmesg = [d for d in self.dmesg if not (d.t > t and d.text in later)]
            for when, path in proc.server.files_written:
                if when > t:  # stopped before it got to write them
                    self.files.pop(path, None)

    @property
    def lost_at(self) -> dict[str, float]:
        """bus id -> when a launch made that GPU fall off the bus (a loss scheduled after the server
        stopped never happened; once lost, a GPU stays lost)."""
        out: dict[str, float] = {}
        for proc in self.processes.values():
            server = proc.server
            if server is None:
                continue
            end = server.end_time()
            for when, bus in server.lost_gpus:
                if end is None or when < end:
                    out[bus] = min(when, out.get(bus, when))
        return out

    # ---- kernel log -----------------------------------------------------------------------

    def log_kernel(self, t: float, text: str) -> None:
        keys = [d.t for d in self.dmesg]
        self.dmesg.insert(bisect.bisect_right(keys, t), DmesgLine(t, text))

    # ---- the initial state ----------------------------------------------------------------

    def _populate(self) -> None:
        s = self.scenario
        self._add_dir(self.home)
        self._add_dir("/tmp")
        self.add_file("/etc/hostname", f"{s.host.hostname}\n".encode(), mtime=-s.host.uptime_s)
        self.add_file(
            "/etc/os-release",
            _os_release(s.host.os).encode(),
            mtime=-s.host.uptime_s,
        )
        for model in s.models:
            self._add_model_files(model)
        for p in s.processes:
            start = -float(p.started_ago_s) if p.starts_at_s is None else p.starts_at_s
            self.add_process(
                SimProcess(
                    pid=p.pid,
                    pgid=p.pid,
                    ppid=1,
                    user=p.user,
                    args=p.args,
                    start=start,
                    owner="foreign",
                    port=p.port,
                    listen_from=start,
                    gpu_memory_mib=dict(p.gpu_memory_mib),
                    serves_model=p.serves_model,
                    gpu_busy=p.gpu_busy,
                    waits_for_port=p.starts_at_s is not None,
                    answers=p.answers,
                )
            )
        self._operator_workloads()
        for pid, user, args in (
            (1, "root", "/sbin/init"),
            (812, "root", "/usr/lib/systemd/systemd-journald"),
            (1420, "root", "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups"),
            (1533, "root", "/usr/bin/nvidia-persistenced --user nvidia-persistenced"),
        ):
            port = 22 if pid == 1420 else None
            self.add_process(
                SimProcess(
                    pid,
                    pid,
                    0 if pid == 1 else 1,
                    user,
                    args,
                    -s.host.uptime_s,
                    "system",
                    port=port,
                    listen_from=-s.host.uptime_s,
                )
            )

    def _operator_workloads(self) -> None:
        """A process on each `owner: operator` GPU that no scenario process already holds."""
        s = self.scenario
        held = {g for p in s.processes for g in p.gpu_memory_mib}
        for index, dev in enumerate(s.visible_devices()):
            if dev.owner != "operator" or index in held:
                continue
            job = dev.workload if dev.workload is not None else OperatorWorkload()
            mib = job.memory_mib if job.memory_mib is not None else int(s.gpus.memory_mib * 0.6)
            pid = 61000 + index
            self.add_process(
                SimProcess(
                    pid=pid,
                    pgid=pid,
                    ppid=1,
                    user=job.user or s.host.user,
                    args=job.args,
                    start=-7200.0,
                    owner="foreign",
                    gpu_memory_mib={index: mib},
                    gpu_busy=job.busy,
                )
            )

    def _add_model_files(self, model: ModelSpec) -> None:
        """config.json, tokenizer files, the safetensors index and sparse shards of real size."""
        t0 = -self.scenario.host.uptime_s
        path = model.path.rstrip("/")
        config = modelfs.config_json(model, modelfs.shape(model))
        self.add_file(f"{path}/config.json", json.dumps(config, indent=2).encode() + b"\n", mtime=t0)
        self.add_file(f"{path}/tokenizer.json", b"{}\n", mtime=t0)
        self.add_file(f"{path}/tokenizer_config.json", b"{}\n", mtime=t0)
        self.add_file(f"{path}/generation_config.json", b"{}\n", mtime=t0)
        self.add_dynamic(f"{path}/model.safetensors.index.json", modelfs.LazyIndex(model, t0)).mtime = t0
        sizes = modelfs.shard_sizes(modelfs.weight_bytes(model), model.shards)
        for i, (name, size) in enumerate(zip(modelfs.shard_names(model.shards), sizes, strict=True), 1):
            entry = self.add_dynamic(f"{path}/{name}", modelfs.LazyShardHead(model, i, size, t0))
            entry.mtime = t0
            # A truncated shard (an interrupted copy): the index still counts its full size.
            entry.size = int(size * model.truncated_shards[i]) if i in model.truncated_shards else size


def _os_release(pretty: str) -> str:
    """/etc/os-release for the scenario's distribution (the name the first word of `host.os` gives)."""
    low = pretty.lower()
    known = [
        ("ubuntu", "Ubuntu", "ubuntu", ""),
        ("debian", "Debian GNU/Linux", "debian", ""),
        ("rocky", "Rocky Linux", "rocky", 'ID_LIKE="rhel centos fedora"\n'),
        ("alma", "AlmaLinux", "almalinux", 'ID_LIKE="rhel centos fedora"\n'),
        ("red hat", "Red Hat Enterprise Linux", "rhel", 'ID_LIKE="fedora"\n'),
    ]
    name, ident, like = next(((n, i, x) for key, n, i, x in known if key in low), ("Ubuntu", "ubuntu", ""))
    return f'PRETTY_NAME="{pretty}"\nNAME="{name}"\nID={ident}\n{like}'
