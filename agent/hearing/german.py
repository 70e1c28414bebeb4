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
    "stoppen": "stop", "runterfahren": "stop", "herunterfahren": "stop", "beenden": "stop",
    "hochfahren": "relaunch", "wieder hochfahren": "relaunch",
}  # fmt: skip
_VERB_LAST = re.compile(
    r"^(?:please\s+)?(?P<neg_first>(?:nicht|nie|niemals)\s+)?(?P<obj>.*?)\s*\b(?P<neg>nicht|nie|niemals)?\s*\b(?P<verb>"
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
    (r"^mach\s+(?=\d\b)", "do "), (r"(?:^|(?<=,\s))mach(?:\s+mal)?(?=\s*(?:,|$))|^mach\s+(?:es|das)\b", "go ahead"),
    (r"\bdann\s+schauen\s+wir\s+weiter\b", "then we'll see"), (r"\bnummer\s+(?=\d)", "number "),
    (r"\b(?:wenn|falls)\b", "if"), (r"\bdas\s+kleine\s+zum\s+testen\b", "the small one for testing"),
    (r"\b(?:das\s+)?(?:topo|das)\s+brauchen\s+wir\s+nicht\b", "we don't need that"),
    (r"^auf\s+keinen\s+fall\b", "no way"), (r"^(?:egal,?\s+)?mach\s+(?:es\s+)?wie\s+du\s+denkst\b", "your call"),
    (r"^egal\b", "whatever"), (r"^entscheid(?:e)?\s+du\b", "you decide"),
    (r"\bbin\s+grad\s+im\s+call\b", "I'm in a call"),
    (r"^feierabend\b", "that's it for today"), (r"\bwir\s+h[öo]ren\s+hier\s+auf\b", "we stop here"),
    (r"\balles\s+beenden\b", "stop everything"), (r"^abschlie(?:ß|ss)en\b", "sign off"),
    (r"\b(?:mach\s+)?(?:mal\s+)?schritt\s+(?=\d)", "do "), (r"^lieber\s+(?:die\s+)?(?=\d)", "number "),
    (r"\bich\s+will\s+erst\s+das\s+log\s+sehen\b", "I want to see the log first"),
    (r"\baber\s+zack\s+zack\b", "but quickly"), (r"^doch\b", "yes"), (r"\bweiter$", "go on"),
    (r"\b(\w+)\s+lesen\s+ist\s+gut\b", r"reading \1 is fine"),
    (r"\bwie\s+letztes\s+mal\b", "same as last time"),
    (r"(?<=\S)\s+halt\b(?!\s+(?:den|die|das|alles|sofort|server)\b)", ""),  # "chunked prefill halt auf 8192": a filler
    # instructions
    (r"^mach(?:\s+mal)?\s+(?=tp|dp|port|gpus?\b|--|[A-Z][A-Z0-9_]+=)", "use "),
    (r"\bkarten\b", "GPUs"),
    (r"\bsind\s+kaputt\b", "are broken"), (r"\bist\s+kaputt\b", "is broken"),
    (r"\b(?:die|sie)\s+lass\s+(?:bitte\s+|please\s+)?weg\b", "leave them out"),
    (r"\blass\s+(.+?)\s+weg\b", r"leave out \1"),
    (r"(?m)^(.+?)\s+l[äa]sst\s+du\s+(?:bitte\s+|please\s+)?in\s+ruhe\b", r"don't touch \1"),
    (r"^(.+?)\s+auf\s+keinen\s+fall\b", r"never use \1"),
    (r"\b(?:modell\s+)?wechseln\s+auf\b", "switch the model to"), (r"\bwechsel\s+auf\b", "switch to"),
    (r"\bbrauchst\s+du\b", "you need"), (r"\bf(?:ü|ue)r\s+das\s+modell\b", "for the model"),
    (r"\bserver\s+runter\b", "stop the server"), (r"\bvorher\b", "first"), (r"\baber\b", "but"),
    (r"(?<![\d.,])([1-9]\d{0,2})\.(\d{3})(?!\d|[.,]\d)", r"\1\2"),  # "Port 30.002": a German thousands point
    (
        r"\bnicht\s+(?:wieder|neu)\s+(?:starten|hochfahren)\s+bis\s+ich\s+(?:es\s+sage|bescheid\s+sag[e]?|"
        r"es\s+sag|mich\s+melde)\b",
        "don't relaunch till I say so",
    ),
    (r"\bnicht\s+(?:wieder|neu)\s+(?:starten|hochfahren)\b", "don't relaunch"),
    (r"\bbis\s+ich\s+mich\s+melde\b", "till I say so"),
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
    r"raus\s+aus|weg|raus|gesetzt|ewig|messen|neu|als|aus|signen|abnehmen|abbruch|komplett|erstmal|weiter|deinem|"
    r"nur|nehmen|stoppen|runter|hochfahren|schritt|lieber|egal|entscheid\w*|feierabend|kaputt|wechseln|brauchst|"
    r"keinen|jawohl|genau|doch|lässt|lasst|vorher|aber|umstellen|wie\s+letztes)\b|\bauf\s+(?=\d)|"
    r"\bmit\s+(?=tp|dp|--|\d)",
    re.I,
)
_CLAUSES = re.compile(r"(\s*;\s*|\s*,(?!\d)\s*|\.\s+|\s+and\s+(?!\d))")


