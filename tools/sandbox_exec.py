"""`opsagent sandbox exec`: one command run exactly as the agent's command runner runs it.

The runner (tools.shell.run_command) calls `target.run(command, timeout=...)` on a target opened
with the policy's sandbox; so does this, without the policy gate: same sandbox, work directory
(where it starts), environment and timeout default. Output is passed on as it comes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tools.shell import RunCommandArgs
from tools.target import CommandResult, Target, run_watching

# The runner's own default, so a command times out here when it would for the agent.
DEFAULT_TIMEOUT_S: float = RunCommandArgs.model_fields["timeout_s"].default
EXIT_TIMED_OUT = 124  # as timeout(1)
EXIT_UNKNOWN = 255  # the connection dropped: whether it ran to the end is not known


def command_line(words: Sequence[str]) -> str:
    """Words after `--` as one shell command line, joined with spaces as ssh(1) joins them."""
    return " ".join(words)


def exec_command(
    target: Target, command: str, *, on_output: Callable[[str, str], None], timeout: float = DEFAULT_TIMEOUT_S
) -> CommandResult:
    return run_watching(target, command, timeout=timeout, on_output=on_output)


def exit_status(result: CommandResult) -> int:
    """The command's exit code; 124 for a timeout, 255 when the outcome is unknown."""
    if result.timed_out:
        return EXIT_TIMED_OUT
    if result.exit_code is None:
        return EXIT_UNKNOWN
    return result.exit_code
