"""An Egyptian operator's chat as its English, before a reply or an instruction is read: Arabic typed in
Latin letters and digits ("matesta5demsh GPU 0 w 1", "shaghalo 3ala 4-7 bas", "la2 lessa", "e3mel rakam
2") and in its own script ("شغل على GPU ٣ و ٤ بس"). Only a message with such a word is read so; a word
of it that no rule here placed keeps its clause unread (agent.hearing.foreign: its "not" cannot be told
from its other words)."""

from __future__ import annotations

import re

from agent.hearing import word_table

_ARABIC_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹", "01234567890123456789")
_IT = r"(?:o|ha|hom|ohom)"  # the object joined to a verb: "shaghal-o", "e3mel-ha"

# The longer phrases first: "matesta5demsh" before "esta5dem", "mesh delwa2ty" before "mesh".
_ARABIZI: list[tuple[str, word_table.Replacement]] = [
    # replies
    ("،", ","),  # the Arabic comma
    (r"^(?:aywa|aiwa|ايوه|أيوه|أيوة|ايوة|نعم)\b[\s,]*(?:yalla|يلا)?", "yes "),
    (r"^(?:tamam|تمام|mashy|mashi|ماشي)\b", "ok"),
    # "yalla" alone is a go-ahead; beside other words it is only "come on" ("fix the nccl thing yalla")
    (r"^[\s,]*(?:yalla|يلا)[\s,!.]*$", "go ahead"), (r"\b(?:etfadal|itfadal|اتفضل|إتفضل)\b", "go ahead"),
    (r"[\s,]*\b(?:yalla|يلا)\b[\s,!]*", " "),
    (r"^(?:la2|la'|لا)\b[\s,]*(?:mesh|mish|مش)\s+(?:delwa2ty|dilwa2ti|دلوقتي)\b", "not yet"),
    (r"^(?:la2|la'|لا)\b[\s,]*(?:lessa|lissa|لسه|لسة)\b", "not yet"), (r"^(?:lessa|lissa|لسه)\b", "not yet"),
    (r"^(?:la2|la'|la(?=\s*,)|لا)(?:[\s,]+(?:la2|la'|لا))*\b", "no"),
    (r"\b(?:mesh|mish)\s+(?:delwa2ty|dilwa2ti)\b", "not now"),
    (r"\b(?:mesh|mish)\s+mohem+\b", "doesn't matter"),
    (r"\b(?:kammel|kamel|kamil|كمل)\b", "carry on"), (r"\b3ala\s+el\s+plan\s+bta3ak\b", "with your plan"),
    (r"\bmat-?stanna(?:nish|ni)\b", "don't wait on me"),
    (r"\b(?:khalas|5alas|خلاص)\s+with\b", "done with"), (r"\b(?:khalas|5alas|خلاص)\b[\s,]*", ""),
    (r"\be2fel\s+el\s+run\s+kol(?:aha|ha)\b", "stop the whole run"),
    (r"\b(?:w2af|wa2af|we2ef|وقف)\s+kol\s+7aga\b", "stop everything"),
    (r"\b(?:w2af|wa2af|we2ef|وقف)\b", "stop"),
    (r"\b(?:e3mel|a3mel|اعمل)\s+(?:rakam|nemra)\s+(?=\d)", "do "), (r"\b(?:rakam|nemra|رقم)\s+(?=\d)", "number "),
    (r"\b(?:law\s+sama7t|men\s+fadlak|please)\b", "please"),
    (r"\b(?:law|لو)\b", "if"), (r"\bmabrook\s+3alei(?:na|k)\b", "congrats"),
    (r"\bel\s+rakam\s+da\b", "that number"),
    # a Levantine or Gulf writer's fillers, and numbers said in Arabic ("gpu talata", "tp arba3a, dp itnein")
    (r"\s*\b(?:habibi|ya3ni|inshallah|insha'?allah)\b", ""), (r"\bmafi\s+mushkil[ae]\b", "no problem"),
    (r"\b(?:sifr|sefr)\b", "0"), (r"\b(?:wa7ed|wahed)\b", "1"), (r"\b(?:itnein|etnein|tnein|itnen)\b", "2"),
    (r"\b(?:talata|tlata|talateh)\b", "3"), (r"\b(?:arba3a|arba'a|arba3)\b", "4"), (r"\b(?:khamsa|5amsa)\b", "5"),
    (r"\b(?:sitta|setta)\b", "6"), (r"\b(?:sab3a|saba3a)\b", "7"), (r"\b(?:tamanya|tamania|tmanya|thamanya)\b", "8"),
    # Arabic says the setting, then its value with "the" again: "the port the new 30002", "the attention backend the
    # flashinfer"
    (r"\b(?:the\s+)?(port|attention\s+backend|model|kv\s+cache\s+dtype)\s+the\s+(?:new\s+)?", r"\1 "),
    # instructions: must-nots first
    (r"\bmat-?esta5dem(?:sh|ish)\b|\bma\s+testa5demsh\b", "don't use"), (r"\bmat-?edeesh\b", "don't pass"),
    (r"\bmat-?shaghal(?:osh|hosh|sh)\s+tany\s+l7ad\s+ma\s+a2ollak\b", "don't relaunch till I say so"),
    (r"\bmat-?shaghal(?:osh|hosh|sh)\s+tany\b", "don't relaunch"),
    (r"\b(?:w\s+)?mat-?rga3sh\s+tshaghal" + _IT + r"\b", "and don't relaunch"),
    (r"\b(?:mesh|mish)\s+3ayez\s+", "no "), (r"\bib3ed\s+3an(?:ha|o|hom)\b", "avoid it"), (r"\bib3ed\s+3an\b", "avoid"),
    (r"\b(?:mesh|mish|مش)\s+(?=\d{4,5}\b)", "not port "),
    (r"\b(?:esta5dem|ista5dem|استخدم)\b", "use"), (r"\bshaghal" + _IT + r"\b|\b(?:shaghal|شغل|شغله)\b", "run"),
    (r"\b(?:e3mel|a3mel|اعمل)" + _IT + r"?\s+(?=restart\b)", ""), (r"\be3mel" + _IT + r"\s+(?=tp|dp)", "use "),
    (r"\b(?:7ot|حط)\b", "set"), (r"\bshil\b", "unset"), (r"\b2alel\b", "set"),
    (r"\b(?:a3ed|e3ed|عيد)\b", "rerun"), (r"\b(?:e2fel|اقفل)" + _IT + r"\b", "disable it"),
    (r"\bb3d\s+ma\s+t-?", "after you "), (r"\b(?:badal|بدل)\s+(?:da|dah|دا|ده)\b", "instead"),
    (r"(?<=\d)\s+(?:w|و)\s+(?=\d)", " and "), (r"\s+(?:w|و)\s+", " and "),
    (r"\bmen\s+(\d+)\s+(?:le|l|la)\s+(\d+)\b", r"\1-\2"), (r"(\d+)\s+(?:l7ad|لحد|le)\s+(\d+)", r"\1-\2"),
    (r"\bb\s+(?=tp|dp)", "with "), (r"\ble\s+(?=\d)", "to "),
    (r"\b(?:3ala|على|3al)\b", "on"), (r"\b(?:bas|بس)\b", "only"), (r"\b(?:mn|men|من)\s+el\b", "from the"),
    (r"\b3ashan\b.*$", ""), (r"\b3amal\s+OOM\s+tany\b", "it OOMed again"), (r"\bma7goz\b", "is busy"),
    (r"\b3alei(?:hom|ha)\s+job\s+tany\b", "have another job on them"),
    (r"\b5od\s+ay\s+port\s+tany\b", "any other port"),
    (r"\bfeeha\b", "has"), (r"\bma3lesh\b[\s,]*", ""), (r"\b(?:tany|tani)\b", "again"),
    (r"\bfee\s+7ad\s+tany\s+3alei(?:hom|ha|h)\b", "someone else is on them"),
    (r"\b(?:el|al)\s+", "the "), (r"\babadan\b", "ever"),
]  # fmt: skip
_WORDS = word_table.compiled(_ARABIZI)
_MARK = re.compile(
    r"[\u0600-\u06ff]|\b(?:aywa|aiwa|yalla|tamam|mashy|la2|lessa|kammel|khalas|w2af|e3mel|rakam|nemra|sama7t|esta5dem|"
    r"mat-?\w+sh|shaghal\w*|ib3ed|7ot|shil|2alel|a3ed|e3ed|3ala|ma7goz|3ashan|badal|l7ad|mesh|mish|e2fel\w*|ma3lesh|"
    r"3alei\w*|law|w2af|wa2af|habibi|ya3ni|inshallah|talata|arba3a|itnein|tamanya|sitta|sab3a|wa7ed|khamsa)\b|^la(?=\s*,)|"
    r"\be3mel\w*",  # never "el" alone: Spanish has it too ("apaga el server")
    re.I,
)


def in_english(text: str) -> str:
    """`text` with an Egyptian operator's Arabic put in English; any other message as it was."""
    if not _MARK.search(text):
        return text
    return word_table.in_english(text.translate(_ARABIC_DIGITS), _WORDS)
