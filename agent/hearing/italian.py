"""An Italian operator's words as their English, before a reply or an instruction is read: "sì, vai",
"fai la 2", "non usare la porta 30000", "riavvia sulle GPU 0-3", "ferma il server ma non chiudere la
run", "niente --enable-torch-compile". Only a message with a word no English sentence has is read as
Italian; accents are often dropped in chat ("finche", "e" for "è"), so words match either way. A "non"
or "mai" no rule here placed keeps its clause unread (agent.hearing.foreign)."""

from __future__ import annotations

import re

from agent.hearing import word_table

_NON = r"non"
# the object pronouns Italian glues to a verb: "toccarla", "evitale", "rilanciarlo", "riavvialo"
_IT = r"(?:lo|la|li|le)"

# The longer phrases first: "non rilanciare finché" before "rilancia", "non usare" before "usa".
_ITALIAN: list[tuple[str, word_table.Replacement]] = [
    (r"\s+e\s+(?=(?:non|mai)\b)", " and "),  # "stoppa sglang e non rilanciarlo": "and", before "non" is read
    # replies
    (r"^s[iì](?:\s+s[iì])*(?=\s*(?:[,.!]|$)|\s+(?:vai|procedi|certo|va\s+bene|dai|ok|firma|approv))", "yes"),
    (r"\bvai\s+(?:pure|avanti)\b|\bprocedi\b|\bvai\b(?=\s*(?:[,.!]|$))|\bdai\b(?=\s*(?:[,.!]|$))", "go ahead"),
    (r"\bva\s+(?:bene|benissimo)\b|\bperfetto\b|\bcerto\b", "ok"), (r"\bapprovat[oa]\b", "approved"),
    (r"\bpuoi\s+firmare\b|\bfirma\s+pure\b|\bchiudi\s+pure\b", "sign off"),
    (rf"\b{_NON}\s+firmare(?:\s+ancora)?\b", "don't sign off yet"), (rf"\b{_NON}\s+ancora\b", "not yet"),
    (r"\bcontinu[ae]\s+(?:col|con\s+il)\s+tuo\s+piano\b", "carry on with your plan"),
    (
        r"\bnon\s+aspettar(?:e|mi)(?:\s+me)?\b", "don't wait for me"), (r"\bnon\s+aspettar(?:e|"
        r"mi)(?:\s+me)?\b",
        "don't wait for me",
    ),
    (r"\baspetta\b", "wait"), (r"\bgrazie(?:\s+mille)?\b", "thanks"),
    (r"\bper\s+(?:favore|piacere)\b|\bperfavore\b", "please"),
    (r"\bfai\s+(?:pure\s+)?tu\b|\bdecidi\s+tu\b", "carry on with your plan"),
    (
        rf"\b{_NON}\s+(?:serve\s+che\s+mi\s+chiedi|chiedermi|c'?[eè]\s+bisogno\s+di\s+chiedermi)(?:\s+ogni\s+volta)?\b",
        "don't ask me",
    ),
    (r"\bbasta(?:\s+cos[iì])?\b|\bferma\s+tutto\b", "stop everything"),
    (r"\bchiudi\s+(?:tutta\s+la|la|il)\s+(?:run|job)(?:\s+intera)?\b", "kill the whole run"),
    (r"\b(?:fai|esegui|vai\s+co[ln]|vai\s+con\s+(?:la|il)|prendi)\s+(?:la|il|l[ae]\s+opzione|)\s*(?=\d\b)", "do "),
    (r"\bopzione\s+(?=\d\b)", "option "), (r"\bleggi\s+il\s+log\b", "read the log"),
    # instructions: the negated verbs first
    (
        rf"\b{_NON}\s+(?:rilanciar(?:e|{_IT})|riavviar(?:e|{_IT})|ripartire|farl[oa]\s+ripartire)\s+"
        rf"(?:finch[eé]\s+{_NON}\s+(?:te\s+lo\s+dico(?:\s+io)?|torno|lo\s+dico(?:\s+io)?))\b",
        "don't relaunch till I say so",
    ),
    (rf"\b{_NON}\s+(?:rilanciar(?:e|{_IT})|riavviar(?:e|{_IT})|ripartire)\b", "don't relaunch"),
    (rf"\bma\s+{_NON}\s+chiudere\s+la\s+run\b|\bma\s+lascia\s+(?:aperta|su)\s+la\s+run\b", "but leave the run up"),
    (rf"\b{_NON}\s+(?:usare|usarl[aoie]|utilizzare)\s+mai\b|\bmai\s+(?:usare|utilizzare)\b", "never use"),
    (rf"\b{_NON}\s+passare\s+mai\b|\bmai\s+passare\b", "never pass"),
    (rf"\b{_NON}\s+(?:usare|usarl[aoie]|utilizzare)\b", "don't use"), (rf"\b{_NON}\s+passare\b", "don't pass"),
    (rf"\b{_NON}\s+(?:toccare|toccarl[aoie]|toccate)\b|\blascia\s+stare\b", "don't touch"),
    (r"\bmai\s+(?:l[ae]|il|i)\s+(?=\d)", "never "), (r"\bniente\s+(?=--|[a-z])", "no "),
    (r"\bsenza\s+(?=cuda\s+graph|radix|--)", "disable "),
    # the other verbs ("riavvai": a slip of the fingers)
    (r"\b(?:riavvia|riavvai|rilancia|riparti|rilanciare|riavviare)(?:l[oa])?\b", "relaunch"),
    (r"\b(?:lancia|lanciare|avvia)\b", "launch"),
    (r"\b(?:ferma|stoppa|spegni|fermare|stoppare)\s+(?=(?:il\s+|l')?(?:server|sglang|servizio)\b)", "stop "),
    (r"\b(?:usa|usare|utilizza)\b", "use"), (r"\bevital[aoie]\b", "avoid them"), (r"\bevita(?:re)?\b", "avoid"),
    (r"\bmetti\s+(?:il\s+)?(?=server\b)", "put the "),
    (r"\b(?:metti|imposta|setta|mettere|impostare)\b", "set"), (r"\baggiungi\b", "add"),
    (r"\b(?:togli|rimuovi|leva)\b", "remove"), (r"\bdisabilita\b|\bdisattiva\b", "disable"),
    (r"\babilita\b|\battiva\b", "enable"), (r"\bcambia\s+modello\b", "switch model"), (r"\bcambia\b", "switch"),
    (r"\b(?:rifai|ripeti|rilancia)\s+(?:il\s+|the\s+)?bench(?:mark)?\b", "measure again"),
    (r"\b(?:rimisura|misura\s+di\s+nuovo)\b", "measure again"),
    (r"\blimita\b", "cap"),
    # nouns and small words
    (r"\bporte\b", "ports"), (r"\bporta\b", "port"), (r"\bmodello\b", "model"), (r"\bsolo\b|\bsoltanto\b", "only"),
    (r"\btutte\s+e\s+(\d)\s+le\s+gpu\b", r"all \1 gpus"), (r"\btutte\s+le\s+gpu\b", "all gpus"),
    (r"\b(?:sulle|sulla|sui|sul|su)\s+(?=gpu|\d|port)", "on "), (r"\bcon\b", "with"),
    (r"\b(?:dall'|dal\s+|nell'|nel\s+)env\b", "from the env"), (r"\bma\b", "but"),
    (r"(?<=\d)\s+e\s+(?=\d)", " and "),
    (r"\s+e\s+(?=(?:tp|dp|--|max|mem|context|chunked|cuda|rifai|rilancia|non|mai)\b)", " and "),
    (r"(?<=\d)\s+e\s+(?:rott[ae]|guast[ae]|occupat[ae]|lent[ae])\b", " is broken"),
    (r"\b(?:la|le|il|i|lo|l')\s*(?=gpus?\b|port|model|server|sglang|bench|\d|--|cuda|radix)", ""),
    (r"(?<=[a-z])\s+a\s+(?=\d)", " at "),  # "chunked prefill a 4096"
    (r"\badesso\b|\bora\b|\bsubito\b", "now"),
    (r"[\s,]*\ballora\b", ""), (r"\b(?:but|ma)\s+(?:prima|before)\s+(?=\w)", "but first "),  # "ma prima spegni ..."
    (r"(?<=\S)\s+e\s+(?=[A-Z][A-Z0-9_]*=)", " and "),  # "NCCL_DEBUG=INFO e NCCL_SOCKET_IFNAME=eth0"
]  # fmt: skip
_ITALIAN_WORDS = word_table.compiled(_ITALIAN)
_MARK = re.compile(
    r"\b(?:continua|aspettare|ferma|fermare|allora|prima|cos[iì]|s[iì]\s+s[iì]|=\S+\s+e\s+[A-Z]\w*=|usare|utilizzare|sulle|sulla|sui|riavvi\w*|riavvai|solo|mai\s+(?:l[ae]|il|i)\s+\d+|rilanci\w*|ripart\w*|stoppa|spegni|togli|rimuovi|metti|imposta|"
    r"setta|aggiungi|disabilita|abilita|disattiva|attiva|niente|rifai|rimisura|tocca\w*|evital[aoie]|finch[eé]|grazie|"
    r"perfavore|per\s+favore|per\s+piacere|va\s+bene|procedi|avanti|basta|aspetta|ancora|firmare|approvat[oa]|chiudi|"
    r"chiudere|adesso|sono|anche|tutte|porte|modello|soltanto|dall'env|nell'env|lancia|fai|vai|opzione|leggi|"
    r"(?:non|mai)\s+(?:usare|passare|toccar\w*|rilanciar\w*|riavviar\w*)|\d\s+e\s+\d|e\s+(?:tp|dp|--|max|mem|context|chunked))\b",
    re.I,
)


def in_english(text: str) -> str:
    """`text` with an Italian operator's words put in English; any other message as it was."""
    return word_table.in_english(text, _ITALIAN_WORDS) if _MARK.search(text) else text
