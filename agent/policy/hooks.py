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
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from agent.policy.facts import DYN, GLOB, visible
from agent.policy.options import git_global_options, operands, option_values

MAX_VALUES = 8  # `parallel CMD ::: a b c`: judged once per value, as for a short `for` list


@dataclass(frozen=True, slots=True)
class Hook:
    """What runs: shell `code`, or an `argv` run without a shell; `how` says what hid it.
    `opaque`: it runs something the gate cannot see (a file, a script language)."""

    how: str
    code: str = ""
    argv: tuple[str, ...] = ()
    opaque: str | None = None


# -- options whose value is a command line the program hands to a shell

# program -> option -> the prefix the value must have to be a command ("" for any value)
COMMAND_OPTIONS: dict[str, dict[str, str]] = {
    "man": {"-P": "", "--pager": "", "-H": "", "--html": "", "-C": "", "--config-file": ""},
    "tar": {
        "-I": "",
        "--use-compress-program": "",
        "--to-command": "",
        "--info-script": "",
        "--new-volume-script": "",
        "-F": "",
        "--rsh-command": "",
        "--rmt-command": "",
        "--checkpoint-action": "exec=",
    },
    "sort": {"--compress-program": ""},
    "rsync": {"-e": "", "--rsh": "", "--rsync-path": ""},
    "scp": {"-S": ""},
    "zip": {"-TT": "", "--unzip-command": ""},
    "rg": {"--pre": ""},
    "wget": {"--use-askpass": ""},
    "nc": {"-e": "", "-c": ""},
    "install": {"--strip-program": ""},
    "dpkg": {"--pre-invoke": "", "--post-invoke": ""},
    "rpm": {"--pipe": ""},
    "strace": {"-o": "|", "--output": "|"},  # `-o '|CMD'`: the trace is piped into CMD
    "ncat": {"-e": "", "--exec": "", "-c": "", "--sh-exec": ""},
}
# short options that may stand in a cluster (`rsync -avze CMD`); the rest only alone
_CLUSTERED = {"tar", "rsync", "scp", "man"}

# `ssh -o ProxyCommand=CMD` and its relatives
SSH_COMMAND_KEYS = frozenset(("proxycommand", "localcommand", "knownhostscommand", "remotecommand"))
SSH_LIKE = frozenset(("ssh", "scp", "sftp", "rsync", "autossh"))

# `git -c KEY=CMD`: keys whose value git runs (through a shell, or as a `!` alias)
_GIT_COMMAND_KEY = re.compile(
    r"^(core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy)|pager\..+|sequence\.editor|diff\.external"
    r"|diff\..+\.(textconv|command)|merge\..+\.driver|filter\..+\.(clean|smudge|process)|gpg(\..+)?\.program"
    r"|credential(\..+)?\.helper|alias\..+|web\.browser|browser\..+\.cmd|uploadpack\.packobjectshook"
    r"|gpg\.ssh\.defaultkeycommand"
    r"|sendemail\..*cmd|core\.alternaterefscommand|(merge|diff)tool\..+\.cmd|interactive\.difffilter"
    r"|remote\..+\.(uploadpack|receivepack)|man\..+\.(cmd|path)|browser\..+\.path|submodule\..+\.update)$"
)
# keys that make git read settings, hooks or templates from somewhere the gate cannot see, or let
# it run the command a remote's `ext::` URL names (from a clone's `.gitmodules`, say)
_GIT_OPAQUE_KEY = re.compile(
    r"^(core\.hookspath|init\.templatedir|include\.path|includeif\..+\.path|protocol\.(ext\.)?allow)$"
)
_GIT_URL_KEY = re.compile(r"^(remote\..+\.(push)?url|submodule\..+\.url)$")
_GIT_INSTEAD_OF = re.compile(r"^url\.(.+)\.(push)?insteadof$", re.I)

