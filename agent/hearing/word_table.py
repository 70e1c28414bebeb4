"""A table of another language's words and their English, read over a message: the one way every
language module here puts a message in English before the grammar reads it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

Replacement = str | Callable[[re.Match[str]], str]


def compiled(table: Sequence[tuple[str, Replacement]], flags: int = re.I) -> list[tuple[re.Pattern[str], Replacement]]:
    return [(re.compile(said, flags), english) for said, english in table]


def rewritten(text: str, forms: Sequence[tuple[re.Pattern[str], Replacement]]) -> str:
    """`text` with each form put as its plain words, in the table's order (longer phrases first)."""
    for said, english in forms:
        text = said.sub(english, text)
    return text


def in_english(text: str, words: Sequence[tuple[re.Pattern[str], Replacement]]) -> str:
    """`text` with each said word put in its English, spaces left by a dropped word taken out."""
    return re.sub(r"[ \t]{2,}", " ", rewritten(text, words)).strip()


def in_english_when(text: str, mark: re.Pattern[str], words: Sequence[tuple[re.Pattern[str], Replacement]]) -> str:
    """`in_english`, only for a message with a word no English sentence has (`mark`); any other as it was, so
    a table's loose words never touch a plain English message."""
    return in_english(text, words) if mark.search(text) else text
