"""An operator's words in another language, and its punctuation, as their English, before a reply or
an instruction is read: German ("nein", "ja", "bitte", "Nummer 2", "mach weiter", "Schluss", "0 bis 3"),
Japanese ("はい", "いいえ", "お願いします", "OK です", "GPU 0-3 使わないでください", "、" and "。"), Spanish
("sí", "dale", "por favor", "no toques la 0 ni la 1", "relanza con tp4"), and a
range written with a tilde or a dash of typesetting ("0~3", "4–7")."""

from __future__ import annotations

import re

from agent.hearing import (
    arabizi,
    chinese,
    dutch,
    french,
    german,
    hebrew,
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


# Spanish: the words of replies and instructions an SRE mixes in, each one no English word is
_SPANISH = [
    # "solo" may be "only" already: the Italian table reads it first
    (r"\b(?:t[uú]\s+)?sigue(?:\s+t[uú])?\s+(?:solo|only)\b", "carry on with your plan"),
    (r"\bcada\s+paso\b", "each step"),
    (r"\btal\s+vez\b|\bquiz[aá]s?\b|\ba\s+lo\s+mejor\b", "maybe"), (r"\bno\s+s[eé]\b", "not sure"),
    (r"\bl[oa]s?\s+tienen?\b", "is held by"), (r"\bmide\b(?!\s+de\s+nuevo)", "measure"),
    (r"\bya\s+no\s+(?:l[oa]s?\s+)?(?:necesitamos|necesito|hace\s+falta)\b", "no longer needed"),
    (r"\bsí\b", "yes"), (r"\bdale\b", "go ahead"), (r"\bvale\b", "ok"), (r"\bpor\s+favor\b|\bporfa\b", "please"),
    (r"\bgracias\b", "thanks"), (r"\bno\s+firmes\b", "don't sign off"), (r"\bfirma(?:r)?\b", "sign off"),
    (r"\btodavía\s+no\b", "not yet"), (r"\bno\s+me\s+esperes\b", "don't wait on me"),
    (r"\bsigue\s+(?:tú\s+)?con\s+tu\s+plan\b", "carry on with your plan"),
    (r"\bsin\s+preguntarme(?:\s+cada\s+paso)?\b", "without asking me"), (r"^para\s+todo\b", "stop everything"),
    (r"\bse\s+acabó\b", "we're done"), (r"^(?:mejor\s+)?(?:el|la)\s+(?=\d\b)", "number "),
    (r"\bcorta\s+el\s+run(?:\s+entero)?\b", "kill the whole run"), (r"\bno\s+corras\s+eso\b", "don't run that"),
    (r"\bbuen\s+trabajo\b", "good job"), (r"\busa\b", "use"), (r"\bsolo\b|\bsolamente\b|\bnomás\b", "only"),
    (r"\bno\s+toques\b", "don't touch"), (r"\bnunca\s+uses\b|\bni\s+se\s+te\s+ocurra\s+usar\b", "never use"),
    (r"\bno\s+(?:uses|pases)\b", "don't use"), (r"\bni\b", "or"), (r"\bpuertos\b", "ports"), (r"\bpuerto\b", "port"),
    (r"\brelanza\b", "relaunch"), (r"\breinícialo\b|\breinicialo\b", "restart it"), (r"\breinicia\b", "restart"),
    (r"\b(?:vuelve\s+a\s+medir|mide\s+de\s+nuevo)\b", "measure again"), (r"\bcorre\b", "run"),
    (r"\botra\s+vez\b", "again"),
    (r"\bsin\s+(?=cuda\s+graph|radix)", "disable "), (r"\bpon\b", "set"), (r"\bquita\b", "remove"),
    (r"\bdesactiva\b", "disable"), (r"\bevita\b", "avoid"), (r"\bmodelo\b", "model"),
    (r"\b(?:apaga|para)\s+el\s+server\b", "stop the server"),
    (r"\bpero\s+no\s+cierres\s+el\s+run\b", "but leave the run up"),
    (r"\bno\s+(?:lo\s+)?(?:vuelvas\s+a\s+lanzar|relances)\b", "don't relaunch"),
    (r"\bhasta\s+que\s+yo\s+diga\b", "till I say so"),
    (r"\bdel\s+env(?:\s+de\s+lanzamiento)?\b", "from the env"), (r"\ben\s+el\s+env\b", "in the env"),
    (r"\bpor\s+ahora\b", "for now"),
    (r"\bno\s+hace\s+falta\s+que\s+me\s+preguntes\b|\bno\s+me\s+preguntes\b", "don't ask me"),
    (r"\b(?:aborta|cancela|mata)\s+(?:el\s+run|todo)(?:\s+(?:completo|entero))?\b", "kill the whole run"),
    (r"\b(?:haz|ejecuta|corre)\s+(?:el|la)\s+(?=\d\b)", "do "), (r"\ba[uú]n\s+no(?:\s+l[oa]\s+cierres)?\b", "not yet"),
    (r"\bhasta\s+que\s+(?:yo\s+)?(?:te\s+)?(?:diga|avise)\b", "till I say so"),
    (r"\bpero\s+no\s+(?:pares|cierres|mates)\s+el\s+run\b", "but leave the run up"),
    (r"\bno\s+lo\s+(?:levantes|relances|arranques)(?:\s+de\s+nuevo)?\b", "don't relaunch"),
    (r"\b(?:tumba|apaga|para|det[eé]n)\s+(?:el\s+)?(?=server\b|servidor\b|sglang\b)", "stop "),
    (r"\bservidor\b", "server"), (r"\b(?:agrega|a[nñ]ade)\b", "add"), (r"\bactiva\b|\bhabilita\b", "enable"),
    (r"\bnada\s+de\b", "no"), (r"\bsin\b", "without"), (r"\best[aá]\s+rot[ao]\b", "is broken"),
    (r"\bno\s+l[ao]s?\s+uses\b", "don't use it"), (r"\bcomo\b", "as"), (r"\bel\s+mismo\b", "the same"),
    (r"\bs[ií]rvelo\b", "serve it"), (r"\bsirve\b", "serve"),
    (r"\bcambia\s+a\b", "switch to"), (r"\bcambia\b", "switch"),
    (r"\bnomas\b", "only"), (r"\bpero\b", "but"),
]  # fmt: skip
_SPANISH_WORDS = [(re.compile(said, re.I), english) for said, english in _SPANISH]
# words both languages spell alike ("y", "con", "en", "el"): read as Spanish only in a message with a Spanish word
_SPANISH_MARK = re.compile(
    r"\b(?:sí|dale|vale|porfa|por\s+favor|gracias|usa|toques|uses|pases|puertos?|relanza|reinicia\w*|solamente|nomás|"
    r"evita|quita|pon|desactiva|modelo|mide|corre|sigue|firm\w*|reinícialo|ocurra|relances|vuelvas|apaga|cierres|mejor|"
    r"para\s+(?:todo|el)|por\s+ahora|ojo|todavía|servidor|sin|activa|agrega|a[nñ]ade|nada|tumba|pero|apaga|levantes|"
    r"haz|aborta|a[uú]n|est[aá]|cambia|s[ií]rvelo|nomas|hace\s+falta|preguntes|mismo|otra|otro|hasta|tal\s+vez|quiz[aá]s?|tiene|como|(?:las|los)\s+(?:gpus?|puertos?))\b",
    re.I,
)
_SPANISH_SHARED = [
    (re.compile(r"\b(?:las|los|la|el)\s+(?=gpus?\b|\d|model|server|bench|radix|env|topo|log|port)", re.I), ""),
    (re.compile(r"\ben\s+(?=fp8|bf16|auto\b)", re.I), "in "),
    (re.compile(r"\ben\s+(?=\d)", re.I), "on "),
    (re.compile(r"\ben\s+(?=/)", re.I), "at "),
    (re.compile(r"^ojo[,:]?\s*", re.I), ""),
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
    text = _NOT_THIS_BUT.sub(rf"\1 {spoken.UNPLACED} ", japanese.half_width(text))
    text = japanese.in_english(text)  # before the table below and Chinese: "承認します", "次は" are its own
    text = thai.in_english(swahili.in_english(text))  # before Polish and Portuguese read "na" as "on"
    for said, english in _WORDS:
        text = said.sub(english, text)
    text = indonesian.in_english(hinglish.in_english(chinese.in_english(korean.in_english(russian.in_english(text)))))
    text = hebrew.in_english(polish.in_english(dutch.in_english(vietnamese.in_english(turkish.in_english(text)))))
    text = scots.in_english(singlish.in_english(arabizi.in_english(text)))  # Arabic after Hebrew: both say "yalla"
    text = taglish.in_english(pidgin.in_english(text))
    text = italian.in_english(portuguese.in_english(french.in_english(german.verb_last(german.in_english(text)))))
    if _SPANISH_MARK.search(text):
        for said, english in [*_SPANISH_WORDS, *_SPANISH_SHARED]:
            text = said.sub(english, text)
    return text.strip()
