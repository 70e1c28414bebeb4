"""Commands that a program runs on the command's behalf, named in its options, its environment
or a file it writes: `man -P CMD`, `tar -I CMD`, `rsync -e CMD`, `git -c core.pager=CMD`,
`less +!CMD`, `PAGER=CMD`, a cron line, a unit's `ExecStart=`.

Each is found here as a `Hook` and judged by the analyser as if it ran where it stands: a
program that looks harmless must not carry a reboot in one of its options (GTFOBins lists
hundreds of such escapes). Pure functions of the words; the analyser does the judging.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from agent.policy.facts import DYN, GLOB
from agent.policy.invocation import Hook
from agent.policy.options import option_values
from agent.policy.programs.base import printenv_hooks, split_words
from agent.policy.programs.git import CONFIG_ENV as GIT_CONFIG_ENV
from agent.policy.programs.git import GIT_CONFIG_FILE, git_config_file_hooks, git_environment_config
from agent.policy.programs.packages import APT_CONF_FILE, apt_conf_hooks
from agent.policy.programs.schedulers import cron_hooks
from agent.policy.programs.systemd import UNIT_FILE, unit_file_hooks
from agent.policy.programs.table import (
    CLUSTERED_OPTIONS,
    COMMAND_OPTIONS,
    ENV_HOOKS,
    HOOKS,
    PRINTED_ENVIRONMENT,
    SETTINGS_FILE_OPTIONS,
    SSH_OPTIONS,
)
from agent.policy.programs.table import COMMAND_ENV as PROGRAM_COMMAND_ENV
from agent.policy.programs.table import CONFIG_FILE_ENV as PROGRAM_CONFIG_FILE_ENV

# The programs with a module under programs/ declare their option and variable tables there
# (programs/table.py gathers them); below, the small programs that have none, one line each.

# small program -> option -> the prefix the value must have to be a command ("" for any value)
SMALL_COMMAND_OPTIONS: dict[str, dict[str, str]] = {
    "man": {"-P": "", "--pager": "", "-H": "", "--html": "", "-C": "", "--config-file": ""},
    "sort": {"--compress-program": ""},
}
_COMMAND_OPTIONS = {**SMALL_COMMAND_OPTIONS, **COMMAND_OPTIONS}


# short options that may stand in a cluster (`rsync -avze CMD`); the rest only alone
_CLUSTERED = {"man", *CLUSTERED_OPTIONS}


# `ssh -o ProxyCommand=CMD` and its relatives
SSH_COMMAND_KEYS = frozenset(("proxycommand", "localcommand", "knownhostscommand", "remotecommand"))


SSH_LIKE = frozenset(("ssh", "sftp", "autossh", *SSH_OPTIONS))


# environment variables whose value a program runs as a command line
COMMAND_ENV = PROGRAM_COMMAND_ENV | frozenset(
    (
        "PAGER",
        "MANPAGER",
        "LESSOPEN",
        "LESSCLOSE",
        "EDITOR",
        "VISUAL",
        "SUDO_EDITOR",
        "FCEDIT",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "LESSEDIT",
        "BROWSER",
        "PROMPT_COMMAND",
    )
)


PROMPTS = frozenset(("PS0", "PS1", "PS2", "PS4"))


# variables naming a settings file whose entries may be commands (git's pager, apt's hooks)
CONFIG_FILE_ENV = PROGRAM_CONFIG_FILE_ENV | frozenset(
    (
        "XDG_CONFIG_HOME",
        "LESSKEYIN",
        "LESSKEY",
        "LESSKEY_SRC",
        "LESSKEY_CONTENT",  # a lesskey `#env` section may set LESSOPEN
        "OPENSSL_CONF",  # may load an engine: a shared library
        "HWLOC_PLUGINS_PATH",  # hwloc loads plugins (shared libraries) from there
    )
)


# small program -> options naming a file it reads settings or code from, or a program it runs
_LESS_SETTINGS = ("-k", "--lesskey-file", "--lesskey-src", "--lesskey-content")
_SETTINGS_FILE_OPTIONS: dict[str, tuple[str, ...]] = {"less": _LESS_SETTINGS, **SETTINGS_FILE_OPTIONS}


_PAGERS = frozenset(("less", "more", "most", "zless", "zmore", "bzless", "bzmore", "xzless", "xzmore"))


_VIMS = frozenset(("vi", "vim", "nvim", "view", "vimdiff", "ex", "rvim", "gvim"))


_VIM_SCRIPTING = re.compile(
    r"\b(system|systemlist|py3?|python3?|pyx|lua|perl|ruby|term(inal)?|exe(cute)?|so(urce)?|call)\b"
)


def option_hooks(name: str, argv: list[str]) -> list[Hook]:
    """The commands hidden in this program's options (and, for a few, its operands)."""
    args = argv[1:]
    found: list[Hook] = []
    table = _COMMAND_OPTIONS.get(name)
    if table:
        found += _table_hooks(name, args, table)
    if name in SSH_LIKE:
        found += _ssh_option_hooks(name, args)
    special = HOOKS.get(name)
    if special is not None:
        found += special(name, args)
    settings = _SETTINGS_FILE_OPTIONS.get(name)
    if settings:
        for opt, _ in option_values(args, settings, clustered=False):
            why = f"{name} {opt} reads settings or runs a program the gate cannot see"
            found.append(Hook(f"{name} {opt}", opaque=why))
    if name in _PAGERS:
        found += _pager_hooks(name, args)
    elif name in _VIMS:
        found += _vim_hooks(name, args)
    return found


