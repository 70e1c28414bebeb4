"""Hindi typed in Devanagari, mixed with English words, as the Hinglish an operator types in Latin letters
("GPU 0 मत use करो" is "GPU 0 mat use karo", "server बंद करो" is "server band karo"), which
`agent.hearing.hinglish` then puts in English. A Devanagari word no entry here spells stays as it is, and
its clause unread."""

from __future__ import annotations

import re

from agent.hearing import word_table

_DEVANAGARI = re.compile(r"[\u0900-\u097f]")

# the longer phrases first; the Latin spelling is hinglish.py's own
_WORDS = word_table.compiled(
    [
        (r"\s*।\s*", ". "),
        (r"(?:^|(?<=[.,]\s))और\s+", ""),  # a sentence's leading "and": never the verb's object
        (r"जब\s+तक\s+मैं\s+न\s+बोलूँ", "jab tak main na bolu"),
        (r"आज\s+के\s+लिए\s+इतना\s+ही\s+काफ़?ी\s+है", "that's it for today"),
        (r"तुम\s+decide\s+करो", "you decide"),
        (r"अपने\s+हिसाब\s+से\s+देख\s+लो", "your call"),
        (r"जो\s+ठीक\s+लगे", ""),
        (r"मुझे\s+फर्क\s+नहीं\s+पड़ता", "I don't mind"),
        (r"आगे\s+बढ़ो", "go ahead"),
        (r"ठीक\s+है", "theek hai"),
        (r"(?:और\s+)?कुछ\s+मत\s+बदलो", "change nothing"),
        (r"कभी\s+मत", "mat"),
        (r"ये\s+मत\s+करो", "don't run that"),
        (r"(\S+\s+\d+)\s+पे\s+shift\s+करो", r"use \1"),
        (r"पर\s+पहले", "but first"),
        (r"लेकिन", "but"),
        (
            r"(पहला|दूसरा|तीसरा)\s+(?:वाला|option)",
            lambda m: {"पहला": "number 1", "दूसरा": "number 2", "तीसरा": "number 3"}[m.group(1)],
        ),
        (r"(?:run\s+)?यहीं\s+ख़?त्म\s+करो", "stop here"),
        (r"पूरा\s+run\s+abort\s+करो", "kill the whole run"),
        (r"उनको\s+avoid\s+करो", "avoid them"),
        (r"खराब\s+हैं", "are broken"),
        (r"की\s+ज़?रूरत\s+नहीं(?:\s+है)?", "not needed"),
        (r"वापस\s+उठाओ", "uthao"),
        (r"हटा\s+दो", "hata do"),
        (r"कर\s+दो", "kar do"),
        (r"देख\s+लो", "dekh lo"),
        (r"पहले\s+एक\s+बार\s+और", "ek baar aur"),
        (r"एक\s+बार\s+और", "ek baar aur"),
        (r"हाँ|हां", "haan"),
        (r"नहीं|नही", "nahi"),
        (r"अभी", "abhi"),
        (r"मत", "mat"),
        (r"करो", "karo"),
        (r"चलो", "chalo"),
        (r"चलाओ", "chalao"),
        (r"बंद", "band"),
        (r"दोबारा", "dobara"),
        (r"सिर्फ", "sirf"),
        (r"पे", "pe"),
        (r"रखो", "rakho"),
        (r"लगाना", "lagana"),
        (r"हटाओ", "hatao"),
        (r"बदलो", "badlo"),
        (r"डालो", "daalo"),
        (r"छूना", "touch"),
        (r"पढ़ो", "dekho"),
        (r"वाला", "wala"),
        (r"पहले", "pehle"),
        (r"बस", "bas"),
        (r"रुको", "wait"),
        (r"और", "aur"),
        (r"(?<=\d)\s+से\s+(?=\d)", "-"),
        (r"से", "se"),  # "GPU 0 से 3": 0 to 3
        (r"दोनों", "dono"),
        (r"वरना", "otherwise"),
        (r"फिर\s+देखो", ""),
    ]
)


def in_latin(text: str) -> str:
    """`text` with its Devanagari Hindi spelt as Hinglish in Latin letters; any other message as it was."""
    return word_table.in_english(text, _WORDS) if _DEVANAGARI.search(text) else text
