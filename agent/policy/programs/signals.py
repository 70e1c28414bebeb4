"""Programs that signal or attach to processes: `kill`, `pkill`/`killall`, `fuser`, tracers."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from typing import TYPE_CHECKING

from agent.policy.facts import DYN, may_match, visible
from agent.policy.invocation import Ctx, Hook, Invocation, Scope, SignalEffect
from agent.policy.options import operands, option_values
from agent.policy.programs.base import wrapper_spec
from agent.policy.shellparse import Word, node_text

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


# options whose value is a command it runs, and the prefix the value must have ("" for any):
# found and judged by hooks.py as if the command ran where it stands
COMMAND_OPTIONS: dict[str, dict[str, str]] = {
    "strace": {"-o": "|", "--output": "|"},  # `-o '|CMD'`: the trace is piped into CMD
}


TRACERS = frozenset(("gdb", "strace", "ltrace", "lldb", "gcore", "perf", "reptyr"))


def tracer(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """`gdb -p PID`, `strace -p PID`: attaching can stop, change or kill that process, as a
    signal can (`gdb -p 1 -batch -ex kill` takes the host down)."""
    options = ("-p", "--pid", "--attach-pid") if inv.program != "strace" else ("-p", "--attach")
    pids = [p for _, v in option_values(argv[1:], options, clustered=False) for p in v.split(",")]
    if inv.program == "gdb":  # `-ex 'attach 1'`, and `gdb PROGRAM PID`
        for _, command in option_values(argv[1:], ("-ex", "--ex", "-eval-command", "--eval-command"), False):
            pids += re.findall(r"^\s*(?:at|att|atta|attac|attach)\s+(\S+)", command)
        given = operands(argv[1:], ("-ex", "--ex", "-x", "-p", "--pid", "-cd", "-d", "-s", "-e", "-c", "-iex"))
        pids += [given[1]] if len(given) > 1 and given[1].isdigit() else []
    for target in pids:
        inv.signals.append(signal_target(an, target.strip(), None, "ptrace"))


# programs that change a running process named by `-p PID` (its OOM score, limits, priority, CPUs):
# as a signal can, that changes a process that may not be the agent's
_PID_OPTIONS = ("-p", "--pid")
PROCESS_CHANGERS = frozenset(("gcore", "choom", "prlimit", "renice", "ionice", "chrt", "taskset"))


def process_changer(
    an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx
) -> None:
    """`choom -p PID`, `prlimit --pid PID`, `renice -p PID...`, `gcore PID...`: each PID is a
    process it changes or dumps, judged as a signal's target is when found by pattern, port or
    only at run time (`$(pgrep -f 'kvm -id 101')`); gcore's, as a tracer's, always."""
    args = argv[1:]
    words = an._current_words
    found: list[int] = []
    if inv.program in ("taskset", "chrt", "ionice"):
        # `taskset -p MASK PID`, `chrt -p PRIO PID`, `ionice -c2 -p PID` change it; with the pid
        # alone they only print its settings
        given = [k for k, a in enumerate(args) if not a.startswith("-")]
        changes = len(given) >= 2 if inv.program != "ionice" else any(a.startswith(("-c", "-n")) for a in args)
        pid = given[-1] if given and inv.program != "ionice" else None
        if inv.program == "ionice":
            pid = next((k + 1 for k, a in enumerate(args) if a in _PID_OPTIONS), None)
        if changes and pid is not None:
            found.append(pid)
        args_for_pids: list[str] = []
    else:
        args_for_pids = args
    for k, a in enumerate(args_for_pids):
        if a in _PID_OPTIONS or (a.startswith("--pid=") or (a.startswith("-p") and a[2:].isdigit())):
            found.append(k + 1 if a in _PID_OPTIONS else k)
    if inv.program in ("renice", "gcore"):  # `renice -n 5 -p 1 2`, `gcore -o F 1 2`: operands are pids too
        skip = {"-n", "--priority", "-o", "-g", "-u", "--relative"}
        found += [k for k, a in enumerate(args) if not a.startswith("-") and (k == 0 or args[k - 1] not in skip)]
    for k in sorted(set(found)):
        if k >= len(args):
            continue
        raw = args[k].partition("=")[2] if args[k].startswith("--pid=") else args[k].removeprefix("-p")
        word = words[k + 1] if words is not None and k + 1 < len(words) else None
        effect = signal_target(an, raw, word, "ptrace" if inv.program == "gcore" else "change")
        # a pid given as a number is the operator's to name (other-process-scheduling asks); one
        # found by pattern, port or only at run time may be anyone's (`$(pgrep -f 'kvm -id 101')`)
        if inv.program == "gcore" or effect.target not in ("foreign", "init"):
            inv.signals.append(effect)


def kill(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """As bash's `kill` reads its words: `-l` lists only in first place; one signal option, then
    every word is a target, a later `-l` or `-0` included (`kill -9 -0 1` kills PID 1)."""
    args = argv[1:]
    words = an._current_words
    if args[:1] and args[0] in ("-l", "-L", "--list", "--table"):
        return
    sig = "TERM"
    saw_signal = False
    targets: list[tuple[str, int]] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            targets += [(x, k) for k, x in enumerate(args[i + 1 :], i + 1)]
            break
        if not saw_signal and a in ("-s", "-n", "--signal"):
            sig = args[i + 1] if i + 1 < len(args) else "?"
            saw_signal = True
            i += 2
            continue
        if not saw_signal and a.startswith("-") and len(a) > 1 and (not re.fullmatch(r"-\d+", a) or i + 1 < len(args)):
            sig = a[1:]
            saw_signal = True
            i += 1
            continue
        targets += [(x, k) for k, x in enumerate(args[i:], i)]
        break
    if sig in ("0", "SIG0"):
        return
    for t, k in targets:
        word = words[k + 1] if words is not None and k + 1 < len(words) else None
        inv.signals.append(signal_target(an, t, word, sig))


def signal_target(an: Analysis, target: str, word: Word | None, sig: str) -> SignalEffect:
    f = an.facts
    detail = f"SIG{sig.upper().removeprefix('SIG')} to {visible(target)}"
    if DYN not in target:
        if target.startswith("%"):
            return SignalEffect("own", detail + " (a job of this command)")
        m = re.fullmatch(r"(-?)(\d+)", target)
        if not m:
            return SignalEffect("unknown", detail)
        n = int(m.group(2))
        if m.group(1) and n == 1:
            return SignalEffect("all", detail + " (every process)")
        if n == 1 and not m.group(1):
            return SignalEffect("init", detail + " (PID 1)")
        if n == 0:
            return SignalEffect("own", detail + " (this command's own group)")
        return SignalEffect("own" if n in f.own_pids else "foreign", detail)
    return SignalEffect(classify_subst(an, word), detail)


def classify_subst(an: Analysis, word: Word | None) -> str:
    if word is None or len(word.substitutions) != 1:
        return "unknown"
    sub = word.substitutions[0]
    if node_text(word.node).strip('"').removeprefix("-") != node_text(sub):
        return "unknown"  # `1$(cat own.pid)`: more than the pid (or `-pid`, its group) the file names
    cmds = [c for c in sub.named_children]
    if len(cmds) != 1:
        return "unknown"
    cmd = cmds[0]
    text = node_text(cmd).strip()
    m = re.fullmatch(r"(?:cat|head -n ?1|head -1)\s+(\S+)|<\s*(\S+)", text)
    if m:
        raw = m.group(1) or m.group(2)
        if any(c in raw for c in "$`*?[{"):
            return "unknown"
        try:
            value = shlex.split(raw)[0]
        except (ValueError, IndexError):
            return "unknown"
        # after a `cd` that may fail, every place it may be
        return "own" if agent_pid_files(an, an._path(value).aliases) else "foreign"
    head = text.split()[0] if text.split() else ""
    if head in ("pgrep", "pidof"):
        return "pattern"
    if head in ("lsof", "fuser", "ss", "netstat"):
        return "port"
    return "unknown"


def agent_pid_files(an: Analysis, paths: Iterable[str]) -> bool:
    """Whether every one of these paths is surely one of the agent's pid files."""
    return all(DYN not in p and any(may_match(p, g) for g in an.facts.agent_pid_files) for p in paths)