def env_hooks(env: Mapping[str, str]) -> list[Hook]:
    """The commands set in environment variables that programs run (`PAGER=CMD man ls`)."""
    found: list[Hook] = []
    for key, value in env.items():
        if key in COMMAND_ENV and value.strip():
            code = value
            if key in ("LESSOPEN", "LESSCLOSE"):
                code = value.lstrip("|").replace("%s", "file")  # `|CMD %s`: less pipes through CMD
            found.append(Hook(key, code=code))
        elif key == "LESS":
            words = split_words(value) or [DYN]
            found += _pager_hooks("LESS", words)
            found += [
                Hook("LESS", opaque="LESS names a lesskey file, whose `#env` section may set LESSOPEN")
                for _ in option_values(words, _LESS_SETTINGS, clustered=False)
            ][:1]
        elif key in PROMPTS and value.strip():
            found.append(Hook(key, code=f": {value}"))  # a prompt is expanded: its `$(...)` runs
        elif key == "MANOPT":  # options man reads as if given to it: `MANOPT='-P CMD'`
            words = split_words(value)
            if DYN in value or (value.strip() and not words):
                found.append(Hook(key, opaque="man takes options from MANOPT only known at run time"))
            found += _table_hooks("man", words, SMALL_COMMAND_OPTIONS["man"])
        elif key in ENV_HOOKS:  # `NVCC_PREPEND_FLAGS`: options nvcc adds to its own
            found += ENV_HOOKS[key](key, value)
        elif key in CONFIG_FILE_ENV and value not in ("/dev/null", ""):
            found.append(Hook(key, opaque=f"{key} makes a program read its settings (commands among them) from a file"))
        elif key.startswith("BASH_FUNC_") and value.startswith("()"):
            # an exported function: bash defines it at start-up and runs it when its name is called
            found.append(Hook(f"exported function {key}", code="exported_function" + value))
    found += git_environment_config(env)
    return found


def _table_hooks(name: str, args: list[str], table: dict[str, str]) -> list[Hook]:
    found: list[Hook] = []
    for opt, value in option_values(args, table, clustered=name in _CLUSTERED):
        prefix = table[opt]
        if prefix and not value.startswith(prefix):
            continue
        found.append(Hook(f"{name} {opt}", code=value[len(prefix) :]))
    return found


def _ssh_option_hooks(name: str, args: list[str]) -> list[Hook]:
    found: list[Hook] = []
    for _, value in option_values(args, {"-o": ""}, clustered=False):
        key, sep, rest = value.partition("=")
        if not sep:
            key, _, rest = value.partition(" ")
        if key.strip().lower() in SSH_COMMAND_KEYS and rest.strip():
            found.append(Hook(f"{name} -o {key.strip()}", code=rest.strip()))
    return found


