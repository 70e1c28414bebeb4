"""Wrappers in general: programs that run another program (`sudo`, `env`, `nohup`, `xargs`,
`timeout`, `uv run`...), what each takes for its own options, and the program it runs."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.policy.facts import DYN
from agent.policy.invocation import DEVNULL, Ctx, Invocation, Redirs, Scope, WriteEffect
from agent.policy.options import operands, option_values
from agent.policy.outputs import WRITES_THROUGH_OPTIONS, written_paths
from agent.policy.programs.base import WrapperSpec, visible_words
from agent.policy.programs.base import wrapper_spec as _w
from agent.policy.programs.generic import generic_reads, gpus_from_env
from agent.policy.programs.signals import PROCESS_CHANGERS, TRACERS, process_changer, tracer
from agent.policy.programs.table import RUN_SUBCOMMAND as PROGRAM_RUN_SUBCOMMAND
from agent.policy.programs.table import WRAPPER_LOGS
from agent.policy.programs.table import WRAPPERS as PROGRAM_WRAPPERS

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


# The wrappers with a module under programs/ declare their specs there (programs/table.py
# gathers them: strace, uv run, systemd-run, sem...); below, the others.
WRAPPERS: dict[str, WrapperSpec] = {
    "sudo": _w(
        "-u -g -C -D -h -p -r -t -U -T --user --group --close-from --chdir --host --prompt --role --type "
        "--other-user --command-timeout",
        env=True,
        nocmd="-l -v -k -K -V --list --validate --reset-timestamp --remove-timestamp --version",
    ),
    "doas": _w("-u -C"),
    "pkexec": _w("--user"),
    "run0": _w("-u --user -g --group --unit -p --property --slice -D --chdir --setenv --description"),
    "env": _w("-u --unset -C --chdir -S --split-string -P", env=True),
    "nohup": _w(),
    "setsid": _w(),
    "timeout": _w("-s --signal -k --kill-after", positionals=1),
    "nice": _w("-n --adjustment"),
    "ionice": _w("-c -n --class --classdata", nocmd="-p -P -u --pid --pgid --uid"),
    "stdbuf": _w("-i -o -e --input --output --error"),
    "chroot": _w("--userspec --groups --skip-chdir", positionals=1),
    "xargs": _w(
        "-a -d -E -I -L -n -P -s --arg-file --delimiter --eof --replace --max-lines --max-args "
        "--max-procs --max-chars --process-slot-var",
        appends=True,
    ),
    "watch": _w("-n --interval -q --equexit", join=True),
    "script": _w(
        "-O --log-out -I --log-in -B --log-io -T --log-timing -m --logging-format -E --echo",
        positionals=1,  # its operand is the typescript file, not a command
        shell="-c --command",
    ),
    "time": _w("-o --output -f --format"),
    "command": _w(nocmd="-v -V"),
    "builtin": _w(),
    "exec": _w("-a"),
    "flock": _w("-w --timeout -E --conflict-exit-code", positionals=1, shell="-c --command"),
    "unbuffer": _w(),
    "fakeroot": _w(),
    "faketime": _w("-m -f", positionals=1),
    "chrt": _w(positionals=1, nocmd="-p --pid -m --max"),
    "taskset": _w(positionals=1, nocmd="-p --pid"),
    "numactl": _w(
        "-C -N -m -i -p -P -w --physcpubind --cpunodebind --membind --interleave --preferred "
        "--preferred-many --weighted-interleave"
    ),
    "cgexec": _w("-g"),
    "nsenter": _w("-t --target -S --setuid -G --setgid"),
    "unshare": _w("--map-user --map-group --propagation --setgroups --wd -w"),
    "runuser": _w("-u --user -g --group -G --supp-group -s --shell -w --whitelist-environment", shell="-c --command"),
    "su": _w("-s --shell -g --group -G --supp-group -w --whitelist-environment", shell="-c --command"),
    "sg": _w(positionals=1, shell="-c"),
    "ssh": _w(
        "-p -i -l -o -F -J -L -R -D -b -c -E -e -m -O -Q -S -W -w -B -I",
        positionals=1,
        join=True,
    ),
    "busybox": _w(),
    "newgrp": _w(positionals=1),
    "coproc": _w(),
    "dbus-run-session": _w(),
    "xvfb-run": _w("-n -s -f -e -p"),
    "catchsegv": _w(),
    "valgrind": _w(),  # its own options are all `--name=value`, so the first word without `-` is the program
    "chronic": _w(),
    "proxychains": _w("-f"),
    "proxychains4": _w("-f"),
    "torsocks": _w(),
    "firejail": _w(),
    "prlimit": _w(nocmd="-p --pid"),  # with a pid it changes that process and runs nothing
    "setpriv": _w(
        "--reuid --regid --ruid --euid --rgid --egid --groups --inh-caps --ambient-caps --bounding-set "
        "--securebits --pdeathsig --selinux-label --apparmor-profile --landlock-access --landlock-rule",
        nocmd="-d --dump",
    ),
    "with-lock-ex": _w(positionals=1),
    **PROGRAM_WRAPPERS,
}


# `uv run CMD`, `conda run -n X CMD`, `poetry run CMD`, `pipx run CMD`: the word `run` comes first
RUN_SUBCOMMAND = PROGRAM_RUN_SUBCOMMAND


# `env`/`sudo` take any word with a `=` before the command for an assignment, `A.B=1` and
# `BASH_FUNC_f%%=() {...}` included, even after `--`; a name only known at run time is not one
_WRAPPER_ASSIGNMENT = re.compile(r"^[^=\x00\x01]+=")


IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _split_cluster_value(arg: str, spec: WrapperSpec) -> tuple[bool, str | None]:
    """For `-uroot` style clusters: (takes a value, the attached value if any)."""
    if len(arg) >= 2 and "-" + arg[1] in spec.value_opts:
        rest = arg[2:]
        return True, rest or None
    return False, None


@dataclass(slots=True)
class Unwrapped:
    inner: list[str]
    env: dict[str, str]
    shell_code: list[str]
    own_args: list[str]
    cwd: str | None = None
    appends: bool = False


def unwrap(name: str, argv: list[str]) -> Unwrapped | None:
    """Split a wrapper's own options from the command it runs; None when it runs nothing."""
    spec = WRAPPERS[name]
    args = argv[1:]
    if name in ("su", "runuser", "sg"):
        return _unwrap_su(args, name)
    if name in RUN_SUBCOMMAND:
        if not args or args[0] != "run":
            return None
        args = args[1:]
    env: dict[str, str] = {}
    shell_code: list[str] = []
    own: list[str] = []
    cwd: str | None = None
    i = 0
    positionals = spec.positionals
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if name == "nsenter" and (a.startswith("--wd") or a.startswith("-w")):
            # `--wd[=DIR]`, `-w[DIR]`: DIR, or the target process's own directory (unknown)
            given = a.partition("=")[2] if a.startswith("--wd") else a[2:]
            cwd = given or DYN
            own.append(a)
            i += 1
            continue
        if a.startswith("--") and len(a) > 2:
            key, eq, val = a.partition("=")
            if key in spec.no_cmd_opts:
                return None
            own.append(a)
            if key in spec.shell_opts or key in spec.value_opts:
                if not eq:
                    i += 1
                    val = args[i] if i < len(args) else ""
                    own.append(val)
                if key in spec.shell_opts:
                    shell_code.append(val)
                if key in ("--chdir", "--working-directory", "--wd"):
                    cwd = val
                if key == "--split-string":
                    return _split_string(val, args[i + 1 :], env, own)
            i += 1
            continue
        if a.startswith("-") and len(a) > 1 and not (positionals and a[1:].isdigit() and name == "chrt"):
            no_cmd = spec.no_cmd_opts
            if no_cmd and (a in no_cmd or (len(a) > 2 and any("-" + c in no_cmd for c in a[1:]))):
                return None
            own.append(a)
            shell_opts = spec.shell_opts
            if shell_opts and (a[:2] in shell_opts or any("-" + c in shell_opts for c in a[1:])):
                # su -lc 'cmd' / script -qc 'cmd': the code is the attached rest or the next word
                idx = next(k for k, c in enumerate(a[1:], 1) if "-" + c in spec.shell_opts)
                rest = a[idx + 1 :]
                if rest:
                    shell_code.append(rest)
                else:
                    i += 1
                    shell_code.append(args[i] if i < len(args) else "")
                i += 1
                continue
            takes, attached = _split_cluster_value(a, spec)
            if takes and attached is not None and a[:2] in ("-C", "-D") and name in ("env", "sudo"):
                cwd = attached  # `sudo -D/proc ...`
            if a in spec.value_opts or (takes and attached is None):
                i += 1
                val = args[i] if i < len(args) else ""
                own.append(val)
                if (a in ("-C", "-D") and name in ("env", "sudo")) or (a == "-w" and name == "unshare"):
                    cwd = val
                if a == "-S" and name == "env":
                    return _split_string(val, args[i + 1 :], env, own)
            elif takes and a[:2] == "-S" and name == "env" and attached:
                return _split_string(attached, args[i + 1 :], env, own)
            i += 1
            continue
        if spec.env_assign and _WRAPPER_ASSIGNMENT.match(a):
            k, _, v = a.partition("=")
            env[k] = v
            i += 1
            continue
        if positionals:
            own.append(a)
            positionals -= 1
            i += 1
            continue
        break
    while spec.env_assign and i < len(args) and _WRAPPER_ASSIGNMENT.match(args[i]):  # after `--`
        k, _, v = args[i].partition("=")
        env[k] = v
        i += 1
    inner = args[i:]
    if spec.join_shell and inner:
        code = " ".join(inner)
        return Unwrapped([], env, [*shell_code, code], own, cwd)
    if not inner and not shell_code:
        if name == "xargs":
            inner = ["echo"]
        elif name in ("sudo", "doas", "run0") and any(o in ("-s", "-i") for o in own):
            inner = ["sh"]  # a root shell reading its commands from stdin
        elif name in ("script", "newgrp"):
            inner = ["sh"]  # a new shell, reading its commands from stdin
        else:
            return None
    return Unwrapped(inner, env, shell_code, own, cwd, spec.appends_args)


