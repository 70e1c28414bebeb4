"""What a phone keyboard's autocorrect makes of an operator's words, put back before they are read:
curly quotes ("Don’t", “INFO”), a flag's "--" joined into an em dash ("—mem-fraction-static"), and the
field's words turned into dictionary ones, each only where the word it replaced is plain from what
follows ("tip 4" is TP 4, "dip 2" DP 2, "Cuba graph" CUDA graph, "KB cache" the KV cache, "the slang
server" SGLang's, "Nickel_DEBUG" NCCL_DEBUG). Alone ("the KB thing", "slang dip tip") they stay as typed, and unread."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from agent.hearing import star_fix

_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"'})
_REPLACED: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (re.compile(r"(?<![\w-])—(?=[a-z][a-z0-9]*(?:-[a-z0-9]+)*\b)", re.I), "--"),  # "—mem-fraction-static"
    (re.compile(r'"(?P<value>[^"\s]+)"'), r"\g<value>"),  # a value in quotes: “INFO”, "/models/x"
    # a dtype typed in capitals ("FP8"), never inside a model's name ("...-Instruct-FP8")
    (re.compile(r"(?<![\w/.-])(?:FP8|BF16|FP16|INT8|INT4)(?:_E[45]M[23])?(?![\w/.-])"), lambda m: m.group(0).lower()),
    (re.compile(r"\bt[ia]p\s*(?=\d)", re.I), "tp "),  # "tip 4", "Tap 8"
    # "top 8" (never "top 4 gpus"), "Pert 30010", "gout 3", "flash infer", "radiz cache", "meme fraction"
    (re.compile(r"\btop\s*(?=\d\b(?!\s*(?:gpus?|cards?|devices?)\b))", re.I), "tp "),
    (re.compile(r"\b(?:pert|part|prot|pory|porr)\s*(?=\d{4,5}\b)", re.I), "port "),
    (re.compile(r"\b(?:gout|gulp|gpi|gpy)\s*(?=\d\b)", re.I), "gpu "),
    (re.compile(r"\b(?:gouts|gulps|gpis)\s*(?=\d)", re.I), "gpus "),
    (re.compile(r"\bflash\s+in(?:f|t)er\b", re.I), "flashinfer"),
    (re.compile(r"\bradiz(?=\s+cache\b)", re.I), "radix"),
    (re.compile(r"\bmeme?\s+(?=fraction\b)", re.I), "mem "),
    (re.compile(r"\bdip\s*(?=\d)", re.I), "dp "),
    (re.compile(r"(?<=\d)dip(?=\d)", re.I), " dp "),  # "Tip2dip4"
    (re.compile(r"\bdip\s+(?=attention\b)", re.I), "dp "),
    (re.compile(r"\bcuba(?=\s+graphs?\b|_[A-Z])", re.I), "cuda"),
    (re.compile(r"\bkb\s+(?=cache\b)", re.I), "kv "),
    (re.compile(r"(?<=cuda\s)graf(?=s?\b)", re.I), "graph"),  # "cuda graf": the word as it sounds
    (re.compile(r"\bfo8(?=_e[45]m[23]\b|\b)", re.I), "fp8"),
    (re.compile(r"\b(?:slang|sign\s+lang)(?=\s+server\b)", re.I), "sglang"),  # "the sign lang server"
    (re.compile(r"\bnickel_(?=[A-Z])", re.I), "NCCL_"),  # "Nickel_P2P_DISABLE": NCCL as the keyboard knows it
    (re.compile(r"(?<=\bgpu\s)sex\b", re.I), "six"),  # "GPU sex": the number, after the word GPU only
    (re.compile(r"\bgpuu+(?=\s*\d)", re.I), "gpu"),
    (re.compile(r"\bGPS(?=\s*\d)"), "GPUs"),  # "Run on GPS 4-7": a phone's word for GPUs before their ids
    (re.compile(r"\blenght\b", re.I), "length"),
    (re.compile(r"\bteh\b", re.I), "the"),
    (re.compile(r"\btonite\b", re.I), "tonight"),
    (re.compile(r"\bonlyuse\b", re.I), "only use"),
    (re.compile(r"^goo\s+for\s+it\b", re.I), "go for it"),
    (re.compile(r"\bres+t+art\b", re.I), "restart"),  # "Resttart"
    # a phone's slips where the next words make the word plain: "turn of cuda graphs", "move it tp port 30005",
    # "to 4 dp 2", "sign it of", "insted", "go w numbr 2", "secnd one", "noo"
    (re.compile(r"\bturn\s+of(?=\s+(?:the\s+)?(?:cuda|radix|torch|custom|prefix|dp\s+attention)\b)", re.I), "turn off"),
    (re.compile(r"\btp\s+(?=(?:port|gpus?)\b)", re.I), "to "),
    (re.compile(r"\bto\s*(?=\d\s*,?\s*dp\s*\d)", re.I), "tp "),
    (
        re.compile(
            r"\bsign\s+((?:it|this|the\s+run)\s+)?of\b(?=\s*(?:$|[,.!]|nice|thanks|thx|pls|please|now|good|great))",
            re.I,
        ),
        r"sign \1off",
    ),
    (re.compile(r"\binsted\b|\binstaed\b|\binstad\b", re.I), "instead"),
    (re.compile(r"\bnumbr\b|\bnumbe\b|\bnuber\b", re.I), "number"),
    (re.compile(r"\bsecnd\b|\bseond\b|\bsecound\b", re.I), "second"),
    (re.compile(r"\bwrk\b", re.I), "work"),
    (re.compile(r"^noo+(?=[\s.!]*$)", re.I), "no"),
    (
        # "Nccl_DEBUG"; of CUDA's, only the variables a launch sets: "cuda_graph: off" names a feature
        re.compile(
            r"(?<![=/.:~-])\b(?:(?:nccl|sglang|hf|pytorch)_[A-Za-z0-9_]+|"
            r"cuda_(?:visible_devices|launch_blocking|device_max_connections|module_loading|home))\b",
            re.I,
        ),
        lambda m: m.group(0).upper(),
    ),
]


def _is_json(text: str) -> bool:
    body = re.sub(r"^\s*(?:json)?\s*\n", "", text.strip().strip("`"), flags=re.I)
    try:
        return isinstance(json.loads(body), dict)
    except ValueError:
        return False


def corrected(text: str) -> str:
    """`text` with what autocorrect did to it undone, where the field's word is plain."""
    text = star_fix.er_applied(star_fix.applied(text.translate(_QUOTES)))  # "dont use guy 3\n*gpu"
    if _is_json(text):
        return text  # a pasted JSON object's quotes are its syntax (agent.hearing.pasted_blocks.json_block)
    for pattern, word in _REPLACED:
        text = pattern.sub(word, text)
    return text
