"""What an experienced operator types, read into the grammar's clauses (`agent.hearing.instructions`):

- GPU sets not written "GPU(s) <ids>": "use 0-3", "only 4,5,6,7", "on 0-7", "all but 7",
  "every GPU except 0 and 1" (a single bare number is never a GPU: it may be a port or a step);
- compact layouts: "tp4 dp2 on 0-7";
- shorthand: "fp8 kv", "use flashinfer" (a name only the attention backend takes, or none);
- typos against the vocabulary, matched with rapidfuzz: a flag or a backend name is never taken,
  only suggested back ("did you mean ...?"), so a near miss cannot launch something else; a slip of
  exactly one verb of the grammar or of a reply ("relauch", "contineu") is taken and said back.

Each reading is a list of canonical clauses the grammar reads whole, or None.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from rapidfuzz import fuzz, process

from agent.hearing import keyboard, not_taken

_IDS = r"\d+\s*(?:-|to|through|thru|\.\.)\s*\d+|\d+(?:\s*(?:,|and|&)\s*\d+)+|\d{1,2}(?:\s+\d{1,2})+"
# "4-7 only", "only 0,1": a set of GPU ids with no verb but "only" (two or more small ids, or a range):
# the GPUs to use. Without "only" ("4-7", "1, 2": steps to pick?) it is only asked back (`asked_only`).
# A single bare number never is (a port, a step).
_MORE_IDS = r"\s*(?:-|\.\.)\s*\d{1,2}|(?:\s*(?:,|and|&)\s*\d{1,2})+"  # a range, or a list: after the first id
_MANY_IDS = rf"\d{{1,2}}(?:{_MORE_IDS})"  # two or more ids
_SOME_IDS = rf"\d{{1,2}}(?:{_MORE_IDS})?"  # one or more
_BARE_IDS = re.compile(
    rf"^(?P<lead>only\s+)?(?P<ids>{_MANY_IDS})"
    r"(?P<last>\s+only)?$",
    re.I,
)


# "dont touch 7", "leave 0 alone", "w/o 5 and 6", "6,7 excl'd": ids, even one, with a verb that only a
# GPU takes; "take 0,1,2,3": ids to use. Never taken silently (one number may be a step or a port):
# asked back, as bare ids are.
_KEEP_OFF_IDS = re.compile(
    rf"^(?:(?:please\s+)?(?:don'?t|do\s+not|never)\s+touch|avoid|exclude|stay\s+off|keep\s+off|without|w/o|"
    rf"leave(?=\s+{_SOME_IDS}\s+(?:alone|out)\b))\s+(?P<ids>{_SOME_IDS})(?:\s+(?:alone|out|pls|please))?$"
    rf"|^(?P<out>{_SOME_IDS})\s+(?:excl'?d|excluded|(?:are|is)\s+out|out)$",
    re.I,
)
# "gpu 3", "gpus 1 3 5 7": GPUs named with no verb and no "only" (use them? keep off them? the one at
# fault?): read as the GPUs to use, and asked back, never taken as said
_BARE_GPU_SET = re.compile(rf"^(?:gpus?|cards?)\s*#?(?P<ids>{_SOME_IDS}|\d{{1,2}}(?:\s+\d{{1,2}})+)\s*[.!]?$", re.I)
_TAKE_IDS = re.compile(rf"^(?:take|grab)\s+(?P<ids>{_MANY_IDS})$", re.I)


# "4-7 tp4": ids and a layout, no word for the ids
_IDS_WITH_LAYOUT = re.compile(
    rf"^(?P<ids>{_MANY_IDS})[\s,]+(?:(?:with|w/|on)\s+)?(?P<layout>tp\s*\d+(?:\s*[x*,]?\s*dp\s*\d+)?)$",
    re.I,
)
# "6 and 7 on port 31000": ids and a port, no word for the ids
_IDS_ON_PORT = re.compile(rf"^(?P<ids>{_SOME_IDS})\s+on\s+port\s+(?P<port>\d{{4,5}})$", re.I)


def asked_only(text: str) -> list[str] | None:
    """ "4-7" alone, "take 0-3", "avoid 3": GPU ids said with no word for GPUs, and a model's hub id
    ("switch to Qwen/Qwen2.5-72B-Instruct"), as a reading to ask back only."""
    text = text.strip()
    if (m := _BARE_IDS.match(text) or _TAKE_IDS.match(text) or _BARE_GPU_SET.match(text)) is not None:
        return [f"use GPUs {_ids(m.group('ids'))}"]
    if (m := _IDS_WITH_LAYOUT.match(text)) is not None:
        tp_dp = re.findall(r"\d+", m.group("layout"))
        return [f"use GPUs {_ids(m.group('ids'))}", f"tp {tp_dp[0]}" + (f" dp {tp_dp[1]}" if len(tp_dp) > 1 else "")]
    if (m := _IDS_ON_PORT.match(text)) is not None:
        return [f"use GPUs {_ids(m.group('ids'))}", f"use port {m.group('port')}"]
    if (m := _KEEP_OFF_IDS.match(text)) is not None:
        return [f"don't use GPUs {_ids(m.group('ids') or m.group('out'))}"]
    if (m := _HUB_MODEL.match(text)) is not None:
        # a hub id is fetched by the host unless cached there, and "org/name" may be something else:
        # read, it is asked back in the words the grammar takes whole
        return [f"{HUB_READING} {m.group('id')}"] + ([f"relaunch{m.group('rest')}"] if m.group("rest") else [])
    return None


def bare_gpus(text: str) -> bool:
    """Whether `text` is only GPUs named, with no verb and no "only" ("gpu 3"): asked back, never taken."""
    return _BARE_GPU_SET.match(text.strip()) is not None


HUB_READING = "serve the hugging face model"  # the words a hub id is asked back in, which the grammar reads
# "switch to Qwen/Qwen2.5-72B-Instruct", "model -> meta-llama/Llama-3.1-8B-Instruct": org/name, the name
# with a digit and a dash as hub names have ("tp/dp", "fp8/bf16" are not models)
_HUB_MODEL = re.compile(
    r"^(?:(?:(?:we\s+)?(?:go|switch|swap)\s+back|revert|switch|swap|change|move|point|serve|load|use|try|run|go|re-?launch|restart)"
    r"(?:\s+(?:it|the\s+server|sglang|over))?"
    r"(?:\s+(?:the\s+)?(?:model|checkpoint|weights))?(?:\s+(?:to|with|on))?\s+|(?:the\s+)?model\s+(?:(?:is|=|:|to)\s+)?|"
    r"(?=[\w.-]+/[\w.-]+\s+(?:tp|dp)\s*\d))"  # "Qwen/Qwen2.5-72B-Instruct tp 8 ...": the id first, then how it runs
    r"(?:the\s+)?(?:model\s+)?(?P<id>[a-z][\w.-]+/(?=[\w.-]*\d)(?=[\w.]*-)[\w.-]+)(?:\s+(?:instead|please|pls|would\s+you|kindly|itself|only|then|first|for\s+now|for\s+the\s+time\s+being))?"
    r"(?:\s+(?:(?:just\s+)?as\s+a|for\s+the)\s+(?:sanity\s+check|baseline|smoke\s+test|test))?"
    # "try org/name on cards 0 and 1 with tp 2": where and how it is to run, said after it
    r"(?P<rest>\s+(?:(?:on|with|at|across|using)\s+\S|(?:tp|dp)\s*\d).*)?$",
    re.I,
)


_USE_IDS = re.compile(
    rf"^(?:(?:please\s+)?(?:use|only\s+use|use\s+only|(?:run|launch|serve|schedule|put)(?:\s+it)?\s+on|pin\s+(?:it\s+)?to|"
    rf"restrict\s+(?:it\s+)?to|stick\s+to|on|only\s+on|only)\s+)(?:only\s+)?(?:devices?\s+)?(?P<ids>{_IDS})(?:\s+only)?$",
    re.I,
)
_AVOID_IDS = re.compile(
    rf"^(?:(?:please\s+)?(?:don'?t\s+(?:use|touch)|do\s+not\s+(?:use|touch)|never\s+(?:use|touch)|avoid|skip|exclude|"
    rf"stay\s+off|keep\s+off|not\s+on|not|leave)\s+)(?:devices?\s+)?(?P<ids>{_IDS})(?:\s+(?:again|ever|anymore|untouched|alone))?$",
    re.I,
)
_ALL_BUT = re.compile(
    r"^(?:(?:use|run(?:\s+it)?\s+on|launch(?:\s+it)?\s+on|serve(?:\s+it)?\s+on|on)\s+)?(?:all|every(?:thing)?|all\s+(?:the\s+)?gpus|every\s+gpu)\s+"
    r"(?:but|except(?:\s+for)?|other\s+than|save)\s+(?:gpus?\s+)?(?P<ids>\d+(?:\s*(?:,|and|&|-)\s*\d+)*)$",
    re.I,
)
_ON_IDS = re.compile(rf"^(?P<first>.+?)\s+on\s+(?:gpus?\s+)?(?P<ids>{_IDS})$", re.I)
_LAYOUT_LAST = re.compile(r"^(?P<first>.+?)[\s,]+tp\s*(?P<tp>\d+)(?:\s*[x*,]?\s*dp\s*(?P<dp>\d+))?$", re.I)
# "tp8 no dp": no data parallelism said outright is DP 1
_COMPACT_LAYOUT = re.compile(r"^tp\s*(?P<tp>\d+)(?:\s*[x*,]?\s*(?:dp\s*(?P<dp>\d+)|(?P<nodp>no\s+dp)))?$", re.I)
_KV = re.compile(r"^(?:use\s+|with\s+)?(?:an?\s+)?(?P<val>fp8(?:_e4m3|_e5m2)?|bf16|auto)\s+kv(?:\s+cache)?$", re.I)
_BACKEND = re.compile(r"^(?:use|try|switch\s+to|go\s+with|with)\s+(?P<name>[a-z0-9_]+)$", re.I)
_NOT_BACKENDS = frozenset({"it", "that", "this", "them", "those", "gpus", "gpu", "both", "all"})


def _attention_backends() -> frozenset[str]:
    from agent.hearing.flag_vocabulary import (
        sglang_flags as _sglang_flags,
    )  # the flag table of every SGLang release known

    flag = _sglang_flags().get("--attention-backend")
    return flag.choices if flag is not None else frozenset()


def read(clause: str, reads: Callable[[str], bool]) -> list[str] | None:
    """The canonical clauses `clause` says in shorthand, each read whole by `reads`, or None."""
    from agent.hearing.phrasing import _strip  # the same remarks dropped ("so the graphs ...", "because ...")

    text = clause.strip().rstrip(".!")
    # a bracket is never dropped here: it may name what the words mean ("use triton (--attention-backend)")
    plain = _strip(text) if "(" not in text else ""
    found = _read(text, reads) or (_read(plain, reads) if plain else None)
    if found is None or not all(reads(part) for part in found):
        return None
    return found


def _read(text: str, reads: Callable[[str], bool]) -> list[str] | None:
    if (m := _USE_IDS.match(text)) is not None:
        return [f"use GPUs {_ids(m.group('ids'))}"]
    if (m := _AVOID_IDS.match(text)) is not None:
        return [f"don't use GPUs {_ids(m.group('ids'))}"]
    if (m := _BARE_IDS.match(text)) is not None and (m.group("lead") or m.group("last")):
        return [f"use GPUs {_ids(m.group('ids'))}"]
    if (m := _UNSET_WHY.match(text)) is not None:  # "unset NCCL_DEBUG too noisy": the reason is a remark
        return [f"unset {name}" for name in re.split(r"\s*(?:,|\band\b)\s*", m.group("names"))]
    if (m := _PORT_HELD.match(text)) is not None:
        return [f"avoid port {m.group('port')}"]
    if (flags := flag_run(text)) is not None:
        return flags
    if (m := _NAMED_PART.match(text)) is not None:
        return [f"use GPUs {_ids(m.group('ids'))}"]
    if (m := _ALL_BUT.match(text)) is not None:
        return [f"don't use GPUs {_ids(m.group('ids'))}"]
    if (m := _COMPACT_LAYOUT.match(text)) is not None:
        dp = m.group("dp") or ("1" if m.group("nodp") else None)
        return [f"tp {m.group('tp')}" + (f" dp {dp}" if dp else "")]  # no DP said, none read
    if (m := _KV.match(text)) is not None:
        value = m.group("val").lower()
        return [f"use --kv-cache-dtype {'fp8_e4m3' if value == 'fp8' else value}"]
    if (m := _BACKEND.match(text)) is not None:
        name = m.group("name").lower()
        if name not in _NOT_BACKENDS and name in _attention_backends():
            return [f"use --attention-backend {name}"]
        return None
    if (m := _ON_IDS.match(text)) is not None:
        first = m.group("first")
        head = [first] if reads(first) else _read(first, reads) or _phrased(first, reads)
        if head is not None and not_taken.refuses(head):
            return None  # "don't launch on 0-3": the ids are what it refuses, never "use GPUs 0-3"
        return [*head, f"use GPUs {_ids(m.group('ids'))}"] if head is not None else None
    if (m := _LAYOUT_LAST.match(text)) is not None:  # "relaunch on gpus 0-3 tp4": a layout said last
        first = m.group("first")
        head = [first] if reads(first) else _read(first, reads) or _phrased(first, reads)
        layout = f"tp {m.group('tp')}" + (f" dp {m.group('dp')}" if m.group("dp") else "")
        return [*head, layout] if head is not None else None
    return None


def _phrased(text: str, reads: Callable[[str], bool]) -> list[str] | None:
    from agent.hearing.phrasing import canonical  # "just tp4": the everyday words around a shorthand

    return canonical(text, reads)


def _ids(words: str) -> str:
    """ "0 through 7" -> "0-7"; lists stay as they are (the grammar reads "0,1 and 2")."""
    words = re.sub(r"\s*(?:to|through|thru|\.\.)\s*", "-", words.strip(), flags=re.I)
    return re.sub(r"(?<=\d)\s+(?=\d)", ",", words)  # "0 2 4 6"


_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
# "the first one" with no word for GPUs is a numbered step as much as a GPU: never read as one
# nor "top 2" (a phone's "tp 2"): "top" only with the word for GPUs
_RELATIVE = re.compile(
    r"\b(?:the\s+)?(?:(?P<end>first|last|bottom)\s+(?:(?P<n>\d+|two|three|four|five|six|seven|eight)"
    r"(?:\s+(?:gpus?|cards?|devices?))?|(?P<one>one|1)\s+(?:gpus?|cards?|devices?))|"
    r"(?P<edge>top)\s+(?P<m>\d+|one|two|three|four|five|six|seven|eight)\s+(?:gpus?|cards?|devices?))\b",
    re.I,
)


_HALF = re.compile(
    r"\b(?:the\s+)?(?P<end>first|second|last|upper|lower|top|bottom)\s+half"
    r"(?:\s+of\s+(?:the\s+)?(?:box|node|host|machine|gpus|cards))?(?:\s+(?:gpus|cards))?\b",
    re.I,
)
_GPUS = r"(?:gpus?|cards?|devices?)"
# "the even GPUs", "skip the odd-numbered gpus", "every other GPU, starting from 1", "no GPU numbered above 3",
# "the middle four": a set of this host's GPUs said by a property, never an id ("every other GPU" alone: from 0 or 1?)
_BY_PROPERTY = re.compile(
    rf"\b(?:the\s+|all\s+(?:the\s+)?)?(?P<parity>even|odd)(?:[-\s]numbered)?\s+{_GPUS}"
    rf"|\bevery\s+other\s+{_GPUS},?\s+(?:starting|beginning)\s+(?:from|at|with)\s+(?:gpu\s*)?(?P<start>\d)"
    rf"|\b{_GPUS}\s+(?:numbered|with\s+an?\s+id|ids?)\s+(?P<side>above|over|higher\s+than|greater\s+than|"
    r"below|under|lower\s+than|less\s+than)\s+(?P<bound>\d)"
    rf"|\b(?:the\s+)?middle\s+(?P<middle>two|four|six|2|4|6)(?:\s+{_GPUS})?",
    re.I,
)


def _by_property(match: re.Match[str], gpus: list[int]) -> list[int]:
    if match.group("parity"):
        return [g for g in gpus if g % 2 == (match.group("parity").lower() == "odd")]
    if match.group("start"):
        start = int(match.group("start"))
        return [g for g in gpus if g >= start and (g - start) % 2 == 0]
    if match.group("bound"):
        bound = int(match.group("bound"))
        above = match.group("side").lower().startswith(("above", "over", "higher", "greater"))
        return [g for g in gpus if (g > bound if above else g < bound)]
    word = match.group("middle").lower()
    n = int(word) if word.isdigit() else _WORD_NUMBERS[word]
    if n >= len(gpus) or (len(gpus) - n) % 2:
        return []  # "the middle four" of 5 GPUs: which four?
    skip = (len(gpus) - n) // 2
    return gpus[skip : skip + n]


# "tp4 dp2 on all 8", "across all eight cards" ("al 8": a slip): where a launch goes; "use all 8 GPUs"
# is a count (the layout's width), and "all but 7" is read by normalise
_ALL_COUNTED = re.compile(
    r"\b(?P<on>on|over|across)\s+al{1,2}\s+(?P<n>\d|one|two|three|four|five|six|seven|eight)(?:\s+(?:gpus?|cards?|devices?))?\b"
    r"(?!\s*(?:but|except|minus|save|other)\b|\s*(?:tok|ms|req|steps?|launches|tries|times)\b)",
    re.I,
)


def relative(text: str, known: list[int] | None) -> str | None:
    """ "use the last four" with GPUs 0-7 known -> "use GPUs 4,5,6,7"; None when nothing is relative
    or the GPUs are not known (then it is not taken: "the last four" of what?)."""
    half = _HALF.search(text)
    if half is not None and known and len(known) % 2 == 0:  # "the first half of the box" of GPUs 0-7: 0-3
        gpus = sorted(known)
        first = half.group("end").lower() in ("first", "lower", "bottom")
        chosen = gpus[: len(gpus) // 2] if first else gpus[len(gpus) // 2 :]
        return text[: half.start()] + "GPUs " + ",".join(map(str, chosen)) + text[half.end() :]
    prop = _BY_PROPERTY.search(text)
    if prop is not None and known and (chosen := _by_property(prop, sorted(known))):
        return text[: prop.start()] + "GPUs " + ",".join(map(str, chosen)) + text[prop.end() :]
    every = _ALL_COUNTED.search(text)
    if every is not None and known:  # "on all 8": every GPU this host has, when it has that many
        word = every.group("n").lower()
        if (int(word) if word.isdigit() else _WORD_NUMBERS[word]) != len(known):
            return None
        ids = ",".join(map(str, sorted(known)))
        return f"{text[: every.start()]}{every.group('on')} GPUs {ids}{text[every.end() :]}"
    match = _RELATIVE.search(text)
    if match is None or not known:
        return None
    word = (match.group("n") or match.group("m") or "1").lower()
    n = int(word) if word.isdigit() else _WORD_NUMBERS[word]
    gpus = sorted(known)
    if not 0 < n <= len(gpus):
        return None
    chosen = gpus[:n] if (match.group("end") or match.group("edge")).lower() in ("first", "top") else gpus[-n:]
    return text[: match.start()] + "GPUs " + ",".join(map(str, chosen)) + text[match.end() :]


# ------------------------------------------------------------------------------------ typos


@functools.lru_cache(maxsize=1)
def _vocabulary() -> tuple[str, ...]:
    from agent.hearing.flag_vocabulary import sglang_flags as _sglang_flags

    words = set(_attention_backends())
    words |= {name.removeprefix("--") for name in _sglang_flags()}
    return tuple(sorted(w for w in words if len(w) >= 5))


_WORD = re.compile(r"--?[a-z][a-z0-9_-]+|[a-z][a-z0-9_]{4,}", re.I)
# everyday words that look like flag names to a fuzzy matcher and are no typo of one
_PLAIN = frozenset(
    {"please", "server", "launch", "relaunch", "restart", "again", "before", "after", "about", "their", "there"}
)


def suggest(clause: str) -> str | None:
    """A typo of the vocabulary in a clause not understood ("use flashifner") -> the clause with it
    fixed, if the fixed clause is one the caller reads; said back as a question, never taken."""
    for word in _WORD.findall(clause):
        bare = word.lstrip("-").lower()
        if bare in _PLAIN or bare in _vocabulary():
            continue
        match = process.extractOne(bare, _vocabulary(), scorer=fuzz.ratio, score_cutoff=85)
        if match is not None:
            fixed = match[0] if not word.startswith("-") else f"--{match[0]}"
            return clause.replace(word, fixed, 1)
    return None


def near_miss(flag: str, value: str | None) -> bool:
    """A flag not in any SGLang release but close to one ("--disable-cuda-grpah"), or a value not
    among the flag's choices but close to one ("--attention-backend flashifner")."""
    from agent.hearing.flag_vocabulary import sglang_flags as _sglang_flags

    flags = _sglang_flags()
    known = flags.get(flag)
    if known is None:
        return process.extractOne(flag, tuple(flags), scorer=fuzz.ratio, score_cutoff=85) is not None
    if value is None or not known.choices or value.lower() in known.choices:
        return False
    return process.extractOne(value.lower(), tuple(known.choices), scorer=fuzz.ratio, score_cutoff=80) is not None


