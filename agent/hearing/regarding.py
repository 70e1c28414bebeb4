"""A message that names what it answers before answering it, as an email reply does: "re the port: 30001",
"wrt torch compile: never", "your earlier question about cuda graphs - turn them off", "re your 14:02
question: yes". The words after the topic are what to do; a bare verdict or value, or a pronoun, is put
with the topic it answers. An answer to another question than the one asked now ("re your 14:02 question:
yes") is no answer to this one: its yes or no is never taken."""

from __future__ import annotations

import re

_PREFIX = re.compile(
    r"^\s*(?:(?:re\s*:|re\b|wrt\b|w\.r\.t\.?|regarding\b|as\s+(?:for|to|regards)\b|to(?=\s+your\b))\s*"
    r"(?:your\s+(?:point|question|note|comment|proposal|plan|suggestion|message|remark)\s+(?:about|on|re|regarding|to)\s+)?"
    r"|(?:to\s+)?your\s+(?:earlier\s+|previous\s+|last\s+)?(?:point|question|note|proposal)\s+(?:about|on|re)\s+)"
    r"(?P<topic>(?:[^:\n—–]|(?<=\d):(?=\d))+?)\s*(?:(?<!\d):|:(?!\d)|\s[-—–]\s|\n)\s*(?P<rest>\S.*)$",
    re.I | re.S,
)
# a question named by its time or its place among others: not the one asked now
_OTHER_QUESTION = re.compile(
    r"\b(?:\d{1,2}[:.]\d{2}|earlier|previous|last|first|second|third|other|older|old)\s+question\b|"
    r"\bquestion\s+(?:at|from)\s+\d{1,2}[:.]\d{2}\b|\b(?:mentioned|asked|said)\s+(?:at|around)\s+\d{1,2}[:.]\d{2}\b",
    re.I,
)
_VERDICT_NO = re.compile(r"^(?:never|no|nope|off|disabled?|none|kill\s+it)\b[\s.!,]*(?P<tail>.*)$", re.I | re.S)
_BARE_VALUE = re.compile(
    r"^(?P<value>\.?\d[\d.]*|fp8\w*|[a-z]+_[a-z0-9_]+)[\s.!]*(?P<tail>(?:[,;.]\s.*)?)$", re.I | re.S
)
_PRONOUN = re.compile(r"\b(?:it|them|that|this)\b", re.I)
# what a topic may be put with: a setting's name, never a story ("the OOM you mentioned")
_A_SETTING = re.compile(
    r"^(?:the\s+)?(?:--[a-z][\w-]*(?:\s+flag)?|port|ports|tp|dp|layout|model|torch\s+compile|cuda\s+graphs?|radix(?:\s+cache)?|"
    r"mem(?:ory)?\s+frac(?:tion)?|kv\s+cache(?:\s+dtype)?|chunked\s+prefill(?:\s+size)?|max\s+running\s+requests|"
    r"context\s+length|attention\s+backend|[A-Z][A-Z0-9]*_[A-Z0-9_]+)$",
    re.I,
)


def split(text: str) -> tuple[str, str] | None:
    """(the topic, the words that answer it), or None for a message that names no topic first."""
    match = _PREFIX.match(text)
    if match is None:
        return None
    return match.group("topic").strip(), match.group("rest").strip()


def another_question(text: str) -> bool:
    """ "re your 14:02 question: yes", "to your second question: no": the answer is to another question."""
    said = split(text)
    return said is not None and _OTHER_QUESTION.search(said[0]) is not None


def plain(text: str) -> str:
    """The words that answer the topic, put with it where they need it ("wrt torch compile: never" -> "never use
    torch compile", "re the port: 30001" -> "port 30001"), on each line that names one; any other as it was."""
    return "\n".join(_plain_line(line) for line in text.split("\n"))


def _plain_line(text: str) -> str:
    said = split(text)
    if said is None:
        return text
    topic, rest = said
    topic = re.sub(r"^the\s+", "", re.sub(r"\s+(?:flag|thing|setting)(?:\s+you\s+\w+)?$", "", topic, flags=re.I))
    if not _A_SETTING.match(topic):
        return rest  # "re the OOM you mentioned at 13:55: mem fraction 0.8": the words after it, alone
    if (no := _VERDICT_NO.match(rest)) is not None:
        return f"never use {topic}" + (f". {no.group('tail')}" if no.group("tail") else "")
    if (value := _BARE_VALUE.match(rest)) is not None:
        return f"{topic} {value.group('value')}{value.group('tail')}"
    return _PRONOUN.sub(topic, rest, count=1) if _PRONOUN.search(rest) else rest
