"""git: the work tree it rewrites and the settings it reads."""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from agent.policy.facts import DYN, GLOB, may_match, visible
from agent.policy.invocation import DEVNULL, Ctx, Hook, Invocation, Scope, WriteEffect
from agent.policy.options import operands, option_values
from agent.policy.programs.base import split_words
from agent.policy.programs.generic import generic_reads

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


# git's options before its subcommand that take the next word as their value
GIT_GLOBAL_VALUE_OPTIONS = frozenset(
    ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--attr-source")
)
# for `subcommand` rules (programs/table.py): `git -C /x push` is `git push`
SUBCOMMAND_VALUE_OPTIONS: dict[str, frozenset[str]] = {"git": GIT_GLOBAL_VALUE_OPTIONS}


def git_global_options(args: Sequence[str]) -> tuple[list[tuple[str, str | None]], int]:
    """git's options before its subcommand as (option, value) - the next word for the options that
    take one, the part after `=` for `--opt=V`, None for a flag - and the subcommand's index."""
    found: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args) and args[i].startswith("-"):
        a = args[i]
        if a in GIT_GLOBAL_VALUE_OPTIONS:
            found.append((a, args[i + 1] if i + 1 < len(args) else ""))
            i += 2
            continue
        key, eq, value = a.partition("=")
        found.append((key, value) if eq else (a, None))
        i += 1
    return found, i


# git commands that rewrite or delete files of the work tree
_GIT_TREE_CHANGERS = frozenset(
    ("clean", "reset", "checkout", "restore", "rm", "mv", "stash", "switch", "merge", "pull", "rebase",
     "cherry-pick", "revert", "am", "apply")
)  # fmt: skip


def git_work_tree(an: Analysis, inv: Invocation, args: list[str], env: dict[str, str]) -> None:
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
    inv.writes.append(WriteEffect(an._path(where.rstrip("/") + "/" + GLOB)))
    if sub in ("clean", "reset", "rm", "restore"):  # these remove files; the others rewrite them
        inv.deletes.append(an._path(where.rstrip("/") + "/" + GLOB))


def git_settings_written(an: Analysis, inv: Invocation, args: list[str], env: dict[str, str], scope: Scope) -> None:
    """git reads the settings of the repository it works in. One written earlier in this
    command where the gate did not know a repository was (`x/config` before `--git-dir=x`,
    a repository unpacked from an archive) is unseen text that git runs: fail closed."""
    if not an.written:
        return
    found, _ = git_global_options(args)
    places = [v for o, v in found if o in ("-C", "--git-dir", "--work-tree") and v]
    places += [env[k] for k in ("GIT_DIR", "GIT_WORK_TREE") if k in env]
    for place in [*places, scope.cwd or DYN]:
        base = an._path(place).aliases[0].rstrip("/")
        for settings in (f"{base}/config", f"{base}/.git/config", f"{base}/.git"):
            if any(w == settings or ((DYN in w or GLOB in w) and may_match(w, settings)) for w in an.written):
                inv.opaque = f"git reads settings from {visible(settings)}, written earlier in this command"
                return


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


# variables whose value git runs as a command line, and those naming a settings file whose
# entries may be commands (hooks.py, through programs/table.py)
COMMAND_ENV = frozenset(
    (
        "GIT_PAGER",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_SSH_COMMAND",
        "GIT_SSH",
        "GIT_ASKPASS",
        "GIT_EXTERNAL_DIFF",
        "GIT_PROXY_COMMAND",
    )
)
CONFIG_FILE_ENV = frozenset(("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG", "GIT_EXEC_PATH"))
# the variables `git_environment_config` reads settings from
CONFIG_ENV = frozenset(("GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_ALLOW_PROTOCOL"))


def git_environment_config(env: Mapping[str, str]) -> list[Hook]:
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
        entries = split_words(parameters)
        if DYN in parameters or (parameters.strip() and not entries):
            return [*found, Hook("GIT_CONFIG_PARAMETERS", opaque="git settings only known at run time")]
        for entry in entries:  # `'core.pager'='CMD'`, or the older `'core.pager=CMD'`
            key, _, value = entry.partition("=")
            found += _git_config_hook(key, value)
    return found


_GIT_COMMAND_OPTIONS = {"--upload-pack": "", "--receive-pack": "", "--exec": ""}


def git_hooks(name: str, args: list[str]) -> list[Hook]:
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


GIT_CONFIG_FILE = re.compile(
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


def git(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """What git reads as any program does; the settings it reads and the work tree it rewrites;
    the trace files its environment names (GIT_TRACE=/path) are written."""
    generic_reads(an, inv)
    git_settings_written(an, inv, argv[1:], env, scope)
    git_work_tree(an, inv, argv[1:], env)
    for raw in git_trace_files(env) if env else ():
        ref = an._path(raw)
        if ref.aliases[0] not in DEVNULL:
            inv.writes.append(WriteEffect(ref))


# -- files git writes through its options and environment (outputs.py asks for them)


def git_outputs(args: list[str]) -> list[str]:
    """Files git writes for read-only looking subcommands: `git log --output=F` (a `--format=b`
    there writes what it likes), `git archive -o F`, `git format-patch -o DIR`, `git bundle create
    F`; relative to `git -C DIR`, as git resolves them."""
    base = ""
    traces: list[str] = []  # `-c trace2.eventTarget=F`: written wherever git runs from
    globals_, i = git_global_options(args)
    for opt, value in globals_:
        if opt == "-C" and value is not None:
            base = posixpath.join(base, value)
        target = _TRACE_TARGET.match(value) if opt == "-c" and value else None
        if target is not None and _trace_path(target.group(2)):
            traces.append(_trace_path(target.group(2)))
    sub, rest = (args[i], args[i + 1 :]) if i < len(args) else ("", [])
    found = [v for _, v in option_values(rest, ("--output",), clustered=False)]
    if sub == "archive":
        found += [v for _, v in option_values(rest, ("-o",), clustered=False)]
    elif sub == "format-patch":
        dirs = option_values(rest, ("-o", "--output-directory"), clustered=False)
        found += [v.rstrip("/") + "/" + GLOB for _, v in dirs]
    elif sub == "bundle" and rest[:1] == ["create"]:
        found += operands(rest[1:], ("--version",))[:1]
    return [posixpath.join(base, f) for f in found if f] + traces


_TRACE_TARGET = re.compile(r"^trace2\.(normal|perf|event)target=(.*)$", re.I)


def git_trace_files(env: Mapping[str, str]) -> list[str]:
    """`GIT_TRACE=/path` (and `GIT_TRACE2_EVENT`, `GIT_TRACE_PACKET`, ...): git appends its trace
    there; `1`, `2` or `true` mean standard error, another number an open descriptor."""
    return [_trace_path(v) for k, v in env.items() if k.startswith("GIT_TRACE") and _trace_path(v)]


def _trace_path(value: str) -> str:
    """The file a trace setting names, `af_unix:[stream:|dgram:]` sockets included ("" for none)."""
    for prefix in ("af_unix:stream:", "af_unix:dgram:", "af_unix:"):
        if value.startswith(prefix):
            return value[len(prefix) :]
    return value if value.startswith(("/", DYN)) else ""


OUTPUTS = {"git": git_outputs}  # read by outputs.py through programs/table.py


def compares_trees(args: Sequence[str]) -> bool:
    """`git diff --no-index A B` compares two directories as `diff -r` does (recursive.py)."""
    return "--no-index" in args


RECURSES = {"git": compares_trees}  # read by recursive.py through programs/table.py
