"""An incident channel's habits, before a reply or an instruction is read: a role's label ("IC:", "IC here."),
a UTC time stamp ("14:02Z"), a scribe's line for the log ("scribe: noting tp 8 failed"), which orders
nothing, a message to a teammate and then to the agent ("@priya can you free gpu 5? @opsagent meanwhile keep
off 5": only the agent's part is its), and the channel's words ("ACK", "NO-GO", "hands off", "roll back to",
"pin to port", "pulling the plug")."""

from __future__ import annotations

import re

from agent.hearing import word_table

# the agent named in a channel; whatever follows it, up to another name, is said to it
_TO_ME = re.compile(r"@(?:opsagent|ops-agent|agent)\b[:,]?\s*", re.I)
_TO_SOMEONE = re.compile(r"@[\w.-]+")

_WORDS = word_table.compiled(
    [
        (r"(?m)^\s*(?:IC|incident\s+commander)\s*(?::|here\b[.,!]?)\s*", ""),
        (r"\s*,?\s*(?:@\s*)?\b\d{1,2}:\d{2}(?::\d{2})?\s*Z\b", ""),  # "14:02Z": when it was said, no order
        # a scribe's line is a note for the log; it names what failed, never what to do
        (r"(?im)^\s*scribe\s*:[^\n]*", "(a note for the incident log)"),
        (r"^ack(?:nowledged)?\b[.,!]?", "ok."),
        (r"(?-i:\bAND\b)", "and"),  # "hands off 0-3 AND 7": shouted
        (r"^no[-\s]?go\b(?:\s+on\s+(?:the\s+)?(?:sign[-\s]?off|that|this|it))?", "no"),
        (r"\b(?:keep\s+)?(?:your\s+)?hands\s+off\s+(?:of\s+)?(?=\d)", "don't touch gpus "),
        (r"\b(?:keep\s+)?(?:your\s+)?hands\s+off\s+(?:of\s+)?(?=(?:the\s+)?gpus?\b)", "don't touch "),
        (r"\broll\s*back\s+to\s+(?=tp|dp|port|gpus?\b|--|/)", "use "),
        (r"\bpin\s+(?:it\s+|the\s+server\s+)?to\s+(?=port\s+\d)", "use "),
        (r"\bwe'?re\s+pulling\s+the\s+plug(?:\s+on\s+(?:this|the)\s+(?:effort|run|thing|work))?", "stop the whole run"),
    ]
)


def plain(text: str) -> str:
    """`text` with an incident channel's habits put in plain words; any other message as it was."""
    mentions = list(_TO_ME.finditer(text))
    if mentions:
        said = text[mentions[-1].end() :]
        other = _TO_SOMEONE.search(said)
        text = said[: other.start()] if other is not None else said  # "@priya ... @opsagent X": only X is mine
    return word_table.in_english(text, _WORDS)
