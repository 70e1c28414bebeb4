"""The operator's questions to the agent ("why did it OOM?", "what's using GPU 3?", "what did you
try?"), answered from the run's evidence, the report of the waiting question (its failure class
and lines, what holds a GPU, the attempts), while the run waits on: a question asked is no reply."""

from __future__ import annotations

import re

from agent.state import Question

_ASKS = re.compile(
    r"^(?:why|what|what'?s|which|who|how|where|when|is|are|was|were|did|does|do|has|have|can\s+you\s+(?:tell|show|explain)|"
    r"could\s+you\s+(?:tell|show|explain))\b.*\?\s*$",
    re.I,
)
_STOP = frozenset(
    {
        "why", "what", "whats", "what's", "which", "who", "how", "where", "when", "is", "are", "was", "were",
        "did", "does", "do", "has", "have", "the", "a", "an", "it", "its", "it's", "this", "that", "there",
        "you", "your", "my", "on", "of", "to", "in", "for", "with", "be", "been", "being", "can", "could",
        "tell", "show", "explain", "me", "us", "about", "any", "so", "up",
    }
)  # fmt: skip
# the words an operator uses for a class of evidence, and the words the report uses for it
_TOPICS: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (re.compile(r"\boom|out\s+of\s+memory|memory", re.I), re.compile(r"oom|out of memory|memory|GiB", re.I)),
    (
        re.compile(r"fail|crash|die|died|break|broke|error|wrong|happen", re.I),
        re.compile(r"fail|did not come up|error|crash|cuda_|nan|refused|timeout", re.I),
    ),
    (re.compile(r"tried|try|attempt|configs?|configurations?", re.I), re.compile(r"^\|?\s*A\d+\b|tried|attempt", re.I)),
    (re.compile(r"slow|fast|throughput|tok/?s|speed|number", re.I), re.compile(r"tok/s|ttft|throughput", re.I)),
    (re.compile(r"p2p|nvlink|topology|nccl", re.I), re.compile(r"p2p|nvlink|nccl|topo", re.I)),
]


def is_question(text: str) -> bool:
    return bool(_ASKS.match(text.strip()))


def answer(text: str, question: Question, limit: int = 6) -> str:
    """The lines of the report that bear on `text`, and that the run still waits."""
    lines = [_plain(line) for line in (question.report_markdown or question.question).splitlines()]
    lines = [line for line in lines if line and not line.startswith(("Reply ", "Question:", "reply:"))]
    wanted: list[re.Pattern[str]] = [look for asks, look in _TOPICS if asks.search(text)]
    for gpu in re.findall(r"\bgpu\s*(\d+)\b", text, re.I):
        wanted.append(re.compile(rf"\bGPUs?\s+(?:\d+,\s*)*{gpu}\b|gpus=\[[^\]]*\b{gpu}\b|\bGPU\s*{gpu}\b", re.I))
    if not wanted:
        words = [w for w in re.findall(r"[a-z0-9_./-]{3,}", text.lower()) if w not in _STOP]
        wanted = [re.compile(re.escape(w), re.I) for w in words]
    found = [line for line in lines if any(p.search(line) for p in wanted)][:limit]
    waits = f"The run still waits on my question: {question.question}"
    if not found:
        return f"I have nothing in my evidence on {text.strip()!r}. {waits}"
    shown = "\n".join(f"  - {line[:300]}" for line in found)
    return f"You asked {text.strip()!r}. From this run's evidence:\n{shown}\n{waits}"


def _plain(line: str) -> str:
    line = re.sub(r"^\s*(?:[-*•]|\d+\.)\s+", "", line.strip())
    line = re.sub(r"\s*\|\s*", " | ", line).strip(" |")
    return "" if set(line) <= set("-|: ") else line.replace("**", "").replace("`", "")
