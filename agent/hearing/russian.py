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
    r"\b(?:davai|davaj|ne\s+\w+ai|perezapusti|ostanovi|podpis\w*|poka|tolko|ispolzui|trogai|plz\s+i|ne\s+nado)\b|^(?:da|net)(?:[,.!]|$)",
    re.I,
)

# The longer phrases first: "не трогай" before "трогай", "пока я не скажу" before "пока".
_RUSSIAN: list[tuple[str, word_table.Replacement]] = [
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
