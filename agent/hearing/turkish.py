"""A Turkish operator's words as their English, before a reply or an instruction is read: "evet", "hayır,
gerek yok", "sen karar ver", "2 numara", "sadece gpu 4,5,6,7 kullan", "cuda graph kapat", "tp 8 olsun",
"30005'e geç", "relaunch yok". Turkish puts the verb last and glues a case ending to a word after an
apostrophe ("30001'e", "gpu 3'ü"), so endings are taken off and each clause's verb is said first. Only a
message with a Turkish letter or word is read so; a Turkish word no rule here places stays as written, and
its clause unread."""

from __future__ import annotations

import re

from agent.hearing import word_table

# replies and words said the same way wherever they stand; longer phrases first
_WORDS: list[tuple[str, word_table.Replacement]] = [
    # "X hub'dan çek": pull the model from the hub, the model to use
    (r"\b([\w.-]+/[\w.-]+)\s+hub(?:'?dan)?\s+çek\b", r"use \1"),
    # "gpu 3 boşalınca ...", "... olursa": when, if (a condition the run cannot watch)
    (r"^(.+?\b\w+(?:ınca|ince|unca|ünce|rsa|rse))\b", r"if \1,"),
    # "30001'e", "gpu 3'ü", "256'ya", "hub'dan": a case ending (never English's "don't", "it's", "we're")
    (r"(?<=[\w.])'(?!(?:t|s|re|ll|ve|d|m)\b)(?:[a-zçğıöşü]{1,4})\b", ""),
    (r"^(?:evet|tamamdır|tamamdir|tamam|olur|aynen)(?=[\s,.!]|$)", "yes"),
    (r"^(?:hayır|hayir)(?=[\s,.!]|$)", "no"), (r"^yok,?\s+gerek\s+yok\b|^gerek\s+yok\b", "no, not needed"),
    (r"(?:^|(?<=[.,;!]\s))yok(?:\s+yok)*(?=[\s,.!]|$)", "no"), (r"\bhayır\b|\bhayir\b", "no"),
    (r"\bbilmiyorum\b", "not sure"),
    # "30000 port'ta başka process var": something is there, so it is taken
    (r"\b(?:başka|baska)\s+(?:process|job|team\s+job|iş)\s+var(?:\s+orada)?\b", "is taken"),
    (r"\bhenüz\s+değil\b|\bhenuz\s+degil\b", "not yet"),
    (r"\bsen\s+karar\s+ver\b|\bsen\s+bilirsin\b", "your call"),
    (r"\b(?:biraz\s+daha\s+)?devam\s+et\b", "keep going"),
    (r"\b(?:yeter\s+)?bugünlük(?:\s+yeter)?\b|\byeter\b", "for today"),
    (r"\b(?:whole\s+run|run|her\s+şey(?:i)?)\s+(?:bitir|end\s+et|kapat)\b|\brun\s+end\s+et\b", "end the whole run"),
    (r"^dur(?=[\s,.!]|$)", "stop"), (r"^bekle(?=[\s,.!]|$)", "wait"),
    (r"(?<!\d)(\d)\s*numara\b", r"number \1"), (r"\b(?:ilk|birinci)(?:yi|yı|sini)?\b", "the first"),
    (r"\bikinci(?:yi|sini)?\b", "the second"), (r"\büçüncü(?:yü|sünü)?\b", "the third"),
    (r"\bsign\s+off\s+yok\b", "don't sign off"),
    (r"\b(re-?launch|restart|relaunch)\s+yok\b", "don't relaunch"),
    (r"\b(gpus?\s+\d[\d\s,ve-]*?)\s+yok\b", r"avoid \1"),
    (r"\btekrar\s+başlatma\b|\byeniden\s+başlatma\b|\bbaşlatma\b", "don't relaunch"),
    (r"\bben\s+söyleyene\s+kadar\b|\bben\s+deyince(?:ye\s+kadar)?\b", "till I say so"),
    (r"\bhiç\s+açma\b", "never use"), (r"\bbir\s+daha\b|\btekrar\b", "again"),
    (r"\blütfen\b|\blutfen\b", "please"), (r"\bsadece\b", "only"), (r"\bşimdi\b|\bsimdi\b", "now"),
    (r"(?<!')\bve\b", "and"), (r"\bama\b|\bfakat\b", "but"), (r"\bdeğil\b|\bdegil\b", "not"),
    (r"\b(remove|disable|enable|end|restart|relaunch)\s+et\b", r"\1"),  # "NCCL_DEBUG remove et": the verb's "do"
]  # fmt: skip
_WORD_TABLE = word_table.compiled(_WORDS)