# environment variables whose value a program runs as a command line
COMMAND_ENV = frozenset(
    (
        "PAGER",
        "MANPAGER",
        "GIT_PAGER",
        "SYSTEMD_PAGER",
        "LESSOPEN",
        "LESSCLOSE",
        "EDITOR",
        "VISUAL",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "SUDO_EDITOR",
        "SYSTEMD_EDITOR",
        "FCEDIT",
        "GIT_SSH_COMMAND",
        "GIT_SSH",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "GIT_EXTERNAL_DIFF",
        "GIT_PROXY_COMMAND",
        "WGET_ASKPASS",
        "LESSEDIT",
        "RSYNC_RSH",
        "BROWSER",
        "PROMPT_COMMAND",
        "RSYNC_CONNECT_PROG",  # run to reach an rsync:// daemon
        "NVCC_CCBIN",  # nvcc's host compiler
    )
)
PROMPTS = frozenset(("PS0", "PS1", "PS2", "PS4"))
# variables naming a settings file whose entries may be commands (git's pager, apt's hooks)
CONFIG_FILE_ENV = frozenset(
    (
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG",
        "GIT_EXEC_PATH",
        "XDG_CONFIG_HOME",
        "APT_CONFIG",
        "RIPGREP_CONFIG_PATH",  # `--pre=CMD` in it
        "WGETRC",
        "CURL_HOME",  # its .curlrc may name an output file or a proxy
        "LESSKEYIN",
        "LESSKEY",
        "LESSKEY_SRC",
        "LESSKEY_CONTENT",  # a lesskey `#env` section may set LESSOPEN
        "OPENSSL_CONF",  # may load an engine: a shared library
        "DOCKER_CONFIG",  # its cli-plugins run as docker subcommands
        "CONTAINERS_CONF",  # podman's runtime and helper programs
        "HWLOC_PLUGINS_PATH",  # hwloc loads plugins (shared libraries) from there
        "ZDOTDIR",  # zsh's start-up files
    )
)
# options naming a file a program reads settings or code from, or a program it runs
SETTINGS_FILE_OPTIONS: dict[str, tuple[str, ...]] = {
    "less": ("-k", "--lesskey-file", "--lesskey-src", "--lesskey-content"),
    "docker": ("--config",),
    "podman": ("--conmon", "--runtime", "--network-cmd-path", "--hooks-dir", "--module"),
    "bash": ("--rcfile", "--init-file"),
    "rpm": ("--load", "--macros", "--rcfile"),
    "nvcc": ("-optf", "--options-file"),
}
_PAGERS = frozenset(("less", "more", "most", "zless", "zmore", "bzless", "bzmore", "xzless", "xzmore"))
_VIMS = frozenset(("vi", "vim", "nvim", "view", "vimdiff", "ex", "rvim", "gvim"))
_VIM_SCRIPTING = re.compile(
    r"\b(system|systemlist|py3?|python3?|pyx|lua|perl|ruby|term(inal)?|exe(cute)?|so(urce)?|call)\b"
)


def option_hooks(name: str, argv: list[str]) -> list[Hook]:
    """The commands hidden in this program's options (and, for a few, its operands)."""
    args = argv[1:]
    found: list[Hook] = []
    table = COMMAND_OPTIONS.get(name)
    if table:
        found += _table_hooks(name, args, table)
    if name in SSH_LIKE:
        found += _ssh_option_hooks(name, args)
    special = _SPECIAL.get(name)
    if special is not None:
        found += special(name, args)
    settings = SETTINGS_FILE_OPTIONS.get(name)
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
            words = _split(value) or [DYN]
            found += _pager_hooks("LESS", words)
            found += [
                Hook("LESS", opaque="LESS names a lesskey file, whose `#env` section may set LESSOPEN")
                for _ in option_values(words, SETTINGS_FILE_OPTIONS["less"], clustered=False)
            ][:1]
        elif key in PROMPTS and value.strip():
            found.append(Hook(key, code=f": {value}"))  # a prompt is expanded: its `$(...)` runs
        elif key == "MANOPT":  # options man reads as if given to it: `MANOPT='-P CMD'`
            words = _split(value)
            if DYN in value or (value.strip() and not words):
                found.append(Hook(key, opaque="man takes options from MANOPT only known at run time"))
            found += _table_hooks("man", words, COMMAND_OPTIONS["man"])
        elif key in ("NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS"):  # options nvcc adds to its own
            found += _nvcc_hooks("nvcc", _split(value) or [DYN])
        elif key in CONFIG_FILE_ENV and value not in ("/dev/null", ""):
            found.append(Hook(key, opaque=f"{key} makes a program read its settings (commands among them) from a file"))
        elif key.startswith("BASH_FUNC_") and value.startswith("()"):
            # an exported function: bash defines it at start-up and runs it when its name is called
            found.append(Hook(f"exported function {key}", code="exported_function" + value))
    found += _git_environment_config(env)
    return found


def _git_environment_config(env: Mapping[str, str]) -> list[Hook]:
    """git settings given through the environment: `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager
    GIT_CONFIG_VALUE_0=CMD`, and `GIT_CONFIG_PARAMETERS`, the form `git -c` hands to its children."""
    found: list[Hook] = []
    count = env.get("GIT_CONFIG_COUNT")
    if count is not None:
        if not count.strip().isdigit():
            return [Hook("GIT_CONFIG_COUNT", opaque="git settings from the environment only known at run time")]
        for k in range(int(count)):
            key = env.get(f"GIT_CONFIG_KEY_{k}")
            if key is not None:
                found += _git_config_hook(key, env.get(f"GIT_CONFIG_VALUE_{k}", ""))
    allowed = env.get("GIT_ALLOW_PROTOCOL")
    if allowed is not None and (DYN in allowed or "ext" in allowed.split(":")):
        found.append(Hook("GIT_ALLOW_PROTOCOL", opaque="git may run the command a remote's ext:: URL names"))
    parameters = env.get("GIT_CONFIG_PARAMETERS")
    if parameters is not None:
        entries = _split(parameters)
        if DYN in parameters or (parameters.strip() and not entries):
            return [*found, Hook("GIT_CONFIG_PARAMETERS", opaque="git settings only known at run time")]
        for entry in entries:  # `'core.pager'='CMD'`, or the older `'core.pager=CMD'`
            key, _, value = entry.partition("=")
            found += _git_config_hook(key, value)
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