def _turned_round(clause: str) -> str:
    found = _VERB_LAST.match(clause.strip())
    if found is None or not found.group("obj"):
        return clause
    verb = _LAST_VERBS[" ".join(found.group("verb").lower().split())]
    neg = (found.group("neg") or found.group("neg_first") or "").strip().lower()  # "bitte nicht GPU 0 benutzen"
    negated = "never " if neg and neg != "nicht" else "don't " if neg else ""
    lead, obj = _LEAD.match(found.group("obj")).group(1), _LEAD.sub("", found.group("obj"))  # type: ignore[union-attr]
    if (again := _MAY_AGAIN.search(obj)) is not None:  # "GPU 3 darfst du wieder nehmen": a must-not lifted
        return f"{lead}you can {verb} {obj[: again.start()].strip()} again"
    if verb == "stop" and re.fullmatch(r"(?:the\s+|den\s+)?server(?:\s+first)?", obj, re.I):
        obj = "the " + re.sub(r"^(?:the|den)\s+", "", obj.lower())  # "Server vorher stoppen"
    return f"{lead}{negated}{verb} {obj}"


_LEAD = re.compile(r"^((?:but\s+|and\s+|then\s+)?)", re.I)  # "aber Server vorher stoppen": the "but" stays first
_MAY_AGAIN = re.compile(r"\s+(?:darfst|kannst|darf|kann)\s+(?:du\s+)?wieder\s*$", re.I)


# English said in German order, with or without a German word: "the mem fraction please on 0,85 set", "GPU 2
# and GPU 6 avoid", "Nicht --enable-torch-compile use please": the verb said first, as English says it
_SET_LAST = re.compile(
    r"^(?:please\s+)?(?:the\s+)?(?P<what>[a-z][\w\s-]*?)\s+(?:please\s+)?(?:on|to|auf)\s+(?P<v>[\w.,/-]+)\s+"
    r"(?:set|stellen|setzen|umstellen|limit|limitieren|put)(?:\s+please)?$",
    re.I,
)
_PUT_LAST = re.compile(
    r"^(?P<lead>(?:but\s+)?(?:first\s+)?)(?:the\s+)?(?P<what>port|mem\s+fraction|[a-z][\w-]*)\s+(?:on\s+|to\s+|auf\s+)?"
    r"(?P<v>[\d.,]+)\s+(?:umstellen|stellen|setzen)(?:\s+please)?$",
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
    if (found := _PUT_LAST.match(text)) is not None:  # "aber vorher Port auf 30010 umstellen"
        return f"{found.group('lead')}set {found.group('what')} to {found.group('v')}"
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


def marked(text: str) -> bool:
    """Whether a message has a word only German has (read before another table puts "bitte" in English)."""
    return _MARK.search(text) is not None


def in_english(text: str, german: bool = False) -> str:
    """`text` with a German operator's words put in English; any other message as it was (`german`: the
    message had a German word before another table read it)."""
    if not german and not _MARK.search(text):
        return text
    text = word_table.in_english(text, _GERMAN_WORDS)
    pieces = _CLAUSES.split(text)
    return "".join(piece if at % 2 else _turned_round(piece) for at, piece in enumerate(pieces)).strip()
