"""A Nigerian operator's Pidgin as its English, before a reply or an instruction is read: "run am" (run
it), "no use gpu 0" (don't use it), "make you add --x" (add it), "na port 30001 we dey use" (use port
30001), "abeg", "oya", "o" and "jare" (please, come on, emphasis), "no wahala" (no problem), "na you
sabi" (your call). Only a message with a word no English sentence has is read so; what is left is read
by the grammar as any message is, so a word this table lacks stays unread."""

from __future__ import annotations

import re

from agent.hearing import word_table

# verbs Pidgin gives "am" (it, them) as their object; never "I am"
_VERB = (
    r"(?:run|do|sign|launch|restart|start|use|hold|change|pass|forget|kill|stop|try|touch|remove|leave|check|see|"
    r"bring|off|on|free|avoid|drop|fix)"
)
_PIDGIN: list[tuple[str, word_table.Replacement]] = [
    (r"\bno\s+wahala\b", "no problem"), (r"\bwahala\b", "trouble"),
    (r"\bna\s+you\s+sabi\b", "your call"), (r"\bI\s+no\s+gree\b", "no"),
    (r"\bI\s+no\s+go\s+decide\b", "I don't decide"),
    (r"\byou\s+dey\s+play\s*\??", ""),  # "are you joking?": disbelief, no question to answer
    (r"\bsharp\s+sharp\b", ""), (r"^\s*(?:abeg|I\s+beg)\b[,\s]*", ""), (r"\s*\babeg\b", ""), (r"\boya\b[,\s]*", ""),
    (r"\s*\bjare\b", ""), (r"\s*\bsef\b", ""),
    (r"(?<=\w)\s+o\b(?=\s*(?:[,.!;]|$))", ""),  # "no o", "your call o": emphasis
    # "na port 30001 we dey use": the thing used, said first
    (r"^\s*na\s+(?P<x>[^,.;]+?)\s+we\s+(?:dey|go|wan)\s+use\b", r"use \g<x>"),
    (r"\bna\s+so\b", "ok"), (r"\bna\s+for\b", "are for"),
    (r"\b(?:make|mek)\s+you\s+", ""), (r"\b(?:make|mek)\s+we\s+", "let's "), (r"\b(?:make|mek)\s+I\s+", "so I can "),
    (r"\bwetin\s+you\s+think\s+say\s+(?:better|best)\b", "whatever you think is best"),
    (r"\bwetin\s+you\s+think\s+say\b", "whatever you think is"), (r"\bI\s+dey\s+watch\b", "I'm watching"),
    (r"\be\s+don\s+dey\b", "it has been"), (r"\bwe\s+no\s+need\b", "we don't need"), (r"\bthink\s+say\b", "think"),
    (r"\bwetin\b", "what"), (r"\bshey\b", "will"), (r"\babi\b", "or"),
    (r"\bno\s+(?=(?:use|touch|run|start|pass|sign\s+am|launch|restart|change)\b)", "don't "),
    (r"\bno\s+dey\b", "is not"), (r"\b(?:e|e\s+don)\s+dey\b", "it is"), (r"\be\s+don\b", "it has"),
    (r"\be\s+go\b", "it will"), (r"\bI\s+go\b", "I will"), (r"\bwe\s+don\b", "we have"), (r"\bI\s+dey\b", "I am"),
    (r"\bdey\b", "is"),
    (r"\bsign\s+am\b(?!\s+off)", "sign it off"), (rf"\b({_VERB})\s+am\b", r"\1 it"), (r"\bdem\b", "them"),
    (r"\btill\s+I\s+talk\b", "till I say so"),
]  # fmt: skip
_WORDS = word_table.compiled(_PIDGIN)
_MARK = re.compile(
    rf"\b(?:abeg|oya|wahala|sabi|wetin|dey|gree|shey|jare|sef|abi|mek|I\s+beg)\b|\b{_VERB}\s+am\b|"
    r"(?<=\w)\s+o\s*[,.!]*$|\bna\s+for\b|\b(?:avoid|use|touch|leave)\s+dem\b|\bmake\s+(?:you|we)\b",
    re.I,
)


def in_english(text: str) -> str:
    """`text` with a Nigerian operator's Pidgin put in plain English; any other message as it was."""
    return word_table.in_english_when(text, _MARK, _WORDS)
