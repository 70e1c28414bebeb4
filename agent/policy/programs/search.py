"""grep and its relatives, rg, ag, ack: a pattern first, then the files or trees they search."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from agent.policy.invocation import Ctx, Invocation, Scope
from agent.policy.options import operands
from agent.policy.programs.base import recurses_by_flags
from agent.policy.programs.generic import generic_reads

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis

GREPS = frozenset(("grep", "egrep", "fgrep", "zgrep"))
ALWAYS = frozenset(("rg", "ag", "ack"))  # they always search a tree
SEARCHERS = GREPS | ALWAYS  # their first operand is the pattern, unless -e/-f gives it

# options whose value is a command it runs (hooks.py, through programs/table.py)
COMMAND_OPTIONS: dict[str, dict[str, str]] = {"rg": {"--pre": ""}}
# options whose value is a file it reads whatever else it does (commands.py)
CONTENT_OPTIONS: dict[str, tuple[str, ...]] = {"grep": ("-f", "--file")}
# variables naming a settings file whose entries may be commands (hooks.py)
CONFIG_FILE_ENV = frozenset(("RIPGREP_CONFIG_PATH",))  # `--pre=CMD` in it


def search(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """`grep .env f`: a pattern, then the files it reads."""
    generic_reads(an, inv, pattern_first=True)


_GREP_LONG = frozenset(("--recursive", "--dereference-recursive", "--directories=recurse"))


def grep_recurses(args: Sequence[str]) -> bool:
    """`grep -r`, `-R`, `--recursive`, `--directories=recurse`, `-d recurse`."""
    return recurses_by_flags(args, "rR", _GREP_LONG, directories=True)


def always(args: Sequence[str]) -> bool:
    return True


# whether it reads a tree (recursive.py, through programs/table.py)
RECURSES: dict[str, Callable[[Sequence[str]], bool]] = {
    **dict.fromkeys(GREPS, grep_recurses),
    **dict.fromkeys(ALWAYS, always),
}


_SEARCH_VALUE_OPTIONS = frozenset(
    ("-A", "-B", "-C", "-m", "-d", "-D", "-g", "-t", "-T", "-j", "-E", "--glob", "--iglob", "--type", "--type-not",
     "--max-count", "--context", "--after-context", "--before-context", "--include", "--exclude", "--exclude-dir",
     "--encoding", "--threads")
)  # fmt: skip
_PATTERN_OPTIONS = frozenset(("-e", "--regexp", "-f", "--file"))


def search_roots(args: Sequence[str]) -> list[str]:
    """Where a recursive grep or rg searches: its operands after the pattern (none: the current
    directory)."""
    given = any(a in _PATTERN_OPTIONS or a.startswith(("--regexp=", "--file=")) for a in args)
    found = operands(args, _SEARCH_VALUE_OPTIONS | _PATTERN_OPTIONS)
    return found if given else found[1:]


# where it reads a tree from, when it does (commands.py, through programs/table.py)
SEARCH_ROOTS: dict[str, Callable[[Sequence[str]], list[str]]] = dict.fromkeys(SEARCHERS, search_roots)
