"""An Indian operator's Hinglish as its English, before a reply or an instruction is read: "haan
chalao", "gpu 0 mat use karo", "radix cache band karo", "4,5,6,7 pe tp4 se relaunch karo", "server
stop karo aur jab tak na bolu dobara mat uthana". Hindi puts the verb last ("X use karo" is "use X",
"X mat daalna" is "don't put X") and its prepositions after the noun ("0-3 pe" is "on 0-3"), so each
clause is turned round before the grammar reads it. Only a message with a word no English sentence
has is read so; a "mat" or "nahi" no rule here placed keeps its clause unread (agent.hearing.foreign)."""

from __future__ import annotations

import re

from agent.hearing import word_table

# the helper verbs an imperative ends with: "use karo", "kar do", "krdo", "karna" (a request's "do")
_HELPER = r"(?:karo|kro|kar\s*do|kr\s*do|krdo|kardo|karna|krna|karein|kijiye|kariye|kar\s+dena|kar\s+dijiye)"
# the verbs said before a helper or on their own, and their English
_HINDI_VERBS = {
    "lagao": "use", "lagana": "use", "laga do": "use", "daalo": "use", "daalna": "use", "dalo": "use",
    "dalna": "use", "daal do": "use", "hatao": "remove", "hatana": "remove", "hata do": "remove",
    "chalao": "run", "chalana": "run", "chala do": "run", "uthao": "relaunch", "uthana": "relaunch",
    "rakho": "set", "rakhna": "set", "badlo": "switch to", "badal do": "switch to", "chhodo": "avoid",
    "chhod do": "avoid", "dekho": "read", "dekh lo": "read",
}  # fmt: skip
_ENGLISH_VERBS = (
    r"use|avoid|unset|set|disable|enable|relaunch|restart|reboot|bounce|stop|kill|run|pass|launch|serve|skip|"
    r"remove|add|touch|switch|start|measure|rerun|abort|sign\s+off|on|off|band|bandh"
)
_SAID_VERBS = "|".join(v.replace(" ", r"\s+") for v in sorted(_HINDI_VERBS, key=len, reverse=True))
_VERB = rf"(?P<verb>{_SAID_VERBS}|{_ENGLISH_VERBS})"
_NOT = r"(?:mat|nahi|nahin|na)"
# "<object> [mat] <verb> [mat] [karo] [abhi|yaar]": the clause's verb group, said last
_VERB_LAST = re.compile(
    rf"^(?P<obj>.*?)\s*(?P<neg>\b{_NOT}\b)?\s*\b{_VERB}\b\s*(?P<neg2>\b{_NOT}\b)?\s*(?P<helper>\b{_HELPER}\b)?"
    r"(?P<tail>(?:\s+(?:abhi|yaar|yar|bhai|please|pls|jaldi|na))*)\s*$",
    re.I,
)
# "tp 8 krdo", "2 karo", "sign off kar do": a helper with no verb of its own
_HELPER_ONLY = re.compile(
    rf"^(?P<obj>.+?)\s*(?P<neg>\b{_NOT}\b)?\s*\b{_HELPER}\b(?P<tail>(?:\s+(?:abhi|yaar|bhai|jaldi))*)\s*$", re.I
)
_STARTS_WITH_VERB = re.compile(rf"^(?:{_ENGLISH_VERBS}|do|measure|read)\b", re.I)
_SERVER = re.compile(r"\b(?:server|sglang|serving)\b", re.I)