VERBS = ("approve", "deny", "continue", "stop", "edit")
# The words of a reply's answer a slip is taken for, in a reply otherwise read as nothing at all
# ("yep go ahed", "absolutly not", "keep goin"): the fixed reply is read by the same rules.
REPLY_WORDS = (*VERBS, "ahead", "absolutely", "definitely", "going", "proceed", "signing", "approved", "sign", "whole")


def verb_typo(word: str) -> str | None:
    """ "aprove" -> "approve": said back in the refusal, never acted on."""
    match = process.extractOne(word.lower(), VERBS, scorer=fuzz.ratio, score_cutoff=75)
    return match[0] if match is not None and match[0] != word.lower() else None


# Words a typo is taken for: the verbs of the instruction grammar. Flag names and backend values stay
# suggested (above): a wrong backend launches something else, and their names lie close together.
# The everyday nouns of the grammar too ("gpsu", "bnch", "prefil"): the reading is said back, and the
# fixed clause must still be read whole.
INSTRUCTION_WORDS = (
    "relaunch", "launch", "restart", "measure", "remeasure", "benchmark", "rerun",
    "gpus", "bench", "prefill", "chunked", "fraction", "attention", "backend", "server",
    "avoid", "exclude", "disable", "enable", "unset", "port", "only", "graph",
    "touch", "cuda", "compile", "again", "never", "switch", "model",
)  # fmt: skip
_INFLECTIONS = ("s", "d", "ed", "es", "ing", "r", "er")


