"""An Indonesian operator's chat as its English, before a reply or an instruction is read: "iya lanjut",
"jangan pakai GPU 3", "pakai port 30001 aja", "matiin servernya", "cuma GPU 0-3", "jangan launch lagi
sampe gw bilang", "gpu 7 jgn". Only a message with a word no English sentence has is read so; a
"jangan", "gak" or "belum" no rule here placed keeps its clause unread (agent.hearing.foreign)."""

from __future__ import annotations

import re

from agent.hearing import word_table

_NOT = r"(?:jangan|jgn|gak|ga|nggak|enggak|tidak|tdk|gk)"
_ME = r"(?:gw|gue|aku|saya|sy)"
_YOU = r"(?:lu|lo|kamu|km|elu)"

# The longer phrases first: "jangan pakai" before "pakai", "gak usah nanya" before "gak usah".
_INDONESIAN: list[tuple[str, word_table.Replacement]] = [
    # "servernya", "log nya": the "-nya" that points at a known thing (never Arabic's "tamanya", eight)
    (r"\b(?!t(?:h|)a?manya\b)(\w{3,})nya\b", r"\1"),
    (r"\s+nya\b", ""),
    (r"\b(?:aja|saja|dong|deh|sih|ya|yah|kok)\b(?!$)", ""), (r"[\s,]+(?:aja|saja|dong|deh|sih|ya|yah)$", ""),
    # replies
    # never "iya" alone: Japanese says no with it ("iya desu"); beside more words it is Indonesian's yes
    (r"^(?:iya+(?=[\s,]+\w)|iyes|yoi|yup|siap|oke+)\b", "yes"), (r"^ya\b(?=\s*(?:[,.!]|$|\s+lanjut))", "yes"),
    (r"\b(?:gas(?:keun)?|lanjut(?:kan)?|jalan(?:in|kan))\b(?=\s*(?:[,.!]|$))", "go ahead"), (r"^boleh\b", "ok"),
    (rf"\b(?:lanjut|terus(?:in|kan)?)\s+(?:sesuai\s+plan(?:\s+{_YOU})?|sendiri)\b", "carry on with your plan"),
    (rf"\b{_NOT}\s+usah\s+(?:nanya|tanya)(?:2|-nanya)?\s+(?:{_ME}\s+)?(?:lagi)?", "don't ask me"),
    (rf"^{_NOT}\s+usah\b|^gausah\b", "no"), (rf"^{_NOT}\s+dulu\b", "not yet"), (r"^belum\b", "not yet"),
    (
        rf"\bntar\s+{_ME}\s+cek\s+hasil\w*", ""), (r"\budahan\s+dulu(?:\s+hari\s+ini)?\b|"
        r"\bcukup\s+(?:hari\s+ini|dulu)\b",
        "that's it for today",
    ),
    (r"\bstop\s+run\b", "stop the whole run"), (r"\b(?:yg|yang)\s+no\s+(?=\d)", "number "),
    (r"\bmau\s+(?:liat|lihat)\b", "want to see"), (r"\bdulu\b", "first"),
    # instructions
    (
        rf"\b{_NOT}\s+(?:launch|start|nyalain|"
        rf"jalanin)\s+(?:lagi\s+)?(?:dulu\s+)?sampe?\s+{_ME}\s+bilang\b",
        "don't relaunch till I say so",
    ),
    (rf"\b{_NOT}\s+(?:launch|start|nyalain|jalanin)\s+lagi(?:\s+first)?\b", "don't relaunch"),
    (
        rf"\b{_NOT}\s+(?:pakai|pake|gunain|gunakan)\b", "don't use"), (rf"\b{_NOT}\s+(?:sentuh|"
        rf"senggol|ganggu)\b",
        "don't touch",
    ),
    (
        rf"((?:gpus?|ports?)\s+\d+(?:\s*(?:,|and|sm|sama|dan)\s*\d+)*)\s+{_NOT}\b(?!\s+\w)",
        r"don't use \1",
    ),  # "gpu 7 jgn"
    # "port 30000 jangan dipake": the thing, then its must-not said in the passive
    (
        rf"((?:gpus?|ports?)\s+\d+(?:\s*(?:,|and|sm|sama|dan)\s*\d+)*)\s+{_NOT}\s+di(?:pake|pakai|sentuh|ganggu|gunain)\b",
        r"don't use \1",
    ),
    (r"\s+(?:biar|supaya|soalnya|karena|krn)\s+", ", so that "),
    (r"\b(?:kalau|kalo|klo|jika|asal)\b", "if"),
    (rf"\b{_NOT}\s+(?=\d{{4,5}}\b)", "not port "), (rf"\b{_NOT}\s+(?=(?:gpus?|ports?)\b)", "don't use "),
    (r"\b(?:pakai|pake|gunain|gunakan)\b", "use"), (r"\b(?:cuma|cuman|hanya)\b", "only"),
    (r"\b(?:matiin|matikan)\s+(?=(?:the\s+)?(?:server|sglang)\b)", "stop "), (r"\b(?:matiin|matikan)\b", "disable"),
    (r"\b(?:nyalain|nyalakan|aktifin|aktifkan)\b", "enable"),
    (r"\b(?:tambahin|tambahkan|tambah)\b", "add"), (r"\bganti\s+model\s+ke\b", "serve"),
    (r"\bmodel\s+ganti\b", "serve"), (r"\bganti\s+ke\b", "switch to"), (r"\bganti\b", "switch"),
    (r"\b(?:benchmark|bench)\s+ulang\b|\bulang\s+(?:benchmark|bench)\b", "measure again"), (r"\bulang\b", "again"),
    (r"\blagi\b", "again"), (r"\bsampe?\s+" + _ME + r"\s+bilang\b", "till I say so"),
    (r"\b(?:di|ke)\s+(?=gpus?\b|\d|port)", "on "), (r"(?<=\d)\s+(?:sm|sama|dan)\s+(?=\d)", " and "),
    (r"\s+(?:sm|sama|dan)\s+(?=[A-Z][A-Z0-9_]{2,}=|--)", " and "),
    (r"\b(?:rusak|error|mati)\b(?=\s*(?:[,.]|$))", "is broken"), (r"\b(?:trus|terus|abis\s+itu|habis\s+itu)\b", "then"),
    (r"\bskip\b(?=\s*$)", "skip it"),
]  # fmt: skip
_INDONESIAN_WORDS = word_table.compiled(_INDONESIAN)
_MARK = re.compile(
    rf"\b(?:iya+|lanjut\w*|gas(?:keun)?|boleh|jalan(?:in|kan)|aja|saja|{_NOT}|usah|gausah|dulu|belum|gw|gue|lu|pakai|pake|"
    r"cuma|cuman|hanya|matiin|matikan|(?!t(?:h|)a?manya\b)\w+nya|sentuh|sm|sama|tambah\w*|ganti|lagi|sampe|ulang|rusak|trus|terus\w*|"
    r"udahan|sendiri|nanya|yg|dong|deh|sih|nyalain|gunain|biar|kalau|kalo|klo|di\s+(?=gpus?\b|\d))\b",
    re.I,
)


def in_english(text: str) -> str:
    """`text` with an Indonesian operator's words put in English; any other message as it was."""
    return word_table.in_english(text, _INDONESIAN_WORDS) if _MARK.search(text) else text
