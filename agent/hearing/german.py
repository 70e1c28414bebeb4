"""A German operator's words as their English, before a reply or an instruction is read: "nutze nur GPU
0-3", "Port 30000 bitte nicht verwenden", "starte mit tp 4 neu", "lass GPU 7 in Ruhe", "ohne CUDA Graph",
"mem fraction auf 0.85", "nicht wieder starten bis ich es sage". German often puts the verb last ("GPU 6
und 7 nicht anfassen", "nur 4-7 nutzen"): such a clause is turned round. The few words every message
may hold ("nein", "bitte", "0 bis 3") are read in agent.hearing.foreign; a "nicht" or "kein" no rule here
placed keeps its clause unread."""

from __future__ import annotations

import re

from agent.hearing import word_table

# an infinitive said last, and its English said first: "GPU 3 nie benutzen" is "never use GPU 3"
_LAST_VERBS = {
    "nutzen": "use", "verwenden": "use", "benutzen": "use", "nehmen": "use", "anfassen": "touch",
    "starten": "relaunch", "neu starten": "relaunch", "neustarten": "relaunch", "messen": "measure again",
    "setzen": "set", "anmachen": "enable", "einschalten": "enable", "aktivieren": "enable",
    "ausschalten": "disable", "abschalten": "disable", "deaktivieren": "disable",
}  # fmt: skip
_VERB_LAST = re.compile(
    r"^(?P<obj>.*?)\s*\b(?P<neg>nicht|nie|niemals)?\s*\b(?P<verb>"
    + "|".join(v.replace(" ", r"\s+") for v in sorted(_LAST_VERBS, key=len, reverse=True))
    + r")(?:\s+(?:bitte|please|mal))?\s*$",
    re.I,
)