def _close(word: str, target: str) -> bool:
    """One slip of the finger: a letter missing, extra or two swapped; a letter changed only in a long
    word ("step" is a word of its own, not a typo of "stop")."""
    from rapidfuzz.distance import OSA

    if OSA.distance(word, target) != 1:
        return False
    if any((word == target + end and not target.endswith(end)) or target == word + end for end in _INFLECTIONS):
        return False  # "measured", "launches": another form of the word, not a slip ("gpuss" is one)
    changed = [(a, b) for a, b in zip(word, target, strict=False) if a != b] if len(word) == len(target) else []
    if len(changed) == 1 and keyboard.beside(*changed[0]):
        return True  # "cuds": the key beside the one meant, a slip even in a short word
    return len(word) != len(target) or sorted(word) == sorted(target) or len(word) >= 6


def fix_word(word: str, vocabulary: tuple[str, ...]) -> str | None:
    """The one vocabulary word `word` is a typo of ("contineu" -> "continue"), or None when it is a
    word of the vocabulary, near none, or near more than one (then it is not a guess to make)."""
    lower = word.lower()
    if len(lower) < 4 or lower in vocabulary:
        return None
    near = [v for v in vocabulary if _close(lower, v)]
    return near[0] if len(near) == 1 else None


def slips(clause: str) -> tuple[str, ...]:
    """`clause`, then its words' slips fixed when it has any ("dont tuoch 3"): what a reading asked back tries."""
    fixed, notes = fix_typos(clause)
    return (clause, fixed) if notes else (clause,)


