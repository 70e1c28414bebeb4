"""A message put in the grammar's shape and split into the clauses `agent.hearing.instructions`
reads: what a chat client, a phone or a paste adds is taken off or spelt out first
(`agent.hearing.spoken`, `agent.hearing.normalise`)."""

from __future__ import annotations

import re

from agent.hearing import (
    autocorrect,
    calques,
    chatops,
    checklist,
    diff_lines,
    foreign,
    formal,
    hardware_names,
    iac,
    learner,
    letter,
    normalise,
    notation,
    pasted_blocks,
    phrasing,
    references,
    regarding,
    spoken,
    structured,
    subjects,
    time_scope,
)
from agent.hearing.flag_vocabulary import sglang_flags

_SPLIT = re.compile(
    r";|[.!]\s+|(?<=\?)\s+|\s+[-–—]\s+|\s+--\s+|\s+\+\s+|,\s+(?=[^\W\d_]|-)(?!dp\b|data[-\s]parallel|(?:one|a\s+single|single)\s+replica\b)"
    r"|,\s+(?=\d{4,5}\s+(?:is|'s|belongs|has|goes|went)\b)|,\s+(?=\d{1,2}(?:\s*-\s*\d{1,2})?\s+(?:are|is|'s|belong|have|has)\b)"
    r"|(?<=[^\W\d_]),\s+(?=\d{1,2}(?:\s*(?:,|and|&)\s*\d{1,2})+\s+(?:are|belong|have)\b)|,\s+(?=v?\d+\.\d+\.\d+\b)"
    r"|(?<!anything)(?<!everything)\s+(?:so|but)\s+(?=(?:please\s+)?(?:do\s+not\b)|(?:please\s+)?(?:serve|use|set|run|keep|stay|port|don'?t|dont|never|avoid|put|bind|move|tp|dp|hold|on\s+(?:port|gpus?)|with\s+(?:tp|dp|port|gpus?))\b)"
    r"|,\s+(?=/\w)|\s+/\s+(?!dp\b|\d)"
    # "on GPUs 0-3 only so my labmate can have 4-7": who it is for is a remark of its own
    r"|(?<=\w)\s+so\s+(?=(?:my|our|his|her|their|they|he|she|we|i|someone|nobody|others|the\s+others)\s)"
    # "cap X at 64 before it falls over again": when a thing happens is a remark of its own
    r"|(?<=\w)\s+(?=before\s+(?:it|we|they|he|she|someone|anyone)\s+\w)"
    r"|\s+and\s+(?!\d|--|dp\b|data[-\s]parallel|(?-i:[A-Z][A-Z0-9]*_[A-Z0-9_]+)(?![A-Z0-9_]*=))|\s+then\s+",
    re.I,
)
# never in a value or a path ("HF_HOME=/data/hf_cache"): only a name said on its own is a variable
_LOWER_ENV = re.compile(
    r"(?<![=/.:~-])\b(?:nccl_[a-z0-9_]+|cuda_visible_devices|cuda_launch_blocking|cuda_device_max_connections|sglang_[a-z0-9_]+|"
    r"hf_[a-z0-9_]+)\b(?==|\s|$|[,.;])"
)
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f]")
_N_AND = re.compile(r"(?<=\w)\s+n\s+(?=\w)")
_R_ARE = re.compile(r"(?<=\w)\s+r\s+(?=[a-z])")  # "0-3 r busy": a chat's "are"
# "please to restart it" (as French says it), "attention : do not ..." (a warning, not the backend)
# "next time, tp 4", "when you relaunch, add --x", "tp 4, from now on": when an instruction holds is when
# every instruction holds (the next launch on), so those words alone are no clause to ask about
_WHEN_IT_HOLDS = (
    r"from\s+now\s+on|going\s+forward|next\s+time(?:\s+round)?|(?:for|on)\s+the\s+next\s+(?:launch|run|try|attempt)|"
    r"(?:when|once)\s+you\s+(?:next\s+)?(?:re-?launch|restart|bounce)(?:\s+(?:it|the\s+server|again))?|"
    r"(?:until|till|unless)\s+(?:i|we)\s+(?:say|tell\s+you)\s+(?:so|otherwise|differently)"
)
# "Hi, good morning. As discussed in morning call, ...": a greeting, and an agreement the run never heard of
_GREETING = (
    r"(?:hi|hello|hey|greetings|good\s+(?:morning|afternoon|evening|day))(?:\s+(?:all|team|everyone|sir|madam))?|"
    r"as\s+(?:discussed|agreed|per\s+(?:our\s+)?(?:discussion|call|chat))(?:\s+(?:in|on|during|at|over)\s+[\w\s'-]{1,30})?"
)
# a speaker's "like" before the order ("okay like try the kv cache dtype ..."), never "like 4 gpus"
_A_VERB = (
    r"(?:try|add|use|set|drop|remove|unset|switch|restart|relaunch|stop|kill|put|change|make|go|keep|run|don'?t|dont|"
    r"never|get|bump|lower|raise|turn|disable|enable)\b"
)
_LEAD = re.compile(
    rf"^(?:(?:and|then|also(?!\s+use\s+(?:the\s+)?gpus?\b)|please\s+to|please|pls|ok|okay|sir|madam|ma'?am|like(?=\s+{_A_VERB})|"
    r"p\.?p?\.?s\.?)\b[\s,:]*)+|"
    rf"^(?:{_WHEN_IT_HOLDS})(?:[\s,:]+|$)|^(?:{_GREETING})$|"
    r"^next\s+(?:launch|run|time)[\s,:]+(?=(?:please|pls|kindly|set|use|unset|add|drop|remove|enable|disable|try)\b)|"
    r"^sorry\s+if\s+this\s+is\s+(?:a\s+)?(?:dumb|stupid|silly|naive)(?:\s+question)?(?:[\s,]+but)?(?:[\s,:]+|$)|^(?:attention|nb|note|fyi|warning)\s*:\s*|^:\s*|"
    r"^(?:meanwhile|in\s+the\s+meantime)\b[\s,:]*",
    re.I,
)


