"""Read the numbers out of an operator's goal sentence.

"serve /models/X with SGLang across GPUs 0-3 at over 1,000 tok/s at concurrency 64 and 100 tok/s
single stream; never reboot the host" gives the model path, the GPUs, the aggregate and
single-stream targets and the constraints ("never ..." / "don't ..." / "no ..." clauses).
"""

from __future__ import annotations

import re

from agent.state import Goal


class GoalError(ValueError):
    pass


_NUMBER = r"(\d[\d,]*(?:\.\d+)?)\s*(k)?"
_SINGLE = re.compile(_NUMBER + r"\s*tok(?:ens)?/s\s*(?:single[- ]stream|per stream|single)", re.I)
_SINGLE_BEFORE = re.compile(r"single[- ]stream\s*(?:of|at|>=|over|above)?\s*" + _NUMBER + r"\s*tok", re.I)
_ANY_TPS = re.compile(_NUMBER + r"\s*tok(?:ens)?/s", re.I)
_CONC = re.compile(r"concurrency\s*(?:of\s*)?(\d+)", re.I)
_GPUS = re.compile(r"GPUs?\s+(\d+)\s*(?:-|to|\.\.)\s*(\d+)", re.I)
_MODEL = re.compile(r"(/[\w./-]+)")
_CONSTRAINT = re.compile(r"\b(never|don't|do not|no)\b[^;.]*", re.I)


def _num(text: str, kilo: str | None) -> float:
    value = float(text.replace(",", ""))
    return value * 1000 if kilo else value


def parse_goal(text: str) -> Goal:
    text = text.strip()
    if not text:
        raise GoalError("the goal is empty; pass --goal 'serve MODEL with SGLang at over N tok/s'")
    single = _SINGLE.search(text) or _SINGLE_BEFORE.search(text)
    single_tps = _num(single.group(1), single.group(2)) if single else None
    aggregate = None
    for match in _ANY_TPS.finditer(text):
        if single and match.start() <= single.start() < match.end() + 20 and _SINGLE.search(text) is single:
            continue
        value = _num(match.group(1), match.group(2))
        if value != single_tps:
            aggregate = value
            break
    conc = _CONC.search(text)
    gpus = _GPUS.search(text)
    model = _MODEL.search(text)
    constraints = [m.group(0).strip() for m in _CONSTRAINT.finditer(text)]
    return Goal(
        text=text,
        model_path=model.group(1) if model else None,
        gpus=list(range(int(gpus.group(1)), int(gpus.group(2)) + 1)) if gpus else None,
        min_aggregate_tps=aggregate,
        min_single_stream_tps=single_tps,
        concurrency=int(conc.group(1)) if conc else 64,
        constraints=constraints,
    )
