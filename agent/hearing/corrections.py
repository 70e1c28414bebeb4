"""A message that corrects itself ("tp 8, no wait, tp 4", "turn off cuda graphs - no, wait, keep
graphs"): what stands is taken only when the words after the last correction say it whole, and even
then it is asked back; otherwise nothing of the message is taken."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from agent.hearing import shorthand, spoken, star_fix
from agent.state import OperatorRules

# a slip owned ("typo", "my bad"): said after a value, what came before it is put right
_SLIP_OWNED = r"(?:typo|my\s+bad|misspoke|fat[-\s]?finger(?:ed)?)"
Hear = Callable[[OperatorRules, str], tuple[OperatorRules, list[str], list[str]]]
_SELF_CORRECTION = re.compile(
    r"\b(?:no,?\s+wait|wait,?\s+no|or\s+wait|maybe\s+not|scratch\s+that|strike\s+that|actually,?\s+no|on\s+second\s+thought|never\s*mind|nvm|"
    r"i\s+mean[t]?\b(?!\s+it\b)|correction:|no,?\s+hold\s+on|hold\s+on,?\s+no|er+m?,?\s+no)\b|\.\.+\s*no\b"
    # a pause, then a word that takes back what came before: "triton, no, fa3", "0.9, no 0.85", "30001 — wait,
    # 30002", "128... make it 64", "8192 -- nah, 4096", "or 8? idk", "scratch 30002", "-- drop 7", "30001* typo"
    r"|(?:[,.;:!?]\s*|\s*\n\s*|\s--?\s+|\s*[—–]\s*|\.\.+\s*)(?:no|nah|nope)(?=\s*[,.;:!—–]|\s*-(?!-)|\s+(?:\d|just|make|use|the|i\s+mean|don'?t\b|do\s+not\b))"
    r"|(?:[,.;:!?]\s*|\s*\n\s*|\s--?\s+|\s*[—–]\s*|\.\.+\s*)(?:wait(?!\s+(?:for|on|till|until|to|a|and)\b)(?![,!]?\s+also\b)|"
    # never "actually" as "currently" before a state ("X=1, actually the p2p is broken": the reason, no correction)
    r"actually(?!\s+(?:the|it|its|it'?s|this|that|there|our|my)\b[^,.;!?]*?\b(?:is|are|was|were)\s+(?:\w+\s+)?"
    r"(?:broken|down|dead|busy|taken|flaky|slow|failing|bad|full|unstable|in\s+use|not\s+working)\b)|hmm+|"
    r"make\s+(?:it|that)(?=\s+\.?\d)|or\s+not|or\s+\d|scratch(?!\s+that)|"
    r"drop\s+(?=\d{1,2}\b|the\s+\w+\s+one\b))\b"
    r"|\bdrop\s+the\s+\w+\s+one\b|(?<=\w)\*(?=\s|$)|~~|\s\*(?=\w)"  # "30001*", "gpu 2 *3": a chat's fix
    # "use GPU 2, sorry, 3", "gpus 4,5,6,7 — sorry, 0,1,2,3. mixed up ...", "ports 3000 sorry 30000, ..." (never
    # "sorry, 0 is held")
    r"|(?:[,.;:!?—–]\s*|(?<=\d)\s+)sorry[\s,]+(?=\.?\d[\d.,k\s]*(?:[\s.!]*$|[.,;]\s)|i\s+mean|make)"
    # dictated, no pause written: "port 30000 actually make it 30005", "to 0.9 no 0.85"
    r"|(?<=\d)\s+(?:(?:no|nah|actually|i\s+mean)(?:\s+make\s+(?:it|that))?|make\s+(?:it|that))(?=\s+\.?\d)"
    # "use GPU 2 wait 3", "gpu 2 uh 3": a value, and nothing after it
    r"|(?<=\d)\s+(?:wait|sorry|uh+|um+|erm+|er+)(?=\s+\.?\d[\d.]*[\s.!]*$)"
    # "tp 4 .. er 8", "8k for now. er, 16k": a pause, then the value meant
    r"|(?:\.\.+|[.,;]|\n)\s*(?:er+m?|uh+|um+)\b"
    # "not port 30001 — 30002, typo", "tp 4, my bad, 8": a slip owned, so what came before it is put right
    # (never said first: "my bad, don't use gpu 2" is an apology, then the order)
    rf"|(?<=[\w,.;:!?)—–])[\s,.;:!—–-]*\b{_SLIP_OWNED}\b",
    re.I,
)
_SLIP_OWNED_LAST = re.compile(rf"[\s,.;:!—–-]+{_SLIP_OWNED}[\s.!]*$", re.I)
_NO_TO_A_RELAUNCH = re.compile(
    r"(?P<stop>^\s*(?:please\s+)?(?:stop|kill|shut\s+down|take\s+down|bring\s+down)\s+(?:the\s+)?(?:server|sglang|it)"
    r"(?:\s+down)?)(?P<pause>[\s,.;:!—–-]+)(?:no|nope|nah)[\s,.;:!—–-]+(?=(?:don'?t|do\s+not|never)\s+"
    r"(?:re-?launch|restart|bring\s+it\s+back|start\s+it\s+again)\b)",
    re.I,
)
# what after a correction still leaves open: a question, a maybe, a choice handed back
_STILL_OPEN = re.compile(r"\?|\b(?:idk|not\s+sure|maybe|your\s+call|whichever|either|or\s+not)\b", re.I)


# a checkpoint path or a hub id ("/mnt/models/GLM-5-NVFP4", "Qwen/Qwen3-32B-FP8")
_MODEL_ID = r"/[\w.@+-]+(?:/[\w.@+-]+)+|[a-z][\w.-]*/[\w.-]*\d[\w.-]*"
_ASSIGNED = re.compile(r"\b([A-Z][A-Z0-9_]{2,})=([A-Za-z]+)\b(?![,.\w])")  # a word's value, never "=2,3"


def _put_in_place(before: str, after: str) -> str:
    """ "attention backend triton" + "fa3" -> "attention backend fa3": a lone value said again takes the
    place of the last value of the same kind said before it (a number a number's, a word a word's)."""
    if re.fullmatch(r"\d+(?:\.\d+)?k?", after, re.I):  # "32k" in the place of "64k": a context said in k
        # a number may end its sentence ("put it on 30001. no wait, 30002"), never go on as a decimal
        numbers = list(re.finditer(r"(?<![\w.-])\d+(?:\.\d+)?k?(?!\w|\.\d)", before, re.I))
        if numbers and ("." in numbers[-1].group(0)) == ("." in after):
            last = numbers[-1]
            return (before[: last.start()] + after + before[last.end() :]).strip(" ,.;:-—–")
    elif re.fullmatch(_MODEL_ID, after, re.I) and (models := list(re.finditer(_MODEL_ID, before, re.I))):
        # "switch to Qwen/Qwen3-32B / sorry I meant the fp8 one. Qwen/Qwen3-32B-FP8": the model put right
        return (before[: models[-1].start()] + after + before[models[-1].end() :]).strip(" ,.;:-—–")
    elif (
        re.fullmatch(r"[A-Z]+", after)
        and (assigned := list(_ASSIGNED.finditer(before)))
        and assigned[-1].group(2).isupper()
    ):
        # "NCCL_DEBUG=INFO ... actually WARN": the variable's value put right by one of its own kind (never "no")
        return f"{assigned[-1].group(1)}={after}"
    elif (choice := _a_choice(after)) and re.search(r"[a-z][a-z0-9_]*\s*$", before.strip(" ,.;:-—–")):
        trimmed = before.strip(" ,.;:-—–")
        return re.sub(r"[a-z][a-z0-9_]*$", choice, trimmed, flags=re.I)
    return after


@functools.cache
def _choices() -> frozenset[str]:
    """Every choice SGLang's flags take, gathered once."""
    from agent.hearing.flag_vocabulary import sglang_flags

    return frozenset(choice for flag in sglang_flags().values() for choice in flag.choices)