def _unwrap_su(args: list[str], name: str = "su") -> Unwrapped | None:
    """`su [-] [user] -c CODE`, `su -lc CODE`, `runuser -u u -- cmd`: -c may come anywhere;
    without one, a login shell that reads its commands from stdin. `sg GROUP CMD` runs CMD."""
    if name == "sg":
        words = [a for a in args if a != "-c"]
        return (
            Unwrapped([], {}, [" ".join(words[1:])], words[:1]) if len(words) > 1 else Unwrapped(["sh"], {}, [], args)
        )
    for k, a in enumerate(args):
        if a in ("-c", "--command") or (
            a.startswith("-") and not a.startswith("--") and a.endswith("c") and len(a) > 2
        ):
            return Unwrapped([], {}, [args[k + 1] if k + 1 < len(args) else ""], args[:k])
        if a.startswith("--command="):
            return Unwrapped([], {}, [a.partition("=")[2]], args[:k])
        if a == "--":
            return Unwrapped(args[k + 1 :] or ["sh"], {}, [], args[:k])
    return Unwrapped(["sh"], {}, [], args)


def _split_string(s: str, rest: list[str], env: dict[str, str], own: list[str]) -> Unwrapped:
    try:
        words = shlex.split(s)
    except ValueError:
        words = [DYN]
    inner = words + rest
    while inner and _WRAPPER_ASSIGNMENT.match(inner[0]):
        k, _, v = inner.pop(0).partition("=")
        env[k] = v
    return Unwrapped(inner, env, [], own)


