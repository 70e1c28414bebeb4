"""Reading a program's own arguments the way getopt-style programs do: the values of chosen
options in every spelling, and the operands once options (and their values) are skipped."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence


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
            if key in options:
                out.append((key, val if eq else nxt))
                i += 1 if eq else 2
                continue
        elif a.startswith("-") and len(a) > 1:
            if a in options:
                out.append((a, nxt))
                i += 2
                continue
            letters = a[1:] if clustered else a[1:2]
            for k, letter in enumerate(letters, 1):
                opt = "-" + letter
                if opt in options:
                    rest = a[k + 1 :]
                    out.append((opt, rest or nxt))
                    i += 0 if rest else 1
                    break
        i += 1
    return out


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
            i += 2 if a in value_options else 1
            continue
        found.append(a)
        i += 1
    return found
