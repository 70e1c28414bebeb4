"""Material an operator pastes into a message (a colleague's flags, a config, a log line) and what their own
words take of it. Words that take part of it ("take the attention backend bit, ignore the rest", "keep the
0.83 mem fraction", "we don't need the second one") leave the message unread: which part they mean is a
reading the grammar does not make, so it is asked about, never guessed; read whole, the paste would put
in force what the operator just said to leave out."""

from __future__ import annotations

import re

from agent.hearing.checklist import UNCLEAR

# code in backticks, a quote (never an apostrophe: "Bogdan's", "don't"), or a config's "key: value" line
_PASTE = re.compile(
    r"`[^`]*`|(?<!\w)'[^'\n]+'(?!\w)|(?<!\w)\"[^\"\n]+\"|^[ \t]*-?[ \t]*[a-z][\w.-]*[ \t]*:[ \t]*\S+[ \t]*$", re.M
)
# a flag, a variable given a value, or a config key given one ("chunked_prefill_size: 4096", "tp_size=8")
_SETTING = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*|\b[A-Z][A-Z0-9_]{2,}=|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\s*[:=]\s*\S")
_PART = re.compile(
    r"\b(?:ignore\s+the\s+rest|the\s+rest\s+(?:is|can|goes|stays)|most\s+of\s+it|(?:just|only)\s+(?:take|keep|use)\s+the|"
    r"(?:keep|take)\s+(?:only\s+|just\s+)?the\s+[\w.-]+|the\s+[\w-]+(?:\s+[\w-]+)?\s+(?:bit|part|piece)|"
    r"(?:don'?t|do\s+not)\s+need\s+the\s+(?:first|second|third|last|other)|all\s+but\s+the|except\s+(?:for\s+)?the|"
    r"minus\s+the)\b",
    re.I,
)


def part_of_a_paste(text: str) -> bool:
    """Whether the message pastes two settings or more and its own words take only some of them, or pastes a
    checklist that cannot be placed (`agent.hearing.checklist`)."""
    if text.startswith(UNCLEAR):
        return True
    pastes = [found.group(0) for found in _PASTE.finditer(text)]
    if sum(len(_SETTING.findall(paste)) for paste in pastes) < 2:
        return False
    own = _PASTE.sub(" ", text)
    return _PART.search(own) is not None
