"""A reply that gives its context first and its answer last: "we already have the topo output from this
morning, it's in the incident doc. so no, don't run it again.", "the topology hasn't changed since the
last run. do 3." The answer is the last sentence's, only when every sentence before it is context: no
answer of its own, no instruction, no question, no condition. Otherwise the whole is words to read."""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.hearing.reply_words import NOT_SAID_STRAIGHT
from agent.hearing.run_on import said_as_an_instruction
from agent.state import Reply

_SENTENCE_END = re.compile(r"(?<=[.!])\s+(?=\S)")
_CONDITION = re.compile(r"\b(?:if|unless|as\s+long\s+as|provided|assuming|once|when)\b", re.I)
# "same as yesterday. go": words that point at another plan are no context, they are what to do
_REFERS = re.compile(
    r"\b(?:same\s+as|as\s+before|like\s+(?:last\s+time|before|yesterday)|as\s+usual|the\s+usual)\b", re.I
)

_PRONOUN = re.compile(r"\b(?:it|them|'em|that|those|this|these)\b", re.I)
_A_THING = re.compile(r"\b(?:gpus?|cards?|ports?)\s*#?\d|--[a-z]|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+", re.I)


def answer_after_context(text: str, parse: Callable[[str], Reply], instructs: Callable[[str], bool]) -> Reply | None:
    """The last sentence's answer (`parse` reads a sentence as a reply, raising ValueError where it
    refuses it), where every sentence before it is context; None otherwise."""

    def read(sentence: str) -> Reply | None:
        try:
            return parse(sentence)
        except ValueError:  # refused, or a question answered: never context
            return None

    sentences = [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]
    if len(sentences) < 2:
        return None
    answer = read(sentences[-1])
    if answer is None or answer.kind == "say":
        return None
    bare_number = answer.kind == "pick" and re.fullmatch(r"\W*(?:just\s+|only\s+)?#?\d{1,2}\W*", sentences[-1])
    if (_PRONOUN.search(sentences[-1]) or bare_number) and any(_A_THING.search(c) for c in sentences[:-1]):
        # "gpu3 threw xid 79 again. skip it": "it" is the GPU; "stay off gpu 3 ... just 3": 3 is the GPU, no step
        return None
    for context in sentences[:-1]:
        if "?" in context or _CONDITION.search(context) or _REFERS.search(context) or instructs(context):
            return None
        if re.search(NOT_SAID_STRAIGHT, context, re.I):
            return None  # "yeah, what could possibly go wrong. go ahead": the go-ahead may be the irony's
        if len(context.split()) < 4 or said_as_an_instruction(context):
            return None  # "don't run topo. yes.": an order of its own, never context
        said = read(context)
        if said is None or said.kind != "say":
            return None  # an answer of its own before the last: the message says two things
    return answer
