"""Detached processes on a shell target, as shell scripts any target that runs bash can execute.

Shared by the local and SSH targets so both start, inspect and stop processes the same way:
`setsid nohup` with a log file, a pid file and an exit-code file in the work directory. A stop
is refused unless the pid file still names the pid and the process start time still matches,
so a recycled pid is never signalled.

On a sandboxed target the launched process runs inside bubblewrap (`sandbox` is its argv
prefix, tools.sandbox): the recorded pid is bubblewrap's, the process group is shared with
everything inside, and the sandbox's PID namespace ends whatever the server started when it
ends. These scripts themselves run on the host: they must see host pids to check and stop.

The work directory is the sandbox's to write, so anything in it may be a link planted from inside
(`logs/NAME.log -> /etc/...`). The host side therefore writes nothing there but the pid file,
created with O_EXCL|O_NOFOLLOW (`dd conv=excl oflag=nofollow`) from inside a directory that
`pwd -P` shows to be really in the work directory, and reads the pid and exit files the same way
(O_NONBLOCK, so a planted FIFO cannot hang it). The log and the exit file are written by the
sandboxed side itself, where a link leads nowhere the sandbox could not write anyway.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from tools.sandbox import launch_ports
from tools.target import CommandResult, DetachedProcess, ProcessNotOwned, ProcessStatus, TargetError

RunFn = Callable[[str], CommandResult]

_SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")

# Field 22 of /proc/PID/stat (start time in clock ticks); the comm field may hold spaces, so cut
# everything up to the last ") " first.
_START_TICKS = "awk '{{sub(/.*\\) /, \"\"); print $20}}' /proc/{pid}/stat 2>/dev/null"


# Shell functions for the host side. $__oa_root is the work directory's physical path. The
# subshell's `cd -P` pins the directory: a rename after the check moves it, never its contents.
SAFE_FILES = r"""
__oa_in_work() { [ -n "$__oa_root" ] && cd -P -- "$1" 2>/dev/null &&
  case "$(pwd -P)/" in "$__oa_root"/?*) ;; *) false;; esac; }
__oa_put() { ( __oa_in_work "$1" || exit 1; rm -f -- "$2" &&
  printf '%s\n' "$3" | dd of="$2" oflag=nofollow conv=excl status=none 2>/dev/null ); }
__oa_get() { ( __oa_in_work "$1" || exit 1
  dd if="$2" iflag=nofollow,nonblock bs=64 count=1 status=none 2>/dev/null ); }
