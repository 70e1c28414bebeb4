"""The operator's words put in the grammar's shape before they are split into clauses: a pasted
settings block said line by line, GPU ids said in words, an SRE's shorthand ("!gpu3", "gpu4-gpu7",
"-> --flag"), "or" after a "not"."""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.hearing import model_terms, not_taken, polite, said_at_length, units, word_table
from agent.hearing.spoken import UNPLACED

NEGATED_LIST = re.compile(
    r"^(?:don'?t|do\s+not|never|not|no|avoid|skip|exclude|stay\s+off|keep\s+off|steer\s+clear\s+of|stay\s+away\s+from)\b",
    re.I,
)

_NEGATED_BEFORE = re.compile(r"\b(?:not|never|no|don'?t|dont|do\s+not)\s+$", re.I)


def shorthand_forms(text: str) -> str:
    """An SRE's shorthand in the grammar's words: "!gpu3", "!30000 !8080" (a "!" before a word says
    "not", each its own clause), "both" before a list, "gpu4-gpu7" and "gpus 6/7", "fp8 e4m3",
    "even-numbered cards", "dp 7 and tp 1", vLLM's "-tp 4" and "engine", and what an arrow points at."""
    text = re.sub(r"(?<=\w)\s+!(?=[\w-])", ", not ", text)
    text = re.sub(r"(?<![\w!])!(?=[\w-])", "not ", text)
    # "drop both NCCL_ALGO and NCCL_PROTO": "both" says nothing the list does not
    text = re.sub(r"\bboth\s+(?=[A-Z][A-Z0-9_]{2,}\s+and\b|gpus?\b|ports?\b|\d)", "", text, flags=re.I)
    # "gpu4-gpu7", "gpus 6/7": a range or a list of GPUs said with the word again or a slash
    text = re.sub(r"\bgpus?\s*(\d+)\s*-\s*gpus?\s*(\d+)\b", r"GPUs \1-\2", text, flags=re.I)
    text = re.sub(r"\b(gpus?\s+\d+)\s*/\s*(\d+)\b", r"\1 and \2", text, flags=re.I)
    text = re.sub(r"\bfp8[\s_-]?(e4m3|e5m2)\b", r"fp8_\1", text, flags=re.I)  # "fp8 e4m3"
    # "fp8 kv cache, e5m2": the format said after the cache is the one meant; "e5m2 not e4m3": the other, refused
    text = re.sub(
        r"\bfp8\s+kv(?:[\s-]+cache)?(?:\s+dtype)?\s*[,:]?\s*(?:(?:use|with|as|in)\s+)?(?:fp8_?)?(e4m3|e5m2)\b",
        r"fp8_\1 kv cache",
        text,
        flags=re.I,
    )
    text = re.sub(
        r"\b(fp8_(e4m3|e5m2)\b[^,;.]*?)[\s,]*\b(?:not|rather\s+than|instead\s+of|over)\s+(?:fp8_?)?(?!\2)(?:e4m3|e5m2)\b",
        r"\1",
        text,
        flags=re.I,
    )
    # vLLM's "-tp 4" (SGLang has no one-dash form), its "engine" and "api server": the layout, the server
    text = re.sub(r"(?<![\w-])-(tp|dp)\s*(?=\d)", r"\1 ", text, flags=re.I)
    text = re.sub(r"\b(?:the\s+)?(?:api\s+server|engine)\b", "the server", text, flags=re.I)
    text = re.sub(r"\b(?:the\s+)?(?:even|odd)[-\s]numbered\s+(?=(?:gpus?|cards?)\s+\d)", "", text, flags=re.I)
    # "flashinfer backend pls triton was slower", "70b wont fit lol swap to X": a texter's sentence ends there
    text = re.sub(r"(?<=\w)\s+(pls|plz|lol|lmao|idc|thx)\s+(?=[a-z0-9/-])", r" \1. ", text, flags=re.I)
    text = re.sub(
        r"\b(avoid|use|exclude|skip)\s+(gpus?|ports?)\s*:\s*(?=\d)", r"\1 \2 ", text, flags=re.I
    )  # "avoid gpu: 2"
    # "replicas 2", "replicas: 2": the copies of the model are its DP (never "replicas 2 of tp4")
    text = re.sub(r"\breplicas?\s*[=:]?\s*(\d+)\b(?!\s*(?:of|x|×)\b)", r"dp \1", text, flags=re.I)
    text = re.sub(
        r"\b(tp|dp)\s*(\d+)\s*\(\s*\1\s*[=:]?\s*\2\s*\)", r"\1 \2", text, flags=re.I
    )  # "dp 2 (dp2)": said twice
    # "dp 7 and tp 1": the layout said DP first is the same layout
    text = re.sub(r"\bdp\s*[=:]?\s*(\d+)\s*(?:and|,|x|\*)?\s*tp\s*[=:]?\s*(\d+)\b", r"tp \2 dp \1", text, flags=re.I)
    # "no nvlink -> --disable-custom-all-reduce", "model -> /models/x": what the arrow points at is said
    # a terse engineer's names: "mem .85" (a fraction), "quant fp8", "kv=fp8_e4m3", "p2p=off", "model → /x"
    text = re.sub(r"\bmem\s*[=:]?\s*(?=0\.\d)", "mem fraction ", text, flags=re.I)
    text = re.sub(r"\bquant\b\s*[=:]?\s*(?=\w)", "quantization ", text, flags=re.I)
    text = re.sub(r"\bflip\s+(on|off)\b", r"turn \1", text, flags=re.I)  # "flip on dp attention"
    # "drop to gpus 0-3": to fewer GPUs; "don't drop to ..." is no "don't use" of them
    text = re.sub(
        r"\b(?:drop|scale)\s+(?:down\s+|back\s+)?to\s+(?=gpus?\s+\d)",
        lambda m: m.group(0) if _NEGATED_BEFORE.search(text[: m.start()]) else "use ",
        text,
        flags=re.I,
    )
    text = re.sub(r"^never\s+(?=--[a-z])", "never use ", text, flags=re.I)  # "never --x or --y on this box"
    text = re.sub(r"\b(?:redo|rerun|re-run)\s+(?:it|that|the\s+launch)\s+with\b", "relaunch with", text, flags=re.I)
    text = re.sub(r"\b(add|use|pass)\s+the\s+(?=--[a-z]|(?:[\w-]+\s+){1,5}flag\b)", r"\1 ", text, flags=re.I)
    # "export X=1 before launch", "before I sign off relaunch on ...": when is what the run does anyway
    text = re.sub(
        r"\s+before\s+(?:the\s+)?(?:next\s+)?(?:launch|relaunch(?:ing)?|restart(?:ing)?)\b", "", text, flags=re.I
    )
    # "set NCCL_DEBUG=INFO so Priya can read the logs tomorrow": the setting, then why (someone named), a clause each
    text = re.sub(r"(?<=\S)\s+(so(?:\s+that)?)\s+(?=[A-Z][a-z]+\s+(?:can|could|will|has|gets)\b)", r"; \1 ", text)
    # "revert to tp 8", "revert the context length to 8192", "kv cache back to fp8_e5m2": the value to go back to,
    # said (never "back to the old mem frac": which value?)
    text = re.sub(
        r"\b(?:revert|switch\s+back|change\s+(?:it\s+)?back)\s+to\s+(?!(?:the\s+)?(?:old|previous|original|last|earlier)\b)",
        "use ",
        text,
        flags=re.I,
    )
    text = re.sub(
        r"\brevert\s+(?:the\s+)?([a-z][\w\s-]*?)\s+to\s+(?=[\d.]|fp8|[a-z]+_)", r"set the \1 to ", text, flags=re.I
    )
    text = re.sub(
        r"(?:^|(?<=[,.;]\s))back\s+to\s+(?=[a-z-]+(?:\s+[a-z-]+){0,3}\s+[\d.]|tp|dp|port|--)", "", text, flags=re.I
    )
    text = re.sub(
        r"(?:^|(?<=[,.;]\s))(?!(?:put|set|change|move|bring|switch|turn|roll)\b)([a-z][a-z\s]*?)\s+back\s+to\s+"
        r"(?=[\d.]|fp8|[a-z]+_[a-z0-9])",
        r"\1 ",
        text,
        flags=re.I,
    )
    # "chunked prefill 4096, for all the runs", "no gpu 0 for any of it": every launch, as every rule is
    text = re.sub(
        r",?\s+for\s+(?:all\s+(?:the\s+)?(?:runs|launches)|any\s+of\s+it|every\s+(?:run|launch))\b",
        "",
        text,
        flags=re.I,
    )
    text = re.sub(r"(?<=\d)\s+or\s+nothing\b", "", text, flags=re.I)  # "tp 8 or nothing": that value, insisted on
    text = re.sub(r"(?<=\d)\s+inclusive\b", "", text, flags=re.I)  # "gpus 2 through 5 inclusive"
    text = re.sub(r"^none\s+of\s+(?:the\s+)?(?=gpus?\s*\d)", "don't use ", text, flags=re.I)  # "none of gpus 6 or 7"
    text = re.sub(r"\bat\s+least\s+(?=one\s+more\s+(?:bench(?:mark)?|measurement|pass|run)\b)", "", text, flags=re.I)
    # "drop both NCCL vars, NCCL_DEBUG and NCCL_IB_DISABLE": the variables named after the count of them
    text = re.sub(
        r"\b(drop|unset|remove)\s+(?:both|all|the)\s+(?:(?:two|three|\w+)\s+)?(?:env\s+)?var(?:iable)?s\s*[,:]\s*(?=[A-Z][A-Z0-9]*_)",
        r"\1 ",
        text,
        flags=re.I,
    )
    text = re.sub(r"^before\s+(?:(?:I|you|we)\s+sign|signing)\s+(?:it\s+|this\s+)?off,?\s+(?=\w)", "", text, flags=re.I)
    # "quantize it fp8", "quantize to awq": the verb, then one of the methods
    text = re.sub(
        r"\bquantize(?:\s+(?:it|the\s+model))?(?:\s+(?:to|in|with|as))?\s+(?=(?:fp8|int8|int4|awq|gptq|w8a8_fp8|w8a8_int8)\b)",
        "quantization ",
        text,
        flags=re.I,
    )
    text = re.sub(r"\bkv\s*[=:]\s*(?=fp8|bf16|auto)", "kv cache dtype ", text, flags=re.I)
    text = re.sub(r"\bp2p\s*[=:]\s*(?:off|0|false|disabled?)\b", "NCCL_P2P_DISABLE=1", text, flags=re.I)
    text = re.sub(r"(?<![\w-])--(tp|dp|port)(\d+)\b", r"--\1 \2", text, flags=re.I)  # "--tp4": a value glued on
    text = re.sub(r"\bmodel\s*(?:->|→|=>)\s*(?=/)", "use the model ", text, flags=re.I)
    text = re.sub(
        r"\b(fp8|int8|int4|awq|gptq|w8a8_fp8|w8a8_int8)\s+quant(?:ization|ized)?\b",
        r"quantization \1",
        text,
        flags=re.I,
    )
    text = re.sub(
        r"\bctx[-_\s]?(?:len(?:gth)?)?\s*[=:]?\s*(?=\d)", "context length ", text, flags=re.I
    )  # "ctx len 32k"
    # "32k context", "relaunch with 8k ctx": the length said before its name (never "the 128k context of the model")
    text = re.sub(
        r"(?<![\w.])(\d+(?:\.\d+)?\s?[kK])\s+(?:context|ctx)(?:[-_\s]?(?:length|len|window))?\b(?!\s+(?:of|on)\b)",
        r"context length \1",
        text,
    )
    # an incident's urgency ("fp8 quant NOW we need the memory", "ctx len 32768 stat"): a break, no word
    text = re.sub(r"\s+(?-i:NOW|ASAP|STAT)\b[!.]*\s*(?=\S)", ", ", text)
    text = re.sub(r"\s+(?:stat|asap|(?-i:NOW))[!.]*(?=\s*(?:[,;]|$))", "", text, flags=re.I)
    text = re.sub(r"\b(?:wiht|wtih|whit|iwth)\b", "with", text, flags=re.I)  # a slip of "with", the one word
    return re.sub(r"\s*(?:-+>|→)\s*(?=--|[A-Z][A-Z0-9_]{2,}=|/)", "; ", text)


