"""A Scottish or Irish operator's chat as its English, before a reply or an instruction is read: the
negations ("dinnae touch gpu 0", "cannae", "gonnae no use torch compile", "it's no doin us any favours",
"nae cuda graphs"), the short words ("tae", "aff", "fae", "yin", "gie", "ye", "yer"), the yes and no ("aye",
"naw", "aye right" said as a no), and the sayings ("give it a lash", "go on so", "pack the whole run in",
"away and restart it"). Only a message with a word no English sentence has is read so; what is left is read
by the grammar as any message is, so a word this table lacks stays unread."""

from __future__ import annotations

import re

from agent.hearing import word_table

_SCOTS: list[tuple[str, word_table.Replacement]] = [
    # the negations first: "gonnae no" is "please don't", "no" before a verb's -ing is "not"
    (r"\bgonnae\s+no\b", "don't"), (r"\bdinnae\b", "don't"), (r"\bcannae\b", "can't"), (r"\bwouldnae\b", "wouldn't"),
    (r"\bdidnae\b", "didn't"), (r"\bisnae\b", "isn't"), (r"\bwillnae\b", "won't"), (r"\bshouldnae\b", "shouldn't"),
    (r"\bnae\b", "no"), (r"\bno\s+yet\b", "not yet"),
    (r"((?:'s|'ll|\bis|\bwill))\s+no\b(?=\s+\w+(?:in|d)\b)", r"\1 not"),  # "it's no doin us any favours"
    (r"^\s*aye\s+right\b", "no"),  # a sarcastic no
    (r"^\s*naw\b", "no"), (r"\bnaw\b", "no"), (r"^\s*aye\b", "yes"), (r"\baye\b", "yes"),
    (r"^\s*(?:go\s+on\s+so|sound|grand(?:\s+so)?)(?=[\s,.!]*$)", "go ahead"),
    (r"^\s*(?:sound|grand(?:\s+so)?)\b,?", "ok,"),
    (r"^\s*give\s+it\s+a\s+lash\b", "do it"), (r"\bgive\s+(?:it|her)\s+a\s+lash\b", "relaunch it"),
    (r"\bgive\s+the\s+(bench(?:mark)?)\s+another\s+lash\b", r"run the \1 again"),
    (r"^\s*leave\s+it\s+be\b", "no, skip it"),
    (r"\bpack\s+the\s+(?:whole\s+)?run\s+in\b", "stop the whole run"), (r"\bsign\s+her\s+off\b", "sign it off"),
    (r"\bbanjaxed\b", "broken"),
    (r"\baway\s+and\s+(?=restart|relaunch|stop|kill|run)", ""),
    (r"\bstick\s+it\s+on\s+(?:port\s+)?(?=\d{4,5}\b)", "use port "),
    (r"\bthe\s+(first|second|third|last)\s+yin\b", r"the \1 one"), (r"\byin\b", "one"),
    (r"\btae\b", "to"), (r"\baff\b", "off"), (r"\bfae\b", "from"), (r"\boot\b", "out"), (r"\bdoon\b", "down"),
    (r"\bwi\b", "with"), (r"\bgie\b", "give"), (r"\bthon\b", "that"), (r"\byer\s+man\b", "someone"),
    (r"\byer\b", "your"), (r"\bye\b", "you"), (r"\bwee\s+", ""), (r"[\s,]*\bpal\b", ""),
    # the g a Scot drops: "runnin requests", "it's fallin over"
    (r"\b(runn|train|do|fall|morn|go|anyth|someth|noth|load|warm|hold|sitt)in\b", r"\1ing"),
]  # fmt: skip
_WORDS = word_table.compiled(_SCOTS)
_MARK = re.compile(
    r"\b(?:dinnae|cannae|wouldnae|didnae|isnae|willnae|shouldnae|gonnae|tae|aff|fae|naw|aye|yin|gie|thon|banjaxed|"
    r"yer|lash|nae|runnin|fallin|doin|trainin|mornin|anythin|no\s+yet|leave\s+it\s+be|go\s+on\s+so|sign\s+her\s+off|"
    r"pack\s+the\s+(?:whole\s+)?run\s+in)\b|^\s*sound\b",
    re.I,
)


def in_english(text: str) -> str:
    """`text` with a Scottish or Irish operator's words put in plain English; any other message as it was."""
    return word_table.in_english_when(text, _MARK, _WORDS)