def _a_choice(word: str) -> str | None:
    """The one SGLang choice for some flag a word names ("fa3", "triton"; "e4m3" is only ever "fp8_e4m3"):
    a value said again. None when it names none, or more than one."""
    if word.lower() in _choices():
        return word.lower()
    ending = {choice for choice in _choices() if choice.endswith(f"_{word.lower()}")}
    return ending.pop() if len(ending) == 1 else None


def _as_marked(text: str) -> str:
    """The words a correction is looked for in: a dictated number as a number ("port thirty thousand
    actually make it thirty thousand and five"), emphasis as its word ("*never*" is no "30001*")."""
    marked = spoken.numbers(spoken.emphasis_off(text))
    shorter = _SLIP_OWNED_LAST.sub("", marked)
    # "port 31337.. no, 31338. fat fingered": the slip owned is why the correction before it was made
    return shorter if shorter != marked and _SELF_CORRECTION.search(shorter) else marked


def corrects_itself(text: str) -> bool:
    if star_fix.puts_a_setting_right(text):
        return False  # "tp 2 dp 4\n*tp 4": put right in place before the words are read (agent.hearing.star_fix)
    marked = _as_marked(text)
    if re.match(r"\s*no\s+\d", marked, re.I):  # "no 8000, no 8080": must-nots, each said with its "no"
        marked = re.sub(r"([,;.]\s*|(?<=\d)\s+)no(?=\s+\d)", r"\1not", marked, flags=re.I)
    # "stop the server. no, don't relaunch, leave it down": a "no" that says the stop is to last, no correction
    marked = _NO_TO_A_RELAUNCH.sub(r"\g<stop>\g<pause>", marked)
    return _SELF_CORRECTION.search(marked) is not None


