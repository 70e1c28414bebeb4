"""A French operator's words as their English, before a reply or an instruction is read: "oui vas-y",
"non pas ça", "relance sur les GPU 0 à 3", "n'utilise pas le port 30000", "mets X à 0.8", "ne relance
pas pour l'instant", "stp", and Québécois chat ("touche pas au port 8000", "évite le 0 pis le 1", "roule le
bench", "relance-le avec ..."). Only a message with a word no English sentence has is read as French, so
"pas", "le" or "et" in an English message change nothing. Accents are often dropped in chat, so each
word is matched with or without them. A word left untranslated stays as said: the grammar does not
read it, and the clause is reported not understood."""

from __future__ import annotations

import re

from agent.hearing import word_table

_E = "[eéèê]"
_A = "[aàâ]"

# the verbs an operator negates, in the forms chat uses (imperative, infinitive), to read "ne X pas" by
_VERBS = (
    rf"utilise[rz]?|relance[rz]?|red{_E}marre[rz]?|touche[rz]?|active[rz]?|d{_E}sactive[rz]?|mets|mettre|lance[rz]?|"
    rf"signe[rz]?|{_E}vite[rz]?|ajoute[rz]?|passe[rz]?|sers|servir|prends|prendre|coupe[rz]?|arr{_E}te[rz]?|roule[rz]?|ferme[rz]?"
)
# A must-not read in English never goes on to a setting in the same clause: English reads "don't relaunch on
# GPU 3" as GPU 3 to use and "don't X with tp 8" as tp 8 to use, so "ne relance pas sur le GPU 3" stays unread.
_NO_SETTING_AFTER = r"(?![^,.;:!?]*\b(?:sur|avec|en|on|with)\b)"
# Spoken Québécois drops the "ne": "touche pas au port 8000", "relance pas tout de suite", "pis le relance
# pas". Read so only where the verb leads its clause (an order, never "le serveur relance pas", a fact) and
# only before what an order's object is: "utilise pas juste le 3" or "pas plus de 4" stay unread.
_CLAUSE_START = r"(?:^|(?<=[,.;:!?(])|(?<=\bpis\s)|(?<=\bet\s)|(?<=\bmais\s)|(?<=\bpuis\s)|(?<=\bok\s)|(?<=\bnon\s))"
_DROPPED_NE = (
    rf"{_CLAUSE_START}(?P<sp>\s*)(?P<it>l[ea]s?\s+|l')?(?P<v>{_VERBS})\s+pas\b{_NO_SETTING_AFTER}(?P<yet>\s+(?:{_E}ncore|tout\s+de\s+suite))?"
    rf"(?P<of>\s+d[e']\s*(?=--))?(?=\s*(?:$|[,.;:!?]|(?:l[ea]s?|au|aux|à|a|ça|ca|ce|cette|ces|ton|tes|gpus?|ports?)\b|l'|--|\d))"
)


def _dropped_ne(said: re.Match[str]) -> str:
    it = " it" if said["it"] else ""
    return f"{said['sp']}don't {said['v']}{it}{' yet' if said['yet'] else ''}{' ' if said['of'] else ''}"


