"""A Vietnamese operator's chat as its English, before a reply or an instruction is read: "ok anh, run đi",
"không, not now", "chọn 2 đi", "tự làm đi", "stop hết đi", "không sign", "dạ ok". Only a message with a
word written in Vietnamese letters is read so (its words are short and, without their marks, English
ones: "di", "la", "het"); anything no rule here places is left as written, and then unread."""

from __future__ import annotations

import re

from agent.hearing import word_table

_NOT = r"(?:không|khong|hông|ko)"

# The longer phrases first: "không sign" before "không".
_VIETNAMESE: list[tuple[str, word_table.Replacement]] = [
    # "đi" ends an order as "!" does; "ạ", "nhé", "nha" make it polite
    (r"\s+(?:đi|nhé|nhe|nha|ạ)(?=\s*(?:[,.!;]|$))", ""),
    # "dạ", "vâng": a polite yes; "anh", "chị", "em" address the reader and say nothing of the run
    (r"^(?:dạ|vâng|vang)\b", "yes"),
    (r"(?<=\bok)\s+(?:anh|chị|em)\b|\s+(?:anh|chị)(?=\s*(?:[,.!;]|$))", ""),
    (r"\btự\s+làm\b|\btự\s+quyết\b", "carry on on your own"),
    (rf"\b{_NOT}\s+(?:sign|ký|ki)\b", "don't sign off"),
    (rf"^{_NOT}\b", "no"),
    (r"\bchọn\s+(?=(?:số\s+)?\d\b)", "pick "),
    (r"\bsố\s+(?=\d\b)", "number "),
    (r"\bhết\b|\btất\s+cả\b", "everything"),
    (r"\bxong\b", "done"),
    (r"\brồi\b", "already"),
    (r"\bđược\b", "ok"),
]
_VIETNAMESE_WORDS = word_table.compiled(_VIETNAMESE)
# a letter only Vietnamese writes ("đ", "ư", "ơ", and the tone marks over them and over "â", "ê", "ô", "ă")
_MARK = re.compile(r"[đĐưƯơƠăĂạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]|\bkhông\b")


def in_english(text: str) -> str:
    """`text` with a Vietnamese operator's words put in English; any other message as it was."""
    return word_table.in_english(text, _VIETNAMESE_WORDS) if _MARK.search(text) else text