def _bang_hook(name: str, how: str, text: str) -> Hook | None:
    """An ex or less command: `!CMD` runs CMD through a shell; text only known at run time
    cannot be judged; None when it runs no command."""
    if DYN in text:
        return Hook(how, opaque=f"{name} runs a command only known at run time")
    bang = text.find("!")
    if bang != -1 and text[bang + 1 :].strip():
        return Hook(f"{how} !", code=text[bang + 1 :])
    return None


def _pager_hooks(name: str, args: list[str]) -> list[Hook]:
    """`less +CMD`: an initial command; its `!` runs a shell command, `|` pipes to one."""
    found: list[Hook] = []
    for a in args:
        if not a.startswith("+"):
            continue
        text = a.lstrip("+")
        hook = _bang_hook(name, f"{name} +", text)
        if hook is not None:
            found.append(hook)
        elif "|" in text:
            found.append(Hook(f"{name} +|", opaque=f"{name} pipes text to a shell command in its initial command"))
    return found


def _vim_hooks(name: str, args: list[str]) -> list[Hook]:
    """`vim -c '!CMD'`, `vim +'!CMD'`, `--cmd`: ex commands run before editing."""
    commands = [value for _, value in option_values(args, ("-c", "--cmd"), clustered=False)]
    commands += [a[1:] for a in args if a.startswith("+") and len(a) > 1 and not a[1:].isdigit()]
    found: list[Hook] = []
    for c in commands:
        hook = _bang_hook(name, f"{name} -c", c)
        if hook is not None:
            found.append(hook)
        elif _VIM_SCRIPTING.search(c):
            found.append(Hook(f"{name} -c", opaque=f"{name} -c {c[:40]!r} runs script code the gate does not analyse"))
    return found


_SYSTEM_CRON = re.compile(r"^/etc/(crontab|cron\.d/[^/]+|anacrontab)$")


_USER_CRON = re.compile(r"^/var/spool/cron/(crontabs/)?[^/]+$")


_RUN_PARTS = re.compile(r"^/etc/cron\.(hourly|daily|weekly|monthly)/[^/]+$")


_STARTUP = re.compile(
    r"^/etc/(rc\.local|profile|bash\.bashrc|bashrc|zshrc|zsh/zshrc|profile\.d/[^/]+|rc[0-6S]\.d/[^/]+"
    r"|init\.d/[^/]+|update-motd\.d/[^/]+|NetworkManager/dispatcher\.d/.+|network/if-[a-z-]+\.d/[^/]+)$"
    r"|.*/\.git/hooks/[^/]+$"  # run by the next git command that reaches them
)


_HOME_STARTUP = re.compile(
    r"/\.(bashrc|bash_profile|bash_login|bash_logout|bash_aliases|profile|zshrc|zprofile|zlogin|zlogout|zshenv|kshrc"
    r"|mkshrc|config/fish/config\.fish|config/fish/conf\.d/[^/]+)$"  # `.bash_aliases`: sourced by Debian's .bashrc
)


_UDEV = re.compile(r"^/(etc|lib|usr/lib|run)/udev/rules\.d/[^/]+\.rules$")


_UDEV_RUN = re.compile(r"\bRUN\s*\+?=\s*\"([^\"]*)\"")


_EXPANSION = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


ENV_PRINTERS = frozenset(("envsubst", *PRINTED_ENVIRONMENT))


def environment_hooks(name: str, argv: list[str], text: str, stdin: str | None) -> list[Hook]:
    """`echo $HF_TOKEN`, `envsubst`, `jq -n env`, `awk '...in ENVIRON...'`: the environment (or
    a variable named like a secret) printed into the transcript. `text`: the command as written
    (variables are still named there); `stdin`: its literal standard input, if known."""
    if name == "envsubst":
        listed = [a for a in argv[1:] if not a.startswith("-")]
        if any(DYN in a or GLOB in a for a in listed):
            return [Hook("envsubst", argv=("env",))]  # the variables to substitute are named at run time
        if listed:
            return printenv_hooks(_EXPANSION.findall(" ".join(listed)), name)
        if stdin is None or DYN in stdin:
            return [Hook("envsubst", argv=("env",))]  # every variable its input names, unseen
        return printenv_hooks(_EXPANSION.findall(stdin), name)
    model = PRINTED_ENVIRONMENT.get(name)  # jq's `env`, awk's `ENVIRON` (their modules)
    return model(name, " ".join(argv[1:])) if model is not None else []