def fix_typos(clause: str, vocabulary: tuple[str, ...] = INSTRUCTION_WORDS) -> tuple[str, list[str]]:
    """`clause` with each word that is a typo of exactly one vocabulary word replaced, and the
    corrections as the reading says them back ("'relauch' read as relaunch")."""
    notes: list[str] = []

    def fix(match: re.Match[str]) -> str:
        fixed = fix_word(match.group(0), vocabulary)
        if fixed is None:
            return match.group(0)
        notes.append(f"'{match.group(0)}' read as {fixed}")
        return fixed

    # never a word inside a pasted "--flag-name": a typo there is suggested back, never launched
    return re.sub(r"(?<![-\w])[A-Za-z]+(?![-\w])", fix, clause), notes


# ------------------------------------------------------------------------------ pasted runs and remarks

_ENV = r"[A-Z][A-Z0-9_]{2,}"
_UNSET_WHY = re.compile(
    rf"^unset\s+(?P<names>{_ENV}(?:\s*(?:,|\band\b)\s*{_ENV})*)\s+(?!and\b|then\b)(?-i:[a-z][a-z' -]*)$"
)
# "keep 30000 free": a port to leave to others. ("30000 is taken" alone stays a remark, as the sets say:
# the writer may be asking what to do, or giving the reason for a port said beside it.)
_PORT_HELD = re.compile(r"^(?:keep|leave)\s+(?:port\s+)?(?P<port>\d{4,5})\s+(?:free|unused|alone)$", re.I)
# "upper half of the box (gpu 4..gpu 7)": a part of the box described, its ids in brackets (only a
# position said, never a must-not: "the broken ones (gpu 4..7)" is not this)
_NAMED_PART = re.compile(
    r"^(?:the\s+)?(?:upper|lower|top|bottom|first|last|second|other)\s+(?:half|quarter|two|four|\d)(?:\s+gpus?)?"
    r"(?:\s+of\s+the\s+(?:box|host|node|machine))?\s*\(\s*gpus?\s*(?P<ids>\d{1,2}\s*(?:-|\.\.|to)\s*(?:gpus?\s*)?\d{1,2})\s*\)$",
    re.I,
)
_LEAD_IN = re.compile(
    r"^(?:(?:use|pass|add|set|export|try|with|(?:re)?launch\s+with|(?:cap|limit|run|start|serve|tune)\s+it\s+with)\s+)",
    re.I,
)