def _xargs_token(own: list[str]) -> str | None:
    """The replace-string of `xargs -I{}` / `-I {}` / `--replace[=R]` / `-i`."""
    for k, a in enumerate(own):
        if a == "-I" and k + 1 < len(own):
            return own[k + 1]
        if a.startswith("-I") and len(a) > 2:
            return a[2:]
        if a.startswith("--replace"):
            return a.partition("=")[2] or "{}"
        if a == "-i" or (a.startswith("-i") and not a.startswith("--")):
            return a[2:] or "{}"
    return None


# wrappers' options naming a file they write (a trace, a timing, a typescript)
_WRAPPER_LOGS = {
    **WRAPPER_LOGS,
    "time": ("-o", "--output"),
    "script": ("-O", "--log-out", "-I", "--log-in", "-B", "--log-io", "-T", "--log-timing"),
}


def wrapper(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    name = inv.program
    outer_words = an._current_words
    if name == "busybox":
        if len(argv) < 2:
            an._emit(inv, ctx, scope)
            return
        an._argv(argv[1:], None, env, {}, scope, Ctx((*ctx.via, "busybox"), ctx.redirs, ctx.stdin), inv.text)
        return
    if name in TRACERS:  # `strace -p 1`: attached to a process while wrapping nothing
        tracer(an, inv, argv, env, scope, ctx)
    if name == "coproc" and "{" in argv[1:]:  # `coproc NAME { CMD; }`: tree-sitter splits the body
        an._opaque(inv.text, ctx, "coproc with a named body the gate cannot parse", name)
        return
    un = unwrap(name, argv)
    inv.wrapper = True
    if un is None:
        inv.wrapper = False  # runs nothing else: judged as itself (`env` alone prints secrets)
        if name in PROCESS_CHANGERS:  # `prlimit --pid P`, `taskset -p M P`: the process it changes
            process_changer(an, inv, argv, env, scope, ctx)
        generic_reads(an, inv)
        if name in WRITES_THROUGH_OPTIONS:  # `uv venv DIR`
            inv.writes += [WriteEffect(an._path(p)) for p in written_paths(name, argv[1:])]
        an._emit(inv, ctx, scope)
        return
    inv.args = un.own_args
    inv.env = {**inv.env, **un.env}
    logs = _WRAPPER_LOGS.get(name)
    if logs:  # `time -o F`, `-oF`, `--output=F`; `script --log-out=F` and its typescript
        written = [v for _, v in option_values(un.own_args, logs, clustered=False)]
        if name == "script":
            written += [a for a in operands(un.own_args, WRAPPERS["script"].value_opts)][-1:]
        for p in written:
            ref = an._path(p)
            if ref.aliases[0] not in DEVNULL and not p.startswith(("|", "!")):
                inv.writes.append(WriteEffect(ref))
    if name == "xargs":  # `xargs -a F`: F's words become the arguments (echo prints them)
        for _, p in option_values(un.own_args, ("-a", "--arg-file"), clustered=False):
            inv.reads.append(an._path(p))
    gpus_from_env(an, inv, {**env, **un.env})
    an._emit(inv, Ctx(ctx.via, Redirs(), ctx.stdin), scope)
    via = (*ctx.via, name)
    inner_env = {**env, **un.env}
    sub_scope = scope
    if un.cwd is not None:
        sub_scope = scope.copy()
        sub_scope.cwd = an._path(un.cwd).aliases[0] if DYN not in un.cwd else None
        if un.cwd.startswith("/"):
            sub_scope.also = ()  # `env -C /dir` runs nothing unless it got there
    inner_ctx = Ctx(via, ctx.redirs, ctx.stdin)
    for code in un.shell_code:
        an._shell_string(code, inner_env, sub_scope, inner_ctx, f"{name} -c")
    if un.inner:
        inner = un.inner + ([DYN] if un.appends else [])
        token = _xargs_token(un.own_args) if name == "xargs" else None
        if token:
            inner = [a.replace(token, DYN) for a in un.inner]
        inner_words = None
        if outer_words is not None and not un.appends and argv[len(argv) - len(un.inner) :] == un.inner:
            inner_words = outer_words[len(argv) - len(un.inner) :]
        old = an._scope_cwd
        an._scope_cwd = sub_scope.cwd
        an._wrapped = True
        an._argv(
            inner,
            inner_words,
            inner_env,
            un.env,
            sub_scope,
            inner_ctx,
            visible_words(inner)[:300],
        )
        an._scope_cwd = old
