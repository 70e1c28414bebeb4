"""Names and numbers as a phone, a speech engine or a chat client gives them, put back in the
grammar's form before clauses are read: "NCCL P2P disable equals one" is `NCCL_P2P_DISABLE=1`,
"port three zero zero zero one" is port 30001, "mem frac point nine" is 0.9; a shell comment
("# prefill spikes") and a chat client's `:emoji:` are remarks, "&&" joins two instructions.

Numbers said in words are put in digits only where a number is expected: after a word that takes
one (port, tp, GPU, a flag's name, "to", "equals"), or as a run of two or more number words that
makes one number. "that one", "one replica" and "the last one" keep their words."""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.hearing import emoji_words

# The variables operators set for a launch (shared/knowledge/sglang-ops.md), said as words in their
# own order ("NCCL P2P disable", "CUDA visible devices"); a speech engine hears NCCL as "nickel".
ENV_NAMES = (
    "NCCL_P2P_DISABLE",
    "NCCL_P2P_LEVEL",
    "NCCL_SHM_DISABLE",
    "NCCL_IB_DISABLE",
    "NCCL_DEBUG_SUBSYS",
    "NCCL_DEBUG",
    "NCCL_ALGO",
    "NCCL_PROTO",
    "NCCL_SOCKET_IFNAME",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_LAUNCH_BLOCKING",
    "CUDA_DEVICE_MAX_CONNECTIONS",
    "PYTORCH_CUDA_ALLOC_CONF",
    "HF_HUB_OFFLINE",
)
# a speech engine writes NCCL as "nickel", P2P as "p to p", IB as "i b"
_PART = {"NCCL": r"(?:nccl|nickel)", "P2P": r"(?:p2p|p\s?(?:2|to|two)\s?p)", "IB": r"(?:ib|i\s?b)"}


def _spoken(name: str) -> re.Pattern[str]:
    parts = [_PART.get(p, re.escape(p.lower())) for p in name.split("_")]
    # at least one space between the parts: a name already written with "_" is left as it is
    return re.compile(r"\b" + r"\s+".join(parts) + r"\b(?![_=-])", re.I)


_NAMES = [(_spoken(name), name) for name in ENV_NAMES]
_EQUALS = re.compile(r"\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)\s+(?:equals|equal\s+to|=)\s+(?=\S)")


def env_names(text: str) -> str:
    """ "set NCCL P2P disable equals 1" -> "set NCCL_P2P_DISABLE=1"."""
    for pattern, name in _NAMES:
        text = pattern.sub(name, text)
    # "the NCCL_P2P_LEVEL variable": the word after the name says what it is, not what to do
    text = re.sub(r"\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)\s+(?:env(?:ironment)?\s+)?var(?:iable)?\b", r"\1", text)
    text = _EQUALS.sub(r"\1=", text)
    # NCCL reads its debug level in any case; said in words it is written as the docs write it
    text = re.sub(
        r"\b(NCCL_DEBUG(?:=|\s+to\s+|\s+))(version|warn|info|trace)\b",
        lambda m: m.group(1) + m.group(2).upper(),
        text,
        flags=re.I,
    )
    # NCCL_P2P_LEVEL's levels, said as words or letter by letter ("p h b")
    return re.sub(
        r"\b(NCCL_P2P_LEVEL(?:=|\s+to\s+|\s+))(loc|nvl|pix|pxb|phb|sys|p\s+h\s+b|p\s+x\s+b|p\s+i\s+x|n\s+v\s+l)\b",
        lambda m: m.group(1) + m.group(2).replace(" ", "").upper(),
        text,
        flags=re.I,
    )


