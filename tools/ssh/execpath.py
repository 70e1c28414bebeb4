"""One command on its own exec channel: the fallback, and the way long-running commands run.

The remote login shell prints its pid (which is also the process group sshd gave the session)
and then execs `bash -c COMMAND` with stdin closed, so a timeout can kill the whole group from a
second channel. Leftover background processes that keep the output open after the command exits
are given a second, then killed with their group, as `LocalTarget` does.
"""

from __future__ import annotations

import shlex
import time

import paramiko

from tools.output import output_buffers
from tools.ssh.outcome import Outcome, new_token
from tools.ssh.streams import Header, pump
from tools.target import OutputListener

LEFTOVER_GRACE_S = 1.0
AFTER_KILL_S = 5.0


class NotStarted(Exception):
    """The command was never handed to the server, so running it on a new connection is safe."""


def kill_group(transport: paramiko.Transport, pid: int, timeout: float = 10.0) -> bool:
    """SIGKILL process group `pid` (and `pid` itself) over a fresh channel; False if impossible."""
    try:
        channel = transport.open_session(timeout=timeout)
        channel.exec_command(f"kill -KILL -- -{pid} 2>/dev/null; kill -KILL {pid} 2>/dev/null; true")
        channel.status_event.wait(timeout)
        channel.close()
    except (paramiko.SSHException, OSError, EOFError):
        return False
    return True


def run_exec(
    transport: paramiko.Transport,
    command: str,
    timeout: float,
    output_cap: int,
    on_output: OutputListener | None = None,
) -> Outcome:
    outcome = Outcome(*output_buffers(output_cap, on_output))
    token = new_token()
    try:
        channel = transport.open_session(timeout=min(timeout, 30.0))
    except (paramiko.SSHException, OSError, EOFError) as exc:
        raise NotStarted(f"could not open a channel: {exc}") from exc
    # POSIX sh syntax: the login shell may not be bash. It stays as the parent (no exec) so a
    # command killed by a signal still ends with an exit status (128+n), and an exit without
    # any status can only mean the connection or the session died.
    wrapper = f"printf '%sP%s\\n' {token.decode()} \"$$\"; bash -c {shlex.quote(command)} </dev/null"
    try:
        channel.exec_command(wrapper)
        channel.shutdown_write()
    except (paramiko.SSHException, OSError, EOFError) as exc:
        outcome.outcome_unknown = True
        outcome.error = f"connection lost while starting the command ({exc}); it may or may not have run"
        channel.close()
        return outcome
    header = Header(token, outcome.stdout.feed)
    deadline = outcome.started + timeout

    def drained() -> bool:
        return bool(
            channel.exit_status_ready()
            and channel.eof_received
            and not channel.recv_ready()
            and not channel.recv_stderr_ready()
        )

    def lost() -> bool:
        return channel.closed and channel.exit_status == -1

    try:
        end = pump(channel, header.feed, outcome.stderr.feed, channel.exit_status_ready, deadline)
        if end == "finished" and not drained() and not lost():
            # Exited, but something it started still holds stdout or stderr open.
            grace = min(deadline, time.monotonic() + LEFTOVER_GRACE_S)
            if pump(channel, header.feed, outcome.stderr.feed, drained, grace) != "finished":
                if header.pid is not None and kill_group(transport, header.pid):
                    outcome.notes.append("killed processes left holding the command's output")
                pump(channel, header.feed, outcome.stderr.feed, drained, time.monotonic() + AFTER_KILL_S)
        elif end == "deadline":
            outcome.timed_out = True
            if header.pid is None or not kill_group(transport, header.pid):
                outcome.outcome_unknown = True
                outcome.error = "timed out and the process group could not be killed"
            pump(channel, header.feed, outcome.stderr.feed, drained, time.monotonic() + AFTER_KILL_S)
        if channel.exit_status_ready() and channel.exit_status != -1:
            outcome.exit_code = channel.recv_exit_status()
        elif not outcome.timed_out:
            outcome.outcome_unknown = True
            outcome.error = (
                "the connection closed while the command ran: it may or may not have had its effect; "
                "verify before running it again"
            )
    finally:
        channel.close()
    return outcome
