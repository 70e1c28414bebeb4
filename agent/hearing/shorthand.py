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

_IDS = r"\d+\s*(?:-|to|through|thru|\.\.)\s*\d+|\d+(?:\s*(?:,|and|&)\s*\d+)+"
_USE_IDS = re.compile(
    rf"^(?:(?:please\s+)?(?:use|only\s+use|use\s+only|run\s+on|launch\s+on|serve\s+on|pin\s+(?:it\s+)?to|"
    rf"restrict\s+(?:it\s+)?to|stick\s+to|on|only\s+on|only)\s+)(?:only\s+)?(?:devices?\s+)?(?P<ids>{_IDS})(?:\s+only)?$",
    re.I,
)
_AVOID_IDS = re.compile(
    rf"^(?:(?:please\s+)?(?:don'?t\s+(?:use|touch)|do\s+not\s+(?:use|touch)|never\s+use|avoid|skip|exclude|"
    rf"stay\s+off|keep\s+off|not\s+on|not)\s+)(?:devices?\s+)?(?P<ids>{_IDS})$",
    re.I,
)
_ALL_BUT = re.compile(
    r"^(?:(?:use|run\s+on|launch\s+on|on)\s+)?(?:all|every(?:thing)?|all\s+(?:the\s+)?gpus|every\s+gpu)\s+"
    r"(?:but|except(?:\s+for)?|other\s+than|save)\s+(?:gpus?\s+)?(?P<ids>\d+(?:\s*(?:,|and|&|-)\s*\d+)*)$",
    re.I,
)
_ON_IDS = re.compile(rf"^(?P<first>.+?)\s+on\s+(?:gpus?\s+)?(?P<ids>{_IDS})$", re.I)
_LAYOUT_LAST = re.compile(r"^(?P<first>.+?)[\s,]+tp\s*(?P<tp>\d+)(?:\s*[x*,]?\s*dp\s*(?P<dp>\d+))?$", re.I)
_COMPACT_LAYOUT = re.compile(r"^tp\s*(?P<tp>\d+)(?:\s*[x*,]?\s*dp\s*(?P<dp>\d+))?$", re.I)
_KV = re.compile(r"^(?:use\s+|with\s+)?(?:an?\s+)?(?P<val>fp8(?:_e4m3|_e5m2)?|bf16|auto)\s+kv(?:\s+cache)?$", re.I)
_BACKEND = re.compile(r"^(?:use|try|switch\s+to|go\s+with|with)\s+(?P<name>[a-z0-9_]+)$", re.I)
_NOT_BACKENDS = frozenset({"it", "that", "this", "them", "those", "gpus", "gpu", "both", "all"})


def _attention_backends() -> frozenset[str]:
    from agent.hearing.phrasing import _sglang_flags  # the flag table of every SGLang release known

    flag = _sglang_flags().get("--attention-backend")
    return flag.choices if flag is not None else frozenset()


def read(clause: str, reads: Callable[[str], bool]) -> list[str] | None:
    """The canonical clauses `clause` says in shorthand, each read whole by `reads`, or None."""
    text = clause.strip().rstrip(".!")
    found = _read(text, reads)
    if found is None or not all(reads(part) for part in found):
        return None
    return found


def _read(text: str, reads: Callable[[str], bool]) -> list[str] | None:
    if (m := _USE_IDS.match(text)) is not None:
        return [f"use GPUs {_ids(m.group('ids'))}"]
    if (m := _AVOID_IDS.match(text)) is not None:
        return [f"don't use GPUs {_ids(m.group('ids'))}"]
    if (m := _ALL_BUT.match(text)) is not None:
        return [f"don't use GPUs {_ids(m.group('ids'))}"]
    if (m := _COMPACT_LAYOUT.match(text)) is not None:
        return [f"tp {m.group('tp')}" + (f" dp {m.group('dp')}" if m.group("dp") else "")]  # no DP said, none read
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
    return re.sub(r"\s*(?:to|through|thru|\.\.)\s*", "-", words.strip(), flags=re.I)


_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_RELATIVE = re.compile(
    r"\b(?:the\s+)?(?P<end>first|last|top|bottom)\s+(?P<n>\d+|one|two|three|four|five|six|seven|eight)"
    r"(?:\s+(?:gpus?|cards?|devices?))?\b",
    re.I,
)


def relative(text: str, known: list[int] | None) -> str | None:
    """ "use the last four" with GPUs 0-7 known -> "use GPUs 4,5,6,7"; None when nothing is relative
    or the GPUs are not known (then it is not taken: "the last four" of what?)."""
    match = _RELATIVE.search(text)
    if match is None or not known:
        return None
    word = match.group("n").lower()
    n = int(word) if word.isdigit() else _WORD_NUMBERS[word]
    gpus = sorted(known)
    if not 0 < n <= len(gpus):
        return None
    chosen = gpus[:n] if match.group("end").lower() in ("first", "top") else gpus[-n:]
    return text[: match.start()] + "GPUs " + ",".join(map(str, chosen)) + text[match.end() :]


# ------------------------------------------------------------------------------------ typos


@functools.lru_cache(maxsize=1)
def _vocabulary() -> tuple[str, ...]:
    from agent.hearing.phrasing import _sglang_flags

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
    from agent.hearing.phrasing import _sglang_flags

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
REPLY_WORDS = (*VERBS, "ahead", "absolutely", "definitely", "going", "proceed", "signing", "approved")


def verb_typo(word: str) -> str | None:
    """ "aprove" -> "approve": said back in the refusal, never acted on."""
    match = process.extractOne(word.lower(), VERBS, scorer=fuzz.ratio, score_cutoff=75)
    return match[0] if match is not None and match[0] != word.lower() else None


# Words a typo is taken for: the verbs of the instruction grammar. Flag names and backend values stay
# suggested (above): a wrong backend launches something else, and their names lie close together.
INSTRUCTION_WORDS = ("relaunch", "launch", "restart", "measure", "remeasure", "benchmark")
_INFLECTIONS = ("s", "d", "ed", "es", "ing", "r", "er")


def _close(word: str, target: str) -> bool:
    """One slip of the finger: a letter missing, extra or two swapped; a letter changed only in a long
    word ("step" is a word of its own, not a typo of "stop")."""
    from rapidfuzz.distance import OSA

    if OSA.distance(word, target) != 1:
        return False
    if any(word == target + end or target == word + end for end in _INFLECTIONS):
        return False  # "measured", "launches": another form of the word, not a slip
    return len(word) != len(target) or sorted(word) == sorted(target) or len(word) >= 6


def fix_word(word: str, vocabulary: tuple[str, ...]) -> str | None:
    """The one vocabulary word `word` is a typo of ("contineu" -> "continue"), or None when it is a
    word of the vocabulary, near none, or near more than one (then it is not a guess to make)."""
    lower = word.lower()
    if len(lower) < 4 or lower in vocabulary:
        return None
    near = [v for v in vocabulary if _close(lower, v)]
    return near[0] if len(near) == 1 else None


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

    return re.sub(r"[A-Za-z]+", fix, clause), notes