def flag_run(text: str) -> list[str] | None:
    """ "--mem-fraction-static 0.82 --chunked-prefill-size 8192 --disable-custom-all-reduce", "A=1 B=2
    --disable-cuda-graph": a command line pasted, each flag with the value SGLang says it takes. A
    flag no release knows, a value missing or one too many: no reading (the whole run or nothing)."""
    from agent.hearing.flag_vocabulary import is_value as _is_value
    from agent.hearing.flag_vocabulary import sglang_flags as _sglang_flags

    words = _LEAD_IN.sub("", text.strip()).split()
    if len(words) < 2 or not any(w.startswith("--") for w in words):
        return None
    flags, out, i = _sglang_flags(), [], 0
    while i < len(words):
        word = words[i]
        if re.fullmatch(rf"{_ENV}=\S+", word):
            out.append(word)
            i += 1
            continue
        flag, _, inline = word.partition("=")
        known = flags.get(flag.lower())
        if known is None:
            return None
        value = inline or (words[i + 1] if known.takes_value and i + 1 < len(words) else "")
        if known.takes_value and (not value or value.startswith("--") or not _is_value(flag.lower(), value)):
            return None
        out.append(f"use {flag.lower()} {value}" if known.takes_value else f"use {flag.lower()}")
        i += 1 if inline or not known.takes_value else 2
    return out if len(out) >= 2 else None