_GIT_COMMAND_OPTIONS = {"--upload-pack": "", "--receive-pack": "", "--exec": ""}


def _git_hooks(name: str, args: list[str]) -> list[Hook]:
    """`git -c KEY=CMD` before the subcommand; `--upload-pack=CMD` and kin after it;
    `git config KEY CMD`, which the next git command runs."""
    found = [Hook(f"git {opt}", code=v) for opt, v in option_values(args, _GIT_COMMAND_OPTIONS, False) if v]
    globals_, i = git_global_options(args)
    for opt, value in globals_:
        if opt == "-c" and value:
            key, _, setting = value.partition("=")
            found += _git_config_hook(key, setting)
        elif opt == "--config-env" and value is not None:  # `--config-env=KEY=VAR`, `--config-env KEY=VAR`
            found += _git_config_hook(value.partition("=")[0], DYN)
        elif opt == "--exec-path" and value is not None:
            found.append(
                Hook("git --exec-path", opaque="git runs its helper programs from a directory the gate cannot see")
            )
    if i < len(args) and args[i] == "config":
        found += _git_config_set(args[i + 1 :])
    if args[i : i + 2] == ["bisect", "run"] and len(args) > i + 2:  # runs its command at each step
        found.append(Hook("git bisect run", argv=tuple(args[i + 2 :])))
    if args[i : i + 2] == ["submodule", "foreach"]:  # runs its shell command in each submodule
        code = [a for a in args[i + 2 :] if not a.startswith("-")]
        no_command = Hook("git submodule foreach", opaque="git submodule foreach with no command the gate can read")
        found.append(Hook("git submodule foreach", code=" ".join(code)) if code else no_command)
    for a in args[i:]:
        if a.startswith("ext::"):  # `git remote add x ext::CMD`, `git clone ext::CMD`
            found += git_url_hooks(a, "git")
    return found


_GIT_CONFIG_VALUE_OPTIONS = frozenset(("-f", "--file", "--blob", "--type", "--default", "--comment", "--value"))
_GIT_CONFIG_NOT_SETTING = frozenset(
    (
        "get",
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "-l",
        "--list",
        "list",
        "--unset",
        "--unset-all",
        "unset",
        "--remove-section",
        "--rename-section",
        "remove-section",
        "rename-section",
        "-e",
        "--edit",
        "edit",
        "--get-color",
        "--get-colorbool",
    )
)


def _git_config_set(args: list[str]) -> list[Hook]:
    """`git config [--global] KEY VALUE` and `git config set KEY VALUE`: the value is judged as the
    command git will run for KEY (`core.pager`, `alias.x=!CMD`), as `git -c` is."""
    if any(a in _GIT_CONFIG_NOT_SETTING for a in args):
        return []
    words = operands(args, _GIT_CONFIG_VALUE_OPTIONS)
    if words[:1] == ["set"]:
        words = words[1:]
    if len(words) < 2:
        return []
    return _git_config_hook(words[0], words[1])


def _git_config_hook(given_key: str, value: str) -> list[Hook]:
    key = given_key.strip().lower()
    if DYN in key:
        return [Hook("git config", opaque="git is given a setting whose name is only known at run time")]
    how = f"git -c {key}"
    instead_of = _GIT_INSTEAD_OF.match(given_key.strip())
    if instead_of is not None:  # `url.ext::CMD.insteadOf=https://`: every such URL runs CMD
        return git_url_hooks(instead_of.group(1), how)
    if _GIT_URL_KEY.match(key):
        return git_url_hooks(value, how)
    if _GIT_OPAQUE_KEY.match(key):
        if key.startswith("protocol."):
            if value.strip().lower() in ("never", ""):
                return []
            return [Hook(how, opaque="git may run the command a remote's ext:: URL names")]
        if key.startswith("include"):
            return [Hook(how, opaque="git reads more settings (commands among them) from a file the gate cannot see")]
        return [Hook(how, opaque="git runs hook scripts from a directory the gate cannot see")]
    if not _GIT_COMMAND_KEY.match(key):
        return []
    if key.startswith("alias.") and not value.startswith("!"):
        # an alias of another git command, with its own options: `-c core.fsmonitor=CMD status`
        try:
            words = shlex.split(value)
        except ValueError:
            return [Hook(how, opaque="a git alias the gate cannot split into words")]
        return [Hook(how, argv=("git", *words))] if words else []
    if key.startswith(("credential", "submodule.")):
        if not value.startswith("!"):
            return []  # a helper named `git credential-X`
        value = value[1:]
    elif key.startswith("alias."):
        value = value[1:]
    return [Hook(how, code=value)] if value.strip() else []


