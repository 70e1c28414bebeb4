"""Quoted words the operator takes up: docs, a README, a ticket or a teammate quoted, then "do that", "add
it", "switch to that model". The setting is someone else's words until the operator says it, so it is
never taken: the one setting the quote names is asked back, quoting where it came from. A quote that
names no setting, or more than one, or words after it that do not take it up plainly, are left as they
are (read or not understood as before)."""

from __future__ import annotations

import re
from collections.abc import Callable

_QUOTED = re.compile(r"\"([^\"\n]{3,400})\"")
# the operator's own last words, taking the quoted setting up: "so yeah, lets do that", "add it", "set it"
_TAKEN_UP = re.compile(
    r"(?:^|[.;,!:\n\"])\s*(?:(?:so\s+)?(?:yeah|yes|ok(?:ay)?|agreed|fine)[\s,]+)?(?:(?:let'?s|lets|pls|please|just)\s+)?"
    r"(?:do|add|set|use|apply|go\s+with|switch\s+to|take)\s+(?:it|that|this)"
    r"(?:\s+(?:one|path|model|flag|setting|value|too|then|pls|please))*(?:\s+for\s+the\s+model)?[\s.!]*$",
    re.I,
)
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]+)(?:[ =]+(?!--)([\w.:/-]+))?", re.I)
_ENV = re.compile(r"(?<![\w-])((?-i:[A-Z][A-Z0-9]*_[A-Z0-9_]+)=[\w.:/-]+)")
_PATH = re.compile(r"(?<![\w/])(/[\w.@+-]+(?:/[\w.@+-]+)+)")
_HUB_ID = re.compile(r"(?<![\w/.-])([A-Za-z0-9][\w.-]*/[\w.-]*[A-Za-z][\w.-]*)(?![\w/])")
# the operator's own words refusing what they quoted: "not for us", "but don't", "skip that"
_REFUSED = re.compile(
    r"\bnot\s+(?:for\s+us|needed|now|here|this|that|on\s+this)\b|\b(?:don'?t|dont|never|nope|skip|instead|rather)\b|"
    r"\bno\s+(?:thanks|way|need)\b|^\W*(?:no|nah)\s*(?:[,.!;]|$)|\bbut\b",
    re.I,
)


def _settings(quoted: str, reads: Callable[[str], bool]) -> list[str]:
    """The settings quoted words name, each as the grammar reads it: a flag with its value where the
    value reads, else the flag alone; a variable set; a model path or hub id."""
    found: list[str] = []
    for flag, value in _FLAG.findall(quoted):
        with_value = f"{flag} {value}".strip()
        found.append(with_value if value and reads(with_value) else flag)
    found += _ENV.findall(quoted)
    found += [f"use the model {path}" for path in _PATH.findall(quoted)]
    found += [f"use {hub}" for hub in _HUB_ID.findall(_PATH.sub(" ", quoted)) if not hub.startswith("-")]
    return found


def refused(text: str, reads_some: Callable[[str], bool]) -> bool:
    """Whether the operator's own words after a quote refuse it ('docs: "use tp 8". not for us'), and say
    nothing to do instead (never 'Lee said "256" but use 128')."""
    if not _QUOTED.search(text):
        return False
    after = _QUOTED.split(text)[-1]
    return _REFUSED.search(after) is not None and not reads_some(after)


def taken_up(text: str, reads: Callable[[str], bool]) -> tuple[str, str] | None:
    """(the setting, the quoted words) when `text` quotes words naming exactly one setting and the
    operator's own last words take it up; None otherwise."""
    quotes = _QUOTED.findall(text)
    last = _QUOTED.split(text)[-1] if quotes else ""
    if len(quotes) != 1 or not _TAKEN_UP.search(last) or _REFUSED.search(last):
        return None
    settings = _settings(quotes[0], reads)
    if len(settings) != 1:
        return None
    return settings[0], quotes[0]