_GERMAN: list[tuple[str, word_table.Replacement]] = [
    # replies
    (r"\bnicht\s+(?:signen|abnehmen|abzeichnen|freigeben|unterschreiben)\b", "don't sign off"),
    (r"^abbruch\b", "stop everything"), (r"\bkomplett\b", "completely"), (r"\berstmal\b[,:]?\s*", ""),
    (r"\b(?:mach\s+)?weiter\s+mit\s+(?:deinem|dem|deinen|den)\s+(?:plan|schritten)\b", "carry on with your plan"),
    (r"\b(?:mach|tu)\s+(?:das|es)\b", "do it"),
    (r"\b(is|ist|are|sind|was|war)\s+nicht\b", r"\1 not"),  # "GPU 3 is nicht healthy": the predicate's not
    (r"^(?:jo|jap|jep|klar|gerne)\b", "yes"), (r"^(?:nee|nö|ne)\b(?=[\s,.!]|$)", "no"), (r"^passt\b", "ok"),
    (r"\bnoch\s+nicht\b", "not yet"), (r"\b(?:kannst|darfst)\s+(?:abschlie(?:ß|ss)en|abzeichnen)\b", "sign off"),
    (r"\b(?:schlie(?:ß|ss)|zeichne)\s+(?:es\s+)?ab\b", "sign off"),
    (r"\bbrich\s+(?:den\s+)?(?:ganzen\s+)?run\s+ab\b", "kill the whole run"),
    (r"\bwir\s+machen\s+morgen\s+weiter\b", "we'll pick it up tomorrow"),
    (r"^mach\s+(?=\d\b)", "do "), (r"^mach(?:\s+mal)?$|^mach\s+(?:es|das)\b", "go ahead"),
    (r"\b(?:das\s+)?(?:topo|das)\s+brauchen\s+wir\s+nicht\b", "we don't need that"),
    # instructions
    (
        r"\bnicht\s+(?:wieder|neu)\s+starten\s+bis\s+ich\s+(?:es\s+sage|bescheid\s+sag[e]?|"
        r"es\s+sag)\b",
        "don't relaunch till I say so",
    ),
    (r"\bnicht\s+(?:wieder|neu)\s+starten\b", "don't relaunch"),
    (r"\bstarte?\s+(.*?)\s*\bneu\b", r"relaunch \1"), (r"\bneu\s+starten\s+(?=auf|mit)", "relaunch "),
    (
        r"\blass\s+(.+?)\s+in\s+ruhe\b", r"don't touch \1"), (r"\bbounce\s+den\s+server(?:\s+mal)?\b",
        "bounce the server",
    ),
    (r"\b(?:bench|benchmark)\s+(?:nochmal|erneut|noch\s+einmal)\s+(?:laufen\s+lassen|machen)\b", "measure again"),
    (r"\b(?:nochmal|erneut|noch\s+einmal)\s+messen\b", "measure again"),
    (r"\b([A-Z][A-Z0-9_]+)\s+raus\s+aus\s+dem\s+env\b", r"unset \1"),
    (r"(?<![\w-])(--[a-z][\w-]*|[A-Z][A-Z0-9_]{2,})\s+(?:weg|raus)\b", r"remove \1"),  # "--disable-radix-cache weg"
    (r"\bnicht\s+(?:more\s+)?(?=use\b|touch\b|bind\b)", "don't "), (r"\bgesetzt\b", "set"), (r"\bewig\b", "forever"),
    (r"\b(is|are)\s+from\s+(?:the\s+)?([\w\s]+?)\s+(?:belegt|occupied|used|blocked)\b", r"\1 taken by the \2"),
    (r"\b(?:nutze|nutz|verwende|benutze|nimm)\b", "use"), (r"\bstattdessen\b", "instead"),
    (r"\bbraucht\s+(?=--)", "needs "), (r"\bkein(?:e|en)?\s+(?=--|[a-z])", "no "),
    (r"\bohne\s+(?=cuda|radix|torch)", "disable "), (r"\bohne\b", "without"),
    (
        r"\b(radix\s+cache|cuda\s+graphs?|torch\s+compile|dp\s+attention)\s+(?:aus|ausschalten|"
        r"abschalten)\b",
        r"disable \1",
    ),
    (r"\b(radix\s+cache|cuda\s+graphs?|torch\s+compile|dp\s+attention)\s+(?:an|anmachen|einschalten)\b", r"enable \1"),
    (r"\bstopp?\s+(?=den\s+server)", "stop "), (r"\bden\s+server\b", "the server"), (r"\bmodell\b", "model"),
    (r"\bsind\s+belegt\b", "are taken"), (r"\bist\s+belegt\b", "is taken"), (r"\bdie\s+ports\b", "the ports"),
    (r"(?<=[a-z])\s+auf\s+(?=\d)", " "),  # "mem fraction auf 0.85": the value it is set to
    (r"\bauf\s+(?=\d|gpus?)", "on "), (r"\bmit\b", "with"), (r"\bund\b", "and"), (r"\bnur\b", "only"),
    (r"\bals\s+(?=attention\s+backend|kv)", "as "), (r"\b(?:bitte|bitet|bite|pls)\b", "please"), (r"\bmal\b", ""),
]  # fmt: skip
_GERMAN_WORDS = word_table.compiled(_GERMAN)
_MARK = re.compile(
    r"\b(?:nicht|nee|nö|bitte|bitet|nutze|nutzen|ohne|nochmal|stattdessen|braucht|nimm|lass|mach|passt|starte|starten|"
    r"und|kein\w*|anmachen|anfassen|verwenden|benutzen|belegt|modell|abschlie\w+|brich|den\s+server|"
    r"raus\s+aus|weg|raus|gesetzt|ewig|messen|neu|als|aus|signen|abnehmen|abbruch|komplett|erstmal|weiter|deinem)\b|\bauf\s+(?=\d)|"
    r"\bmit\s+(?=tp|dp|--|\d)",
    re.I,
)
_CLAUSES = re.compile(r"(\s*;\s*|\s*,(?!\d)\s*|\.\s+|\s+and\s+(?!\d))")


def _turned_round(clause: str) -> str:
    found = _VERB_LAST.match(clause.strip())
    if found is None or not found.group("obj"):
        return clause
    verb = _LAST_VERBS[" ".join(found.group("verb").lower().split())]
    negated = (
        "never "
        if found.group("neg") and found.group("neg").lower() != "nicht"
        else "don't "
        if found.group("neg")
        else ""
    )
    return f"{negated}{verb} {found.group('obj')}"


