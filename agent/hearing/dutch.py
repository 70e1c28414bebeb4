"""A Dutch operator's chat as its English, before a reply or an instruction is read: "nee, niet doen",
"ja doe maar", "ga maar verder met je eigen plan", "doe maar de tweede", "stop alles", "niet tekenen",
"mem fraction naar 0.85", "geen cuda graph", "radix cache uit", "gpu 0 en 1 niet gebruiken", "gpus 2
t/m 5", "port 8000 is bezet", "herstart de server en meet opnieuw", "niet opnieuw starten tot ik het
zeg", "NCCL_IB_DISABLE eruit halen". Dutch, like German, often says the verb last ("HF_HUB_OFFLINE=1
zetten"): such a clause is turned round. Only a message with a word no English sentence has is read
so; a "niet" or "geen" no rule here placed keeps its clause unread (agent.hearing.foreign), so a verb
this table lacks is never read without its "not"."""

from __future__ import annotations

import re

from agent.hearing import word_table

_AGAIN = r"(?:opnieuw|nog\s+een\s+keer|nog\s+eens|weer)"
_BENCH = r"(?:meet|meten|benchen|bench|benchmark|benchmarken|test|testen)"
_START = r"(?:herstarten|opnieuw\s+starten|opnieuw\s+opstarten|starten|opstarten)"
_TILL_I_SAY = r"(?:tot(?:dat)?\s+ik\s+(?:het\s+)?(?:zeg|het\s+zeg|laat\s+weten|seintje\s+geef))"
_ORDINALS = [("eerste", "1"), ("tweede", "2"), ("derde", "3"), ("vierde", "4"), ("vijfde", "5")]

# an infinitive said last, and its English said first: "gpu 0 en 1 niet gebruiken" is "don't use gpu 0 and 1"
_LAST_VERBS = {
    "gebruiken": "use", "nemen": "use", "aanraken": "touch", "aankomen": "touch", "zetten": "set",
    "instellen": "set", "eruit halen": "remove", "eruit": "remove", "weghalen": "remove",
    "verwijderen": "remove", "erbij": "add", "toevoegen": "add", "erbij zetten": "add",
    "uitzetten": "disable", "uitschakelen": "disable", "aanzetten": "enable", "inschakelen": "enable",
    "downloaden": "download", "mag weg": "remove", "kan weg": "remove", "moet weg": "remove",
    "gebruik je niet": "don't use", "blijf je vanaf": "stay off", "blijf je af": "stay off",
}  # fmt: skip
_VERB_LAST = re.compile(
    r"^(?P<obj>.*?)\s*\b(?P<neg>niet|nooit)?\s*\b(?P<verb>"
    + "|".join(v.replace(" ", r"\s+") for v in sorted(_LAST_VERBS, key=len, reverse=True))
    + r")(?:\s+(?:graag|please|aub|a\.u\.b\.))?\s*$",
    re.I,
)
# "eerst X eruit halen": the when stays first, "eerst remove X"
_WHEN = re.compile(r"^(?:(?:eerst|dan|daarna|ook|even|gewoon)\s+)+", re.I)
_CLAUSES = re.compile(r"(\s*;\s*|\s*,(?!\d)\s*|\.\s+|\s+(?:and|en)\s+(?!\d))")

