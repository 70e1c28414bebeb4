"""A reference back to earlier in the run, said beside the value it refers to: "gpus 0-3 again", "same port
as the first launch. 30000", "back to --mem-fraction-static 0.85 like before", "the other gpus this time,
4-7". The value is said, so the reference adds nothing and is dropped. A reference with no value beside
it ("same port as last time") is never dropped: it stays unread, and is asked about."""

from __future__ import annotations

import re

from agent.hearing import word_table

_EARLIER = (
    r"(?:the\s+)?(?:very\s+)?(?:first|last|previous|earlier|original|other)\s+(?:launch|run|try|attempt|time|one)"
)
_VALUE = r"(?=--[a-z]|(?:gpus?\s+|ports?\s+)?\d|/?[\w.-]+/[\w.-]+|(?:tp|dp)\s*\d|(?:the\s+)?triton|flashinfer|fa3)"


def _after_a_value(found: re.Match[str]) -> str:
    """ "0.85 like before", "triton attn like the first try", "0-3 again": dropped right after a value said;
    else kept."""
    before = found.string[: found.start()]
    if re.search(r"\b(?:can|may|could|allowed\s+to)\b", before, re.I):
        return found.group(0)  # "you can use gpu 3 again": a rule lifted, never the GPU to use
    return (
        "" if re.search(r"(?:\d|triton|flashinfer|fa3|attn|backend|[\w.-]/[\w.-]+)$", before, re.I) else found.group(0)
    )


_SAID_AS = {"port": "port ", "model": "use the model ", "gpus": "use gpus ", "backend": "use "}
_FORMS: list[tuple[str, word_table.Replacement]] = [
    # "same port as the first launch. 30000", "same model as the very first launch - org/x - and tp 8"
    (
        rf"\bsame\s+(port|model|gpus|backend)\s+as\s+(?:before|{_EARLIER})\s*(?:[.:,]|\s[-—–])\s*{_VALUE}",
        lambda m: _SAID_AS[m.group(1).lower()],
    ),
    (r"(?<=[\w.-]/[\w.-])(\S*)\s+[-—–]\s+and\s+", r"\1, "),  # "- org/x - and tp 8": the aside's closing dash
    # "back to X like before", "go back to triton attn like the first try", "back on 4,5,6,7"
    (rf"(?:^|(?<=[,.;:]\s))(?:go\s+)?back\s+(?:to|on)\s+{_VALUE}", "use "),  # never "ctx len back to 32768"
    # never "same port as last time": the value itself is not said
    (rf"(?<=\w)(?<!port)(?<!model)(?<!gpus)(?<!from)\s+(?:like|as)\s+(?:before|last\s+time|{_EARLIER})\b",
     _after_a_value),
    # "the other gpus this time, 4-7": which are the other ones, said
    (r"^the\s+other\s+(?:gpus|cards)(?:\s+this\s+time)?\s*[,:—–-]\s*(?=\d)", "use gpus "),
    # "gpus 0-3 again", "port 30000 again", "option 1 again"
    (r"(?<=\d)\s+again\b", _after_a_value),  # never "you can use gpu 3 again": a rule lifted
    (r"\s+entirely\b", ""),
    # "30001 is someone elses job now": a port another's work holds
    (r"\b(\d{4,5})\s+is\s+(?:someone\s+else'?s|someone\s+elses|another\s+team'?s|the\s+other\s+team'?s)(?:\s+job)?(?:\s+now)?\b",
     r"port \1 is in use"),
]  # fmt: skip
_COMPILED = word_table.compiled(_FORMS)
# a reply's "go ahead, same as you did before": how, not what
_SAME_AS_BEFORE = re.compile(
    r"^((?:go\s+ahead|ok(?:ay)?|yes|sure)\b[^,]*),\s+(?:the\s+)?same\s+as\s+(?:you\s+did\s+)?before[.!]*$", re.I
)


def plain(text: str) -> str:
    """An instruction without references back that the value beside them makes needless."""
    for said, replacement in _COMPILED:
        text = said.sub(replacement, text)
    return text


def reply_plain(text: str) -> str:
    """A reply without "same as before" after its go-ahead (its instructions are read through `plain`)."""
    return _SAME_AS_BEFORE.sub(r"\1", text)
