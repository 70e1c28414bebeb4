"""A Kenyan operator's Swahili and Sheng as their English, before a reply or an instruction is read: "ndio"
(yes), "hapana" (no), "bado" (not yet), "endelea" (carry on), "usitumie gpu 0" (don't use), "tumia port 30001"
(use), "zima server" (stop it), "anza tena" (restart), "na" (and). Only a message with a word no English
sentence has is read so; what is left is read by the grammar as any message is, so a word this table lacks
stays unread."""

from __future__ import annotations

import re

from agent.hearing import word_table

_SWAHILI: list[tuple[str, word_table.Replacement]] = [
    # the don'ts, before "tumia" and "weka" alone
    (r"\busiiwashe\s+tena\b", "don't relaunch"), (r"\bmpaka\s+nikwambie\b", "until I say so"),
    (r"\busitumie\b", "don't use"), (r"\busiitumie\b", "don't use it"), (r"\busiziguse\b", "don't touch them"),
    (r"\busiguse\b", "don't touch"), (r"\busiweke\b", "don't pass"), (r"\busisign\s+off\b", "don't sign off"),
    (r"\bsitaki\b", "I don't want it"), (r"\biache\b", "avoid it"), (r"\bitoe\b", "remove it"),
    (r"\biweke\b", "add it"),
    # the topic first: "mem frac weka 0.85", "torch compile hapana kabisa"
    (r"^(?P<x>[a-z][\w\s-]*?)\s+(?:weka|iwe)\s+(?=\.?\d)", r"\g<x> "),
    (r"^(?P<x>[a-z][\w\s-]*?)\s+hapana\s+kabisa\b", r"never use \g<x>"),
    # the verbs
    (r"\bzima\s+server\b", "stop the server"), (r"\bzima\b", "disable"), (r"\banza\s+tena\b", "restart"),
    (r"\bvile\s+ilivyo\b", "as it is"), (r"\btumia\b", "use"), (r"\bweka\b", "set"), (r"\btoa\b", "remove"),
    (r"\biwe\b", ""), (r"\bjaribu\b", "try"), (r"\bebu\b", ""), (r"\bbadilisha\b", "change"),
    (r"\bhamisha\s+server\s+iende\b", "move the server to"), (r"\brudia\s+bench\b", "rerun the bench"),
    (r"\bpiga\s+benchmark\s+mara\s+moja\s+tena\b", "benchmark once more"),
    (r"\bkabla\s+hatujafunga\b", "before you sign off"),
    (r"\binahitaji\b", "needs"), (r"\bkutoka\s+hub\b", "from the hub"), (r"\bserve\s+kwa\b", "serve on"),
    (r"\bimeshikwa\s+na\b", "is held by"), (r"\bziko\s+(?:na\s+shida|busy)\b", "have trouble"),
    (r"\binapiga\b", "is throwing"),
    # the answers
    (r"\bwewe\s+ndiye\s+unajua,?\s+amua\s+mwenyewe\b", "your call"), (r"\bamua\s+mwenyewe\b", "you decide"),
    (r"\bsi\s+uendelee\s+tu\s+na\s+vile\s+ulikuwa\s+umepanga\b", "carry on with what you had planned"),
    (r"\bendelea(?:\s+kidogo)?\b", "carry on"), (r"\bfanya\s+hivyo\b", "do it"), (r"\bfanya\b", "do"),
    (r"\btunamaliza\s+run\s+hapa\b", "we're ending the whole run here"), (r"\bsimama\b", "stop"),
    (r"^\s*ndio\b", "yes"), (r"\bndio\b", "yes"), (r"\bsawa\b", "ok"), (r"\bhapana\s+kabisa\b", "never"),
    (r"\bhapana\b", "no"), (r"^\s*bado\b", "not yet"), (r"\bngoja\b", "wait"), (r"\basante\b", "thanks"),
    (r"\bya\s+kwanza\b", "the first one"), (r"\bya\s+pili\b", "the second one"), (r"\bya\s+tatu\b", "the third one"),
    # the joiners and the words that only colour it
    (r"\bpeke\s+yake\b", "only"), (r"\bhadi\b", "to"), (r"\bwala\b", "or"), (r"\bna\b", "and"),
    (r"\b(?:halafu|kisha)\b", "then"), (r"\b(?:lakini|ila)\b", "but"), (r"\bkwanza\b", "first"),
    (r"\bsasa(?:\s+hivi)?\b", "now"), (r"\bkabisa\b", "at all"), (r"\bhiyo\b", "that"), (r"\bzote\b", "both"),
    (r"\s+tu\b(?=\s*(?:[,.!]|$))", " only"), (r"\s*\b(?:bana|manze|buda)\b", ""), (r"\btena\b", "again"),
    (r"\bunaweza\b", "you can"),
]  # fmt: skip
_WORDS = word_table.compiled(_SWAHILI)
_MARK = re.compile(
    r"\b(?:ndio|sawa|hapana|bado|endelea|simama|ngoja|asante|usi\w+|sitaki|tumia|weka|zima|anza|peke|hadi|halafu|"
    r"kisha|lakini|kwanza|kabisa|hiyo|fanya|jaribu|ebu|rudia|badilisha|hamisha|inahitaji|iweke|itoe|iache|toa|manze|"
    r"bana|mbona|kwani|iwe|tatu|pili|wewe|mwenyewe|uendelee|unaweza)\b",
    re.I,
)


def in_english(text: str) -> str:
    """`text` with a Kenyan operator's Swahili put in plain English; any other message as it was."""
    return word_table.in_english_when(text, _MARK, _WORDS)