# the run's own settings typed as code: "avoid_gpus = range(0, 4)", "gpus=[4,5,6,7]", "model_path='/x'"
_SETTING_NAMES = {
    "avoid_gpus": "don't use GPUs", "use_gpus": "use GPUs", "gpus": "use GPUs", "avoid_ports": "avoid port",
    "use_port": "port", "model_path": "serve", "use_model": "serve", "model": "serve",
}  # fmt: skip


def pasted_code(text: str, is_flag: Callable[[str], bool]) -> str:
    """Settings typed as Python: quotes, lists and ranges taken off, `env={...}` as NAME=value,
    `some_flag=value` as `--some-flag value` where SGLang has that flag (`is_flag`)."""
    text = re.sub(r"\brange\(\s*(\d+)\s*,\s*(\d+)\s*\)", lambda m: f"{m.group(1)}-{int(m.group(2)) - 1}", text)
    text = re.sub(r"\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]", lambda m: re.sub(r"\s+", "", m.group(1)), text)
    text = re.sub(r"=\s*(['\"])([^'\"]*)\1", r"=\2", re.sub(r"\s*=\s*(?=['\"\[\w/.-])", "=", text))
    env = re.search(r"\benv\s*=\s*\{([^}]*)\}", text)  # "env = {...}": spaced as Python is
    # each pair, quoted or not (quotes may be gone by now); a block of anything else stays as typed, unread
    pair = r"['\"]?([A-Z][A-Z0-9_]+)['\"]?\s*:\s*(?:(['\"])([^'\"]*)\2|([\w.:-]*))"
    if env is not None and re.fullmatch(rf"\s*{pair}(?:\s*,\s*{pair})*\s*,?\s*", env.group(1)):
        pairs = [(m[1], m[3] or m[4]) for m in re.finditer(pair, env.group(1))]
        text = text[: env.start()] + "; ".join(f"{k}={v}" for k, v in pairs) + text[env.end() :]
    for name, said in _SETTING_NAMES.items():
        text = re.sub(rf"(?<![\w-]){name}=(\S+)", rf"; {said} \1; ", text)

    def flag(match: re.Match[str]) -> str:
        name, value = "--" + match.group(1).replace("_", "-"), match.group(2)
        if not is_flag(name):
            return match.group(0)
        if value in ("True", "true"):
            return f"; {name}; "
        return f"; don't use {name}; " if value in ("False", "false", "None") else f"; {name} {value}; "

    text = re.sub(r"(?<![\w-])([a-z][a-z0-9]*(?:[_-][a-z0-9]+)+)=([^\s,;]+)", flag, text)  # snake_ or kebab-case
    return re.sub(r"^[;\s]+|[;\s]+$", "", re.sub(r"(?:\s*;\s*,?)+", "; ", text))  # "a=1, b=2": no "," left between


