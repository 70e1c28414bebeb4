"""A phone user's correction of their own message, sent on its last line as "*word" ("dont use guy 3\\n*gpu",
"men friction 0.85\\n*mem fraction"): the word autocorrect put in is swapped back for the one meant,
before anything is read. Only a plain match is taken: the one span of the message nearest the
correction, near enough, never one of the field's own words ("to 4 dp 2\\n*tp" fixes "to", not "dp").
Else the message stays as typed, its correction line unread."""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from agent.hearing import keyboard

_STAR_LINE = re.compile(
    r"\n[ \t]*(?:\*[ \t]*(?P<lead>[A-Za-z][\w-]*(?:[ \t]+[A-Za-z][\w-]*){0,2})|(?P<trail>[A-Za-z][\w-]*)\*)[ \t]*$"
)
_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
# the field's words and what is typed only for it: never what autocorrect made of another word
_OWN_WORDS = frozenset(
    [
        "gpu",
        "gpus",
        "port",
        "ports",
        "tp",
        "dp",
        "cuda",
        "graph",
        "graphs",
        "kv",
        "cache",
        "mem",
        "fraction",
        "server",
        "model",
        "flag",
        "flags",
        "env",
        "nccl",
        "sglang",
        "relaunch",
        "restart",
        "bench",
        "rerun",
        "stop",
    ]
)
_NEAR_ENOUGH = 50.0  # of 100: "fo" for "go", "to" for "tp"; less is another word
_CLEAR_LEAD = 5.0  # a second span this near is a second candidate: which one was meant is not plain


# "run it with dp 2 top 8\n*tp 4": a setting's value put right, said with its name
_STAR_SETTING = re.compile(
    r"\n[ \t]*\*[ \t]*(?P<name>tp|dp|port|--[a-z][\w-]*)[ \t]*=?[ \t]*(?P<value>[\w.]+)[ \t]*$", re.I
)
_SAID_AS = {"tp": r"(?:tp|top|tip|tap)", "dp": r"(?:dp|dip)", "port": r"(?:port|pert|part|prot)"}


def _setting_applied(text: str, found: re.Match[str]) -> str:
    """`text` with the one setting of the starred name given the starred value; as typed if not one."""
    name = found.group("name").lower()
    body = text[: found.start()]
    said = list(re.finditer(rf"(?<![\w-]){_SAID_AS.get(name, re.escape(name))}\s*=?\s*[\w.]+", body, re.I))
    if len(said) != 1:
        return text
    return body[: said[0].start()] + f"{name} {found.group('value')}" + body[said[0].end() :]


def puts_a_setting_right(text: str) -> bool:
    """Whether `text` ends in a "*tp 4" line that puts right the one setting of that name before it."""
    found = _STAR_SETTING.search(text)
    return found is not None and _setting_applied(text, found) != text


def applied(text: str) -> str:
    """`text` with its last line's "*correction" put in place of the word it corrects, where plain."""
    if (setting := _STAR_SETTING.search(text)) is not None:
        return _setting_applied(text, setting)
    found = _STAR_LINE.search(text)
    if found is None:
        return text
    meant = (found.group("lead") or found.group("trail")).split()
    body = text[: found.start()]
    words = list(_WORD.finditer(body))
    spans: list[tuple[float, int, int]] = []
    for at in range(len(words) - len(meant) + 1):
        window = words[at : at + len(meant)]
        said = [w.group(0).lower() for w in window]
        if said == [m.lower() for m in meant] or any(w in _OWN_WORDS for w in said):
            continue
        score = fuzz.ratio(" ".join(said), " ".join(meant).lower())
        if keyboard.slipped(" ".join(said), " ".join(meant)):
            score += _CLEAR_LEAD * 2  # "fo" for "go": the finger on the key beside it, over "ok"
        spans.append((score, window[0].start(), window[-1].end()))
    spans.sort(reverse=True)
    if not spans or spans[0][0] < _NEAR_ENOUGH or (len(spans) > 1 and spans[1][0] > spans[0][0] - _CLEAR_LEAD):
        return text
    _, start, end = spans[0]
    return body[:start] + " ".join(meant) + body[end:]


# "CUDA_VISIBLE_DEVICS=2,3 .. er DEVICES. tp2": a word put right in the same line, after a pause
_ER = re.compile(r"\s*\.{2,}\s*(?:er|erm|uh|i\s+mean)\s+(?P<word>[A-Za-z][A-Za-z-]*)\b\.?", re.I)


def er_applied(text: str) -> str:
    """`text` with a "word .. er WORD" correction put in place, where the word it corrects is plain."""
    found = _ER.search(text)
    if found is None:
        return text
    body, rest = text[: found.start()], text[found.end() :]
    asked = f"{body}\n*{found.group('word')}"
    fixed = applied(asked)
    return text if fixed == asked else fixed + rest