_NUMBERED = re.compile(r"(?:^|(?<=\s))(?:\(\d{1,2}\)|(?:\d{1,2}|[a-e]|i{1,3}|iv|v)[).])\s+(?=[A-Za-z-])")
_RELAYED = re.compile(
    r"(?P<who>\b(?:said|says|say|wrote|writes|asked\s+for|wants|words\s+(?:were|are)|note|told\s+me))\s*[,:]?\s*"
    r"(?:(?:quote|word\s+for\s+word)\s*[,:]?\s*)?[\"“'](?P<words>[^\"”']+)[\"”']",
    re.I,
)
_RELAYED_SETTING = re.compile(
    r"(?P<who>\b(?:asked\s+for|wants|requested|recommends|recommended|suggested|suggests|"
    # "Priya wrote --mem-fraction-static 0.8", never the writer's own "as I said --tp 4"
    r"(?<!\b[Ii]\s)(?<!\b[Ww]e\s)(?<!\b[Yy]ou\s)(?:wrote|writes|says|said)))\s+(?=[A-Z][A-Z0-9_]{2,}=|--[a-z])"
)
# "@bob says use port 30002", "fwd from infra: X=1", "per the vendor: ...": someone else's words, unquoted
_RELAYED_PLAIN = re.compile(
    r"^(?P<who>(?!(?:i|we|you)\s)@?[\w.-]+(?:\s+[\w.-]+)?\s+(?:says|said|wants|suggests|suggested|recommends)|(?:fwd|fw|forwarded)\s+from\s+[\w.-]+|"
    r"per\s+(?:the\s+)?[\w.-]+(?:\s+[\w.-]+)?(?=\s*:)|"
    # "bob wrote:", "from bob:", "quote:", "quoting bob:", "bob's reply:", "forwarding from #infra:", "bob:\n"
    r"(?!(?:i|we|you)\s)@?[\w.-]+\s+(?:wrote|writes|replied)(?=\s*:)|from\s+@?[\w.#-]+(?=\s*:)|quote(?=\s*:)|"
    r"quoting\s+@?[\w.-]+(?=\s*:)|@?[\w.-]+'s\s+(?:[\w-]+\s+)?(?:reply|answer|message|msg|words|note|comment|e-?mail|mail|dm|post|text)(?=\s*:)|forwarding\s+from\s+\S+(?=\s*:)|"
    # a name, then a colon: someone's words pasted ("bob: use GPU 3"), never a label ("note:", "env:")
    r"(?!(?:note|fyi|update|edit|ps|re|todo|action|request|ask|change|plan|also|ok|okay|opsagent|bot|agent|sglang|"
    r"server|gpus?|ports?|tp|dp|env|model|flags?|layout|rules?|reason|why|because|context|answer|reply|decision)\b)"
    r"@?[a-z][\w.-]*(?=:\s))\s*:?\s+(?=\S)",
    re.I,
)
# "the launch log shows 'tp_size=8, dp_size=1'", "traceback ends in '...'": what a log or a tool printed,
# quoted, is no request of anyone's: never read, nor asked back
_SHOWN = re.compile(
    r"(?P<who>\b(?:logs?|output|traceback|error(?:\s+message)?|dmesg|htop|nvidia-smi|stderr|stdout|scrollback)\b(?:[^.;:'\"`\n]{0,30}?\b(?:shows?|showed|says|said|reads|prints|printed|ends\s+in|"
    r"contains|lists|has|had))?)\s*[,:]?\s*(?<!\w)['\"`](?P<words>[^'\"`\n]+)['\"`](?!\w)",
    re.I,
)
# "use all but one gpu", "all gpus but one", "all but 2 cards": how many are left out, never which (before
# number words are read as ids)
_ALL_BUT_A_COUNT = re.compile(
    r"\ball\s+(?:(?:the\s+)?(?:gpus?|cards?)\s+)?(?:but|except(?:\s+for)?)\s+(?:one|two|three|a\s+couple|a\s+few|"
    r"\d\s+(?=gpus?|cards?))\b",
    re.I,
)
# "no use gpus 0-3 instead": a no, then what to do in its place; never "no use" (don't use) of those GPUs
_NO_THEN_INSTEAD = re.compile(r"^\s*(no|nah|nope)\s+(?=(?:use|try|run|serve|go\s+with)\b[^.;]*\binstead\b)", re.I)
# "the error message suggests --disable-cuda-graph": a setting a tool printed, unquoted; the same
_SHOWN_SETTING = re.compile(
    r"(?P<who>\b(?:logs?|output|traceback|error(?:\s+message)?|warning|dmesg|stderr)\b[^.;:\n]{0,30}?\b(?:shows?|says|"
    r"suggests|recommends|prints|mentions|asks\s+for|wants))\s+(?:--[a-z][\w-]*(?:\s+(?!-)[\w.]+)?|[A-Z][A-Z0-9_]{2,}=\S+)",
    re.I,
)
# what marks a clause as relayed: never taken, only asked back (agent.hearing.instructions)
RELAYED = "relayed: "
# "Lee said 256 ... but use 128": the writer's own words after someone else's, marked until split
_OWN = "own words: "
_OWN_AFTER_RELAYED = re.compile(
    r"\s*,?\s+(?:but|however|instead(?!\s+of\b))\b[\s,]*(?=[^\s,.!?])|"
    # "the wiki says mem frac 0.9, I say 0.85", 'Bob: "use gpus 0-3". ignore Bob, use 4-7': the writer's own
    r"(?:[,.;]|(?<=[\"”])[.,;]?)\s+(?=(?:i\s+say|ignore\s+\w+|we'?re\s+not|not\s+happening)\b)",
    re.I,
)
_LAUNCH_LINE = re.compile(
    r"(?m)^\s*(?P<env>(?:[A-Z][A-Z0-9_]*=\S+\s+)*)(?:\b(?:python3?|uv\s+run\s+python3?)\s+-m\s+sglang\.launch_server|\bsglang\s+serve)\b(?:\s+\.\.\.)?(?=\s+--|\s*$|\s*\.\.\.)"
)
_IDS = re.compile(r"\bgpus?\b|(?<![\w.])\d{1,2}\s*[-,/]\s*\d{1,2}(?![\w.])", re.I)
# a message that is launch lines and nothing else ("never again: L", "L is broken", "L?" are not read)
_WHOLE_LAUNCH_LINE = re.compile(
    r"\s*(?:(?:sh|bash|shell|console)\s*$|(?:env\s+-u\s+[A-Z][A-Z0-9_]+\s+)?(?:[A-Z][A-Z0-9_]*=[\w,.:/-]+\s+)*"
    r"(?:python3?|uv\s+run\s+python3?)\s+-m\s+sglang\.launch_server"
    r"(?:\s+--[a-z][\w-]*(?:[ =](?!--)[\w,.:/@+-]+)?)*(?:\s+\.\.\.)?\s*)"
)
_POSSESSIVE_PLURAL = re.compile(r"\b(gpu|card|port)'s\b(?=\s+\d)", re.I)
_GLUED_GPU = re.compile(r"\b(gpus?|cuda)(\d)", re.I)  # "GPU0" is GPU 0, never a variable named GPU0


