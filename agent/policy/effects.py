"""What a bash command line does: every program it runs, through every wrapper, with the files
it writes, deletes and reads, the signals it sends, the environment it sets and the GPUs it uses.

`analyse(command, facts)` returns one `Invocation` per program that would run. An invocation
the gate cannot judge (a variable in the command position, `eval` of run-time text, a decoded
or downloaded payload fed to a shell, a script written and run in one go, a parse error)
carries `opaque`, the reason, and is never allowed.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from tree_sitter import Node, Query, QueryCursor

from agent.policy import arith, pyeffects
from agent.policy.awk import awk_effects, read_awk
from agent.policy.facts import DYN, GLOB, Facts, aliases, may_match, normalise_path, visible
from agent.policy.hooks import (
    ENV_PRINTERS,
    HOOKED_PROGRAMS,
    Hook,
    cron_hooks,
    env_hooks,
    environment_hooks,
    file_hooks,
    has_env_hooks,
    option_hooks,
    printenv_hooks,
    runs_later,
)
from agent.policy.options import cluster_option, git_global_options, long_option, operands, option_values
from agent.policy.outputs import (
    COMPRESSORS,
    MOVERS,
    WRITES_THROUGH_OPTIONS,
    git_trace_files,
    moved_files,
    replaced_files,
    written_paths,
)
from agent.policy.recursive import (
    RECURSIVE_READERS,
    SEARCHERS,
    in_secret_location,
    reads_recursively,
    search_roots,
    secrets_within,
)
from agent.policy.sed import read_sed, sed_commands
from agent.policy.shellparse import (
    LANGUAGE,
    ContinuationHazard,
    Word,
    decode_ansi_c,
    expanded_names,
    first_error,
    node_text,
    parse_ascii,
    plain_value,
    resolve_text,
    resolve_word,
    resolve_word_slow,
)
from agent.policy.tar import read_tar

MAX_DEPTH = 8
_CHANGES_DIRECTORY = re.compile(r"\b(cd|pushd|popd)\b")
MAX_CWDS = 4  # directories a run of `cd`s may have left the command in, before it counts as unknown


@dataclass(frozen=True, slots=True)
class PathRef:
    raw: str
    aliases: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WriteEffect:
    path: PathRef
    content: str | None = None  # None: not known before it runs


@dataclass(frozen=True, slots=True)
class SignalEffect:
    target: str  # own, init, all, foreign, pattern, port, unknown
    detail: str


@dataclass(slots=True)
class Invocation:
    program: str
    path: str
    args: list[str]
    text: str
    env: dict[str, str] = field(default_factory=dict)
    writes: list[WriteEffect] = field(default_factory=list)
    deletes: list[PathRef] = field(default_factory=list)
    reads: list[PathRef] = field(default_factory=list)
    signals: list[SignalEffect] = field(default_factory=list)
    gpus: frozenset[str] | None = None  # "3", "pci:0000:41:00.0", "all"
    via: tuple[str, ...] = ()
    opaque: str | None = None
    wrapper: bool = False
    tool: str = "run_command"
    cwd: str | None = None  # where it runs: relative path arguments are judged from here
    prints: tuple[str, ...] = ()  # variables it prints into the transcript by name ("*": every one)

    def describe(self) -> str:
        words = " ".join([self.path or self.program, *self.args])
        if DYN in words or GLOB in words:
            words = visible(words)
        return words if not self.via else f"{words}  (via {' > '.join(self.via)})"


@dataclass(slots=True)
class Stdin:
    """What feeds a command's standard input."""

    kind: str  # literal, file, opaque, none
    text: str = ""  # literal content, file path, or what produced it

    @staticmethod
    def none() -> Stdin:
        return Stdin("none")


@dataclass(slots=True)
class Scope:
    vars: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    functions: set[str] = field(default_factory=set)
    dirs: list[str | None] = field(default_factory=list)  # pushd's stack, beneath cwd
    # where the command may also be: a `cd` can fail (a missing directory, a file, no permission)
    # and bash then stays where it was, so every directory it might have left counts too
    also: tuple[str | None, ...] = ()

    def copy(self) -> Scope:
        return Scope(dict(self.vars), dict(self.env), self.cwd, set(self.functions), list(self.dirs), self.also)


@dataclass(slots=True)
class Redirs:
    writes: list[WriteEffect] = field(default_factory=list)
    reads: list[PathRef] = field(default_factory=list)


SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "fish", "csh", "tcsh", "rbash"}
PY_RE = re.compile(r"^(python[0-9.]*|pypy[0-9.]*)$")
OTHER_INTERPRETERS = {"perl": "-e", "ruby": "-e", "node": "-e", "php": "-r", "lua": "-e", "nodejs": "-e"}
PRODUCERS_OPAQUE = {
    "base64": "decoded",
    "base32": "decoded",
    "basenc": "decoded",
    "xxd": "decoded",
    "openssl": "decoded",
    "gzip": "decompressed",
    "gunzip": "decompressed",
    "zcat": "decompressed",
    "bzcat": "decompressed",
    "xzcat": "decompressed",
    "curl": "downloaded",
    "wget": "downloaded",
    "nc": "received",
    "ncat": "received",
    "socat": "received",
    "ssh": "received",
    "rev": "transformed",
    "tr": "transformed",
    "sed": "transformed",
    "awk": "transformed",
    "perl": "generated",
    "python": "generated",
    "python3": "generated",
    "printf": "formatted",
}
NON_READERS = {
    "ls",
    "stat",
    "readlink",
    "realpath",
    "test",
    "[",
    "file",
    "basename",
    "dirname",
    "mkdir",
    "touch",
    "rm",
    "rmdir",
    "unlink",
    "chmod",
    "chown",
    "chgrp",
    "du",
    "df",
    "echo",
    "printf",
    "cd",
    "which",
    "type",
    "command",
    "lsof",
    "fuser",
    "namei",
    "kill",
    "tee",
}
SECRET_LIKE = re.compile(r"(^|/)(id_[a-z0-9]+|[^/]*\.env|\.env[^/]*|[^/]*token[^/]*|\.netrc|[^/]*\.pem|[^/]*\.key)$")
PATTERN_FIRST = frozenset(("grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "jq", "yq"))
PATTERN_OPTIONS = frozenset(("-e", "--regexp", "-f", "--file", "--from-file"))
STDIN_PATHS = frozenset(("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"))
DEVNULL = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"}
NVSMI_MODIFY = {
    "-r",
    "--gpu-reset",
    "-pl",
    "--power-limit",
    "-pm",
    "--persistence-mode",
    "-e",
    "--ecc-config",
    "-p",
    "--reset-ecc-errors",
    "-c",
    "--compute-mode",
    "-lgc",
    "--lock-gpu-clocks",
    "-rgc",
    "--reset-gpu-clocks",
    "-lmc",
    "--lock-memory-clocks",
    "-rmc",
    "--reset-memory-clocks",
    "-ac",
    "--applications-clocks",
    "-rac",
    "--reset-applications-clocks",
    "-mig",
    "--multi-instance-gpu",
    "-am",
    "--accounting-mode",
    "-caa",
    "-dm",
    "--driver-model",
    "-fdm",
    "--gom",
    "-cc",
    "--cuda-clocks",
    "-gtt",
    "--gpu-target-temp",
    "-lmcd",
    "--lock-memory-clocks-deviceMode",
    "--lock-memory-clocks-deferred",
    "-acp",
    "--applications-clocks-permission",
    "--auto-boost-default",
    "--auto-boost-permission",
    "--clear-accounted-apps",
    "-pdm",
    "--power-profile",
    "-vm",
    "--virt-mode",
}


# nvidia-smi subcommands that change settings whatever their options say (listing aside)
NVSMI_SETTING_SUBCOMMANDS = frozenset(("boost-slider", "power-smoothing", "power-hint", "set-hostname"))


@dataclass(frozen=True)
class WrapperSpec:
    value_opts: frozenset[str] = frozenset()
    positionals: int = 0  # operands before the wrapped command (timeout's duration, chroot's root)
    env_assign: bool = False
    shell_opts: frozenset[str] = frozenset()  # options whose value is shell code (su -c, script -c)
    no_cmd_opts: frozenset[str] = frozenset()  # options that mean nothing is wrapped
    join_shell: bool = False  # the remaining words are joined and run by a shell (watch, ssh)
    appends_args: bool = False  # xargs: more arguments arrive at run time


def _w(
    value: str = "",
    positionals: int = 0,
    env: bool = False,
    shell: str = "",
    nocmd: str = "",
    join: bool = False,
    appends: bool = False,
) -> WrapperSpec:
    return WrapperSpec(
        frozenset(value.split()),
        positionals,
        env,
        frozenset(shell.split()),
        frozenset(nocmd.split()),
        join,
        appends,
    )


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
    "strace": _w("-o -e -p -s -u -E -P -I -b -O -S -X -a", nocmd=""),
    "ltrace": _w("-o -e -p -s -u -E -n -a -A -D -F -l -w"),
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
    "systemd-run": _w(
        "--unit -u -p --property --description --slice --uid --gid -E --setenv -M --machine -H --host "
        "--working-directory --on-active --on-boot --on-startup --on-unit-active --on-unit-inactive "
        "--on-calendar --timer-property --path-property --socket-property --nice --service-type "
        "--expand-environment"
    ),
    "systemd-inhibit": _w("--what --who --why --mode"),
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
    "prlimit": _w("-p --pid"),
    "setpriv": _w(
        "--reuid --regid --ruid --euid --rgid --egid --groups --inh-caps --ambient-caps --bounding-set "
        "--securebits --pdeathsig --selinux-label --apparmor-profile --landlock-access --landlock-rule",
        nocmd="-d --dump",
    ),
    "systemd-cat": _w("-t --identifier -p --priority --stderr-priority --level-prefix"),
    "with-lock-ex": _w(positionals=1),
    "sem": _w(),
    "uv": _w(),
    "conda": _w("-n --name -p --prefix"),
    "poetry": _w(),
    "pipx": _w(),
}
# `uv run CMD`, `conda run -n X CMD`, `poetry run CMD`, `pipx run CMD`: the word `run` comes first
RUN_SUBCOMMAND = {"uv", "conda", "poetry", "pipx", "mamba", "micromamba", "pixi"}


# `env`/`sudo` take any word with a `=` before the command for an assignment, `A.B=1` and
# `BASH_FUNC_f%%=() {...}` included, even after `--`; a name only known at run time is not one
_WRAPPER_ASSIGNMENT = re.compile(r"^[^=\x00\x01]+=")
_IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _visible_words(words: list[str]) -> str:
    """The words joined by spaces, markers shown as a person would read them."""
    text = " ".join(words)
    return visible(text) if DYN in text or GLOB in text else text


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


# options of the copying programs that take a value (short ones may end a cluster: `-ft/models`)
_COPY_VALUES: dict[str, frozenset[str]] = {
    "cp": frozenset(("-S", "--suffix", "-t", "--target-directory", "--sparse", "--no-preserve")),
    "install": frozenset(
        ("-S", "--suffix", "-t", "--target-directory", "-m", "--mode", "-o", "--owner", "-g", "--group",
         "--strip-program")
    ),
    "scp": frozenset(("-c", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X", "-D")),
    "rsync": frozenset(
        ("-e", "--rsh", "-B", "--block-size", "-T", "--temp-dir", "-f", "--filter", "-M", "--remote-option",
         "--exclude", "--include", "--exclude-from", "--include-from", "--files-from", "--rsync-path", "--log-file",
         "--log-file-format", "--password-file", "--partial-dir", "--backup-dir", "--suffix", "--compare-dest",
         "--copy-dest", "--link-dest", "--chmod", "--chown", "--usermap", "--groupmap", "--timeout", "--contimeout",
         "--address", "--port", "--sockopts", "--out-format", "--bwlimit", "--max-size", "--min-size",
         "--max-delete", "--max-alloc", "--modify-window", "--iconv", "--write-batch", "--only-write-batch",
         "--read-batch", "--protocol", "--checksum-choice", "--cc", "--compress-choice", "--zc",
         "--compress-level", "--zl", "--skip-compress", "--info", "--debug", "--stderr", "--outbuf",
         "--copy-as", "--stop-after", "--stop-at", "--time-limit", "--checksum-seed", "--early-input")
    ),
}  # fmt: skip
_COPY_VALUES["mv"] = _COPY_VALUES["ln"] = frozenset(("-S", "--suffix", "-t", "--target-directory"))
# rsync options naming a file or directory it writes
RSYNC_WRITTEN_OPTIONS = frozenset(
    ("--log-file", "-T", "--temp-dir", "--backup-dir", "--partial-dir", "--write-batch", "--only-write-batch")
)
RSYNC_DIRS = frozenset(("-T", "--temp-dir", "--backup-dir", "--partial-dir"))
_GNU_TARGET = "--target-directory"


def _makes_symlinks(args: list[str], long: str) -> bool:
    """`ln -s`/`--sym...`, `cp -s`/`--symbolic-link`: `-s` in a cluster, or `long` abbreviated."""
    return any(a.startswith("-") and not a.startswith("--") and "s" in a for a in args) or any(
        len(a) > 3 and long.startswith(a) for a in args
    )


_PRINTF_SPEC = re.compile(r"%(%|[sbd])")


def printf_text(fmt: str, args: list[str]) -> str | None:
    """What `printf FORMAT ARGS...` prints when FORMAT uses only %s, %b, %d and %%: the format is
    reused until the arguments run out, as bash does; None for anything else."""
    if fmt.startswith("-") or re.search(r"%(?![sbd])", fmt.replace("%%", "")):
        return None
    template = decode_ansi_c(fmt)
    if not _PRINTF_SPEC.search(template.replace("%%", "")):
        return template.replace("%%", "%")
    out: list[str] = []
    rest = list(args)
    while True:

        def fill(m: re.Match[str]) -> str:
            if m.group(1) == "%":
                return "%"
            value = rest.pop(0) if rest else ""
            return decode_ansi_c(value) if m.group(1) == "b" else value

        out.append(_PRINTF_SPEC.sub(fill, template))
        if not rest:
            return "".join(out)


def _cp_keeps_links(args: list[str]) -> bool:
    short = "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
    return any(c in short for c in "PdaRr") or any(
        a.startswith(("--no-dereference", "--archive", "--recursive")) for a in args
    )


def copy_operands(name: str, args: list[str]) -> tuple[list[str], str | None, list[tuple[str, str]]]:
    """(operands, the `-t DIR` target if given, (option, value) pairs) of cp, mv, ln, install, scp
    or rsync, read as their option parsers read them: `-t/models`, `-ft/models`, `--target=/models`
    (GNU takes any unambiguous abbreviation of a long option), `rsync -P` (a flag)."""
    values = _COPY_VALUES.get(name, frozenset(("-S", "--suffix")))
    gnu = name in ("cp", "mv", "ln", "install")
    pos: list[str] = []
    valued: list[tuple[str, str]] = []
    target: str | None = None
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else DYN
        if a == "--":
            pos += args[i + 1 :]
            break
        if a.startswith("--"):
            key, eq, val = a.partition("=")
            if gnu and len(key) > 3 and _GNU_TARGET.startswith(key):
                key = _GNU_TARGET
            if key in values:
                valued.append((key, val if eq else nxt))
                i += 1 if eq else 2
                continue
            i += 1
            continue
        if a.startswith("-") and a != "-":
            hit = cluster_option(a, values)
            if hit is not None:
                opt, rest = hit
                valued.append((opt, rest or nxt))
                i += 0 if rest else 1
            i += 1
            continue
        pos.append(a)
        i += 1
    for opt, value in valued:
        if opt in ("-t", _GNU_TARGET) and name != "scp":
            target = value
    return pos, target, valued


def bind_mounts(args: list[str]) -> list[tuple[str, bool]]:
    """(host path, read-only) of each bind mount a container gets: `-v /src:/dst[:ro]`,
    `--volume=...`, `--mount type=bind,source=/src,...`; named volumes are not host paths."""
    found: list[tuple[str, bool]] = []
    for opt, value in option_values(args, ("-v", "--volume", "--mount"), clustered=True):  # `-dv SRC:DST`
        if opt == "--mount":
            fields = dict(f.partition("=")[::2] for f in value.split(","))
            source = fields.get("source", fields.get("src", ""))
            read_only = "readonly" in fields or "ro" in fields or fields.get("readonly") == "true"
        else:
            source, _, rest = value.partition(":")
            read_only = "ro" in rest.split(":")[-1].split(",") if ":" in rest else False
        if source.startswith(("/", "~", ".", DYN)):
            found.append((source, read_only))
    return found


# ---------------------------------------------------------------- the analyser


@dataclass(slots=True)
class Ctx:
    """Where one statement runs: wrappers around it, redirects on it, what feeds its stdin."""

    via: tuple[str, ...] = ()
    redirs: Redirs = field(default_factory=Redirs)
    stdin: Stdin = field(default_factory=Stdin.none)


class Analyser:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.invocations: list[Invocation] = []
        self.written: set[str] = set()
        self.links: dict[str, str] = {}
        # the unsafe variables, or (what was unsafe outside, the tree still to be looked at):
        # most commands set and expand no variable, and the look is made only when asked for
        self._unsafe: UnsafeState = set()
        self._env_hooks_judged: set[tuple[str, str]] = set()
        self.hashed: dict[str, str] = {}  # `hash -p PATH NAME` earlier in the command
        self._arith_counters: set[str] = set()  # `for ((i=0; ...; i++))`: numbers by construction
        # after `declare -n r=x`, setting r sets x: no variable's value can be assumed from then on
        self._namerefs = False
        self._function_bodies: dict[str, tuple[Node, str | None]] = {}  # to judge a call fed stdin
        self._associative: set[str] = set()  # arrays declared `-A` in this command
        self._wrapped = False  # the next `_argv` is a wrapper's program: a function of that name is not it
        self._allexport = False  # after `set -a`, every assignment is exported
        self._path_named = False  # the command's text names PATH somewhere (most do not)
        # node id of a command -> its words that tree-sitter hung on a redirect after it
        self._extra_words: dict[int, list[Node]] = {}
        self._calling: set[str] = set()
        self._command_node: Node | None = None  # the simple command being judged
        self._shopt_seen = False  # a `shopt` ran earlier: `cdable_vars` may be on
        self.unseen_python = False  # a .py of unseen text was written: Python may import it
        # something named, listed or read a secret location (`ls ~/.ssh | xargs cat`): see
        # `_note_secret_words`, `_emit`
        self.listed_secrets = False
        self._cwd_guards: list[tuple[tuple[int, int], tuple[str | None, ...]]] = []  # see `_list`

    # -- entry points

    def run_source(self, source: str, scope: Scope, ctx: Ctx, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            self._opaque(source, ctx, "shell code nested more than 8 levels deep")
            return
        try:
            tree, src = parse_ascii(source)
        except ContinuationHazard as hazard:
            self._opaque(source, ctx, str(hazard))
            return
        root = tree.root_node
        err = first_error(root)
        if err is not None:
            near = node_text(err)[:40] or source[err.start_byte : err.start_byte + 40]
            self._opaque(source, ctx, f"bash cannot parse it as written (near {near!r})")
            return
        saved = self._unsafe
        self._unsafe = (saved, root)
        self._depth = depth
        self._path_named = self._path_named or "PATH" in source
        saved_src, self._src = self._src, src
        if "`" in source:
            self._stray_backticks(root, scope, ctx)
        self._node(root, scope, ctx)
        self._unsafe = saved
        self._src = saved_src

    @property
    def unsafe_vars(self) -> set[str]:
        """Variables whose value must not be assumed here (see `_unsafe_variables`)."""
        state = self._unsafe
        if isinstance(state, tuple):
            state = self._unsafe = _resolve_unsafe(state)
        return state

    @unsafe_vars.setter
    def unsafe_vars(self, value: set[str]) -> None:
        self._unsafe = value

    def _opaque(self, text: str, ctx: Ctx, reason: str, program: str = "") -> None:
        shown = visible(text) if DYN in text or GLOB in text else text  # markers as a person reads them
        self.invocations.append(Invocation(program, program, [], shown.strip()[:200], via=ctx.via, opaque=reason))

    def _stray_backticks(self, root: Node, scope: Scope, ctx: Ctx) -> None:
        """`` `CMD` `` where tree-sitter kept it as text (a here-document's body, `${x:-`CMD`}`,
        `[[ a =~ `CMD` ]]`): bash runs CMD there all the same, so it is judged as `$(CMD)` is."""
        stack = [root]
        while stack:
            n = stack.pop()
            if n.type in ("raw_string", "ansi_c_string"):
                continue
            if n.type == "heredoc_redirect":
                start = next((c for c in n.named_children if c.type == "heredoc_start"), None)
                if start is not None and any(q in node_text(start) for q in "'\"\\"):
                    continue  # a quoted here-document's body is text
            if n.child_count == 0 or n.type in ("heredoc_body", "regex", "word"):
                text = node_text(n)
                for m in re.finditer(r"(?<!\\)`((?:[^`\\]|\\.)*)`", text):
                    via = Ctx((*ctx.via, "`...`"))
                    self._same_shell_string(m.group(1).replace("\\`", "`"), scope, via, "`...`")
                if n.type != "heredoc_body":
                    continue
            stack.extend(n.children)

    def _path_unknown(self) -> bool:
        unsafe = self.unsafe_vars
        if isinstance(unsafe, _EveryName):  # after a trap or IFS: PATH if it is set anywhere here
            return _SETS_PATH.search(self._src or "") is not None
        return "PATH" in unsafe

    def _note_secret_words(self, words: list[str]) -> None:
        """A secret location named anywhere in the command (`bash -c 'cat "$1"' _ ~/.ssh/id_rsa`,
        `f=~/.ssh/id_rsa` in a trap's text): a file named only at run time may be that secret."""
        if self.listed_secrets:
            return
        home = self.facts.home
        # and where a link (a host fact's, `/proc/N/root`) leads into one
        roots = (*_SECRET_ROOTS, *((home,) if home else ()), *self.facts.known_symlinks, *self.links)
        for word in words:
            if "/" not in word and "~" not in word:
                continue  # most words: no path at all
            # `a=x,/home/ops/.ssh/id_rsa` split on IFS, `--key=/root/.ssh/id_rsa`
            for w in re.split(r"[,:;=\s]+", word) if any(c in word for c in ",:;= \t") else (word,):
                if not (w.startswith(roots) or (w[:1] == "/" and ".." in w)):
                    continue  # the secret locations lie in homes and a few system directories
                if any(in_secret_location(p, home) for p in self._path(w).aliases):
                    self.listed_secrets = True
                    return

    # -- arithmetic (arith.py asks these)

    def arith_variable(self, name: str, scope: object) -> str | None:
        if name in self._arith_counters:
            return "0"
        assert isinstance(scope, Scope)
        value = self._lookup(scope)(name)  # type: ignore[operator]
        return value if isinstance(value, str) else None

    def arith_code(self, code: str, scope: object, ctx: object) -> None:
        assert isinstance(scope, Scope) and isinstance(ctx, Ctx)
        self._shell_string(code, dict(scope.env), scope, Ctx((*ctx.via, "arithmetic")), "a subscript bash evaluates")

    def arith_opaque(self, text: str, ctx: object, reason: str) -> None:
        assert isinstance(ctx, Ctx)
        self._opaque(text, ctx, reason)

    def _arithmetic_in_word(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`$((...))`, `$[...]`, `${a[...]}` and `${!x}` inside a word: evaluated as arithmetic."""
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "arithmetic_expansion":
                text = node_text(n)
                arith.evaluate_source(self, text[3:-2] if text.startswith("$((") else text[2:-1], scope, ctx)
                continue
            if n.type == "expansion":
                text = node_text(n)
                if text.endswith("@P}") and _IDENTIFIER_RE.fullmatch(text[2:-3]):
                    # `${x@P}` expands x's value as a prompt: a `$(...)` in it runs
                    value = self.arith_variable(text[2:-3], scope)
                    if value is None:
                        self._opaque(
                            text, ctx, "a prompt expansion of a value only known at run time runs what it holds"
                        )
                    else:
                        self._shell_string(f": {value}", dict(scope.env), scope, Ctx((*ctx.via, "${x@P}")), "${x@P}")
                if text.startswith("${!") and _IDENTIFIER_RE.fullmatch(text[3:-1]):
                    target = self.arith_variable(text[3:-1], scope)
                    arith.evaluate_name(self, DYN if target is None else target, scope, ctx)
                for sub in n.named_children:
                    index = sub.child_by_field_name("index") if sub.type == "subscript" else None
                    array = sub.child_by_field_name("name") if sub.type == "subscript" else None
                    if array is not None and node_text(array) in self._associative:
                        continue  # `${m[key]}` of a `declare -A` array: a string, not arithmetic
                    if index is not None and node_text(index) not in ("@", "*"):
                        arith.evaluate_source(self, node_text(index), scope, ctx)
            stack.extend(n.named_children)

    def _subscript_name(self, name_node: Node, scope: Scope, ctx: Ctx) -> None:
        """`a[EXPR]=v`: EXPR is judged (a substitution in it runs) and evaluated as arithmetic."""
        index = name_node.child_by_field_name("index")
        array = name_node.child_by_field_name("name")
        if index is not None:
            self._word(index, scope, ctx)
            if array is None or node_text(array) not in self._associative:
                arith.evaluate_source(self, node_text(index), scope, ctx)

    def _arith_compound(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`(( EXPR ))` is arithmetic; `{ ...; }` is a group of commands."""
        first = node.children[0] if node.children else None
        if first is not None and first.type == "((":
            text = node_text(node).strip()
            self._children(node, scope, ctx)
            arith.evaluate_source(self, text[2:-2] if text.endswith("))") else text[2:], scope, ctx)
        else:
            self._children(node, scope, ctx)

    def _c_for(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`for ((INIT; COND; STEP))`: names the header assigns numbers to count as numbers."""
        parts = [node.child_by_field_name(f) for f in ("initializer", "condition", "update")]
        header = " ".join(node_text(p) for p in parts if p is not None)
        self._arith_counters |= set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=[^=]|\+\+|--|[-+*/%]=)", header))
        self._arith_counters |= set(re.findall(r"(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)", header))
        for part in parts:
            if part is not None:
                arith.evaluate_source(self, node_text(part), scope, ctx)
        self._children(node, scope, ctx)

    def _test_command(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`[[ A -eq B ]]` evaluates A and B as arithmetic, `[[ -v NAME ]]` NAME's subscript
        (`[ ... ]`, the test builtin, does neither)."""
        first = node.children[0] if node.children else None
        if first is not None and first.type == "[[":
            stack = list(node.named_children)
            while stack:
                n = stack.pop()
                op = n.child_by_field_name("operator")
                if n.type == "binary_expression" and op is not None and node_text(op) in arith.ARITHMETIC_TESTS:
                    for side in ("left", "right"):
                        operand = n.child_by_field_name(side)
                        if operand is not None:
                            arith.evaluate_source(self, node_text(operand), scope, ctx)
                elif n.type == "unary_expression" and n.children and node_text(n.children[0]) == "-v":
                    for operand in n.named_children[-1:]:
                        arith.evaluate_name(self, self._word(operand, scope, ctx).values[0], scope, ctx)
                stack.extend(n.named_children)
        self._children(node, scope, ctx)

    # -- variables

    def _lookup(self, scope: Scope) -> object:
        """A variable's value; called while the word is resolved, so the unsafe variables are
        looked for only when a word names a variable."""
        home = self.facts.home

        def lookup(name: str) -> str | None:
            if self._namerefs or name in self.unsafe_vars:
                return None
            if name in scope.vars:
                return scope.vars[name]
            if name in scope.env:
                return scope.env[name]
            if name == "HOME":
                return home
            return None

        return lookup

    def _word(self, node: Node, scope: Scope, ctx: Ctx) -> Word:
        plain = plain_value(node)
        if plain is not None:
            return Word([plain], node)  # nothing in it to look up or to run
        w = resolve_word_slow(node, self._lookup(scope))  # type: ignore[arg-type]
        for sub in w.substitutions:
            self._substitution(sub, scope, ctx)
        raw = node_text(node)
        if "$((" in raw or "$[" in raw or ("${" in raw and ("[" in raw or "${!" in raw or "@P}" in raw)):
            self._arithmetic_in_word(node, scope, ctx)
        if "$" in raw:
            self._secret_expansions(node, scope, ctx)
        return w

    def _secret_expansions(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`$HF_TOKEN` anywhere (an argument, a here-string, an assignment that copies it) may put
        the secret in the transcript: judged as `printenv HF_TOKEN`; `${!name}` as `env`."""
        names = expanded_names(node)
        hooks = printenv_hooks(names, "")
        if "*" in names:
            hooks.append(Hook("${!name}", argv=("env",)))
        if hooks and not _in_a_test(node):  # `[ -n "$HF_TOKEN" ]`: compared, not printed
            self._run_hooks(hooks, dict(scope.env), scope, ctx, node_text(node))

    def _substitution(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        inner = Ctx(via=(*ctx.via, "$(...)" if node.type == "command_substitution" else "<(...)"))
        sub_scope = scope.copy()
        for child in node.named_children:
            if child.type == "file_redirect":  # `$(<file)`: bash reads the file, as `cat file` would
                redirs = Redirs()
                self._redirect(child, sub_scope, inner, redirs)
                read = Invocation(":", ":", [], node_text(node)[:200], reads=redirs.reads, via=inner.via)
                self._emit(read, Ctx(inner.via), sub_scope)
                continue
            self._node(child, sub_scope, inner)

    # -- statements

    def _node(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        handler = _NODE_HANDLERS.get(node.type)
        if handler is None:
            self._children(node, scope, ctx)
        else:
            handler(self, node, scope, ctx)

    def _children(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """Every named child: words resolved (their substitutions judged), the rest analysed."""
        for c in node.named_children:
            t = c.type
            if t in _WORD_CHILDREN:
                self._word(c, scope, ctx)
            else:
                handler = _NODE_HANDLERS.get(t)
                if handler is None:
                    self._children(c, scope, ctx)
                else:
                    handler(self, c, scope, ctx)

    def _skip(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        return

    def _as_word(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        self._word(node, scope, ctx)

    def _subshell(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        sub = scope.copy()
        for c in node.named_children:
            self._node(c, sub, ctx)

    def _substitution_node(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        self._substitution(node, scope, ctx)

    def _assignment_node(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        self._plain_assignment(node, scope, ctx)

    def _assignments(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        for c in node.named_children:
            self._plain_assignment(c, scope, ctx)

    def _plain_assignment(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`NAME=value` with no command. bash exports it when the environment already holds
        NAME, which the gate cannot see: an upper-case name (PATH, CUDA_VISIBLE_DEVICES) counts
        as exported, and is judged as `export NAME=value` would be."""
        name_node = node.child_by_field_name("name")
        name = node_text(name_node) if name_node is not None and name_node.type == "variable_name" else ""
        exported = _ENVIRONMENT_NAME.fullmatch(name) is not None or (self._allexport and bool(name))
        pair = self._assign(node, scope, ctx, export=exported)
        if name in _COMMAND_TABLES:  # `BASH_CMDS=([ls]=/bin/sh)`: which program a name runs
            self._opaque(node_text(node), ctx, f"{name} changes which program a command name runs")
        elif exported and pair is not None:
            self._as_export(dict([pair]), node, ctx, scope)

    def _as_export(self, env: dict[str, str], node: Node, ctx: Ctx, scope: Scope) -> None:
        """An assignment that exports (`PATH=/tmp` where PATH is in the environment), judged as
        the `export` it amounts to."""
        shown = Invocation("export", "export", [], node_text(node)[:200], env=env, via=ctx.via, wrapper=True)
        self._emit(shown, ctx, scope)

    def _unset(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        if any(node_text(c) == "-f" for c in node.named_children):  # `unset -f rm`: the program again
            for c in node.named_children:
                scope.functions.discard(node_text(c))
        for c in node.named_children:
            if "[" in node_text(c):  # older bash evaluates `unset 'a[EXPR]'`'s subscript
                arith.evaluate_name(self, self._word(c, scope, ctx).values[0], scope, ctx)
            scope.vars.pop(node_text(c), None)
            scope.env.pop(node_text(c), None)

    def _function(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is not None:
            scope.functions.add(node_text(name))
            if body is not None:
                self._function_bodies[node_text(name)] = (body, self._src)
        # `f() { echo b; } > /proc/sysrq-trigger`: the redirects (and those around the definition)
        # apply to the body each time it runs; the body is judged once, here, with them
        redirs = Redirs(list(ctx.redirs.writes), list(ctx.redirs.reads))
        stdin = Ctx().stdin
        for r in node.children_by_field_name("redirect"):
            stdin = self._redirect(r, scope, ctx, redirs) or stdin
        if body is not None:
            via = (*ctx.via, f"function {node_text(name) if name else ''}")
            before = len(self.invocations)
            self._node(body, scope.copy(), Ctx(via, redirs, stdin))
            self._redirects_judged(redirs, before, node, ctx, scope)

    def _call_function(self, name: str, argv: list[str], scope: Scope, ctx: Ctx, text: str) -> None:
        found = self._function_bodies.get(name)
        if found is None or name in self._calling:
            self._emit(Invocation(name, name, argv[1:], text, via=ctx.via, wrapper=True), ctx, scope)
            return
        body, src = found
        saved, self._src = self._src, src
        self._calling.add(name)
        try:
            self._node(body, scope.copy(), Ctx((*ctx.via, f"function {name}"), ctx.redirs, ctx.stdin))
        finally:
            self._calling.discard(name)
            self._src = saved

    def _for(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        var = node.child_by_field_name("variable")
        values: list[str] = []
        for c in node.children_by_field_name("value"):
            values += self._word(c, scope, ctx).values
        body = node.child_by_field_name("body")
        loop_name = node_text(var) if var is not None else ""
        known = bool(values) and len(values) <= 8 and all(DYN not in v for v in values)
        if _ENVIRONMENT_NAME.fullmatch(loop_name) and values:  # `for PATH in /tmp`: exported if it was
            for v in values:
                self._as_export({loop_name: v}, node, ctx, scope)
        if body is not None and loop_name and known and loop_name not in self.unsafe_vars:
            # a short literal list: judge the body once per value, as bash would run it
            for v in values:
                scope.vars[loop_name] = v
                self._node(body, scope, ctx)
            scope.vars.pop(loop_name, None)
        else:
            scope.vars.pop(loop_name, None)
            self.unsafe_vars = self.unsafe_vars | {loop_name}
            if body is not None:
                self._node(body, scope, ctx)

    def _assign(self, node: Node, scope: Scope, ctx: Ctx, export: bool) -> tuple[str, str] | None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return None
        if name_node.type == "subscript":
            self._subscript_name(name_node, scope, ctx)
        name = node_text(name_node) if name_node.type == "variable_name" else ""
        value = ""
        if value_node is not None:
            w = self._word(value_node, scope, ctx)
            value = w.values[0] if len(w.values) == 1 and GLOB not in w.values[0] else DYN
            if value_node.type == "array":
                value = DYN
        if not name:
            return None
        self._note_secret_words([value])
        if DYN in value or name in self.unsafe_vars:
            scope.vars.pop(name, None)
            if name == "HOME":
                scope.vars["HOME"] = DYN  # `~` then expands to a directory only known at run time
            if export or name in scope.env:  # exported earlier: the child sees a value not assumed
                scope.env[name] = value if export and name not in self.unsafe_vars else DYN
            return name, value
        scope.vars[name] = value
        if export or name in scope.env:
            scope.env[name] = value
        return name, value

    def _declaration(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        keyword = node_text(node.children[0]) if node.children else "declare"
        flags = [node_text(c) for c in node.named_children if c.type == "word"]
        export = keyword == "export" or any(f.startswith("-") and "x" in f for f in flags)
        env: dict[str, str] = {}
        integer = any(f.startswith("-") and "i" in f for f in flags)
        if any(f.startswith("-") and "A" in f for f in flags):  # associative: subscripts are strings
            for c in node.named_children:
                target = c.child_by_field_name("name") if c.type == "variable_assignment" else c
                if target is not None and target.type in ("variable_name", "word"):
                    self._associative.add(node_text(target))
        nameref = any(f.startswith("-") and "n" in f for f in flags)
        self._namerefs = self._namerefs or nameref
        if nameref:  # `declare -n b=BASH_ENV; export b=F`: every later name may stand for any variable
            self._opaque(node_text(node), ctx, "a nameref makes later assignments and reads reach any variable")
        for c in node.named_children:
            if c.type == "variable_assignment":
                name_node = c.child_by_field_name("name")
                assigned = node_text(name_node) if name_node is not None else ""
                if assigned.partition("[")[0] in _COMMAND_TABLES:
                    self._opaque(node_text(node), ctx, f"{assigned} changes which program a command name runs")
                # an upper-case name may already be in the environment: bash then exports the new value
                exported = export or (_ENVIRONMENT_NAME.fullmatch(assigned) is not None and "+x" not in flags)
                pair = self._assign(c, scope, ctx, export=exported)
                if pair and exported:
                    env[pair[0]] = pair[1]
                value_node = c.child_by_field_name("value")
                if value_node is not None and (integer or nameref):
                    value = self._word(value_node, scope, ctx).values[0]
                    if integer:
                        arith.evaluate_text(self, value, scope, ctx)  # `declare -i n=EXPR` evaluates it
                    else:
                        arith.evaluate_name(self, value, scope, ctx)  # a nameref's target is a name
            elif c.type != "word":
                for value in self._word(c, scope, ctx).values:  # `declare 'a[EXPR]=v'`
                    arith.evaluate_name(self, value, scope, ctx, unknown_fails=False)
            elif "[" in node_text(c):
                arith.evaluate_name(self, node_text(c), scope, ctx)
        inv = Invocation(keyword, keyword, flags, node_text(node)[:200], env=env, via=ctx.via, wrapper=True)
        words = [node_text(c) for c in node.named_children if c.type in ("word", "variable_name")]
        if not any(c.type == "variable_assignment" for c in node.named_children):
            inv.prints = _variables_printed(keyword, words)
        if export:  # `read X <<< V; export X`: X's value, known or not, goes to every child
            for name in words:
                if _IDENTIFIER_RE.fullmatch(name):
                    known = scope.vars.get(name) if name not in self.unsafe_vars else None
                    scope.env[name] = known if known is not None else DYN
                    env[name] = scope.env[name]
        self.invocations.append(inv)

    def _redirected(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        body = node.child_by_field_name("body")
        while body is not None and body.type == "list" and body.named_children:
            # tree-sitter hangs `a && b > f` on the list; bash binds the redirect to `b` alone,
            # after `a` ran (a `cd` there changes where `f` is)
            *head, body = body.named_children
            for c in head:
                self._node(c, scope, ctx)
        self._redirected_body(node, body, scope, ctx)

    def _redirected_body(self, node: Node, body: Node | None, scope: Scope, ctx: Ctx) -> None:
        self._stand_in(scope)
        redirs = Redirs(list(ctx.redirs.writes), list(ctx.redirs.reads))
        stdin = ctx.stdin
        followers: list[tuple[Node, bool]] = []
        extra: list[Node] = []  # words of the command that stand after a redirect
        broken: list[Node] = []
        for r in node.children_by_field_name("redirect"):
            got = self._redirect(r, scope, ctx, redirs)
            if got is not None:
                stdin = got
            words, nested, unparsed = redirect_parts(r)
            extra += words
            broken += unparsed
            for n in nested:
                got = self._redirect(n, scope, ctx, redirs)
                if got is not None:
                    stdin = got
            if r.type == "heredoc_redirect":
                for i, c in enumerate(r.children):
                    if (
                        c.is_named
                        and c.type not in _HEREDOC_PARTS
                        and not c.type.endswith("_redirect")
                        and c.type != "ERROR"
                        and r.field_name_for_child(i) != "argument"
                    ):
                        prev = c.prev_sibling
                        piped = (prev is not None and node_text(prev) in ("|", "|&")) or (
                            c.type == "pipeline" and bool(c.children) and c.children[0].type in ("|", "|&")
                        )
                        followers.append((c, piped))
        fresh = redirs.writes[len(ctx.redirs.writes) :]
        if fresh and body is not None and body.type == "command":
            out = self._producer(body, scope, stdin, extra)
            if out.kind == "literal" and DYN not in out.text:
                redirs.writes[len(ctx.redirs.writes) :] = [WriteEffect(w.path, out.text) for w in fresh]
        inner = Ctx(ctx.via, redirs, stdin)
        target = body.named_children[-1] if body is not None and body.type == "pipeline" else body
        if broken or (extra and (target is None or target.type != "command")):
            why = "text after a redirect that the gate cannot parse" if broken else "words after a redirect"
            self._opaque(node_text(node)[:200], ctx, why)
        elif extra and target is not None:
            self._extra_words[target.id] = extra  # `rm -rf 2>/dev/null /models`: still rm's operands
        if body is None:
            self._emit(Invocation(":", ":", [], node_text(node)[:200], via=ctx.via), inner, scope)
        else:
            before = len(self.invocations)
            self._node(body, scope, inner)
            self._redirects_judged(redirs, before, node, ctx, scope)
        for follower, piped in followers:
            feed = self._producer(body, scope, stdin) if piped and body is not None else ctx.stdin
            self._node(follower, scope.copy() if piped else scope, Ctx(ctx.via, ctx.redirs, feed))

    def _redirects_judged(self, redirs: Redirs, before: int, node: Node, ctx: Ctx, scope: Scope) -> None:
        """bash opens a redirect's file even when no program runs under it (`export X=1 > F`,
        `[[ 1 ]] > F`, `{ x=1; } < F`): what no invocation since `before` carried is judged alone."""
        emitted = self.invocations[before:]
        writes = [w for w in redirs.writes if not any(w in inv.writes for inv in emitted)]
        reads = [r for r in redirs.reads if not any(r in inv.reads for inv in emitted)]
        if writes or reads:
            alone = Invocation(":", ":", [], node_text(node)[:200], via=ctx.via)
            self._emit(alone, Ctx(ctx.via, Redirs(writes, reads)), scope)

    def _redirect(self, r: Node, scope: Scope, ctx: Ctx, redirs: Redirs) -> Stdin | None:
        """Adds the redirect's file effects to `redirs`; returns stdin it supplies, if any."""
        if r.type == "heredoc_redirect":
            start = next((c for c in r.named_children if c.type == "heredoc_start"), None)
            body = next((c for c in r.named_children if c.type == "heredoc_body"), None)
            text = node_text(body) if body is not None else ""
            quoted = start is not None and any(q in node_text(start) for q in "'\"\\")
            if body is not None and not quoted:
                for c in body.named_children:
                    if c.type in ("command_substitution", "process_substitution"):
                        self._substitution(c, scope, ctx)
                    elif c.type in ("expansion", "simple_expansion"):
                        self._word(c, scope, ctx)
                text = resolve_text(text, self._lookup(scope))  # type: ignore[arg-type]
            if start is not None and node_text(start).startswith("-"):
                text = "\n".join(line.lstrip("\t") for line in text.split("\n"))
            return Stdin("literal", text)
        if r.type == "herestring_redirect":
            word_node = r.named_children[-1] if r.named_children else None
            if word_node is None:
                return Stdin("literal", "")
            w = self._word(word_node, scope, ctx)
            text = " ".join(w.values)
            return Stdin("literal", text + "\n")
        dest = r.child_by_field_name("destination")
        if dest is None:
            return None
        op = "".join(node_text(c) for c in r.children if not c.is_named)
        if (dest.type == "number" and op.endswith("&")) or op in (">&-", "<&-"):
            return None  # a descriptor duplicated (`2>&1`) or closed, not a file (`> 5` is one)
        w = self._word(dest, scope, ctx)
        if dest.type == "process_substitution":  # `< <(CMD)`: a pipe from CMD, judged as a command
            return Stdin("opaque", f"the output of {node_text(dest)[:60]!r}") if op.startswith("<") else None
        if op.startswith("<") and op != "<>":
            for v in w.values:
                redirs.reads.append(self._path(v))
            path = w.values[0] if len(w.values) == 1 else DYN
            return Stdin("file", path)
        for v in w.values:
            ref = self._path(v)
            if ref.aliases[0] in DEVNULL or ref.aliases[0].startswith("/dev/fd/"):
                continue
            redirs.writes.append(WriteEffect(ref, None))
        return None

    def _pipeline(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        parts = [c for c in node.named_children]
        feed = ctx.stdin
        for idx, part in enumerate(parts):
            inner = Ctx(ctx.via, ctx.redirs, feed)
            self._node(part, scope.copy(), inner)
            if idx + 1 < len(parts):
                feed = self._producer(part, scope, feed)
        if self._shopt_seen and parts and _CHANGES_DIRECTORY.search(node_text(parts[-1])):
            # with `shopt -s lastpipe` the last part runs in this shell, and its `cd` stays
            scope.also = (*scope.also, scope.cwd)
            scope.cwd = None
            self._stand_in(scope)

    def _producer(self, node: Node, scope: Scope, stdin: Stdin, extra: Sequence[Node] = ()) -> Stdin:
        """What `node` writes to a pipe, as far as the gate can know before it runs (`extra`: its
        words that stand after a redirect)."""
        if node.type in ("redirected_statement", "command") and any(
            any(redirect_parts(r)[::2]) for r in node.named_children if r.type.endswith("_redirect")
        ):
            return Stdin("opaque", "the output of a command with words after a redirect")
        if node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            here = [r for r in node.children_by_field_name("redirect") if r.type != "file_redirect"]
            if body is not None and here:
                sub = Analyser(self.facts)
                red = Redirs()
                got = sub._redirect(here[-1], scope.copy(), Ctx(), red)
                return self._producer(body, scope, got or stdin)
            if body is not None:
                return self._producer(body, scope, stdin)
        if node.type != "command":
            return Stdin("opaque", f"the output of {node_text(node)[:60]!r}")
        words = [resolve_word(c, self._lookup(scope)) for c in [*_command_words(node), *extra]]  # type: ignore[arg-type]
        argv = [w.values[0] if len(w.values) == 1 else DYN for w in words]
        if not argv:
            return Stdin("opaque", "unknown output")
        name = posixpath.basename(argv[0])
        if name == "echo" and all(DYN not in a for a in argv[1:]):
            args = argv[1:]
            newline = True
            while args and re.fullmatch(r"-[neE]+", args[0]):
                if "n" in args[0]:
                    newline = False
                if "e" in args[0]:
                    args = [decode_ansi_c(a) for a in args]
                args = args[1:]
            return Stdin("literal", " ".join(args) + ("\n" if newline else ""))
        if name == "printf" and len(argv) >= 2 and all(DYN not in a for a in argv[1:]):
            printed = printf_text(argv[1], argv[2:])
            if printed is not None:
                return Stdin("literal", printed)
        if name == "cat" and len(argv) == 1:
            return stdin
        if name == "cat" and len(argv) == 2 and not argv[1].startswith("-"):
            return Stdin("file", argv[1])
        why = PRODUCERS_OPAQUE.get(name, "produced at run time")
        return Stdin("opaque", f"text {why} by {name}")

    # -- simple commands

    def _command(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        self._command_node = node
        self._stand_in(scope)
        env: dict[str, str] = {}
        redirs: Redirs | None = None  # a copy of ctx's, made at the first redirect of its own
        stdin = ctx.stdin
        words: list[Word] = []
        argv: list[str] = []
        src = self._src
        children = node.named_children
        if self._extra_words:
            children = [*children, *self._extra_words.pop(node.id, ())]
        for c in children:
            ct = c.type
            if ct == "variable_assignment":
                name_node = c.child_by_field_name("name")
                value_node = c.child_by_field_name("value")
                value = ""
                if value_node is not None:
                    w = self._word(value_node, scope, ctx)
                    value = w.values[0] if len(w.values) == 1 else DYN
                if name_node is not None and name_node.type == "subscript":
                    self._subscript_name(name_node, scope, ctx)
                elif name_node is not None:
                    env[node_text(name_node)] = value
                    self._note_secret_words([value])
            elif ct.endswith("_redirect"):
                if redirs is None:
                    redirs = Redirs(list(ctx.redirs.writes), list(ctx.redirs.reads))
                got = self._redirect(c, scope, ctx, redirs)
                if got is not None:
                    stdin = got
                more_words, nested, unparsed = redirect_parts(c)
                if unparsed:
                    self._opaque(node_text(node)[:200], ctx, "text after a redirect that the gate cannot parse")
                for n in nested:
                    stdin = self._redirect(n, scope, ctx, redirs) or stdin
                for w_node in more_words:
                    w = self._word(w_node, scope, ctx)
                    words.append(w)
                    argv += w.values
            elif _fd_number(c, node):
                continue  # `0<<<CODE`: tree-sitter takes the descriptor for an argument
            else:
                plain = plain_value(c, ct, src)
                w = Word([plain], c) if plain is not None else self._word(c, scope, ctx)
                words.append(w)
                argv += w.values
        text = src[node.start_byte : node.end_byte][:300] if src is not None else node_text(node)[:300]
        inner = ctx if redirs is None and stdin is ctx.stdin else Ctx(ctx.via, redirs or ctx.redirs, stdin)
        if not argv:
            if env or inner.redirs.writes:
                self._emit(Invocation(":", ":", [], text, env=env, via=ctx.via), inner, scope)
            return
        self._argv(argv, words, {**scope.env, **env} if env else dict(scope.env), env, scope, inner, text)

    def _argv(
        self,
        argv: list[str],
        words: list[Word] | None,
        full_env: dict[str, str],
        new_env: dict[str, str],
        scope: Scope,
        ctx: Ctx,
        text: str,
    ) -> None:
        prog = argv[0]
        wrapped, self._wrapped = self._wrapped, False  # run by `command`, `env`, `sudo`...: never a function
        self._stand_in(scope)
        self._note_secret_words(argv[1:])
        if DYN in prog or GLOB in prog:
            self._opaque(
                text,
                ctx,
                "the program to run is not known until it runs (a variable, substitution or glob in "
                "the command position)",
            )
            return
        if "/" not in prog and prog in self.hashed:  # `hash -p PATH NAME`: NAME now runs PATH
            prog = self.hashed[prog]
            argv = [prog, *argv[1:]]
            if DYN in prog or GLOB in prog:
                self._opaque(text, ctx, f"runs {argv[0]!r}, hashed earlier to a path only known at run time")
                return
        name = prog[prog.rfind("/") + 1 :]  # posixpath.basename
        if "/" not in prog and self._path_named and prog not in _BUILTINS and self._path_unknown():
            # `read PATH <<< /tmp; ls`, `printf -v PATH ...`: the directories names are looked up in are unknown
            self._opaque(text, ctx, "PATH is set in this command in a way the gate cannot follow", name)
            return
        for key in ENV_OPTIONS.get(name, ()):
            if key in full_env:  # `TAR_OPTIONS='--to-command=CMD' tar ...`: options read before its own
                given = full_env[key]
                try:
                    extra = shlex.split(given) if DYN not in given else None
                except ValueError:
                    extra = None
                old_form = name == "tar" and len(argv) > 1 and not argv[1].startswith("-")
                if extra is None or old_form:  # (tar's old form reads its first word before them)
                    self._opaque(text, ctx, f"{name} takes options from {key} that the gate cannot place", name)
                    return
                argv = [argv[0], *extra, *argv[1:]]
                words = None
        if name in SHELLS and "HOME" in new_env and any(_starts_up(a) for a in argv[1:]):
            # `HOME=DIR bash -ic ...` runs DIR/.bashrc, a file the gate did not take for a start-up file
            self._opaque(text, ctx, "an interactive or login shell reads the start-up files of a home set here")
            return
        path = self._path(prog).aliases[0] if "/" in prog else prog
        if "/" in prog and path in self.written:
            self._opaque(text, ctx, f"runs {prog}, a file written earlier in the same command", name)
            return
        if name in scope.functions and "/" not in prog and not wrapped:
            # its body was judged where it was defined; a call that feeds it stdin or redirects it
            # is judged again with those (`f() { sh; }; echo reboot | f`)
            # or whose arguments name a secret its body may read (`f() { cat "$1"; }; f ~/.ssh/id_rsa`)
            if ctx.stdin.kind != "none" or ctx.redirs.writes or ctx.redirs.reads or (self.listed_secrets and argv[1:]):
                self._call_function(name, argv, scope, ctx, text)
            body = self._function_bodies.get(name)
            if body is not None and _CHANGES_DIRECTORY.search(node_text(body[0])):
                scope.also = (*scope.also, scope.cwd)  # where its `cd` went is not followed
                scope.cwd = None
            return
        if name == "shopt":
            self._shopt_seen = True
        if name == "set" and any(
            (a.startswith("-") and not a.startswith("--") and "a" in a) or a == "allexport" for a in argv[1:]
        ):
            self._allexport = True
        inv = Invocation(name, path, argv[1:], text, env=new_env, via=ctx.via, cwd=scope.cwd)
        self._current_words = words if words is not None and len(words) == len(argv) else None
        handler = _HANDLERS.get(name)
        if name.startswith(("python", "pypy")) and PY_RE.match(name):
            handler = Analyser._python
        elif name in SHELLS:
            handler = Analyser._shell
        if name in WRAPPERS:
            self._wrapper(inv, argv, full_env, scope, ctx)
        else:
            if handler is not None:
                handler(self, inv, argv, full_env, scope, ctx)
            else:
                self._generic_reads(inv)
            if name in RECURSIVE_READERS and reads_recursively(name, argv[1:]):
                if name in SEARCHERS:
                    searched = [self._path(r).aliases[0] for r in search_roots(argv[1:])]
                    roots = searched or ([scope.cwd] if scope.cwd else [])
                else:
                    roots = [r.aliases[0] for r in inv.reads]
                self._secrets_beneath(inv, roots)
            if name in WRITES_THROUGH_OPTIONS:
                written = written_paths(name, argv[1:])
                if name == "git" and full_env:
                    written += git_trace_files(full_env)
                if name == "git":
                    self._git_settings_written(inv, argv[1:], full_env, scope)
                    self._git_work_tree(inv, argv[1:], full_env)
                if name == "unzip":
                    for raw in written:
                        self._unpacked(posixpath.dirname(raw) or ".")
                if name == "mktemp" and "TMPDIR" in full_env:  # `TMPDIR=/models mktemp` makes its file there
                    written.append(full_env["TMPDIR"].rstrip("/") + "/" + GLOB)
                for raw in written:
                    ref = self._path(raw)
                    if ref.aliases[0] not in DEVNULL:
                        inv.writes.append(WriteEffect(ref))
            if name in MOVERS:
                inv.deletes += [self._path(f) for f in moved_files(name, argv[1:])]
            if name in COMPRESSORS:
                for gone, twin in replaced_files(name, argv[1:]):
                    inv.writes.append(WriteEffect(self._path(twin)))
                    if gone:
                        inv.deletes.append(self._path(gone))
            self._gpus_from_env(inv, full_env)
            self._emit(inv, ctx, scope)
        # after the program itself: its handler may read `_current_words`, which these overwrite
        if name in HOOKED_PROGRAMS:
            self._run_hooks(option_hooks(name, argv), full_env, scope, ctx, text)
        if name == "yq":  # `load("F")`, `load_str("F")`: the expression reads that file
            expression = " ".join(argv[1:])
            loaded = _YQ_LOAD.findall(expression)
            inv.reads += [self._path(p) for p in loaded]
            if len(loaded) != len(_YQ_ANY_LOAD.findall(expression)) or "--from-file" in argv:
                inv.opaque = "yq loads a file named only at run time (or reads its expression from a file)"
        if name == "jq" and re.search(r"\b(import|include)\s", " ".join(argv[1:])):
            inv.opaque = "jq imports a module or data file the gate does not read"
        # options whose file's text the program reads and may print (`du --files0-from=F` quotes it
        # in its errors, `file -f F` prints each line), whatever the program does with its operands
        read_options = CONTENT_OPTIONS.get(name)
        if read_options:
            inv.reads += [self._path(v) for _, v in option_values(argv[1:], read_options, clustered=True) if v]
        if name in ENV_PRINTERS:
            stdin = ctx.stdin.text if ctx.stdin.kind == "literal" else None
            self._run_hooks(environment_hooks(name, argv, text, stdin), full_env, scope, ctx, text)
        if full_env and has_env_hooks(full_env):
            fresh = [h for h in env_hooks(full_env) if (h.how, h.code) not in self._env_hooks_judged]
            self._env_hooks_judged.update((h.how, h.code) for h in fresh)
            self._run_hooks(fresh, full_env, scope, ctx, text)

    def _secrets_beneath(self, inv: Invocation, directories: list[str]) -> None:
        """A recursive read of these directories reads the secrets beneath them (recursive.py)."""
        seen = {r.aliases[0] for r in inv.reads}
        for d in directories:
            for location in secrets_within(d, self.facts.home, self.facts.secret_paths):
                if location not in seen:  # normalised already, and no kernel alias leads there
                    seen.add(location)
                    inv.reads.append(PathRef(location, (location,)))

    def _run_hooks(self, hooks: list[Hook], env: dict[str, str], scope: Scope, ctx: Ctx, text: str) -> None:
        """Judge what a program runs on the command's behalf (see hooks.py) as if it ran here."""
        for h in hooks:
            inner = Ctx((*ctx.via, h.how))
            if h.opaque is not None:
                self._opaque(text, ctx, h.opaque)
            elif h.argv:
                argv = list(h.argv)
                self._argv(argv, None, env, {}, scope, inner, _visible_words(argv)[:300])
            else:
                self._shell_string(h.code, env, scope, inner, h.how)

    def _emit(self, inv: Invocation, ctx: Ctx, scope: Scope) -> None:
        if inv.program in _VARIABLE_PRINTERS and not inv.wrapper and not inv.prints:
            inv.prints = _variables_printed(inv.program, inv.args)
        if ctx.redirs.writes:
            inv.writes = [*inv.writes, *ctx.redirs.writes]
        if ctx.redirs.reads:
            inv.reads = [*inv.reads, *ctx.redirs.reads]
        if not self.listed_secrets:
            home = self.facts.home
            self.listed_secrets = any(in_secret_location(a, home) for r in inv.reads for a in r.aliases)
        for w in inv.writes:
            self.written.update(w.path.aliases)
            if w.content is None:
                self._unseen_text(w, ctx)
                continue
            if w.path.aliases[0].endswith((".sh", ".py")) or w.content.startswith("#!"):
                self._judge_script_text(w, ctx, scope)
                continue
            for alias in w.path.aliases:  # a cron line, a start-up file, a unit's ExecStart=
                later = file_hooks(alias, w.content, self.facts.home)
                if later:
                    self._run_hooks(later, dict(scope.env), Scope(), Ctx(ctx.via), visible(w.path.raw))
                    break
        self.invocations.append(inv)

    def _git_work_tree(self, inv: Invocation, args: list[str], env: dict[str, str]) -> None:
        """`git clean`, `reset --hard`, `checkout`, `restore` ... rewrite and delete files of the
        work tree: the one `--work-tree`/`GIT_WORK_TREE` names, else where `-C` leads."""
        found, i = git_global_options(args)
        sub = args[i] if i < len(args) else ""
        soft_reset = sub == "reset" and not set(args[i + 1 :]) & {"--hard", "--merge", "--keep"}
        if sub not in _GIT_TREE_CHANGERS or soft_reset:
            return
        where = "."
        for opt, value in found:
            if opt == "-C" and value:
                where = value if value.startswith(("/", "~")) else posixpath.join(where, value)
        tree = next((v for o, v in found if o == "--work-tree" and v), None) or env.get("GIT_WORK_TREE")
        if tree:
            where = tree if tree.startswith(("/", "~")) else posixpath.join(where, tree)
        inv.writes.append(WriteEffect(self._path(where.rstrip("/") + "/" + GLOB)))
        if sub in ("clean", "reset", "rm", "restore"):  # these remove files; the others rewrite them
            inv.deletes.append(self._path(where.rstrip("/") + "/" + GLOB))

    def _tracer(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
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
            inv.signals.append(self._signal_target(target.strip(), None, "ptrace"))

    def _sysctl(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        """`sysctl -p -` / `-p /dev/stdin` with settings fed to it: each judged as `sysctl -w` is."""
        files = [v for _, v in option_values(argv[1:], ("-p", "--load"), clustered=False)]
        if any(f in ("-", *STDIN_PATHS) for f in files) and ctx.stdin.kind == "literal":
            lines = [ln.strip() for ln in ctx.stdin.text.splitlines() if ln.strip() and ln.strip()[0] not in "#;"]
            hooks = [Hook("sysctl -p line", argv=("sysctl", "-w", ln.replace(" ", ""))) for ln in lines]
            self._run_hooks(hooks, env, scope, ctx, inv.text)

    def _unpacked(self, directory: str) -> None:
        """An archive unpacked there: files of any name (a `.git/config`, a `json.py`) the gate
        has not seen. Python started there may import them; git there reads their settings."""
        where = self._path(directory).aliases[0].rstrip("/")
        if "/.git/" in where + "/" or where.endswith(".git"):  # git's own settings and hooks, unseen
            why = f"unpacks files the gate has not seen into {visible(where)}, a git repository's own"
            self._opaque(directory, Ctx(), why)
        self.written.add(where + "/" + DYN)
        if self._scope_cwd is None or where == self._scope_cwd or DYN in where:
            self.unseen_python = True

    def _git_settings_written(self, inv: Invocation, args: list[str], env: dict[str, str], scope: Scope) -> None:
        """git reads the settings of the repository it works in. One written earlier in this
        command where the gate did not know a repository was (`x/config` before `--git-dir=x`,
        a repository unpacked from an archive) is unseen text that git runs: fail closed."""
        if not self.written:
            return
        found, _ = git_global_options(args)
        places = [v for o, v in found if o in ("-C", "--git-dir", "--work-tree") and v]
        places += [env[k] for k in ("GIT_DIR", "GIT_WORK_TREE") if k in env]
        for place in [*places, scope.cwd or DYN]:
            base = self._path(place).aliases[0].rstrip("/")
            for settings in (f"{base}/config", f"{base}/.git/config", f"{base}/.git"):
                if any(w == settings or ((DYN in w or GLOB in w) and may_match(w, settings)) for w in self.written):
                    inv.opaque = f"git reads settings from {visible(settings)}, written earlier in this command"
                    return

    def _unseen_text(self, w: WriteEffect, ctx: Ctx) -> None:
        """Text the gate cannot see, written where the host (or the next git or Python) runs it:
        nothing judges it later, so it fails closed now."""
        for alias in w.path.aliases:
            if alias.endswith((".py", ".pth", ".pyc", ".so", ".zip")):  # a module Python may import instead
                self.unseen_python = True
            if runs_later(alias, self.facts.home):
                shown = visible(w.path.raw)
                self.invocations.append(
                    Invocation(
                        "", "", [], shown, via=ctx.via, opaque=f"writes unseen text to {shown}, which runs later"
                    )
                )
                return

    def _judge_script_text(self, w: WriteEffect, ctx: Ctx, scope: Scope) -> None:
        """A script written with literal text is judged as if it ran: writing it is not safer."""
        assert w.content is not None
        via = (*ctx.via, f"script text written to {visible(w.path.raw)}")
        if w.path.aliases[0].endswith(".py") or w.content.startswith("#!/usr/bin/env python"):
            script = Invocation("python3", "python3", [w.path.aliases[0]], w.content[:200], via=via)
            self._python_code(w.content, script, scope, via)
            self._emit(script, Ctx(via), scope)  # its writes, deletes, reads and signals count too
        else:
            self.run_source(
                w.content, Scope(cwd=scope.cwd, env=dict(scope.env), also=scope.also), Ctx(via=via), self._depth_next()
            )

    def _depth_next(self) -> int:
        return getattr(self, "_depth", 0) + 1

    def _path(self, raw: str, cwd: str | bool | None = True) -> PathRef:
        base = self._scope_cwd if cwd is True else cwd
        norm = normalise_path(raw, cwd=base if isinstance(base, str) else None, home=self._scope_home)
        found = aliases(norm, self.facts, self.links)
        if cwd is True and self._scope_also and not raw.startswith(("/", "~")):
            for other in self._scope_also:  # relative to each directory a failed `cd` left it in
                alt = normalise_path(raw, cwd=other, home=self._scope_home)
                found = tuple(dict.fromkeys((*found, *aliases(alt, self.facts, self.links))))
        return PathRef(raw, found)

    _scope_cwd: str | None = None
    _scope_also: tuple[str | None, ...] = ()  # see `Scope.also`
    _scope_home: str | None = None  # what `~` expands to where the current command runs
    _src: str | None = None  # the ASCII text of the tree being walked (None: read nodes' own text)

    def _stand_in(self, scope: Scope) -> None:
        """Resolve paths from here on as `scope` would: its directory, and the `~` it expands."""
        self._scope_cwd = scope.cwd
        self._scope_also = scope.also
        self._scope_home = self._home_of(scope)

    def _home_of(self, scope: Scope) -> str | None:
        """`~` as bash expands it here: $HOME if this command set it (unknown: DYN), else the host's."""
        value = scope.vars.get("HOME", scope.env.get("HOME"))
        return self.facts.home if value is None else value

    def _generic_reads(self, inv: Invocation) -> None:
        if inv.program == "getent" and set(inv.args) & {"shadow", "gshadow"}:
            inv.reads.append(self._path("/etc/" + ("gshadow" if "gshadow" in inv.args else "shadow")))
        if inv.program == "man" and any(a in ("-l", "--local-file") or a.startswith("--local") for a in inv.args):
            inv.opaque = "man -l formats a page that may include other files (`.so`)"
        if inv.program in NON_READERS:
            return
        args = inv.args
        # after a `cd` elsewhere, a bare name is a file there (`cd /etc && cat shadow`)
        moved = self._scope_cwd != self.facts.cwd or bool(self._scope_also)
        if inv.program in PATTERN_FIRST and not any(a in PATTERN_OPTIONS or a.startswith("--regexp=") for a in args):
            first = next((k for k, a in enumerate(args) if not a.startswith("-") or a == "-"), None)
            if first is not None:  # `grep .env f`, `jq .token f`: a pattern, not a file
                args = args[:first] + args[first + 1 :]
        for a in args:
            value = a.partition("=")[2] if a.startswith("-") and "=" in a else a
            if value.startswith("-") or not value:
                continue
            # a name only known at run time, once this command has listed a secret location
            # (`find ~/.ssh -type f | xargs cat`): it may be one of those secrets
            listed = self.listed_secrets and DYN in value
            if "/" in value or value.startswith("~") or SECRET_LIKE.search(value) or moved or listed:
                if "://" in value:
                    continue
                inv.reads.append(self._path(value))

    def _gpus_from_env(self, inv: Invocation, env: dict[str, str]) -> None:
        if not env:
            return
        for key in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"):
            if key in env:
                inv.gpus = (inv.gpus or frozenset()) | parse_gpu_list(env[key])

    # -- wrappers

    def _wrapper(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        name = inv.program
        outer_words = self._current_words
        if name == "busybox":
            if len(argv) < 2:
                self._emit(inv, ctx, scope)
                return
            self._argv(argv[1:], None, env, {}, scope, Ctx((*ctx.via, "busybox"), ctx.redirs, ctx.stdin), inv.text)
            return
        if name in _TRACERS:  # `strace -p 1`: attached to a process while wrapping nothing
            self._tracer(inv, argv, env, scope, ctx)
        if name == "coproc" and "{" in argv[1:]:  # `coproc NAME { CMD; }`: tree-sitter splits the body
            self._opaque(inv.text, ctx, "coproc with a named body the gate cannot parse", name)
            return
        un = unwrap(name, argv)
        inv.wrapper = True
        if un is None:
            inv.wrapper = False  # runs nothing else: judged as itself (`env` alone prints secrets)
            self._generic_reads(inv)
            if name in WRITES_THROUGH_OPTIONS:  # `uv venv DIR`
                inv.writes += [WriteEffect(self._path(p)) for p in written_paths(name, argv[1:])]
            self._emit(inv, ctx, scope)
            return
        inv.args = un.own_args
        inv.env = {**inv.env, **un.env}
        logs = _WRAPPER_LOGS.get(name)
        if logs:  # `time -o F`, `-oF`, `--output=F`; `script --log-out=F` and its typescript
            written = [v for _, v in option_values(un.own_args, logs, clustered=False)]
            if name == "script":
                written += [a for a in operands(un.own_args, WRAPPERS["script"].value_opts)][-1:]
            for p in written:
                ref = self._path(p)
                if ref.aliases[0] not in DEVNULL and not p.startswith(("|", "!")):
                    inv.writes.append(WriteEffect(ref))
        if name == "xargs":  # `xargs -a F`: F's words become the arguments (echo prints them)
            for _, p in option_values(un.own_args, ("-a", "--arg-file"), clustered=False):
                inv.reads.append(self._path(p))
        self._gpus_from_env(inv, {**env, **un.env})
        self._emit(inv, Ctx(ctx.via, Redirs(), ctx.stdin), scope)
        via = (*ctx.via, name)
        inner_env = {**env, **un.env}
        sub_scope = scope
        if un.cwd is not None:
            sub_scope = scope.copy()
            sub_scope.cwd = self._path(un.cwd).aliases[0] if DYN not in un.cwd else None
            if un.cwd.startswith("/"):
                sub_scope.also = ()  # `env -C /dir` runs nothing unless it got there
        inner_ctx = Ctx(via, ctx.redirs, ctx.stdin)
        for code in un.shell_code:
            self._shell_string(code, inner_env, sub_scope, inner_ctx, f"{name} -c")
        if un.inner:
            inner = un.inner + ([DYN] if un.appends else [])
            token = _xargs_token(un.own_args) if name == "xargs" else None
            if token:
                inner = [a.replace(token, DYN) for a in un.inner]
            inner_words = None
            if outer_words is not None and not un.appends and argv[len(argv) - len(un.inner) :] == un.inner:
                inner_words = outer_words[len(argv) - len(un.inner) :]
            old = self._scope_cwd
            self._scope_cwd = sub_scope.cwd
            self._wrapped = True
            self._argv(
                inner,
                inner_words,
                inner_env,
                un.env,
                sub_scope,
                inner_ctx,
                _visible_words(inner)[:300],
            )
            self._scope_cwd = old

    def _shell_string(self, code: str, env: dict[str, str], scope: Scope, ctx: Ctx, how: str) -> None:
        if DYN in code:
            self._opaque(code, ctx, f"{how} runs shell code that is only known at run time (eval of non-literal text)")
            return
        sub = Scope(env=dict(env), cwd=scope.cwd, also=scope.also)
        self.run_source(code, sub, ctx, self._depth_next())

    def _same_shell_string(self, code: str, scope: Scope, ctx: Ctx, how: str, keep: bool = False) -> None:
        """Code this shell runs itself (a trap's action, `` `CMD` ``): it sees the variables set
        here, and with `keep` what it sets stays set for what follows."""
        if DYN in code:
            self._opaque(code, ctx, f"{how} runs shell code that is only known at run time")
            return
        self.run_source(code, scope if keep else scope.copy(), ctx, self._depth_next())

    # -- handlers by program

    def _shell(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        args = argv[1:]
        code: str | None = None
        script: str | None = None
        i = 0
        reads_stdin = False
        while i < len(args):
            a = args[i]
            if a == "--":
                i += 1
                break
            if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                i += 2
                continue
            if a.startswith("-") and not a.startswith("--") and "c" in a[1:]:
                # the code is the first operand after all the options: `sh -c -x CODE`, `sh -c -- CODE`
                j = i + 1
                while j < len(args) and args[j].startswith(("-", "+")) and args[j] not in ("-", "+"):
                    if args[j] == "--":
                        j += 1
                        break
                    j += 2 if args[j] in ("-o", "+o", "-O", "+O") else 1
                code = args[j] if j < len(args) else ""
                break
            if a.startswith(("-", "+")) and len(a) > 1:
                if "s" in a[1:] and not a.startswith("--"):
                    reads_stdin = True
                i += 1
                continue
            break
        if code is None and i < len(args) and not reads_stdin:
            script = args[i]
        via = (*ctx.via, f"{inv.program} -c" if code is not None else inv.program)
        if code is not None:
            self._shell_string(code, env, scope, Ctx(via, Redirs(), Stdin.none()), f"{inv.program} -c")
            _judged_inside(inv)
            return
        if script in STDIN_PATHS or script == "-":
            script = None  # `bash /dev/stdin`, `sh -` read their code from stdin, like `bash -s`
        if script is not None:
            ref = self._path(script)
            if set(ref.aliases) & self.written:
                inv.opaque = f"runs {script}, a script written earlier in the same command"
            inv.reads.append(ref)
            return
        self._feed_interpreter(inv, ctx, scope, env, via, shell=True)

    def _feed_interpreter(
        self, inv: Invocation, ctx: Ctx, scope: Scope, env: dict[str, str], via: tuple[str, ...], shell: bool
    ) -> None:
        stdin = ctx.stdin
        if stdin.kind == "literal":
            if DYN in stdin.text:
                inv.opaque = f"{inv.program} reads code from stdin that is only known at run time"
            elif shell:
                self.run_source(
                    stdin.text, Scope(env=dict(env), cwd=scope.cwd, also=scope.also), Ctx(via), self._depth_next()
                )
                if inv.opaque is None:
                    _judged_inside(inv)
            else:
                self._python_code(stdin.text, inv, scope, via)
        elif stdin.kind == "file":
            ref = self._path(stdin.text)
            if set(ref.aliases) & self.written or DYN in stdin.text:
                inv.opaque = f"{inv.program} runs {visible(stdin.text)}, written earlier in the same command"
            else:
                inv.reads.append(ref)
                inv.args = [*inv.args, "<", stdin.text]
        elif stdin.kind == "opaque":
            inv.opaque = f"{stdin.text} is piped into {inv.program}; the gate cannot see what would run"

    def _python(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        args = argv[1:]
        if self.unseen_python and any(a in ("-c", "-m") for a in args):
            # `base64 -d > json.py; python3 -c 'import json'`: the cwd comes first on sys.path
            inv.opaque = "runs Python after writing a Python file of unseen text it may import"
            return
        i = 0
        via = (*ctx.via, inv.program)
        while i < len(args):
            a = args[i]
            if a == "-c":
                code = args[i + 1] if i + 1 < len(args) else ""
                if DYN in code:
                    inv.opaque = "python -c runs code that is only known at run time"
                else:
                    self._python_code(code, inv, scope, (*ctx.via, f"{inv.program} -c"))
                return
            if a == "-m":
                module = args[i + 1] if i + 1 < len(args) else ""
                self._python_module(inv, module, args[i + 2 :], env)
                return
            if a in ("-W", "-X", "--check-hash-based-pycs"):
                i += 2
                continue
            if a.startswith("-") and a != "-":
                i += 1
                continue
            break
        if i < len(args) and args[i] != "-" and args[i] not in STDIN_PATHS:  # `python3 /dev/stdin` is `python3 -`
            ref = self._path(args[i])
            if set(ref.aliases) & self.written:
                inv.opaque = f"runs {args[i]}, a script written earlier in the same command"
            inv.reads.append(ref)
            return
        self._feed_interpreter(inv, ctx, scope, env, via, shell=False)

    def _python_code(self, code: str, inv: Invocation, scope: Scope, via: tuple[str, ...]) -> None:
        found = pyeffects.analyse(code)
        # `print(os.getenv("HF_TOKEN"))` is judged as `printenv HF_TOKEN`; a name known only at run
        # time may be any variable, as `env` prints them all
        hooks = printenv_hooks((n for n in found.env_reads if DYN not in n), "os.environ")
        if hooks:
            self._run_hooks(hooks, dict(scope.env), scope, Ctx(via), inv.text)
        if any(DYN in n for n in found.env_reads):
            found.dumps_environment = True
        if found.opaque:
            inv.opaque = found.opaque
        for p, content in found.writes:
            inv.writes.append(WriteEffect(self._path(p), content))
        for p in found.deletes:
            inv.deletes.append(self._path(p))
        for p in found.reads:
            inv.reads.append(self._path(p))
        for d in found.unpacked:
            self._unpacked(d)
        for target in found.signals:
            inv.signals.append(SignalEffect("init" if target == "1" else "unknown", f"os.kill({target})"))
        for cmd in found.commands:
            self._shell_string(cmd, dict(scope.env), scope, Ctx((*via, "subprocess")), "python subprocess")
        if found.dumps_environment:  # judged as the program that does the same: `env`
            self.invocations.append(
                Invocation("env", "env", [], "os.environ, every variable", via=(*via, "os.environ"), prints=("*",))
            )

    def _python_module(self, inv: Invocation, module: str, rest: list[str], env: dict[str, str]) -> None:
        if module in ARGPARSE_SERVERS and asks_for_help(rest):
            return  # argparse prints the help and exits before the server starts: no GPU, no file
        if module.startswith("sglang.") and module not in SGLANG_CLIENTS:
            inv.gpus = sglang_gpus(rest, env)  # a server, a one-batch benchmark: they take GPUs
            if _opt_value(rest, ("--config",)) is not None:
                inv.gpus = frozenset({"all"})  # a config file may name any GPUs the gate cannot see
            folders = [
                _opt_value(rest, (opt,))
                for opt in ("--download-dir", "--log-requests-folder", "--crash-dump-folder", "--result-filename")
            ]
            for d in [*folders, *(env.get(k) for k in HF_CACHE_ENV)]:
                if d:  # the model is downloaded (written) there
                    inv.writes.append(WriteEffect(self._path(d.rstrip("/") + "/" + GLOB)))
        elif module == "torch.distributed.run":
            inv.gpus = torchrun_gpus(rest, env)
        if module in SGLANG_CLIENTS:
            out = _opt_value(rest, ("--output-file",))
            if out:
                inv.writes.append(WriteEffect(self._path(out)))
        if module == "json.tool":  # `python -m json.tool IN OUT` reads IN, writes OUT
            given = operands(rest, ("--indent",))
            if given and given[0] != "-":
                inv.reads.append(self._path(given[0]))
            if len(given) > 1 and given[1] != "-":
                inv.writes.append(WriteEffect(self._path(given[1])))
        if module == "pip":  # `python -m pip --log F ...` as `pip --log F`
            inv.writes += [WriteEffect(self._path(f)) for f in written_paths("pip", rest)]

    def _other_interpreter(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        flag = OTHER_INTERPRETERS[inv.program]
        if any(a == flag or (a.startswith("-") and not a.startswith("--") and flag[1] in a[1:]) for a in argv[1:]):
            inv.opaque = f"{inv.program} {flag} runs inline code the gate does not analyse"
            return
        positional = [a for a in argv[1:] if not a.startswith("-") and a not in STDIN_PATHS]
        if positional:
            ref = self._path(positional[0])
            if set(ref.aliases) & self.written:
                inv.opaque = f"runs {positional[0]}, a script written earlier in the same command"
            inv.reads.append(ref)
            return
        self._feed_interpreter(inv, ctx, scope, env, (*ctx.via, inv.program), shell=False)
        if ctx.stdin.kind == "literal" and inv.opaque is None:
            inv.opaque = f"{inv.program} reads inline code from stdin that the gate does not analyse"

    def _eval(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        code = " ".join(argv[1:])
        via = (*ctx.via, "eval")
        if DYN in code or GLOB in code:
            inv.opaque = "eval of text that is only known at run time"
            return
        self.run_source(code, scope, Ctx(via, Redirs(), ctx.stdin), self._depth_next())
        _judged_inside(inv)

    def _source(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        if len(argv) < 2:
            return
        if argv[1] in STDIN_PATHS:  # `source /dev/stdin <<< CODE` runs CODE
            self._feed_interpreter(inv, ctx, scope, env, (*ctx.via, inv.program), shell=True)
            return
        ref = self._path(argv[1])
        if set(ref.aliases) & self.written or DYN in argv[1]:
            inv.opaque = f"sources {visible(argv[1])}, written earlier in the same command or unknown"
        inv.reads.append(ref)

    def _trap(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        args = [a for a in argv[1:] if a not in ("-p", "-l", "--")]
        if len(args) >= 2:
            # one that may run before any later command (not at EXIT): what it exports counts from here on
            keeps = not all(s.upper() in _EXIT_SIGNALS for s in args[1:])
            self._same_shell_string(args[0], scope, Ctx((*ctx.via, "trap")), "trap", keep=keeps)

    def _at(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        if any(a in ("-l", "-d", "-r", "-c") for a in argv[1:]):
            return  # lists, removes or prints jobs: schedules nothing
        if "-f" in argv:
            inv.opaque = "at runs a file later; the gate cannot see it"
            return
        self._feed_interpreter(inv, ctx, scope, env, (*ctx.via, inv.program), shell=True)
        if ctx.stdin.kind == "none":
            inv.opaque = "at with no job text"

    def _hash(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        """`hash -p PATH NAME...` makes NAME run PATH; `hash -r` forgets, `hash -d NAME` forgets one."""
        args = argv[1:]
        path: str | None = None
        forget = False
        names: list[str] = []
        i = 0
        while i < len(args):
            a = args[i]
            if a.startswith("-") and "p" in a[1:] and not a.startswith("--"):
                # `-p PATH`, `-pPATH`, `-tp PATH`: the rest of the cluster after p, or the next word
                rest = a[a.index("p") + 1 :]
                path = rest or (args[i + 1] if i + 1 < len(args) else DYN)
                i += 1 if rest else 2
                continue
            if a == "-r":
                self.hashed.clear()
            elif a == "-d":
                forget = True
            elif not a.startswith("-"):
                names.append(a)
            i += 1
        for n in names:
            if forget:
                self.hashed.pop(n, None)
            elif path is not None:
                self.hashed[n] = path
        inv.wrapper = path is None  # `hash -p` is judged as itself; plain `hash NAME` only looks up

    def _let(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        for expression in argv[1:]:
            arith.evaluate_text(self, expression, scope, ctx)

    def _sets_variables(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        """`printf -v NAME`, `read [-a] NAME...`: a subscript in NAME is evaluated as arithmetic."""
        args = argv[1:]
        if inv.program == "printf":
            names = [args[k + 1] for k, a in enumerate(args[:-1]) if a == "-v"]
        else:
            names = operands(args, ("-d", "-i", "-n", "-N", "-p", "-t", "-u"))
            names += [args[k + 1] for k, a in enumerate(args[:-1]) if a == "-a"]
        for name in names:
            arith.evaluate_name(self, name, scope, ctx)

    def _crontab(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        """`crontab [-u U] [FILE|-]` installs a table (from stdin without FILE); -l/-r/-e do not."""
        args = argv[1:]
        source: str | None = None
        i = 0
        while i < len(args):
            a = args[i]
            if a == "-u":
                i += 2
                continue
            if a.startswith("-") and a != "-":
                if any(c in a[1:] for c in "lre"):
                    return  # lists, removes or edits (the editor is judged from EDITOR/VISUAL)
            elif source is None:
                source = a
            i += 1
        stdin = ctx.stdin
        if source in STDIN_PATHS:
            source = "-"  # `crontab /dev/stdin` reads stdin as `crontab -` does
        if source in (None, "-") and stdin.kind == "file":
            source = stdin.text
        if source not in (None, "-"):
            assert source is not None
            ref = self._path(source)
            if set(ref.aliases) & self.written or DYN in source:
                inv.opaque = f"installs {visible(source)} as a crontab, written earlier in the same command or unknown"
            inv.reads.append(ref)
        elif stdin.kind == "literal":
            if DYN in stdin.text:
                inv.opaque = "installs a crontab whose lines are only known at run time"
            else:
                self._run_hooks(cron_hooks(stdin.text, system=False, how="crontab line"), env, scope, ctx, inv.text)
        elif stdin.kind == "opaque":
            inv.opaque = f"{stdin.text} is installed as a crontab; the gate cannot see its jobs"

    def _find(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        args = argv[1:]
        if any(_SECRET_NAME_PATTERN.search(a) for a in args):  # `find /srv -name '*.env'`: secrets' names
            self.listed_secrets = True
        roots: list[str] = []
        i = 0
        while i < len(args) and args[i] in ("-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3", "-D"):
            i += 2 if args[i] == "-D" else 1
        while i < len(args) and not args[i].startswith(("-", "(", "!", ")")):
            roots.append(args[i])
            i += 1
        listed = [v for _, v in option_values(args, ("-files0-from",), clustered=False)]
        if listed:  # the starting points are the names in that file: anywhere
            roots = [DYN]
            inv.reads += [self._path(f) for f in listed if f != "-"]
        if not roots:
            roots = ["."]
        while i < len(args):
            a = args[i]
            if a in ("-exec", "-execdir", "-ok", "-okdir"):
                j = i + 1
                while j < len(args) and args[j] not in (";", "+"):
                    j += 1
                if a in ("-execdir", "-okdir"):  # it runs in each found file's directory
                    where = scope.copy()
                    where.cwd = None
                    inner = [x.replace("{}", DYN) for x in args[i + 1 : j]]
                    if inner:
                        self._wrapped = True
                        self._argv(inner, None, env, {}, where, Ctx((*ctx.via, f"find {a}")), " ".join(inner))
                else:
                    for root in roots:  # `{}` is a file found beneath a starting point
                        # (for what deletes or changes files; a read of it stays unknown, and the
                        # secrets beneath the starting points count as read, below)
                        beneath = args[i + 1 : i + 2] and args[i + 1] in _CHANGERS and DYN not in root
                        found = root.rstrip("/") + "/" + GLOB if beneath else DYN
                        inner = [x.replace("{}", found) for x in args[i + 1 : j]]
                        if inner:
                            self._wrapped = True
                            self._argv(inner, None, env, {}, scope, Ctx((*ctx.via, f"find {a}")), " ".join(inner))
                i = j + 1
                continue
            if a == "-delete":
                for r in roots:
                    inv.deletes.append(self._path(r.rstrip("/") + "/" + GLOB if r != "/" else "/" + GLOB))
                    inv.deletes.append(self._path(r))
            if a in ("-fprint", "-fprint0", "-fprintf", "-fls") and i + 1 < len(args):
                inv.writes.append(WriteEffect(self._path(args[i + 1])))
            i += 1
        for r in roots:
            inv.reads.append(self._path(r))
        if any(a in ("-exec", "-execdir", "-ok", "-okdir") for a in args):
            self._secrets_beneath(inv, [self._path(r).aliases[0] for r in roots])  # `-exec cat {}` reads them

    def _kill(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        """As bash's `kill` reads its words: `-l` lists only in first place; one signal option, then
        every word is a target, a later `-l` or `-0` included (`kill -9 -0 1` kills PID 1)."""
        args = argv[1:]
        words = self._current_words
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
            if (
                not saw_signal
                and a.startswith("-")
                and len(a) > 1
                and (not re.fullmatch(r"-\d+", a) or i + 1 < len(args))
            ):
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
            inv.signals.append(self._signal_target(t, word, sig))

    _current_words: list[Word] | None = None

    def _signal_target(self, target: str, word: Word | None, sig: str) -> SignalEffect:
        f = self.facts
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
        return SignalEffect(self._classify_subst(word), detail)

    def _classify_subst(self, word: Word | None) -> str:
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
            return "own" if self._agent_pid_files(self._path(value).aliases) else "foreign"
        head = text.split()[0] if text.split() else ""
        if head in ("pgrep", "pidof"):
            return "pattern"
        if head in ("lsof", "fuser", "ss", "netstat"):
            return "port"
        return "unknown"

    def _agent_pid_files(self, paths: Iterable[str]) -> bool:
        """Whether every one of these paths is surely one of the agent's pid files."""
        return all(DYN not in p and any(may_match(p, g) for g in self.facts.agent_pid_files) for p in paths)

    def _pkill(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        args = argv[1:]
        pid_files = [v for _, v in option_values(args, ("-F", "--pidfile"), clustered=False)]
        if inv.program == "pkill" and pid_files:
            # procps reads the last -F given: every one must be the agent's
            own = self._agent_pid_files([self._path(f).aliases[0] for f in pid_files])
            inv.signals.append(SignalEffect("own" if own else "foreign", f"pkill -F {' '.join(pid_files)}"))
            return
        if inv.program == "killall5":
            inv.signals.append(SignalEffect("all", "killall5 signals every process"))
            return
        if any(a in ("-0", "--signal=0") for a in args) or ("-l" in args and inv.program == "killall"):
            return
        pats = [a for a in args if not a.startswith("-")]
        inv.signals.append(SignalEffect("pattern", f"{inv.program} {' '.join(visible(p) for p in pats)}"))

    def _fuser(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        if any(a.startswith("-") and not a.startswith("--") and "k" in a for a in argv[1:]) or "--kill" in argv:
            inv.signals.append(SignalEffect("port", "fuser -k kills whatever holds the file or port"))

    def _rm(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        ends = False
        for a in argv[1:]:
            if a == "--" and not ends:
                ends = True
                continue
            if a.startswith("-") and not ends and a != "-":
                continue
            inv.deletes.append(self._delete_ref(a))

    def _delete_ref(self, raw: str) -> PathRef:
        """A trailing slash (or `/.`) makes rm follow a symlink: the target is what goes."""
        ref = self._path(raw)
        if raw.endswith(("/", "/.")) and len(ref.aliases) == 1 and self.links.get(ref.aliases[0]) is None:
            return ref
        return ref

    def _copylike(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        name = inv.program
        args = argv[1:]
        pos, target_dir, valued = copy_operands(name, args)
        if target_dir is None and pos:
            dest, sources = pos[-1], pos[:-1]
        else:
            dest, sources = target_dir or DYN, pos
        remote = re.match(r"^[^/]*:", dest) and name in ("scp", "rsync")
        if name in ("cp", "rsync") and not remote and DYN not in dest and reads_recursively(name, args):
            # a tree copied from elsewhere: files the gate has not seen (a `.git/config`, a `json.py`)
            self._unpacked(dest)
            for src in sources:
                self._unpacked(dest.rstrip("/") + "/" + posixpath.basename(src.rstrip("/")))
        if name == "ln":
            symbolic = _makes_symlinks(args, "--symbolic")
            if len(pos) == 1 and target_dir is None:
                dest, sources = posixpath.basename(pos[0]), pos
            inv.writes.append(WriteEffect(self._path(dest)))
            for src in sources:  # what the link points at is read through it later (`ln -s ~/.ssh/id_rsa k`)
                inv.reads.append(
                    self._path(src)
                    if not symbolic or src.startswith(("/", "~"))
                    else self._path(src, cwd=posixpath.dirname(self._path(dest).aliases[0]))
                )
            if symbolic and len(sources) == 1 and DYN not in dest:
                link = self._path(dest).aliases[0]
                self.links[link] = self._path(sources[0], cwd=posixpath.dirname(link)).aliases[0]
            return
        if not remote:
            inv.writes.append(WriteEffect(self._path(dest)))
            if name in ("cp", "mv", "install") and DYN not in dest:
                # into a directory, each source lands as DEST/NAME (a pid file in run/, say)
                for src in sources:
                    inside = dest.rstrip("/") + "/" + posixpath.basename(src.rstrip("/"))
                    inv.writes.append(WriteEffect(self._path(inside)))
                    made = self._path(inside if target_dir is not None or len(sources) > 1 else dest)
                    if name == "cp" and _makes_symlinks(args, "--symbolic-link"):  # `cp -s T L` makes L a link to T
                        self.links[made.aliases[0]] = self._path(src).aliases[0]
                    elif name in ("cp", "mv"):  # a link copied as a link (`cp -P`, `-a`, `-R`; mv) still points there
                        target = self.links.get(self._path(src).aliases[0])
                        if target is not None and (name == "mv" or _cp_keeps_links(args)):
                            self.links[made.aliases[0]] = target
            backup = any(
                a == "--backup" or a.startswith("--backup=") or (a[:1] == "-" and a[1:2] != "-" and "b" in a)
                for a in args
            )
            if name in ("cp", "mv", "install", "ln") and (backup or any(o in ("-S", "--suffix") for o, _ in valued)):
                suffix = next((v for o, v in valued if o in ("-S", "--suffix")), "~")
                inv.writes.append(WriteEffect(self._path(dest + suffix)))  # the old DEST is kept as DEST~
            if any(a.startswith("--del") for a in args):  # `--del` is `--delete-during`
                inv.deletes.append(self._path(dest.rstrip("/") + "/" + GLOB))
        for opt, value in valued:
            if opt in RSYNC_WRITTEN_OPTIONS:  # `--log-file=F`, `--temp-dir=D`, `--backup-dir=D`, ...
                inv.writes.append(
                    WriteEffect(self._path(value.rstrip("/") + ("/" + GLOB if opt in RSYNC_DIRS else "")))
                )
        # rsync's `--remove-sent-files` is the old name of `--remove-source-files`
        moves = name == "mv" or (name == "rsync" and any(a.startswith("--remove-s") for a in args))
        for s in sources:
            if re.match(r"^[^/]*:", s) and name in ("scp", "rsync"):
                continue
            ref = self._path(s)
            inv.reads.append(ref)
            if moves:
                inv.deletes.append(self._delete_ref(s) if name == "rsync" else ref)

    def _tee(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        content = ctx.stdin.text if ctx.stdin.kind == "literal" and DYN not in ctx.stdin.text else None
        for a in argv[1:]:
            if a.startswith("-") and a != "-":
                continue
            ref = self._path(a)
            if ref.aliases[0] in DEVNULL:
                continue
            inv.writes.append(WriteEffect(ref, content))

    def _dd(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        content = ctx.stdin.text if ctx.stdin.kind == "literal" else None
        for a in argv[1:]:
            k, _, v = a.partition("=")
            if k == "of":
                ref = self._path(v)
                if ref.aliases[0] not in DEVNULL:
                    inv.writes.append(WriteEffect(ref, content))
            elif k == "if":
                inv.reads.append(self._path(v))

    def _sed(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        opts = read_sed(argv[1:])
        for script in opts.scripts:
            commands = None if DYN in script else sed_commands(script)
            if commands is None:
                inv.opaque = "a sed script the gate cannot read (from a file, or only known at run time)"
                return
            for command, arg in commands:
                if opts.sandbox:
                    continue  # `--sandbox` rejects e, r and w
                if command == "e":
                    inv.opaque = "sed's e command runs a shell command"
                    return
                if command in "wW" and arg not in ("/dev/stdout", "/dev/stderr"):
                    inv.writes.append(WriteEffect(self._path(arg)))
                elif command in "rR":
                    inv.reads.append(self._path(arg))
        for f in opts.files:
            ref = self._path(f)
            inv.reads.append(ref)
            if opts.in_place:
                inv.writes.append(WriteEffect(ref))

    def _targets_write(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        """touch, mkdir, truncate, chmod, chown, shred, mkfs...: their operands are written."""
        name = inv.program
        value_opts = {
            "-s",
            "--size",
            "-r",
            "--reference",
            "-m",
            "--mode",
            "-n",
            "--iterations",
            "-t",
            "-d",
            "--date",
        }
        args = argv[1:]
        # `chmod --reference=F FILE`: the mode comes from F, so every operand is a file
        referenced = name in ("chmod", "chown", "chgrp") and any(
            a.startswith("--") and long_option(a.partition("=")[0], ("--reference",)) == "--reference" for a in args
        )
        skip_first = name in ("chmod", "chown", "chgrp", "setfacl", "chattr") and not referenced
        pos: list[str] = []
        i = 0
        while i < len(args):
            a = args[i]
            if a in value_opts and name in ("truncate", "shred", "mkdir", "touch", "install"):
                i += 2
                continue
            if referenced and a in ("--reference", "--refer", "--ref"):
                i += 2
                continue
            if not a.startswith("-") or (skip_first and not pos and _CHMOD_MODE.match(a)):
                pos.append(a)
            i += 1
        if skip_first:
            pos = pos[1:]
        for p in pos:
            ref = self._path(p)
            inv.writes.append(WriteEffect(ref))
            if name in ("shred",) and any(a.startswith("-") and "u" in a for a in args):
                inv.deletes.append(ref)

    def _downloader(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        """curl and wget: the files they write (`-o F`, `-oF`, `--output-dir D`, `-D F`, `-c F`,
        `--trace F`, `wget -O F`, `-P D`, `-o LOG`, ...), the files they read and send (`-d @F`,
        `--json @F`, `-F x=@F`, `-T F`, `--post-file=F`), and `file:` URLs, which read the file."""
        args = argv[1:]
        curl = inv.program == "curl"
        table = _CURL_FILES if curl else _WGET_FILES
        given = option_values(args, table, clustered=True)
        dirs = [v for o, v in given if table[o] == "dir"]
        for opt, value in given:
            kind = table[opt]
            if kind == "write" and value not in DEVNULL and value != "-":
                base = dirs[-1].rstrip("/") + "/" if dirs and curl and opt in ("-o", "--output") else ""
                inv.writes.append(WriteEffect(self._path(value if value.startswith("/") else base + value)))
            elif kind == "dir":
                inv.writes.append(WriteEffect(self._path(value.rstrip("/") + "/" + GLOB)))
            elif kind == "read":
                inv.reads.append(self._path(value))
            elif kind == "data":  # `@FILE` (or `name@FILE`, `name=<FILE` in a form) is read and sent
                sent = re.split(r"=?[@<]", value, maxsplit=1)
                if value.startswith("@") or len(sent) > 1:
                    inv.reads.append(self._path(sent[-1].split(";")[0]))
        for opt, value in given:  # `wget -e output_document=F`: a wgetrc command
            if not curl and opt in ("-e", "--execute"):
                key, _, setting = value.partition("=")
                key = key.strip().lower().replace("_", "").replace("-", "")
                if key in ("outputdocument", "logfile", "savecookies", "warcfile") and setting.strip():
                    inv.writes.append(WriteEffect(self._path(setting.strip())))
                elif key == "dirprefix" and setting.strip():
                    inv.writes.append(WriteEffect(self._path(setting.strip().rstrip("/") + "/" + GLOB)))
                elif key in ("postfile", "bodyfile", "inputfile", "loadcookies") and setting.strip():
                    inv.reads.append(self._path(setting.strip()))
        proto_file = any(v.lower() == "file" for o, v in given if o == "--proto-default")
        for a in args:
            if a[:5].lower() == "file:":  # `curl file:///etc/shadow`, `file://localhost/etc/shadow`
                rest = a[5:].partition("?")[0]
                if rest.startswith("//"):
                    rest = rest[2:]
                    rest = rest[rest.find("/") :] if "/" in rest else "/"
                inv.reads.append(self._path(rest or "/"))
            elif proto_file and not a.startswith("-") and "://" not in a:
                inv.reads.append(self._path(a))  # `--proto-default file`: a bare word is a file URL
        remote_names = curl and any(o in ("-O", "--remote-name", "--remote-name-all", "-J") for o, _ in given)
        named = any(table[o] in ("write", "dir") and o not in _WGET_LOGS for o, _ in given)
        wget_default = not curl and not named and "--spider" not in args  # wget saves into the cwd
        if remote_names or wget_default:
            inv.writes.append(WriteEffect(self._path((dirs[-1].rstrip("/") + "/" if dirs else "") + GLOB)))

    def _tar(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        t = read_tar(argv[1:])
        modes = t.modes
        if "x" in modes:
            for d in t.directories or ["."]:
                inv.writes.append(WriteEffect(self._path(d.rstrip("/") + "/" + GLOB)))
                self._unpacked(d)
            if t.absolute:  # `-P`: members keep `/` and `..`, so they land anywhere
                inv.writes.append(WriteEffect(self._path(DYN + "/" + GLOB)))
                self._unpacked(DYN)
            for d in t.top_level:
                inv.writes.append(WriteEffect(self._path(d.rstrip("/") + "/" + GLOB)))
        if t.archive is not None and t.archive != "-" and modes & {"c", "r", "u", "A", "--delete"}:
            inv.writes.append(WriteEffect(self._path(t.archive)))
        if t.archive is not None and t.archive != "-" and modes & {"x", "t", "d", "r", "u", "A", "--delete"}:
            inv.reads.append(self._path(t.archive))
        if modes & {"c", "r", "u"}:
            for where, name in t.members:  # relative to the `-C` in force where each stands
                ref = self._path(name if where is None or name.startswith("/") else where.rstrip("/") + "/" + name)
                inv.reads.append(ref)
                if t.remove_files:
                    inv.deletes.append(ref)
            for listed in t.lists:  # `-T FILE`: names only known at run time
                inv.reads.append(self._path(listed))
                inv.reads.append(self._path(DYN))
        elif not modes:
            for _, name in t.members:
                inv.reads.append(self._path(name))

    def _cd(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        before = (scope.cwd, *scope.also)
        self._change_directory(inv, argv, env, scope)
        names_only = [a for a in argv[1:] if not a.startswith(("-", "/", ".", "~"))]
        if scope.cwd is not None and self._shopt_seen and names_only:
            scope.cwd = None  # after `shopt -s cdable_vars`, `cd NAME` goes where variable NAME points
        # it may have failed: every directory it may have been in still counts, except where
        # only its success leads (`cd X && ...`, until that list ends)
        also = tuple(dict.fromkeys(d for d in before if d != scope.cwd))
        guard = self._success_guard() if inv.via == () else None
        if guard is not None:
            self._cwd_guards.append((guard, also))
            also = ()
        scope.also = also if len(also) <= MAX_CWDS else (None,)
        self._stand_in(scope)
        inv.wrapper = True

    def _success_guard(self) -> tuple[int, int] | None:
        """The list whose rest runs only if the current command succeeded (`cmd && rest`)."""
        node = self._command_node
        while node is not None and node.parent is not None and node.parent.type in ("list", "redirected_statement"):
            parent = node.parent
            if parent.type == "list":
                kids = parent.children
                at = next(
                    (k for k, c in enumerate(kids) if c.start_byte == node.start_byte and c.end_byte == node.end_byte),
                    -1,
                )
                if at > 0 and kids[at - 1].type != "&&":
                    return None  # `cd a || cd b && rest`: rest also runs where `cd a` went
                if 0 <= at < len(kids) - 1:
                    return (parent.start_byte, parent.end_byte) if kids[at + 1].type == "&&" else None
            node = parent
        return None

    def _list(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`a && b || c`: once it ends, a `cd` guarded inside it may have failed after all."""
        self._children(node, scope, ctx)
        key = (node.start_byte, node.end_byte)
        while self._cwd_guards and self._cwd_guards[-1][0] == key:
            _, also = self._cwd_guards.pop()
            merged = tuple(dict.fromkeys((*scope.also, *(d for d in also if d != scope.cwd))))
            scope.also = merged if len(merged) <= MAX_CWDS else (None,)
            self._stand_in(scope)

    def _change_directory(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope) -> None:
        target = [a for a in argv[1:] if not a.startswith("-") or a == "-"]
        name = inv.program
        if name == "popd" or (name == "pushd" and not target):
            # popd returns to the directory pushd left; pushd alone swaps the top two
            if target:
                scope.cwd = None  # `popd +N`, `pushd -N`: not followed
            elif not scope.dirs:
                pass  # an empty stack: bash refuses, the directory stays
            elif name == "popd":
                scope.cwd = scope.dirs.pop()
            else:
                scope.cwd, scope.dirs[-1] = scope.dirs[-1], scope.cwd
        elif not target:
            scope.cwd = self._home_of(scope)
        else:
            if name == "pushd":
                scope.dirs.append(scope.cwd)
            cdpath = "CDPATH" in env or "CDPATH" in scope.vars or "CDPATH" in self.unsafe_vars
            if DYN in target[0] or target[0] == "-" or target[0].startswith(("+", "-")):
                scope.cwd = None
            elif cdpath and not target[0].startswith(("/", ".")):
                scope.cwd = None  # CDPATH decides which directory of that name: not followed
            else:
                scope.cwd = self._path(target[0]).aliases[0]

    def _nvidia_smi(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        args = argv[1:]
        sub = args[0] if args and not args[0].startswith("-") else None
        modifies = sub is None and any(a.partition("=")[0] in NVSMI_MODIFY for a in args)
        if (
            args
            and args[0] in NVSMI_SETTING_SUBCOMMANDS
            and not any(a in ("-h", "--help", "-l", "--list") for a in args)
        ):
            modifies = True  # `boost-slider --vboost 1`, `power-smoothing ...`: settings of the GPUs named
        if args and args[0] == "vgpu":  # `-sms`, `-shm`, `--set-*`: the vGPU scheduler of the GPUs named
            modifies = modifies or any(a.startswith(("--set", "-s")) and len(a) > 2 for a in args[1:])
        if args and args[0] in ("mig", "drain", "nvlink", "clocks", "conf-compute", "c2c"):
            modifies = modifies or any(
                a in ("-r", "-cgi", "-dgi", "-dci", "-cci", "-C", "-p", "-m", "--set", "-sc")
                or (a.startswith("--") and _NVSMI_LONG_CHANGE.search(a) is not None)
                for a in args
            )
        if args and args[0] == "conf-compute":  # `-srs`, `-scc`, `--set-*`: the CC state of every GPU
            modifies = modifies or any(a.startswith(("-s", "--set")) for a in args[1:])
        if not modifies:
            return
        ids: frozenset[str] | None = None
        # `drain -p/--pciid ADDR` names its one GPU by PCI address (elsewhere `-p` resets ECC counts)
        pci_opts = ("-p", "--pciid") if sub == "drain" else ()
        for i, a in enumerate(args):
            if a in pci_opts and i + 1 < len(args):
                ids = parse_gpu_list(args[i + 1])
            elif pci_opts and a.startswith("--pciid="):
                ids = parse_gpu_list(a.partition("=")[2])
            elif a in ("-i", "--id") and i + 1 < len(args):
                ids = parse_gpu_list(args[i + 1])
            elif a.startswith("--id="):
                ids = parse_gpu_list(a.partition("=")[2])
            elif a.startswith("-i") and len(a) > 2 and a[2:].replace(",", "").isdigit():
                ids = parse_gpu_list(a[2:])
        inv.gpus = ids if ids is not None else frozenset({"all"})

    def _docker(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        args = argv[1:]
        gpus: frozenset[str] | None = None
        for i, a in enumerate(args):
            nxt = args[i + 1] if i + 1 < len(args) else DYN
            val = a.partition("=")[2] if "=" in a else nxt
            if a.startswith("--gpus"):
                v = val.strip("'\"")
                if v == "all" or DYN in v:
                    gpus = frozenset({"all"})
                elif v.isdigit():
                    gpus = frozenset(str(n) for n in range(int(v)))
                else:
                    gpus = parse_gpu_list(v.removeprefix("device=").strip("\"'"))
        for opt, setting in option_values(args, ("-e", "--env", "--env-file"), clustered=False):  # `-eK=V`
            if opt == "--env-file":
                inv.reads.append(self._path(setting))
                continue
            key, eq, value = setting.partition("=")
            if not eq:
                # `-e NAME` hands the host's value in: every GPU it may name, a secret it may print
                value = env.get(key, DYN)
                self._run_hooks(printenv_hooks([key], "docker -e"), env, scope, ctx, inv.text)
            if key in ("NVIDIA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
                gpus = (gpus or frozenset()) | parse_gpu_list(value)
        runtime = [v for _, v in option_values(args, ("--runtime",), clustered=False)]
        if "nvidia" in runtime and gpus is None:
            gpus = frozenset({"all"})  # the NVIDIA runtime shows the image's default: every GPU
        if gpus is not None:
            inv.gpus = gpus
        for source, read_only in bind_mounts(args):
            # what runs in the container is not judged: it may do anything to what is mounted
            ref = self._path(source)
            inside = self._path(source.rstrip("/") + "/" + GLOB)
            inv.reads.append(ref)
            self._secrets_beneath(inv, [ref.aliases[0]])
            if not read_only:
                inv.writes += [WriteEffect(ref), WriteEffect(inside)]
                inv.deletes.append(inside)

    def _sglang(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        if len(argv) > 1 and argv[1] in ("serve", "launch_server"):
            self._python_module(inv, "sglang.launch_server", argv[2:], env)

    def _torchrun(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        if argv[1:] in (["-h"], ["--help"]):
            return  # torchrun's own help; any other word may be the script, whose `--help` is its own
        inv.gpus = torchrun_gpus(argv[1:], env)
        positional = [a for a in argv[1:] if not a.startswith("-")]
        if positional:
            inv.reads.append(self._path(positional[-1]))

    def _systemctl(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        if "kill" in argv[1:]:
            inv.signals.append(SignalEffect("foreign", "systemctl kill signals a unit's processes"))

    def _awk(self, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
        line = read_awk(argv[1:])
        if line.opaque is not None:
            inv.opaque = line.opaque
        for program in line.programs:
            found = awk_effects(program)
            if found.runs:
                inv.opaque = "awk program that runs commands"
            inv.writes += [WriteEffect(self._path(p)) for p in found.writes]
            inv.reads += [self._path(p) for p in found.reads]
        inv.reads += [self._path(f) for f in line.files if f != "-"]


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


def _judged_inside(inv: Invocation) -> None:
    """The code it runs was judged on its own; what is left is its redirects, as `:` would have."""
    inv.program = inv.path = ":"
    inv.args = []
    inv.wrapper = True


_HANDLERS = {
    "eval": Analyser._eval,
    "source": Analyser._source,
    ".": Analyser._source,
    "trap": Analyser._trap,
    "at": Analyser._at,
    "crontab": Analyser._crontab,
    **{t: Analyser._tracer for t in ("gdb", "lldb", "gcore", "perf", "reptyr")},
    "sysctl": Analyser._sysctl,
    "hash": Analyser._hash,
    "let": Analyser._let,
    "printf": Analyser._sets_variables,
    "read": Analyser._sets_variables,
    "batch": Analyser._at,
    "find": Analyser._find,
    "kill": Analyser._kill,
    "pkill": Analyser._pkill,
    "killall": Analyser._pkill,
    "killall5": Analyser._pkill,
    "fuser": Analyser._fuser,
    "rm": Analyser._rm,
    "rmdir": Analyser._rm,
    "unlink": Analyser._rm,
    "cp": Analyser._copylike,
    "mv": Analyser._copylike,
    "install": Analyser._copylike,
    "ln": Analyser._copylike,
    "rsync": Analyser._copylike,
    "scp": Analyser._copylike,
    "tee": Analyser._tee,
    "dd": Analyser._dd,
    "sed": Analyser._sed,
    "touch": Analyser._targets_write,
    "mkdir": Analyser._targets_write,
    "truncate": Analyser._targets_write,
    "chmod": Analyser._targets_write,
    "chown": Analyser._targets_write,
    "chgrp": Analyser._targets_write,
    "setfacl": Analyser._targets_write,
    "chattr": Analyser._targets_write,
    "shred": Analyser._targets_write,
    "mknod": Analyser._targets_write,
    "mkfifo": Analyser._targets_write,
    "curl": Analyser._downloader,
    "wget": Analyser._downloader,
    "tar": Analyser._tar,
    "cd": Analyser._cd,
    "pushd": Analyser._cd,
    "popd": Analyser._cd,
    "nvidia-smi": Analyser._nvidia_smi,
    "docker": Analyser._docker,
    "podman": Analyser._docker,
    "nerdctl": Analyser._docker,
    "sglang": Analyser._sglang,
    "torchrun": Analyser._torchrun,
    "systemctl": Analyser._systemctl,
    "awk": Analyser._awk,
    "gawk": Analyser._awk,
    "mawk": Analyser._awk,
    **{name: Analyser._other_interpreter for name in OTHER_INTERPRETERS},
}


# what a node of each type does; a type not named here: its named children, one by one
_NODE_HANDLERS: dict[str, Callable[[Analyser, Node, Scope, Ctx], None]] = {
    **dict.fromkeys(
        ("comment", "heredoc_body", "heredoc_start", "heredoc_end", "variable_name", "word"), Analyser._skip
    ),
    "command": Analyser._command,
    "list": Analyser._list,
    "redirected_statement": Analyser._redirected,
    "pipeline": Analyser._pipeline,
    "subshell": Analyser._subshell,
    "command_substitution": Analyser._substitution_node,
    "process_substitution": Analyser._substitution_node,
    "variable_assignment": Analyser._assignment_node,
    "variable_assignments": Analyser._assignments,
    "declaration_command": Analyser._declaration,
    "unset_command": Analyser._unset,
    "function_definition": Analyser._function,
    "for_statement": Analyser._for,
    "c_style_for_statement": Analyser._c_for,
    "compound_statement": Analyser._arith_compound,
    "test_command": Analyser._test_command,
    **dict.fromkeys(
        ("string", "concatenation", "simple_expansion", "expansion", "raw_string", "number"), Analyser._as_word
    ),
}
# children resolved as words where they stand (in a list, a program, any other statement)
_WORD_CHILDREN = frozenset(("word", "string", "concatenation", "simple_expansion", "expansion"))


_HEREDOC_PARTS = frozenset(("heredoc_start", "heredoc_body", "heredoc_end"))


def _in_a_test(node: Node) -> bool:
    """Whether a word is an operand of `[ ]`, `test` or `[[ ]]` (which print nothing)."""
    parent = node.parent
    while parent is not None and parent.type not in ("command", "test_command", "program", "redirected_statement"):
        parent = parent.parent
    if parent is None or (parent.type != "command" and parent.type != "test_command"):
        return False
    if parent.type == "test_command":
        return True
    name = parent.child_by_field_name("name")
    return name is not None and node_text(name) in ("[", "test")


def _fd_number(word: Node, command: Node) -> bool:
    """A number that touches the redirect after it (`python3 0<<<CODE`, `systemctl 0</dev/null X`)
    is that redirect's file descriptor, whichever node tree-sitter hangs the redirect on."""
    if word.type != "number" or not node_text(word).isdigit():
        return False
    after = word.next_sibling
    if after is None and word.end_byte == command.end_byte:
        after = command.next_sibling
    return after is not None and after.type.endswith("_redirect") and after.start_byte == word.end_byte


def redirect_parts(r: Node) -> tuple[list[Node], list[Node], list[Node]]:
    """What bash reads after a redirect's own target that tree-sitter hangs on the redirect: more
    words of the command (`rm -rf 2>/dev/null /models`, `rm -rf <<E /models`), more redirects
    (`cat <<E > F`) and text it could not parse (`cat <<E x > F`)."""
    words: list[Node] = []
    redirects: list[Node] = []
    broken: list[Node] = []
    if r.type == "file_redirect":
        closes = any(not c.is_named and node_text(c) in (">&-", "<&-") for c in r.children)
        words = r.children_by_field_name("destination")[0 if closes else 1 :]  # `<&-` takes no file
    elif r.type == "heredoc_redirect":
        for i, c in enumerate(r.children):
            if c.type.endswith("_redirect"):
                redirects.append(c)
                more_words, more_redirects, more_broken = redirect_parts(c)
                words += more_words
                redirects += more_redirects
                broken += more_broken
            elif c.type == "ERROR":
                broken.append(c)
            elif r.field_name_for_child(i) == "argument":
                words.append(c)
    return words, redirects, broken


def _command_words(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type != "variable_assignment" and not c.type.endswith("_redirect")]


def parse_gpu_list(text: str) -> frozenset[str]:
    """`0,1,3` -> {"0","1","3"}; PCI addresses and full GPU UUIDs kept as names; unknown -> {"all"}.
    A UUID prefix (CUDA takes one) stays unknown: it may name any GPU."""
    text = text.strip().strip("'\"")
    if DYN in text or GLOB in text or text in ("all", ""):
        return frozenset({"all"}) if text != "" else frozenset()
    if text in ("none", "void", "-1"):
        return frozenset()
    out: set[str] = set()
    for part in text.split(","):
        part = part.strip()
        if part.isdigit():
            out.add(str(int(part)))
        elif re.fullmatch(r"(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]", part):
            from agent.policy.model import normalise_pci

            out.add("pci:" + normalise_pci(part))
        elif re.fullmatch(r"GPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", part):
            out.add("uuid:" + part.lower())
        else:
            out.add("all")
    return frozenset(out)


def _opt_value(args: list[str], names: Iterable[str]) -> str | None:
    """The last value given to one of `names`, in any spelling argparse takes: `--opt V`,
    `--opt=V` and abbreviations (`--base-gpu 4` is `--base-gpu-id 4`)."""
    names = tuple(names)
    value: str | None = None
    for i, a in enumerate(args):
        key, eq, val = a.partition("=")
        if key in names or (len(key) > 3 and key.startswith("--") and any(n.startswith(key) for n in names)):
            value = val if eq else (args[i + 1] if i + 1 < len(args) else None)
    return value


# curl's and wget's options that name a file: written, a directory written into, read, or data
# that may be `@FILE` (read and sent); flags listed too so a cluster (`-sSo F`) reads right
_CURL_FILES = {
    **dict.fromkeys(("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
                     "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc", "--ssl-sessions"), "write"),
    **dict.fromkeys(("--output-dir",), "dir"),
    **dict.fromkeys(("-K", "--config", "--etag-compare", "--cacert", "--cert", "--key", "-b", "--cookie"), "read"),
    **dict.fromkeys(("-T", "--upload-file"), "read"),
    **dict.fromkeys(("-d", "--data", "--data-binary", "--data-ascii", "--data-urlencode", "--data-raw", "--json",
                     "-F", "--form", "--form-string"), "data"),
    **dict.fromkeys(("-O", "--remote-name", "--remote-name-all", "-J"), "flag"),
    **dict.fromkeys(("--proto-default", "-x", "--proxy", "-H", "--header", "-X", "--request", "-u", "--user",
                     "-A", "--user-agent", "-e", "--referer", "-m", "--max-time", "-w", "--write-out",
                     "--connect-timeout", "--retry", "--resolve", "--connect-to", "-r", "--range"), "value"),
}  # fmt: skip
_WGET_LOGS = ("-o", "--output-file", "-a", "--append-output")
_WGET_FILES = {
    **dict.fromkeys(("-O", "--output-document", *_WGET_LOGS, "--save-cookies", "--warc-file",
                     "--save-headers-file"), "write"),
    **dict.fromkeys(("-P", "--directory-prefix"), "dir"),
    **dict.fromkeys(("-i", "--input-file", "--load-cookies", "--post-file", "--body-file", "--config",
                     "--ca-certificate", "--certificate", "--private-key"), "read"),
    **dict.fromkeys(("-e", "--execute", "-U", "--user-agent", "-t", "--tries", "-T", "--timeout",
                     "--header", "--method", "--body-data", "--post-data"), "value"),
}  # fmt: skip


# wrappers' options naming a file they write (a trace, a timing, a typescript)
_WRAPPER_LOGS = {
    "strace": ("-o", "--output"),
    "ltrace": ("-o", "--output"),
    "time": ("-o", "--output"),
    "script": ("-O", "--log-out", "-I", "--log-in", "-B", "--log-io", "-T", "--log-timing"),
}
_YQ_LOAD = re.compile(r"\bload(?:_str|_xml|_props|_base64)?\(\s*\"([^\"]+)\"\s*\)")
_YQ_ANY_LOAD = re.compile(r"\bload(?:_str|_xml|_props|_base64)?\s*\(")
# what `find -exec PROGRAM {}` may run on files found beneath its starting points
_CHANGERS = frozenset(("rm", "rmdir", "unlink", "shred", "mv", "truncate", "chmod", "chown", "chgrp", "touch"))
# a symbolic chmod mode, `-w,o=` and `u+x,g-w` included (a leading `-` is not an option there)
_CHMOD_MODE = re.compile(r"^[ugoa]*[-+=][rwxXstugo]*(,[ugoa]*[-+=][rwxXstugo]*)*$")


# SGLang modules that only talk to a server: no GPU of their own
SGLANG_CLIENTS = frozenset(("sglang.bench_serving", "sglang.check_env", "sglang.version"))
HF_CACHE_ENV = ("HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE")


def _int(text: str | None, default: int) -> int | None:
    if text is None:
        return default
    return int(text) if text.isdigit() else None


def sglang_gpus(args: list[str], env: dict[str, str]) -> frozenset[str]:
    """Which physical GPUs an SGLang launch would take: base id, tp*dp (*pp), CUDA_VISIBLE_DEVICES."""
    tp = _int(_opt_value(args, ("--tp", "--tp-size", "--tensor-parallel-size")), 1)
    dp = _int(_opt_value(args, ("--dp", "--dp-size", "--data-parallel-size")), 1)
    pp = _int(_opt_value(args, ("--pp", "--pp-size", "--pipeline-parallel-size")), 1)
    base = _int(_opt_value(args, ("--base-gpu-id",)), 0)
    step = _int(_opt_value(args, ("--gpu-id-step",)), 1)
    if None in (tp, dp, pp, base, step):
        return frozenset({"all"})
    assert tp is not None and dp is not None and pp is not None and base is not None and step is not None
    if "--enable-dp-attention" in args:
        dp = 1  # DP attention splits the TP group's GPUs; it adds none (`--tp 8 --dp 8` is 8 GPUs)
    logical = [base + k * step for k in range(tp * dp * pp)]
    return _map_visible(logical, env)


# Servers whose whole command line is one argparse parser (no script or remainder after it), so
# a help option anywhere means help and exit: `--tp 8 --help` starts nothing.
ARGPARSE_SERVERS = frozenset({"sglang.launch_server"})


def asks_for_help(args: list[str]) -> bool:
    """`-h`/`--help` as a word of its own; abbreviations (`--he`) stay launches: the gate does not
    resolve them against each version's flags, so it fails closed there."""
    return any(a in ("-h", "--help") for a in args)


def torchrun_gpus(args: list[str], env: dict[str, str]) -> frozenset[str]:
    n = _opt_value(args, ("--nproc-per-node", "--nproc_per_node"))
    if n is None or not n.isdigit():
        return frozenset({"all"})
    return _map_visible(list(range(int(n))), env)


def _map_visible(logical: list[int], env: dict[str, str]) -> frozenset[str]:
    cvd = env.get("CUDA_VISIBLE_DEVICES")
    if cvd is None:
        return frozenset(str(i) for i in logical)
    visible_ids = [p.strip() for p in cvd.split(",") if p.strip()]
    if DYN in cvd or GLOB in cvd:
        return frozenset({"all"})
    out: set[str] = set()
    for i in logical:
        if i >= len(visible_ids):
            out.add("all")
        else:
            out |= parse_gpu_list(visible_ids[i])
    return frozenset(out)


_SETTERS = (
    "read",
    "mapfile",
    "readarray",
    "printf",
    "getopts",
    "let",
    "declare",
    "typeset",
    "local",
    "export",
    "unset",
    "eval",
    "source",
    ".",
    "builtin",
    "command",
)
_EXPANDED_OR_SET = frozenset(("simple_expansion", "expansion", "variable_assignment", "for_statement"))
_TOP_PARENTS = frozenset(("program", "declaration_command", "variable_assignments"))
# the nodes `_unsafe_variables` looks at, found by tree-sitter itself instead of a walk in Python
_VARIABLE_QUERY = Query(
    LANGUAGE,
    "(for_statement) @for\n"
    "(variable_assignment) @assign\n"
    "(variable_name) @var\n"
    "(command name: (command_name) @setter (#any-of? @setter " + " ".join(f'"{n}"' for n in _SETTERS) + "))\n"
    '(command name: (command_name) @anything (#any-of? @anything "trap" "source" "."))\n',
)


_ENVIRONMENT_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
_SECRET_ROOTS = ("~", "/home/", "/root", "/etc/", "/run/", "/var/run/", "/proc/")
# PATH named other than as `$PATH`/`${PATH}` (a read): an assignment, a setter's operand
_SETS_PATH = re.compile(r"(?<![$\w{])['\"]?PATH\b")
# bash runs these itself: no PATH lookup
_BUILTINS = frozenset(
    ("echo", "printf", "cd", "pwd", "export", "read", "test", "[", "true", "false", ":", "local", "declare",
     "typeset", "readonly", "set", "unset", "shift", "return", "exit", "let", "eval", "source", ".", "type",
     "command", "builtin", "hash", "trap", "wait", "jobs", "kill", "getopts", "mapfile", "readarray", "shopt",
     "umask", "ulimit", "alias", "unalias", "pushd", "popd", "dirs", "exec", "times", "bg", "fg", "disown")
)  # fmt: skip
_COMMAND_TABLES = frozenset(("BASH_CMDS", "BASH_ALIASES"))


class _EveryName(set[str]):
    """After a trap (run before every command with DEBUG) or a sourced file, any variable may
    hold anything: no value is assumed."""

    def __contains__(self, name: object) -> bool:
        return True

    def __or__(self, other: object) -> _EveryName:  # type: ignore[override]
        return self

    __ror__ = __or__


# arithmetic that sets a variable outside `((...))`: `let x-=1`, `a[x=1]=0`, `[[ 1 -eq x=1 ]]`, `x++`
# (`x++` only inside brackets: elsewhere `$TP --port` is no increment)
_ARITHMETIC_SETS = re.compile(
    r"([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)=(?!=)"
    r"|\[[^\]\n]*?(?:([A-Za-z_]\w*)\s*(?:=(?!=)|\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*))"
)
_LET = re.compile(r"\blet\b([^;&|\n]*)")
_LET_SETS = re.compile(r"([A-Za-z_]\w*)\s*(?:(?:[-+*/%&|^]|<<|>>)?=|\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)")
# signals whose trap runs only as the shell ends: it cannot change what runs before
_EXIT_SIGNALS = frozenset(("EXIT", "0", "SIGEXIT"))


_ARITHMETIC_ASSIGNMENTS = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="))


def _arithmetic_read(var: Node, parent: Node) -> bool:
    """Whether a bare name in arithmetic (`n * 2`) is only read there, not set (`n = 1`, `n++`)."""
    if parent.type == "binary_expression":
        op = parent.child_by_field_name("operator")
        operator = (
            node_text(op) if op is not None else next((node_text(c) for c in parent.children if not c.is_named), "")
        )
        left = parent.child_by_field_name("left")
        return not (operator in _ARITHMETIC_ASSIGNMENTS and left is not None and left == var)
    if parent.type in ("postfix_expression", "unary_expression"):
        return not any(node_text(c) in ("++", "--") for c in parent.children if not c.is_named)
    return parent.type in ("parenthesized_expression", "ternary_expression", "arithmetic_expansion")


def _at_top(node: Node) -> bool:
    """Whether an assignment runs unconditionally at the top level: every ancestor is the
    program, a declaration or a run of assignments, or it is the first part of a top-level list."""
    parent = node.parent
    while parent is not None:
        if parent.type == "list":
            first = parent.named_children[0] if parent.named_child_count else None
            if first is None or first != node:
                return False
        elif parent.type not in _TOP_PARENTS:
            return False
        node, parent = parent, parent.parent
    return True


UnsafeState = set[str] | tuple["UnsafeState", Node]


def _resolve_unsafe(state: UnsafeState) -> set[str]:
    if isinstance(state, tuple):
        outer, root = state
        return _resolve_unsafe(outer) | _unsafe_variables(root)
    return state


def _changes_any_variable(name: Node) -> bool:
    """A `trap` whose action may run before later commands (any signal but EXIT), or a sourced
    file other than a virtual environment's `bin/activate` (which sets PATH and its own names)."""
    command = name.parent
    words = [node_text(c).strip("'\"") for c in command.named_children[1:]] if command is not None else []
    if node_text(name) == "trap":
        signals = words[1:] if words and not words[0].startswith("-") else []
        return not signals or not all(s.upper() in _EXIT_SIGNALS for s in signals)
    return not (words and words[0].endswith("/bin/activate"))


def _sets_ifs(found: dict[str, list[Node]]) -> bool:
    """IFS set for the rest of the command: not `IFS= read ...` (that one command's own)."""
    for node in found.get("assign", ()):
        name = node.child_by_field_name("name")
        if name is not None and node_text(name) == "IFS" and (node.parent is None or node.parent.type != "command"):
            return True
    for node in found.get("for", ()):
        loop_var = node.child_by_field_name("variable")
        if loop_var is not None and node_text(loop_var) == "IFS":
            return True
    for node in found.get("setter", ()):
        command = node.parent
        if command is not None and any(
            node_text(c).strip("'\"").removeprefix("-v") == "IFS" for c in command.named_children[1:]
        ):
            return True
    return False


def _unsafe_variables(root: Node) -> set[str]:
    """Variables whose value the gate must not assume: set more than once, conditionally, in a
    loop, by `read`/`printf -v`/arithmetic, or anywhere but the top level of the command."""
    found = QueryCursor(_VARIABLE_QUERY).captures(root)
    unsafe: set[str] = set()
    if not found:
        return unsafe
    text = node_text(root)
    if any(_changes_any_variable(n) for n in found.get("anything", ())):
        return _EveryName()
    if "IFS" in text and _sets_ifs(found):  # IFS splits every later expansion its own way
        return _EveryName()
    if "=" in text or "++" in text or "--" in text:
        for m in _ARITHMETIC_SETS.finditer(text):
            unsafe.update(g for g in m.groups() if g)
        for m in _LET.finditer(text):
            for pair in _LET_SETS.findall(m.group(1)):
                unsafe.update(g for g in pair if g)
    counts: Counter[str] = Counter()
    for node in found.get("for", ()):
        loop_var = node.child_by_field_name("variable")
        if loop_var is not None:
            counts[node_text(loop_var)] += 1
    for node in found.get("assign", ()):
        name = node.child_by_field_name("name")
        if name is not None:
            text = node_text(name)
            counts[text] += 1
            if not _at_top(node):
                unsafe.add(text)
    for node in found.get("var", ()):
        parent = node.parent
        if parent is not None and parent.type not in _EXPANDED_OR_SET and not _arithmetic_read(node, parent):
            unsafe.add(node_text(node))
        elif parent is not None and parent.type == "expansion":
            following = node.next_sibling
            if following is not None and following.type in (":=", "="):  # `${x:=V}` sets x
                unsafe.add(node_text(node))
    for node in found.get("setter", ()):
        command = node.parent
        if command is not None:
            for c in command.named_children:
                if c.type in ("word", "raw_string", "string", "concatenation"):
                    # `read 'p'`, `printf -vPATH`, `read -r -a arr`
                    word = node_text(c).replace("'", "").replace('"', "")
                    unsafe.add(word)
                    if word.startswith("-") and len(word) > 2:
                        unsafe.add(word[2:])
    unsafe |= {n for n, c in counts.items() if c > 1}
    return unsafe


_VARIABLE_PRINTERS = frozenset(("env", "printenv", "set", "export", "declare", "typeset", "readonly", "local"))


def _starts_up(arg: str) -> bool:
    """A shell option that makes it read start-up files: `-i`, `-l`, `--login`, in a cluster."""
    return arg == "--login" or (arg[:1] == "-" and arg[1:2] != "-" and ("l" in arg or "i" in arg))


_TRACERS = frozenset(("gdb", "strace", "ltrace", "lldb", "gcore", "perf", "reptyr"))
# git commands that rewrite or delete files of the work tree
_GIT_TREE_CHANGERS = frozenset(
    ("clean", "reset", "checkout", "restore", "rm", "mv", "stash", "switch", "merge", "pull", "rebase",
     "cherry-pick", "revert", "am", "apply")
)  # fmt: skip
# options whose value is a file the program reads (and may print) whatever else it does
CONTENT_OPTIONS: dict[str, tuple[str, ...]] = {
    "du": ("--files0-from",),
    "file": ("-f", "--files-from", "-m", "--magic-file"),
    "grep": ("-f", "--file"),
    "rsync": ("--files-from", "--exclude-from", "--include-from"),
    "tar": ("-T", "--files-from", "-X", "--exclude-from"),
    "ipmitool": ("-f",),  # the BMC password file
}
# a `find -name` pattern that looks for secrets: the names it prints are secrets' names
_SECRET_NAME_PATTERN = re.compile(
    r"\.env\b|id_(rsa|ed25519|ecdsa|dsa)|\.pem\b|\.key\b|credential|token|secret|netrc|environ", re.I
)


# programs that take options from the environment as if given first
ENV_OPTIONS: dict[str, tuple[str, ...]] = {
    "tar": ("TAR_OPTIONS",),
    "unzip": ("UNZIP", "UNZIPOPT"),
    "zip": ("ZIPOPT",),
    "gzip": ("GZIP",),
    "xz": ("XZ_DEFAULTS", "XZ_OPT"),
    "bzip2": ("BZIP2", "BZIP"),
}
# the long spellings of what changes a GPU in `mig`, `drain`, `nvlink`, `clocks`:
# --create-gpu-instance, --destroy-compute-instance, --default-compute-instance, --pciid, --modify, --setcontrol
_NVSMI_LONG_CHANGE = re.compile(r"create|destroy|default|set|reset|modify|pciid|enable|disable|lock")


def _variables_printed(program: str, args: list[str]) -> tuple[str, ...]:
    """The variables `env` (running nothing), `printenv [NAME...]`, a bare `set` and `export`,
    `declare -x`, `declare -p [NAME...]` print ("*": every one)."""
    if program == "env":
        return ("*",)
    if program == "printenv":
        return tuple(a for a in args if not a.startswith("-")) or ("*",)
    if program == "set":  # `set $(cat x)` is a bare `set` when x is empty
        return () if any(a and a != DYN for a in args) else ("*",)
    named = [a for a in args if not a.startswith(("-", "+"))]
    letters = "".join(a[1:] for a in args if a.startswith(("-", "+")))
    if "f" in letters or "F" in letters or any("=" in a for a in named):
        return ()  # functions listed, or variables declared
    if named:
        return tuple(named) if "p" in letters else ()
    return ("*",)


def analyse(command: str, facts: Facts) -> list[Invocation]:
    """Every program `command` would run, with what each does."""
    a = Analyser(facts)
    a._scope_cwd = facts.cwd
    a._scope_home = facts.home
    scope = Scope(cwd=facts.cwd)
    a.run_source(command, scope, Ctx())
    return a.invocations


def with_tool(inv: Invocation, tool: str) -> Invocation:
    return replace(inv, tool=tool)