def git_url_hooks(url: str, how: str) -> list[Hook]:
    """A remote URL `ext::CMD ARGS` makes git run CMD (no shell: words split at spaces, `% ` is a
    space, `%%` a percent, `%s`-style placeholders are filled in by git)."""
    if DYN in url[:5]:
        return [Hook(how, opaque="git is given a remote URL only known at run time")]
    if not url.startswith("ext::"):
        return []
    words = [w.replace("\x02", " ").replace("%%", "%") for w in url[5:].replace("% ", "\x02").split()]
    words = [re.sub(r"%[sSGV]", "x", w) for w in words]
    return [Hook(f"{how} ext::", argv=tuple(words))] if words else []


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


def _gdb_hooks(name: str, args: list[str]) -> list[Hook]:
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


_TMUX_RUNS = frozenset(
    (
        "new",
        "new-session",
        "neww",
        "new-window",
        "splitw",
        "split-window",
        "respawn-pane",
        "respawnp",
        "respawn-window",
        "respawnw",
        "run-shell",
        "run",
        "display-popup",
        "popup",
        "if-shell",
        "if",
        "pipe-pane",
        "pipep",
    )
)
_TMUX_SENDS = frozenset(("send-keys", "send"))
_TMUX_VALUE_OPTS = frozenset(
    ["-c", "-e", "-F", "-n", "-s", "-t", "-x", "-y", "-f", "-l", "-b", "-w", "-h", "-T", "-S", "-X", "-Y", "-E", "-N"]
)
_TMUX_SEND_VALUE_OPTS = frozenset(("-t", "-N"))
_TMUX_KEYS = {"Enter": "\n", "C-m": "\n", "KPEnter": "\n", "C-j": "\n", "Space": " ", "Tab": "\t"}
_TMUX_CONTROL_KEY = re.compile(r"^([CMS]-.+|Escape|BSpace|Up|Down|Left|Right|Home|End|PPage|NPage|F\d+)$")


def _tmux_hooks(name: str, args: list[str]) -> list[Hook]:
    """tmux commands (split on `;`) that start a shell command or type keys into a pane."""
    found: list[Hook] = []
    i = 0
    while i < len(args) and args[i].startswith("-"):  # tmux's own options
        i += 2 if args[i] in ("-L", "-S", "-f", "-T", "-c") else 1
    commands: list[list[str]] = [[]]
    for a in args[i:]:
        if a in (";", "\\;"):
            commands.append([])
        else:
            commands[-1].append(a)
    for words in commands:
        if not words or (words[0] not in _TMUX_RUNS and words[0] not in _TMUX_SENDS):
            continue
        verb = words[0]
        value_opts = _TMUX_SEND_VALUE_OPTS if verb in _TMUX_SENDS else _TMUX_VALUE_OPTS
        operands: list[str] = []
        k = 1
        while k < len(words):
            w = words[k]
            if not operands and w.startswith("-") and len(w) > 1:
                k += 2 if w in value_opts else 1
                continue
            operands.append(w)
            k += 1
        if not operands:
            continue
        if verb in _TMUX_SENDS:
            typed = "".join(_TMUX_KEYS.get(w, "" if _TMUX_CONTROL_KEY.match(w) else w) for w in operands)
            found.append(Hook("tmux send-keys", code=typed))
        elif verb in ("if-shell", "if"):
            found.append(Hook("tmux if-shell", code=operands[0]))
        else:
            found.append(Hook(f"tmux {verb}", code=" ".join(operands)))
    return found


_SCREEN_VALUE_OPTS = frozenset(["-S", "-c", "-e", "-h", "-p", "-s", "-t", "-T", "-Logfile", "-r", "-x", "-R", "-D"])


def _screen_hooks(name: str, args: list[str]) -> list[Hook]:
    """`screen -dm CMD...` runs CMD; `screen -X stuff TEXT` types TEXT into a running shell."""
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-X":
            rest = args[i + 1 :]
            if rest and rest[0] == "stuff" and len(rest) > 1:
                text = rest[1].replace("\\n", "\n").replace("\\r", "\n").replace("^M", "\n")
                return [Hook("screen -X stuff", code=text)]
            if rest and rest[0] in ("exec", "screen"):
                return [Hook(f"screen -X {rest[0]}", argv=tuple(w for w in rest[1:] if not w.startswith("-")))]
            return []
        if a in _SCREEN_VALUE_OPTS:
            i += 2
            continue
        if a.startswith("-"):
            i += 1
            continue
        return [Hook("screen", argv=tuple(args[i:]))]
    return []