def corrected(
    rules: OperatorRules, text: str, hear: Hear, fields: frozenset[str]
) -> tuple[OperatorRules, list[str], list[str]]:
    """ "tp 4 dp 2.. er no i mean tp2 dp4": the words after the last correction, when they read whole and
    set what the words before it set (of `fields`: what a correction may change), with the words before
    reported (so the reading is asked back); otherwise nothing is taken: "turn off cuda graphs - no,
    wait, keep graphs" is not a guess to make."""
    text = _as_marked(text)
    markers = list(_SELF_CORRECTION.finditer(text))
    marker = markers[-1]
    before, after = text[: marker.start()], text[marker.end() :].strip(" ,.;:-—–")
    before = re.sub(r"[\s,.]*\b(?:sorry|oops)[\s,]*$", "", before, flags=re.I)  # "..., sorry I meant ..."
    if _STILL_OPEN.search(text[markers[0].start() :]):
        rules.not_understood = [*rules.not_understood, text]  # "tp 4... or 8? idk": nothing stands yet
        return rules, [], [text]
    why: list[str] = []
    if (struck := re.search(r"~~(.+?)~~", text)) is not None and "~~" not in text[struck.end() :]:
        before = text[: struck.start()]
        again = before.rfind(struck.group(1)) if before.endswith("\n") else -1
        if again >= 0 and (word := re.match(r"\s*(\S+)[\s,.;]*(.*)", text[struck.end() :], re.S)):
            # "--quantization fp8 / ~~fp8~~ modelopt_fp4 sorry, ...": the value of the line before, struck on a
            # line of its own, and what takes its place; the rest is why (reported, so the reading is asked back)
            after = before[:again] + word.group(1) + before[again + len(struck.group(1)) :].rstrip()
            why = [word.group(2).strip()] if word.group(2).strip() else []
        else:
            # "don't use ~~GPU 3~~ GPU 4": the words struck out are gone, the rest of the sentence stands whole
            after = " ".join((before + text[struck.end() :]).split())
    else:
        after = put_right(before, after)
    said_after, heard_after, missed_after = hear(OperatorRules(), after) if after else (None, [], [text])
    # "-- drop 7, it's ECC": a removal, no value (never "128, scratch that, 256": the value put right)
    removal = re.search(r"drop|scratch(?!\s+that)|~~", marker.group(0), re.I) or (
        re.search(r"scratch\s+that", marker.group(0), re.I) and not re.match(r"\.?\d", after)
    )
    whole = bool(heard_after) and not missed_after
    # "mem fraction 0.9, no 0.85, 0.9 is what OOM'd", "30001 — wait no, 30001 is the exporter's. 30005": the
    # value put right and why (reported, asked back), only when the why is no instruction itself ("0.85, don't
    # use GPU 3": a yes would drop it)
    for value, reason in [] if removal or whole else _values_and_whys(text[marker.end() :]):
        if _whole(hear, head := put_right(before, value)) and not hear(OperatorRules(), reason)[1]:
            after, why = head, [reason]
            said_after, heard_after, _ = hear(OperatorRules(), after)
            break
    said_before, _, _ = hear(OperatorRules(), before) if not _SELF_CORRECTION.search(before) else (None, [], [])
    blank = OperatorRules().model_dump()

    def changed(said: OperatorRules | None) -> set[str]:
        return {k for k, v in said.model_dump().items() if k in fields and v != blank[k]} if said else set()

    if said_after is None or not heard_after or not changed(said_before) <= changed(said_after):
        rules.not_understood = [*rules.not_understood, text]
        return rules, [], [text]
    taken, heard, missed = hear(rules, after)  # what it did not read of them is reported too
    correction = text[: marker.end()].strip()
    taken.not_understood = [*taken.not_understood, correction, *why]
    return taken, heard, [correction, *missed, *why]


