"""When an instruction holds, as operators say it: "tonight only: run on 4,5,6,7", "from now on keep
NCCL_DEBUG=INFO", "after the bench, use port 30010", "for the next launch". A rule holds from the
next launch until the operator lifts it, which is what these words ask, so they are dropped before
the grammar reads the rest. A setting for a later time the run cannot hold ("tp 4 now, tp 8 after
6pm", "tomorrow use 0-3") is never dropped: it stays unread, and nothing beside it is taken; nor is a
bare "tonight" ("use GPU 3 tonight": maybe later tonight), only "tonight only" and a "tonight:" heading."""

from __future__ import annotations

import re

# said first: "tonight only:", "from now on,", "after the bench finishes", "after this run"
_FIRST = re.compile(
    r"^(?:(?:for\s+)?(?:tonight|today)\s+only|(?:tonight|today)(?=\s*:)|from\s+(?:now|here)\s+on|going\s+forward|for\s+the\s+next\s+launch|"
    r"for\s+the\s+rest\s+of\s+the\s+run|after\s+that|afterwards|after\s+(?:the\s+)?(?:bench(?:mark)?|this\s+(?:run|one|launch|bench))"
    r"(?:\s+(?:finishes|is\s+done|completes|ends|is\s+over))?|until\s+(?:the\s+)?[\w'-]+(?:\s+[\w'-]+)?\s+"
    r"(?:is|are)\s+(?:done|finished|over)|once\s+(?:it'?s|it\s+is)\s+(?:down|stopped))\s*[:,]?\s+(?=\S)",
    re.I | re.M,
)
# said last: "... for the next launch", "... from now on", "... for all runs from now on", "... next time"
_LAST = re.compile(
    r",?\s+(?:(?:for|on|before|in|from)\s+(?:the\s+)?next\s+launch|(?<!the\s)next\s+launch|(?:for\s+)?next\s+time|for\s+now|"
    r"for\s+the\s+(?:moment|time\s+being)|from\s+(?:now|here)\s+on|for\s+all\s+(?:the\s+)?(?:runs?|launches)(?:\s+from\s+now\s+on)?|on\s+every\s+launch|"
    r"this\s+time|(?:for\s+)?tonight\s+only)(?P<pause>\s*,(?=\s))?(?(pause)|(?=\s*(?:[.;!]|$)))",
    re.I | re.M,
)
# a reply's "for tonight" after a stop, "till the morning" after a go-on (never "that's it for today": whose "it"?)
_REPLY_LAST = re.compile(
    r"(?:(?<=\beverything)|(?<=\ball)|(?<=\bdone))\s+for\s+(?:tonight|today)\b|"  # never "stop for today": the run's
    r"(?:(?<=\bgoing)|(?<=\bown))\s+(?:till|until)\s+(?:the\s+)?morning\b",
    re.I,
)
# a time after the next launch: a clock, a day, a wait ("after 6pm", "tomorrow", "in 10 min", "at 18:00")
_LATER = re.compile(
    r"\b(?:after|from|at|by|until|till)\s+\d{1,2}(?::\d\d)?\s*(?:am|pm|h)?\b|\b\d{1,2}(?::\d\d)?\s*(?:am|pm)\b|"
    r"\btomorrow\b|\b(?:in|t\s*\+)\s*\d+\s*(?:min(?:ute)?s?|h(?:ou)?rs?)\b|\blater\s+(?:on|today|tonight)\b|\bafter\s+lunch\b",
    re.I,
)
# a setting and its time, nothing else: "tp 8 after 6pm", never "port 30000 must be free in 5 minutes" (a deadline)
_SETTING = re.compile(
    r"(?:(?:use|serve\s+on|set|switch\s+to|then)\s+)?(?:(?:tp|dp|port|gpus?)\s*\d[\d\s,-]*|--[a-z][\w-]*(?:\s+\S+)?|"
    r"[A-Z][A-Z0-9_]{2,}=\S+)",
    re.I,
)


def plain(text: str) -> str:
    """`text` without the words that say an instruction holds from the next launch on (a pause after them
    kept as a clause's end: "serve on 30001 from now on, 30000 keeps colliding")."""
    return _LAST.sub(_clause_end, _FIRST.sub("", text))


def _clause_end(said: re.Match[str]) -> str:
    """What stands in place of the dropped words: nothing, or the pause after them, a ";" before a number
    ("serve on 30001 from now on, 30000 keeps colliding") where a comma would join the two."""
    if not said.group("pause"):
        return ""
    return ";" if re.match(r"\s*\d", said.string[said.end() :]) else ","


def reply_plain(text: str) -> str:
    """A reply without "for tonight" after a stop, or "till the morning" after a go-on."""
    return _REPLY_LAST.sub("", text)


def later_setting(missed: list[str]) -> str | None:
    """An unread clause that names a setting for a later time ("tp 8 after 6pm"), or None."""
    timed = (m for m in missed if _LATER.search(m) and _SETTING.fullmatch(_LATER.sub("", m).strip(" ,.")))
    return next((f"'{m}'" for m in timed), None)