_PARALLEL_VALUE_OPTS = frozenset(
    [
        "-j",
        "-P",
        "-S",
        "-a",
        "-d",
        "-E",
        "-I",
        "-n",
        "-N",
        "-L",
        "-l",
        "-C",
        "--jobs",
        "--sshlogin",
        "--arg-file",
        "--delimiter",
        "--timeout",
        "--joblog",
        "--results",
        "--tmpdir",
        "--workdir",
        "--colsep",
        "--halt",
        "--memfree",
        "--load",
        "--delay",
        "--retries",
        "--tagstring",
        "--env",
    ]
)
_PARALLEL_PLACEHOLDER = re.compile(r"\{(?:\d*[./#%]*|//|/\.)\}")


def _parallel_hooks(name: str, args: list[str]) -> list[Hook]:
    """GNU parallel: the command template before `:::`, run by a shell once per value."""
    i = 0
    from_file = False
    while i < len(args) and args[i].startswith("-") and args[i] not in (":::", "::::", ":::+", "::::+"):
        key = args[i].partition("=")[0]
        from_file = from_file or key in ("-a", "--arg-file")
        i += 2 if args[i] in _PARALLEL_VALUE_OPTS else 1
    template: list[str] = []
    while i < len(args) and args[i] not in (":::", "::::", ":::+", "::::+"):
        template.append(args[i])
        i += 1
    values: list[str] = []
    known = not from_file and i < len(args)
    while i < len(args):
        if args[i] in ("::::", "::::+"):
            known = False
        elif args[i] not in (":::", ":::+"):
            values.append(args[i])
        i += 1
    if not known or not values or len(values) > MAX_VALUES or any(DYN in v for v in values):
        if template:
            return [Hook("parallel", code=_PARALLEL_PLACEHOLDER.sub("", " ".join(template)) + " " + DYN)]
        return [Hook("parallel", opaque="parallel runs command lines it reads at run time")]
    code = " ".join(template)
    found: list[Hook] = []
    for v in values:
        quoted = shlex.quote(v)
        if not code:
            found.append(Hook("parallel :::", code=v))
        elif _PARALLEL_PLACEHOLDER.search(code):
            found.append(Hook("parallel", code=_PARALLEL_PLACEHOLDER.sub(quoted.replace("\\", r"\\"), code)))
        else:
            found.append(Hook("parallel", code=f"{code} {quoted}"))
    return found


def _alias_hooks(name: str, args: list[str]) -> list[Hook]:
    """`alias x='CMD'`: where aliases expand (`shopt -s expand_aliases`), x runs CMD; judged
    where it is defined, as a function's body is."""
    found: list[Hook] = []
    for a in args:
        key, eq, value = a.partition("=")
        if eq and key and not key.startswith("-") and value.strip():
            found.append(Hook(f"alias {key}", code=value))
    return found


def _mapfile_hooks(name: str, args: list[str]) -> list[Hook]:
    """`mapfile -C CODE`: CODE runs every `-c` lines, with the index and the line appended."""
    return [Hook(f"{name} -C", code=v) for _, v in option_values(args, ("-C",), clustered=False) if v]


def _capsh_hooks(name: str, args: list[str]) -> list[Hook]:
    """`capsh [opts] -- ARGS` runs `bash ARGS` (or the `--shell=` given)."""
    shell = "bash"
    for k, a in enumerate(args):
        if a.startswith("--shell="):
            shell = a.partition("=")[2]
        if a == "--":
            return [Hook("capsh --", argv=(shell, *args[k + 1 :]))]
    return []


_IP_VALUE_OPTIONS = frozenset(("-n", "-netns", "-f", "-family", "-l", "-loops", "-rc", "-rcvbuf"))


def _ip_hooks(name: str, args: list[str]) -> list[Hook]:
    """`ip netns exec NS CMD...` and `ip vrf exec VRF CMD...` run CMD (ip takes any unambiguous
    prefix: `ip net e NS CMD`); `ip -batch FILE` runs ip commands from a file."""
    i = 0
    every_netns = False
    while i < len(args) and args[i].startswith("-"):
        option = args[i].lstrip("-")
        if option and "batch".startswith(option):  # ip takes any prefix: `-b`, `-ba`, `--batch`
            return [Hook("ip -batch", opaque="ip runs commands from a batch file the gate cannot see")]
        every_netns = every_netns or (option and "all".startswith(option) and len(option) >= 2) or option == "a"
        takes = args[i] in _IP_VALUE_OPTIONS or any(
            len(option) >= 2 and full.lstrip("-").startswith(option) for full in _IP_VALUE_OPTIONS
        )  # `-net NS` is `-netns NS`
        i += 2 if takes else 1
    rest = args[i:]
    skip = 2 if every_netns else 3  # `ip -all netns exec CMD` names no namespace
    runs = len(rest) > skip and rest[1] != "" and "exec".startswith(rest[1])
    if runs and (
        ("netns".startswith(rest[0]) and len(rest[0]) >= 3) or (len(rest[0]) >= 2 and "vrf".startswith(rest[0]))
    ):
        return [Hook(f"ip {rest[0]} exec", argv=tuple(rest[skip:]))]
    return []