# the words after a correction: what is put right, then a pause and why ("0.85, 0.9 is what OOM'd")
_THEN_WHY = re.compile(r"^(?P<head>(?:[^,;—–.]|\.(?=\d))+?)\s*(?:[,;—–]|\.\s|\s--?\s)\s*(?P<why>\S.*)$")


# "30001 is where the node exporter lives. 30005", "fa3 won't fly there. make that flashinfer": why, then the
# value meant, alone in the last sentence
_WHY_THEN = re.compile(
    r"^(?P<why>\S.*?)(?:[.;!]\s+|\s*[—–]\s*|\s*\n\s*)(?P<head>(?:(?:make\s+(?:it|that)|just|use)\s+)?"
    rf"(?:\d+(?:\.\d+)?k?|\d{{1,2}}(?:\s*(?:-|,)\s*\d{{1,2}})+|[a-z][a-z0-9_]*|{_MODEL_ID}))[\s.!]*$",
    re.I | re.S,
)


def _values_and_whys(words: str) -> list[tuple[str, str]]:
    """The words after a correction read as (the value put right, why), either way round: each reading
    the words allow, the first the one with the value first."""
    words = re.sub(r"^(?:no|nah|nope)\b[\s,—–-]*", "", words.strip(" ,.;:-—–"), flags=re.I)  # "actually no, 4-7. ..."
    return [(m["head"], m["why"]) for m in (p.match(words) for p in (_IDS_THEN_WHY, _THEN_WHY, _WHY_THEN)) if m]


# "0,1,4,5, 2 and 3 hang off the other root complex": GPU ids, then why
_IDS_THEN_WHY = re.compile(r"^(?P<head>\d{1,2}(?:\s*,\s*\d{1,2})+)\s*[,;—–.]\s+(?P<why>\S.*)$", re.S)


def _whole(hear: Hear, words: str) -> bool:
    _, heard, missed = hear(OperatorRules(), words)
    return bool(heard) and not missed


def put_right(before: str, after: str) -> str:
    """The words after a correction as what they put right: a lone value in the place of the value said
    before it ("port 31337.. no, 31338" is port 31338; "use gpus 0-3 no wait 4-7" is use gpus 4-7)."""
    after = re.sub(r"^(?:no|nah|nope)\b[\s,]*(?=\.?\d)", "", after, flags=re.I)  # "0.8 - wait no, 0.82"
    after = re.sub(r"^(?:just|make\s+(?:it|that))\s+", "", after, flags=re.I)
    ids = r"\d{1,2}(?:\s*(?:-|,|and)\s*\d{1,2})*"
    said_ids = list(re.finditer(rf"\b(?:gpus?|on)\s+{ids}", before, re.I))
    if re.fullmatch(ids, after) is not None and said_ids:  # the ids put right are the GPUs', with their words
        last = said_ids[-1]
        placed = before[: last.start()] + re.sub(ids + "$", after, last.group(0)) + before[last.end() :]
        # "gpus 4-7, sorry, 0-3": still bare once put right, and asked back (as every correction is) with its verb
        return f"use {placed}" if shorthand.bare_gpus(placed) else placed
    after = _put_in_place(before, after)
    if re.match(r"^\d{4,5}\b", after) is not None and re.search(r"\bport\b", before, re.I):
        after = f"port {after}"  # the number put right is the port's
    if (hub := shorthand.asked_only(after)) is not None and len(hub) == 1 and hub[0].startswith(shorthand.HUB_READING):
        after = hub[0]  # "switch to Qwen/Qwen3-32B-FP8": a hub id, in the words the grammar takes (asked back)
    return after


# the writer's own value after someone else's setting: "I say 0.85", "but use fp8_e4m3", "keep 30000", "use 4-7"
_OWN_VALUE = re.compile(
    r"^(?:(?:but|and|so)\s+)?(?:i\s+say|use|keep|make\s+it|go\s+with|stay\s+on)\s+(?P<value>[\w./-]+)[\s.!]*$", re.I
)


def in_relayed_place(relayed: str | None, said: str, reads: Callable[[str], bool]) -> str:
    """ "the wiki says mem frac 0.9, I say 0.85": the writer's lone value in the place of the value someone
    else gave the same setting, when that reads whole (the relayed words stay unread, so it is asked back);
    any other clause as it was."""
    if relayed is None or (own := _OWN_VALUE.match(said.strip())) is None:
        return said
    placed = put_right(relayed, own.group("value"))
    return placed if placed != own.group("value") and reads(placed) else said