_LONE_GPUS = re.compile(r"^(?:not|no)\s+(\d{1,2}(?:\s*(?:/|,|or|and|&)\s*\d{1,2})*)$", re.I)
_LONE_PORTS = re.compile(
    r"^(?:not|no|never)\s+(?:on\s+)?(?:ports?\s+)?(\d{4,5}(?:\s*(?:/|,|or|and|&)\s*\d{4,5})*)$", re.I
)


def _ids(match: re.Match[str]) -> str:
    return re.sub(r"\s*(?:/|,|or|and|&)\s*", " and ", match.group(1))


def lone_clause(clause: str, about_gpus: bool = True) -> str:
    """A clause of a few words that says its verb or its noun only by where it stands: "bounce" is the
    server's relaunch, "not 6/7" GPUs to keep out (bare ids, asked back), "no 30000/30001" ports."""
    clause = re.sub(r"^(bounce|restart|relaunch)$", r"\1 it", clause, flags=re.I)
    clause = re.sub(
        r"^(?:also\s+)?off\s+(?=(?:gpus?\s*|ports?\s+)?\d+$)", "stay off ", clause, flags=re.I
    )  # "2) off 30001"
    clause = _LONE_PORTS.sub(lambda m: f"never use ports {_ids(m)}", clause)
    return _LONE_GPUS.sub(lambda m: f"dont touch {_ids(m)}", clause) if about_gpus else clause


_SUBJECT_FIRST = r"(?:^|(?<=[.;,:]\s)|(?<=\n))(?P<what>[\w./-]+(?:\s+[\w./-]+){0,5}?)\s+"
_TO_BE_SWITCHED = re.compile(
    _SUBJECT_FIRST + r"(?:is\s+|are\s+)?(?:to\s+be|should\s+be|must\s+be|needs\s+to\s+be|has\s+to\s+be)\s+"
    r"(?P<how>disabled|enabled|turned\s+off|turned\s+on|switched\s+off|switched\s+on|removed|unset)\b",
    re.I,
)
_NOT_TO_BE_USED = re.compile(
    _SUBJECT_FIRST
    + r"(?:should\s+not|shouldn'?t|must\s+not|mustn'?t|(?:is|are)\s+not\s+to|cannot|can'?t)\s+be\s+used\b",
    re.I,
)
_HOW = {
    "disabled": "disable",
    "turned off": "disable",
    "switched off": "disable",
    "removed": "remove",
    "unset": "unset",
}


def _passive_orders(text: str) -> str:
    """ "Radix cache to be disabled", "Port 30000 should not be used at any cost", "do the needful to
    remove --x": an order said of its object (Indian English at work), in the grammar's order."""
    text = re.sub(r"\bdo\s+the\s+needful\s+(?:to|and)\s+", "", text, flags=re.I)
    text = _TO_BE_SWITCHED.sub(
        lambda m: f"{_HOW.get(' '.join(m.group('how').lower().split()), 'enable')} {m.group('what')}", text
    )
    return _NOT_TO_BE_USED.sub(lambda m: f"don't use {m.group('what')}", text)


# "NCCL_P2P_DISABLE=1 should fix the hang": a setting offered as a remedy, a maybe (asked back, never taken)
REMEDY = re.compile(
    r"(?:^|(?<=[\s,;:]))((?-i:[A-Z][A-Z0-9_]{2,})=\S+|--[a-z][\w-]*(?:\s+(?!should|would|might|may|could|will)[^\s-]\S*)?)"
    r"\s+(?P<why>(?:should|would|might|may|could|will)\s+(?:fix|help|solve|resolve|sort|cure|stop|get\s+rid\s+of)\b[^,;.]*)",
    re.I,
)


def remedy_as_maybe(text: str) -> str:
    return REMEDY.sub(r"maybe use \1", text)


