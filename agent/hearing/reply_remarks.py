"""What stands beside an answer in a reply: the answer's own words, courtesies and the operator's
remarks, told apart from conditions, hedges and instructions (which make the reply words to read)."""

from __future__ import annotations

import re

from agent.hearing import chinese
from agent.hearing.reply_words import A_SETTING, COURTESY, NOT_SAID_STRAIGHT, REASSURANCE, SEP, an_order
from agent.state import OperatorRules


def made_of(phrases: str, text: str) -> bool:
    """Whether `text` is made only of these phrases (and courtesies), at least one of them."""
    words = rf"(?:{phrases}|{COURTESY})"
    return bool(re.fullmatch(rf"{words}(?:{SEP}{words})*[\s.!]*", text, re.I)) and bool(
        re.search(rf"(?<!\w){phrases}(?!\w)", text, re.I)  # "👍" has no word boundary
    )


APPROVED = r"(?:approved?|i\s+approve|lgtm|ship\s*it|sign(?:ed)?\s+(?:it\s+)?off|signing\s+off)"
# an approval said after a refusal's words ("... came back clean. signed"): never read as the refusal's reason
APPROVED_AFTER = re.compile(
    r"(?<!not\s)(?<!n't\s)\b(?:signed(?:\s+off)?|approved|lgtm|go\s+ahead|ship\s+it|sign\s+it(?:\s+off)?)\s*[.!]*$",
    re.I,
)
CONDITION = (
    r"\b(?:but|except|however|only\s+if|unless|wait|first|before|after|instead|stop|hold|as\s+long\s+as|provided|"
    r"assuming|skip)\b"
)
# after an approval any "not" matters, and an "if" ("yes, if the log is clean"), but not a courtesy's
HEDGE = re.compile(
    rf"{CONDITION}|\b(?:don'?t|do\s+not|not|no)\b|\bif\b(?!\s+you\s+(?:could|can|would|'d|have|need)\b)", re.I
)  # after an approval, any "not" matters


def understood_parts(text: str) -> tuple[list[str], list[str]]:
    # imported here: agent.cli.errors imports this module, and the instruction grammar is not needed
    # to start `opsagent policy` (its cold start is measured)
    from agent.hearing.instructions import understood

    return understood(text)


def heard_any(text: str) -> bool:
    return bool(understood_parts(text)[0])


def read_or_asked(text: str) -> bool:
    """Read in part, or only to be asked back ("keep off 3": bare ids with a verb a GPU takes): such
    words beside an answer are never a remark."""
    from agent.hearing.instructions import counted

    heard, missed = understood_parts(text)
    return bool(heard) or any(counted(OperatorRules(), clause) for clause in missed)


def less_remarks(text: str, *remarks: re.Pattern[str]) -> str:
    """`text` less the operator's reassurances or reasons; one that names a number, a flag or anything the
    grammar reads ("I don't see anything wrong with tp 8") stays, to be read, never dropped as a remark."""
    for remark in remarks:
        text = remark.sub(
            lambda m: m.group(0) if re.search(r"\d|--", m.group(0)) or read_or_asked(m.group(0)) else "", text
        )
    return text


def first_then_remarks(
    phrases: str, text: str, hedges: re.Pattern[str] = HEDGE, reasons: tuple[re.Pattern[str], ...] = (REASSURANCE,)
) -> bool:
    """ "Approve. Nice work on the P2P thing.", "keep going, you don't need me for this": the answer
    first, then only remarks. A condition or an instruction after it ("approved, but on port
    30001") makes it all words to read instead; an operator's own reassurance ("I don't see anything
    in the log that worries me") is no condition."""
    match = re.match(rf"^{phrases}(?:\s+{COURTESY})*\s*(?:[.!,;:—–]|\s-\s)+\s*(?P<rest>.+)$", text.strip(), re.I)
    if match is None:
        return False
    rest = less_remarks(match.group("rest"), *reasons).strip(" .,;!()")
    if not rest:
        return True
    if hedges.search(rest) or re.search(NOT_SAID_STRAIGHT, rest, re.I):
        return False  # "go ahead, what could go wrong": the go-ahead may be irony
    if chinese.has_unread_script(rest) or an_order(rest) or A_SETTING.search(rest):
        return False  # a remark in a script no table read may be a "but"; "and only use GPU 0" is an order
    return not read_or_asked(rest)


# "2.8k at conc 128 is fine", "3.7k total is good enough": a measurement judged good, before a sign-off
_JUDGED_GOOD = re.compile(
    # never "looks too good" / "suspiciously good": a doubt about the number, no approval
    r"\b(?:is|are|'s|looks?)\s+(?:(?!(?:too|suspiciously|almost|not|barely|hardly)\b)\w+\s+)?"
    r"(?:fine|good(?:\s+enough)?|great|ok(?:ay)?|enough|plenty|acceptable)$",
    re.I,
)


def courtesy_only(text: str) -> bool:
    return bool(re.fullmatch(rf"{COURTESY}(?:{SEP}{COURTESY})*[\s.!]*", text, re.I))


def judged_then_signed(approving: str, text: str) -> bool:
    """ "3.7k total is good enough, sign it off": a measurement judged good, then the sign-off words
    last. Any condition, hedge, question or instruction in the judgement makes it words to read."""
    match = re.match(r"^(?P<remark>[^?]+?)\s*(?:[.!,;:—–]|\s-\s)+\s*(?P<answer>[^.!,;:—–]+?)[\s.!]*$", text.strip())
    if match is None or not _JUDGED_GOOD.search(match.group("remark")) or HEDGE.search(match.group("remark")):
        return False
    return made_of(approving, match.group("answer")) and not heard_any(match.group("remark"))


def all_instructions(text: str) -> bool:
    """Every clause is an instruction of the grammar: "stop using port 30000" is not a stop."""
    heard, missed = understood_parts(text)
    return bool(heard) and not missed