def _nvcc_hooks(name: str, args: list[str]) -> list[Hook]:
    """`nvcc -ccbin CMD` runs CMD as the host compiler; `nvcc -run` runs what it built."""
    found = [
        Hook(f"nvcc {opt}", code=v)
        for opt, v in option_values(args, ("-ccbin", "--compiler-bindir"), clustered=False)
        if v
    ]
    found += [Hook("nvcc -ccbin=", code=a.partition("=")[2]) for a in args if a.startswith("-ccbin=")]
    passing = ("-Xcompiler", "--compiler-options", "-Xlinker", "--linker-options")
    passed = option_values(args, passing, clustered=False)
    passed += [(a.partition("=")[0], a.partition("=")[2]) for a in args if a.partition("=")[0] in passing and "=" in a]
    if any(re.search(r"(^|,)\s*(-wrapper|-fplugin|-B|-specs|--?plugin)", v) for _, v in passed):
        found.append(Hook("nvcc -Xcompiler", opaque="the host compiler is told to run or load a program"))
    if any(a in ("-run", "--run") for a in args):
        found.append(Hook("nvcc -run", argv=("./a.out",)))  # a program nobody has judged: asked for
    return found


def _socat_hooks(name: str, args: list[str]) -> list[Hook]:
    """`socat - EXEC:CMD` / `SYSTEM:CMD`: an address that runs a program."""
    found: list[Hook] = []
    for a in args:
        kind, colon, rest = a.partition(":")
        if colon and kind.upper() in ("EXEC", "SYSTEM"):
            found.append(Hook(f"socat {kind.upper()}:", code=rest.split(",")[0]))
    return found


_APT_HOOK_KEY = re.compile(r"(?i)::(Pre|Post)-Invoke(-Success)?(::|$)|::Pre-Install-Pkgs(::|$)")
_APT_PROGRAM_KEY = re.compile(
    r"(?i)^(Dir::Bin::|APT::Key::gpgvcommand|Dpkg::Tools::|APT::Changelogs::Server|Acquire::\w+::Proxy-Auto-Detect)"
)


def _apt_hooks(name: str, args: list[str]) -> list[Hook]:
    """`apt-get -o APT::Update::Pre-Invoke::=CMD update` runs CMD; `-o Dir::Bin::dpkg=PROG` runs PROG
    in dpkg's place; `-c FILE` reads settings (hooks among them) from a file the gate cannot see."""
    found: list[Hook] = []
    for opt, value in option_values(args, ("-o", "--option", "-c", "--config-file"), clustered=False):
        if opt in ("-c", "--config-file"):
            found.append(
                Hook(f"{name} {opt}", opaque=f"{name} reads settings, hooks among them, from {visible(value)}")
            )
            continue
        key, _, setting = value.partition("=")
        if DYN in key:
            found.append(Hook(f"{name} -o", opaque=f"{name} is given a setting only known at run time"))
        elif _APT_HOOK_KEY.search(key) and setting.strip():
            found.append(Hook(f"{name} -o {key}", code=setting))
        elif _APT_PROGRAM_KEY.match(key) and setting.strip():
            found.append(Hook(f"{name} -o {key}", argv=(setting,)))
    return found


_IPMITOOL_VALUE_OPTIONS = frozenset(
    ("-d", "-I", "-H", "-p", "-U", "-f", "-S", "-e", "-k", "-y", "-L", "-A", "-P", "-o", "-O", "-t", "-b", "-m", "-B",
     "-T", "-l", "-C", "-N", "-R", "-z")
)  # fmt: skip


def _ipmitool_hooks(name: str, args: list[str]) -> list[Hook]:
    """`ipmitool exec FILE` and `ipmitool shell` run BMC commands the gate cannot see (`chassis power
    cycle` in a file, or on standard input)."""
    words = operands(args, _IPMITOOL_VALUE_OPTIONS)
    if words[:1] == ["exec"]:
        return [Hook(f"{name} exec", opaque=f"{name} runs the BMC commands in a file the gate cannot see")]
    if words[:1] == ["shell"]:
        return [Hook(f"{name} shell", opaque=f"{name} reads BMC commands from its standard input")]
    return []