# Rewrites read in this order over a whole message, each case-blind (agent.hearing.word_table's shape)
_SAID_PLAINLY = word_table.compiled(
    [
        (r"(?:^|(?<=[.?!]\s))either\s+way,?\s+", ""),  # "did it OOM on load? either way mem frac 0.75"
        # "stay on /models/x", "keep radix cache on", "30000 stays": what runs now, kept
        (r"\b(?:stay|stick)\s+(?:on|with)\s+(?=/[\w.]|[\w.-]+/[\w.-]+)", "serve "),
        (r"\bkeep\s+(?:the\s+)?(radix\s+cache|cuda\s+graphs?)\s+on\b", r"don't disable \1"),
        (r"(?:^|(?<=[.;,]\s))(\d{4,5})\s+stays\b", r"port \1"),
        # "keep it on 30000": that port (never "keep it on 30000 too": a second port, asked about)
        (r"\bkeep\s+it\s+on\s+(?:port\s+)?(?=\d{4,5}\b(?!\s+(?:too|as\s+well|also)\b))", "use port "),
        # "someone in #infra said to disable cuda graph, don't": their order, refused
        (not_taken.THEIR_ORDER_REFUSED.pattern, r"\g<who> so; don't \g<what>"),
        # "4k chunked prefill", "32k ctx": the value said before its setting
        (r"\b(\d+k?)\s+(chunked\s+prefill(?:\s+size)?|ctx|context(?:\s+length)?|cuda\s+graph\s+max\s+bs)\b", r"\2 \1"),
        # "30000-30002 off limits": the ids alone, the whole message; never across a line ("port 31000\noh and
        # gpu 0 is off limits")
        (
            r"^((?:the\s+)?(?:ports?\s+|gpus?\s+|cards?\s+)?\d+(?:\s*(?:-|,|&|/|and)\s*\d+)*)\s+(?:is\s+|are\s+)?"
            r"off[-\s]limits[.!]*$",
            r"avoid \1",
        ),
        (r"\b(dp|tp)\s+x\s?(\d)\b", r"\1 \2"),  # "dp x2": two replicas
        (r"\b(gpu|card|port)\s+(?:number|no\.?|nr\.?)\s+(?=\d)", r"\1 "),  # "GPU number 3"
        # "take Qwen/X instead", "swap to meta-llama/Y": a hub id to serve; "model path /mnt/x": the model (one path)
        (r"\b(?:take|swap\s+to|load)\s+(?=[A-Za-z0-9][\w.-]*/[\w.-]+)", "use "),
        (r"\bmodel\s+path\s+(?=/\S+(?![\s\S]*(?:^|\s)/[\w.-]))", "use the model "),
        # "take NCCL_DEBUG back off", "take --enable-torch-compile back out", "put back the --x you removed", "go --x y"
        (
            r"\btake\s+(?:the\s+)?((?-i:[A-Z][A-Z0-9_]{2,})|--[a-z][\w-]*)\s+"
            r"(?:back\s+(?:off|out)(?:\s+again)?\b|(?:off|out)(?=\s*(?:[,.;!]|$)))",
            r"remove \1",
        ),
        (
            r"\bput\s+back\s+(?:the\s+)?(--[a-z][\w-]*)(?:\s+(?:that\s+)?(?:you|we)\s+(?:removed|dropped|took\s+out))?",
            r"use \1",
        ),
        (r"(?:^|(?<=[,;:]\s))go\s+(?=--[a-z])", "use "),
        # "no 8000 no 8080": a port named after "no", alone or in a row of them, is a port kept out
        (r"(?:^|(?<=[\s,;]))no\s+(\d{4,5})(?=\s*(?:[,.;]|$)|\s+no\s+\d{4,5}\b)", r"not \1;"),
        # "i never asked for --disable-cuda-graph, take it out": what was never wanted, taken out
        (
            r"\bi\s+(?:never|didn'?t|did\s+not)\s+ask(?:ed)?\s+for\s+(?:the\s+)?((?-i:[A-Z][A-Z0-9_]{2,})|--[a-z][\w-]*)"
            r"(?:[,;.]?\s*(?:so\s+)?(?:take|drop|remove|get\s+rid\s+of)\s+(?:it|that)(?:\s+out)?\b)?",
            r"remove \1",
        ),
    ]
)


