"""A Polish operator's chat as its English, before a reply or an instruction is read: "tak", "nie, tego
nie odpalaj", "lec dalej", "uzyj GPU 3 i 5", "bez GPU 0", "nie ruszaj portu 8000", "odpal ponownie",
"zatrzymaj serwer i nie odpalaj dopoki nie powiem", "port 8000 zajety, wez 8001", "tylko na siodemce".
Typed with its letters (ą, ł, ż) or without them on a US keyboard: both are read alike. Only a message
with a word no English sentence has is read so; a "nie" no rule here placed keeps its clause unread
(agent.hearing.foreign), so a verb this table lacks is never read without its "not"."""

from __future__ import annotations

import re

from agent.hearing import word_table
from agent.hearing.spoken import UNPLACED

_FOLD = str.maketrans("ąćęłńóśźżĄĆĘŁŃÓŚŹŻ", "acelnoszzACELNOSZZ")  # "użyj" and "uzyj" are one word
_AGAIN = r"(?:ponownie|jeszcze\s+raz|znowu|od\s+nowa)"
_LAUNCH = r"(?:odpal(?:aj)?|uruchom|postaw|wstaw|zrestartuj|restartuj|przeladuj|restart)"
# "na siodemce", "trojke": a card or a step named by its numeral's noun, as Poles say them
_NUMERAL_NOUNS = [
    (r"zer(?:o|a|em)", "0"), (r"jedyn[kc]\w*", "1"), (r"dw[oó]j[kc]\w*", "2"), (r"tr[oó]j[kc]\w*", "3"),
    (r"czw[oó]r[kc]\w*", "4"), (r"pi[aą]t[kc]\w*", "5"), (r"sz[oó]st[kc]\w*", "6"), (r"si[oó]dem[kc]\w*", "7"),
    (r"[oó]sem[kc]\w*", "8"),
]  # fmt: skip

