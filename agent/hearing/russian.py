"""A Russian operator's words as their English, before a reply or an instruction is read, in Cyrillic
or typed in Latin letters: "да, гони", "не трогай GPU 3", "используй порт 30001", "перезапусти с tp 4",
"останови сервер и не перезапускай, пока я не скажу", "ne trogai gpu 3 i 5". Any Cyrillic left after
this is a word the grammar does not know: the clause is not read (`chinese.has_unread_script`); a
"не"/"ne" left keeps it unread too (agent.hearing.foreign)."""

from __future__ import annotations

import re

from agent.hearing import word_table

_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
# the Latin spellings a Russian operator types on an English keyboard
_LATIN_MARK = re.compile(
    r"\b(?:davai|davaj|ne\s+\w+ai|perezapusti|ostanovi|podpis\w*|poka|tolko|ispolzui|trogai|plz\s+i|ne\s+nado|"
    r"ispolzuy|vykorystovuy|trogay|zupyny|perezapusk\w*|perezapusty|postav|vyklyuchi|vklyuchay|uberi|ubery|progoni|"
    r"pomenyay|smeni|dobav|poprobuy|pereydi|pereezzhay|ladno|horosho|normalno|dobre|punkt|variant|reshay|"
    r"zavershuy|zakanchivaem|prodolzhay|pidpysuy|tilky|treba|usmotrenie|hotya|znayu)\b|^(?:da|net|ni|tak)(?:[,.!]|$)",
    re.I,
)

