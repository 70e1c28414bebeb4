"""A Singaporean operator's chat as its English, before a reply or an instruction is read: the particles
that end a clause ("tp 4 dp 2 lor", "no lah don't sign off", "already restart liao"), a request said as a
question ("use port 30001 can or not?"), and the topic said first with its verb after it ("30000 don't
use", "mem frac put 0.85", "tp2 dp4 try"). Only a message with a particle no English sentence has is read
so; what is left is read by the grammar as any message is, so a word this table lacks stays unread."""

from __future__ import annotations

import re

from agent.hearing import word_table

_PARTICLE = r"(?:lah|lor|leh|liao|meh|hor|sia|ah)"
# a setting's loose name said first ("mem frac put 0.85", "max running requests cap at 256")
_TOPIC = (
    r"(?P<topic>(?:mem(?:ory)?\s+frac(?:tion)?|max\s+running(?:\s+requests)?|chunked\s+prefill|context(?:\s+length)?|"
    r"port|tp|dp))"
)

_SINGLISH: list[tuple[str, word_table.Replacement]] = [
    # a request asked as a question: "use port 30001 can or not?", "tp 8 can?"
    # (never one a question follows: "fp8 kv cache can or not? accuracy will drop meh?" asks)
    (r"[\s,]*\bcan\s+or\s+not\b\s*\?(?![^?]*\?)", "."),
    (r"(?<=\d)\s+someone\s+using(?:\s+already)?\b", " is in use"),  # "30000 someone using already"
    (r"^\s*can(?:\s+(?:lah|lor|liao))?[\s!.]*$", "yes"),  # "can lah": a yes
    (r"^\s*(?:can|ok)\s+(?=sign\s+off\b)", ""),  # "can sign off, but ...": the sign-off, said first
    (r"\bdon'?t\s+anyhow\b", "don't"), (r"\banyhow\s+", ""),
    (r"\bwait\s+first\b", "hold on"), (r"\bgo\s+on\s+tuning\b", "keep going"),
    (r"\bwhole\s+run\s+cancel\b", "cancel the whole run"),
    # the particles, at a clause's end or before its pause ("tp 8 lah, one copy only")
    (rf"[\s,]*\b{_PARTICLE}\b(?=\s*(?:[,.;:!?]|$))", ""), (rf"^(\s*(?:no|ok|can))\s+{_PARTICLE}\b[\s,]*", r"\1 "),
    # the topic first, the verb after: "30000 don't use", "torch compile don't use"
    (r"^(?P<x>[^,.;]+?)\s+(?P<verb>don'?t\s+(?:use|touch|pass|set))(?=\s*(?:[,.;!]|$))", r"\g<verb> \g<x>"),
    (_TOPIC + r"\s+(?:put|cap\s+at|bump\s+to|set\s+to|change\s+to|go|make)\s+(?=\.?\d)", r"\g<topic> "),
    (r"^(?P<x>(?:tp|dp)\s*\d[^,.;]*?)\s+try\b", r"\g<x>"),  # "tp2 dp4 try": try that layout
    (r"\bone\s+copy\s+only\b", "single replica"),
    (r"\bstop\s+the\s+server\s+after\b", "stop the server"),  # "sign off, but stop the server after"
]  # fmt: skip
_WORDS = word_table.compiled(_SINGLISH)
# "ah" only where Singlish puts it, ending a clause after a word ("serve on 30002 ah"), never "ah ok"
_MARK = re.compile(
    r"\b(?:lah|lor|leh|liao|meh|hor|sia|can\s+or\s+not|anyhow)\b|(?<=\w\s)ah\b(?=\s*(?:[,.;!?]|$))", re.I
)


def in_english(text: str) -> str:
    """`text` with a Singaporean operator's particles and word order put in plain English; any other message
    as it was."""
    return word_table.in_english_when(text, _MARK, _WORDS)