# The longer phrases first: "nie odpalaj" before "odpal", "jeszcze nie" before "nie".
_POLISH: list[tuple[str, word_table.Replacement]] = [
    # "nie uzywaj GPU 3 tylko GPU 4": "not X but Y"; what each is said of is no reading to make here
    (r"(\bnie\b[^,.;]*?)\s+tylko\s+", rf"\1 {UNPLACED} "),
    (r"\b(?:zartuje|zartowalem|jaja\s+sobie\s+robie)\b", "just kidding"),
    # replies
    (r"^(?:tak|taa+|jasne|dawaj|smialo|jedziesz|jedz|lec)\b(?=\s*(?:[,.!]|$))", "yes"),
    (r"^(?:ok|okej|dobra|tak)[\s,]+(?:odpalaj|dawaj|lec|jedz|smialo)\b", "ok go ahead"),
    (
        r"\b(?:lec|jedz|rob|dzialaj|idz)\s+dalej(?:\s+z\s+(?:planem|twoim\s+planem))?\b|\bkontynuuj\b",
        "carry on with your plan",
    ),
    (r"\bnie\s+pytaj\s+mnie(?:\s+o\s+(?:kazdy|kazda)\s+\w+)?\b", "don't ask me"),
    (r"\b(?:zatrzymaj|przerwij|zakoncz|ubij)\s+(?:wszystko|caly\s+run|run|calosc)\b", "stop everything"),
    (r"\b(?:koncze|konczymy|zamykamy)\s+na\s+dzis\b|\bna\s+dzis\s+(?:koniec|wystarczy)\b", "that's it for today"),
    (r"\bzamykamy\s+temat\b", "we're done"),
    (r"\bnie\s+(?:podpisuje|podpisze|akceptuje|zatwierdzam|zatwierdze)\b", "no, I won't sign off"),
    (r"\b(?:podpisuje|podpisuj|podpisz|akceptuje|zatwierdzam|zatwierdzaj)\b", "sign off"),
    (r"\bzanim\s+(?:podpisze|zatwierdze|zaakceptuje)\b", "before I sign off"),
    (r"\bza\s+wczesnie\s+na\b", "too early to"), (r"^jeszcze\s+nie\b", "not yet"), (r"^nie\b(?=\s*(?:[,.!]|$))", "no"),
    (r"\bnie\s+wiem\b", "not sure"), (r"\bzobaczymy\b", "we'll see"), (r"^czekaj\b", "wait"),
    (r"\bdzieki\b|\bdziekuje\b", "thanks"), (r"\bspoko\b", "fine"), (r"\bprosze\b", "please"),
    (r"\bzrob\s+najpierw\s+(?=\d)", "do number "), (r"\b(?:krok|opcj[ae])\s+(?=\d)", "step "),
    # instructions
    (rf"\bnie\s+{_LAUNCH}\s+(?:{_AGAIN}\s+)?(?:dopoki|dopóki|az)\s+nie\s+powiem\b", "don't relaunch till I say so"),
    (rf"\bnie\s+{_LAUNCH}(?:\s+{_AGAIN})?\b(?=\s*(?:[,.;!]|$))", "don't relaunch"),
    (r"\btego\s+nie\s+(?:odpalaj|uruchamiaj|rob)\b", "don't run that"),
    (r"\bnie\s+(?:uzywaj|uzyj|bierz|dawaj|wlaczaj|stosuj)\b", "don't use"),
    (r"\bnie\s+(?:ruszaj|dotykaj)\b", "don't touch"),
    (r"\b(?:wylacz|zatrzymaj|ubij|zgas)\s+(?:ten\s+)?(?:serwer|server|sglang)\w*\b", "stop the server"),
    (r"\b(?:zatrzymaj|przerwij|stop)\b(?=\s*(?:[,.!]|$))", "stop"),  # "tak, zatrzymaj": said bare, as "stop"
    (r"\bserwer\w*\b", "server"),
    (rf"\b{_LAUNCH}\s+{_AGAIN}\b|\b{_LAUNCH}\b(?=\s*(?:[,.;!]|$))", "relaunch"),
    (rf"\b{_LAUNCH}\s+(?:na|z|ze)\b", "relaunch with"), (rf"\b{_LAUNCH}\b", "relaunch"),
    (r"\b(?:zmierz|przetestuj|pusc\s+(?:benchmark|bench|test))\s+" + _AGAIN + r"\b", "measure again"),
    (r"\bwylacz\b", "disable"), (r"\bwlacz\b", "enable"), (r"\bdodaj\b", "add"),
    (r"\b(?:usun|wywal|wyrzuc)\b", "remove"), (r"\bustaw\b", "set"),
    (r"\b(?:zmien|podmien)\s+model\s+na\b", "switch the model to"), (r"\b(?:zmien|podmien)\b", "switch"),
    (r"\bprzenies\s+(?:to\s+|sie\s+)?na\b", "move to"),
    (r"\bzostan\s+na\b", "stay on"), (r"\btylko\b", "only"),
    (r"\b(?:uzyj|uzywaj|wez|bierz|daj)\b", "use"),
    (r"\bbez\b", "without"), (r"\bportu\b|\bporcie\b", "port"), (r"\bportow\b|\bporty\b", "ports"),
    # a port or GPU said to be taken or out: what it is said of is kept off (asked back)
    (r"\b(?:jest\s+)?zajet[yeao]\b", "is taken"), (r"\b(?:odpadaj[aą]|odpada)\b", "are out"),
    (r"\b(?:z|ze)\s+(?=--|[A-Z][A-Z0-9_]{2,}=|mem|tp\b|dp\b)", "with "), (r"\bz\s+env\b", "from the env"),
    (r"\bw\s+(?=fp8|bf16|fp16|int8|int4|auto\b)", "in "), (r"\bna\s+(?=gpu|port|tp\b|\d)", "on "),
    (r"(?<=\d)\s+i\s+(?=\d)", " and "),
    (r"\s+i\s+(?=(?:gpu|port|tp|dp|bez|without|don't|relaunch|measure|odpal|zmierz)\b)", " and "),
    (r"\s+(?:albo|lub)\s+", " or "), (r"\bna\s+razie\b", "for now"), (r"\bwystarczy\b", "is enough"),
    (r"[\s,]*\b(?:bo|poniewaz)\s+", ", because "), (r"\bten\s+(?=host|serwer|server|model|port|gpu)", "this "),
    (r"\bnie\s+ma\b", "has no"), (r"\bnie\s+teraz\b", "not now"), (r"\bteraz\b", "now"),
    (r"\b(?:twoja\s+decyzja|ty\s+decyduj|(?:rob|zrob)\s+jak\s+uwazasz|jak\s+uwazasz)\b", "your call"),
    (r"\bnie\s+mam\s+zdania\b", "no strong opinion"),
    # "GPU 0 nie touch ever", "nie --disable-cuda-graph anymore": the "not" of the English word after it
    (r"\bnie\s+(?=(?:touch|use|run|start|restart|relaunch|set|pass|add)\b)", "don't "), (r"\bnie\s+(?=--)", "no "),
]  # fmt: skip
_POLISH_WORDS = word_table.compiled(
    [(rf"\bna\s+(?:{said})\b", f"on GPU {gpu}") for said, gpu in _NUMERAL_NOUNS]  # a card is where it runs
    + [(rf"\b(?:{said})\b", gpu) for said, gpu in _NUMERAL_NOUNS]
    + _POLISH
)
_MARK = re.compile(
    r"\b(?:z|ze)\s+(?=--|mem[\s-])|\bw\s+(?=fp8|bf16|fp16|int[48])|"
    r"\b(?:tak|nie|uzyj|uzywaj|wez|daj|bez|odpal\w*|uruchom|zrestartuj|zatrzymaj|wylacz|wlacz|dodaj|usun|"
    r"wywal|ustaw|zmien|podmien|przenies|zmierz|pusc|zostan|tylko|portu|porcie|portow|zajet\w*|odpada\w*|dalej|"
    r"jedz|lec|dawaj|spoko|dzieki|prosze|podpis\w*|akceptuje|jeszcze|czekaj|ruszaj|dopoki|ponownie|wystarczy|"
    r"zrob|najpierw|koncze|zamykamy|zartuje|albo|teraz|twoja|decyzja|decyduj|uwazasz|zdania|(?:jedyn|dwoj|troj|czwor|piat|szost|siodem|osem)[kc]\w*)\b",
    re.I,
)
_LETTERS = re.compile(r"[ąćęłńśźżĄĆĘŁŃŚŹŻ]")  # no other language an operator here types has these


def in_english(text: str) -> str:
    """`text` with a Polish operator's words put in English; any other message as it was."""
    folded = text.translate(_FOLD)
    if not (_MARK.search(folded) or _LETTERS.search(text)):
        return text
    return word_table.in_english(folded, _POLISH_WORDS)