# The longer phrases first: "не трогай" before "трогай", "пока я не скажу" before "пока".
_RUSSIAN: list[tuple[str, word_table.Replacement]] = [
    # Russian and Ukrainian typed in Latin letters, with "y" for "й" ("ispolzuy", "trogay"): replies
    (r"^(?:ladno|horosho|khorosho|normalno|dobre)\b", "ok"), (r"^ni(?=[\s,.!]|$)", "no"), (r"^tak(?=[\s,.!]|$)", "yes"),
    (r"^ne,?\s+ne\s+treba(?:\s+tsogo\s+robyty)?\b", "no, don't do that"),
    (r"\bvin\s+i\s+tak\s+pratsyuye\b", "it works as is"),
    (r"\b(?:davai|davaj)\s+punkt\s+(?=\d)", "do "), (r"\bpunkt\s+(?=\d)", "step "),
    (r"^pervyy\s+variant\b", "option 1"), (r"^vtoroy\s+variant\b", "option 2"), (r"^tretiy\s+variant\b", "option 3"),
    (r"^(?:sam\s+reshay|reshay\s+sam|na\s+tvoe\s+usmotrenie)\b", "your call"),
    (r"\bya\s+ne\s+budu\s+tut\s+reshat\b", "I won't decide this"),
    (r"\bidi\s+dalshe\s+po\s+svoemu\s+planu\b|\bprodolzhay(?:\s+rabotat)?\b", "carry on with your plan"),
    (r"^vse,?\s+stop[.!]?\s+", ""), (r"\b(?:zakanchivaem|zavershuy)\s+(?:ves\s+)?run\b", "stop the whole run"),
    (r"\bna\s+sogodni\s+vse\b", "that's it for today"), (r"\bbolshe\s+nichego\s+ne\s+delay\b", "do nothing more"),
    (r"\bne\s+(?:podpisyvay|pidpysuy)\b", "don't sign off"), (r"\b(?:podpisyvay|pidpysuy)\b", "sign off"),
    (r"^poka\s+net\b", "not yet"), (r"\bhochu\s+poprobovat\s+eshe\s+chto-nibud\b", "I want to try something else"),
    (r"\btolko\s+bystro\b", "but quickly"), (r"\beto\s+to\s+chto\s+nado\b", "is what we need"),
    # instructions, the verb said last first ("server zupyny", "radix cache vyklyuchi", "gpu 7 ne trogay")
    (r"\bserver\s+(?:zupyny|ostanovi)\b", "stop the server"), (r"^(.+?)\s+vyklyuchi\b", r"disable \1"),
    (r"^(.+?)\s+ne\s+(?:trogay|chipay)\b", r"don't touch \1"),
    (r"^((?-i:[A-Z][A-Z0-9_]{2,}))\s+(?:ubery|uberi)\b", r"unset \1"),
    (r"\b(?:uberi|ubery|pryberi)\s+(?=(?-i:[A-Z][A-Z0-9_]{2,})\b)", "unset "),
    (r"\b(?:uberi|ubery|pryberi)\s+(?=--)", "don't use "),
    (r"\b(?:bilshe\s+)?ne\s+(?:perezapuskay|zapuskay)(?:\s+bolshe)?\b", "don't relaunch"),
    (r"\bpoka\s+ya\s+ne\s+(?:skazhu|razberus)\b", "till I say so"),
    (r"\bne\s+(?:ispolzuy|vykorystovuy)\b", "don't use"), (r"\b(?:ispolzuy|vykorystovuy|beri)\b", "use"),
    (r"\bne\s+(?:trogay|chipay)\b", "don't touch"), (r"\bne\s+vklyuchay\b", "don't enable"),
    (r"\bvyklyuchi\b", "disable"), (r"\bvklyuchi\b", "enable"), (r"\b(?:zupyny|ostanovi)\b", "stop"),
    (r"\bperezapusty\s+yak\s+ye\b", "relaunch"), (r"\b(?:perezapusty|perezapusti)\b", "relaunch"),
    (r"\bnichogo\s+ne\s+minyay\b|\bnichego\s+ne\s+menyay\b", "change nothing"),
    (r"\b(?:postav|vystav|dai|day)\b", "set"), (r"\b(?:dobav|dodai)\b", "add"),
    (r"\bprogoni\s+benchmark\s+eshe\s+raz\b|\beshe\s+raz\s+benchmark\b", "measure again"), (r"\beshe\s+raz\b", "again"),
    (r"\b(?:pomenyay|smeni)\s+model\s+na\b|\bmodel\s+(?:pomenyay|smeni)\s+na\b", "use model"),
    (r"\b(?:pereydi|pereezzhay)\s+na\s+port\b", "use port"), (r"\bno\s+snachala\b", "but first"),
    (r"\bdavai\s+(?=tp|dp|port|gpu|--)", ""), (r"\s*\bpoprobuy\b", ""), (r"\s+i\s+posmotrim\b", ""),
    (r"\btilky\s+ne\s+na\b", "but not on"), (r"\bego\s+voobshe\b", "it at all"),
    (r"\bhotya\s+net,?\s+mozhet\b", "or maybe"), (r"\bne\s+znayu\b", "not sure"), (r"\bporty\b", "ports"),
    (r"\bpochemu\s+ty\s+na\s+(gpu\s+\d+)\s+zapustil\b", r"why did you launch on \1"),
    (r"\bne\s+ispolzuy\s+ego\s+voobshe\b", "don't use it at all"),
    (r"\bon\s+dlya\s+monitoringa\b", "it's for monitoring"),
    # reasons, said after an order
    (r"\btam\s+inshiy\s+job\s+u\s+kolleg\s+krutitsya\b", "a colleague's job runs there"),
    (r"\btam\s+prod\s+sidit\b", "prod lives there"), (r"\btam\s+ECC\s+errory\s+sypyatsya\b", "it throws ECC errors"),
    (r"\bslishkom\s+mnogo\s+musora\s+v\s+logah\b", "too much noise in the logs"),
    (r"\bu\s+nas\s+on\s+vsegda\s+padaet\s+na\s+etoy\s+versii\b", "it always crashes on this version"),
    (r"\bu\s+nas\s+vse\s+zaprosy\s+raznye\b", "our requests all differ"),
    (r"\bbez\s+grafov\s+slishkom\s+medlenno\b", "too slow without graphs"),
    (r"\btse\s+ya\s+dlya\s+debugu\s+stavyv\b", "I set that for debugging"),
    (r"\bdlya\s+testa\s+hvatit\b", "enough for a test"),
    (r"\bbez\s+nego\s+model\s+ne\s+gruzitsya\b", "the model won't load without it"),
    (r"\b(\d{4,5})\s+nam\s+nuzhen\s+dlya\s+drugogo\b", r"we need \1 for something else"),
    # replies
    (r"^(?:да|ага|угу|ок|окей|da|aga)(?=[\s,.!]|$)", "yes"), (r"^(?:нет|неа|net)(?=[\s,.!]|$)", "no"),
    (r"\b(?:давай|гони|го|davai|davaj)(?=\s*(?:[,.!]|$))", "go ahead"), (r"\bгони\s+(?=\S)", "run "),
    (r"\bспасибо\b|\bспс\b", "thanks"), (r"\bпжл\b", "please"),
    (r"^([A-Z][A-Z0-9_]*=\S+)\s+добавь(?:\s+в\s+env)?", r"\1"), (r"\b(?:давай|сделай|davai)\s+(?=\d\b)", "do "),
    (r"\b(?:делай|продолжай)\s+(?:сам\s+)?(?:по\s+своему\s+плану)?", "carry on with your plan"),
    (r"\bне\s+жди\s+меня\b", "don't wait for me"), (r"\bне\s+дергай(?:\s+меня)?\b", "don't ask me"),
    (r"\b(?:не\s+подписывай|ne\s+podpisyvai)(?:\s+(?:пока|poka))?\b", "don't sign off yet"),
    (r"\b(?:подписываю|подписывай|подпиши|podpisyvai|podpisyvayu|podpishi)\b", "sign off"),
    (r"^(?:не\s+надо|ne\s+nado)(?=[\s,.!]|$)", "no"), (r"^рано\b", "not yet"),
    (
        r"^(?:стоп|хватит)[,\s]+(?:всё|все)[,\s]+заканчиваем(?:\s+ран)?\b|^заканчиваем(?:\s+ран)?\b",
        "stop the whole run",
    ),
    (r"\b(?:topo|его|это)\s+не\s+надо\b", "don't run it"), (r"\bне\s+надо\b", "no"),
    # instructions: the negated verbs first
    (r"\b(?:пока|poka)\s+(?:я\s+)?не\s+скажу\b|\bpoka\s+ne\s+skazhu\b", "till I say so"),
    (r"\b(?:больше\s+)?не\s+(?:запускай|перезапускай|поднимай)\b|\bne\s+perezapuskai\b", "don't relaunch"),
    (r"\b(?:не\s+(?:трогай|трогать|юзай|используй|бери)|ne\s+(?:trogai|trogat|ispolzui))\b", "don't touch"),
    (r"\bне\s+передавай\b|\bne\s+peredavai\b", "don't pass"),
    (r"\bубери\s+(?=[A-Z][A-Z0-9_]+\s+из\s+env)", "unset "), (r"\s+из\s+env\b", ""),
    (r"^(--[\w-]+)\s+убери\b", r"don't use \1"), (r"\bубери\b", "remove"),
    # the other verbs ("перезапсти": a slip of the fingers)
    (r"\b(?:перезапусти|перезапсти|рестартни|perezapusti)\b", "relaunch"),
    (r"\b(?:останови|стопни|погаси|ostanovi)\b", "stop"), (r"\b(?:используй|юзай|бери|ispolzui)\b", "use"),
    (r"\b(?:добавь|добавить)(?:\s+флаг)?\b", "add"), (r"\b(?:выстави|поставь|ставь|задай)\b", "set"),
    (r"\b(?:включи|вкл)\b", "enable"), (r"\b(?:выключи|выкл|отключи)\b", "disable"),
    (r"\bпрогони\s+бенч\s+(?:ещё|еще)\s+раз\b|\bпрогони\s+бенч\s+заново\b|\bпрогони\s+бенч\b", "measure again"),
    (r"\b(?:ещё\s+раз|еще\s+раз|заново|снова)\b", "again"),
    (r"\bмодель\s+(?:возьми\s+)?(?=/)", "serve "),
    # nouns and small words
    (r"\bпорты\b", "ports"), (r"\bпорт\b", "port"), (r"\bсервер\b|\bserver\b", "server"), (r"\bгпу\b", "gpu"),
    (
        r"\b(?:кэша|кеша|кэш|"
        r"кеш)\b", "cache"), (r"\bторч\s+компайл\b", "torch compile"), (r"\bбез\s+(?=radix|cuda)",
        "disable ",
    ),
    (r"\b(?:только|tolko)\b", "only"), (r"\b(?:плз|пожалуйста|пж|pls|plz)\b", "please"),
    (r"(?<=\S)\s+(?:и|i)\s+(?=\S)", " and "), (r"\b(?:на|na)\s+(?=\d|gpu|port)", "on "),
    (r"\b(?:с|s)\s+(?=tp|dp)", "with "), (r"\bв\s+(?=fp8|bf16)", ""),
]  # fmt: skip
_RUSSIAN_WORDS = word_table.compiled(_RUSSIAN)


def in_english(text: str) -> str:
    """`text` with a Russian operator's words put in English; any other message as it was."""
    if not _CYRILLIC.search(text) and not _LATIN_MARK.search(text):
        return text
    return word_table.in_english(text, _RUSSIAN_WORDS)
