"""The fast path: one persistent `bash -s` per connection that runs each command isolated.

Each command is sent as one line, `__oa TOKEN 'COMMAND' TOKEN`. The function `__oa` (defined
once, below) checks that the line arrived whole (both tokens equal), runs the command as
`bash -c COMMAND` in a background job (`set -m`: its own process group, so a timeout kills it and
everything it started), stdin from /dev/null, stdout and stderr on the channel's two streams, and
closes both streams with the token and the exit code. A new command costs one fork and exec on
the host and one round trip, instead of a channel (and a new sshd session) per command.

On timeout the client kills the command's process group over a separate exec channel; the
shell then reports the killed job as usual and stays usable.

If the connection dies after the line was sent, nobody can tell from this side whether the host
received it. So before it starts a command the shell appends the command's token to a start
journal in the work directory. After reconnecting, `verify_script` waits until the old shell is
gone and looks for the token: absent means the command never started and may be sent again
(that is its first run); present, or undecidable, means the outcome is unknown and nothing is
re-run.

On a sandboxed target the shell itself runs inside the sandbox (tools.sandbox), started once
per connection, so a command costs what it costs unsandboxed instead of a bubblewrap and a
Python start each. What the per-command sandbox gave is kept: when a command ends, every other
process in the sandbox's PID namespace is killed (`kill -KILL -1` from the shell, whose parent
is the namespace's process 1), daemons that left the process group included. Commands on one
connection share that sandbox's private /tmp and /dev/shm. A timeout ends the whole sandbox
(its process 1, from the host) and the shell with it: inside, the command's pid means nothing
to the host. The host knows the shell by bubblewrap's pid (`__oa_hostpid`), which names its
journal and tells `verify_script` when it is gone.
"""

from __future__ import annotations

import contextlib
import posixpath
import re
import shlex
import threading
import time
from collections.abc import Sequence

import paramiko

from tools.detached import safe_files
from tools.output import output_buffers
from tools.sandbox import command_argv
from tools.ssh.execpath import AFTER_KILL_S, NotStarted, kill_group
from tools.ssh.outcome import Outcome, StartCheck, new_token
from tools.ssh.streams import Header, Marker, pump
from tools.target import OutputListener

# Leftover members of a command's process group would keep writing into the shared streams,
# so after the command exits they get a second (20 x 50 ms) and are then killed.
SHELL_INIT = r"""
set -m 2>/dev/null
__oa_shell=${__oa_hostpid:-$$}
__oa_reap=
[ "$__oa_boxed" = 1 ] && [ "$PPID" = 1 ] && __oa_reap=1
__oa_journal="$__oa_dir/fastpath.$__oa_shell.journal"
mkdir -p "$__oa_dir" && : > "$__oa_journal" || __oa_journal=/dev/null
__oa() {
  if [ "$#" -ne 4 ] || [ "$1" != "$4" ]; then
    printf '%sP0\n%sE255 rejected\n' "$1" "$1"; printf '%sE' "$1" >&2; return 0
  fi
  printf '%s\n' "$1" >> "$__oa_journal"
  if [ "$2" = x ]; then
    ( printf '%sP%s\n' "$1" "$BASHPID"; exec bash -c "$3" ) </dev/null &
  else
    ( printf '%sP%s\n' "$1" "$BASHPID"; set +m; __oa_command=$3; set --; eval "$__oa_command" ) </dev/null &
  fi
  local p=$! r n=0
  wait "$p" 2>/dev/null; r=$?
  while kill -0 -- "-$p" 2>/dev/null; do
    if [ "$n" -ge 20 ]; then kill -KILL -- "-$p" 2>/dev/null; n=killed; break; fi
    n=$((n+1)); sleep 0.05
  done
  [ -n "$__oa_reap" ] && kill -KILL -1 2>/dev/null
  printf '%sE%s %s\n' "$1" "$r" "$n"
  printf '%sE' "$1" >&2
}
"""

SHELL_COMMAND = "exec bash --noprofile --norc -s"