def _rpm_hooks(name: str, args: list[str]) -> list[Hook]:
    """`rpm --eval '%(CMD)'` (and `--define`) expands macros, and `%(...)` runs CMD in a shell."""
    found: list[Hook] = []
    spelled = ("-E", "--eval", "-D", "--define", "--qf", "--queryformat")
    for opt, value in option_values(args, spelled, clustered=False):
        if opt in ("-D", "--define") or "%(" in value or "%{lua" in value or DYN in value:
            # a macro defined here may replace a helper rpm runs (`--define '__cat CMD'`)
            found.append(Hook(f"rpm {opt}", opaque="rpm macros that may run shell or Lua code"))
    if option_values(args, ("--rcfile", "--macros"), clustered=False):
        found.append(Hook("rpm --macros", opaque="rpm reads macros (which may run commands) from a file"))
    return found


def _strace_hooks(name: str, args: list[str]) -> list[Hook]:
    """`strace -o '!CMD'` pipes the trace into CMD, as `-o '|CMD'` does."""
    return [Hook("strace -o !", code=v[1:]) for _, v in option_values(args, ("-o", "--output"), False) if v[:1] == "!"]


_SPECIAL = {
    "ipmitool": _ipmitool_hooks,
    "rpm": _rpm_hooks,
    "strace": _strace_hooks,
    "apt": _apt_hooks,
    "apt-get": _apt_hooks,
    "aptitude": _apt_hooks,
    "apt-cache": _apt_hooks,
    "git": _git_hooks,
    "gdb": _gdb_hooks,
    "tmux": _tmux_hooks,
    "screen": _screen_hooks,
    "parallel": _parallel_hooks,
    "capsh": _capsh_hooks,
    "mapfile": _mapfile_hooks,
    "alias": _alias_hooks,
    "readarray": _mapfile_hooks,
    "socat": _socat_hooks,
    "ip": _ip_hooks,
    "nvcc": _nvcc_hooks,
}


# -- files whose text runs later: cron tables, shell start-up files, systemd units, udev rules

_SYSTEM_CRON = re.compile(r"^/etc/(crontab|cron\.d/[^/]+|anacrontab)$")
_USER_CRON = re.compile(r"^/var/spool/cron/(crontabs/)?[^/]+$")
_RUN_PARTS = re.compile(r"^/etc/cron\.(hourly|daily|weekly|monthly)/[^/]+$")
_STARTUP = re.compile(
    r"^/etc/(rc\.local|profile|bash\.bashrc|bashrc|zshrc|zsh/zshrc|profile\.d/[^/]+|rc[0-6S]\.d/[^/]+"
    r"|init\.d/[^/]+|update-motd\.d/[^/]+|NetworkManager/dispatcher\.d/.+|network/if-[a-z-]+\.d/[^/]+)$"
    r"|.*/\.git/hooks/[^/]+$"  # run by the next git command that reaches them
)
_APT_CONF = re.compile(r"^/etc/apt/apt\.conf(\.d/[^/]+)?$")
_APT_INVOKE = re.compile(r"(?:Pre|Post)-Invoke(?:-Success)?\s*\{([^}]*)\}", re.I)
_HOME_STARTUP = re.compile(r"/\.(bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zprofile|zlogin|kshrc)$")
_UNIT = re.compile(r"\.(service|socket|timer|path|mount)$|/systemd/.*\.conf$")
_UDEV = re.compile(r"^/(etc|lib|usr/lib|run)/udev/rules\.d/[^/]+\.rules$")
_EXEC_LINE = re.compile(r"^\s*Exec[A-Za-z]*\s*=\s*[-@:+!|]*(.*)$", re.M)
_UDEV_RUN = re.compile(r"\bRUN\s*\+?=\s*\"([^\"]*)\"")


# -- programs that print environment variables: judged as `printenv NAME` / `env` (the policy asks)

# names that hold secrets by convention; not MAX_TOKENS, TOKENIZER, AUTHOR or SORT_KEYS
SECRET_VARIABLE = re.compile(
    r"TOKEN(?!S|IZ)|SECRET|PASSW(OR)?D|PASSPHRASE|(^|_)PASS(_|$)|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH(?!OR)"
    r"|(^|_)(PAT|KEY|JWT|COOKIE|DSN)$|_PWD$|(^|_)DATABASE_UR[LI]$|(^|_)(REDIS|MONGO(DB)?|POSTGRES|AMQP)_URL$|SSHPASS",
    re.I,
)
_EXPANSION = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
ENV_PRINTERS = frozenset(("envsubst", "jq", "yq", "awk", "gawk", "mawk"))


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
    program = " ".join(argv[1:])
    if name == "jq" and re.search(r"\$ENV\b|(?<![\w.$])env\b", program):
        return [Hook("jq env", argv=("env",))]
    if name == "yq":  # mikefarah's yq: `env(NAME)`, `strenv(NAME)`, `${NAME}` with envsubst
        if re.search(r"\$ENV\b|(?<![\w.$])env\b(?!\s*\()|envsubst", program):
            return [Hook("yq env", argv=("env",))]
        return printenv_hooks(re.findall(r"(?:str)?env\(\s*\"?([A-Za-z_][A-Za-z0-9_]*)", program), name)
    if name in ("awk", "gawk", "mawk"):
        if re.search(r"\bin\s+ENVIRON\b|ENVIRON\s*\[\s*[^\"\s]|ENVIRON\s*\[\s*\"[^\"]*\"\s*[^\s\]]", program):
            # every variable, or one whose name is worked out at run time (`ENVIRON[n]`, `ENVIRON["HF_" "TOKEN"]`)
            return [Hook(f"{name} ENVIRON", argv=("env",))]
        return printenv_hooks(re.findall(r"ENVIRON\s*\[\s*\"([A-Za-z_][A-Za-z0-9_]*)\"", program), name)
    return []


