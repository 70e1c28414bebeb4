"""A Spanish-speaking operator's words as their English, before a reply or an instruction is read: Spain's
and Mexico's ("sí", "dale", "vale", "nel", "porfa", "no toques la 0 ni la 1", "relanza con tp4", "ponle tp
4", "quítale el --disable-cuda-graph", "apágale los cuda graphs", "bájale el mem fraction a 0.8"). Words
both languages spell alike ("y", "con", "en", "el", "a") are read as Spanish only in a message with a word
only Spanish has."""

from __future__ import annotations

import re

from agent.hearing import word_table

# Spanish: the words of replies and instructions an SRE mixes in, each one no English word is
_SPANISH = [
    # Mexico's: replies
    (r"^nel(?=\s*(?:[,.!]|$))", "no"), (r"^(?:[oó]rale|sale|chido)\b", "ok"), (r"\beso\s+no\b", "not that"),
    (r"^mejor\s+no\b", "better not"), (r"\b(?:g[uü]e?y|wey)\b", ""), (r"\bneta\b,?", "honestly"),
    (r"^(?:t[uú]\s+)?decide(?:s)?(?:\s+t[uú])?\b|^como\s+t[uú]\s+veas\b", "your call"),
    (r"^sigue\s+(?:con|with)\s+lo\s+tuyo\b|\bsigue\s+d[aá]ndole\b", "carry on with your plan"),
    (r"\bya\s+qued[oó]\b", "it's done"), (r"\bf[ií]rmal[eo]\b", "sign off"),
    (r"\bno\s+l[oa]\s+firmes\b", "don't sign off"),
    (r"\bya\s+estuvo\b", "that's enough"), (r"\btermina\s+el\s+run\b", "end the run"),
    (r"\bnos\s+vamos\s+a\s+casa\b", "we're done for today"), (r"\best[aá]\s+horrible\b", "is horrible"),
    (r"\beso\s+no\s+pasa\s+en\s+prod\b", "that won't pass in prod"), (r"\bopci[oó]n\s+(?=\d)", "option "),
    (r"\b(?:haz|corre)\s+la\s+primera\b", "do number 1"), (r"\b(?:haz|corre)\s+la\s+segunda\b", "do number 2"),
    (r"\b(?:haz|corre)\s+la\s+tercera\b", "do number 3"), (r"^esp[eé]rate\b", "wait"),
    (r"\bno\s+me\s+la\s+creo\b", "I don't buy it"),
    (r"\ba\s+ver\s+(?:si\s+as[ií]\s+jala|qu[eé]\s+pasa)\b", "let's see"),
    # Mexico's: instructions, the verb with its "le"/"lo" (ponle, quítale, apágale, córrele, levántalo)
    (r"\b(?:ya\s+)?no\s+le\s+pongas\b", "don't use"), (r"\bp[oó]nle\b|\bp[oó]nme\b", "set"),
    (r"\bqu[ií]tale\b|\bqu[ií]talo\b", "remove"), (r"\bap[aá]gale\b", "disable"), (r"\bpr[eé]ndele\b", "enable"),
    (r"\bagr[eé]gale\b", "add"), (r"\bc[aá]mbiate\s+al?\b|\bc[aá]mbiale\s+al?\b", "switch to"),
    (r"\bc[oó]rrele\b|\bvuelve\s+a\s+correr\b", "run"), (r"\bb[aá]jale\b", "lower"), (r"\bs[uú]bele\b", "raise"),
    (r"\blev[aá]ntalo\s+en\s+(?:el\s+)?(?=\d)", "serve it on port "), (r"\blev[aá]ntalo\b", "relaunch it"),
    (r"\bantes\s+de\s+firmar\b", "before you sign off"), (r"\bantes\s+de\s+levantarlo\b,?\s*", ""),
    (r"\bno\s+vuelvas\s+a\s+usar\b", "don't use"), (r"\bse\s+cay[oó]\s+el\s+server\b", "the server crashed"),
    (r"\bandan\s+raras?\b", "are acting up"), (r"\btiran\b", "throw"), (r"\bno\s+las?\s+toques\b", "don't touch them"),
    (r"\bno\s+los?\s+toques\b", "don't touch them"), (r"\bde\s+una\s+vez\b", "right away"),
    (r"\bdel\s+hub\b", "from the hub"), (r"\bel\s+(?=\d+b\b)", "the "),
    (r"\ben\s+lo\s+que\s+tenemos\s+libre\b", "on what we have free"), (r"\bno\s+cabe\b", "doesn't fit"),
    (r"\bsi\s+no,?\s+no\s+carga(?:\s+el\s+modelo)?\b", "otherwise the model won't load"),
    (r"\bse\s+est[aá]\s+comiendo\s+toda\s+la\s+memoria\b", "it's eating all the memory"),
    (r"\bqueremos\s+los\s+graphs\s+prendidos\b", "we want the graphs on"),
    (r"\bhace\s+mucho\s+ruido\s+en\s+el\s+log\b", "it's too noisy in the log"),
    (r"\bno\s+encuentro\s+nada\b", "I can't find anything"),
    (r"\bya\s+se\s+los\s+asignaron\s+a\s+otro\s+equipo\b", "they went to another team"),
    (r"\beso\s+era\s+(?:nom[aá]s|only|solo)\s+para\s+debuggear\b", "that was only for debugging"),
    (r"\b(?:el|la)\s+llama\s+ya\s+no\s+lo\s+queremos\b", "we don't want the llama any more"),
    (r"(?<=[a-z])\s+de\s+(?=\d)", " "), (r"(?<=\d)\s+a\s+(?=\d)", "-"), (r"(?<=[a-z])\s+a\s+(?=\d)", " to "),
    (r"\b(\w+)\s+de\s+(attention\s+backend)\b", r"\2 \1"),
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
_SPANISH_WORDS = word_table.compiled(_SPANISH)
# words both languages spell alike ("y", "con", "en", "el"): read as Spanish only in a message with a Spanish word
_SPANISH_MARK = re.compile(
    r"\b(?:sí|dale|vale|porfa|por\s+favor|gracias|usa|toques|uses|pases|puertos?|relanza|reinicia\w*|solamente|nomás|"
    r"evita|quita|pon|desactiva|modelo|mide|corre|sigue|firm\w*|reinícialo|ocurra|relances|vuelvas|apaga|cierres|mejor|"
    r"para\s+(?:todo|el)|por\s+ahora|ojo|todavía|servidor|sin|activa|agrega|a[nñ]ade|nada|tumba|pero|apaga|levantes|"
    r"haz|aborta|a[uú]n|est[aá]|cambia|s[ií]rvelo|nomas|hace\s+falta|preguntes|mismo|otra|otro|hasta|tal\s+vez|quiz[aá]s?|tiene|como|(?:las|los)\s+(?:gpus?|puertos?)|"
    r"nel|[oó]rale|chido|neta|g[uü]e?y|wey|t[uú]\s+decides?|veas|tuyo|d[aá]ndole|qued[oó]|f[ií]rmal[eo]|estuvo|opci[oó]n|tercera|segunda|primera|"
    r"esp[eé]rate|p[oó]nle|p[oó]nme|pongas|qu[ií]tal[eo]|ap[aá]gale|pr[eé]ndele|agr[eé]gale|c[aá]mbiate|c[aá]mbiale|c[oó]rrele|"
    r"b[aá]jale|s[uú]bele|lev[aá]ntalo|vuelve|andan|toques|cabe|queremos|ruido|debuggear|jala|creo)\b",
    re.I,
)
_SPANISH_SHARED = [
    (
        re.compile(
            r"\b(?:las|los|la|el)\s+(?=gpus?\b|\d|model|server|bench|radix|env|topo|log|port|--|(?-i:[A-Z][A-Z0-9_]{2,})|"
            r"cuda|mem|kv|chunked|context|attention|torch|max)",
            re.I,
        ),
        "",
    ),
    (re.compile(r"\ben\s+(?=fp8|bf16|auto\b)", re.I), "in "),
    (re.compile(r"\ben\s+(?=\d)", re.I), "on "),
    (re.compile(r"\ben\s+(?=/)", re.I), "at "),
    (re.compile(r"^ojo[,:]?\s*", re.I), ""),
]


def in_english(text: str) -> str:
    """`text` with a Spanish-speaking operator's words put in English; any other message as it was."""
    if _SPANISH_MARK.search(text):
        text = word_table.rewritten(text, [*_SPANISH_WORDS, *_SPANISH_SHARED])
    return text
