"""An Israeli operator's chat as its English, before a reply or an instruction is read: Hebrew typed in Latin
letters ("ken", "lo, rega", "beseder yalla", "ani lo yodea", "tasim NCCL_IB_DISABLE=1", "al tiga be-GPU 0",
"rak 4-7") and in its own script ("כן", "לא", "רגע"). Only a message with a word no English sentence has is
read so ("lo" alone is not enough); a "lo" or "al" that no rule here placed keeps its clause unread, so a verb
this table lacks is never read without its "not"."""

from __future__ import annotations

import re

from agent.hearing import word_table
from agent.hearing.spoken import UNPLACED

# The longer phrases first: "ani lo yodea" before "lo", "al tishtamesh" before "tishtamesh".
_HEBREW: list[tuple[str, word_table.Replacement]] = [
    # not knowing, and waiting: "rega, ani lo yodea" leaves what came before undecided
    (r"\b(?:ani\s+)?(?:lo|לא)\s+(?:yodea|yoda'?at|yode'?a|batuach|betuach|יודע|יודעת|בטוח)\b", "not sure"),
    (r"\b(?:rega|רגע)(?:\s+(?:rega|רגע))*\b", "wait"),
    (r"\bod\s+lo\b|\bada(?:yin)?\s+lo\b|\bעוד\s+לא\b", "not yet"),
    (r"\blo\s+tov\b", "not good"),
    # replies
    (r"^(?:ken|כן)(?:\s+(?:ken|כן))*(?=[\s,.!]|$)", "yes"),
    (r"^(?:beseder|b'seder|sababa|achla|yofi|בסדר|סבבה|יופי)\b[\s,]*(?:yalla|יאללה)\b", "ok go ahead"),
    (r"\b(?:beseder|b'seder|בסדר)\b", "ok"), (r"\b(?:sababa|achla|yofi|סבבה|יופי)\b", "fine"),
    # "yalla" alone is a go-ahead; beside other words only "come on" ("fix the nccl thing yalla": no yes)
    (r"^[\s,]*(?:yalla|יאללה)[\s,!.]*$", "go ahead"), (r"[\s,]*\b(?:yalla|יאללה)\b[\s,!]*", " "),
    (r"\b(?:tamshich|timshach|תמשיך)\b", "keep going"),
    (r"\b(?:toda(?:\s+raba)?(?!\s+la\b)|תודה)\b", "thanks"), (r"\b(?:bevakasha|b'vakasha|בבקשה)\b", "please"),
    (r"\bkol\s+hakavod\b", "well done"), (r"\bmamash\b", "really"),
    # must-nots first: "al tiga be-" (don't touch), "al tishtamesh be-" (don't use), "bli" (without)
    (r"\bal\s+(?:tiga|tigaa|tig'a|tegia)\s+(?:be-?|b')?", "don't touch "),
    (r"\bal\s+(?:tishtamesh|tashtamesh)\s+(?:be-?|b')?", "don't use "),
    (r"\bal\s+(?:tasim|tosif)\b", "don't set"), (r"\bal\s+(?:tarim|tafil|taale)\b(?:\s+shuv)?", "don't relaunch"),
    (r"\bbli\s+", "without "),
    # orders
    (r"\b(?:tishtamesh|tashtamesh)\s+(?:be-?|b')?", "use "), (r"\btasim\b(?:\s+gam)?", "set"),
    (r"\b(?:tasir|tmachek|timchak)\b", "remove"), (r"\b(?:taatsor|ta'atsor|tafsik|tifsik)\b", "stop"),
    (r"\b(?:tarim|tafil|taale)\s+(?:me-?)?chadash\b|\b(?:tarim|tafil|taale)\s+shuv\b", "relaunch"),
    (r"\bod\s+pa'?am\b|\bshuv\b", "again"), (r"\bachshav\b|\bעכשיו\b", "now"),
    (r"\brak\b|\bרק\b", "only"), (r"\bgam\b", "also"), (r"\baval\b|\bאבל\b", "but"),
    (r"^(?:lo|לא)(?=[\s,.!]|$)", "no"), (r"(?<=[.,;!]\s)(?:lo|לא)(?=[\s,.!]|$)", "no"),
]  # fmt: skip
_WORDS = word_table.compiled(_HEBREW)
# words only a Hebrew speaker types; never "lo", "al", "gam" or "rak" alone (names, initials, English words)
_MARK = re.compile(
    r"[\u0590-\u05ff]|\b(?:rega|yodea|yoda'?at|beseder|b'seder|sababa|achla|yofi|yalla|toda|bevakasha|b'vakasha|"
    r"tishtamesh|tashtamesh|tasim|tasir|tmachek|timchak|taatsor|ta'atsor|tafsik|tifsik|tarim|tafil|taale|tamshich|"
    r"timshach|achshav|mamash|kol\s+hakavod|al\s+tiga\w*|od\s+pa'?am)\b|^(?:ken|lo)(?:\s+(?:ken|lo))*[\s.!]*$",
    re.I,
)
# a Hebrew "not" (lo) or "don't" (al) the table did not place: its clause is not read
_NOT_LEFT = re.compile(r"\b(?:lo|al)\b(?=\s+\S)|\bלא\b|\bאל\b", re.I)


def in_english(text: str) -> str:
    """`text` with an Israeli operator's Hebrew put in English; any other message as it was."""
    if not _MARK.search(text):
        return text
    said = word_table.in_english(text, _WORDS)
    return _NOT_LEFT.sub(lambda m: f"{m.group(0)} {UNPLACED}", said)