_UNITS = {
    "zero": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9,
}  # fmt: skip
_TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_WORD = (
    r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)"
)
_RUN = re.compile(
    rf"\b(?:point\s+)?{_WORD}(?:[\s-]+{_WORD})*\b(?:\s+point(?:\s+{_WORD})+\b)?"
    r"(?!\s+(?:of|more|less|another|other|by\s+one)\b)",  # "one of them", "one more", "one by one": no number
    re.I,
)
# words after which a number is what is said: "port", "tp", "gpu", a knob's last word, "to", "equals";
# never a pasted "--flag four", which SGLang reads literally (and refuses)
# the words before GPU ids: a run of number words after them is never joined into one number
_GPU_TAKERS = r"gpus?|cards?|devices?|device|all|touch|use|on|off|except|but|skip|avoid|exclude|and|or|through|thru"
_TAKES_A_NUMBER = re.compile(
    r"(?:(?<![\w-])(?:ports?|tp|dp|to|equals|size|length|bs|requests|static|frac|fraction|parallel|replicas?|at|"
    r"make\s+(?:it|that)|"  # "actually no make that four and five": the value said again
    # a list goes on after a comma: "use zero, one, two and three"
    rf"of\s+tp|{_GPU_TAKERS})|=|(?:(?<![\w-])\d{{1,2}}|\b{_WORD}),)\s*$",
    re.I,
)
_GPU_WORD = re.compile(_GPU_TAKERS, re.I)
_THE_ONE = re.compile(r"\b(?:the|that|this|which)\s+(?:(?!to\b|at\b|of\b)[\w-]+\s+){1,4}$", re.I)
# a run that starts with a GPU's id may list GPUs ("two three"); "thirty thousand" never does
_A_LIST = re.compile(
    r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen)(?:\s+\w+)*",
    re.I,
)


def _value(words: list[str]) -> int | None:
    """The number a run of number words says, or None where the run is not one number."""
    if all(w in _UNITS for w in words) and len(words) > 2:  # "three zero zero zero one": digit by digit
        return int("".join(str(_UNITS[w]) for w in words))
    total, current = 0, 0
    pairs: list[int] = []  # "one twenty eight": a hundreds' shorthand, one then twenty-eight
    for word in words:
        if word in ("hundred", "thousand"):
            current = max(current, 1) * (100 if word == "hundred" else 1000)
            if word == "thousand":
                total, current = total + current, 0
            continue
        value = _UNITS.get(word, _TEENS.get(word, _TENS.get(word)))
        if value is None:
            return None
        if current % 10 == 0 and current % 100 and value < 10:  # "twenty eight"
            current += value
        elif current and current < 10 and value >= 20 and not pairs:  # "one twenty eight"
            pairs.append(current)
            current = value
        elif current == 0 or (current % 1000 == 0 and value < 1000) or (current % 100 == 0 and value < 100):
            current += value
        else:
            return None
    if pairs:  # "thirty two thousand seven sixty eight": the thousands, then the hundreds' shorthand
        return total + int(f"{pairs[0]}{current:02d}")
    return total + current


def _number(match: re.Match[str], text: str) -> str:
    said = match.group(0)
    words = [w for w in re.split(r"[\s-]+", said.lower()) if w]
    decimals: list[str] = []
    if "point" in words:
        at = words.index("point")
        words, decimals = words[:at], words[at + 1 :]
        if not decimals or not all(w in _UNITS for w in decimals):
            return said
    taker = _TAKES_A_NUMBER.search(text[: match.start()])
    if len(words) == 1 and not decimals and (taker is None or words[0] == "oh"):
        return said  # "that one", "one replica": a lone number word only where a number is expected
    if words == ["one"] and _THE_ONE.search(text[: match.start()]):
        return said  # "the mem fraction one": which setting, never its value
    after_gpu_word = taker is not None and _GPU_WORD.fullmatch(taker.group(0).strip())
    if len(words) > 2 and after_gpu_word and all(w in _UNITS for w in words):
        return " ".join(str(_UNITS[w]) for w in words)  # "gpus four five six seven": ids, one by one
    listed = _A_LIST.fullmatch(" ".join(words)) and not {"hundred", "thousand"} & {*words}  # never "eight thousand"
    if len(words) > 1 and after_gpu_word and listed:
        return said  # "GPUs two three" lists two GPUs, or says twenty-three: not a guess to make
    number = _value(words) if words else 0
    if number is None:
        return said
    return f"{number}." + "".join(str(_UNITS[w]) for w in decimals) if decimals else str(number)


