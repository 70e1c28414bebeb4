"""SGLang's flags as the hearing knows them: every flag of every recorded release (the released
wheels' data), whether it takes a value, its choices and type, and the words their names are made of."""

from __future__ import annotations

import functools
import itertools
import re
from typing import NamedTuple


class Flag(NamedTuple):
    takes_value: bool
    choices: frozenset[str]  # of any release; empty when the flag has no fixed list
    kind: str  # argparse type name: "int", "float", "str", ...


@functools.lru_cache(maxsize=1)
def sglang_flags() -> dict[str, Flag]:
    """Every flag of every recorded SGLang release (the released wheels' data): whether it takes a
    value, its choices and its type, to tell a flag from a word and a value from a word."""
    from tools.lab.sglang_flags import release_data, releases

    seen: dict[str, tuple[bool, set[str], str]] = {}
    for release in releases():
        for action in release_data(release)["actions"]:
            takes_value = action.get("nargs") != 0 and not str(action.get("action", "")).startswith("store_")
            for opt in action.get("opts", []):
                if opt.startswith("--"):
                    _, choices, _ = seen.setdefault(opt, (takes_value, set(), str(action.get("type") or "str")))
                    choices.update(str(c) for c in action.get("choices") or [])
    return {opt: Flag(value, frozenset(choices), kind) for opt, (value, choices, kind) in seen.items()}


NO_FLAG = Flag(True, frozenset(), "str")


@functools.lru_cache(maxsize=1)
def _aliases() -> dict[str, str]:
    """ "--tensor-parallel-size" -> "--tp-size": a second name SGLang's parser gives the same setting
    (never a "--no-x" switch, which is the opposite), to its first name, which the launch reads."""
    from tools.lab.sglang_flags import release_data, releases

    aliases: dict[str, str] = {}
    for release in reversed(releases()):  # the newest release's first name wins (0.5.14 swapped tp's two)
        for action in release_data(release)["actions"]:
            names = [opt for opt in action.get("opts", []) if opt.startswith("--")]
            first = aliases.get(names[0], names[0]) if names else ""
            for name in names:
                if not name.startswith("--no-") and name != first and first not in aliases:
                    aliases.setdefault(name, first)
    return aliases


def spelt_out(text: str) -> str:
    """ "--mem-frac 0.85" -> "--mem-fraction-static 0.85": a flag cut short that starts exactly one of
    SGLang's flags is that flag, as SGLang's own argument parser takes it, and a second name of a flag
    is its first ("--tensor-parallel-size 8" is "--tp-size 8"); any other stays as said."""

    def whole(match: re.Match[str]) -> str:
        said = match.group(0).lower()
        if said in _aliases() and said != "--model":  # "--model" is read as the model to serve, by its own rule
            return _aliases()[said]
        if said in sglang_flags():
            return match.group(0)
        longer = [flag for flag in sglang_flags() if flag.startswith(said)]
        return longer[0] if len(longer) == 1 else match.group(0)

    return re.sub(r"(?<![\w-])--[a-z0-9][a-z0-9-]*", whole, text, flags=re.I)


def known_flag(flag: str) -> bool:
    """Whether any recorded SGLang release has this flag."""
    return flag in sglang_flags()


def needs_a_value(flag: str) -> bool:
    """Whether SGLang's flag takes a value ("--mem-fraction-static"): said alone, it says nothing to set."""
    known = sglang_flags().get(flag)
    return known is not None and known.takes_value


def takes_no_value(flag: str) -> bool:
    """Whether SGLang's flag is a switch ("--disable-cuda-graph"): a word after it is never its value."""
    known = sglang_flags().get(flag)
    return known is not None and not known.takes_value


@functools.lru_cache(maxsize=1)
def flag_word_pairs() -> frozenset[tuple[str, str]]:
    """Two words that follow each other in an SGLang flag's name ("nsa", "decode")."""
    pairs: set[tuple[str, str]] = set()
    for flag in sglang_flags():
        words = flag.strip("-").split("-")
        pairs.update(itertools.pairwise(words))
    return frozenset(pairs)


@functools.lru_cache(maxsize=1)
def flag_words() -> frozenset[str]:
    """The words SGLang's flag names are made of ("decode", "backend", "cache")."""
    return frozenset(word for flag in sglang_flags() for word in flag.strip("-").split("-") if len(word) > 2)


def is_value(flag: str, value: str) -> bool:
    """ "--attention-backend triton" yes, "--attention-backend the" no: SGLang's own choices and types."""
    known = sglang_flags().get(flag, NO_FLAG)
    if known.choices:
        return value in known.choices
    if known.kind == "int":  # "32.768" for a length is a German "32768" or a typo: never read as either
        return bool(re.fullmatch(r"-?\d+[kKmM]?", value))  # -1: "off" for some; "32k" is 32768
    if known.kind in ("float", "human_readable_int"):
        return bool(re.fullmatch(r"-?\d+(?:\.\d+)?[kKmM]?|\d*\.\d+", value))
    return value.lower() not in NOT_VALUES


def takes_a_number(flag: str) -> bool:
    """ "--mem-fraction-static" yes, "--attention-backend" no: whether "drop it" may mean "lower it"."""
    known = sglang_flags().get(flag, NO_FLAG)
    return not known.choices and known.kind in ("int", "float", "human_readable_int")


NOT_VALUES = frozenset(
    {"the", "a", "an", "it", "that", "this", "flag", "override", "setting", "backend", "value", "too"}
)


def flag_named(words: str) -> str | None:
    """ "max running requests" -> "--max-running-requests" when SGLang has that flag."""
    name = "--" + re.sub(r"[\s_]+", "-", re.sub(r"^the\s+", "", words.strip().lower()))
    if not re.fullmatch(r"--[a-z0-9][a-z0-9-]*", name):
        return None
    if name in sglang_flags():
        return name
    # "max running 64": two words or more that start exactly one flag's words, as "--mem-frac" does;
    # only a flag set to a value ("no decode" is no switch) and never a layout ("data parallel 2" is DP 2)
    longer = [flag for flag in sglang_flags() if flag.startswith(name + "-")] if name.count("-") >= 3 else []
    if len(longer) != 1 or not sglang_flags()[longer[0]].takes_value or longer[0].endswith("-parallel-size"):
        return None
    return longer[0]
