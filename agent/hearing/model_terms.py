"""An ML researcher's words for a launch's settings, in model terms rather than SGLang's, before the grammar
reads them: "shard it 4 ways" and "split across four cards" (TP), "two copies of the model, each split over
4 cards" (TP 4, DP 2), "skip the graph capture", "quantize the weights to fp8", "chunk the prefill at 4096
tokens", "cap cuda graph capture at batch 64", "give it a mem fraction of 0.7". Only words that name the
value are read; "make the KV cache smaller" names none and stays unread."""

from __future__ import annotations

from agent.hearing import word_table

_COUNT = {"two": "2", "four": "4", "eight": "8", "2": "2", "4": "4", "8": "8", "one": "1", "1": "1"}
_N = r"(two|four|eight|one|[1248])"
_CARDS = r"(?:cards?|gpus?|devices?)"

_WORDS = word_table.compiled(
    [
        # "two copies of the model, each one split over 4 cards", "two replicas, each sharded over 2 GPUs"
        (
            rf"\b{_N}\s+(?:copies|replicas)(?:\s+of\s+the\s+model)?(?:\s+please)?,?\s+each(?:\s+one)?\s+"
            rf"(?:split|sharded|spread)\s+(?:over|across|on)\s+{_N}\s+{_CARDS}",
            lambda m: f"tp {_COUNT[m.group(2).lower()]} dp {_COUNT[m.group(1).lower()]}",
        ),
        (  # "two replicas" already read as "dp 2" by an earlier form
            rf"\bdp\s+(\d),?\s+each(?:\s+one)?\s+(?:split|sharded|spread)\s+(?:over|across|on)\s+{_N}\s+{_CARDS}",
            lambda m: f"tp {_COUNT[m.group(2).lower()]} dp {m.group(1)}",
        ),
        (
            rf"^(?:shard|split)\s+(?:it\s+)?(?:{_N}\s+ways|(?:across|over)\s+{_N}\s+{_CARDS})",
            lambda m: f"tp {_COUNT[(m.group(1) or m.group(2)).lower()]}",
        ),
        (r"\bskip\s+(?:the\s+)?(?:cuda\s+)?graph\s+capture\b", "disable cuda graph"),
        (r"\bcap\s+(?:the\s+)?cuda\s+graph\s+capture\s+at\s+(?:batch(?:\s+size)?\s+)?(?=\d)", "cuda graph max bs "),
        (r"\bquantize\s+the\s+weights\s+to\s+(?=fp8\b|awq\b|gptq\b|int8\b)", "quantization "),
        (r"\bchunk\s+the\s+prefill\s+at\s+(\d+)(?:\s+tokens)?\b", r"chunked prefill \1"),
        (r"^give\s+it\s+(?:a\s+)?(?=mem(?:ory)?\s+frac)", "set "),
    ]
)


def plain(text: str) -> str:
    """`text` with a researcher's model terms put as the grammar's; any other message as it was."""
    return word_table.rewritten(text, _WORDS)