_HOMOPHONES = {"won": 1, "for": 4}
_SMALL = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|"
    "eighteen|nineteen"
)


def numbers(text: str) -> str:
    """ "port three zero zero zero one" -> "port 30001", "mem frac point nine" -> "mem frac 0.9",
    "tp for" (a speech engine's four) -> "tp 4"."""
    text = homophones(re.sub(r"\b(tp|dp)\s+for\b(?!\s+(?:the|a|an|this|that|it|now|me)\b)", r"\1 4", text, flags=re.I))
    # "tee pee four dee pee too", "tp to on zero and one": two, where the layout's number is expected
    text = re.sub(r"\b(tp|dp)\s+(?:to|too)\b(?=[\s.!]*$|\s*,|\s+(?:and|tp|dp|on|with)\b)", r"\1 2", text, flags=re.I)
    # "port thirty thousand and to": a speech engine's two (four) ending a number said in words
    text = re.sub(
        r"\b((?:thousand|hundred)\s+and\s+)(to|too|for)\b(?=[\s.!,]*$)",
        lambda m: m.group(1) + ("four" if m.group(2).lower() == "for" else "two"),
        text,
        flags=re.I,
    )
    # "chunked prefill size for zero nine six": 4096 said digit by digit, its first digit heard as a word
    text = re.sub(
        rf"\b((?:size|length|bs|requests|port|prefill|tokens?)\s+)(to|too|for)\s+(?=(?:zero|oh)(?:\s+{_WORD}){{1,3}}\b)",
        lambda m: m.group(1) + ("four " if m.group(2).lower() == "for" else "two "),
        text,
        flags=re.I,
    )
    # "thirty thousand and two": a speaker's "and" inside one number
    text = re.sub(
        rf"\bthousand\s+and\s+(?=(?:{_SMALL}|{'|'.join(_TENS)})\b(?!\s+thousand))",
        "thousand ",
        text,
        flags=re.I,
    )
    text = _RUN.sub(lambda m: _number(m, text), text)
    return re.sub(r"\b(\d{1,3})\s+[kK]\b(?!\s*[=:])", r"\1k", text)  # "thirty two K": 32k, said with a pause


