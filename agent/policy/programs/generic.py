"""What any program is taken to do when no model knows it better: the files its arguments name,
the GPUs its environment selects, the variables it prints."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.policy.facts import DYN
from agent.policy.invocation import Invocation
from agent.policy.programs.base import parse_gpu_list

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


# programs without a model whose arguments name files they do not read (a model says for its own
# program: `rm`, `tee`, `kill` never reach here)
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
    "du",
    "df",
    "echo",
    "which",
    "type",
    "command",
    "lsof",
    "namei",
}


SECRET_LIKE = re.compile(r"(^|/)(id_[a-z0-9]+|[^/]*\.env|\.env[^/]*|[^/]*token[^/]*|\.netrc|[^/]*\.pem|[^/]*\.key)$")


PATTERN_OPTIONS = frozenset(("-e", "--regexp", "-f", "--file", "--from-file"))


VARIABLE_PRINTERS = frozenset(("env", "printenv", "set", "export", "declare", "typeset", "readonly", "local"))


def variables_printed(program: str, args: list[str]) -> tuple[str, ...]:
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


def generic_reads(an: Analysis, inv: Invocation, pattern_first: bool = False) -> None:
    """Its arguments that look like paths are files it reads; with `pattern_first` (a model's
    say), its first operand is a pattern or an expression instead, unless an option gives it."""
    if inv.program == "getent" and set(inv.args) & {"shadow", "gshadow"}:
        inv.reads.append(an._path("/etc/" + ("gshadow" if "gshadow" in inv.args else "shadow")))
    if inv.program == "man" and any(a in ("-l", "--local-file") or a.startswith("--local") for a in inv.args):
        inv.opaque = "man -l formats a page that may include other files (`.so`)"
    if inv.program in NON_READERS:
        return
    args = inv.args
    # after a `cd` elsewhere, a bare name is a file there (`cd /etc && cat shadow`)
    moved = an._scope_cwd != an.facts.cwd or bool(an._scope_also)
    if pattern_first and not any(a in PATTERN_OPTIONS or a.startswith("--regexp=") for a in args):
        first = next((k for k, a in enumerate(args) if not a.startswith("-") or a == "-"), None)
        if first is not None:  # `grep .env f`, `jq .token f`: a pattern, not a file
            args = args[:first] + args[first + 1 :]
    for a in args:
        value = a.partition("=")[2] if a.startswith("-") and "=" in a else a
        if value.startswith("-") or not value:
            continue
        # a name only known at run time, once this command has listed a secret location
        # (`find ~/.ssh -type f | xargs cat`): it may be one of those secrets
        listed = an.listed_secrets and DYN in value
        # a bare name made a link or a device node earlier in the same command (`mknod m c 1 1; cat m`)
        made = bool(an.links) and an._path(value).aliases[0] in an.links
        if "/" in value or value.startswith("~") or SECRET_LIKE.search(value) or moved or listed or made:
            if "://" in value:
                continue
            inv.reads.append(an._path(value))


def gpus_from_env(an: Analysis, inv: Invocation, env: dict[str, str]) -> None:
    if not env:
        return
    for key in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"):
        if key in env:
            inv.gpus = (inv.gpus or frozenset()) | parse_gpu_list(env[key])


# -- what many programs share, looked up by name where the walker needs it; the programs with a
# module of their own declare theirs there (programs/table.py gathers both)

# options whose value is a file the program reads (and may print) whatever else it does
CONTENT_OPTIONS: dict[str, tuple[str, ...]] = {
    "du": ("--files0-from",),
    "file": ("-f", "--files-from", "-m", "--magic-file"),
}


# what a program's output is, to a reader of the pipe (`text decoded by base64`): generic.py's
# for programs without a module, each module's `PRODUCES` for its own (programs/table.py)
PRODUCES = {
    "base64": "decoded",
    "base32": "decoded",
    "basenc": "decoded",
    "xxd": "decoded",
    "openssl": "decoded",
    "ssh": "received",
    "rev": "transformed",
    "tr": "transformed",
    "printf": "formatted",
}
