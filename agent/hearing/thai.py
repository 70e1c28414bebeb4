"""A Thai operator's English with Thai words and order, as their English, before a reply or an instruction is
read: "mai ow" (don't want), "chai" (yes, use), "mai chai" (not that), "dai" (ok), "pai loei" (go ahead),
"yud" (stop), "tor pai" (carry on), the topic first ("gpu 0 mai ow na"), and the particles that soften a
clause ("na", "krub", "ka", "ja"). Only a message with a word no English sentence has is read so; a word
this table lacks stays unread."""

from __future__ import annotations

import re

from agent.hearing import word_table

_THAI: list[tuple[str, word_table.Replacement]] = [
    (r"\bmai\s+ru\b", "I'm not sure"), (r"\bror\s+gorn\b", "wait"),  # "ah mai ru, ror gorn": undecided
    # the topic first, its verb after: "gpu 0 mai ow", "NCCL_DEBUG ow ork", "cuda graph pid pai"
    (r"\btae\b", "but"),
    (r"(?:^|(?<=,\s)|(?<=\bbut\s))(?!but\b)(?P<x>[^,.;]+?)\s+mai\s+ow\b", r"don't use \g<x>"),
    (r"\bmai\s+ow\s+(?=gpu|port|--)", "don't use "),
    (r"\bwang(?:\s+laew)?\b", "is free again"), (r"\bgor\s+chai\s+(?P<x>.+?)\s+dai\b", r"so you can use \g<x>"),
    (r"(?P<x>\b[A-Z][A-Z0-9_]{2,})\s+ow\s+ork\b", r"unset \g<x>"),
    (r"^(?P<x>[^,.;]+?)\s+(?:pid|pit)(?:\s+pai)?(?:\s+duay)?\b", r"disable \g<x>"),
    (r"^(?P<x>[^,.;]+?)\s+sai\s+duay\b", r"add \g<x>"), (r"^(?P<x>[^,.;]+?)\s+pai\s+gorn\b", r"\g<x>"),
    (r"\battention\s+backend\s+ow\b", "attention backend"), (r"\bplian\s+model\s+pen\b", "switch the model to"),
    (r"\bmai\s+chai\s+model\s+nee\b", "not this model"), (r"\bow\s+(?=/)", "use "),
    (r"\bchai\s+(?=gpu|port)", "use "), (r"(?P<x>\bport\s+\d+)\s+chai\b", r"use \g<x>"),
    (r"\btao\s+nun\b", "only"), (r"\bdp\s+mai\s+tong\b", "no dp"), (r"\bmai\s+tong\s+start\s+mai\b", "don't relaunch"),
    (r"\bjon\s+gwa\s+chan\s+bok\b", "until I say so"), (r"\byud\s+server\b", "stop the server"),
    (r"\bbench\s+mai\s+eek\s+rob\b", "benchmark again"), (r"\beek\s+rob\b", "again"),
    (r"\blorng\b", "try"), (r"\bdoo\b", ""), (r"\bgub\b", "and"), (r"\blaew\b", "then"),
    # the answers
    (r"\bpai\s+loei\b", "go ahead"), (r"\byud\s+tung\s+mot\b", "stop everything"), (r"\byud\s+loei\b", "stop now"),
    (r"\bjop\s+run\s+nee\b", "end the whole run"), (r"\byud\b", "stop"), (r"\btor\s+pai\b", "carry on"),
    (r"\bkhun\s+decide\s+eng\b", "you decide"), (r"\btam\s+plan\s+khong\s+khun(?:\s+loei)?\b", "follow your plan"),
    (r"\bmai\s+sign\b", "no, don't sign off"), (r"\byang\s+mai\s+sign\b", "not yet, don't sign off"),
    (r"\bmai\s+ow\b", "no"), (r"\bmai\s+chai\b", "no"), (r"\bmai\s+dai\b", "no"), (r"\bmai\s+tong\b", "no need to"),
    (r"^\s*chai\b", "yes"), (r"^\s*dai\b", "ok"), (r"\bdai\b", ""), (r"\bao\s+(?=number|step|option)", ""),
    (r"\btum\s+(?=step|option|number)", "do "), (r"\ban\s+raek\b", "the first one"), (r"\bgorn\b", "first"),
    (r"\bkob\s+khun(?:\s+(?:krub|ka|na))?\b", "thanks"),
    # the particles
    (r"(?:\s*\b(?:na|krub|khrap|ka|kha|ja|loei)\b)+(?=\s*(?:[,.!?;]|$))", ""),
]  # fmt: skip
_WORDS = word_table.compiled(_THAI)
_MARK = re.compile(
    r"\b(?:krub|khrap|mai\s+(?:ow|chai|dai|tong|ru|sign)|pai\s+loei|yud|tor\s+pai|ror\s+gorn|gorn|laew|gub|tao\s+nun|"
    r"chai|dai\s+ja|khun|kob\s+khun|plian|eek\s+rob|sai\s+duay|pid\s+pai|pid\s+duay|ow\s+ork|wang)\b",
    re.I,
)


def in_english(text: str) -> str:
    """`text` with a Thai operator's words put in plain English; any other message as it was."""
    return word_table.in_english_when(text, _MARK, _WORDS)