def homophones(text: str) -> str:
    """ "gpus for and five", "GPU won for now", "option won", "tensor parallel to for.": what a speech
    engine writes for four and one, only where an id or a size is the word expected there; and letters
    spelt one by one, one word (`spelt_letters`)."""
    text = spelt_letters(text)
    # a speaker's "um", "uh" (dictated: no comma; "um, no" is typed, and read as typed)
    # between two numbers it is a correction ("use GPU 2 uh 3"): said as one, never two ids
    text = re.sub(r"(?<=\d)\s+(?:u+m+|u+h+|e+rm+)\s+(?=\d)", " i mean ", text, flags=re.I)
    text = re.sub(r"(?:^|(?<=\s))(?:u+m+|u+h+|e+rm+)\b(?!,)\s*", "", text, flags=re.I)
    text = re.sub(
        r"\b(gpus?|cards?|option|step|number)\s+(won|for)\b(?=\s*(?:and\b|or\b|through\b|thru\b|,|\.|$|for\s+now\b|"
        r"please\b|pls\b|thanks\b))",
        lambda m: f"{m.group(1)} {_HOMOPHONES[m.group(2).lower()]}",
        text,
        flags=re.I,
    )
    # "thirty thousand won": one, said inside a number or a list ("GPUs zero, won"); "GPU 1 and to": two, last
    text = re.sub(r"(\b(?:gpus?|cards?)\s+[\w\s,]*?,\s*)won\b", r"\1one", text, flags=re.I)
    text = re.sub(
        r"\b((?:thousand|hundred|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)\s+)won\b",
        r"\1one",
        text,
        flags=re.I,
    )
    text = re.sub(
        r"(\b(?:gpus?|cards?)\s+\d(?:\s*,\s*\d)*\s+(?:and|or)\s+)(?:to|too)\b(?=[\s.!]*$)", r"\g<1>2", text, flags=re.I
    )
    text = re.sub(r"\b(option|step|number)\s+(?:to|too)(?=[\s.!]*$)", r"\1 2", text, flags=re.I)  # "um option to"
    # "GPUs to through five": the first of a range, said as a word a speech engine spells as "to"
    text = re.sub(r"\b(gpus?|cards?)\s+(?:to|too)\s+(?=(?:through|thru)\b)", r"\1 2 ", text, flags=re.I)
    # "step three comma check the log": a comma dictated after a step's number
    text = re.sub(r"\b((?:option|step|number)\s+\w+)\s+comma\s+", r"\1, ", text, flags=re.I)
    text = re.sub(  # "go with step two": a step's number said as a word
        r"\b(step|option|number)\s+(one|two|three|four|five|six|seven|eight|nine)\b",
        lambda m: f"{m.group(1)} {_UNITS[m.group(2).lower()]}",
        text,
        flags=re.I,
    )
    # "tensor parallel to data parallel for": two, then four, each where a layout's number is expected
    text = re.sub(r"\b(parallel(?:\s+size)?)\s+(?:to|too)\b(?=\s+(?:data|tensor|dp|tp)\b)", r"\1 2", text, flags=re.I)
    text = re.sub(r"\b(parallel(?:\s+size)?)\s+for\b(?=[\s.!]*$)", r"\1 4", text, flags=re.I)
    # "no I don't want that right now period", "yes period", "off limits, period": a full stop, said, at the end
    text = re.sub(
        r"(?<!grace)(?<!warmup)(?<!trial)(?<!waiting)(?<!test)(?<!cooldown)[,;]?\s+period[\s.!]*$",
        ".",
        text,
        flags=re.I,
    )
    return re.sub(r"\b(parallel(?:\s+size)?\s+to)\s+for\b(?=[\s.!]*$)", r"\1 4", text, flags=re.I)


# a dictated reply has no commas: a new sentence starts where the speaker says "I'm", "I'll", "I haven't",
# unless the word before binds it to what came first ("approve if I'm not back")
_DICTATED_SENTENCE = re.compile(
    r"(?P<before>\b[a-z]+)\s+(?=(?:[Ii](?:'m|'ll|'ve|'d|\s+(?:am|will|have|haven't|need|want|don't|can't|just|still))|im)\b)"
)
_BINDS = frozenset(
    [
        "if",
        "when",
        "until",
        "unless",
        "because",
        "cause",
        "so",
        "and",
        "but",
        "that",
        "before",
        "after",
        "once",
        "while",
        "till",
        "as",
        "what",
        "where",
        "or",
    ]
)


def dictated_breaks(text: str) -> str:
    """ "Carry on without me I'll check in when I get there" -> "Carry on without me. I'll check in ..."."""
    if re.search(r"[,;:]", text):
        return text
    return _DICTATED_SENTENCE.sub(
        lambda m: m.group(0) if m.group("before") in _BINDS else f"{m.group('before')}. ", text
    )