# The longer phrases first: "niet opnieuw starten" before "opnieuw starten", "nog niet" before "niet".
_DUTCH: list[tuple[str, word_table.Replacement]] = [
    # replies
    (r"^(?:jazeker|jawel|klopt|akkoord|prima|oke|oké)\b", "yes"), (r"^nee+\b", "no"), (r"\bnog\s+niet\b", "not yet"),
    (r"\bniet\s+doen\b", "don't"), (r"\b(?:niet|nog\s+niet)\s+(?:tekenen|aftekenen|afronden)\b", "don't sign off"),
    (r"\bdan\s+teken\s+ik\b", "then I'll sign off"),
    (r"\b(?:teken|rond)\s+(?:het\s+)?(?:maar\s+)?af\b|\b(?:aftekenen|afronden)(?:\s+maar)?\b", "sign off"),
    (r"\bga\s+(?:maar\s+)?(?:door|verder)(?:\s+met\s+(?:je|jouw)\s+(?:eigen\s+)?plan)?\b", "carry on with your plan"),
    (r"\b(?:doe|draai)\s+maar\s+(?:de|het|nummer|stap|optie)\s+(?=\d)", "do number "),
    *[(rf"\b(?:doe\s+maar\s+)?(?:de|het|nummer|stap|optie)\s+{said}\b", f"number {n}") for said, n in _ORDINALS],
    (r"\b(?:stap|optie)\s+(?=\d)", "step "),
    (r"\bdoe\s+maar\b|\bga\s+je\s+gang\b|\bga\s+maar\b|\b(?:even\s+)?draaien\s+maar\b|\beven\s+draaien\b", "go ahead"),
    (r"\bstop\s+alles\b|\b(?:kap|stop)\s+ermee\b|^kappen(?:\s+ermee)?\b", "stop everything"),
    (r"\bwe\s+zijn\s+klaar(?:\s+voor\s+vandaag)?\b", "we're done for today"),
    (r"\bgoed\s+genoeg\b", "good enough"), (r"\bbijna\b", "almost"), (r"\bwacht\b", "wait"),
    (r"\bmomentje\b", "a moment"),
    (r"\bik\s+weet\s+het\s+niet\b|\bweet\s+ik\s+(?:eigenlijk\s+|ook\s+)?niet\b|\bgeen\s+idee\b", "not sure"),
    (r"\bbedankt\b|\bdank\s*je(?:\s+wel)?\b", "thanks"),
    (r"\b(?:graag|aub|a\.u\.b\.|alsjeblieft|alstublieft)\b", "please"),
    # instructions
    (rf"\bniet\s+(?:meer\s+)?{_START}\s+{_TILL_I_SAY}", "don't relaunch till I say so"),
    (rf"\bniet\s+(?:meer\s+)?{_START}\b", "don't relaunch"), (_TILL_I_SAY, "till I say so"),
    (rf"\b{_BENCH}\s+(?:het\s+|hem\s+)?{_AGAIN}\b|\b{_AGAIN}\s+{_BENCH}\b|\bbench\s+{_AGAIN}\s+draaien\b",
     "measure again"),
    (r"\bherstart\b|\bstart\s+(?:het|hem|de\s+server)\s+opnieuw\b|\bopnieuw\s+(?:starten|opstarten)\b", "restart"),
    (r"\b(?:stop|stopt)\s+de\s+server\b|\bzet\s+de\s+server\s+uit\b", "stop the server"),
    (r"\bzet\s+(.+?)\s+uit\b", r"disable \1"), (r"\bzet\s+(.+?)\s+aan\b", r"enable \1"),
    (r"\b(radix\s+cache|cuda\s+graphs?|torch\s+compile|dp\s+attention)\s+uit\b", r"disable \1"),
    (r"\b(radix\s+cache|cuda\s+graphs?|torch\s+compile|dp\s+attention)\s+aan\b", r"enable \1"),
    (r"\bgeen\s+(?=cuda\s+graph|radix|torch\s+compile)", "disable "), (r"\bgeen\s+(?=--|[a-z])", "no "),
    (r"\bniet\s+(?=op\s+)", "not "), (r"\bniet\s+(?=--|port|poort|gpu|\d|[a-z]+\b(?!\s+(?:gebruiken|nemen)))", "not "),
    (r"\b(?:is|zijn)\s+niet\s+genoeg\b", "is not enough"), (r"\b(?:is|zijn)\s+genoeg\b", "is enough"),
    (r"\b(?:is|zijn)\s+bezet\b|\bbezet\b", "is taken"), (r"\bgebruik\b|\bneem\b", "use"), (r"\bzet\b", "set"),
    (r"\b(?:model\s+)?staat\s+lokaal\s+(?:in|op|onder)\b", "model is local at"),
    (r"(?<=\d)\s+(?:t/m|tot\s+en\s+met)\s+(?=\d)", "-"), (r"(?<=\d)\s+en\s+(?=\d|[A-Z][A-Z0-9_]{2,}=)", " and "),
    (r"\b((?-i:[A-Z][A-Z0-9_]{2,})|frac\w*|fraction|size|length|len|bs)\s+op\s+(?=\.?\d)", r"\1 to "),
    (r"\s+en\s+(?=(?:gpu|port|tp|dp|bench|meet|measure|restart|herstart|relaunch|don't|set|use|disable)\b)", " and "),
    (r"\bnaar\s+(?=\d|fp8|bf16|auto\b)", "to "), (r"\bop\s+(?=gpu|port|poort|\d)", "on "), (r"\bmet\b", "with"),
    (r"\bzonder\b", "without"), (r"\bpoorten\b", "ports"), (r"\bpoort\b", "port"), (r"\beerst\b", "first"),
    (r"\bdan\s+(?=measure|restart|set|use|stop)", "then "), (r"\bhetzelfde\b", "the same"), (r"\bniks\b", "nothing"),
    (r"\bde\s+(?=server|model|bench|log|gpu)", "the "), (r"\bwaarom\b", "why"), (r"\bis\s+dit\b", "is this"),
    # "tp 4 of tp 8": "of" is Dutch's "or"; "over tien minuten": in ten minutes (a later time)
    (r"\b(tp|dp|port|gpus?)(\s*\d+\s+)of(?=\s+\1\s*\d)", r"\1\2or"), (r"\bover\s+(\S+)\s+minuten\b", r"in \1 minutes"),
    (r"\bover\s+(?:een\s+)?half\s+uur\b", "in half an hour"), (r"\bover\s+een\s+uur\b", "in an hour"),
    *[(rf"\b{said}\b", n) for said, n in [("vijf", "five"), ("tien", "ten"), ("twintig", "twenty")]],
    (r"\b(?:is|zijn)\s+kapot\b|\bkapot\b", "is broken"), (r"\bnooit\b", "never"), (r"\balleen\b", "only"),
    (r"\bjij\s+beslist\b|\bzeg\s+jij\s+het\s+maar\b|\bjouw\s+keuze\b", "your call"), (r"^liever\s+", ""),
    (r"\bde\s+hele\b", "the whole"), (r"\bnu\b", "now"), (r"\bmooie\s+cijfers\b", "nice numbers"),
]  # fmt: skip
_DUTCH_WORDS = word_table.compiled(_DUTCH)
_MARK = re.compile(
    r"\b(?:niet|nee+|geen|graag|naar|herstart\w*|opnieuw|gebruik\w*|bezet|genoeg|eerst|doe|klaar|vandaag|nummer|"
    r"eerste|tweede|derde|vierde|vijfde|wacht|nog|keer|meet|meten|eruit|erbij|zonder|poort\w*|staat|lokaal|"
    r"draai\w*|zetten|teken\w*|aftekenen|afronden|akkoord|alles|verder|jazeker|jawel|klopt|kappen|kap|niks|bijna|"
    r"momentje|hetzelfde|bedankt|aub|alsjeblieft|alstublieft|uitzetten|aanzetten|weghalen|verwijderen|toevoegen|"
    r"aanraken|aankomen|downloaden|uit|zet|minuten|uur|kapot|nooit|alleen|beslist|liever|optie|hele|weg|vanaf|ermee|weet)\b|\bt/m\b|"
    r"\b(?:restart|relaunch|start|launch)\s+met\b|\b(tp|dp|port|gpus?)\s*\d+\s+of\s+\1\s*\d|\bde\s+(?:server|hele|run)\b|"
    r"\b(?:frac\w*|fraction|size|length|len|bs)\s+op\s+\.?\d",
    re.I,
)


def _turned_round(clause: str) -> str:
    found = _VERB_LAST.match(clause.strip())
    if found is None:
        return clause
    verb = _LAST_VERBS[" ".join(found.group("verb").lower().split())]
    negated = {"niet": "don't ", "nooit": "never "}.get((found.group("neg") or "").lower(), "")
    if not found.group("obj"):
        return f"{negated}{verb}" if negated else clause  # "niet aankomen": the must-not, of what was just named
    when = _WHEN.match(found.group("obj"))
    lead = when.group(0) if when is not None else ""
    return f"{lead}{negated}{verb} {found.group('obj')[len(lead) :]}"


def in_english(text: str) -> str:
    """`text` with a Dutch operator's words put in English; any other message as it was."""
    if not _MARK.search(text):
        return text
    pieces = _CLAUSES.split(text)
    text = "".join(piece if at % 2 else _turned_round(piece) for at, piece in enumerate(pieces))
    return word_table.in_english(text, _DUTCH_WORDS)
