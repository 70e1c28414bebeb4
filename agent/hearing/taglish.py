"""A Filipino operator's Taglish as its English, before a reply or an instruction is read: "wag gamitin
gpu 0" (don't use GPU 0), "palitan mo port to 30001", "i-disable mo yung cuda graph", "sige, go",
"ikaw bahala" (your call), "tama na, stop na", and the particles that soften or time a clause ("po",
"naman", "lang", "na", "muna", "ha"). Only a message with a word no English sentence has is read so;
what is left is read by the grammar as any message is, so a word this table lacks stays unread."""

from __future__ import annotations

import re

from agent.hearing import word_table

_TAGLISH: list[tuple[str, word_table.Replacement]] = [
    # the never, the don't, the no (the longer phrases first)
    (r"\b(?:huwag|wag)\s+na\s+(?:huwag|wag)\s+mong?\s+(?:ipapasa|ipasa|gagamitin|gamitin)\b", "never use"),
    (r"\b(?:huwag|wag)\s+mo\s+na\s+gagamitin\b", "never use"), (r"\bkahit\s+kailan\b", ""),
    (r"\b(?:huwag|wag)\s+mo\s+(?:na\s+)?(?:nang\s+)?(?:muna\s+)?i-?(?:re)?launch\s+ulit\b", "don't relaunch"),
    (r"\b(?:huwag|wag)\s+mo\s+(?:na\s+)?(?:nang\s+)?(?:muna\s+)?i-?relaunch\b", "don't relaunch"),
    (r"\bhanggang\s+sabihan\s+kita\b", "until I say so"), (r"\biwan\s+mo\s+(?:lang\s+)?nakapatay\b", "keep it down"),
    (r"\b(?:huwag|wag)\s+mo\s+(?:na\s+)?(?:muna\s+)?i-?sign\s+off\b", "don't sign off yet"),
    (r"(?P<x>gpus?\s*\d[\d\s,-]*?)\s+(?:huwag|wag)\s+mo\s+isama\b", r"don't use \g<x>"),
    (r"\b(?:huwag|wag)\s+(?:mong?\s+)?(?:munang\s+)?galawin\b", "don't touch"),
    (r"\b(?:huwag|wag)\s+(?:mong?\s+)?(?:na\s+)?(?:gamitin|gagamitin)\b", "don't use"),
    (r"\b(?:huwag|wag)\s+sa\s+(?=port)", "don't use "),
    (r"^\s*(?:huwag|wag)\s+na\b", "no"), (r"\bayoko\b", "no"), (r"\bhuwag\s+po\b", "no"),
    (r"\bhindi\s+pa\b", "not yet"), (r"^\s*hindi\b", "no"),
    # the verbs, said with "mo" (you) and the object after
    (r"\bpalitan\s+mo\b", "change"), (r"\bpatayin\s+mo\b", "stop"), (r"\bitigil\s+mo\b", "stop"),
    (r"\btanggalin\s+mo\b", "remove"), (r"\blagyan\s+mo\s+ng\b", "add"), (r"\bunset\s+mo\b", "unset"),
    (r"\bset\s+mo\b", "set"), (r"\bi-set\s+mo\s+pareho\b", "set both"),
    (r"\bi-benchmark\s+mo\s+ulit\b", "benchmark again"), (r"\bsukatin\s+mo\s+ulit\b", "measure again"),
    (r"\bi-restart\s+mo\b", "restart it"), (r"\bi-(off|on)\s+mo\b", r"turn \1"),
    (r"\bi-(disable|enable|relaunch|launch)\s+mo\b", r"\1"),
    (r"\bgawin\s+mong\s+(?P<v>\S+)\s+(?:yung|ang)\s+(?P<what>[\w\s]+?)(?=\s*(?:tapos|,|$))", r"set \g<what> to \g<v>"),
    (r"(?P<what>[a-z][\w\s]*?)\s+gawin\s+mong\s+(?P<v>\S+)", r"set \g<what> to \g<v>"),
    (r"(?P<x>\S.*?)\s+lang\s+gamitin\s+mo\b", r"use only \g<x>"),
    (r"\blipat\s+(?:muna\s+)?tayo\s+sa\s+\w+,?\s+nasa\s+(?=/)", "switch to "),
    (r"\blipat\s+(?:muna\s+)?tayo\s+sa\b", "switch to"), (r"\bpara\s+mabilis\s+ma-test\b", ""),
    (r"\bbago\s+(?:mo\s+i-?|tayo\s+mag\s*|ka\s+mag\s*)sign\s+off\b", "before you sign off"),
    (r"\s+bago\s+ka\s+mag\s*launch\b", ""),
    # the answers
    (r"\bikaw\s+(?:na\s+)?bahala(?:\s+diyan)?\b", "your call"), (r"\bdi\s+ko\s+na\s+pakikialaman\b", ""),
    (r"\bituloy\s+mo\s+(?:lang\s+)?(?:yung|ang)\s+plano\s+mo\b", "carry on with your plan"),
    (r"\bituloy\s+mo(?:\s+lang)?\b", "carry on"), (r"\bkaya\s+pa\s+natin\s+pataasin\s+yan\b", ""),
    (r"\bpirmahan\s+na\s+natin\b", "sign it off"), (r"\bokay\s+na\s+yan\b", "that's fine"), (r"^\s*ayos\b!?", "great!"),
    (r"\btama\s+na\b", "enough"), (r"\btapusin\s+na\s+natin\b", "stop the whole run"),
    (r"\bcancel\s+na\s+natin\s+(?:tong|ang|yung)\s+run\b", "cancel the whole run"),
    (r"\bstop\s+na\s+lahat\b", "stop everything"), (r"\bstop\s+(?:mo\s+)?na\s+lahat\b", "stop everything"),
    (r"\blahat\b", "everything"), (r"\bbukas\s+na\s+lang\s+ulit\b", ""),
    (r"\bsandali\s+lang\b", "wait"), (r"\bsige\b", "ok"), (r"\bgo\s+na\b", "go"),
    (r"\b(?:yung|ang)\s+pangalawa\b", "the second one"), (r"\b(?:yung|ang)\s+pangatlo\b", "the third one"),
    (r"\b(?:yung|ang)\s+una\b", "the first one"), (r"\b(?:yung|ang)\s+(#\d)\s+na\s+lang\s+gawin\s+mo\b", r"do \1"),
    (r"\bgawin\s+mo\b", "do"), (r"\bnung\s+isang\s+linggo\b", "last week"), (r"\bkahapon\b", "yesterday"),
    (r"\b(list|check|read|run|stop|set|unset|remove|use|change|add|kill|restart|do|tail)\s+mo\b", r"\1"),
    (r"(?<=\d)\s+at\s+(?=\d)", " and "),  # "gpu 6 at 7": "at" is Tagalog's "and"
    (r"\bisang\s+instance\s+lang\b", "single replica"),
    # joiners and particles
    (r"\s+tapos\s+", " and "), (r"\s+tsaka\s+", " and "), (r"\bpwede\s+ba\b", "can we do"),
    (r"\b(?:yung|ang)\b", "the"), (r"\b(?:na|muna|na\s+muna)\s+(?=the\b)", ""),
    (r"(?:\s*\b(?:po|naman|lang|muna|boss|tayo|na|ha)\b)+(?=\s*(?:[,.!?;]|$))", ""),
    (r"\b(?:po|naman|na\s+lang)\b\s*", ""),
]  # fmt: skip
_WORDS = word_table.compiled(_TAGLISH)
_MARK = re.compile(
    r"\b(?:huwag|wag|sige|pwede|naman|yung|gamitin|gagamitin|palitan|patayin|ituloy|bahala|ayoko|tapos|tsaka|"
    r"lagyan|tanggalin|gawin|mong|natin|tayo|muna|ulit|lahat|sandali|pirmahan|itigil|hindi|po|i-(?:restart|off|on|"
    r"disable|enable|set|benchmark|relaunch|launch|sign)|bago|isang|lang|nung|sabi|daw|tama\s+na)\b",
    re.I,
)


def in_english(text: str) -> str:
    """`text` with a Filipino operator's Taglish put in plain English; any other message as it was."""
    return word_table.in_english_when(text, _MARK, _WORDS)
