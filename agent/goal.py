"""Read the numbers out of an operator's goal sentence.

"serve /models/X with SGLang on GPUs 0-3 at over 1,000 tok/s at concurrency 64 and 100 tok/s
single stream; never reboot the host" gives the model path, the GPUs, the aggregate and
single-stream targets, the concurrency and the constraints ("never ..." / "don't ..." clauses).
A rate in a clause that says "single stream" (or "per stream") is the single-stream target; any
other rate is the aggregate target.
"""

from __future__ import annotations

import re

from agent.state import Goal


class GoalError(ValueError):
    pass


_RATE = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(k)?\s*tok(?:ens)?/s", re.I)
_CLAUSES = re.compile(r";|,(?!\d{3})|\band\b", re.I)  # "1,000" is one number
_SINGLE = re.compile(r"single[- ]?stream|per[- ]stream|single[- ]user", re.I)
_CONC = re.compile(r"(?:concurrency|conc)\s*(?:of\s*)?(\d+)", re.I)
_GPU_RANGE = re.compile(r"GPUs?\s+(\d+)\s*(?:-|to|\.\.)\s*(\d+)", re.I)
_GPU_COUNT = re.compile(r"(?:across|on|over)\s+(?:all\s+)?(\d+)\s+GPUs", re.I)
_MODEL = re.compile(r"(?:^|\s)(/[\w.+-]+(?:/[\w.+-]+)+)")
_CONSTRAINT = re.compile(r"\b(never|don't|do not|no)\b[^;.]*", re.I)


def _rate(match: re.Match[str]) -> float:
    value = float(match.group(1).replace(",", ""))
    return value * 1000 if match.group(2) else value


def parse_goal(text: str) -> Goal:
    text = text.strip()
    if not text:
        raise GoalError("the goal is empty; pass --goal 'serve MODEL with SGLang at over N tok/s'")
    aggregate = single = None
    for clause in _CLAUSES.split(text):
        for match in _RATE.finditer(clause):
            if _SINGLE.search(clause):
                single = single if single is not None else _rate(match)
            else:
                aggregate = aggregate if aggregate is not None else _rate(match)
    gpus: list[int] | None = None
    if (span := _GPU_RANGE.search(text)) is not None:
        gpus = list(range(int(span.group(1)), int(span.group(2)) + 1))
    elif (count := _GPU_COUNT.search(text)) is not None:
        gpus = list(range(int(count.group(1))))
    conc = _CONC.search(text)
    model = _MODEL.search(text)
    return Goal(
        text=text,
        model_path=model.group(1) if model else None,
        gpus=gpus,
        min_aggregate_tps=aggregate,
        min_single_stream_tps=single,
        concurrency=int(conc.group(1)) if conc else 64,
        constraints=[m.group(0).strip() for m in _CONSTRAINT.finditer(text)],
    )
