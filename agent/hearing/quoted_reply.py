"""An answer written email-style under quoted lines ("> Shall I bump --mem-fraction-static to 0.9?\\nno,
0.85", "> ... --enable-torch-compile\\nno, drop that"): the operator's own lines say what to do with the
one setting the quote right above them names. "that", "it" or a bare value is put as that setting, so
the words are read as if the operator had named it; a quote naming no setting, or two, resolves nothing
(then the words are read, or asked about, as they stand). The quote itself is never taken: only what
the operator's own lines do to it."""

from __future__ import annotations

import re

from agent.hearing import flag_vocabulary, reply_picks
from agent.state import Question, Reply

_QUOTED = re.compile(r"^\s*>")
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]+)(?:[ =]+(?!--)([^\s,;`)]+))?")
_ENV = re.compile(r"(?<![\w-])(?-i:([A-Z][A-Z0-9_]{2,}))=\S+")

# "no, drop that", "unset that", "lose it", "take that out": the quoted setting removed
_REMOVED = re.compile(
    r"^(?:(?:no|nope|nah)\b[\s,.!]*)?(?:pls\s+|please\s+)?(?:(?:drop|remove|unset|lose|ditch|get\s+rid\s+of|"
    r"(?:don'?t|do\s+not|never)\s+(?:use|add|set|pass))\s+(?:that|it|this)(?:\s+one)?|"
    r"take\s+(?:that|it|this)(?:\s+one)?\s+out)\b(?P<rest>.*)$",
    re.I | re.S,
)
# "no, 0.85", "way too high. 0.88", "drop to 4096", "64. higher and we start preempting": a new value
_VALUE = re.compile(
    r"^(?:(?:no|nope|nah)\b[\s,.!]*)?(?:(?:way\s+|much\s+|a\s+bit\s+)?too\s+(?:high|low|big|small|much)\b[\s,.!]*)?"
    r"(?:(?:drop|lower|bump|raise|reduce|increase|set|change|go|put)\s+(?:it\s+)?(?:down\s+|up\s+|back\s+)?to\s+|"
    r"make\s+it\s+|use\s+)?(?P<value>\d+(?:\.\d+)?|\.\d+|[a-z][a-z0-9_]*)(?=$|[\s.,;!])(?P<rest>.*)$",
    re.I | re.S,
)


def _setting_named(quote: str) -> tuple[str, str] | None:
    """("flag", "--x") or ("env", "NAME"): the one setting a quote names, or None for none or more."""
    flags = {flag for flag, _ in _FLAG.findall(quote) if flag_vocabulary.known_flag(flag)}
    names = set(_ENV.findall(quote))
    if len(flags) + len(names) != 1:
        return None
    return ("flag", flags.pop()) if flags else ("env", names.pop())


def _resolved(own: str, setting: tuple[str, str]) -> str | None:
    kind, name = setting
    if (removed := _REMOVED.match(own)) is not None:
        rest = removed.group("rest").strip(" ,.;!")
        said = f"unset {name}" if kind == "env" else f"don't use {name}"
        return f"{said}; {rest}" if rest else said
    found = _VALUE.match(own)
    if kind != "flag" or found is None or not flag_vocabulary.needs_a_value(name):
        return None
    value = found.group("value")
    if not flag_vocabulary.is_value(name, value) or (not value[0].isdigit() and value.lower() in ("no", "yes")):
        return None  # "no, that's fine", "64 is what we had": nothing the flag takes
    rest = found.group("rest").strip(" ,.;!")
    return f"{name} {value}; {rest}" if rest else f"{name} {value}"


def resolved(text: str) -> str | None:
    """The operator's own lines, each block put as what it does to the setting quoted right above it;
    None when the message has no quote, or no block of the operator's resolves against its quote."""
    blocks: list[tuple[str, str]] = []  # (quote above, own words)
    quote: list[str] = []
    own: list[str] = []
    for line in text.split("\n"):
        if _QUOTED.match(line):
            if own:
                blocks.append(("\n".join(quote), " ".join(own)))
                quote, own = [], []
            quote.append(line.lstrip()[1:])
        elif line.strip():
            own.append(line.strip())
    if own:
        blocks.append(("\n".join(quote), " ".join(own)))
    said: list[str] = []
    for quoted, words in blocks:
        # the quoted line right above the words first ("> with --tp-size 8\n> --mem-fraction-static 0.92\n0.85")
        setting = (_setting_named(quoted.split("\n")[-1]) or _setting_named(quoted)) if quoted else None
        put = _resolved(words, setting) if setting is not None else None
        said.append(put if put is not None else words)
    return "; ".join(said) if said != [words for _, words in blocks] else None


# "this one", "yes, that", "do this": the quoted step taken
_THIS_ONE = re.compile(
    r"^(?:(?:yes|yeah|yep|ok(?:ay)?|sure)[\s,.!]*)?(?:(?:do|run|take|go\s+with)\s+)?(?:this|that)(?:\s+one)?"
    r"(?:\s+(?:please|pls|plz|first))?[\s.!]*$",
    re.I,
)


def quoted_step(text: str, question: Question) -> int | None:
    """ "> 2) list the GPUs (nvidia-smi -L)\nthis one": the one numbered step the quote names, by its number
    and its command, taken by "this one"; None for any other message."""
    lines = [line for line in text.split("\n") if line.strip()]
    quoted = " ".join(line.lstrip()[1:] for line in lines if _QUOTED.match(line))
    own = " ".join(line.strip() for line in lines if not _QUOTED.match(line))
    if not quoted or not _THIS_ONE.match(own):
        return None
    said = " ".join(quoted.replace("`", " ").split())
    named = [
        o.number
        for o in question.options
        if o.action is not None
        and (command := reply_picks.command_of(o.action))
        and re.search(rf"(?<!\d){o.number}\)", quoted)
        and command in said
    ]
    return named[0] if len(named) == 1 else None


def picked(text: str, question: Question, who: str, at: float) -> Reply | None:
    """The pick of the one step a quote names ("> 2) list the GPUs (nvidia-smi -L)\nthis one"), or None."""
    number = quoted_step(text, question)
    if number is None:
        return None
    return Reply(kind="pick", pick=number, text=f"step {number}", question_id=question.id, who=who, at=at)