"""


def safe_files(work_dir: str) -> str:
    """SAFE_FILES for `work_dir`, with `__oa_root` set (empty when it does not exist: no match)."""
    q = shlex.quote(work_dir)
    return f"__oa_root=$(cd -P -- {q} 2>/dev/null && pwd -P)\n" + SAFE_FILES


def paths_for(work_dir: str, name: str) -> tuple[str, str, str]:
    if not _SAFE_NAME.match(name):
        raise ValueError(f"process name {name!r} must be 1-64 letters, digits, '.', '_' or '-'")
    return (f"{work_dir}/logs/{name}.log", f"{work_dir}/run/{name}.pid", f"{work_dir}/run/{name}.exit")


def start_script(
    work_dir: str,
    name: str,
    command: str,
    env: Mapping[str, str] | None,
    sandbox: Sequence[str] | None = None,
    unset: Sequence[str] = (),
) -> str:
    log, _, exit_file = paths_for(work_dir, name)
    bad = [k for k in (*(env or {}), *unset) if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k)]
    if bad:  # a name is put into the command line unquoted: `X=1; reboot; Y` must never get there
        raise ValueError(f"environment variable names must be letters, digits and '_': {bad}")
    # `env -u X` first: a variable the login shell exports is gone, and one set here is set after it
    assignments = " ".join([*(f"-u {k}" for k in unset), *(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())])
    # A subshell, so that an `exit N` in the command still leaves its code in the exit file. Its
    # stderr is the log; the shell around it writes to /dev/null, so that when it outlives a stop
    # (in the sandbox it is process 1, which SIGTERM does not reach) its "Terminated" note does not
    # land in the server's log.
    # The log and the exit file are opened by the launched side (inside the sandbox, if any).
    q = shlex.quote
    inner = (
        f"mkdir -p -- {q(work_dir)}/logs {q(work_dir)}/run {q(work_dir)}/tmp && rm -f -- {q(log)} {q(exit_file)}"
        f" && exec > {q(log)} 2>&1 || exit 126\n"
        f"exec 9>&2 2>/dev/null\n( exec 2>&9 9>&-\n{command}\n)\necho $? > {q(exit_file)}"
    )
    env_prefix = f"env {assignments} " if assignments else ""
    runner = shlex.join([*(sandbox or []), "bash", "-c", inner])
    run_dir = f"{work_dir}/run"
    return "\n".join(
        [
            f"mkdir -p -- {q(work_dir)} || exit 1",
            safe_files(work_dir),
            # run/ must exist for the pid file; it gets the work directory's owner (the sandbox's
            # uid), and -h changes a planted link itself, never what it names
            f"mkdir -p -- {q(run_dir)} 2>/dev/null && chown -h --reference={q(work_dir)} -- {q(run_dir)} 2>/dev/null",
            f"if ! (__oa_in_work {q(run_dir)}); then",
            "  echo 'run/ in the work directory is not a directory' >&2; exit 1",
            "fi",
            # the last run's log goes now (rm never follows a link), so the wait below sees the new one
            f"(__oa_in_work {q(work_dir + '/logs')} && rm -f -- {q(name + '.log')})",
            f"{env_prefix}setsid nohup {runner} > /dev/null 2>&1 < /dev/null &",
            "pid=$!",
            f'if ! __oa_put {q(run_dir)} {q(name + ".pid")} "$pid"; then',
            f'  kill -KILL "$pid" 2>/dev/null; echo "cannot write run/{name}.pid (a link?)" >&2; exit 1',
            "fi",
            "ticks=$(" + _START_TICKS.format(pid="$pid") + ")",
            # setsid makes the process lead a group of its own (pgid = pid), a moment after the
            # fork: wait for it, so a stop never signals the group this script ran in
            'for _ in $(seq 40); do [ "$(ps -o pgid= -p $pid | tr -d \' \')" != "$pid" ] || break; sleep 0.05; done',
            # the launched side opens its log: callers may read it as soon as this returns
            f"for _ in $(seq 100); do [ -e {q(log)} ] || [ -L {q(log)} ] || ! kill -0 $pid 2>/dev/null && break",
            "  sleep 0.02; done",
            'echo "$pid $pid $ticks"',
        ]
    )


def start(
    run: RunFn,
    work_dir: str,
    name: str,
    command: str,
    env: Mapping[str, str] | None,
    sandbox: Sequence[str] | None = None,
    unset: Sequence[str] = (),
) -> DetachedProcess:
    log, pid_file, _ = paths_for(work_dir, name)
    result = run(start_script(work_dir, name, command, env, sandbox, unset))
    fields = result.stdout.split()
    if result.exit_code != 0 or len(fields) < 2 or not fields[0].isdigit():
        raise TargetError(f"could not start {name!r}: {result.stderr.strip() or result.stdout.strip()}")
    return DetachedProcess(
        name=name,
        command=command,
        pid=int(fields[0]),
        pgid=int(fields[1]) if fields[1].isdigit() else int(fields[0]),
        log_path=log,
        pid_file=pid_file,
        start_ticks=fields[2] if len(fields) > 2 else "",
        sandboxed=bool(sandbox),
    )


def _ownership_script(process: DetachedProcess) -> str:
    """Prints OWNED, GONE or NOTOWNED <why>."""
    pid = process.pid
    run_dir, file_name = process.pid_file.rsplit("/", 1)
    return "\n".join(
        [
            safe_files(run_dir.rsplit("/", 1)[0]),
            f"recorded=$(__oa_get {shlex.quote(run_dir)} {shlex.quote(file_name)} | tr -d '[:space:]')",
            f'if [ "$recorded" != "{pid}" ]; then echo "NOTOWNED pid file does not name {pid}"; exit 0; fi',
            f"if [ ! -e /proc/{pid} ]; then echo GONE; exit 0; fi",
            "ticks=$(" + _START_TICKS.format(pid=pid) + ")",
            'if [ -z "$ticks" ]; then echo GONE; exit 0; fi',  # it exited since the line above
            f'if [ "$ticks" != "{process.start_ticks}" ]; then echo "NOTOWNED pid {pid} was recycled"; exit 0; fi',
            f"state=$(awk '{{sub(/.*\\) /, \"\"); print $1}}' /proc/{pid}/stat 2>/dev/null)",
            'if [ "$state" = "Z" ]; then echo GONE; exit 0; fi',
            "echo OWNED",
        ]
    )


def _exit_code(run: RunFn, process: DetachedProcess) -> int | None:
    run_dir, file_name = process.pid_file.rsplit("/", 1)
    exit_name = file_name[: -len(".pid")] + ".exit"
    work_dir = run_dir.rsplit("/", 1)[0]
    text = run(f"{safe_files(work_dir)}\n__oa_get {shlex.quote(run_dir)} {shlex.quote(exit_name)}").stdout.strip()
    return int(text) if text.lstrip("-").isdigit() else None


def status(run: RunFn, process: DetachedProcess) -> ProcessStatus:
    verdict = run(_ownership_script(process)).stdout.strip()
    if verdict.startswith("NOTOWNED"):
        raise ProcessNotOwned(f"process {process.pid} ({process.name}): {verdict[9:]}")
    if verdict == "OWNED":
        return ProcessStatus(pid=process.pid, running=True)
    return ProcessStatus(pid=process.pid, running=False, exit_code=_exit_code(run, process), detail="exited")


def stop(run: RunFn, process: DetachedProcess, grace_s: float) -> ProcessStatus:
    current = status(run, process)
    if not current.running:
        return current
    polls = max(int(grace_s / 0.1), 1)
    pid = process.pid
    # In the sandbox, bubblewrap's monitor (pid) dies at once on SIGTERM, while the namespace's
    # first process (its child) ignores it and lives on while anything inside does; SIGKILL to it
    # ends the namespace and all inside. Its start time guards against a recycled pid.
    init = ["init=", "init_ticks="]
    if process.sandboxed:
        init = [
            f"init=$(cut -d' ' -f1 /proc/{pid}/task/{pid}/children 2>/dev/null)",
            'init_ticks=$([ -n "$init" ] && ' + _START_TICKS.format(pid="$init") + ")",
        ]
    alive = f'{{ kill -0 {pid} 2>/dev/null || {{ [ -n "$init" ] && kill -0 "$init" 2>/dev/null; }}; }}'
    same_init = '[ -n "$init" ] && [ "$(' + _START_TICKS.format(pid="$init") + ')" = "$init_ticks" ]'
    script = "\n".join(
        [
            *init,
            f"kill -TERM -{process.pgid} 2>/dev/null || kill -TERM {pid} 2>/dev/null",
            f"for _ in $(seq {polls}); do {alive} || exit 0; sleep 0.1; done",
            f"kill -KILL -{process.pgid} 2>/dev/null || kill -KILL {pid} 2>/dev/null",
            f'if {same_init}; then kill -KILL "$init" 2>/dev/null; fi',
            # a SIGKILL lands when the kernel next schedules the process: on a busy host, later
            f"for _ in $(seq 50); do {alive} || break; sleep 0.1; done",
            "echo KILLED",
        ]
    )
    killed = "KILLED" in run(script).stdout
    after = status(run, process)
    detail = "killed after grace period" if killed else "stopped by SIGTERM"
    return after.model_copy(update={"detail": detail})


class _ShellTarget(Protocol):
    @property
    def work_dir(self) -> str: ...

    def _run_quick(self, command: str) -> CommandResult:
        """Run a short script on the host itself, outside the sandbox."""
        ...

    def sandbox_prefix(self, server_ports: Sequence[int] = ()) -> list[str] | None: ...

    def sandbox_own_ports(self, ports: Sequence[int]) -> None:
        """The run owns `ports` from now on: its sandboxes may bind and connect to them."""
        ...


class DetachedViaShell:
    """`start_detached`, `process_status` and `stop_process` for any target that runs bash."""

    def start_detached(
        self: _ShellTarget,
        command: str,
        *,
        name: str,
        env: Mapping[str, str] | None = None,
        unset: Sequence[str] = (),
    ) -> DetachedProcess:
        ports = launch_ports(command)
        self.sandbox_own_ports(ports)  # later commands may connect to it
        return start(self._run_quick, self.work_dir, name, command, env, self.sandbox_prefix(ports), unset)

    def process_status(self: _ShellTarget, process: DetachedProcess) -> ProcessStatus:
        return status(self._run_quick, process)

    def stop_process(self: _ShellTarget, process: DetachedProcess, *, grace_s: float = 10.0) -> ProcessStatus:
        return stop(self._run_quick, process, grace_s)