def plain_words(text: str) -> str:
    """Everyday ways to say what the grammar says one way: "you must not bind X" is "never bind X",
    "go with every card except 7" is "use ...", "unset X in the launch env" is "unset X", "don't
    bring it back up till I say so" is the hold (a hold lasts until told), "fire it back up"."""
    text = re.sub(r"\b(?:(?:you|we)\s+)?must\s+(?:not|never)\b", "never", text, flags=re.I)
    text = re.sub(
        r"\b(?:(?:don'?t|do\s+not)\s+ever|never\s+ever)\b", "never", text, flags=re.I
    )  # "don't ever use gpu4"
    text = said_at_length.plain(text)  # "move it off 7", "..., specifically --x y", "and compare?"
    # "back to how it was": a value from earlier, not in the message, is no reading to make
    text = re.sub(
        r"\bback\s+(?:to\s+)?(?:how|what|the\s+way|where)\s+(?:it|they)\s+(?:was|were|used\s+to\s+be)\b",
        lambda m: f"{m.group(0)} {UNPLACED}",
        text,
        flags=re.I,
    )
    text = _passive_orders(text)
    # "its a deepseek ckpt so --trust-remote-code": the reason, then the flag; "clear NCCL_P2P_DISABLE out of the env"
    text = re.sub(r"(?<=\w)\s+so\s+(?=--[a-z])", "; ", text, flags=re.I)
    text = re.sub(r"\bclear\s+(?=[A-Z][A-Z0-9]*_[A-Z0-9_]+\b)", "unset ", text)
    text = re.sub(
        r"\s+(?:thing|thingy)(?=\s+to\s+\.?\d)", "", text, flags=re.I
    )  # "set the memory fraction thing to 0.8"
    # "get rid of that NCCL_X variable unset it": the variable named, then "unset it" said again (dictation)
    text = re.sub(
        r"\b(?:get\s+rid\s+of|remove|drop|unset)\s+(?:that|this|the)\s+(?=(?-i:[A-Z][A-Z0-9]*_[A-Z0-9_]+)\b)",
        "unset ",
        text,
        flags=re.I,
    )
    text = re.sub(
        r"(\bunset\s+(?-i:[A-Z][A-Z0-9]*_[A-Z0-9_]+))(?:\s+variable)?[\s,;]+(?:and\s+)?(?:unset|remove|drop)\s+it\b",
        r"\1",
        text,
        flags=re.I,
    )
    text = remedy_as_maybe(text)
    text = units.plain(text)  # "the static memory fraction to 85 percent", "32k tokens"
    for said, plain in _SAID_PLAINLY:
        text = said.sub(plain, text)
    # "deepseek-ai/DeepSeek-V2-Lite-Chat, needs --trust-remote-code, tp 2": a hub id said first, alone, is the model
    text = re.sub(r"^(?![^?]*\?)(?=[A-Za-z0-9][\w.-]*/[\w.-]+(?:\s*[,;]|\s+w(?:ith|/)\s))", "use ", text)
    # "gpu3: ECC uncorrectable. exclude.": GPUs named as a heading, their state, then the verb alone
    text = re.sub(
        r"^(?P<ids>gpus?\s*\d+(?:\s*(?:,|and|&|-)\s*\d+)*)\s*:\s*(?P<why>[^.;\n]+)[.;\n]\s*(?:pls\s+|please\s+)?"
        r"(?:exclude|avoid|drain|skip|blacklist|cordon|remove|don'?t\s+use|do\s+not\s+use|never\s+use)"
        r"(?:\s+(?:it|them|that|those|that\s+one))?\s*[.!]*$",
        r"don't use \g<ids>; \g<why>",
        text,
        flags=re.I,
    )
    # "use /data/models/x as model path": the model, named first
    text = re.sub(
        r"\buse\s+(?P<path>/[\w.@+/-]+|[a-z][\w.-]*/[\w.-]+)\s+as\s+(?:the\s+)?model(?:\s+path)?\b",
        r"use the model \g<path>",
        text,
        flags=re.I,
    )
    # a manager's words: "I'd rather we didn't use card 5", "graphics cards 6 and 7", "split the model
    # across four cards", "take X out of the environment", "cap it at 64 running requests at a time"
    text = re.sub(
        r"\b(?:i'?d|i\s+would)\s+(?:rather\s+|prefer\s+(?:that\s+)?)(?:we|you)\s+(?:didn'?t|did\s+not|not)\s+(?=use|touch)",
        "don't ",
        text,
        flags=re.I,
    )
    text = re.sub(r"\b(?:i'?d|i\s+would)\s+rather\s+(?:we|you)\s+kept\s+(?=away|clear|off)", "keep ", text, flags=re.I)
    text = re.sub(r"\bgraphics\s+(cards?)\b", r"\1", text, flags=re.I)
    # "shard the model 4 ways", "no radix no cuda graph": a layout in a researcher's words; two switches off
    text = re.sub(
        r"\bsh(?:ar|ra)d\s+(?:(?:the\s+model|it)\s+)?(\d|two|four|eight)\s+ways\b",
        lambda m: "tp " + {"two": "2", "four": "4", "eight": "8"}.get(m.group(1).lower(), m.group(1)),
        text,
        flags=re.I,
    )
    text = re.sub(r"(?<=\w)(?<!\band)\s+(?=no\s+(?:cuda|radix|torch)\b)", "; ", text, flags=re.I)
    text = re.sub(r"(?<=,\s)using\s+(?=(?:cards?|gpus?)\s+\d)", "use ", text, flags=re.I)
    text = re.sub(r"(?<=\d)\s+at\s+all\b", "", text, flags=re.I)
    text = re.sub(
        r"\bsplit\s+(?:the\s+model|it)\s+(?:across|over|between)\s+(?:the\s+)?(\d|two|four|eight)\s+(?:of\s+them|cards|gpus)\b",
        lambda m: "tp " + {"two": "2", "four": "4", "eight": "8"}.get(m.group(1).lower(), m.group(1)),
        text,
        flags=re.I,
    )
    text = re.sub(
        r"\btake\s+(?:the\s+)?([A-Z][A-Z0-9_]+)\s+(?:setting\s+|variable\s+)?out\s+of\s+(?:the\s+)?env(?:ironment)?\b",
        r"unset \1",
        text,
    )
    text = re.sub(
        r"\bcap\s+(?:it\s+)?at\s+(\d+)\s+(?:concurrent\s+|running\s+|simultaneous\s+)requests(?:\s+at\s+(?:a|one)\s+time)?",
        r"max running requests \1",
        text,
        flags=re.I,
    )
    # "keep gpu 3 out of everything from now on": a must-not for every launch
    text = re.sub(
        r"\bkeep\s+((?:gpus?|cards?|ports?)\s+\d+(?:\s*(?:,|and|&|-)\s*\d+)*)\s+out\s+of\s+(?:everything|all\s+(?:launches|runs)"
        r"|every\s+launch|the\s+launch(?:es)?)(?:\s+from\s+now\s+on)?",
        r"never use \1",
        text,
        flags=re.I,
    )
    # "relaunch on GPUs 1, 3 at tp 4", "restart using tp 2": the layout it runs with
    text = re.sub(r"(?<=\d)\s+at\s+(tp|dp)\s*(?=\d)", r" with \1 ", text, flags=re.I)
    text = re.sub(r"\b(restart|relaunch|bounce)\s+using\b", r"\1 with", text, flags=re.I)
    # "relaunch 4-7 tp4": a list of ids right after the verb is where it runs
    text = re.sub(r"\b(relaunch|restart|bounce|launch)\s+(?=\d{1,2}\s*[-,]\s*\d{1,2}\b)", r"\1 on ", text, flags=re.I)
    # "chunked prefill a 4096" (Italian, Spanish): a setting's name, then "at" its value
    text = re.sub(
        r"\b(prefill|size|fraction|frac|length|len|requests|bs|static)\s+a\s+(?=\d)", r"\1 at ", text, flags=re.I
    )
    text = re.sub(r"\b(tp|dp)\s+(?:stays|remains|stays\s+at|remains\s+at)\s+(\d+)\b", r"\1 \2", text, flags=re.I)
    # "go with every card except 7", "go with 30005"
    text = re.sub(
        r"\b(?:go\s+with|take)\s+(?=(?:every|all)\b|\d{4,5}\b(?!\s*(?:tok|ms|req)))", "use ", text, flags=re.I
    )
    text = re.sub(
        r"(?:^|(?<=[,;]\s))kv[-\s]?cache\s+(?:in|as|at)\s+(?=fp8|bf16|auto)", "kv cache dtype ", text, flags=re.I
    )  # "in fp8"
    text = re.sub(
        r"(?<=[A-Z0-9_])\s+(?:in|from)\s+(?:the\s+)?(?:launch(?:'s)?\s+|server(?:'s)?\s+)?env(?:iron?ment)?\b(?!\s+(?:block|file|section))",
        "",
        text,
    )
    text = re.sub(r"\s+(?:till|until|'?til)\s+(?:i|we)\s+say\s+(?:so|otherwise)\b", "", text, flags=re.I)
    text = re.sub(r"\s+over\s+to\b", " to", text, flags=re.I)  # "switch the backend over to triton"
    text = re.sub(
        r"\b(?:don'?t|do\s+not|never)\s+go\s+near\b", "don't touch", text, flags=re.I
    )  # "don't go near gpu 7"
    text = re.sub(r"\b(?:don'?t|do\s+not)\s+leave\s+((?-i:[A-Z][A-Z0-9_]{2,}))\s+set\b", r"unset \1", text, flags=re.I)
    text = polite.as_orders(model_terms.plain(text))  # "could we restrict this to GPUs 4-7?", "shard it 4 ways"
    # "could you please relaunch on gpus 2 and 3, on port 30005?": a request, however many clauses it has
    text = re.sub(
        r"(?:^|(?<=[.,;!]\s))(?:(?:is\s+it\s+ok(?:ay)?|would\s+it\s+be\s+ok(?:ay)?)\s+if\s+you|"
        r"(?:please\s+)?(?:could|can|would|will)\s+you(?:\s+please)?)\s+(?P<ask>[^?]+?),(?P<more>[^?]+)\?",
        r"\g<ask>,\g<more>.",
        text,
        flags=re.I,
    )
    text = re.sub(
        r"(?:^|(?<=[.,;!]\s))(?:is\s+it|would\s+it\s+be)\s+ok(?:ay)?\s+if\s+you\s+([^?]+)\?", r"\1.", text, flags=re.I
    )
    # "can you stop the server at all?", "can you actually use GPU 3?": a question of whether, no request
    text = re.sub(
        r"\b(?:can|could)\s+(?:you|we|it)\s+(?:actually|even|still|really|ever)\b[^?]*(?=\?)|"
        r"\b(?:can|could)\s+(?:you|we|it)\b[^?]*\b(?:at\s+all|anymore|any\s+more)(?=\s*\?)",
        lambda m: f"{m.group(0)} {UNPLACED}",
        text,
        flags=re.I,
    )
    # "add --quantization fp8. wait, also --trust-remote-code": a second thought that adds, no correction
    text = re.sub(r"(?<=[.;,!])\s*(?:wait|oh|oh\s+and|hmm+)[,!]?\s+(?=also\b)", " ", text, flags=re.I)
    # "32k context is plenty, but use 64k anyway": a setting judged enough, then turned: a concession, no reading
    text = re.sub(
        r"\b(?:is|'s|are)\s+(?:plenty|heaps|enough|fine|ok(?:ay)?|good|sufficient)(?=\s*,?\s+(?:but|though|however)\b[^.;]*\b(?:anyway|anyhow|regardless|instead|still)\b)",
        lambda m: f"{m.group(0)} {UNPLACED}",
        text,
        flags=re.I,
    )
    text = re.sub(r"\bkeep\s+(?:clear|away)\s+(?:of|from)\b", "stay off", text, flags=re.I)
    # an Australian's words: "chuck it on gpu 3", "give tp2 dp4 a burl"
    text = re.sub(r"\bchuck\s+(?=(?:it|the\s+server|sglang)\s+(?:on|onto)\b)", "put ", text, flags=re.I)
    text = re.sub(r"\bgive\s+(.+?)\s+a\s+(?:burl|go|whirl|crack|shot|try)\b", r"try \1", text, flags=re.I)
    text = re.sub(r"\b(?:don'?t|do\s+not)\s+let\s+(?:it|the\s+server|sglang)\s+use\b", "don't use", text, flags=re.I)
    text = re.sub(r"\b(?:it|the\s+model|the\s+server)(?:'ll|\s+will)\s+need\b", "it needs", text, flags=re.I)
    # "GPU 0 and 1 never, the training job is on them", "and the 30000 never again": the must-not said last (a
    # port's number alone is the port's)
    text = re.sub(
        r"(?:^|(?<=[,;.]\s))(?:(?P<named>(?:gpus?|cards?|ports?)\s+\d+(?:\s*(?:,|and|&|-)\s*\d+)*)|(?:and\s+)?(?:the\s+)?"
        r"(?P<port>\d{4,5}))\s+never\b(?:\s+again)?",
        lambda m: f"never use {m['named']}" if m["named"] else f"never use port {m['port']}",
        text,
        flags=re.I,
    )
    # "set NCCL_IB_DISABLE to 1 and NCCL_DEBUG to INFO": the "set" goes on to the second variable
    text = re.sub(
        r"(\bset\s+[A-Z][A-Z0-9_]{2,}\s+to\s+\S+?),?\s+(and\s+)?(?=[A-Z][A-Z0-9]*_[A-Z0-9_]+\s+to\s+\S)",
        r"\1 \2set ",
        text,
    )
    text = re.sub(r"\bhold\s+fire\s+on\b", "hold off on", text, flags=re.I)
    text = re.sub(r"\bgive\s+(?:it|the\s+server)\s+a\s+restart\b", "restart it", text, flags=re.I)
    text = re.sub(
        r"\blay\s+it\s+out\s+(?:as\s+)?(?=\d|tp|dp)", "", text, flags=re.I
    )  # "lay it out as 2 replicas of tp4"
    # "tp 4 on gpus 0-3, single replica": one copy of the model is DP 1
    text = re.sub(
        r"\b(?:tp|tensor[-\s]parallel(?:[-\s]size)?)\s*=?\s*(\d+)((?:\s+on\s+(?:the\s+)?gpus?\s+\d[\d,\s-]*?)?)\s*,?\s+"
        r"(?:with\s+)?(?:just\s+)?(?:a\s+)?(?:single|one|1)\s+(?:replica|copy|instance)\b(?:\s+of\s+it)?",
        r"tp \1 dp 1\2",
        text,
        flags=re.I,
    )
    text = re.sub(r"\bput\s+(--[a-z0-9-]+(?:\s+[^\s-]\S*)?)\s+in(?:\s+instead)?\b", r"add \1", text, flags=re.I)
    text = re.sub(r"\bon\s+cuda\s+(?=\d)", "on GPUs ", text, flags=re.I)  # "on cuda 4-7": the devices
    text = re.sub(r"(?:^|(?<=[,;]\s))on\s+(?=(?:the\s+)?gpus?\s*\d)", "use ", text, flags=re.I)  # "tp4, on GPUs 4-7"
    # a platform engineer's words: "cordon gpu 3", "taint 3 and 5", "svc port 8080", "redeploy", "scale to 0"
    text = re.sub(r"\b(?:cordon|cordn|taint|drain)\s+(?=(?:gpus?\s*|cards?\s*)?\d)", "avoid ", text, flags=re.I)
    text = re.sub(r"\b(?:svc|service)\s+port\b", "port", text, flags=re.I)
    text = re.sub(r"\bre-?deploy\b", "relaunch", text, flags=re.I)
    text = re.sub(
        r"\bscale\s+(?:it\s+|the\s+(?:server|deployment)\s+|sglang\s+)?(?:down\s+)?to\s+(?:0|zero)\b",
        "stop the server",
        text,
        flags=re.I,
    )
    # "please refrain from using GPU 3", "refrain from binding to ports 30000 or 8000": a must-not, formally
    text = re.sub(
        r"\brefrain\s+from\s+(?:using|binding\s+to|touching|launching\s+on|scheduling\s+on|running\s+on|passing|setting|enabling)?"
        r"\s*(?:both\s+(?=\S+\s+and\s))?",
        "don't use ",
        text,
        flags=re.I,
    )
    text = re.sub(
        r"\bport\s+(?:is|should\s+be|will\s+be|=)\s+(?=\d{4,5}\b)", "port ", text, flags=re.I
    )  # "port is 30001"
    text = re.sub(r"\b((?:never|don'?t|do\s+not)\s+touch)\s+(?=\d{4,5}\b)", r"\1 port ", text, flags=re.I)
    text = re.sub(
        r"(?:^|(?<=[,;]\s))no\s+(?=(?:ports?|gpus?)\s+\d)", "avoid ", text, flags=re.I
    )  # "no ports 30000-30002"
    # a terse operator's "gpu3 no", "gpu 0-3 avoid please", "kv cache dtype fp8 to be used", "p 30001", "no radix"
    text = re.sub(
        r"(?:^|(?<=[,;.]\s))((?:gpus?|cards?|ports?)\s*\d+(?:\s*(?:,|-|and)\s*\d+)*)\s+(?:no|avoid|not)\b(?:\s+please)?(?=\s*(?:[,;.]|$))",
        r"avoid \1",
        text,
        flags=re.I,
    )
    text = re.sub(r"(?:^|(?<=[,;.]\s))([^,;.]+?)\s+(?:is\s+|are\s+)?to\s+be\s+used\b", r"use \1", text, flags=re.I)
    text = re.sub(r"(?:^|(?<=[\s,;]))p\s+(?=\d{4,5}\b)", "port ", text)
    text = re.sub(r"\bno\s+radix(?:\s+cache)?\b", "disable radix cache", text, flags=re.I)
    text = re.sub(r"\bstop\s+sglang\b", "stop the server", text, flags=re.I)
    text = re.sub(
        r"(?<=\w)\s+(?=no\s+re-?launch(?:es|ing)?\b)", "; ", text, flags=re.I
    )  # "stop the server no relaunch"
    # a YAML env block's "NCCL_DEBUG: INFO", 'NCCL_P2P_DISABLE: "1"': the variable and its value
    text = re.sub(r"(?<![\w-])([A-Z][A-Z0-9]*_[A-Z0-9_]+)\s*:\s*[\"']?([\w.:/-]+)[\"']?", r"\1=\2", text)
    # "avoid ports 30000 30001 and 30002": ports listed with spaces
    text = re.sub(r"(?<=\bports\s)(\d{4,5})\s+(?=\d{4,5}\b)", r"\1, ", text, flags=re.I)
    text = re.sub(r"(?<=\bavoid\s)(\d{4,5})\s+(?=\d{4,5}\b)", r"\1, ", text, flags=re.I)
    text = re.sub(r"(?<=\d{4},\s)(\d{4,5})\s+(?=\d{4,5}\b)", r"\1, ", text)
    text = re.sub(r"(?<![\w-])trust[-\s]remote[-\s]code\s+flag\b", "--trust-remote-code", text, flags=re.I)
    text = re.sub(r"\bspread\s+it\s+over\s+(?=everything|all)", "use ", text, flags=re.I)
    # "put it on 0, 2, 4 and 6": two or more bare ids a launch goes on are GPUs (a port is one number)
    text = re.sub(
        r"\b(?:put|run|launch|serve)\s+it\s+on\s+(\d{1,2}(?:\s*,\s*\d{1,2})*\s*(?:,|and)\s*\d{1,2})\b",
        r"use GPUs \1",
        text,
        flags=re.I,
    )
    # "never put a rank on cuda device 5": a GPU no process of the launch may use
    text = re.sub(
        r"\b(?:put|place|schedule|run)\s+(?:a\s+|any\s+)?(?:ranks?|process(?:es)?|workers?)\s+on\s+",
        "use ",
        text,
        flags=re.I,
    )
    text = re.sub(r"\bcuda\s+device\s+(?=\d)", "GPU ", text, flags=re.I)
    text = re.sub(
        r"\buse\s+just\s+(?=(?:the\s+)?(?:gpus?|cards?)\s+\d)", "use only ", text, flags=re.I
    )  # "use just GPU 1"
    # "stay the hell away from 30000", "just fucking restart it": an oath adds no instruction
    text = re.sub(
        r"\s+the\s+(?:hell|heck|fuck)\b|\b(?:fucking|freaking|frigging|bloody)\s+(?=[a-z])", "", text, flags=re.I
    )
    # "unset X before you launch": when is every launch, which the rule already is
    text = re.sub(r"\s+before\s+(?:you\s+)?(?:re)?launch(?:ing)?(?:\s+again)?(?=[\s.!]*$)", "", text, flags=re.I)
    text = re.sub(
        r"\bbind(?:\s+(?:it|the\s+server|sglang))?\s+to\s+(?=(?:the\s+)?(?:gpus?|cards?|devices?)\s+\d)",
        "use ",
        text,
        flags=re.I,
    )
    text = re.sub(r"\bmodel\s+(?:under|in|from)\s+(?=/)", "model at ", text, flags=re.I)  # "the model under /models/x"
    text = re.sub(r"\blet'?s\s+not\s+(?=use|touch|pass|set)", "don't ", text, flags=re.I)  # "let's not use it"
    # "tp 4 dp 2 not tp 8", "0-3 not 4-7": what is wanted, then what it replaces
    text = re.sub(
        r"(?:^|(?<=[,;:]\s))(tp\s*\d+(?:\s*dp\s*\d+)?)\s+not\s+tp\s*\d+(?:\s*dp\s*\d+)?$", r"\1", text, flags=re.I
    )
    text = re.sub(r"(?:^|(?<=[,;:]\s))(\d(?:\s*-\s*\d)?)\s+not\s+\d(?:\s*-\s*\d)?$", r"\1", text)
    # "trust remote code" said bare, "keep it at tp8": the setting itself
    text = re.sub(r"^(?:also\s+)?trust\s+remote\s+code$", "use --trust-remote-code", text, flags=re.I)
    text = re.sub(r"\bkeep\s+(?:it\s+)?(?:at|on)\s+(?=tp\s*\d)", "", text, flags=re.I)
    # "go to --mem-fraction-static 0.8", "launch only on GPUs 4-7": the setting to use
    text = re.sub(r"\bgo\s+to\s+(?=--[a-z]|tp\s*\d|port\s+\d)", "use ", text, flags=re.I)
    text = re.sub(r"\b(?:re)?launch\s+only\s+on\s+(?=(?:the\s+)?(?:gpus?|cards?)\s+\d)", "use only ", text, flags=re.I)
    # "set the model to /data/x", "switch model to /x": the model to serve
    text = re.sub(
        r"\b(?:set|change|switch|swap)\s+(?:the\s+)?model\s+(?:to|for)\s+(?=/)", "use model ", text, flags=re.I
    )
    # "use the small one for testing, meta-llama/Llama-3.1-8B-Instruct": the model described, then named
    text = re.sub(
        r"\b(?:use|go\s+back\s+to|switch\s+to)\s+the\s+(?:small|smaller|little|tiny|big|bigger|other)\s+one"
        r"(?:\s+for\s+(?:testing|now|a\s+test))?\s*[,:]\s*(?=/\w|[\w.-]+/[\w.-]+\s*$)",
        "use the model ",
        text,
        flags=re.I,
    )
    # "needs --trust-remote-code btw", "trust remote code is needed for this model": a setting the launch must have
    text = re.sub(
        r"(?:^|(?<=[,;.]\s))(?:for\s+(?:this|the)\s+model,?\s+)?(?:(?:it|this\s+model|the\s+model|this\s+one|you)\s+)?"
        r"needs?\s+(?=--[a-z]|trust\s+remote)",
        "add ",
        text,
        flags=re.I,
    )  # "für das Modell brauchst du --trust-remote-code": "you need" it for the model
    text = re.sub(r"^(add\s+--[a-z][a-z0-9-]*)\s+for\s+(?:this|the)\s+model$", r"\1", text, flags=re.I)
    text = re.sub(
        r"(?:^|(?<=[,;.]\s))(--[a-z][a-z0-9-]*|trust\s+remote\s+code)\s+is\s+(?:needed|required|a\s+must)"
        r"(?:\s+(?:for|with|on)\s+(?:this|the)\s+(?:model|arch(?:itecture)?|checkpoint|one))?",
        r"add \1",
        text,
        flags=re.I,
    )
    text = re.sub(r"\bbringing\s+(?:anything|it|the\s+server)\s+back(?:\s+up)?\b", "relaunching", text, flags=re.I)
    text = re.sub(
        r"\bdon'?t\s+bring\s+(?:it|the\s+server|anything)\s+back(?:\s+up)?\b", "don't relaunch", text, flags=re.I
    )
    return re.sub(r"\bfire\s+(?:it|the\s+server)\s+back\s+up\b", "bring it back up", text, flags=re.I)