def boxed_shell_command(sandbox: Sequence[str]) -> str:
    """The persistent shell inside the sandbox; the login shell's pid becomes bubblewrap's."""
    inner = shlex.join(command_argv(sandbox, SHELL_COMMAND))
    return f"__oa_hostpid=$$ __oa_boxed=1; export __oa_hostpid __oa_boxed; exec {inner}"


def kill_sandbox(transport: paramiko.Transport, bwrap_pid: int, timeout: float = 10.0) -> bool:
    """SIGKILL the sandbox's process 1 (bubblewrap's child), which ends all inside, then bubblewrap."""
    script = (
        f"init=$(cut -d' ' -f1 /proc/{bwrap_pid}/task/{bwrap_pid}/children 2>/dev/null)\n"
        f'[ -n "$init" ] && kill -KILL "$init" 2>/dev/null; kill -KILL {bwrap_pid} 2>/dev/null; true'
    )
    try:
        channel = transport.open_session(timeout=timeout)
        channel.exec_command(script)
        channel.status_event.wait(timeout)
        channel.close()
    except (paramiko.SSHException, OSError, EOFError):
        return False
    return True


# In the forked subshell `$$` would name the persistent shell, not the command: commands that
# use it get a fresh `bash -c` (one more exec, about a millisecond).
_NEEDS_OWN_BASH = re.compile(r"\$\$|\$\{\$\}")


class ShellBroken(Exception):
    """The persistent shell cannot run commands any more; a new one (or the fallback) is needed."""