_HEARD_AS: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (re.compile(r"\bs\s?g\s+lang\b", re.I), "sglang"),
    (re.compile(r"\b(?:kuda|coda)\b(?=\s+(?:graphs?|visible|launch|device))", re.I), "cuda"),
    (re.compile(r"\bk\s+v\b(?=\s+(?:cache|cash|d\s*type))", re.I), "kv"),
    (re.compile(r"(?<=\w)\s+flak\b", re.I), " flag"),  # "the disable custom all reduce flak"
    # "FP eight E four M three": the fp8 formats said aloud
    (re.compile(r"\bfp\s*(?:eight|8)\s+e\s*(?:four|4)\s*m\s*(?:three|3)\b", re.I), "fp8_e4m3"),
    (re.compile(r"\bfp\s*(?:eight|8)\s+e\s*(?:five|5)\s*m\s*(?:two|2)\b", re.I), "fp8_e5m2"),
    (re.compile(r"\bfp\s+(?:eight|8)\b", re.I), "fp8"),
    (re.compile(r"\b(to|at)\s+like\s+(?=\S)", re.I), r"\1 "),  # "set it to like 4096": a filler
    (re.compile(r"\b(kv|radix)\s+cash\b", re.I), r"\1 cache"),
    (re.compile(r"\bd\s+type\b", re.I), "dtype"),
    (re.compile(r"\bpre\s+fill\b", re.I), "prefill"),
    (re.compile(r"\btenser\b", re.I), "tensor"),
    (re.compile(r"\bpar+al+el+\b", re.I), "parallel"),  # "paralell", "parralel"
    (re.compile(r"\bfa\s*-?\s*([234])\b", re.I), r"fa\1"),  # "fa 3": FlashAttention 3, the backend fa3
    (re.compile(r"\bfa\s+(two|three|four)\b", re.I), lambda m: "fa" + str(_UNITS[m.group(1).lower()])),
    (re.compile(r"\btee\s+pee\b", re.I), "tp"),
    (re.compile(r"\bdee\s+pee\b", re.I), "dp"),
    (re.compile(r"\bback\s+end\b", re.I), "backend"),
    (re.compile(r"\bflash\s+(?:infer|in\s+f(?:ur|ir|er))\b", re.I), "flashinfer"),
    (re.compile(r"\bpie\s*torch\b", re.I), "pytorch"),
    # "G P U's six and seven": the plural a speech engine writes with an apostrophe
    (re.compile(rf"\b(gpu|card)'s\b(?=\s+(?:\d|{_WORD}|to|too|for)\b)", re.I), r"\1s"),
    (re.compile(r"\s+underscore\s+", re.I), " "),  # "N C C L underscore P to P": a name's parts, said
    (re.compile(r"\bmen\s+(?=frac)", re.I), "mem "),
    # "slash data slash models slash mixtral": a path said aloud, only where it plainly ends ("... slash llama
    # three" may be "llama3" or "llama" then three: left unread)
    (
        re.compile(
            r"(?:\bslash\s+[\w.-]+\s*)+(?=$|[.,;!?]|(?:instead|please|pls|now|on|with|for|and|then|as|to)\b)", re.I
        ),
        lambda m: "/" + "/".join(re.findall(r"slash\s+([\w.-]+)", m.group(0), re.I)) + " ",
    ),
    (re.compile(r"\s+comma\s+", re.I), ", "),  # "zero comma one": a list said aloud
]


def spelt_letters(text: str) -> str:
    """ "L G T M", "N C C L debug", "H F hub offline": letters spelt one by one, one word."""
    return re.sub(r"\b[A-Z](?:\s[A-Z]){1,5}\b", lambda m: m.group(0).replace(" ", ""), text)


def speech_slips(text: str) -> str:
    """What a speech engine writes for the field's words: "SG lang", "KV cash d type", "pre fill",
    "dash dash context length" (a flag said aloud, its words joined while they name one of SGLang's)."""
    text = spelt_letters(text)
    for pattern, meant in _HEARD_AS:
        text = pattern.sub(meant, text)
    return re.sub(r"\b(?:dash|minus)\s+(?:dash|minus)\s+((?:[a-z0-9_]+\s*)+)", _flag_said, text, flags=re.I).strip()


def _flag_said(match: re.Match[str]) -> str:
    """ "dash dash disable radix cache we need it" -> "--disable-radix-cache we need it"."""
    from agent.hearing.flag_vocabulary import sglang_flags

    words = match.group(1).split()
    for size in range(len(words), 0, -1):
        flag = "--" + "-".join(words[:size]).lower()
        if flag in sglang_flags():
            return " ".join([flag, *words[size:]]) + " "
    return match.group(0)


