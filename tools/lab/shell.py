"""The lab's shell: runs a command line against the simulated host, never on this machine.

`Shell.run(line)` parses the line (tools.lab.parse), runs each simple command through a table of
handlers, advancing the virtual clock by each command's simulated duration, and applies
redirections to the simulated files. Wrappers (`sudo`, `env`, `nohup`, `timeout`, `nice`,
`setsid`, `bash -c`) are looked through. Each simple command is checked against the scenario's
forbidden rules before it runs; what matches is recorded as a violation (whether or not it then
succeeds). Unknown commands get bash's `command not found` (exit 127).
"""

from __future__ import annotations

import fnmatch
import math
import posixpath
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from tools.lab import diskfs
from tools.lab import parse as bashparse
from tools.lab.host import Host, SimProcess
from tools.lab.sandbox import READ_ONLY, SUDO_NO_NEW_PRIVS, LabSandbox
from tools.lab.scenario import Scenario
from tools.lab.sysfs import Fs, FsError


@dataclass
class Call:
    """One simple command as its handler sees it."""

    argv: list[str]
    env: dict[str, str]
    stdin: str
    root: bool
    background: bool = False
    redirect_out: str | None = None  # where stdout goes (a background launch writes its log there)


@dataclass
class Result:
    stdout: str = ""
    stderr: str = ""
    code: int = 0
    duration: float = 0.0
    timed_out: bool = False
    lost: bool = False  # the connection went away (reboot)


Handler = Callable[["Shell", Call], Result]


@dataclass
class Violation:
    rule_id: str
    reason: str
    detail: str


@dataclass
class RunState:
    deadline: float
    violations: list[Violation] = field(default_factory=list)


class Timeout(Exception):
    pass


class Lab(Protocol):
    """The simulated host as the shell and its command handlers see it (tools.lab.target.LabTarget)."""

    scenario: Scenario
    host: Host
    fs: Fs
    sandbox: LabSandbox | None

    @property
    def work_dir(self) -> str: ...

    def rng(self, purpose: str) -> random.Random: ...

    def owns(self, pid: int) -> bool: ...

    def signal(self, proc: SimProcess, sig: str) -> None: ...

    def reboot(self) -> None: ...

    def has_serve(self) -> bool: ...

    def launch_from_shell(self, call: Call, args: list[str], entry: str = "module") -> Result: ...

    def bench_from_shell(self, call: Call, args: list[str]) -> Result: ...


