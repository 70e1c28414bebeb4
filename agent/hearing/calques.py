"""Constructions a writer carries into English from another language, said the grammar's way before an
instruction is read: the subject after the verb ("use you the gpu 4, 5"), a double negative ("don't use
never the gpu 6"), "neither" for "nor", an article before a bare id ("6 and the 7"), a range said "from 0
to 3", a layout said in words ("tensor parallel on 8 gpu", "without data parallel"), a model "from the
hub", and a setting named before its verb ("the attention backend put it on flashinfer")."""

from __future__ import annotations

import re

from agent.hearing import word_table

# the settings a writer names first and then sets with "put it on", "set it to"
_SETTING_NAMES = (
    r"attention\s+backend|kv[\s-]cache\s+(?:dtype|type)|mem(?:ory)?\s+fraction(?:\s+static)?|mem\s+frac|"
    r"context\s+length|chunked\s+prefill(?:\s+size)?|schedule\s+policy|quantization|max\s+running\s+requests"
)

_FORMS = word_table.compiled(
    [
        # "use you the gpu 4", "move you on the port 31000", "make you tensor parallel on 8 gpu"
        (r"^((?:please\s+)?(?:use|make|move|put|set|run|stop|restart|launch|take|serve))\s+you\s+(?=\w)", r"\1 "),
        (r"\b(?:don'?t|do\s+not)\s+(use|touch|pass|run\s+on)\s+(?:never|ever)\b", r"never \1"),
        (r"(?<=\d)\s+neither\s+(?:the\s+)?(?=\d)", " or "),  # "port 30000 neither the 30002"
        (r"(?<=\d)(\s+(?:and|or|nor)\s+)the\s+(?=\d{1,2}\b(?![\w-]))", r"\1"),  # "gpu 6 and the 7"
        (r"\b(gpus?|cards?|ports?)\s+from\s+(\d+)\s+to\s+(\d+)\b", r"\1 \2-\3"),
        (r"\btensor[\s-]parallel(?:ism)?\s+(?:on|across|over)\s+(\d)\s+(?:gpus?|cards?)\b", r"tp \1"),
        (r"\btensor[\s-]parallel(?:ism)?\s+(?=\d)", "tp "),  # "keep it at tensor parallel 4"
        (r"\b(?:without|no)\s+data[\s-]parallel(?:ism)?\b", "no dp"),
        (r"(?<=[\w.-]/[\w.-])([\w.-]*)\s+from\s+(?:the\s+)?(?:hub|hf|hugging\s*face)\b", r"\1"),
        # "make pull of Qwen/X and use this one" (Portuguese "fazer pull"): the model pulled is the one to use
        (r"\bmake\s+(?:a\s+)?pull\s+of\s+([\w.-]+/[\w.-]+)\s+and\s+use\s+(?:this|that|it)(?:\s+one)?\b", r"use \1"),
        (r"\bprefill\s+chunk(?:\s+size)?\b", "chunked prefill"),  # "4096 prefill chunk"
        (r"^(\d+k?)\s+(chunked\s+prefill|ctx|context(?:\s+length)?)(?=[\s.!,]*$)", r"\2 \1"),
        (r"\s+to\s+match[,:]?\s+(?=\d)", " "),  # "cuda graph max bs to match, 512"
        (r"\bbounce\s+(it|the\s+server)\s+(?=on\b|onto\b|to\s+port\b)", r"restart \1 "),
        (r"\b(?:our|my)\s+(?=server\b|sglang\b)", "the "),
        (r"\bthe\s+service\b", "the server"),  # "stop our server", "bounce the service"
        (r"\bwipe\s+(?=[A-Z][A-Z0-9_]{2,}\b)", "unset "),  # "wipe NCCL_DEBUG from the env"
        (r"\breset\s+(?=the\s+[a-z]+(?:\s+[a-z]+)?\s+to\s)", "set "),  # "reset the layout to tp 4 dp 2"
        (r"\btake\s+it\s+down\s+to\s+(?=gpus?\b)", "use "),  # "take it down to gpus 4-7 only"
        (r"\bonto\s+(?:port\s+)?(?=\d{4,5}\b)", "on port "),  # "bounce it onto 30005"
        (r"\bmove\s+on\s+(?:the\s+)?(?=port\s+\d)", "move to "),
        (rf"^(?:the\s+)?({_SETTING_NAMES})\s+(?:put|set|make|turn)\s+(?:it|that)\s+(?:on|to|at|in)\s+", r"set \1 to "),
    ],
    flags=re.I | re.M,
)  # fmt: skip


def plain(text: str) -> str:
    """`text` with a carried-over construction said the grammar's way; the rest as it was."""
    return word_table.rewritten(text, _FORMS)