# words and phrases, the longer first, put in English before each clause is turned round
_HINGLISH: list[tuple[str, word_table.Replacement]] = [
    (r"^(?:haan|haa|han)(?:\s+ji)?\b|^ji\s+haan\b", "yes"),
    (r"^(?:nahi|nahin|nai)(?:\s+(?:nahi|nahin|nai))*(?:\s+(?:yaar|bhai|ji))?\b", "no"),
    (r"\b(?:theek|thik|thek)\s+(?:hai|h)\b|\bsahi\s+hai\b", "ok"), (r"\bchalo\b", "go ahead"),
    (r"\b(?:tum|aap)\s+(?:apna|apne)\s+plan\s+(?:se\s+)?(?:chalao|chalte\s+raho|karo)\b", "carry on with your plan"),
    (r"\bmera\s+(?:wait|intezaar|intazar)\s+mat\s+karo\b", "don't wait for me"),
    (r"\b(?:mujhse\s+)?(?:har\s+baar\s+)?(?:mat\s+pucho|puchna\s+mat)\b", "don't ask me"),
    (r"\b(?:poora|pura)\s+run\s+(?:abort|band|khatam|kill)\s+(?:karo|kar\s+do|krdo)\b", "kill the whole run"),
    (r"\baaj\s+ke\s+liye\s+bas\b", "that's it for today"), (r"\bbas\s+karo\b", "stop"),
    (r"\brun\s+(?:chalne\s+do|chalu\s+rakho|chalta\s+rehne\s+do)\b", "leave the run up"),
    # "jab tak na bolu dobara mat uthana": the hold, said before the verb it holds
    (
        rf"\bjab\s+tak\s+(?:main\s+)?{_NOT}\s+(?:bolu|bolun|boloon|kahu|kahun|bolta)\s+(?:tab\s+tak\s+)?(?:dobara\s+)?"
        r"(?:mat|na)\s+(?:uthana|uthao|chalana|chalao|launch\s+karna|relaunch\s+karna|start\s+karna)\b",
        "don't relaunch till I say so",
    ),
    (r"\b(?:dobara|phir\s+se)\s+(?:mat|na)\s+(?:uthana|uthao|chalana|chalao)\b", "don't relaunch"),
    (r"\s+(?:ko\s+)?haath\s+(?:mat|na)\s+(?:lagana|lagao)\b", " mat touch"),  # "gpu 7 ko haath mat lagana"
    (r"(?<=\d)\s+(?:pe|par|tak)\s+(?=(?:cap|limit|set)\b)", " "),  # "max running requests 64 pe cap karo"
    (r"\b(?:kya|kaun\s+sa|kaunsa)\b", "what"), (r"\bkyun\b|\bkyu\b", "why"), (r"\bkaise\b", "how"),
    (r"\bek\s+baar\s+aur\b|\bek\s+baar\s+phir\s+se\b|\bphir\s+se\b|\bdobara\b", "again"),
    (r"\b(?:launch\s+)?env\s+se\b", ""),  # "launch env se X unset karo": unset is of the env
    (r"\bsirf\b", "only"), (r"\s+hi\s+(?=(?:chalao|chalana|use|run|karo|lagao)\b)", " only "),
    (r"^(\d)\s+(?:wala|wali|wale)\b", r"number \1"), (r"(?<=\S)\s+(?:wala|wali|wale)\b", ""),
    (r"\bpehle\b", "first"), (r"\bdono\b", ""),
    (r"\s*\b(?:abhi|yaar|yar|bhai)\b", ""),
    (r"\s*\b(?:hai|h|hain|he)\b(?=\s*(?:[,.;?]|$))", ""),  # "30000 busy hai": the copula said last
]  # fmt: skip
_HINGLISH_WORDS = word_table.compiled(_HINGLISH)
# postpositions said after their noun: "4,5,6,7 pe" is "on 4,5,6,7", "tp4 se" "with tp4"
_LIST = r"(?:(?:gpus?|ports?)\s+)?\d+(?:\s*(?:-|,|and|aur)\s*\d+)*"
_AFTER_NOUN = [
    (re.compile(rf"(?P<noun>{_LIST}|(?:tp|dp)\s*\d+(?:\s+(?:tp|dp)\s*\d+)?)\s+(?:pe|par|pr)\b", re.I), "on"),
    (
        re.compile(rf"(?P<noun>(?:tp|dp)\s*\d+(?:\s+(?:tp|dp)\s*\d+)?|{_LIST}|--[a-z][\w-]*(?:\s+\S+)?)\s+se\b", re.I),
        "with",
    ),
]
_MARK = re.compile(
    rf"\b(?:{_HELPER}|haan|nahi|nahin|mat|yaar|bhai|sirf|wala|wali|theek|thik|dobara|lagao|lagana|daalo|daalna|"
    r"hatao|chalao|uthana|dekho|rehne|raha|rahe|abhi|aur|pe|hai|hain|band|bandh|jab\s+tak)\b",
    re.I,
)
# a clause ends at a comma, but "4,5,6,7" and "2 aur 3" are one list of ids
_CLAUSES = re.compile(
    r"(;\s*|\.\s+|(?<!\d)\s+aur\s+|\s+aur\s+(?!\d)|\s*,(?!\s?\d{1,2}(?:\s*[,-]|\s+(?:aur|and|pe|par|se|ko|use|mat|avoid)\b|\s*$))\s*)",
    re.I,
)


def _turned_round(clause: str) -> str:
    """One clause with its verb group moved to the front: "gpu 0 mat use karo" is "don't use gpu 0"."""
    if "?" in clause or re.search(r"\b(?:what|why|how)\b", clause, re.I):
        return clause  # a question stays one, unread: "gpu 3 pe kya chal raha hai?" asks, it never tells
    for said, english in _AFTER_NOUN:
        clause = said.sub(rf"{english} \g<noun>", clause)
    answer = re.match(r"(?:no|yes|ok)\b[\s,]*", clause, re.I)  # "nahi, sign off mat karo": the answer stays first
    if answer:
        return answer.group(0) + _turned_round(clause[answer.end() :])
    found = _VERB_LAST.match(clause)
    if found and (
        found.group("helper")
        or found.group("neg")
        or found.group("neg2")
        or found.group("verb").lower() in _HINDI_VERBS
    ):
        verb = " ".join(found.group("verb").lower().split())
        obj = found.group("obj").strip()
        english = _HINDI_VERBS.get(verb, verb)
        if not obj and english == "run":
            return "go ahead"  # "haan chalao": run what was asked
        if english in ("on", "off", "band", "bandh"):
            english = {"on": "enable"}.get(english, "stop" if _SERVER.search(obj) else "disable")
        negated = bool(found.group("neg") or found.group("neg2"))
        return f"{'do not ' if negated else ''}{english} {obj}".strip()
    found = _HELPER_ONLY.match(clause)
    if found:
        obj = found.group("obj").strip()
        if re.fullmatch(r"#?\d", obj):
            return f"do {obj.lstrip('#')}"
        english = obj if _STARTS_WITH_VERB.match(obj) else f"set {obj}"
        return f"do not {english}" if found.group("neg") else english
    # "bounce kar do server": an English verb, its helper, then what it acts on
    return re.sub(rf"\b({_ENGLISH_VERBS})\s+{_HELPER}\b", r"\1", clause, flags=re.I)


def in_english(text: str) -> str:
    """`text` with a Hinglish operator's words put in English; any other message as it was."""
    if not _MARK.search(text):
        return text
    text = word_table.in_english(text, _HINGLISH_WORDS)
    pieces = _CLAUSES.split(text)
    said = [
        (" and " if re.fullmatch(r"\s+aur\s+", piece, re.I) else "; " if re.match(r"\s*\d", pieces[at + 1]) else piece)
        if at % 2
        else _turned_round(re.sub(r"\baur\b", "and", piece, flags=re.I))
        for at, piece in enumerate(pieces)
    ]
    return re.sub(r"[ \t]{2,}", " ", "".join(said)).strip()