def pkill(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    args = argv[1:]
    pid_files = [v for _, v in option_values(args, ("-F", "--pidfile"), clustered=False)]
    if inv.program == "pkill" and pid_files:
        # procps reads the last -F given: every one must be the agent's
        own = agent_pid_files(an, [an._path(f).aliases[0] for f in pid_files])
        inv.signals.append(SignalEffect("own" if own else "foreign", f"pkill -F {' '.join(pid_files)}"))
        return
    if inv.program == "killall5":
        inv.signals.append(SignalEffect("all", "killall5 signals every process"))
        return
    if any(a in ("-0", "--signal=0") for a in args) or ("-l" in args and inv.program == "killall"):
        return
    pats = [a for a in args if not a.startswith("-")]
    inv.signals.append(SignalEffect("pattern", f"{inv.program} {' '.join(visible(p) for p in pats)}"))


def fuser(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    if any(a.startswith("-") and not a.startswith("--") and "k" in a for a in argv[1:]) or "--kill" in argv:
        inv.signals.append(SignalEffect("port", "fuser -k kills whatever holds the file or port"))


def gdb_hooks(name: str, args: list[str]) -> list[Hook]:
    """`gdb --args PROG...` runs PROG; `-ex 'shell CMD'` / `-ex '!CMD'` run shell commands."""
    found: list[Hook] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--args":
            if i + 1 < len(args):
                found.append(Hook("gdb --args", argv=tuple(args[i + 1 :])))
            break
        key, eq, val = a.partition("=")
        if key in ("-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--init-eval-command"):
            command = val if eq else (args[i + 1] if i + 1 < len(args) else "")
            found += _gdb_command(command)
            i += 1 if eq else 2
            continue
        if key in ("-x", "--command", "-ix", "--init-command"):
            found.append(Hook("gdb -x", opaque="gdb runs a command file the gate cannot see"))
        i += 1
    return found


def _gdb_command(command: str) -> list[Hook]:
    text = command.strip()
    for prefix in ("shell ", "!", "pipe "):
        if text.startswith(prefix):
            body = text[len(prefix) :]
            if prefix == "pipe ":
                body = body.partition("|")[2]
            return [Hook("gdb -ex shell", code=body)] if body.strip() else []
    if re.match(r"(python|py|python-interactive|pi|guile|gu|source)\b", text):
        return [Hook("gdb -ex", opaque=f"gdb -ex {text[:40]!r} runs script code the gate does not analyse")]
    return []


def strace_hooks(name: str, args: list[str]) -> list[Hook]:
    """`strace -o '!CMD'` pipes the trace into CMD, as `-o '|CMD'` does."""
    return [Hook("strace -o !", code=v[1:]) for _, v in option_values(args, ("-o", "--output"), False) if v[:1] == "!"]


# how it wraps the command it runs, and the options naming a file it writes (wrappers.py,
# through programs/table.py)
WRAPPERS = {
    "strace": wrapper_spec("-o -e -p -s -u -E -P -I -b -O -S -X -a", nocmd=""),
    "ltrace": wrapper_spec("-o -e -p -s -u -E -n -a -A -D -F -l -w"),
}
WRAPPER_LOGS = {"strace": ("-o", "--output"), "ltrace": ("-o", "--output")}