# what `Analyser._argv` checks before calling `option_hooks` / `env_hooks` (most programs: neither)
# (with the programs of the table's HOOKS: commands.py joins them)
HOOKED_BY_OPTIONS = frozenset((*_COMMAND_OPTIONS, *SSH_LIKE, *_PAGERS, *_VIMS, *_SETTINGS_FILE_OPTIONS))


HOOKED_ENV = COMMAND_ENV | PROMPTS | CONFIG_FILE_ENV | GIT_CONFIG_ENV | frozenset(ENV_HOOKS) | {"LESS", "MANOPT"}


def has_env_hooks(env: Mapping[str, str]) -> bool:
    return not HOOKED_ENV.isdisjoint(env) or any(k.startswith("BASH_FUNC_") for k in env)


def _hook_file_kind(path: str, home: str | None) -> str | None:
    """What kind of file the host runs the text of later by itself, if any: one list of such
    files for `file_hooks` (text known) and `runs_later` (text not known)."""
    if _SYSTEM_CRON.match(path):
        return "system-cron"
    if _USER_CRON.match(path):
        return "user-cron"
    if (
        _RUN_PARTS.match(path)
        or _STARTUP.match(path)
        or (_HOME_STARTUP.search(path) and _in_a_home(posixpath.dirname(path), home))
    ):
        return "start-up"
    if UNIT_FILE.search(path):
        return "unit"
    if _UDEV.match(path):
        return "udev"
    if GIT_CONFIG_FILE.search(path):
        return "git-config"
    if APT_CONF_FILE.match(path):
        return "apt"
    if path.endswith(".pth") or posixpath.basename(path) in ("sitecustomize.py", "usercustomize.py"):
        return "python-start-up"  # run by every Python that starts with that site directory
    if path.endswith("/.git"):
        return "gitfile"  # `gitdir: DIR`: git then reads DIR/config
    return None


def file_hooks(path: str, content: str, home: str | None) -> list[Hook]:
    """The commands in `content` written to `path` that the host runs later by itself."""
    kind = _hook_file_kind(path, home)
    if kind in ("system-cron", "user-cron"):
        return cron_hooks(content, system=kind == "system-cron", how=f"cron line in {path}")
    if kind == "start-up":
        return [Hook(f"start-up text in {path}", code=content)]
    if kind == "unit":
        return unit_file_hooks(content, path)
    if kind == "udev":
        return [Hook(f"udev RUN in {path}", code=m.group(1)) for m in _UDEV_RUN.finditer(content)]
    if kind == "git-config":  # `[core] pager = CMD`: run by the next git command there
        return git_config_file_hooks(content, path)
    if kind == "python-start-up" and path.endswith(".pth"):  # its `import` lines run as Python
        return [
            Hook(f".pth line in {path}", argv=("python3", "-c", line.strip()))
            for line in content.splitlines()
            if re.match(r"\s*import[\s;]", line)
        ]
    if kind == "gitfile" and "gitdir:" in content:
        return [Hook(f"gitfile {path}", opaque=f"{path} points git at a repository whose settings the gate cannot see")]
    if kind == "apt":
        return apt_conf_hooks(content, path)
    return []


def runs_later(path: str, home: str | None) -> bool:
    """Whether the host (cron, a shell's start-up, udev, apt, the next git command there) runs the
    text of this file later by itself, as `file_hooks` reads it when the text is known. A systemd
    unit is not among them: it runs only when started, and starting one asks."""
    return _hook_file_kind(path, home) not in (None, "unit")


def _in_a_home(directory: str, home: str | None) -> bool:
    return directory in (home, "/root") or re.fullmatch(r"/home/[^/]+", directory) is not None
