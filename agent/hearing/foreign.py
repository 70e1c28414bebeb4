"""An operator's words in another language, and its punctuation, as their English, before a reply or
an instruction is read: German ("nein", "ja", "bitte", "Nummer 2", "mach weiter", "Schluss", "0 bis 3"),
Japanese ("はい", "いいえ", "お願いします", "OK です", "GPU 0-3 使わないでください", "、" and "。"), Spanish
("sí", "dale", "por favor", "no toques la 0 ni la 1", "relanza con tp4"), and a
range written with a tilde or a dash of typesetting ("0~3", "4–7")."""

from __future__ import annotations

import re

from agent.hearing import (
    arabizi,
    cantonese,
    chinese,
    dutch,
    french,
    german,
    hebrew,
    hindi,
    hinglish,
    indonesian,
    italian,
    japanese,
    korean,
    pidgin,
    polish,
    portuguese,
    russian,
    scots,
    singlish,
    spanish,
    spoken,
    swahili,
    taglish,
    thai,
    turkish,
    vietnamese,
)

_WORDS = [
    # Japanese punctuation first: the words after it are matched as English is
    (re.compile(r"\s*、\s*"), ", "),
    (re.compile(r"\s*。\s*"), ". "),
    (re.compile(r"(?<=\d)(?:\s?[~〜]\s?|–)(?=\d)"), "-"),  # "gpu 0~3", "GPUs 4–7"; never "30001 — 30000's held"
    # "GPU 0-3 使わないでください": the verb said last, "don't use" said first
    (re.compile(r"^(?P<x>[^,.;]+?)\s*(?:は|を)?\s*使わないで(?:ください|下さい)?", re.M), r"don't use \g<x>"),
    # "attention backend は triton でお願いします": the topic marker, then the value, asked for politely
    (re.compile(r"\s*は\s*(?P<x>[^\s,.;]+)\s*で\s*お願いします"), r" \g<x> please"),
    (
        re.compile(r"\s*(?:お疲れ様(?:でした|です)?|おつかれさま(?:でした)?|ありがとう(?:ございます|ございました)?)"),
        " thanks",
    ),
    (re.compile(r"はい"), "yes"),
    (re.compile(r"いいえ"), "no"),
    (re.compile(r"お願いします|お願い"), "please"),
    (re.compile(r"\s*です(?=\s|[,.!]|$)"), ""),  # "OK です": the copula adds nothing
    (re.compile(r"[\s,]+(?:ja|oder|gell)\?\s*$", re.I), ""),  # "then measure again ja?": a German tag, asking agreement
    (re.compile(r"\bnein\b", re.I), "no"),
    # a yes said first; "32768 tokens genau", "strange ja" say "exactly" and "isn't it", no answer
    (re.compile(r"^(\s*(?:(?:ok|okay|na|also|hmm|nee|nein)[\s,]+)?)(?:ja|jawohl|genau)\b", re.I | re.M), r"\1yes"),
    (re.compile(r"\bbitte\b", re.I), "please"),
    (re.compile(r"\bdanke(?:\s+schön)?\b", re.I), "thanks"),
    (re.compile(r"^nummer\s+(?=\d)", re.I), "number "),
    (re.compile(r"\bmach(?:\s+(?:einfach|ruhig|bitte))*\s+weiter\b", re.I), "carry on"),
    (re.compile(r"^schluss(?:\s+(?:für|fuer|for)\s+(?:heute|today))?\b", re.I), "stop for today"),
    (re.compile(r"(?<=\d)\s+bis\s+(?=\d)"), "-"),  # "GPUs 0 bis 3"
    # the Spanish "and" and "with": mid-sentence, no English word is spelt so
    (re.compile(r"(?<=\S)\s+y\s+(?=\S)", re.I), " and "),
    (re.compile(r"\bcon\b", re.I), "with"),
]


# a negation in a language no table here reads (or one its table left): the clause it is in is not read,
# whole, so "nao usa torch compile" can never be cut down to "use torch compile"
_NEGATION = re.compile(
    r"\b(?:n[aã]o|nem|mat|nahi|nahin|jangan|jgn|gak|nggak|enggak|tidak|belum|nicht|kein\w*|nie|niemals|niet|nooit|geen|nej|ikke|inte|aldrig|mai|non(?!-)|nunca)\b",
    re.I,
)