def chat_framing(text: str) -> str:
    """What a chat client or a shell habit puts around the words, for instructions and replies alike:
    a `:shrug:` says nothing the words do not, a shell comment (" # ...") is a remark of its own, and
    "opsagent:" or "@bot" before a message only addresses it."""
    text = re.sub(r"(?<![\w:]):[a-z0-9_+-]+:(?![\w:])", "", text)
    text = emphasis_off(text)
    # Markdown's framing: a label ("**Action:**", "TL;DR:"), a task list's box ("- [x] cordoned"), and a
    # heading line over a list ("use AWQ:\n- ..."), which ends where the list begins
    text = re.sub(
        r"^[ \t]*(?:tl;?\s*dr|action(?:\s+items?)?|summary|note|update|ask|request|todo|next\s+steps?|decision)"
        r"[ \t]*:[ \t]*",
        "",
        text,
        flags=re.I | re.M,
    )
    text = re.sub(r"^([ \t]*(?:[-*•][ \t]*)?)\[[ xX✓✔]\][ \t]*", r"\1", text, flags=re.M)
    # (words, never a config's one-word key: "env:\n  - name: X" is YAML)
    text = re.sub(
        r"(?m)^([^\n:]*\w[ \t]+\w[^\n:]*)(?<!\bthat)(?<!\bto):[ \t]*\n(?=[ \t]*[-*•][ \t])", r"\1;\n", text
    )  # never "ensure that:\n* ...", whose list ends its sentence
    text = re.sub(r"\s*\(edited\)\s*$", "", text, flags=re.I)  # what a chat client adds to an edited message
    text = re.sub(r"\s+#\s+", "; ", text)
    return re.sub(r"^(?:@?opsagent|@bot)\b[:,]?\s*", "", text.strip(), flags=re.I)


def emphasis_off(text: str) -> str:
    """*never*, **only**, _please_: emphasis is the word it marks (never "tp 4 * dp 2" or NCCL_P2P_DISABLE)."""
    return re.sub(r"(?<![\w*])(\*{1,2}|_)(?=[^\s*_])([^*_\n]*?[^\s*_])\1(?![\w*])", r"\2", text)


def chat_marks(text: str) -> str:
    """The chat framing off (`chat_framing`); "&&" joins two instructions; "31,000" is 31000; ":8080"
    is a port."""
    text = chat_framing(text)
    text = re.sub(r"(?<![\w:/.])(?:port\s+)?:(\d{4,5})\b", r"port \1", text)  # ":8080": a port, as in host:port
    text = re.sub(r"\s*&&\s*", "; ", text)
    text = re.sub(r"(?<=[a-z])\s+&\s+(?=[a-z])", " and ", text, flags=re.I)  # "stop it & hold launches"
    return re.sub(r"\b(\d{2}),(000)\b", r"\1\2", text)


_CROSS = "✗✘❌🚫⛔"


def _crossed(match: re.Match[str]) -> str:
    """ "0-3 ✗" -> "not 0-3;": only a GPU, port or flag is crossed out; after "no"/"nah" it says no more."""
    thing = match.group("x").strip()
    if re.match(r"(?:no|not|nah|nope|never|don'?t|do\s+not)\b", thing, re.I) or not re.search(
        r"\d|--|\bgpus?\b|\bports?\b", thing, re.I
    ):
        return match.group("x")
    return f"not {thing};"