# English said in German order, with or without a German word: "the mem fraction please on 0,85 set", "GPU 2
# and GPU 6 avoid", "Nicht --enable-torch-compile use please": the verb said first, as English says it
_SET_LAST = re.compile(
    r"^(?:please\s+)?(?:the\s+)?(?P<what>[a-z][\w\s-]*?)\s+(?:please\s+)?(?:on|to|auf)\s+(?P<v>[\w.,/-]+)\s+"
    r"(?:set|stellen|setzen|limit|limitieren|put)(?:\s+please)?$",
    re.I,
)
_ONCE_MORE_WITH = re.compile(
    r"^(?P<lead>.*?:\s*)?(?:please\s+)?(?:once\s+more|again|one\s+more\s+time)\s+with\s+(?P<x>.+?)\s+"
    r"(?:starting|start|starten|launching|launch|running|run)(?:\s+please)?$",
    re.I,
)
_PLEASE_BEFORE_VALUE = re.compile(r"(?<=[a-z])\s+please\s+(?:on\s+)?(?=[\w.,/-]+$)", re.I)
_OBJECT = (
    r"(?:the\s+)?(?:gpus?\s*\d+(?:\s*(?:,|&|-|and)\s*(?:gpu\s*)?\d+)*|ports?\s+\d{4,5}(?:\s*(?:,|and)\s*\d{4,5})*|"
    r"--[a-z][\w-]*(?:\s+(?!(?:use|avoid|exclude|remove|unset|touch|enable|disable|nicht|not|no|don'?t|never)\b)"
    r"[^\s-]\S*)?|(?-i:[A-Z][A-Z0-9_]{2,}))"
)
_ENGLISH_VERB_LAST = re.compile(
    rf"^(?:and\s+)?(?:please\s+)?(?P<neg>(?:nicht|not|don'?t|never)\s+)?(?P<obj>{_OBJECT})\s+"
    r"(?P<neg2>(?:nicht|not|no|don'?t)\s+(?:more\s+|anymore\s+)?)?(?P<verb>use|avoid|exclude|remove|unset|touch|enable|disable)"
    r"(?:\s+(?:please|more|anymore|any\s+more))?$",
    re.I,
)


# never split at "and" or before an id: "GPU 2 and GPU 6 avoid", "GPU 2, 6 avoid" are one object, one verb
_ORDER_CLAUSES = re.compile(r"(\s*;\s*|\s*,(?!\s*(?:gpus?\s*)?\d)\s*|\.\s+)", re.I)


def _english_turned_round(clause: str) -> str:
    text = clause.strip().rstrip(".!")
    if (found := _SET_LAST.match(text)) is not None:
        return f"set {found.group('what')} to {found.group('v')}"
    if (found := _ONCE_MORE_WITH.match(text)) is not None:  # "please once more with --x 128 starting"
        return f"{found.group('lead') or ''}relaunch with {found.group('x')}"
    if (found := _ENGLISH_VERB_LAST.match(text)) is not None:
        negated = "don't " if found.group("neg") or found.group("neg2") else ""
        return f"{negated}{found.group('verb').lower()} {found.group('obj')}"
    return _PLEASE_BEFORE_VALUE.sub(" ", clause)


def verb_last(text: str) -> str:
    """Each clause of `text` said in German order put in English order; any other clause as it was."""
    pieces = _ORDER_CLAUSES.split(text)
    return "".join(piece if at % 2 else _english_turned_round(piece) for at, piece in enumerate(pieces))


def in_english(text: str) -> str:
    """`text` with a German operator's words put in English; any other message as it was."""
    if not _MARK.search(text):
        return text
    text = word_table.in_english(text, _GERMAN_WORDS)
    pieces = _CLAUSES.split(text)
    return "".join(piece if at % 2 else _turned_round(piece) for at, piece in enumerate(pieces)).strip()
