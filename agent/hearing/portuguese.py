"""A Brazilian operator's words as their English, before a reply or an instruction is read: "sim, pode
rodar", "não usa a porta 30000", "reinicia nas GPUs 0 a 3", "desliga o cuda graph", "para o sglang mas
não sobe de novo até eu falar". Only a message with a word no English sentence has is read as
Portuguese; accents are often dropped in chat, so each word is matched with or without them. Spanish
shares some of these words ("usa", "reinicia", "evita"): Portuguese is read first, so the Spanish
table then finds them in English."""

from __future__ import annotations

import re

from agent.hearing import word_table

_NAO = r"n[aã]o"
_A = "[aáàâã]"

# The longer phrases first: "não sobe de novo" before "sobe", "não usa" before "usa".
_PORTUGUESE = [
    # replies
    (r"\bsim\b", "yes"), (r"\bpode\s+(?:rodar|ir|mandar|seguir|fazer)\b|\bmanda\s+ver\b|^pode(?=[\s.!]*$)", "go ahead"),
    (r"\bpode\s+continuar(?:\s+melhorando)?\b", "keep improving"), (r"\bsegue\s+voc[eê]\b", "carry on"),
    (r"\bvai\s+n[oa]\s+(?=\d\b)", "go with "), (r"\b(?:faz|roda|fa[cç]a)\s+o\s+primeiro\b", "do the first"),
    (r"\bcancela\s+tudo\b", "stop everything"), (rf"\b{_NAO}\s+assino\b(?:\s+isso)?", "I won't sign off"),
    (rf"^{_NAO}\s+precisa\b", "no need"), (r"\btira\s+a\s+var(?:i[aá]vel)?\s+(?=[A-Z])", "unset "),
    (r"\bactually\s+(?=is\b)", "currently "),  # "actually is from the grafana": atualmente, never a correction
    (r"\bpode\s+(?:fechar|assinar)\b|\bfecha\s+a[ií]\b|\bassina\b", "sign off"),
    (r"\bvaleu\b|\bobrigad[oa]\b", "thanks"), (r"\bbeleza\b|\bblz\b|\bfechou\b", "ok"),
    (r"\bpfv\b|\bpor\s+favor\b", "please"), (rf"\bdeixa\s+pra\s+l{_A}\b", "never mind"),
    (rf"\bainda\s+{_NAO}\b", "not yet"), (r"\s+sen[aã]o\b", ", because otherwise"),
    (rf"(?<=\S)\s+{_NAO}(?=\s*(?:[,.;]|$))", " no"),  # "porta 30000 não": the no said last
    (r"\bsegue\s+com\s+o\s+(?:teu|seu)\s+plano\b", "carry on with your plan"),
    (rf"\b{_NAO}\s+precisa\s+me\s+esperar\b|\bsem\s+me\s+esperar\b", "don't wait for me"),
    (r"\bvai\s+tocando(?:\s+a[ií])?\s+sem\s+me\s+perguntar\b", "carry on without asking me"),
    (r"\b(?:faz|roda|rode|fa[cç]a)\s+(?:s[oó]\s+)?o\s+(?=\d\b)", "do "), (r"\bop[cç][aã]o\s+(?=\d\b)", "option "),
    (r"\bpara\s+tudo\b", "stop everything"),
    (r"\b(?:aborta|encerra|mata)\s+o\s+run(?:\s+inteiro)?\b", "kill the whole run"),
    # "roda no GPU 3": after a verb, "no"/"na" is "in the", never the English "no"
    (r"\b(roda|rode|usa|use|reinicia|coloca|relan[cç]a)\s+n[oa]s?\s+(?=gpus?\b|\d|porta)", r"\1 on "),
    # instructions: the negated verbs first
    (
        rf"\b{_NAO}\s+(?:sobe|suba|relan[cç]a|reinicia)\s+(?:de\s+novo\s+)?(?:at[eé]\s+eu\s+(?:falar|mandar))\b",
        "don't relaunch till I say so",
    ),
    (rf"\b{_NAO}\s+(?:relan[cç]a|reinicia|sobe)(?:\s+ainda)?\b", "don't relaunch"),
    (rf"\b{_NAO}\s+(?:usa|use|usar)\b", "don't use"), (rf"\b{_NAO}\s+(?:passa|passe|coloca|bota)\b", "don't use"),
    (rf"\b{_NAO}\s+(?:encosta|mexe|toca)\s+(?:na|no|nas|nos)\b", "don't touch"),
    (r"\bnem\b", "or"), (rf"^{_NAO}\b", "no"),  # "não, deixa pra lá": a reply's no
    # the other verbs
    (r"\b(?:reinicia|reinicie|reincia|relan[cç]a|relan[cç]e)\b", "relaunch"), (r"\b(?:usa|use|usar)\b", "use"),
    (r"\b(?:coloca|coloque|p[oõ]e|bota)\b", "set"), (r"\bdesliga\b|\bdesativa\b", "disable"),
    (r"\bliga\s+(?=--|[A-Z][A-Z0-9_]+=)", "add "), (r"\bliga\b|\bativa\b", "enable"),
    (r"\bsobe\s+(?=(?:na|no)\s+porta\b)", "serve "),
    (r"\bderruba\b|\bpara\s+(?=o\s+(?:server|sglang|servidor)\b)", "stop "),
    (r"\btira\b|\bremove\b", "remove"),
    (r"\btroca\b|\bmuda\b", "switch"),
    (r"\blimita\b", "cap"),
    (r"\bevita\b", "avoid"),
    (r"\b(?:roda\s+o\s+benchmark|mede)\s+de\s+novo\b|\broda\s+o\s+bench\s+de\s+novo\b", "measure again"),
    (r"\bprecisa\s+de\s+(?=--)", "add "),
    # nouns and small words
    (r"\bportas\b", "ports"), (r"\bporta\b", "port"), (r"\bservidor\b", "server"), (r"\bmodelo\b", "model"),
    (r"\bs[oó]\b", "only"), (r"\bmas\b", "but"), (r"\bcom\b", "with"), (r"\bsem\s+(?=radix|cuda\s+graph)", "disable "),
    (r"\bde\s+novo\b", "again"), (r"\b(?:do|da)\s+env\b", "from the env"),
    (r"(?<=\d)\s+a\s+(?=\d)", "-"), (r"(?<=\S)\s+e\s+(?=\S)", " and "),
    (r"\bem\s+(?=/)", "at "), (r"\bem\s+(?=\d)", "at "), (r"\bpra\s+(?=/)", "to "), (r"\bem\s+(?=fp8|bf16)", "in "),
    (r"\b(?:nas|nos|na)\s+(?=gpus?\b|port\b|\d)", "on "),  # never "no": English "no gpu 3" is a must-not
    (r"\b(?:os|as|o|a)\s+(?=gpus?\b|ports?\b|model\b|server\b|sglang\b|cuda\b|radix\b|kv\b|max\b|mem\b|--)", ""),
    (r"\b(?:os|as|o|a)\s+(?=benchmark\b|[A-Z]{3,})", ""),
]  # fmt: skip
_PORTUGUESE_WORDS = word_table.compiled(_PORTUGUESE)
# words no English sentence has: only a message with one is read as Portuguese
_MARK = re.compile(
    rf"\b(?:{_NAO}|voc[eê]|pra|pfv|valeu|beleza|blz|porta|portas|coloca|desliga|liga|sobe|derruba|encerra|tira|"
    r"troca|segue|op[cç][aã]o|tudo|cancela|assino|vai\s+n[oa]|ainda|mede|relan[cç]a|deixa|encosta|aborta|reincia|pode|faz|roda|precisa|limita|"
    r"de\s+novo|sim,|(?:nas|nos|na)\s+(?:gpus?|porta|\d)|com\s+(?:tp|dp|--)|(?:usa|evita)\s+(?:o|a|os|as|s[oó])|"
    r"vai\s+tocando|sem\s+(?:radix|cuda|me)|\d\s+e\s+\d|e\s+(?=cuda|--))\b|^sim\b",
    re.I,
)


def in_english(text: str) -> str:
    """`text` with a Brazilian operator's words put in English; any other message as it was."""
    return word_table.in_english(text, _PORTUGUESE_WORDS) if _MARK.search(text) else text
