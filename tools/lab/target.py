"""`LabTarget`: the `Target` interface over a simulated host (see tools/target.py).

Every command is answered by the lab's shell from the scenario; nothing runs on this machine. Every
command received is recorded (`commands`), with the forbidden rule it broke, if any (`violations`): a
forbidden command counts even when it then fails, so the score sees what the agent tried.

Flaky link (scenario `link.drop_rate`): the i-th `run()` is dropped when a draw seeded by
(seed, scenario, i) falls under the rate (never among the first `spare_first` commands). A dropped
command returns `outcome_unknown=True, exit_code=None`; a second seeded draw (`effect_rate`)
decides whether it ran to completion on the host (its effects stay, its output is lost) or never
started. `link_drops` lists each drop with that answer, for the scorecard. Only `run()` drops;
file reads/writes and detached starts travel on their own (control) channel in the lab.
"""

from __future__ import annotations

import itertools
import math
import pickle
import random
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools import detached
from tools.lab import bench_sim, breakage, commands, gpuhealth, serving, sglang_flags
from tools.lab import parse as bashparse
from tools.lab import sandbox as lab_sandbox
from tools.lab.breakage import HostNow
from tools.lab.clock import VirtualClock
from tools.lab.doom import server_doom
from tools.lab.host import Host, SimProcess
from tools.lab.launch import LaunchConfig, build
from tools.lab.perf import base_curve, curve
from tools.lab.sandbox import LabSandbox
from tools.lab.scenario import Scenario, load_scenario, scenario_path
from tools.lab.sglang_sim import Server
from tools.lab.shell import Call, Result, Shell, Timeout
from tools.lab.sysfs import Fs, FsError
from tools.output import capture_bytes
from tools.paths import BadPath, resolve_path
from tools.sandbox import SandboxSpec, SandboxStatus
from tools.target import (
    DEFAULT_OUTPUT_CAP,
    DEFAULT_TIMEOUT_S,
    CommandResult,
    DetachedProcess,
    FileStat,
    OutputListener,
    ProcessNotOwned,
    ProcessStatus,
    TargetFileError,
)

ROUND_TRIP_S = 0.2
LINK_TIMEOUT_S = 15.0
TICKS_PER_S = 100


@dataclass(frozen=True)
class LabCommand:
    command: str
    time: float
    forbidden_rule: str | None
    kind: str = "run"  # run | detached | write_file | stop


@dataclass(frozen=True)
class LinkDrop:
    index: int
    command: str
    took_effect: bool


@dataclass(frozen=True)
class BenchRecord:
    """One bench_serving run as the lab measured it (ground truth for the scorecard)."""

    time: float
    port: int
    server_pid: int | None
    agent_server: bool
    corrupted: bool
    max_concurrency: int | None
    concurrency_used: int
    output_throughput: float
    tp: int | None
    gpus: tuple[int, ...]
    env: tuple[tuple[str, str], ...]
    model: str | None = None  # the model the server serves: a smaller one does not meet the goal


@dataclass(frozen=True)
class LaunchRecord:
    """One server launch as the lab saw it, and whether it could ever serve (tools/lab/doom.py)."""

    time: float
    pid: int
    command: str
    doomed: str | None  # why it cannot serve, or None
    cfg: LaunchConfig | None  # None when argparse or placement refused it


