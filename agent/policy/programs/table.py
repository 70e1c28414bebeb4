"""The one table of program models: a program's name -> the function that reads its argv.

Each model lives in its own module beside this one and declares, from the argv it is given,
what the program reads, writes and deletes, what it runs and signals and which GPUs it uses,
by filling in the `Invocation` (see policies/README.md, "Adding a program"). A name not here is
judged by `generic.generic_reads`; Python interpreters (`python3.11`, `pypy3`) and shells are
looked up by `handler_for`, as their names are families rather than a list.

Below the models, the data each module declares beside its model (files written through
options, commands hidden in options and variables, recursion, ...), gathered here under the
same names for the shared code that looks programs up by name (outputs.py, hooks.py,
recursive.py, commands.py, redirects.py): what the gate knows of a program is in its module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from agent.policy.invocation import Ctx, Hook, Invocation, Scope
from agent.policy.options import first_operand
from agent.policy.programs import (
    archives,
    awk,
    builtins,
    capsh,
    docker,
    downloads,
    files,
    find,
    generic,
    git,
    ipmitool,
    jq,
    kernel,
    multiplexers,
    network,
    nvcc,
    nvidia,
    packages,
    parallel,
    schedulers,
    search,
    sed,
    sglang,
    shells,
    signals,
    sqlite,
    systemd,
    tar,
)
from agent.policy.programs.base import WrapperSpec
from agent.policy.programs.python import interpreter
from agent.policy.programs.python.interpreter import PY_RE, python

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis

Handler = Callable[["Analysis", Invocation, list[str], dict[str, str], Scope, Ctx], None]

HANDLERS: dict[str, Handler] = {
    # the shell's own builtins (agent/policy/programs/builtins.py)
    "eval": builtins.eval,
    "source": builtins.source,
    ".": builtins.source,
    "trap": builtins.trap,
    "hash": builtins.hash,
    "let": builtins.let,
    "printf": builtins.sets_variables,
    "read": builtins.sets_variables,
    "cd": builtins.cd,
    "pushd": builtins.cd,
    "popd": builtins.cd,
    # programs
    "at": schedulers.at,
    "batch": schedulers.at,
    "crontab": schedulers.crontab,
    **{t: signals.tracer for t in ("gdb", "lldb", "perf", "reptyr")},
    **dict.fromkeys(signals.PROCESS_CHANGERS, signals.process_changer),
    "sysctl": kernel.sysctl,
    "find": find.find,
    **dict.fromkeys(search.SEARCHERS, search.search),
    "kill": signals.kill,
    "pkill": signals.pkill,
    "killall": signals.pkill,
    "killall5": signals.pkill,
    "fuser": signals.fuser,
    "rm": files.rm,
    "rmdir": files.rm,
    "unlink": files.rm,
    "cp": files.copylike,
    "mv": files.copylike,
    "install": files.copylike,
    "ln": files.copylike,
    "rsync": files.copylike,
    "scp": files.copylike,
    "tee": files.tee,
    "ip": network.ip,
    "dcgmi": nvidia.dcgmi,
    "mknod": files.mknod,
    "dd": files.dd,
    "sed": sed.sed,
    **dict.fromkeys(
        (
            "touch",
            "mkdir",
            "truncate",
            "chmod",
            "chown",
            "chgrp",
            "setfacl",
            "chattr",
            "shred",
            "mkfifo",
        ),
        files.targets_write,
    ),
    "curl": downloads.downloader,
    "wget": downloads.downloader,
    "tar": tar.tar,
    "nvidia-smi": nvidia.nvidia_smi,
    "docker": docker.docker,
    "podman": docker.docker,
    "nerdctl": docker.docker,
    "sglang": sglang.sglang,
    "torchrun": sglang.torchrun,
    "systemctl": systemd.systemctl,
    "awk": awk.awk,
    "gawk": awk.awk,
    "mawk": awk.awk,
    "git": git.git,
    "unzip": archives.unzip,
    "mktemp": archives.mktemp,
    "yq": jq.yq,
    "jq": jq.jq,
    **dict.fromkeys(shells.OTHER_INTERPRETERS, shells.other_interpreter),
}


# programs that run commands given in their options or operands (`git -c alias.x=!CMD`,
# `tmux new CMD`, `apt-get -o APT::Update::Pre-Invoke::=CMD`): argv -> the commands, judged
# as if they ran here (the option and variable tables are gathered below)
HookModel = Callable[[str, list[str]], list[Hook]]

HOOKS: dict[str, HookModel] = {
    "sqlite3": sqlite.sqlite_hooks,
    "ipmitool": ipmitool.ipmitool_hooks,
    "rpm": packages.rpm_hooks,
    "strace": signals.strace_hooks,
    "apt": packages.apt_hooks,
    "apt-get": packages.apt_hooks,
    "aptitude": packages.apt_hooks,
    "apt-cache": packages.apt_hooks,
    "git": git.git_hooks,
    "gdb": signals.gdb_hooks,
    "tmux": multiplexers.tmux_hooks,
    "screen": multiplexers.screen_hooks,
    "parallel": parallel.parallel_hooks,
    "capsh": capsh.capsh_hooks,
    "mapfile": builtins.mapfile_hooks,
    "alias": builtins.alias_hooks,
    "readarray": builtins.mapfile_hooks,
    "socat": network.socat_hooks,
    "ip": network.ip_hooks,
    "nvcc": nvcc.nvcc_hooks,
}


# program -> its options before the subcommand that take the next word as their value, as each
# program's module declares them; `subcommand` rules skip them (`systemctl -p Id kexec` is `kexec`)
SUBCOMMAND_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    **git.SUBCOMMAND_VALUE_OPTIONS,
    **systemd.SUBCOMMAND_VALUE_OPTIONS,
    **packages.SUBCOMMAND_VALUE_OPTIONS,
    **docker.SUBCOMMAND_VALUE_OPTIONS,
    **nvidia.SUBCOMMAND_VALUE_OPTIONS,
}
SUBCOMMAND_GROUPS: dict[str, frozenset[str]] = {**docker.SUBCOMMAND_GROUPS}


# what each module declares about the commands hidden in a program's options, gathered for
# hooks.py: option -> the prefix its value must have to be a command ("" for any), options
# naming a settings file or a program the gate cannot see
COMMAND_OPTIONS: dict[str, dict[str, str]] = {
    **tar.COMMAND_OPTIONS,
    **files.COMMAND_OPTIONS,
    **downloads.COMMAND_OPTIONS,
    **packages.COMMAND_OPTIONS,
    **signals.COMMAND_OPTIONS,
    **network.COMMAND_OPTIONS,
    **archives.COMMAND_OPTIONS,
    **search.COMMAND_OPTIONS,
}
SSH_OPTIONS = files.SSH_OPTIONS  # programs that take ssh's `-o ProxyCommand=CMD`
SETTINGS_FILE_OPTIONS: dict[str, tuple[str, ...]] = {
    **docker.SETTINGS_FILE_OPTIONS,
    **shells.SETTINGS_FILE_OPTIONS,
    **packages.SETTINGS_FILE_OPTIONS,
    **nvcc.SETTINGS_FILE_OPTIONS,
}

# variables whose value a program runs as a command line, variables naming a settings file
# whose entries may be commands, and variable -> the commands its value makes a program run
COMMAND_ENV = git.COMMAND_ENV | systemd.COMMAND_ENV | downloads.COMMAND_ENV | files.COMMAND_ENV | nvcc.COMMAND_ENV
CONFIG_FILE_ENV = (
    git.CONFIG_FILE_ENV
    | packages.CONFIG_FILE_ENV
    | downloads.CONFIG_FILE_ENV
    | docker.CONFIG_FILE_ENV
    | shells.CONFIG_FILE_ENV
    | search.CONFIG_FILE_ENV
)
ENV_HOOKS: dict[str, Callable[[str, str], list[Hook]]] = {**nvcc.ENV_HOOKS}
# program -> (its name, its arguments joined) -> the variables its program text prints
PRINTED_ENVIRONMENT: dict[str, Callable[[str, str], list[Hook]]] = {**jq.PRINTED_ENVIRONMENT, **awk.PRINTED_ENVIRONMENT}


# options whose value is a file a program reads whatever else it does, and variables a program
# takes options from as if given first (commands.py); generic.py's for programs without a module
CONTENT_OPTIONS: dict[str, tuple[str, ...]] = {
    **generic.CONTENT_OPTIONS,
    **search.CONTENT_OPTIONS,
    **files.CONTENT_OPTIONS,
    **tar.CONTENT_OPTIONS,
    **ipmitool.CONTENT_OPTIONS,
}
ENV_OPTIONS: dict[str, tuple[str, ...]] = {**tar.ENV_OPTIONS, **archives.ENV_OPTIONS}
# program -> argv -> whether those options cannot be placed before its own (tar's old form)
ENV_OPTIONS_UNPLACEABLE: dict[str, Callable[[list[str]], bool]] = {**tar.ENV_OPTIONS_UNPLACEABLE}


# what each module declares about the files a program writes through its options or operands,
# gathered for outputs.py: option -> a file it writes, option -> a directory it writes into,
# and argv -> the paths its model reads there (after the option tables, in that order)
OUTPUT_OPTIONS: dict[str, frozenset[str]] = {
    **nvidia.OUTPUT_OPTIONS,
    **nvcc.OUTPUT_OPTIONS,
    **systemd.OUTPUT_OPTIONS,
    **packages.OUTPUT_OPTIONS,
    **network.OUTPUT_OPTIONS,
}
OUTPUT_DIR_OPTIONS: dict[str, frozenset[str]] = {
    **nvcc.OUTPUT_DIR_OPTIONS,
    **packages.OUTPUT_DIR_OPTIONS,
    **archives.OUTPUT_DIR_OPTIONS,
}
OutputModel = Callable[[list[str]], list[str]]
OUTPUTS: dict[str, OutputModel] = {
    **git.OUTPUTS,
    **awk.OUTPUTS,
    **docker.OUTPUTS,
    **packages.OUTPUTS,
    **network.OUTPUTS,
    **downloads.OUTPUTS,
    **archives.OUTPUTS,
    **jq.OUTPUTS,
    **files.OUTPUTS,
}
# programs whose short options cluster (`tar -xzI CMD`, `unzip -od DIR`): options.py's
# `option_values(..., clustered=True)` for them
# recursive reads (recursive.py): the letters and long options that make a program recurse, or
# argv -> whether it does
RECURSIVE_FLAGS: dict[str, tuple[str, frozenset[str]]] = {**files.RECURSIVE_FLAGS, **archives.RECURSIVE_FLAGS}
RECURSES: dict[str, Callable[[Sequence[str]], bool]] = {**tar.RECURSES, **git.RECURSES, **search.RECURSES}
# where a program that reads a tree reads it from, when not its operands (`grep -r PATTERN DIR`)
SEARCH_ROOTS: dict[str, Callable[[Sequence[str]], list[str]]] = {**search.SEARCH_ROOTS}
CLUSTERED_OPTIONS = tar.CLUSTERED_OPTIONS | files.CLUSTERED_OPTIONS | archives.CLUSTERED_OPTIONS
_NONE: frozenset[str] = frozenset()


def subcommand_of(program: str, args: list[str]) -> str | None:
    """The first argument that is neither an option nor an option's value: what `subcommand` rules
    match (`systemctl --no-wall -p Id kexec` -> `kexec`). A word only known at run time counts."""
    return first_operand(args, SUBCOMMAND_VALUE_OPTIONS.get(program, _NONE), SUBCOMMAND_GROUPS.get(program, _NONE))


def handler_for(name: str) -> Handler | None:
    """The model of the program `name` runs (a base name), or None: judged generically."""
    if name.startswith(("python", "pypy")) and PY_RE.match(name):
        return python
    if name in shells.SHELLS:
        return shells.shell
    return HANDLERS.get(name)


# wrappers with a module: how each finds the command it runs, the options naming a file it
# writes, those whose word `run` comes first (wrappers.py, beside the wrappers in general)
WRAPPERS: dict[str, WrapperSpec] = {
    **signals.WRAPPERS,
    **systemd.WRAPPERS,
    **parallel.WRAPPERS,
    **packages.WRAPPERS,
}
WRAPPER_LOGS: dict[str, tuple[str, ...]] = {**signals.WRAPPER_LOGS}
RUN_SUBCOMMAND = frozenset(packages.RUN_SUBCOMMAND)


# what a program's output is, to a reader of the pipe (redirects.py: `text downloaded by curl`)
PRODUCES: dict[str, str] = {
    **generic.PRODUCES,
    **archives.PRODUCES,
    **downloads.PRODUCES,
    **network.PRODUCES,
    **sed.PRODUCES,
    **awk.PRODUCES,
    **shells.PRODUCES,
    **interpreter.PRODUCES,
}