_ID_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
# "two through five": never "to", which says how many as often as which ("from two to four GPUs")
_WORD_RANGE = re.compile(
    r"\b(zero|one|two|three|four|five|six|seven)\s+(through|thru)\s+(zero|one|two|three|four|five|six|seven)\b", re.I
)


_NEGATED_OR = re.compile(r"(\d)\s+(?:or|nor)\s+(?=(?:gpus?\s+|ports?\s+)?\d)", re.I)


def negated_or(clause: str) -> str:
    """ "never touch 0 or 3": after a "not", "or" leaves out both."""
    return _NEGATED_OR.sub(r"\1 and ", clause) if NEGATED_LIST.match(clause) else clause


# "gpus 0 to 3 are off limits", "gpus zero to three": after the word GPUs, "N to M" lists ids (never "from
# two to four GPUs", the count said after)
_ID = r"\d{1,2}|" + "|".join(_ID_WORDS)
_GPUS_TO = re.compile(rf"\b(gpus|cards|devices)\s+({_ID})\s+to\s+({_ID})\b(?!\s*(?:gpus?|cards?|%|x\b))", re.I)


def _id(word: str) -> int:
    return int(word) if word.isdigit() else _ID_WORDS[word.lower()]


def word_ranges(text: str) -> str:
    text = _WORD_RANGE.sub(_word_range, text)
    return _GPUS_TO.sub(
        lambda m: (
            f"{m.group(1)} {_id(m.group(2))}-{_id(m.group(3))}" if _id(m.group(2)) < _id(m.group(3)) else m.group(0)
        ),
        text,
    )