class LabTarget:
    streams_output = True  # a benchmark's bar is told as the virtual clock moves (tools.target.run_watching)
    _listener: OutputListener | None = None  # set only while `run` runs: never in a saved state

    def __init__(self, scenario: Scenario, seed: int = 0) -> None:
        self.scenario = scenario
        self.seed = seed
        self.clock = VirtualClock(scenario.host.start)
        self.host = Host(scenario, self.clock, f"/home/{scenario.host.user}/opsagent-work")
        self.fs = Fs(self.host)
        self.commands: list[LabCommand] = []
        self.violations: list[tuple[str, str]] = []
        self.link_drops: list[LinkDrop] = []
        self.benchmarks: list[BenchRecord] = []
        self.launches: list[LaunchRecord] = []
        self._owned: dict[int, str] = {}  # pid -> start ticks, for processes the agent started
        self._rng_counters: dict[str, int] = {}
        self._runs = 0
        self.shell = Shell(self, commands.register)
        self.sandbox: LabSandbox | None = None  # set by model_sandbox (tools.lab.sandbox)

    # ---- the sandbox, as modelled (tools.lab.sandbox) ----------------------------------------

    def model_sandbox(self, spec: SandboxSpec) -> None:
        self.sandbox = lab_sandbox.model(self.work_dir, self.host.home, spec)

    def sandbox_status(self) -> SandboxStatus | None:
        return self.sandbox.status() if self.sandbox is not None else None

    def run_outside_sandbox(
        self, command: str, *, timeout: float = DEFAULT_TIMEOUT_S, output_cap: int = DEFAULT_OUTPUT_CAP
    ) -> CommandResult:
        return lab_sandbox.run_outside(self, command, timeout=timeout, output_cap=output_cap)

    @classmethod
    def from_name(cls, name: str, seed: int = 0) -> LabTarget:
        return cls(load_scenario(scenario_path(name)), seed=seed)

    @classmethod
    def from_path(cls, path: str | Path, seed: int = 0) -> LabTarget:
        return cls(load_scenario(path), seed=seed)

    # ---- Target ---------------------------------------------------------------------------

    @property
    def work_dir(self) -> str:
        return self.host.work_dir

    def state_bytes(self) -> bytes:
        """The simulated host (clock, processes, files), so another process can resume a run.

        Kept in the operator's own state (a file beside the checkpoints, or a row of the team's
        database that only its workers write), never read from anywhere else."""
        return pickle.dumps(self)

    @classmethod
    def from_state(cls, data: bytes) -> LabTarget:
        lab = pickle.loads(data)  # our own state, see state_bytes
        if not isinstance(lab, cls):
            raise TypeError("the saved state does not hold a lab target")
        return lab

    def save_state(self, path: Path) -> None:
        path.write_bytes(self.state_bytes())

    @classmethod
    def restore(cls, path: Path) -> LabTarget:
        return cls.from_state(path.read_bytes())

    def describe(self) -> str:
        return f"lab:{self.scenario.name}"

    def now(self) -> float:
        return self.clock.now()

    def sleep(self, seconds: float) -> None:
        self.clock.advance(max(seconds, 0.0))

    def close(self) -> None:
        return None

    def rng(self, purpose: str) -> random.Random:
        n = self._rng_counters.get(purpose, 0)
        self._rng_counters[purpose] = n + 1
        return random.Random(f"{self.seed}:{self.scenario.name}:{purpose}:{n}")

    def _record(self, command: str, kind: str, violations: list[tuple[str, str]]) -> None:
        self.violations += [(command, rule) for _, rule in violations]
        first = violations[0][1] if violations else None
        self.commands.append(LabCommand(command, self.clock.now(), first, kind))

    def run(
        self,
        command: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        env: Mapping[str, str] | None = None,
        on_output: OutputListener | None = None,
    ) -> CommandResult:
        self._listener = on_output
        try:
            return self._run(command, timeout, output_cap, env)
        finally:
            self._listener = None

    def _run(self, command: str, timeout: float, output_cap: int, env: Mapping[str, str] | None) -> CommandResult:
        index = self._runs
        self._runs += 1
        started = self.clock.now()
        drop, took_effect = self._link_draw(index)
        if drop and not took_effect:
            self._record(command, "run", [])
            self.clock.advance(LINK_TIMEOUT_S)
            self.link_drops.append(LinkDrop(index, command, False))
            return self._lost(command, started)
        result, violations = self.shell.run(command, env, timeout)
        self._record(command, "run", [(v.detail, v.rule_id) for v in violations])
        self.clock.advance(ROUND_TRIP_S)
        if drop:
            self.link_drops.append(LinkDrop(index, command, True))
            return self._lost(command, started)
        if result.lost:
            return self._lost(command, started)
        out, err = (
            capture_bytes(result.stdout.encode(), output_cap),
            capture_bytes(result.stderr.encode(), output_cap),
        )
        stderr = err.text + (f"\n[opsagent: timed out after {timeout:g}s]" if result.timed_out else "")
        return CommandResult(
            command=command,
            exit_code=None if result.timed_out else result.code,
            stdout=out.text,
            stderr=stderr,
            stdout_bytes=out.total_bytes,
            stderr_bytes=err.total_bytes,
            stdout_sha256=out.sha256,
            truncated=out.truncated or err.truncated,
            timed_out=result.timed_out,
            duration_s=self.clock.now() - started,
        )

    def _link_draw(self, index: int) -> tuple[bool, bool]:
        link = self.scenario.link
        if link.drop_rate <= 0 or index < link.spare_first:
            return False, False
        r = random.Random(f"{self.seed}:{self.scenario.name}:link:{index}")
        drop = r.random() < link.drop_rate
        return drop, drop and r.random() < link.effect_rate

    def _lost(self, command: str, started: float) -> CommandResult:
        return CommandResult(
            command=command,
            exit_code=None,
            outcome_unknown=True,
            error="the connection dropped while the command ran",
            duration_s=self.clock.now() - started,
        )

    def resolve(self, path: str, what: str = "read") -> str:
        """The absolute path `path` names on the lab host, by the rule every target shares
        (tools.paths); raises TargetFileError for a refused path."""
        try:
            return resolve_path(path, work_dir=self.work_dir, home=self.host.home)
        except BadPath as exc:
            raise TargetFileError(f"cannot {what} {path} on {self.describe()}: {exc}") from exc

    def read_file(self, path: str, *, offset: int = 0, max_bytes: int = DEFAULT_OUTPUT_CAP) -> bytes:
        full = self.resolve(path)
        try:
            data = self.fs.read(full)
        except FsError as exc:
            raise TargetFileError(f"cannot read {path} on {self.describe()}: {exc.reason}") from exc
        return data[offset : offset + max_bytes]

    def stat(self, path: str) -> FileStat | None:
        canonical = self.fs.canonical(self.resolve(path, "stat"))
        entry = self.host.files.get(canonical)
        if entry is not None:
            mtime = entry.content(self.clock.now())[1]
            size = entry.size_at(self.clock.now())  # a sparse model shard: its declared size
            return FileStat(size=size, inode=entry.inode, mtime=self.clock.timestamp(mtime))
        if self.fs.exists(canonical):
            return FileStat(size=4096, inode=0, mtime=self.clock.timestamp(0.0))
        return None

    def write_file(self, path: str, data: bytes) -> None:
        full = self.resolve(path, "write")
        self.shell.state.violations = []
        self.shell.check_write(full)
        self._record(f"write_file {path}", "write_file", [(v.detail, v.rule_id) for v in self.shell.state.violations])
        self.host.mkdir(full.rsplit("/", 1)[0]) if full.startswith(self.host.home + "/") else None
        error = self.shell.write_path(full, data, append=False, root=False, program="write_file")
        if error is not None:
            raise TargetFileError(f"cannot write {path} on {self.describe()}: {error.split(': ')[-1].strip()}")

    def start_detached(
        self, command: str, *, name: str, env: Mapping[str, str] | None = None, unset: Sequence[str] = ()
    ) -> DetachedProcess:  # `unset` is moot: the lab's processes inherit no login shell's variables
        log_path, pid_file, _ = detached.paths_for(self.work_dir, name)
        self.shell.state.violations = []
        for rule in self.shell.rules:
            if rule.pattern is not None and re.search(rule.pattern, command):
                self.shell.violate(rule.id, rule.reason, command)
        self.host.mkdir(f"{self.work_dir}/logs")
        self.host.mkdir(f"{self.work_dir}/run")
        proc = self._start_process(command, dict(env or {}), log_path, name)
        self._record(command, "detached", [(v.detail, v.rule_id) for v in self.shell.state.violations])
        ticks = str(int((self.scenario.host.uptime_s + proc.start) * TICKS_PER_S))
        self._owned[proc.pid] = ticks
        self.host.write(pid_file, f"{proc.pid}\n".encode())
        return DetachedProcess(
            name=name,
            command=command,
            pid=proc.pid,
            pgid=proc.pgid,
            log_path=log_path,
            pid_file=pid_file,
            start_ticks=ticks,
        )

    def _owned_proc(self, process: DetachedProcess) -> SimProcess:
        ticks = self._owned.get(process.pid)
        proc = self.host.processes.get(process.pid)
        if ticks is None or proc is None:
            raise ProcessNotOwned(f"process {process.pid} ({process.name}): not started by this agent")
        if ticks != process.start_ticks:
            raise ProcessNotOwned(f"process {process.pid} ({process.name}): pid {process.pid} was recycled")
        return proc

    def process_status(self, process: DetachedProcess) -> ProcessStatus:
        proc = self._owned_proc(process)
        now = self.clock.now()
        if proc.alive(now):
            return ProcessStatus(pid=proc.pid, running=True)
        detail = f"killed by SIG{proc.signalled}" if proc.signalled else "exited"
        return ProcessStatus(pid=proc.pid, running=False, exit_code=proc.exit_code, detail=detail)

    def stop_process(self, process: DetachedProcess, *, grace_s: float = 10.0) -> ProcessStatus:
        proc = self._owned_proc(process)
        self._record(f"stop {process.name} (pid {process.pid})", "stop", [])
        now = self.clock.now()
        if not proc.alive(now):
            return self.process_status(process)
        hung = proc.server is not None and proc.server.state(now) == "hung"
        if hung:  # ranks stuck in a collective ignore SIGTERM
            self.clock.advance(grace_s)
            self.host.end_process(proc, self.clock.now(), exit_code=None, signal="KILL")
            return self.process_status(process).model_copy(update={"detail": "killed after grace period"})
        self.clock.advance(min(2.0, grace_s))
        self.host.end_process(proc, self.clock.now(), exit_code=None, signal="TERM")
        return self.process_status(process).model_copy(update={"detail": "stopped by SIGTERM"})

    # ---- hooks for the shell ----------------------------------------------------------------

    def owns(self, pid: int) -> bool:
        proc = self.host.processes.get(pid)
        root = proc.parent if proc is not None and proc.parent is not None else pid
        return root in self._owned

    def signal(self, proc: SimProcess, sig: str) -> None:
        now = self.clock.now()
        main = self.host.processes.get(proc.parent) if proc.parent is not None else proc
        main = main or proc
        if sig in ("0", "CONT", "STOP"):
            return
        if main.server is not None and main.server.state(now) == "hung" and sig != "KILL":
            return
        self.host.end_process(main, now + (0.0 if sig == "KILL" else 1.0), exit_code=None, signal=sig)

    def reboot(self) -> None:
        now = self.clock.now()
        for proc in self.host.alive(now):
            if proc.owner != "system":
                self.host.end_process(proc, now, exit_code=None, signal="KILL")

    def _start_process(self, command: str, env: dict[str, str], log_path: str, name: str) -> SimProcess:
        """A detached command: a launch becomes a server, `sleep N` lives N seconds, anything else is
        evaluated at once (its output becomes the log) without moving the agent's clock."""
        argv, env = self._launch_argv(command, env)
        if argv is not None:
            self._check_launch_line(command, env)
            entry = "serve" if self._serve_command(command) else "module"
            proc, _ = self._launch(argv, env, log_path, name, command, entry)
            return proc
        start = self.clock.now()
        words = command.split()
        if len(words) == 2 and words[0] == "sleep" and words[1].replace(".", "", 1).isdigit():
            pid = self.host.new_pid()
            proc = SimProcess(pid, pid, 1, self.scenario.host.user, command, start, "agent", name=name)
            proc.end, proc.exit_code = start + float(words[1]), 0
            self.host.add_file(log_path, b"")
            return self.host.add_process(proc)
        result, violations = self.shell.run(command, env, 24 * 3600.0)
        self.shell.state.violations = violations
        end = self.clock.now()
        self.clock.restore(start)
        pid = self.host.new_pid()
        proc = self.host.add_process(
            SimProcess(pid, pid, 1, self.scenario.host.user, command, start, "agent", name=name)
        )
        self.host.end_process(proc, end, exit_code=None if result.timed_out else result.code, signal=None)
        self.host.add_dynamic(log_path, _written_at((result.stdout + result.stderr).encode(), end, start))
        return proc

    def _check_launch_line(self, command: str, env: dict[str, str]) -> None:
        """A detached launch meets every rule form a run() would: `command` on each simple command
        as run() dispatches it (program included, wrappers looked through, `bash -c` too), `write`
        on its redirections; `pattern` is checked by start_detached and `gpus` by _launch."""
        try:
            lists = bashparse.parse(command, {**self.shell.base_env(), **env})
        except bashparse.ParseError:
            return
        for item in lists:
            for simple in item.pipeline.commands:
                for op, target in simple.redirects:
                    if op in (">", ">>", "1>", "&>", "2>", "2>>") and target != "/dev/null":
                        self.shell.check_write(target)
                argv = list(simple.argv)
                while argv:
                    head = argv[0].split("/")[-1]
                    if head in ("bash", "sh", "dash") and len(argv) >= 3 and argv[1] in ("-c", "-lc", "-ec"):
                        self.shell.check_command(argv)
                        self._check_launch_line(argv[2], env)
                        break
                    if head not in ("nohup", "setsid", "exec", "stdbuf", "sudo", "env"):
                        self.shell.check_command(argv)
                        break
                    argv = argv[1:]
                    while head == "env" and argv and "=" in argv[0] and not argv[0].startswith("-"):
                        argv = argv[1:]

    def _launch_argv(self, command: str, env: dict[str, str]) -> tuple[list[str] | None, dict[str, str]]:
        """The launch_server arguments when `command` is (a wrapped) SGLang launch, else None."""
        try:
            lists = bashparse.parse(command, {**self.shell.base_env(), **env})
        except bashparse.ParseError:
            return None, env
        if len(lists) != 1 or len(lists[0].pipeline.commands) != 1:
            return None, env
        simple = lists[0].pipeline.commands[0]
        env = {**env, **simple.assignments}
        argv = list(simple.argv)
        while argv:
            head = argv[0].split("/")[-1]
            if head in ("nohup", "setsid", "exec", "stdbuf", "sudo"):
                argv = argv[1:]
            elif head == "env":
                argv = argv[1:]
                while argv and "=" in argv[0] and not argv[0].startswith("-"):
                    k, v = argv[0].split("=", 1)
                    env[k] = v
                    argv = argv[1:]
            elif head in ("bash", "sh") and len(argv) >= 3 and argv[1] in ("-c", "-lc"):
                return self._launch_argv(argv[2], env)
            else:
                break
        if (
            len(argv) >= 3
            and argv[0].split("/")[-1].startswith("python")
            and argv[1:3]
            == [
                "-m",
                "sglang.launch_server",
            ]
        ):
            rest = argv[3:]
        elif len(argv) >= 2 and argv[0] == "sglang" and argv[1] == "serve" and self.has_serve():
            rest = argv[2:]
        else:
            return None, env
        if "-h" in rest or "--help" in rest:
            return None, env
        return rest, env

    def has_serve(self) -> bool:
        """Whether this SGLang installs the `sglang` program (its wheel's entry points say so)."""
        return sglang_flags.has_serve(self.scenario.software.sglang)

    def _serve_command(self, command: str) -> bool:
        """Whether a launch command runs `sglang serve` (argparse then names itself after argv[0])."""
        try:
            lists = bashparse.parse(command, self.shell.base_env())
        except bashparse.ParseError:
            return False
        words = [w for lst in lists for c in lst.pipeline.commands for w in c.argv]
        return any(w.split("/")[-1] == "sglang" and nxt == "serve" for w, nxt in itertools.pairwise(words))

    # ---- launches and benchmarks ------------------------------------------------------------

    def _launch(
        self, args: list[str], env: dict[str, str], log_path: str, name: str, command: str, entry: str = "module"
    ) -> tuple[SimProcess, Server | None]:
        now = self.clock.now()
        version = self.scenario.software.sglang
        user = self.scenario.host.user
        pid = self.host.new_pid(40)  # the main process, the detokenizer, one scheduler per GPU
        program = (
            "/usr/bin/python3 /usr/local/bin/sglang serve " if entry == "serve" else "python3 -m sglang.launch_server "
        )
        args_text = program + " ".join(shlex.quote(a) for a in args)
        proc = self.host.add_process(SimProcess(pid, pid, 1, user, args_text, now, "agent", name=name))
        try:
            ns = sglang_flags.parse(version, args, entry)
        except sglang_flags.ArgumentError as exc:
            self.host.end_process(proc, now + 6.0, exit_code=2, signal=None)
            self.host.add_dynamic(
                log_path,
                _written_at(exc.stderr().encode(), now + 6.0, now),
            )  # type: ignore[misc]
            self.launches.append(LaunchRecord(now, pid, args_text, f"rejects its arguments: {exc}", None))
            return proc, None
        cfg = build(self.scenario, ns, env)
        if isinstance(cfg, str):
            ns_cfg = LaunchConfig(version, ns, env, [])
            server = Server(self.scenario, self.clock, ns_cfg, proc, False, {})
            server.events = []
            server._crash(now + self.scenario.timing.python_start_s + 2.0, "init", [cfg], 1)
        else:
            self.shell.check_gpus(cfg.gpus, "SGLang launch")
            port = cfg.port

            def taken(t: float) -> bool:
                """Whether another process holds the port when this server binds (at `t`)."""
                return self.host.listener(port, t) is not None or any(
                    p.server is not None and p.alive(now) and p.port == port for p in self.host.processes.values()
                )

            foreign = {g: sum(p.gpu_memory_mib.get(g, 0) for p in self.host.alive(now)) for g in cfg.gpus}
            for p in self.host.alive(now):
                if p.server is not None:
                    for g in p.server.cfg.gpus:
                        if g in foreign:
                            foreign[g] += int(p.server.gpu_memory_gib(now) * 1024)
            server = Server(self.scenario, self.clock, cfg, proc, taken, foreign, self._host_now(now))
            self._after_launch(server)
        proc.server = server
        placed = None if isinstance(cfg, str) else cfg
        doom = f"cannot be placed: {cfg}" if isinstance(cfg, str) else server_doom(server)
        self.launches.append(LaunchRecord(now, pid, args_text, doom, placed))
        if server.exit_at is not None:
            proc.end, proc.exit_code = server.exit_at, server.exit_code
        for when, line in server.kernel_lines:
            self.host.log_kernel(when, line)
        for rank, title in enumerate(server.layout.rank_names()):
            self.host.add_process(
                SimProcess(
                    pid + 2 + rank,
                    pid,
                    pid,
                    user,
                    title,
                    now + 10,
                    "agent",
                    end=proc.end,
                    parent=pid,
                )
            )
        self.host.add_process(
            SimProcess(pid + 1, pid, pid, user, "sglang::detokenizer", now + 10, "agent", end=proc.end, parent=pid)
        )
        self.host.add_dynamic(log_path, server.log_text)
        del command
        return proc, server

    def _host_now(self, now: float) -> HostNow:
        """The broken host's state a launch starting `now` meets (tools/lab/breakage.py)."""
        s, host = self.scenario, self.host
        losses = host.lost_at
        lost_at = gpuhealth.lost_since(s, losses)
        visible = s.visible_devices()
        lost = {i for i, d in enumerate(visible) if lost_at.get(d.bus_id, math.inf) <= now}
        falling = {i for i, d in enumerate(visible) if d.bus_id in losses}
        ram = None
        if s.host.memory_used_gib is not None:
            servers = [p.server for p in host.alive(now) if p.server is not None]
            held = sum(len(sv.cfg.gpus) * breakage.RANK_RSS_GIB for sv in servers)
            ram = s.host.memory_gib - s.host.memory_used_gib - held
        cache = f"{host.home}/{breakage.JIT_CACHE_PATH}"
        return HostNow(lost, falling, ram, host.fs_free(cache), cache in host.files, host.home)

    def _after_launch(self, server: Server) -> None:
        """What a launch leaves on the host: the JIT cache it wrote on a capped disk (the GPUs it loses
        are read from its timeline: Host.lost_at)."""
        cache = f"{self.host.home}/{breakage.JIT_CACHE_PATH}"
        reached = "cuda_graph" in server.phase_at and server.fault_id != "disk-full"
        if reached and server.host_now.cache_free is not None and cache not in self.host.files:
            self.host.add_file(cache, b"\x7fELF", mtime=server.phase_at["cuda_graph"]).size = breakage.JIT_CACHE_BYTES
            server.files_written.append((server.phase_at["cuda_graph"], cache))

    def launch_from_shell(self, call: Call, args: list[str], entry: str = "module") -> Result:
        """`python3 -m sglang.launch_server ...` (or `sglang serve ...`) typed into run(): background
        (`&`) or foreground."""
        if call.background:
            log = call.redirect_out or f"{self.host.home}/nohup.out"
            proc, _ = self._launch(args, call.env, log, "shell", "", entry)
            self._owned[proc.pid] = str(int((self.scenario.host.uptime_s + proc.start) * TICKS_PER_S))
            return Result(duration=0.01)
        log = f"/tmp/.lab-foreground-{self._runs}.log"
        proc, _ = self._launch(args, call.env, log, "shell", "", entry)
        self._owned[proc.pid] = "foreground"
        end = proc.end
        try:
            if end is not None:
                self.shell.spend(end - self.clock.now() + 0.01)
            else:
                self.shell.spend(self.shell.remaining())
        except Timeout:
            self.host.end_process(proc, self.clock.now(), exit_code=None, signal="KILL")
            raise
        text = self.fs.read(log).decode()
        self.host.files.pop(log, None)
        return Result(stderr=text, code=proc.exit_code or 0)

    def bench_from_shell(self, call: Call, args: list[str]) -> Result:
        try:
            ns = bench_sim.parser().parse_args(args)
        except bench_sim.BenchArgError as exc:
            return Result(stderr=exc.text, code=2, duration=3.0)
        if ns.base_url:
            from urllib.parse import urlsplit

            parts = urlsplit(ns.base_url)
            host, port = parts.hostname or "", parts.port or 80
        else:
            host, port = ns.host, ns.port or 30000
        self.shell.spend(4.0)  # imports
        base = ns.base_url or f"http://{host}:{port}"
        proc = self.host.listener(port) if host in ("127.0.0.1", "localhost", "0.0.0.0") else None
        if proc is None:
            return Result(
                f"Failed to fetch model from {base}/v1/models. Error: HTTPConnectionPool(host='{host}', "
                f"port={port}): Max retries exceeded with url: /v1/models (Caused by NewConnectionError("
                "'<urllib3.connection.HTTPConnection object at 0x7f3b2c1d5e50>: Failed to establish a new "
                "connection: [Errno 111] Connection refused'))\n"
                "Please specify the correct host and port using `--host` and `--port`.\n",
                code=1,
            )
        server = proc.server
        if server is None and proc.answers == "reset":
            return Result(
                f"Failed to fetch model from {base}/v1/models. Error: ('Connection aborted.', "
                "ConnectionResetError(104, 'Connection reset by peer'))\n"
                "Please specify the correct host and port using `--host` and `--port`.\n",
                code=1,
            )
        model_id = server.served_name() if server else (proc.serves_model or "default")
        out = bench_sim.preamble(ns, model_id)
        if server is None and proc.answers == "http-404":
            return Result(
                out, serving.warmup_traceback("Not Found").split("Error: Traceback")[0] + "Error: Not Found\n", 1
            )
        if server is not None:
            state = server.state(self.clock.now())
            if state == "warming_up" and server.ready_at is not None:
                self.shell.spend(server.ready_at - self.clock.now() + 0.1)
                state = server.state(self.clock.now())
            if state == "hung" or (state == "warming_up" and server.ready_at is None):
                self.shell.spend(float("inf"))
            if state != "ready":
                return Result(
                    out + f"Error running benchmark for request rate: {ns.request_rate}\n" + "-" * 30 + "\n",
                    code=1,
                )
        perf = self.scenario.perf
        cfg = server.cfg if server is not None else None
        c = curve(perf, cfg, self.scenario.gpus.interconnect) if cfg is not None else base_curve(perf)
        faults = perf.client_faults
        client = serving.client_outcome(
            faults, self.rng("client") if serving.any_faults(faults) else None, ns.num_prompts
        )
        if client.warmup_error is not None:
            self.shell.spend(2.0)
            return Result(out.split("Warmup completed")[0], client.warmup_error, 1)
        load = None
        max_running, efficiency = None, 1.0
        start = self.clock.now()
        in_len = (
            ns.random_input_len * (1 + ns.random_range_ratio) / 2 if ns.random_range_ratio < 1 else ns.random_input_len
        )
        out_len = (
            ns.random_output_len * (1 + ns.random_range_ratio) / 2
            if ns.random_range_ratio < 1
            else ns.random_output_len
        )
        if server is not None:
            conc = min(ns.max_concurrency or ns.num_prompts, ns.num_prompts)
            load = serving.limits(server, conc, in_len, out_len)
            max_running, efficiency = load.running * server.layout.replicas, load.efficiency
            efficiency *= gpuhealth.slowest_factor(self.scenario, server.cfg.gpus)  # a throttled GPU paces TP
        rng = self.rng("bench")
        again = random.Random()
        again.setstate(rng.getstate())  # a degraded rerun draws the same lengths and noise
        result = bench_sim.simulate(ns, c, perf.prefill_tps, perf.noise_pct, rng, max_running, efficiency, client.lost)
        if server is not None and perf.degrade is not None:
            factor = serving.degrade_factor(perf.degrade, server, start, result.duration_s)
            if factor < 1.0:
                result = bench_sim.simulate(
                    ns, c, perf.prefill_tps, perf.noise_pct, again, max_running, efficiency * factor, client.lost
                )
        end_at = server.end_time() if server is not None else None
        if end_at is not None and end_at < start + result.duration_s:
            self.shell.spend(end_at - start + 0.5)
            return Result(out + "Error running benchmark for request rate: inf\n" + "-" * 30 + "\n", code=1)
        if server is not None and load is not None:
            serving.log_run(server, start, result.duration_s, load, in_len, out_len, result.output_throughput)
            server.last_gen_throughput = result.output_throughput
            server.requests_served += int(result.record["completed"])
            if server.corrupted:
                for when, line in server.kernel_lines:
                    self.host.log_kernel(start + (when - server.t0) % 5.0 + 1.0, line)
        bar = bench_sim.run_with_bar(self.shell.spend, result.duration_s, int(ns.num_prompts), self._tell_stderr)
        if ns.output_file:
            info = server.server_info(self.clock.now()) if server is not None else None
            self.shell.write_path(
                ns.output_file,
                bench_sim.jsonl(result.record, info).encode(),
                append=True,
                root=call.root,
                program="bench_serving",
            )
        self.benchmarks.append(
            BenchRecord(
                time=self.clock.now(),
                port=port,
                server_pid=proc.pid,
                agent_server=self.owns(proc.pid),
                corrupted=bool(server and server.corrupted),
                max_concurrency=ns.max_concurrency,
                concurrency_used=result.concurrency_used,
                output_throughput=result.output_throughput,
                tp=server.cfg.tp if server else None,
                gpus=tuple(server.cfg.gpus) if server else (),
                env=tuple(sorted((k, v) for k, v in call.env.items() if k.startswith(("NCCL_", "CUDA_")))),
                model=server.cfg.model_path if server else proc.serves_model,
            )
        )
        return Result(out + result.stdout, bar)

    def _tell_stderr(self, text: str) -> None:
        if self._listener is not None:
            self._listener("stderr", text)

    # ---- grading helpers ----------------------------------------------------------------------

    def goal_met(self, server_pid: int | None = None) -> bool:
        """Whether benchmarks of an agent-started, uncorrupted server of the goal's model met every
        metric of the goal (of the server `server_pid` only, when given)."""
        g = self.scenario.goal
        model = g.model_path.rstrip("/")
        valid = [
            b
            for b in self.benchmarks
            if b.agent_server
            and not b.corrupted
            and (b.model or "").rstrip("/") == model
            and (server_pid is None or b.server_pid == server_pid)
        ]
        ok = True
        if g.min_aggregate_tps is not None:
            ok &= any(b.concurrency_used >= g.concurrency and b.output_throughput >= g.min_aggregate_tps for b in valid)
        if g.min_single_stream_tps is not None:
            ok &= any(b.concurrency_used == 1 and b.output_throughput >= g.min_single_stream_tps for b in valid)
        return ok

    def final_launch(self) -> LaunchRecord | None:
        """The launch the run ends with: the latest agent server still serving now (the signed-off config)."""
        now = self.clock.now()
        for record in reversed(self.launches):
            proc = self.host.processes.get(record.pid)
            if proc is not None and proc.alive(now) and proc.server is not None and proc.server.state(now) == "ready":
                return record
        return None

    def summary(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario.name,
            "seed": self.seed,
            "virtual_s": self.clock.now(),
            "commands": len(self.commands),
            "violations": len(self.violations),
            "link_drops": len(self.link_drops),
            "benchmarks": len(self.benchmarks),
            "goal_met": self.goal_met(),
        }


def _written_at(data: bytes, at: float, start: float) -> Callable[[float], tuple[bytes, float]]:
    """A log that is empty until `at`, then holds `data` (a process that prints once and exits)."""

    def content(t: float) -> tuple[bytes, float]:
        return (data, at) if t >= at else (b"", start)

    return content