# a clause's verb, said last, and its English, said first
_VERBS: list[tuple[str, str]] = [
    (r"never\s+use", "never use"), (r"not\s+use|don'?t\s+use", "don't use"),
    (r"disable", "disable"), (r"enable", "enable"), (r"remove", "remove"), (r"avoid", "avoid"),
    (r"kullanma(?:yın|yin)?", "don't use"), (r"kullan(?:ın|in)?", "use"),
    (r"kapat", "off"), (r"aç", "enable"), (r"durdur", "stop"),
    (r"(?:ile\s+)?(?:yeniden\s+|tekrar\s+)başlat|restart\s+et", "relaunch"), (r"(?:ile\s+)?başlat", "launch with"),
    (r"çıkar|kaldır|sil", "remove"), (r"ekle", "add"), (r"yap|olsun|çek|ayarla", "set"),
    (r"geç|al|taşı", "move to"), (r"değiştir", "switch"), (r"run|koş|çalıştır", "rerun"),
]  # fmt: skip
_VERB_LAST = [(re.compile(rf"^(?P<obj>.*?)\s+(?:{said})$", re.I), english) for said, english in _VERBS]
_CLAUSES = re.compile(r"(\s*;\s*|\s*,(?!\s*\d)\s*|\.(?:\s+|$)|\n|(?<!\d)\s+and\s+(?!\d))")
# said around the verb, kept in place: "but server kapat", "server kapat now", "üçüncüyü yap lütfen"
_LEAD = re.compile(
    r"^(?P<lead>(?:(?:but|and|then|first|instead)\s+)*)(?P<rest>.*?)(?P<tail>(?:\s+(?:now|please))*)$", re.I
)
_A_FEATURE = re.compile(r"cuda\s+graph|radix|torch\s+compile|trust\s+remote\s+code|--[a-z]", re.I)
_LETTER = re.compile(r"[çğışÇĞİŞ]")  # case-sensitive: under re.I "İ" would match every "i"
_MARK = re.compile(
    r"\b(?:evet|hayır|hayir|tamam\w*|olur|yok|değil|degil|kullan\w*|kapat|başlat\w*|durdur|ekle|yap|olsun|"
    r"geç|devam\s+et|bitir|lütfen|lutfen|sadece|şimdi|bekle|aynen|numara|gerek|henüz|bugünlük|üçüncü\w*|bir\s+daha|karar|"
    r"tekrar|(?<!')ve|(?:remove|disable|enable|end|restart)\s+et)\b",
    re.I,
)


def _turned_round(clause: str) -> str:
    """ "gpu 4,5 kullan" -> "use gpu 4,5": the clause's verb said first, then what it acts on."""
    parts = _LEAD.match(clause.strip())
    assert parts is not None  # every part of the pattern may be empty
    turned = _verb_first(parts.group("rest"))
    return clause if turned is None else f"{parts.group('lead')}{turned}{parts.group('tail')}"


def _verb_first(clause: str) -> str | None:
    for verb_last, english in _VERB_LAST:
        found = verb_last.match(clause.strip())
        if found is None:
            continue
        obj = found.group("obj").strip()
        if english == "off":  # "cuda graph kapat": the feature off; "server kapat": the server stopped
            return f"turn off {obj}" if _A_FEATURE.search(obj) else f"stop {obj}".replace("stop now", "stop")
        if english == "remove":
            return f"unset {obj}" if re.fullmatch(r"[A-Z][A-Z0-9_]+", obj) else f"don't use {obj}"
        if english == "rerun":
            return "measure again" if re.search(r"bench", obj, re.I) else None
        if english == "set" and re.match(r"^the\s+(?:first|second|third)$", obj):
            return f"do {obj}"  # "üçüncüyü yap": do the third
        if english == "set":
            return obj  # "tp 8 olsun", "mem frac 0.88 yap": the setting itself
        return f"{english} {obj}".strip()
    return None


def in_english(text: str) -> str:
    """`text` with a Turkish operator's words put in English; any other message as it was."""
    if not (_LETTER.search(text) or _MARK.search(text)):
        return text
    text = word_table.in_english(text, _WORD_TABLE)
    pieces = _CLAUSES.split(text)
    said = [piece if at % 2 else _turned_round(piece) for at, piece in enumerate(pieces)]
    return re.sub(r"[ \t]{2,}", " ", "".join(said)).strip()