# signs that say no: read as a cross ("👎 GPU 3", "port 30000 :x:")
_NO_SIGNS = re.compile(
    r"👎|🛑|:(?:x|no_entry|no_entry_sign|thumbsdown|-1|octagonal_sign|"
    r"heavy_multiplication_x|negative_squared_cross_mark):",
    re.I,
)
# signs whose meaning beside a setting no rule knows ("GPU 3 💀", "🔥 tp 8"), and a bracket of a lone no,
# doubt or joke ("GPU 3 (no)", "(?)", "(sarcasm)"): the clause is not read (`UNPLACED`)
UNPLACED = "⁇"
_GESTURES = "👍✅✓✔☑🙏🚀👌🎉💯✨🙂😊😀😄✋🤞👀⏳☕"
_SETTING = r"(?:gpus?\s*\d|cards?\s*\d|ports?\s*\d|tp\s*\d|dp\s*\d|--[a-z]|[A-Z][A-Z0-9_]{2,}=|\d)"
_UNKNOWN_SIGN = rf"(?:(?![{_GESTURES}{_CROSS}])[\U0001f000-\U0001faff\u2600-\u27bf])[\ufe0f\u200d]*"
_LONE_ASIDE = re.compile(
    r"\(\s*(?:no|not|nope|never|nah|\?+|!+\?*|jk|j/k|kidding|joking|joke|sarcasm|/s|lol|not\s+really)\s*\)"
    # a note of one word beside a setting ("stop the server (don't)", "GPU 3 (busy)", "(tomorrow)"): what
    # it does to the words no rule knows; never a courtesy ("(pls)") or a number's unit
    r"|(?<=\S)\s*\((?!\s*(?:pls|please|thanks|thx|ty|again|asap|for\s+now|i\s+think|if\s+\w+|edited|sic|ports?|gpus?|"
    r"cards?|devices?|ids?|both|all|each|total|tp|dp|flags?|env)\s*\))"
    r"\s*[a-z'’]+\s*\)(?=\s*(?:[,.;!?]|$))",
    re.I,
)


def marks(text: str) -> str:
    """Signs that say a word, put in words before any emoji is dropped as a gesture: a cross after
    or before a thing ("0-3 ✗", "✗ gpu 3", "👎 port 30000") is "not" it, "port≠30000" is "not port 30000";
    an arrow to a new value ("tp4->tp8", "0.9 -> 0.85", "tp8 ✗ → tp4") is the new one; ".88" is 0.88.
    A sign beside a setting that no rule reads is `UNPLACED`."""
    text = _LONE_ASIDE.sub(f" {UNPLACED} ", _NO_SIGNS.sub("❌", emoji_words.in_words(text)))
    text = re.sub(rf"{_UNKNOWN_SIGN}(?=\s*[`'\"]?{_SETTING})", f"{UNPLACED} ", text, flags=re.I)
    text = re.sub(rf"(?P<s>{_SETTING}[\w.,-]*[`'\"]?)\s*{_UNKNOWN_SIGN}", rf"\g<s> {UNPLACED}", text, flags=re.I)
    text = re.sub(rf"[\w.-]+\s*[{_CROSS}]\s*(?:->|→|=>)\s*", "", text)
    text = re.sub(r"\b(tp|dp)\s*\d+\s*(?:->|→|=>)\s*(?:\1\s*)?(\d+)\b", r"\1 \2", text, flags=re.I)
    text = re.sub(r"(?<![\w.])\d+(?:\.\d+)?\s*(?:->|→|=>)\s*(?=\.?\d)", "", text)
    crossed = r"[`'\"]?(?:(?:gpus?|cards?|ports?|tp|dp)\b|\d|--|[A-Z][A-Z0-9_]{2,}=)"
    cross_first = rf"(?:^|(?<=[;,]\s)|(?<=[;,])|(?<=\band\s))\s*[{_CROSS}]\ufe0f?\s*(?={crossed})"
    text = re.sub(cross_first, "not ", text, flags=re.I)
    thing = rf"(?:[^,;.—–{_CROSS}]|(?<=\d),(?=\s*\d))+?"  # "gpus 0,1 ✗": a list of ids is one thing
    text = re.sub(rf"(?P<x>{thing})\s*[{_CROSS}]", _crossed, text)
    text = re.sub(r"\b([a-z]+)\s*≠\s*(\S+)", r"not \1 \2", text, flags=re.I)
    return re.sub(r"(?<![\w.])\.(\d+)\b", r"0.\1", text)
