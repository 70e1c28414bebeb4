"""Settings written as a mathematician or a programmer writes them, put in the grammar's words before they
are read: "gpus := 0..3", "gpus \\ {3}", "tp ← 4 ∧ dp ← 2", "¬torch_compile", "port ∈ {30002}",
"NCCL_P2P_DISABLE ↦ 1", "relaunch()", "unset(NCCL_DEBUG)". A range or a choice ("mem_frac ∈ [0.8, 0.9]",
"tp = 4 ∨ tp = 8", "port ∈ {30001, 30002}") is left as it is: never one value, so never read as one."""

from __future__ import annotations

import re

from agent.hearing import word_table

_IDS = r"\{\s*(?P<ids>\d{1,2}(?:\s*,\s*\d{1,2})*)\s*\}"
_NOTATION: list[tuple[str, word_table.Replacement]] = [
    (r"\b(?:at\s+)?t\s*\+\s*(\d+)\s*(min(?:ute)?s?|h(?:ou)?rs?|h|m)\b", r"in \1 \2"),  # "at t + 10 min": a wait
    (r"\s*(?:←|:=|≔|↦|⟵|<-)\s*", "="),  # assignment, however written
    (r"\b(port|tp|dp)\s*=+\s*(?=\d)", r"\1 "),  # "port = 30001 ∧ port = 30002": two ports, as said
    (r"\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)=⊥", r"unset \1"),  # "NCCL_P2P_DISABLE ↦ ⊥": the variable gone
    (r"\benv\s*∪=\s*\{([^}]*)\}", r"\1"), (r"\{([A-Z][A-Z0-9]*_[A-Z0-9_]+=[^}]*)\}", r"\1"),
    # sets of GPU ids: taken away, kept apart, or the ones used
    (rf"\bgpus\s*(?:\\|∖|−|-)\s*{_IDS}", r"avoid GPUs \g<ids>"),
    (rf"\bgpus\s*∩\s*{_IDS}\s*=\s*(?:∅|\{{\s*\}})", r"avoid GPUs \g<ids>"),
    (rf"\bgpus\s*(?:=|⊆)\s*{_IDS}", r"use GPUs \g<ids>"),
    (r"\bgpus\s*=\s*(\d{1,2})\s*\.\.\s*(\d{1,2})\b", r"use GPUs \1-\2"),
    (r"\bports?\s+to\s+avoid\s*=\s*\{\s*(\d{4,5}(?:\s*,\s*\d{4,5})*)\s*\}", r"avoid ports \1"),
    (r"\b(port|tp|dp)\s*∈\s*\{\s*(\d+)\s*\}", r"\1 \2"),  # a set of one: that value
    (r"\bmodel\s*=\s*(?=\S*/)", "use "),
    (r"\b(cuda_graph|radix_cache)\s*=\s*(?:off|false|0|no)\b", r"disable \1"),
    (r"\b(cuda_graph|radix_cache|torch_compile)\s*=\s*(?:on|true|1|yes)\b", r"enable \1"),
    (r"\btorch_compile\s*=\s*(?:off|false|0|no)\b", "no torch compile"),
    (r"¬\s*(?=[a-z_]+\b)", "no "), (r"¬", "no"),
    (r"\s*∧\s*", " and "), (r"\s*∨\s*", " or "), (r"\s*≡\s*", " is "),
    # calls: "relaunch()", "stop_server()", "server.stop()", "measure()", "unset(NCCL_DEBUG)"
    (r"\b(?:server\.stop|stop_server|stop)\(\s*\)", "stop the server"),
    (r"\b(?:server\.)?(?:re)?launch\(\s*\)", "relaunch"),
    (r"\b(?:measure|bench(?:mark)?|server\.bench(?:mark)?)\(\s*\)", "measure again"),
    (r"\bunset\(\s*([A-Z][A-Z0-9_]+)\s*\)", r"unset \1"),
    (r"\b(cuda|radix|torch)_(graphs?|cache|compile)\b", r"\1 \2"),
]  # fmt: skip
_WORDS = word_table.compiled(_NOTATION)
_MARK = re.compile(
    r"[←≔↦⟵¬∧∨∈∩∖≡⊥⊆∪]|:=|\bt\s*\+\s*\d|\b\w+(?:\.\w+)?\(\s*[A-Z_]*\s*\)|\bgpus\s*(?:\\|=)\s*[{\d]", re.I
)


def plain(text: str) -> str:
    """`text` with its notation put in the grammar's words; any other message as it was."""
    return word_table.in_english_when(text, _MARK, _WORDS)