def printenv_hooks(names: Iterable[str], how: str) -> list[Hook]:
    """Each variable named like a secret, judged as `printenv NAME` (the policy asks)."""
    secret = [n for n in dict.fromkeys(names) if SECRET_VARIABLE.search(n)]
    return [Hook(f"{how} ${n}".strip(), argv=("printenv", n)) for n in secret]


# what `Analyser._argv` checks before calling `option_hooks` / `env_hooks` (most programs: neither)
HOOKED_PROGRAMS = frozenset((*COMMAND_OPTIONS, *SSH_LIKE, *_SPECIAL, *_PAGERS, *_VIMS, *SETTINGS_FILE_OPTIONS))
HOOKED_ENV = (
    COMMAND_ENV
    | PROMPTS
    | CONFIG_FILE_ENV
    | {
        "LESS",
        "MANOPT",
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG_PARAMETERS",
        "GIT_ALLOW_PROTOCOL",
        "NVCC_PREPEND_FLAGS",
        "NVCC_APPEND_FLAGS",
    }
)


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
    if _UNIT.search(path):
        return "unit"
    if _UDEV.match(path):
        return "udev"
    if _GIT_CONFIG_FILE.search(path):
        return "git-config"
    if _APT_CONF.match(path):
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
        return [
            Hook(f"{m.group(0).split('=')[0].strip()} in {path}", code=m.group(1)) for m in _EXEC_LINE.finditer(content)
        ]
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
    if kind == "apt":  # `DPkg::Pre-Invoke {"CMD";};` runs CMD at the next apt run
        return [
            Hook(f"apt hook in {path}", code=cmd)
            for m in _APT_INVOKE.finditer(content)
            for cmd in re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))
        ]
    return []


_GIT_CONFIG_FILE = re.compile(
    r"(^|/)\.gitconfig$|/[^/]*\.git/(config|config\.worktree|modules/.+/config|worktrees/[^/]+/config\.worktree)$"
    r"|/git/config$|^/etc/gitconfig$"
)
_GIT_SECTION = re.compile(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$')


def git_config_file_hooks(content: str, path: str) -> list[Hook]:
    """The commands a git config file sets (`[core] pager = CMD`, `[alias] x = !CMD`), judged as
    `git -c` judges them; an `[include]` of another file cannot be seen."""
    found: list[Hook] = []
    section = ""
    for raw in content.splitlines():
        line = raw.strip()
        header = _GIT_SECTION.match(line)
        if header is not None:
            section = header.group(1).lower() + (f".{header.group(2)}" if header.group(2) is not None else "")
            line = header.group(3).strip()
        if not line or line[0] in "#;":
            continue
        key, eq, value = line.partition("=")
        if section == "include" or section.startswith("includeif"):
            found.append(Hook(f"git config in {path}", opaque=f"{path} includes git settings from another file"))
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        if eq:
            found += [replace(h, how=f"{h.how} in {path}") for h in _git_config_hook(f"{section}.{key.strip()}", value)]
    return found


def runs_later(path: str, home: str | None) -> bool:
    """Whether the host (cron, a shell's start-up, udev, apt, the next git command there) runs the
    text of this file later by itself, as `file_hooks` reads it when the text is known. A systemd
    unit is not among them: it runs only when started, and starting one asks."""
    return _hook_file_kind(path, home) not in (None, "unit")


def _in_a_home(directory: str, home: str | None) -> bool:
    return directory in (home, "/root") or re.fullmatch(r"/home/[^/]+", directory) is not None


def cron_hooks(table: str, system: bool, how: str) -> list[Hook]:
    """Each job's command in a crontab; system tables (`/etc/crontab`, `cron.d`) name a user first."""
    found: list[Hook] = []
    for raw in table.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or re.match(r"^[A-Za-z_][A-Za-z0-9_]*\s*=", line):
            continue
        skip = (1 if line.startswith("@") else 5) + (1 if system else 0)  # the schedule, then the user
        parts = line.split(None, skip)
        if len(parts) <= skip:
            continue
        command = parts[skip]
        # cron turns an unescaped % into a newline and feeds the rest to the job's stdin
        command = re.split(r"(?<!\\)%", command, maxsplit=1)[0].replace("\\%", "%")
        found.append(Hook(how, code=command))
    return found


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return []
