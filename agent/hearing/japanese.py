"""A Japanese operator's chat as its English, before a reply or an instruction is read: Japanese typed in
Latin letters, verb last ("torch compile wa tsukawanaide", "mem frac 0.85 ni shite", "GPU 4-7 dake de
tp 4", "tp 4 dp 2 de onegai shimasu", "dame", "mada desu") and the phrases of its own script an operator
answers with ("2番でお願いします", "承認しません", "再起動してください"). Only a message with such a word is
read so; a particle or verb ending no rule here placed keeps its clause unread (`left`): the "not" of a
Japanese verb is in its ending, so a clause read around it could be read the wrong way round."""

from __future__ import annotations

import re

from agent.hearing import word_table

# what a verb-last clause is said about: the words before it, up to a comma or a sentence's end
_X = r"(?P<x>(?:[^,.;:!?、。\s]|[.:](?=\w)|\s)+?)"  # "0.85" and "expandable_segments:True" are one word
_PLEASE = r"(?!\w)(?:\s+(?:kudasai|onegai(?:\s+shimasu)?|ne|yo)\b)?"  # never "tsukatte" of "tsukatteru"
# a setting's name, then its value: "max running requests wa 256", "attention backend wa flashinfer"
_NAME_VALUE = r"(?P<n>[a-z][\w -]*?)\s+(?:wa|wo|o)\s+(?P<v>[\w./:-]+)"

