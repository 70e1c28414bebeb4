"""Helpers the program models share: option values, GPU lists, words as shown, how a run judged
inside looks. Models import these (and invocation.py, options.py, facts.py), never the walker."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agent.policy.facts import DYN, GLOB, visible
from agent.policy.invocation import Hook, Invocation
from agent.policy.options import long_option, option_values


def visible_words(words: list[str]) -> str:
    """The words joined by spaces, markers shown as a person would read them."""
    text = " ".join(words)
    return visible(text) if DYN in text or GLOB in text else text


def judged_inside(inv: Invocation) -> None:
    """The code it runs was judged on its own; what is left is its redirects, as `:` would have."""
    inv.program = inv.path = ":"
    inv.args = []
    inv.wrapper = True


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


def opt_value(args: list[str], names: Iterable[str]) -> str | None:
    """The last value given to one of `names`, in any spelling argparse takes: `--opt V`,
    `--opt=V` and abbreviations (`--base-gpu 4` is `--base-gpu-id 4`)."""
    names = tuple(names)
    value: str | None = None
    for i, a in enumerate(args):
        key, eq, val = a.partition("=")
        if key in names or (len(key) > 3 and key.startswith("--") and any(n.startswith(key) for n in names)):
            value = val if eq else (args[i + 1] if i + 1 < len(args) else None)
    return value


MAX_VALUES = 8  # `parallel CMD ::: a b c`: judged once per value, as for a short `for` list


def split_words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return []


# names that hold secrets by convention; not MAX_TOKENS, TOKENIZER, AUTHOR or SORT_KEYS
SECRET_VARIABLE = re.compile(
    r"TOKEN(?!S|IZ)|SECRET|PASSW(OR)?D|PASSPHRASE|(^|_)PASS(_|$)|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH(?!OR)"
    r"|(^|_)(PAT|KEY|JWT|COOKIE|DSN)$|_PWD$|(^|_)DATABASE_UR[LI]$|(^|_)(REDIS|MONGO(DB)?|POSTGRES|AMQP)_URL$|SSHPASS",
    re.I,
)


def printenv_hooks(names: Iterable[str], how: str) -> list[Hook]:
    """Each variable named like a secret, judged as `printenv NAME` (the policy asks)."""
    secret = [n for n in dict.fromkeys(names) if SECRET_VARIABLE.search(n)]
    return [Hook(f"{how} ${n}".strip(), argv=("printenv", n)) for n in secret]


def option_outputs(args: list[str], files: frozenset[str], dirs: frozenset[str], clustered: bool) -> list[str]:
    """The paths written through options whose value is a file (`files`) or a directory (`dirs`,
    shown as `DIR/` + GLOB): `-oFILE`, `-uo FILE` where short options cluster, `--out=FILE`."""
    return [
        value.rstrip("/") + "/" + GLOB if opt in dirs else value
        for opt, value in option_values(args, files | dirs, clustered=clustered)
        if value
    ]


def recurses_by_flags(args: Sequence[str], letters: str, long: frozenset[str], directories: bool = False) -> bool:
    """Whether these arguments ask for a recursive read: one of `letters` in a short-option
    cluster, one of the `long` options (or an abbreviation: `--recur`); with `directories`
    (grep's), `--directories=recurse` and `-d recurse` too."""
    names = [o.partition("=")[0] for o in long]
    for i, a in enumerate(args):
        if a == "--":
            break
        key, eq, value = a.partition("=")
        if key.startswith("--") and long_option(key, names) != key:
            key = long_option(key, names)  # `--recur`, `--dir=recurse`
        if (key + eq + value) in long or key in long:
            return True
        if directories:
            nxt = args[i + 1] if i + 1 < len(args) else ""
            if (key == "--directories" and (value or nxt) == "recurse") or (a == "-d" and nxt == "recurse"):
                return True
        if a.startswith("-") and not a.startswith("--") and any(c in a[1:] for c in letters):
            return True
    return False


@dataclass(frozen=True)
class WrapperSpec:
    """How a wrapper (`sudo`, `timeout`, `uv run`) finds the command it runs (wrappers.py)."""

    value_opts: frozenset[str] = frozenset()
    positionals: int = 0  # operands before the wrapped command (timeout's duration, chroot's root)
    env_assign: bool = False
    shell_opts: frozenset[str] = frozenset()  # options whose value is shell code (su -c, script -c)
    no_cmd_opts: frozenset[str] = frozenset()  # options that mean nothing is wrapped
    join_shell: bool = False  # the remaining words are joined and run by a shell (watch, ssh)
    appends_args: bool = False  # xargs: more arguments arrive at run time


def wrapper_spec(
    value: str = "",
    positionals: int = 0,
    env: bool = False,
    shell: str = "",
    nocmd: str = "",
    join: bool = False,
    appends: bool = False,
) -> WrapperSpec:
    """A spec from space-separated option lists."""
    return WrapperSpec(
        frozenset(value.split()),
        positionals,
        env,
        frozenset(shell.split()),
        frozenset(nocmd.split()),
        join,
        appends,
    )