class PersistentShell:
    """One `bash -s` on its own channel. Not thread-safe: hold `lock` while calling `run`."""

    def __init__(
        self,
        transport: paramiko.Transport,
        journal_dir: str,
        timeout: float = 15.0,
        sandbox: Sequence[str] | None = None,
    ) -> None:
        self.transport = transport
        self.lock = threading.Lock()
        self.sandboxed = sandbox is not None
        try:
            self.channel = transport.open_session(timeout=timeout)
            self.channel.exec_command(SHELL_COMMAND if sandbox is None else boxed_shell_command(sandbox))
            self.channel.sendall(f"__oa_dir={shlex.quote(journal_dir)}\n{SHELL_INIT}".encode())
        except (paramiko.SSHException, OSError, EOFError) as exc:
            raise ShellBroken(f"could not start the persistent shell: {exc}") from exc
        self.broken = False
        probe = self.run('printf "%s %s" "$__oa_shell" "$__oa_journal"', timeout, 4096)
        fields = probe.stdout.capture().text.split(" ", 1)
        if probe.exit_code != 0 or len(fields) != 2 or not fields[0].isdigit():
            self.close()
            raise ShellBroken(f"the persistent shell did not answer: {probe.error or probe.exit_code}")
        self.shell_pid = int(fields[0])
        self.journal = fields[1]

    @property
    def usable(self) -> bool:
        channel = self.channel
        return (
            not self.broken
            and not channel.closed
            and not channel.eof_received
            and not channel.exit_status_ready()
            and self.transport.is_active()
        )

    def run(self, command: str, timeout: float, output_cap: int, on_output: OutputListener | None = None) -> Outcome:
        """Run `command`; raises NotStarted when nothing was sent (safe to retry elsewhere)."""
        if not self.usable:
            raise NotStarted("the persistent shell is gone")
        outcome = Outcome(*output_buffers(output_cap, on_output))
        token = new_token()
        text = token.decode()
        mode = "x" if _NEEDS_OWN_BASH.search(command) else "s"
        line = f"__oa {text} {mode} {shlex.quote(command)} {text}\n".encode()
        out_marker = Marker(token, outcome.stdout, trailer_line=True)
        err_marker = Marker(token, outcome.stderr, trailer_line=False)
        header = Header(token, out_marker.feed)
        sent = 0
        try:
            while sent < len(line):  # sendall, counting: a refusal before the first byte is not a start
                sent += self.channel.send(line[sent:])
        except (paramiko.SSHException, OSError, EOFError) as exc:
            self.broken = True
            if sent == 0:
                raise NotStarted(f"the connection was lost before the command was sent ({exc})") from exc
            # bash runs a partial last line at EOF: what reached it may have run
            outcome.outcome_unknown = True
            outcome.error = f"connection lost while sending the command ({exc}); it may or may not have run"
            return outcome

        def finished() -> bool:
            return out_marker.complete and err_marker.complete

        end = pump(self.channel, header.feed, err_marker.feed, finished, outcome.started + timeout)
        if end == "deadline" and self.sandboxed:
            # The command's pid is the namespace's; the host can only end the whole sandbox.
            outcome.timed_out = True
            self.broken = True
            kill_sandbox(self.transport, self.shell_pid)
            pump(self.channel, header.feed, err_marker.feed, finished, time.monotonic() + AFTER_KILL_S)
            outcome.outcome_unknown = header.pid is None
            outcome.notes.append("the sandbox the command ran in was ended with it")
            return outcome
        if end == "deadline":
            outcome.timed_out = True
            if header.pid is not None and kill_group(self.transport, header.pid):
                end = pump(self.channel, header.feed, err_marker.feed, finished, time.monotonic() + AFTER_KILL_S)
            if end != "finished":
                # The shell never came back from the kill: its state is unknown, so retire it.
                self.broken = True
                outcome.outcome_unknown = header.pid is None
                outcome.error = "timed out; the command's process group could not be confirmed killed"
                return outcome
        if end == "closed":
            self.broken = True
            out_marker.flush()
            err_marker.flush()
            outcome.outcome_unknown = True
            if header.pid is None and self.journal != "/dev/null":
                outcome.unverified_start = StartCheck(text, self.journal, self.shell_pid)
            outcome.error = (
                "the connection closed while the command ran: it may or may not have had its effect; "
                "verify before running it again"
            )
            return outcome
        self._read_trailer(out_marker, outcome)
        return outcome

    @staticmethod
    def _read_trailer(marker: Marker, outcome: Outcome) -> None:
        fields = bytes(marker.trailer).split(b"\n", 1)[0].decode(errors="replace").split()
        code = fields[0] if fields else ""
        extra = fields[1] if len(fields) > 1 else ""
        if extra == "rejected":
            outcome.error = "the command line arrived incomplete and was not run"
            return
        outcome.exit_code = int(code) if code.lstrip("-").isdigit() else None
        if extra == "killed":
            outcome.notes.append("killed processes the command left running in its process group")

    def close(self) -> None:
        if self.usable:
            # A clean goodbye: the journal is only needed after a connection died.
            with contextlib.suppress(Exception):
                self.channel.sendall(b'rm -f -- "$__oa_journal"; exit 0\n')
        self.broken = True
        with contextlib.suppress(Exception):
            self.channel.close()


def verify_script(check: StartCheck, wait_s: float = 10.0) -> str:
    """Prints STARTED, NOTSTARTED or UNKNOWN for a command sent just before a connection died.

    The old shell may still hold the line in its input, so "not in the journal" only counts once
    that shell has exited.
    """
    # The journal's directory is in the work directory, which a sandboxed command may have filled
    # with links: read and remove only through the checks of tools.detached.SAFE_FILES.
    run_dir, name = posixpath.split(check.journal)
    q = shlex.quote
    found = (
        f"(__oa_in_work {q(run_dir)} && dd if={q(name)} iflag=nofollow,nonblock status=none | grep -qxF {check.token})"
    )
    polls = max(int(wait_s / 0.05), 1)
    return "\n".join(
        [
            safe_files(posixpath.dirname(run_dir)),
            f"for _ in $(seq {polls}); do",
            f"  if {found} 2>/dev/null; then echo STARTED; exit 0; fi",
            f"  if ! kill -0 {check.shell_pid} 2>/dev/null; then",
            f"    if {found} 2>/dev/null; then echo STARTED; else echo NOTSTARTED;"
            f" (__oa_in_work {q(run_dir)} && rm -f -- {q(name)}); fi",
            "    exit 0",
            "  fi",
            "  sleep 0.05",
            "done",
            "echo UNKNOWN",
        ]
    )
