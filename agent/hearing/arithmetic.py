"""A setting changed relative to a value the message itself states ("chunked prefill is at 8192, halve
it", "we're on tp 2. double the tp", "mem frac is .85 right now. +0.05 on it", "max running reqs 256 ->
drop to half that", "chunked prefill 2x from 4096", "go from 30000 to the next port up"): worked out, and
only ever asked back, never taken (`worked_out`). With no value stated ("halve the chunked prefill") the
words stay unread: the run's own launch may differ from what the writer has in mind."""

from __future__ import annotations

import re

_NAME = (
    r"mem(?:ory)?\s+frac(?:tion)?(?:\s+static)?|mem|chunked\s+prefill(?:\s+size)?|prefill\s+chunk|"
    r"max\s+running\s+req(?:uest)?s|cuda\s+graph\s+max\s+bs|context(?:\s+length)?|ctx|tp|dp"
)
_VALUE = r"\.?\d[\d.]*"
# the value stated: "chunked prefill is at 8192", "we're on tp 2", "currently tp 4", "max running reqs 256"
_STATED = re.compile(
    rf"\b(?P<name>{_NAME})\s+(?:is\s+|'s\s+)?(?:at\s+|on\s+|currently\s+)?(?P<value>{_VALUE})\b"
    r"(?:\s+(?:right\s+now|now|currently|atm|rn))?",
    re.I,
)
_WE_ARE_ON = re.compile(r"\b(?:we'?re|we\s+are|you'?re|it'?s)\s+(?:on|at)\s+(?P<name>tp|dp)\s*(?P<value>\d+)\b", re.I)
# the change, said after the value: "halve it", "double the tp", "drop to half that", "+0.05 on it"
_CHANGE = re.compile(
    rf"^[\s,.;:—–>-]*(?:(?P<verb>halve|double|triple)\s+(?:it|that|the\s+(?P<named>{_NAME}))"
    r"|(?:drop|cut|go|bring\s+it)\s+(?:it\s+)?(?:down\s+)?to\s+half(?:\s+(?:of\s+)?(?:that|it))?"
    rf"|(?P<sign>[+-])\s*(?P<step>{_VALUE})\s+on\s+(?:it|that|the\s+(?:{_NAME})))[\s.!]*$",
    re.I,
)
# "chunked prefill 2x from 4096": a factor and the value it multiplies, said together
_TIMES_FROM = re.compile(rf"\b(?P<name>{_NAME})\s+(?P<factor>\d)\s*x\s+from\s+(?P<value>{_VALUE})\b", re.I)
_NEXT_PORT = re.compile(r"\b(?:go\s+)?from\s+(?P<port>\d{4,5})\s+to\s+the\s+next\s+(?:port\s+)?(?:up|one)\b", re.I)
# "mem from .8 to .85": the old value, then the new one; "tp 1, 8x dp", "2x dp on top of tp 4": a DP said as a
# factor (of one replica, or of the DP now?), both asked back
_FROM_TO = re.compile(
    rf"\b(?:(?:double|halve|triple)\s+the\s+)?(?P<name>{_NAME})(?:\s+from|,)\s+{_VALUE}\s+to\s+(?P<value>{_VALUE})\b",
    re.I,
)
_TIMES_DP = re.compile(
    r"(?<!tp\s)(?<!tp)\b(?P<n>\d)\s?x\s+dp\b(?!\s*[=:]?\s*\d)(?:\s+on\s+top\s+of\s+(?P<tp>tp\s*\d))?", re.I
)
_FACTOR = {"halve": 0.5, "double": 2.0, "triple": 3.0}


def _said(value: float, like: str) -> str:
    if "." in like or value != int(value):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value < 1 else f"{value:g}"
    return str(int(value))


def worked_out(text: str) -> str | None:
    """The words with a relative change put as the value it comes to ("chunked prefill 4096"), for asking
    back; None when there is none, or no value the change applies to is stated."""
    # "the next port up", "from .8 to .85", "8x dp": said anew whole, asked back even with no change worked out
    restated = any(p.search(text) for p in (_NEXT_PORT, _FROM_TO, _TIMES_DP))
    text = _NEXT_PORT.sub(lambda m: f"port {int(m.group('port')) + 1}", text)
    text = _FROM_TO.sub(lambda m: f"{m.group('name')} {m.group('value')}", text)
    text = _TIMES_DP.sub(
        lambda m: f"{m.group('tp')} dp {m.group('n')}" if m.group("tp") else f"dp {m.group('n')}", text
    )
    found = _TIMES_FROM.search(text)
    if found is not None:
        value = float(found.group("value")) * int(found.group("factor"))
        return (
            text[: found.start()] + f"{found.group('name')} {_said(value, found.group('value'))}" + text[found.end() :]
        )
    for pattern in (_WE_ARE_ON, _STATED):
        for stated in pattern.finditer(text):
            change = _CHANGE.match(text[stated.end() :])
            if change is None:
                continue
            named = change.group("named")
            if named is not None and named.split()[0].lower() != stated.group("name").split()[0].lower():
                return None  # "tp 2. double the dp": the change names another setting than the one stated
            was = float(stated.group("value"))
            if change.group("sign") is not None:
                step = float(change.group("step"))
                value = was + step if change.group("sign") == "+" else was - step
                like = change.group("step")
            else:
                value = was * _FACTOR.get((change.group("verb") or "halve").lower(), 0.5)
                like = stated.group("value")
            if value <= 0 or (value != int(value) and "." not in like):
                return None  # "halve tp 3": no whole number of GPUs
            said = f"{stated.group('name')} {_said(value, like)}"
            return text[: stated.start()] + said + text[stated.end() + change.end() :]
    return text if restated else None


# a change said relative to a setting, as an order: "halve it", "double the tp", "+0.05 on it" (never "should
# roughly double the tokens", "double-bit ECC", "halve the TP group and replicate": a reason, or a layout said)
_ANY_CHANGE = re.compile(
    rf"(?:^|[,.;:!>-]\s*|\b(?:and|then|so|just|pls|please)\s+)(?:halve|double|triple)\s+"
    rf"(?:it|that|the\s+(?:{_NAME})\b(?!\s+group))|\bto\s+half\b|(?<![\w.])[+-]\s*\.?\d[\d.]*\s+on\s+(?:it|that|the)\b",
    re.I,
)


def unworked(text: str) -> bool:
    """Whether the words change a setting relative to a value they do not state, or to one the change
    cannot apply to ("tp 3, halve it"): nothing of them is taken, where a yes to the rest would drop it."""
    return _ANY_CHANGE.search(text) is not None and worked_out(text) is None
