"""Reading a program's own arguments the way getopt-style programs do: the values of chosen
options in every spelling, and the operands once options (and their values) are skipped."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from agent.policy.facts import DYN


def first_operand(
    args: Sequence[str], value_options: Collection[str] = frozenset(), groups: Collection[str] = frozenset()
) -> str | None:
    """The first argument that is neither an option nor the value of one of `value_options`
    (`--no-wall -p Id kexec` -> `kexec` when `-p` takes a value); after a word of `groups`
    (`docker container kill X`), the first of the rest instead. A word only known at run time counts."""
    i = 0
    while i < len(args):
        a = args[i]
        if not a.startswith("-") or DYN in a[:1]:
            if a in groups:
                rest = first_operand(args[i + 1 :])
                return rest if rest is not None else a
            return a
        if a in value_options:
            i += 2
            continue
        if a.startswith("--") and "=" not in a and long_option(a, value_options) in value_options:
            i += 2  # `--prop status`: an abbreviation of `--property`
            continue
        if not a.startswith("--") and len(a) > 2:  # `-qp status`: the value option ends the cluster
            hit = cluster_option(a, value_options)
            if hit is not None and not hit[1]:
                i += 2
                continue
        i += 1
    return None


def cluster_option(arg: str, options: Collection[str], clustered: bool = True) -> tuple[str, str] | None:
    """The first of `options` in the short-option word `arg` (`-abo`, `-oVALUE`; only its first
    letter where options do not cluster), with the rest of the word after it: its attached value,
    "" when the value is the next word."""
    letters = arg[1:] if clustered else arg[1:2]
    for k, letter in enumerate(letters, 1):
        if "-" + letter in options:
            return "-" + letter, arg[k + 1 :]
    return None


def option_values(
    args: Sequence[str], options: Mapping[str, str] | Collection[str], clustered: bool
) -> list[tuple[str, str]]:
    """(option, value) for each of `options` given: `--opt=V`, `--opt V`, `-oV`, `-o V` and, where
    short options cluster, `-abo V`."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else ""
        if a == "--":
            break
        if a.startswith("--"):
            key, eq, val = a.partition("=")
            key = long_option(key, options)
            if key in options:
                out.append((key, val if eq else nxt))
                i += 1 if eq else 2
                continue
        elif a.startswith("-") and len(a) > 1:
            if a in options:
                out.append((a, nxt))
                i += 2
                continue
            hit = cluster_option(a, options, clustered)
            if hit is not None:
                opt, rest = hit
                out.append((opt, rest or nxt))
                i += 0 if rest else 1
        i += 1
    return out


def long_option(given: str, options: Collection[str]) -> str:
    """The option `given` stands for: getopt_long takes any unambiguous abbreviation (`--out=F` is
    `--output=F`, `--checkpoint-act=` is `--checkpoint-action=`). Of the options asked about, the
    one it abbreviates; `given` itself when it abbreviates none (or is one)."""
    if given in options or len(given) < 3:
        return given
    for option in options:
        if option.startswith(given) and option.startswith("--"):
            return option
    return given


def operands(args: Sequence[str], value_options: Collection[str]) -> list[str]:
    """The operands: what is left once options, and the values of `value_options`, are skipped
    (all after `--`)."""
    found: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            found += args[i + 1 :]
            break
        if a.startswith("-") and a != "-":
            takes = a in value_options or (a.startswith("--") and "=" not in a and long_option(a, value_options) != a)
            i += 2 if takes else 1
            continue
        found.append(a)
        i += 1
    return found