def _word_range(match: re.Match[str]) -> str:
    """ "two through five" -> "2 through 5": GPU ids said in words."""
    return f"{_ID_WORDS[match.group(1).lower()]} {match.group(2)} {_ID_WORDS[match.group(3).lower()]}"


_IDS = r"\d{1,2}(?:\s*(?:,|-|\band\b|&)\s*\d{1,2})*"
_MINUS = re.compile(
    rf"(?:\b(?P<verb>(?:only\s+)?use(?:\s+only)?|(?:run|launch|serve)(?:\s+it)?\s+on|on)\s+|^)(?:the\s+)?(?P<gpus>gpus?\s+|cards?\s+)?(?P<all>{_IDS})"
    r"\s*,?\s+(?:but\s+not|except(?:\s+for)?|minus|excluding|other\s+than|apart\s+from|save\s+for|without)\s+"
    rf"(?:gpus?\s+|cards?\s+)?(?P<out>{_IDS})\b(?!\s*(?:-|,\s*\d|\band\b\s*\d))",
    re.I,
)
# "use all eight except the last two": "all" says the count again
_ALL_COUNTED = re.compile(r"\ball\s+(?:\d|eight|four|sixteen)\s+(?:(?:gpus|cards)\s+)?(?=(?:but|except)\b)", re.I)