# Arabic typed in Latin letters writes some sounds as digits ("ma7goz", "3ala", "esta5dem"): such a word is
# one no table reads, never a GPU id or a value beside letters
_ARABIZI = re.compile(
    r"\b(?!(?:p2p|k8s|i18n|l10n|a11y|e2e|b2b|ok2go|g2g|good2go)\b)[a-z]+[2356789][a-z]+\b"
    r"|\b[2356789](?!(?:st|nd|rd|th|gpus?|gb|gib|tb|ms|min|mins|sec|tok|x|pm|am|hr|hrs|pp)\b)[a-z]{2,}\b",
    re.I,
)


# words of other languages that turn or hang a clause: "except" (chhod ke, ke alawa), "why" (kenapa), "said"
# (bilang, ha detto, dijo, a dit), "may I" (posso, boleh), "if" (se, si, wenn, если, agar): never read past
_TURNS = re.compile(
    r"\b(?:chhod\w*|alawa|alava|siwa|siva|baaki|kenapa|mengapa|kok|bilang|kata|detto|dice|dijo|dit|sagt|gesagt|"
    r"posso|possiamo|vuoi|puoi|peux|pouvons|est-ce|boleh|bisa|puedo|podemos|se|wenn|falls|agar|jika|purch[eé]|quando|"
    r"sauf|kecuali|tapi|ma|mais|pero|aber|caso)\b|\bsi\s+(?:c'est|es|est|está|esta|il|elle|hay)\b|\bs'il\b|\b(?:сказал\w*|говорит|можно|если|хотя)(?!\w)"
    r"|\bunder\s+no\s+circ\w*|\bin\s+no\s+case\b",
    re.I,
)
# a "don't" of a removal: "don't unset X", "never drop --x", "don't remove gpu 3" (kept, or refused?)
_DOUBLE_NEGATIVE = re.compile(
    r"\b(?:don'?t|do\s+not|never|not|no)\s+(?:unset|remove|drop|delete|strip|take\s+out|get\s+rid\s+of|avoid|exclude|skip|"
    r"ban|block|unexport)\b|\bunset\s+(?:mat|nahi|jangan)\b",
    re.I,
)


def negation_left(clause: str) -> bool:
    """Whether a clause holds a negation word of another language that no table put in English, or a
    word of Arabic typed in Latin letters and digits (its "not" cannot be told from its other words)."""
    said = (_NEGATION, _ARABIZI, _TURNS, _DOUBLE_NEGATIVE)
    if spoken.UNPLACED in clause:
        return True  # a sign beside a setting no rule reads ("GPU 3 💀", "GPU 3 (no)")
    return any(pattern.search(clause) for pattern in said) or french.negation_left(clause) or japanese.left(clause)


# "not GPU 3, GPU 4", "pas le GPU 3, le 4": a bare not, then another GPU named again with its own word, is
# "not 3 but 4" as often as "neither": no reading (marked before a table drops the French article)
_NOT_THIS_BUT = re.compile(
    r"(\b(?:not|pas)\s+(?:the\s+|le\s+|la\s+)?gpus?\s*\d+)\s*,\s*(?=(?:the|le|la|gpu)\b\s*(?:gpu\s*)?\d)", re.I
)


def in_english(text: str) -> str:
    """`text` with the words and signs above put in English (French and Chinese by their own modules);
    the rest as it was."""
    in_german = german.marked(text)  # "context length 32.768 bitte": "bitte" is "please" below
    text = _NOT_THIS_BUT.sub(rf"\1 {spoken.UNPLACED} ", japanese.half_width(text))
    text = japanese.in_english(text)  # before the table below and Chinese: "承認します", "次は" are its own
    text = thai.in_english(swahili.in_english(text))  # before Polish and Portuguese read "na" as "on"
    for said, english in _WORDS:
        text = said.sub(english, text)
    text = chinese.in_english(cantonese.in_english(korean.in_english(russian.in_english(text))))  # Cantonese first
    text = indonesian.in_english(hinglish.in_english(hindi.in_latin(text)))
    text = hebrew.in_english(polish.in_english(dutch.in_english(vietnamese.in_english(turkish.in_english(text)))))
    text = scots.in_english(singlish.in_english(arabizi.in_english(text)))  # Arabic after Hebrew: both say "yalla"
    text = taglish.in_english(pidgin.in_english(text))
    text = german.verb_last(german.in_english(text, in_german))
    text = italian.in_english(portuguese.in_english(french.in_english(text)))
    return spanish.in_english(text).strip()