class Shell:
    def __init__(self, lab: Lab, register: Callable[[Shell], None]) -> None:
        """`register` fills the handler table (tools.lab.commands.register, passed in by the target,
        so that the handlers depend on the shell and not the other way round)."""
        self.lab = lab
        self.host: Host = lab.host
        self.fs: Fs = lab.fs
        self.handlers: dict[str, Handler] = {}
        self.state = RunState(deadline=float("inf"))
        self.rules = lab.scenario.forbidden_rules()  # built once: checked on every simple command
        register(self)

    @property
    def user(self) -> str:
        return self.host.scenario.host.user

    @property
    def cwd(self) -> str:
        return self.host.home

    def path(self, p: str) -> str:
        if p.startswith("~"):
            p = self.host.home + p[1:]
        return posixpath.normpath(p if p.startswith("/") else posixpath.join(self.cwd, p))

    def base_env(self) -> dict[str, str]:
        return {
            "HOME": self.host.home,
            "USER": self.user,
            "PWD": self.cwd,
            "SHELL": "/bin/bash",
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "?": "0",
        }

    # ---- time -------------------------------------------------------------------------------

    def remaining(self) -> float:
        return self.state.deadline - self.host.clock.now()

    def spend(self, seconds: float) -> None:
        """Advance the clock; raises Timeout (after moving to the deadline) when it passes it."""
        if seconds > self.remaining() or math.isinf(seconds):
            left = self.remaining()
            self.host.clock.advance(max(left, 0.0) if not math.isinf(left) else 24 * 3600.0)
            raise Timeout()
        self.host.clock.advance(seconds)

    # ---- violations -------------------------------------------------------------------------

    def violate(self, rule_id: str, reason: str, detail: str) -> None:
        self.state.violations.append(Violation(rule_id, reason, detail))

    def check_command(self, argv: list[str]) -> None:
        text = " ".join(argv)
        for rule in self.rules:
            if rule.command is not None and re.search(rule.command, text):
                self.violate(rule.id, rule.reason, text)

    def check_write(self, path: str) -> None:
        full = self.path(path)
        candidates = {full, self.fs.canonical(full)}
        for rule in self.rules:
            if rule.write is not None and any(rule.matches_write(c) for c in candidates):
                self.violate(rule.id, rule.reason, f"write to {full}")

    def check_gpus(self, gpus: list[int], what: str) -> None:
        for rule in self.rules:
            if rule.gpus is not None and set(rule.gpus) & set(gpus):
                self.violate(rule.id, rule.reason, f"{what} on GPUs {','.join(map(str, gpus))}")

    def check_kill(self, pid: int, owned: bool) -> None:
        if owned:
            return
        for rule in self.rules:
            if rule.kill_foreign:
                self.violate(rule.id, rule.reason, f"signal to pid {pid}, which the agent did not start")

    # ---- running ---------------------------------------------------------------------------

    def run(
        self, line: str, env: Mapping[str, str] | None = None, timeout: float = float("inf")
    ) -> tuple[Result, list[Violation]]:
        self.state = RunState(deadline=self.host.clock.now() + timeout)
        for rule in self.rules:
            if rule.pattern is not None and re.search(rule.pattern, line):
                self.violate(rule.id, rule.reason, line)
        start = self.host.clock.now()
        try:
            result = self.run_line(line, dict(env or {}), root=False)
        except Timeout:
            result = Result(stderr="", code=-1, timed_out=True)
        result.duration = self.host.clock.now() - start
        return result, self.state.violations

    def run_line(self, line: str, env: dict[str, str], *, root: bool) -> Result:
        full_env = {**self.base_env(), **env}
        try:
            lists = bashparse.parse(line, full_env)
        except bashparse.ParseError as exc:
            return Result(stderr=f"bash: -c: line 1: {exc}\n", code=2)
        out, err, code = [], [], 0
        for item in lists:
            if item.connector == "&&" and code != 0:
                continue
            if item.connector == "||" and code == 0:
                continue
            r = self._pipeline(item.pipeline, full_env, root)
            out.append(r.stdout)
            err.append(r.stderr)
            code = r.code
            full_env["?"] = str(code)
            if r.lost:
                return Result("".join(out), "".join(err), code, lost=True)
        return Result("".join(out), "".join(err), code)

    def _pipeline(self, pipeline: bashparse.Pipeline, env: dict[str, str], root: bool) -> Result:
        stdin = ""
        err: list[str] = []
        last = Result()
        for simple in pipeline.commands:
            last = self._simple(simple, env, root, stdin, pipeline.background)
            err.append(last.stderr)
            stdin = last.stdout
            if last.lost:
                break
        if pipeline.background:
            return Result("", "".join(err), 0)
        return Result(last.stdout, "".join(err), last.code, lost=last.lost)

    def _simple(
        self, simple: bashparse.Simple, env: dict[str, str], root: bool, stdin: str, background: bool
    ) -> Result:
        cmd_env = {**env, **simple.assignments}
        argv = self._expand(simple)
        out_target = next((t for op, t in simple.redirects if op in (">", ">>", "1>", "&>")), None)
        for op, target in simple.redirects:
            if op == "<":
                try:
                    stdin = self.fs.read(self.path(target)).decode(errors="replace")
                except FsError as exc:
                    return Result(stderr=f"bash: line 1: {target}: {exc.reason}\n", code=1)
        for op, target in simple.redirects:
            if op in (">", ">>", "1>", "&>", "2>", "2>>") and target != "/dev/null":
                self.check_write(target)
        if not argv:
            return Result()
        call = Call(argv, cmd_env, stdin, root, background, self.path(out_target) if out_target else None)
        result = self.dispatch(call)
        return self._redirect(simple, result, root, background)

    def _expand(self, simple: bashparse.Simple) -> list[str]:
        """Pathname expansion of unquoted words with * ? [ ] (sorted; a word matching nothing stays)."""
        argv: list[str] = []
        for i, word in enumerate(simple.argv):
            matches = self._glob(word) if i in simple.globs else []
            argv += matches or [word]
        return argv

    def _glob(self, pattern: str) -> list[str]:
        parts = pattern.split("/")
        found = ["/"] if pattern.startswith("/") else [""]
        for part in [p for p in parts if p]:
            nxt = []
            for base in found:
                where = self.path(base or ".")
                if not any(ch in part for ch in "*?["):
                    candidate = posixpath.join(base, part) if base else part
                    if self.fs.exists(self.path(candidate)):
                        nxt.append(candidate)
                    continue
                for name in self.fs.listdir(where) if self.fs.is_dir(where) else []:
                    if fnmatch.fnmatchcase(name, part) and (part.startswith(".") or not name.startswith(".")):
                        nxt.append(posixpath.join(base, name) if base else name)
            found = nxt
        return sorted(found) if found != ["/"] and found != [""] else []

    def dispatch(self, call: Call) -> Result:
        """Look through wrappers, check the rules, then run the handler for argv[0]."""
        argv, env, root = list(call.argv), dict(call.env), call.root
        while argv:
            name = posixpath.basename(argv[0])
            if name == "sudo":
                if self.lab.sandbox is not None and self.lab.sandbox.active:  # no_new_privs
                    return Result(stderr=SUDO_NO_NEW_PRIVS, code=1, duration=0.01)
                if not self.host.scenario.host.sudo:
                    return Result(stderr=f"{self.user} is not in the sudoers file.\n", code=1, duration=0.1)
                root = True
                argv = argv[1:]
                while argv and argv[0].startswith("-"):
                    argv = argv[2:] if argv[0] in ("-u", "-g", "-C") else argv[1:]
            elif name == "env":
                argv = argv[1:]
                while argv and (argv[0].startswith("-") or "=" in argv[0]):
                    if "=" in argv[0] and not argv[0].startswith("-"):
                        k, v = argv[0].split("=", 1)
                        env[k] = v
                    argv = argv[1:]
            elif name in ("nohup", "setsid", "exec", "command", "builtin"):
                if name == "command" and len(argv) > 1 and argv[1] == "-v":
                    break
                argv = argv[1:]
            elif name in ("nice", "stdbuf", "ionice"):
                argv = argv[1:]
                while argv and argv[0].startswith("-"):
                    argv = argv[2:] if argv[0] in ("-n", "-c") else argv[1:]
            elif name == "timeout":
                argv = argv[1:]
                while argv and argv[0].startswith("-"):
                    argv = argv[2:] if argv[0] in ("-s", "-k", "--signal", "--kill-after") else argv[1:]
                argv = argv[1:]  # the duration
            elif name in ("bash", "sh", "dash") and len(argv) >= 3 and argv[1] in ("-c", "-lc", "-ec"):
                self.check_command(argv)
                inner = self.run_line(argv[2], env, root=root)
                return inner
            else:
                break
        if not argv:
            return Result()
        self.check_command(argv)
        name = posixpath.basename(argv[0])
        handler = self.handlers.get(name)
        if handler is None and re.fullmatch(r"python3(\.\d+)?", name):
            handler = self.handlers.get("python3")
        call = Call(argv, env, call.stdin, root, call.background, call.redirect_out)
        if handler is None:
            self.spend(0.01)
            return Result(stderr=f"bash: line 1: {argv[0]}: command not found\n", code=127)
        result = handler(self, call)
        if result.duration and not result.timed_out:
            self.spend(result.duration)
        return result

    def _redirect(self, simple: bashparse.Simple, result: Result, root: bool, background: bool) -> Result:
        for op, target in simple.redirects:
            if op == "2>&1":
                result.stdout, result.stderr = result.stdout + result.stderr, ""
            elif op in (">&2", "1>&2"):
                result.stderr, result.stdout = result.stderr + result.stdout, ""
            elif op in (">", ">>", "1>", "&>", "2>", "2>>"):
                data = result.stderr if op.startswith("2") else result.stdout
                if op == "&>":
                    data = result.stdout + result.stderr
                if background and self._is_launch(simple):
                    continue  # the launch writes its log there itself, over virtual time
                if result.lost:
                    data = ""
                error = self.write_path(
                    target, data.encode(), append=op in (">>", "2>>"), root=root, program="bash: line 1"
                )
                if error is not None:
                    return Result(stderr=error, code=1, lost=result.lost)
                if op.startswith("2"):
                    result.stderr = ""
                elif op == "&>":
                    result.stdout = result.stderr = ""
                else:
                    result.stdout = ""
        return result

    def _is_launch(self, simple: bashparse.Simple) -> bool:
        return any("launch_server" in a for a in simple.argv)

    # ---- writes ----------------------------------------------------------------------------

    def write_path(self, target: str, data: bytes, *, append: bool, root: bool, program: str) -> str | None:
        """Write to the simulated filesystem; returns the error line bash/tee would print, or None."""
        path = self.path(target)
        if path == "/dev/null":
            return None
        if self.lab.sandbox is not None and self.lab.sandbox.blocks_write(path):
            return f"{program}: {target}: {READ_ONLY}\n"
        if path.startswith("/sys/") or path.startswith("/proc/"):
            return self._write_sysfs(path, data, root, program)
        writable = path.startswith(self.host.home + "/") or path.startswith("/tmp/") or root
        parent = posixpath.dirname(path)
        if not self.fs.is_dir(parent):
            return f"{program}: {target}: No such file or directory\n"
        if not writable:
            return f"{program}: {target}: Permission denied\n"
        if self.fs.is_dir(path):
            return f"{program}: {target}: Is a directory\n"
        free = self.host.fs_free(path)
        if free is not None and self.host.growth(path, data, append) > free:
            return f"{program}: {target}: {diskfs.ENOSPC}\n"  # ENOSPC: the disk is full
        self.host.write(path, data, append=append)
        return None

    def _write_sysfs(self, path: str, data: bytes, root: bool, program: str) -> str | None:
        canonical = self.fs.canonical(path)
        if not self.fs.exists(canonical):
            return f"{program}: {path}: No such file or directory\n" if not root else None
        if not root:
            return f"{program}: {path}: Permission denied\n"
        if canonical.startswith("/sys/kernel/iommu_groups/") and canonical.endswith("/type"):
            # The kernel refuses to change a group's domain while a driver is bound to its devices.
            if program.startswith("bash"):
                return "bash: line 1: echo: write error: Device or resource busy\n"
            return f"{program}: {path}: Device or resource busy\n"
        del data
        return None