# The longer phrases first: "ne relance pas" before "relance", "pas de" before "pas".
_FRENCH: list[tuple[str, word_table.Replacement]] = [
    (r"^(?:je\s+ne\s+suis\s+)?pas\s+(?:du\s+tout\s+|trop\s+|vraiment\s+)?(?:d'accord|ok)\b", "no"),
    (_DROPPED_NE, _dropped_ne),
    # "ne relance pas encore": the "yet" kept with its verb, before "pas encore" alone is read as a reply
    (rf"(?P<sp>)\bn(?:e\s+|')(?P<it>l[ea]s?\s+|l')?(?P<v>{_VERBS})\s+pas{_NO_SETTING_AFTER}(?P<yet>\s+(?:{_E}ncore|tout\s+de\s+suite))\b(?P<of>)",
     _dropped_ne),
    # an object pronoun joined to its verb: "relance-le", "mets-le", "run-le" (never "c'est-tu", "modèle-là")
    (rf"\b(?P<v>{_VERBS}|run|kill|restart|stop|rerun)-l[ea]s?\b", r"\g<v> it"),
    (r"\bpas\s+tout\s+de\s+suite\b", "not yet"),
    # "ok je signe": only said first or after a yes, never "quand c'est stable, je signe", "je signe?", "je signe pas"
    (r"(?:^|(?<=[.!;])\s*|(?:(?<=\bok)|(?<=\boui)|(?<=\bbon))[,\s]\s*)je\s+signe(?=\s*(?:$|[,.;!]))", " I sign off"),
    (r"\b(?:beau|bon|bel)\s+(?:travail|job|boulot)\b|\bbonne\s+job\b", "good job"),
    # "continue avec tes steps", "vas-y avec ton plan": the plan, never a setting
    (rf"\b(?:continue|poursuis|keep\s+going|go|vas[-\s]y)\s+avec\s+(?:tes|ton|ta)\s+(?:plan|steps?|{_E}tapes?)\b",
     "carry on with your plan"),
    (r"\b(?:vas|allez)[-\s]y\s+avec\b", "go with"),  # "vas-y avec tp 4": the setting to go with
    # replies
    (r"[\s,]*\bvoil[aà]\b[\s!.]*", " "),  # "tp 4 dp 2 voilà": "there you go", no word of the order
    (r"\boui\b", "yes"), (r"\bvas[-\s]y\b|\ballez[-\s]y\b", "go ahead"), (r"\bd'accord\b|\bok\s+pour\s+moi\b", "ok"),
    (rf"\bc'{_E}st\s+bon\b", "ok"),
    (r"^nickel\b(?=[\s,.!]*(?:$|valide|signe|merci|go))|\bparfait\b|\bimpeccable\b", "great"),  # never a spoken NCCL
    (r"\bs'il\s+(?:te|vous)\s+pla[iî]t\b|\bstp\b|\bsvp\b", "please"), (r"\bmerci\b", "thanks"),
    (rf"\bpas\s+{_E}ncore\b", "not yet"), (rf"\bne\s+signe\s+pas\b|\bpas\s+de\s+sign{_A}ture\b", "don't sign off"),
    (r"\b(?:tu\s+peux|vous\s+pouvez)\s+signer\b|(?<!\bje\s)\bsigne\b|\bvalide\b|\bvalid[eé]\b", "sign off"),
    (r"\bcontinue\s+sans\s+moi\b", "carry on without me"),
    (r"\b(?:continue|poursuis)\s+(?:avec\s+)?ton\s+plan\b", "carry on with your plan"),
    (rf"\bsans\s+m'{_A}ttendre\b|\bne\s+m'{_A}ttends\s+pas\b", "don't wait for me"),
    (rf"\b(?:stop|arr{_E}te|coupe)\s+tout\b", "stop everything"),
    (rf"\bon\s+(?:arr{_E}te|coupe)\s+(?:tout\s+)?(?:le\s+run|tout)\b", "stop the whole run"),
    (r"\b(?:fais|lance|prends|roule)\s+(?:plut[oô]t\s+)?(?:le|la)\s+(?=\d\b)", "do "),
    (r"\bplut[oô]t\b", "instead"), (r"\bpeut[-\s][eê]tre\b", "maybe"), (r"\bpourquoi\b", "why"),
    # any other "ne X pas/plus/jamais": the negation said first, as English says it; the verb is read below
    (
        rf"\bn(?:e\s+|')(?:le\s+|la\s+|les\s+|l')?(?P<v>{_VERBS})\s+(?:pas|plus|jamais|point)\b{_NO_SETTING_AFTER}",
        r"don't \g<v>",
    ),
    # "ne plus utiliser le GPU 2", "ne pas relancer": the negation before an infinitive
    (rf"\bne\s+(?:plus\s+)?jamais\s+{_NO_SETTING_AFTER}(?=\w)", "never "),
    (rf"\bne\s+(?:pas|plus)\s+{_NO_SETTING_AFTER}(?=(?:{_VERBS})\b)", "don't "),
    (r"\bnon\s+seulement\b", "non-seulement"),  # "not only ... but also": never a "no"
    (r"\bplus\s+(?:de|d')\s*(?=--|[A-Z])", "don't use "),
    # "mais pas le GPU 3": "but not", only before what a must-not names ("ok mais pis après?" stays unread)
    (r"\bmais\s+(?=pas\s+(?:(?:l[ea]s?\s+)?(?:gpus?|ports?)\b|d[e']\s*--))", "but "),
    # "il faut --x", "ça prend --x": needed; never "faut pas" (a must-not no rule reads)
    (r"\b(?:il\s+)?faut\s+(?=--)|\bça\s+prend\s+(?=--)", "needs "),
    (r"\bpour\s+ce(?:tte)?\s+mod[eè]le(?:-l[aà])?", "for this model"),
    (r"\bquantiz\w*\s+en\s+(?=fp8|int8|int4|awq|gptq|w8a8)", "quantization "),
    # "utilise juste les GPUs 4 à 7"; never "garde juste le 3 de côté" (kept aside)
    (r"\b(?:utilise[rz]?|prends)\s+juste\b", "use only"),
    (r"\bmets\b(?=\s+(?:it|(?:le\s+)?(?:serveur|sglang))\s+sur\b)", "put"),  # "mets-le sur le port 30001"
    (r"\b(?:à|a)\s+la\s+place\s+d[eu']\s*", "instead of "), (r"\b(?:à|a)\s+la\s+place\b", "instead"),
    (r"\bchange[rz]?\s+(?P<x>[^,.;]+?)\s+pour\s+(?=\d)", r"change \g<x> to "),  # "change le port pour 30010"
    (r"\bencore\s+une\s+fois\b|\bde\s+nouveau\b", "again"), (r"\btout\s+de\s+suite\b", "right now"),
    # instructions: the verbs ("passe le kv cache en fp8": set it to)
    (r"\bpasse\s+(?P<x>.+?)\s+en\s+", r"set \g<x> to "),
    (rf"(?:\bne\s+(?:le\s+)?relance\s+pas\b|\bne\s+red{_E}marre\s+pas\b){_NO_SETTING_AFTER}", "don't relaunch"),
    (rf"(?:\bn'utilise\s+(?:pas|jamais)\b|\bn'{_E}mploie\s+pas\b){_NO_SETTING_AFTER}", "don't use"),
    (rf"\bne\s+touche\s+pas(?:\s+(?:à|a)\b)?{_NO_SETTING_AFTER}", "don't touch"),
    (r"\bjamais\s+d[e']\s*(?=--|[A-Z])", "never use "), (r"\bpas\s+d[e']\s*(?=--|[A-Z])", "don't use "),
    # "pas de 8080 ni 8000": no port (or GPU) named, nor the next one
    (r"\bpas\s+d[e']\s*(?=(?:(?:ports?|gpus?)\s+)?\d)", "no "), (r"(?<=\d)\s+ni\s+(?=(?:l[ea]\s+)?\d)", " nor "),
    (rf"\brelance[rz]?\b|\bred{_E}marre[rz]?\b", "relaunch"),
    (r"\butilise[rz]?\b|\bprends\b|\bprendre\b", "use"), (r"\bmets\b|\bmettre\b|\bfixe\b|\br[eè]gle\b", "set"),
    (rf"\b{_E}vite[rz]?\b", "avoid"), (r"\bsers\b|\bservir\b", "serve"),
    (rf"\bd{_E}sactive[rz]?\b|\bcoupe\s+les\b", "disable"), (r"\bactive[rz]?\b", "enable"),
    (r"\benl[eè]ve\b|\bretire\b|\bsupprime\b|\bvire\b", "remove"), (r"\bajoute\b|\bajouter\b", "add"),
    (rf"\b(?:arr{_E}te|coupe|stoppe|ferme|tue)\s+(?=(?:le\s+)?(?:serveur|sglang)\b)", "stop "),
    (r"\broule[rz]?\b", "run"),  # Québécois: "roule le bench"
    (r"\brefais\s+(?:le\s+bench|une\s+mesure|la\s+mesure|le\s+benchmark)\b|\bremesure\b", "measure again"),
    (r"\bmais\s+garde\s+le\s+run\b", "but keep the run going"),
    (r"\btant\s+que\s+je\s+(?:ne\s+)?(?:dis|dit)\s+rien\b|\bjusqu'(?:à|a)\s+nouvel\s+ordre\b", "till I say so"),
    (r"\bpour\s+l'instant\b|\bpour\s+le\s+moment\b", "for now"),
    (r"\bavant\s+de\s+signer\b", "before signing off"),
    # nouns and small words
    (r"\btouche[rz]?\b", "touch"),
    (r"(?<=don't touch)\s+(?:à|a)\b", ""),  # "touche pas à ça"
    (r"\b(?:au|aux)\s+(?=ports?\b|gpus?\b|\d)", ""),
    # "switch au modèle dans /models/x", "passe au modèle X"
    (r"\b(?:passe|bascule)\s+au\s+(?=mod[eè]le\b)", "switch to "), (r"\bau\s+(?=mod[eè]le\b)", "to "),
    (r"\bdans\s+(?=/)", "at "),
    (r"\bserveur\b", "server"),
    (r"\bmod[eè]le\b", "model"),
    (r"\bseulement\b|\buniquement\b", "only"),
    (r"\binterdits?\b", "off limits"),
    (r"\bsans\b", "without"),
    (r"\bavec\b", "with"),
    (r"\bpuis\b|\bensuite\b", "then"), (r"\bpis\b", "and"),  # Québécois "pis": and
    (r"(?<=\d)\s+(?:à|a)\s+(?=\d)", "-"),  # "GPU 0 à 3"
    (r"\s+(?:à|a)\s+(?=\d)", " to "),  # "mets --mem-fraction-static à 0.8"
    (r"\s+en\s+(?=fp8|bf16|auto\b)", " to "), (r"\s+en\s+(?=tp\s?\d)", " with "),
    (r"\bdans\s+l'env\b", "in the env"), (r"\bde\s+l'env\b", "from the env"),
    (r"\bsur\s+(?:les|le|la)?\s*(?=gpus?\b|port\b|\d)", "on "), (r"\bet\s+pas\b", "and not"), (r"\bet\b", "and"),
    (r"\bpas\s+(?:le|la|les)\s+(?=gpus?\b|port)", "not "),
    (r"\b(?:le|la|les)\s+(?=gpus?\b|ports?\b|\d|model|server|bench|kv|cuda|radix|env|topo|log|mem|sglang)", ""),
    (r"\bl'(?=env\b)", "the "),
]  # fmt: skip
_FRENCH_WORDS = word_table.compiled(_FRENCH)
# words no English sentence has: only a message with one is read as French
_MARK = re.compile(
    rf"(?<!\w)à(?!\w)|\b(?:oui|passe|tout|plus\s+de|n'\w+|ne\s+\w+\s+(?:pas|plus|jamais)|ne\s+(?:pas|plus|jamais)|non\s+seulement|sur|et(?!\s+al\b)|vas[-\s]y|stp|svp|merci|relance\w*|utilise\w*|mets|{_E}vite\w*|sers|d{_E}sactiv\w*|enl[eè]ve|vire|"
    rf"ajoute\w*|serveur|mod[eè]le|seulement|uniquement|jamais|pas|sur\s+les|avec|sans|puis|refais|arr{_E}te\w*|"
    rf"c'{_E}st|valide|parfait|peut[-\s][eê]tre|pourquoi|tu\s+peux|interdits?|n'utilise|plut[oô]t|fais|dans\s+l'env|de\s+l'env|tant\s+que|red{_E}marr\w*|"
    rf"roule\w*|juste|faut|d'accord|voil[aà]|pour\s+moi|en\s+tp\s?\d|quantiz\w*\s+en|(?:au|bascule)\s+mod[eè]le|change[rz]?\s+(?:le|la|les)(?=\s)|ça\s+prend(?=\s+--))\b"
    r"|(?:^|[.!;]\s*|\b(?:ok|oui|bon)[,\s]\s*)je\s+signe(?=\s*(?:$|[,.;!]))",  # as the "je signe" rule reads it
    re.I,
)


# a French negation or "without" no rule above turned into English, or a word that takes away ("le GPU 3 en
# moins", "de côté", "à part le 3", "hormis"): the clause it is in is not read, never a setting to use
_NEGATION_LEFT = re.compile(
    r"\b(?:ne|n'\w*|pas|plus\s+d[e']|jamais|aucune?|rien|sans|ni|non-seulement|moins|de\s+c[oô]t[eé]|hormis|except[eé])\b"
    r"|(?<!\w)à\s+part\b",
    re.I,
)


def negation_left(clause: str) -> bool:
    """Whether a clause still holds a French negation word: "n'use guère GPU 3" is never "use GPU 3"."""
    return bool(_NEGATION_LEFT.search(clause))


def in_english(text: str) -> str:
    """`text` with a French operator's words put in English; any other message as it was."""
    return word_table.in_english(text, _FRENCH_WORDS) if _MARK.search(text) else text