_COUNTED_LABELS = (
    [str(n) for n in range(1, 21)],
    list("abcde"),
    ["i", "ii", "iii", "iv", "v"],
)


def launch_line_among_words(text: str) -> bool:
    """A pasted launch line with other words beside it ("never again: L", "L is broken", "L?"): the words
    may refuse it, so the message is not read; a message of launch lines alone is."""
    lines = [line for line in text.replace("`", "").split("\n") if line.strip()]
    return "launch_server" in text and not all(_WHOLE_LAUNCH_LINE.fullmatch(line) for line in lines)


def _a_numbered_list(markers: list[str]) -> bool:
    """Markers that count up from the first ("1) 2) 3)", "a. b."): never "tp 8. not 4.", where the
    numbers are values said at a sentence's end."""
    labels = [re.sub(r"[().\s]", "", m).lower() for m in markers]
    return len(labels) >= 2 and any(labels == counted[: len(labels)] for counted in _COUNTED_LABELS)


def written_plain(text: str) -> str:
    """A message's notation and its topic-first form in plain words ("port = 30001 ∧ port = 30002", "wrt torch
    compile: never"), before any check weighs it."""
    return regarding.plain(notation.plain(checklist.ticked(text)))


def clauses(text: str) -> list[str]:
    """`text` put in the grammar's shape (`agent.hearing.normalise` and the lines below), split into clauses."""
    text = _NO_THEN_INSTEAD.sub(r"\1, ", text)
    text = re.sub(r"\b(never|don'?t)\s*,\s*(ever)\b", r"\1 \2", text, flags=re.I)  # "never, ever pass X": one never
    text = _ALL_BUT_A_COUNT.sub(lambda m: f"{m.group(0)} {spoken.UNPLACED}", text)
    text = _SHOWN_SETTING.sub(rf"\g<who> {spoken.UNPLACED}", _SHOWN.sub(rf"\g<who> {spoken.UNPLACED}", text))
    # a pasted `--flag value` is the flag: the backticks are how chat shows code; "GPU #3" is GPU 3
    text = re.sub(r"\b((?:gpus?|cards?|devices?)\s*)#(?=\d)", r"\1", text.strip().replace("`", ""), flags=re.I)
    text = re.sub(r"(?<=[.!])\s*(?:now|asap|right\s+now|immediately)[.!]*\s*$", "", text, flags=re.I)  # "stop it. NOW."
    text = diff_lines.read(text)  # "- --tp 8\n+ --tp 4 --dp 2": a pasted diff of the launch's flags
    text = pasted_blocks.json_block(text, lambda flag: flag in sglang_flags())  # '{"tp": 2, "dp": 4}'
    # a pasted launch line: its flags and environment are what it says ("env -u X" unsets X)
    # at a line's start only: "don't run python -m sglang.launch_server --tp 8" refuses the line, whole
    if not launch_line_among_words(text):
        text = _LAUNCH_LINE.sub(r"\g<env>; ", re.sub(r"(?m)^\s*env\s+-u\s+([A-Z][A-Z0-9_]+)\s+", r"unset \1; ", text))
    text = iac.in_plain_words(
        chatops.plain(structured.plain(written_plain(text))), lambda flag: flag in sglang_flags()
    )  # "set var tp=4", "/gpu avoid 3"
    # a letter's greeting and sign-off; "Don’t", "tip 4" (autocorrect); "nein", "0~3", "不要用 0 号卡"
    text = hardware_names.plain(
        calques.plain(formal.plain(foreign.in_english(autocorrect.corrected(letter.body(text)))))
    )
    text = normalise.decimal_commas(text)  # "mem fraction 0,85"
    # "dp 4 (tp 1)": the other size of the layout, said in brackets beside it (before brackets are asides)
    text = re.sub(r"\b(dp|tp)\s*(\d+)\s*\(\s*(tp|dp)\s*(\d+)\s*\)", r"\3 \4 \1 \2", text, flags=re.I)
    # "use /models/a and /models/b": two models for one server, which is no reading (never the last one said)
    text = re.sub(
        r"(/[\w.@+-]+(?:/[\w.@+-]+)+)\s*(?:,|\band\b|\bor\b|&)\s*(?=/[\w.@+-]+/)", rf"\1 {spoken.UNPLACED} ", text
    )
    # "serve /models/x --tp 8 --trust-remote-code": a model path, then flags pasted after it, each its own clause
    text = re.sub(r"(\s/[\w.@+-]+(?:/[\w.@+-]+)+)\s+(?=--[a-z])", r"\1; ", text)
    # "mem fraction 0.85 and --cuda-graph-max-bs 256": a setting in words, then a pasted flag, each a clause
    text = re.sub(r"(?<=\d)\s+and\s+(?=--[a-z])", "; ", text)
    # "--model-path Qwen/Qwen2.5-72B-Instruct --tp 8": a hub id pasted as the model (asked back, as one said)
    text = re.sub(
        r"(?:^|(?<=\s))--model(?:-path)?[\s=]+([A-Za-z0-9][\w.-]*/[\w.-]+)(?=\s|$)\s*(?=--[a-z]|$)", r"use \1; ", text
    ).strip("; ")
    # "s/tp 8/tp 4/": an editor's substitution is the change it makes; "GPU's 4 to 7" a plural
    text = _POSSESSIVE_PLURAL.sub(r"\1s", pasted_blocks.sed_edits(text))
    # "leave it off ✋": a gesture says nothing the words do not
    text = normalise.word_ranges(_EMOJI.sub("", spoken.marks(text)).strip())
    # "NCCL P2P disable equals one", "port three zero zero zero one", "# a comment", ":shrug:", "&&"
    text = spoken.numbers(spoken.env_names(spoken.speech_slips(spoken.chat_marks(text))))
    text = normalise.plain_words(normalise.pasted_code(text, lambda flag: flag in sglang_flags()))
    text = re.sub(r"\s+(?:pls|plz|please)(?=\s*,\s*(?:tp|dp)\b)", "", text, flags=re.I)  # "tp 8 pls, dp 1"
    text = references.plain(time_scope.plain(text))  # "tonight: --x 4096", "gpus 0-3 again"
    # "NCCL_DEBUG=WARN (there's no IB on this box, ...)": an aside of words in brackets is a clause of its own,
    # and so is a bracketed "(--cuda-graph-max-bs 128)"
    text = re.sub(r"\s*\(((?:(?!--)[^()])*\s(?:(?!--)[^()])*)\)\s*", r"; \1; ", text).strip("; ")
    text = re.sub(r"\s*\(\s*(--[a-z0-9][a-z0-9-]*[ =][^\s()-]\S*)\s*\)\s*", r"; \1; ", text, flags=re.I).strip("; ")
    text = _LOWER_ENV.sub(lambda m: m.group(0).upper(), text)  # "unset nccl_debug": a variable typed in lowercase
    text = re.sub(r"(?m)^\s*\+1\b[,.!]?\s*", "; ", text)  # "+1, do that": a vote on a line of its own
    text = re.sub(r"(\d)\s*[+&]\s*(?=(?:gpus?\s*)?\d)", r"\1 and ", text, flags=re.I)  # "gpu0 + gpu1", "6 & 7"
    # "replicas: 2\ntp: 4", "- name: NCCL_DEBUG\n  value: INFO", "set `port: 30123`", "tp=2, dp=4" (one layout)
    text = re.sub(r"(?<![\w-])(port|tp|dp)\s*[:=]\s*(\d+)\b", r"\1 \2", pasted_blocks.settings_block(text), flags=re.I)
    text = re.sub(r"(?<=\s)w(?=\s+\w)", "with", text)  # "restart on 30002 w mem frac .8"
    text = re.sub(r"(?m)^\s*[-*•]\s+", "", text)  # a bulleted list: each bullet a line, each line a clause
    # "1) stop the server 2) do not relaunch": a numbered list on one line, each item a clause
    if _a_numbered_list(_NUMBERED.findall(text)):
        text = _NUMBERED.sub("; ", text).strip("; ")
    text = re.sub(r"\s*\n\s*", "; ", re.sub(r":[ \t]*\n\s*", ": ", text))  # a pasted block: a line is a clause
    text = normalise.shorthand_forms(
        subjects.benchmark_again(subjects.feature_topic(text))
    )  # "!gpu3", "gpu4-gpu7", "dp 7 and tp 1", "-> --flag"
    text = normalise.gpu_exceptions(text)  # "use 4,5,6,7 but not 5"
    # "use gpus 0-3 on port 30002": the GPUs, then the port, each a clause (bare ids stay one, asked back)
    text = re.sub(r"(\bgpus?\s+\d+(?:\s*(?:-|to|,|and)\s*\d+)*)\s+(?=on\s+port\s+\d{2,5}\b)", r"\1; ", text, flags=re.I)
    # "instead of tp 4 use tp 2": what is not wanted (never read), then what is, each a clause
    text = re.sub(
        r"^(instead\s+of\s+[^,;]+?)[\s,]+(?=(?:use|try|go\s+with|switch\s+to|do)\s)", r"\1; ", text, flags=re.I
    )
    # "mem fraction set 0.85, 0.9 OOM already": the value to use, then another and what it did, each a clause
    text = re.sub(r"(\d),\s+(?=\.?\d[\d.]*\s+(?:OOM|crash|fail|died|hung|hang)\w*\b)", r"\1; ", text, flags=re.I)
    # "port 8080 not 30000": the port to use, then one not to, each a clause
    text = re.sub(r"\b(ports?\s+\d{4,5})\s+not\s+(?=\d{4,5}\b)", r"\1; not ", text, flags=re.I)
    # "never use gpu 0 or port 30000": both, each its own clause (before "GPU 0 or GPU 1" is joined as one list)
    text = normalise.negated_or(text)
    # "GPU 0, GPU 1" is one list, not two clauses
    text = phrasing.join_gpu_mentions(_GLUED_GPU.sub(r"\1 \2", text))
    text = _R_ARE.sub(" are ", _N_AND.sub(" and ", text))  # "skip 6 n 7": an SRE's "n" between two words is "and"
    # A "?" stays: a question is not an instruction ("port 31000?"), unless it asks for one
    # ("can you measure again?", read by agent.hearing.phrasing).
    # "Sanjay says: 'disable cuda graph'": the quoted words are read, and who said them stays a clause
    # not understood, so the reading is asked back before anything acts on a relayed instruction
    text = _RELAYED.sub(lambda m: f"{m.group('who')}; {RELAYED}{m.group('words')}", text)
    text = _RELAYED_SETTING.sub(rf"\g<who>; {RELAYED}", text)  # "the engineer asked for NCCL_P2P_DISABLE=1": the same
    text = _RELAYED_PLAIN.sub(rf"\g<who>; {RELAYED}", text)
    if (at := text.find(RELAYED)) >= 0:  # "... but use 128": the writer's own words end the relayed ones
        text = text[:at] + _OWN_AFTER_RELAYED.sub(f"; {_OWN}", text[at:], count=1)
    parts = (_LEAD.sub("", c.strip(" .!'\"")).strip(" .!'\"") for c in _SPLIT.split(text) if c)
    # the relayed words, to the message's end, stay marked as someone else's
    marked = [p for p in parts if p]
    start = next((at for at, p in enumerate(marked) if p.startswith(RELAYED)), len(marked))
    end = next((at for at, p in enumerate(marked) if p.startswith(_OWN)), len(marked))
    marked = (
        marked[:start]
        + [p if p.startswith(RELAYED) else RELAYED + p for p in marked[start:end]]
        + [p.removeprefix(_OWN) for p in marked[end:]]
    )
    # "not 6/7" is GPUs only beside other ids ("0-1 tp2, not 6/7") or alone; never "tp 8. not 4, not 2"
    about_gpus = len(marked) == 1 or any(_IDS.search(p) for p in marked)
    # a sentence's "after the bench, ..." said mid-message is a clause's start only now (the whole text's line starts
    # were read above)
    return [
        normalise.negated_or(normalise.lone_clause(learner.in_plain_order(time_scope.plain(p)), about_gpus))
        for p in marked
    ]
