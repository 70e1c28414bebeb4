"""Test helpers for tools: fixture files, and a `Target` that answers commands from recordings.

It is the boundary fake for parser-level tool tests: the tools run unchanged, only the host's
answers are canned. Commands without an answer fail like a missing program (exit 127).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tools.local import LocalTarget
from tools.target import (
    DEFAULT_OUTPUT_CAP,
    DEFAULT_TIMEOUT_S,
    CommandResult,
    DetachedProcess,
    FileStat,
    ProcessStatus,
)

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text()


Answer = str | tuple[int, str, str] | Callable[[str], tuple[int, str, str]]


class ScriptedTarget:
    def __init__(self, work_dir: str, answers: Mapping[str, Answer]) -> None:
        self._local = LocalTarget(work_dir)
        self.answers = dict(answers)
        self.sent: list[str] = []
        self.started: list[tuple[str, dict[str, str]]] = []
        self.unset: list[list[str]] = []

    @property
    def work_dir(self) -> str:
        return self._local.work_dir

    def describe(self) -> str:
        return "scripted"

    def run(
        self,
        command: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        self.sent.append(command)
        answer = self.answers.get(command)
        if answer is None:
            program = command.split()[0] if command.split() else command
            return CommandResult(command=command, exit_code=127, stderr=f"bash: {program}: command not found")
        if callable(answer):
            answer = answer(command)
        code, out, err = (0, answer, "") if isinstance(answer, str) else answer
        return CommandResult(command=command, exit_code=code, stdout=out, stderr=err)

    def read_file(self, path: str, *, offset: int = 0, max_bytes: int = DEFAULT_OUTPUT_CAP) -> bytes:
        return self._local.read_file(path, offset=offset, max_bytes=max_bytes)

    def stat(self, path: str) -> FileStat | None:
        return self._local.stat(path)

    def write_file(self, path: str, data: bytes) -> None:
        self._local.write_file(path, data)

    def start_detached(
        self, command: str, *, name: str, env: Mapping[str, str] | None = None, unset: Sequence[str] = ()
    ) -> DetachedProcess:
        """Records the launch (and what it starts without); nothing runs."""
        self.started.append((command, dict(env or {})))
        self.unset.append(list(unset))
        log = f"{self.work_dir}/logs/{name}.log"
        return DetachedProcess(name=name, command=command, pid=1, pgid=1, log_path=log, pid_file=log + ".pid")

    def process_status(self, process: DetachedProcess) -> ProcessStatus:
        return ProcessStatus(pid=process.pid, running=False)

    def stop_process(self, process: DetachedProcess, *, grace_s: float = 10.0) -> ProcessStatus:
        return ProcessStatus(pid=process.pid, running=False)

    def sleep(self, seconds: float) -> None:
        return None

    def now(self) -> float:
        return 0.0

    def close(self) -> None:
        return None
