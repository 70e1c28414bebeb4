"""Generic shell tools: run a command, read a file, read the end of a log."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tools.logs import LogCursor, cursor_at_end, last_lines, read_new
from tools.registry import ToolContext, ToolOutput, tool
from tools.target import TargetFileError


class RunCommandArgs(BaseModel):
    command: str = Field(description="A bash command line to run on the target.")
    timeout_s: float = Field(default=60.0, gt=0, le=3600, description="Kill the command after this many seconds.")
    outside_sandbox: bool = Field(
        default=False,
        description="Run outside the sandbox, as root: only for a command the sandbox blocked and that truly needs "
        "it. Always asked as an escalation; denied commands stay denied.",
    )


class ReadFileArgs(BaseModel):
    path: str = Field(
        description="Path of the file on the target: absolute, ~/… (the target user's home) or relative to "
        "the agent's work directory."
    )
    max_bytes: int = Field(default=65536, gt=0, le=4 * 1024 * 1024, description="Read at most this many bytes.")


class TailLogArgs(BaseModel):
    path: str = Field(
        description="Path of the log file on the target: absolute, ~/… (the target user's home) or relative "
        "to the agent's work directory."
    )
    lines: int = Field(default=50, gt=0, le=5000, description="How many lines from the end.")
    cursor: LogCursor | None = Field(
        default=None,
        description="Return only the lines written since this cursor (from a previous tail_log's "
        "data.cursor); at most `lines` of them, the newest. Rotation and truncation restart at 0.",
    )


def _command_summary(command: str, exit_code: int | None, stdout: str, stderr: str, flags: list[str]) -> str:
    head = f"$ {command}\nexit code: {exit_code if exit_code is not None else 'none'}"
    if flags:
        head += f" ({', '.join(flags)})"
    body = stdout if stdout else ""
    if stderr.strip():
        body += ("\n" if body else "") + "[stderr]\n" + stderr
    return f"{head}\n{body}".rstrip()


SANDBOX_BLOCKED = (
    "[opsagent: the sandbox blocked this command, and running it again will fail the same way. Inside the "
    "sandbox only the work directory and the paths the policy lists can be written, /sys and /proc are "
    "read-only, nothing gains privileges (sudo cannot; a root login runs as an unprivileged user), and TCP "
    "reaches only the run's own ports. Work inside the work directory instead, or ask "
    "the operator: the same command with outside_sandbox=true is asked as an escalation (runs outside the "
    "sandbox, as root).]"
)
_BLOCKED_SIGNS = ("Read-only file system", '"no new privileges" flag is set', "no new privileges")
_NET_WORDS = ("connect", "bind", "/dev/tcp/", "PermissionError: [Errno 13]")


def sandbox_active(target: object) -> bool:
    status = getattr(target, "sandbox_status", None)
    current = status() if callable(status) else None
    return bool(getattr(current, "active", False))


def sandbox_blocked(target: object, stderr: str) -> bool:
    """Whether a failure is the sandbox's doing: its walls' messages, on a target whose sandbox is on.
    "Permission denied" counts where the login is root (inside, commands are not) or as Landlock's
    answer to a TCP connect or bind."""
    status = getattr(target, "sandbox_status", None)
    current = status() if callable(status) else None
    if not getattr(current, "active", False):
        return False
    if any(sign in stderr for sign in _BLOCKED_SIGNS):
        return True
    denied = [line for line in stderr.splitlines() if "Permission denied" in line]
    return bool(denied) and (
        bool(getattr(current, "drops_root", False)) or any(w in line for line in denied for w in _NET_WORDS)
    )


@tool(read_only=False)
def run_command(ctx: ToolContext, args: RunCommandArgs) -> ToolOutput:
    """Run a bash command on the target host and return its exit code, stdout and stderr.

    Every command passes the operator's policy gate first; prefer the specific tools
    (observe_gpus, launch_server, run_benchmark, ...) when one fits.
    """
    outside = getattr(ctx.target, "run_outside_sandbox", None) if args.outside_sandbox else None
    if callable(outside):
        result = outside(args.command, timeout=args.timeout_s)
    else:
        result = ctx.target.run(args.command, timeout=args.timeout_s)
    flags = [
        name
        for name, on in (
            ("timed out", result.timed_out),
            ("outcome unknown: the connection dropped while it ran", result.outcome_unknown),
            ("output truncated", result.truncated),
        )
        if on
    ]
    error_kind = None
    if result.outcome_unknown:
        error_kind = "outcome_unknown"
    elif result.timed_out:
        error_kind = "timeout"
    elif result.exit_code != 0:
        error_kind = "nonzero_exit"
    summary = _command_summary(args.command, result.exit_code, result.stdout, result.stderr, flags)
    blocked = not callable(outside) and result.exit_code not in (0, None) and sandbox_blocked(ctx.target, result.stderr)
    if blocked:
        error_kind = "sandbox_blocked"
        summary += "\n" + SANDBOX_BLOCKED
    return ToolOutput(
        tool="run_command",
        ok=result.ok,
        summary=summary,
        data={**result.model_dump(), "sandboxed": not callable(outside) and sandbox_active(ctx.target)},
        error_kind=error_kind,
        outcome_unknown=result.outcome_unknown,
    )


@tool(read_only=True)
def read_file(ctx: ToolContext, args: ReadFileArgs) -> ToolOutput:
    """Read the start of a file on the target (text; undecodable bytes are replaced)."""
    try:
        data = ctx.target.read_file(args.path, max_bytes=args.max_bytes)
    except TargetFileError as exc:
        return ToolOutput(tool="read_file", ok=False, summary=str(exc), error_kind="file_error")
    text = data.decode("utf-8", errors="replace")
    return ToolOutput(
        tool="read_file", ok=True, summary=f"{args.path}:\n{text}", data={"path": args.path, "text": text}
    )


def read_last_lines(ctx: ToolContext, path: str, lines: int, chunk: int = 65536) -> list[str]:
    """The last `lines` lines of `path`, reading backwards from the end in chunks (never the whole file)."""
    return last_lines(ctx.target, path, lines, chunk=chunk)


@tool(read_only=True)
def tail_log(ctx: ToolContext, args: TailLogArgs) -> ToolOutput:
    """Show the last lines of a log file on the target without reading the whole file.

    Pass the `cursor` from a previous call's data to get only what was written since then.
    """
    try:
        if args.cursor is None:
            last = read_last_lines(ctx, args.path, args.lines)
            cursor = cursor_at_end(ctx.target, args.path)
            notes = ""
        else:
            start = args.cursor if args.cursor.path == args.path else LogCursor(path=args.path)
            chunk = read_new(ctx.target, start)
            rotated, truncated = chunk.rotated, chunk.truncated
            total, last = len(chunk.lines), chunk.lines[-args.lines :]
            while chunk.more:
                chunk = read_new(ctx.target, chunk.cursor)
                total += len(chunk.lines)
                last = (last + chunk.lines)[-args.lines :]
            cursor = chunk.cursor
            flags = [n for n, on in (("rotated", rotated), ("truncated", truncated)) if on]
            notes = f" (log {', '.join(flags)}; read from its start)" if flags else ""
            if total > len(last):
                notes += f" ({total - len(last)} older new lines not shown)"
    except TargetFileError as exc:
        return ToolOutput(tool="tail_log", ok=False, summary=str(exc), error_kind="file_error")
    what = f"{len(last)} new lines" if args.cursor is not None else f"last {len(last)} lines"
    return ToolOutput(
        tool="tail_log",
        ok=True,
        summary=f"{what} of {args.path}{notes}:\n" + "\n".join(last),
        data={"path": args.path, "lines": last, "cursor": cursor.model_dump(mode="json")},
    )