# The longer phrases first: "tsukawanaide" before "tsukatte", "sign off no mae ni" before "sign off".
_JAPANESE: list[tuple[str, word_table.Replacement]] = [
    # its own script: the answers, and the words an instruction is made of
    (r"そのまま続けて(?:ください|下さい)?|続けて(?:ください|下さい)", "carry on"),
    (r"やめて(?:ください|下さい)", "no, don't"), (r"その?コマンドは不要(?:です)?", "that command is not needed"),
    (r"今日はここまで(?:です)?", "done for today"), (r"どうぞ", "go ahead"), (r"(\d)\s*番で?", r"number \1 "),
    (r"承認しません|承認できません", "no, I don't sign off"), (r"承認します", "approve"),
    (r"サーバー\s*を?\s*再起動(?:して(?:ください|下さい)?)?", "relaunch the server"),
    (r"再起動(?:して(?:ください|下さい)?)?", " relaunch "), (r"再測定", " measure again "), (r"サーバー", "server"),
    (r"モデルを\s*(?P<m>\S+?)\s*に変えて", r"switch the model to \g<m>, "),
    (r"(?P<x>[\w -]+?)\s*(?:は|を)\s*切って(?:ください|下さい)?", r"disable \g<x>"),
    (r"次は\s*", ""), (r"(?<=[\w\d])\s*で$", ""),
    # replies
    (r"^(?:hai|yoshi)\b[\s,]*", "yes "), (r"^(?:dame|iie|ie|iya+)\b", "no"), (r"^mada\s+desu\b", "not yet"),
    (r"\bowari\s+desu\b", "we're done"), (r"\b(?:otsukaresama|otsukare)(?:\s+(?:deshita|desu))?\b", "thanks"),
    (r"\barigatou?(?:\s+gozaimasu)?\b", "thanks"), (r"^sumimasen\b", "sorry"),
    (r"\bkore\s+wa\s+skip\b", "skip this"), (r"\bsign\s+off\s+no\s+mae\s+ni\b", "before I sign off"),
    (r"\bsign\s+off\s+shimasu\b", "sign off"),
    (r"\b(?P<x>\w+)\s+(?:wo|o)\s+saki\s+ni\s+mitai\b", r"I want to see the \g<x> first"),
    # instructions, verb last: the verb said first, as English says it; a reason said first ("Y is on X,
    # so don't use it") is the verb's object said before it
    (rf"{_X}\s+wa\s+[^,.;]+?\s+ga\s+tsukatte(?:ru|imasu)\s+(?:kara|node)[\s,]+tsukawanaide{_PLEASE}",
     r"don't use \g<x>"),
    (rf"{_X}\s+wa\s+(?P<y>[^,.;]+?)\s+ga\s+tsukatte(?:ru|imasu)(?:\s+(?:kara|node)\b)?", r"\g<x> is in use by \g<y>"),
    (r"^(?P<r>[^,.;]+?)\s+(?:da\s+kara|dakara|nanode)\s+", r"\g<r>; "),
    (rf"{_X}\s+(?:wo\s+|o\s+)?stop\s+shite{_PLEASE}", r"stop \g<x>"),
    (r"\b(?P<ids>\d+(?:\s*[,-]\s*\d+)+)\s+de\s+(?=tp\s*\d|dp\s*\d)", r"on \g<ids> with "),
    (rf"{_X}\s+(?:made)\s+(?P<v>relaunch|restart)\s+shinaide{_PLEASE}", r"don't \g<v> until \g<x>"),
    (rf"\b(?P<v>relaunch|restart)\s+shinaide{_PLEASE}", r"don't \g<v>"),
    (rf"{_X}\s+(?:wa\s+|wo\s+|o\s+)?tsukawanaide{_PLEASE}", r"don't use \g<x>"),
    (rf"{_X}\s+(?:wa\s+|wo\s+|o\s+)?iranai(?:\s+desu)?", r"don't use \g<x>"),
    (rf"^{_X}\s+(?:wa\s+)?dame(?:\s+desu)?(?=$|[,.;!])", r"don't use \g<x>"),  # "GPU 5 dame desu": no good
    (rf"{_X}\s+(?:wa\s+|wo\s+|o\s+)?tsukatte{_PLEASE}", r"use \g<x>"),
    (rf"{_X}\s+(?:wa\s+|wo\s+|o\s+)?tsukete{_PLEASE}", r"use \g<x>"),
    (rf"{_X}\s+(?:ga\s+)?hitsuyou(?:\s+desu)?", r"use \g<x>"),
    (rf"{_X}\s+(?:wa\s+|wo\s+|o\s+)?tomete{_PLEASE}", r"stop \g<x>"),
    (rf"{_X}\s+off\s+ni\s+shite{_PLEASE}", r"disable \g<x>"),
    (rf"\bmodel\s+(?:wa|wo|o)\s+(?P<m>\S+)\s+ni\s+kaete{_PLEASE}", r"switch the model to \g<m>"),
    (rf"{_NAME_VALUE}\s+(?:ni\s+(?:shite|sagete|agete|seigen\s+shite|kaete)|de\s+juubun(?:\s+desu)?){_PLEASE}",
     r"set \g<n> to \g<v>"),
    (rf"^{_NAME_VALUE}\s+de{_PLEASE}$", r"set \g<n> to \g<v>"),
    (rf"{_X}\s+ni\s+(?:shite|sagete|agete|seigen\s+shite){_PLEASE}", r"set \g<x>"),
    (rf"{_X}\s+(?:wa|wo|o)\s+(?P<v>avoid|skip|unset|disable|enable|use|set|stop)\b(?:\s+shite)?{_PLEASE}",
     r"\g<v> \g<x>"),
    (rf"{_X}\s+(?:wo\s+|o\s+)?(?P<v>unset|set)\s+(?:shite|onegai){_PLEASE}", r"\g<v> \g<x>"),
    (rf"{_X}\s+mo\s+tameshitai(?:\s+desu)?", r"try \g<x>"),
    (r"\b(?P<x>(?:gpus?\s+)?\d+(?:\s*(?:-|,|to|and)\s*\d+)*)\s+dake\s+de\s+(?=\w)", r"only \g<x> with "),
    (r"\b(?P<x>(?:gpus?\s+)?\d+(?:\s*(?:-|,|to|and)\s*\d+)*)\s+dake(?:\s+de)?\b", r"only \g<x>"),
    (r"\bbench(?:mark)?\s+(?:wo\s+)?(?:onegai|shite|mou\s+ikkai)\b|\bmou\s+ikkai\s+hakatte\b", "measure again"),
    (r"\b(?P<v>relaunch|restart|stop)\s+shite\b", r"\g<v>"),
    (r"\b(?:kyou\s+wa\s+)?mou\s+tsukawanai\b", "no longer needed"),
    (r"\b(?P<x>[\w./=:-]+)\s+de\s+(?:onegai(?:\s+shimasu)?|kudasai)\b", r"\g<x> please"),
    (r"\b(?P<x>[\w./=:-]+)\s+de$", r"\g<x>"),
    (r"\bok\s+desu\b", "ok"), (r"(?<=[,.!;]\s)(?:dame|iie|iya+)\b|(?<=\.\.\.)\s*(?:dame|iie|iya+)\b", "no"),
    (r"\b(?:yoroshiku(?:\s+onegai(?:\s+shimasu)?)?|onegai(?:\s+shimasu)?|kudasai)\b", "please"),
    (r"\s+desu\b", ""),
]  # fmt: skip
_WORDS = word_table.compiled(_JAPANESE)
_MARK = re.compile(
    r"[\u3040-\u30ff]|承認|再起動|再測定|次は|\b(?:onegai|kudasai|shimasu|desu|deshita|dame|iie|yoroshiku|tsukawanaide|"
    r"tsukatte\w*|shite|shinaide|tomete|dake|ikkai|kaete|tsukete|hitsuyou|iranai|seigen|tameshitai|hakatte|sagete|"
    r"owari|otsukare\w*|arigatou?|yoshi|sumimasen|mada|chotto|kamo|nani|kinou|kyou|kakunin|juubun|wa|wo|"
    r"\w+masen|dekinai|\w+takunai|janai|nakute|igai|joudan)\b|^hai\b",
    re.I,
)
# a particle or verb ending left after the table, none an English word: its clause is not read
_LEFT = re.compile(
    r"\b(?:wa|ga|wo|kamo|nai|shite\w*|shinai\w*|shita|kudasai|onegai|desu|deshita|dake|kara|nanode|tsuka\w+|"
    r"tomete|tameshi\w*|kaete|mitai|shitai|chotto|ikkai|mada|nani|kinou|kyou|kakunin|ayashii|matte|deteru|"
    r"kowareteru|urusai|osoi|juubun|shiritai|genin|"
    # its negative, past, wish and question endings: a verb read without them is read the wrong way round
    r"\w+masen|\w+nai|\w+nakute|naku|janai|ja|igai|ika|mo|ii|ka|ita|ne|yo|kedo|uso|joudan|iya+|ng|dame|iie|nara|tara)\b",
    re.I,
)


# "ｔｐ４", "ｇｐｕ ３": letters and digits typed in the full-width forms of a Japanese (or Chinese) input method;
# never its punctuation ("，" ends a Chinese clause where "," may join a list)
_HALF_WIDTH = {
    code: code - 0xFEE0
    for low, high in ((0xFF10, 0xFF19), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A))
    for code in range(low, high + 1)
}


def half_width(text: str) -> str:
    """`text` with full-width letters and digits as their plain ASCII."""
    return text.translate(_HALF_WIDTH)


def in_english(text: str) -> str:
    """`text` with a Japanese operator's words put in English; any other message as it was."""
    return word_table.in_english_when(text, _MARK, _WORDS)


def left(clause: str) -> bool:
    """Whether `clause` keeps a Japanese particle or verb ending no rule placed (see the docstring)."""
    return bool(_LEFT.search(clause))
