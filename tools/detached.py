"""Detached processes on a shell target, as shell scripts any target that runs bash can execute.

Shared by the local and SSH targets so both start, inspect and stop processes the same way:
`setsid nohup` with a log file, a pid file and an exit-code file in the work directory. A stop
is refused unless the pid file still names the pid and the process start time still matches,
so a recycled pid is never signalled.

On a sandboxed target the launched process runs inside bubblewrap (`sandbox` is its argv
prefix, tools.sandbox): the recorded pid is bubblewrap's, the process group is shared with
everything inside, and the sandbox's PID namespace ends whatever the server started when it
ends. These scripts themselves run on the host: they must see host pids to check and stop.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from tools.target import CommandResult, DetachedProcess, ProcessNotOwned, ProcessStatus, TargetError

RunFn = Callable[[str], CommandResult]

_SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")

# Field 22 of /proc/PID/stat (start time in clock ticks); the comm field may hold spaces, so cut
# everything up to the last ") " first.
_START_TICKS = "awk '{{sub(/.*\\) /, \"\"); print $20}}' /proc/{pid}/stat 2>/dev/null"


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
) -> str:
    log, pid_file, exit_file = paths_for(work_dir, name)
    bad = [k for k in (env or {}) if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k)]
    if bad:  # a name is put into the command line unquoted: `X=1; reboot; Y` must never get there
        raise ValueError(f"environment variable names must be letters, digits and '_': {bad}")
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
    # A subshell, so that an `exit N` in the command still leaves its code in the exit file. Its
    # stderr is the log; the shell around it writes to /dev/null, so that when it outlives a stop
    # (in the sandbox it is process 1, which SIGTERM does not reach) its "Terminated" note does not
    # land in the server's log.
    inner = f"exec 9>&2 2>/dev/null\n( exec 2>&9 9>&-\n{command}\n)\necho $? > {shlex.quote(exit_file)}"
    env_prefix = f"env {assignments} " if assignments else ""
    runner = shlex.join([*(sandbox or []), "bash", "-c", inner])
    return "\n".join(
        [
            f"mkdir -p {shlex.quote(work_dir)}/logs {shlex.quote(work_dir)}/run {shlex.quote(work_dir)}/tmp",
            f"rm -f {shlex.quote(exit_file)}",
            f"{env_prefix}setsid nohup {runner} > {shlex.quote(log)} 2>&1 < /dev/null &",
            "pid=$!",
            f"echo $pid > {shlex.quote(pid_file)}",
            "ticks=$(" + _START_TICKS.format(pid="$pid") + ")",
            # setsid makes the process lead a group of its own (pgid = pid), a moment after the
            # fork: wait for it, so a stop never signals the group this script ran in
            'for _ in $(seq 40); do [ "$(ps -o pgid= -p $pid | tr -d \' \')" != "$pid" ] || break; sleep 0.05; done',
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
) -> DetachedProcess:
    log, pid_file, _ = paths_for(work_dir, name)
    result = run(start_script(work_dir, name, command, env, sandbox))
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
    return "\n".join(
        [
            f"recorded=$(cat {shlex.quote(process.pid_file)} 2>/dev/null)",
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
    exit_file = process.pid_file[: -len(".pid")] + ".exit"
    text = run(f"cat {shlex.quote(exit_file)} 2>/dev/null").stdout.strip()
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

    def sandbox_prefix(self) -> list[str] | None: ...


class DetachedViaShell:
    """`start_detached`, `process_status` and `stop_process` for any target that runs bash."""

    def start_detached(
        self: _ShellTarget, command: str, *, name: str, env: Mapping[str, str] | None = None
    ) -> DetachedProcess:
        return start(self._run_quick, self.work_dir, name, command, env, self.sandbox_prefix())

    def process_status(self: _ShellTarget, process: DetachedProcess) -> ProcessStatus:
        return status(self._run_quick, process)

    def stop_process(self: _ShellTarget, process: DetachedProcess, *, grace_s: float = 10.0) -> ProcessStatus:
        return stop(self._run_quick, process, grace_s)