def gpu_ids(text: str) -> list[int]:
    """'0-3' -> [0,1,2,3]; '0,1, 2 and 5' -> [0,1,2,5]."""
    ids: list[int] = []
    for part in re.split(r"\s*(?:,|and|&)\s*", text.strip()):
        span = re.match(r"^(\d+)\s*(?:-|to|\.\.)\s*(\d+)$", part)
        if span:
            ids.extend(range(int(span.group(1)), int(span.group(2)) + 1))
        elif part.isdigit():
            ids.append(int(part))
    return sorted(set(ids))


def _minus(match: re.Match[str]) -> str:
    every, out = gpu_ids(match.group("all")), gpu_ids(match.group("out"))
    if not set(out) <= set(every) or set(out) == set(every):
        return match.group(0)  # "use 4-7 except 2": not a set taken from that list; not a guess to make
    left = ", ".join(str(g) for g in every if g not in out)
    if match.group("verb") is None:  # "0-7 but not 4": bare ids, asked back as bare ids are; "gpus 0-7 minus 5"
        return f"GPUs {left}" if match.group("gpus") else left
    return f"{match.group('verb')} GPUs {left}"


# "any gpu you like except 0, 1 or 2", "nothing on 0 or 7": the GPUs kept out, whatever else is used
_ANY_BUT = re.compile(
    r"\b(?:(?:use|take|pick)\s+)?(?:any|every|all)\s+(?:of\s+the\s+)?(?:gpus?|cards?)(?:\s+you\s+(?:like|want|need|choose))?"
    r"\s*,?\s+(?:except(?:\s+for)?|but(?:\s+not)?|other\s+than|apart\s+from|save\s+for|excluding)\s+(?:gpus?\s+|cards?\s+)?"
    r"(?P<ids>\d{1,2}(?:\s*(?:,|\bor\b|\band\b|&)\s*\d{1,2})*)\b(?!\s*-)(?:\s+(?:is|are)\s+(?:fine|ok(?:ay)?|good))?(?=\s*(?:[,.;!?)]|$))"
    r"|\bnothing\s+on\s+(?:(?:gpus?|cards?)\s+(?P<named>\d{1,2}(?:\s*(?:,|\bor\b|\band\b|&)\s*\d{1,2})*)|"
    r"(?P<bare>\d{1,2}(?:\s*(?:,|\bor\b|\band\b|&)\s*\d{1,2})+))\b(?!\s*-)",
    re.I,
)


def _kept_out(match: re.Match[str]) -> str:
    said = match.group("ids") or match.group("named") or match.group("bare")
    ids = re.sub(r"\s*(?:,|\bor\b|\band\b|&)\s*", ", ", said)
    return f"don't use GPUs {ids}"


def gpu_exceptions(text: str) -> str:
    """ "use 4,5,6,7 but not 5" -> "use GPUs 4, 6, 7"; "use all eight except the last two" -> "use all
    except the last two" (read against the host's GPUs, and asked back)."""
    return _MINUS.sub(_minus, _ANY_BUT.sub(_kept_out, _ALL_COUNTED.sub("all ", text)))


_FRACTION_SAID = re.compile(
    r"\bfrac(?:tion)?\b|--mem-fraction-static|\bmem(?:ory)?[\s_-]?frac|\butili[sz]ation\b|\butil\b", re.I
)


def decimal_commas(text: str) -> str:
    """ "mem fraction 0,85": a decimal comma, as much of Europe writes it, in a message about a fraction
    (never "gpus 0,12", which lists two GPUs)."""
    if not _FRACTION_SAID.search(text):
        return text
    return re.sub(r"(?<![\d.,])0,(\d{1,3})(?!\d|,\d)", r"0.\1", text)
