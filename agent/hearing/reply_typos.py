"""Slips in a reply's words ("contineu", "aprove"): read as the one reply word each is a slip of, and said
back; rapidfuzz is loaded only when a word may be one."""

from __future__ import annotations

import re

# words of their own that a reply may start with, never fixed to the reply word they look like ("exit" is no "edit")
_WORDS_OF_THEIR_OWN = frozenset({"exit", "quit", "done", "cont", "deploy"})


def typo_read(text: str) -> tuple[str, str | None]:
    """ "contineu" -> ("continue", "read 'contineu' as continue"): a reply's first word that is a slip of
    exactly one reply verb is read as that verb, and the reading is said back; otherwise `text` as is."""
    from agent.hearing.shorthand import VERBS, fix_word  # rapidfuzz: loaded only for a word that may be a typo

    first = re.match(r"[A-Za-z]+", text.strip())
    if first is not None and first.group(0).lower() in _WORDS_OF_THEIR_OWN:
        return text, None  # "exit 1 -- stop everything": a word of its own, never a slip of "edit"
    fixed = fix_word(first.group(0), VERBS) if first is not None else None
    if first is None or fixed is None:
        return text, None
    return fixed + text.strip()[first.end() :], f"read '{first.group(0)}' as {fixed}"


def fixed(text: str) -> tuple[str, list[str]]:
    """A reply not read, each word one slip from one reply word fixed, with notes of what was read as what."""
    from agent.hearing.shorthand import REPLY_WORDS, fix_typos  # rapidfuzz: loaded only for a reply not read

    if _WORDS_OF_THEIR_OWN & set(re.findall(r"[a-z]+", text.lower())):
        return text, []  # "exit 1 -- stop everything": "exit" is no slip of "edit"
    return fix_typos(text, REPLY_WORDS)


def verb_typo(word: str) -> str | None:
    """The one reply verb `word` is a slip of, or None."""
    from agent.hearing.shorthand import verb_typo as nearest  # rapidfuzz: loaded only for a word that may be a typo

    return nearest(word)
