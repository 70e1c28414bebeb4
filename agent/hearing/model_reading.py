"""A model reads what the grammar did not, into the same typed instructions, and is never trusted:

- its answer is structured output validated by pydantic (`ModelReading`); anything else is nothing;
- each instruction is rendered as a canonical clause that the grammar (`agent.hearing.instructions`)
  must read whole, alone;
- every number it names (a GPU, a port, a layout, a flag's value) must be one the operator wrote,
  and never one the operator negated ("don't use GPU 0" is no "use GPU 0"); "stop the server"
  needs the operator's own stop word;
- what survives is asked back like any partial reading ("I read: ... Right?") before it acts.

A wrong or harmful reading therefore fails closed: it is refused, or at worst shown for a "yes".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from agent.llm_config import LLMSettings

Kind = Literal[
    "use_gpus",
    "avoid_gpus",
    "use_port",
    "avoid_port",
    "set_env",
    "unset_env",
    "use_flag",
    "avoid_flag",
    "layout",
    "no_relaunch",
    "relaunch",
    "stop_server",
    "measure_again",
]


class Said(BaseModel):
    """One instruction, typed (the fields its kind needs)."""

    kind: Kind
    gpus: list[int] = []
    port: int | None = None
    name: str | None = None  # an environment variable or a --flag
    value: str | None = None
    tp: int | None = None
    dp: int | None = None


class ModelReading(BaseModel):
    instructions: list[Said] = []
    not_understood: list[str] = []


SYSTEM = (
    "You read an operator's message to an agent that deploys SGLang servers on GPUs. Return only JSON: "
    '{"instructions": [{"kind": ..., "gpus": [...], "port": N, "name": "...", "value": "...", "tp": N, "dp": N}], '
    '"not_understood": ["..."]}. kind is one of: ' + ", ".join(Kind.__args__) + ". "  # type: ignore[attr-defined]
    "Only what the operator clearly instructs; never guess numbers; a question or a remark is not_understood."
)
_NEGATION = r"(?:don'?t|do\s+not|never|not|avoid|no|except|but|without|skip|exclude|off|leave)"
_STOP_WORDS = re.compile(r"\b(?:stop|kill|shut|down|terminate|tear)\b", re.I)


def clause_of(said: Said) -> str | None:
    """The grammar's words for one typed instruction (None when its fields do not make one)."""
    ids = ",".join(str(g) for g in said.gpus)
    simple = {
        "no_relaunch": "don't relaunch",
        "relaunch": "relaunch",
        "stop_server": "stop the server",
        "measure_again": "measure again",
    }
    if said.kind in simple:
        return simple[said.kind]
    if said.kind in ("use_gpus", "avoid_gpus") and said.gpus:
        return f"{'use' if said.kind == 'use_gpus' else 'do not use'} GPUs {ids}"
    if said.kind in ("use_port", "avoid_port") and said.port is not None:
        return f"{'use' if said.kind == 'use_port' else 'avoid'} port {said.port}"
    if said.kind == "set_env" and said.name and said.value is not None:
        return f"set {said.name}={said.value}"
    if said.kind == "unset_env" and said.name:
        return f"unset {said.name}"
    if said.kind in ("use_flag", "avoid_flag") and said.name and said.name.startswith("--"):
        if said.kind == "avoid_flag":
            return f"don't use {said.name}"
        return f"use {said.name}" + (f" {said.value}" if said.value else "")
    if said.kind == "layout" and said.tp:
        return f"tp {said.tp} dp {said.dp or 1}"
    return None


def _numbers(said: Said) -> list[int]:
    found = [*said.gpus, *(n for n in (said.port, said.tp, said.dp) if n is not None)]
    found += [int(v) for v in re.findall(r"\d+", said.value or "")]
    return found


def _known_flag(said: Said) -> bool:
    """A model's flag must be one SGLang has, with one of its values: the grammar takes any --x from
    the operator, who typed it; a model's invention is not that."""
    if said.kind not in ("use_flag", "avoid_flag"):
        return True
    from agent.hearing.flag_vocabulary import sglang_flags as _sglang_flags

    flag = _sglang_flags().get(said.name or "")
    if flag is None:
        return False
    return said.kind == "avoid_flag" or not flag.choices or (said.value or "").lower() in flag.choices


def check(said: Said, text: str, reads: Callable[[str], bool]) -> tuple[str | None, str | None]:
    """(the canonical clause, None) when the reading may be asked back; (None, why) when refused."""
    clause = clause_of(said)
    if clause is None or not reads(clause) or not _known_flag(said):
        return None, f"the model's reading {said.model_dump(exclude_defaults=True)} is no instruction I know"
    written = {int(n) for n in re.findall(r"\d+", text)}
    if any(n not in written for n in _numbers(said)) and said.kind != "layout":
        return None, f"the model read {clause!r}, with a number you did not write"
    if said.kind == "layout" and not {said.tp, said.dp or 1} <= written | {1}:
        return None, f"the model read {clause!r}, with a number you did not write"
    if said.kind in ("use_gpus", "use_port", "use_flag", "set_env", "relaunch"):
        for n in _numbers(said):
            if re.search(rf"\b{_NEGATION}\b[^.;,]*\b{n}\b", text, re.I):
                return None, f"the model read {clause!r}, but you said not to"
    if said.kind == "stop_server" and not _STOP_WORDS.search(text):
        return None, "the model read 'stop the server', which you did not say"
    return clause, None


class ModelReader:
    """Reads words the grammar missed with an OpenAI-compatible model (the run's own settings)."""

    def __init__(self, settings: LLMSettings, client: Any | None = None) -> None:
        from openai import OpenAI

        self.settings = settings
        self.client = client or OpenAI(
            api_key=settings.api_key, base_url=settings.base_url, timeout=settings.timeout_s, max_retries=1
        )

    def ask(self, text: str) -> ModelReading | None:
        try:
            completion = self.client.chat.completions.create(
                model=self.settings.model,
                messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}],
                response_format={"type": "json_object"},
            )
            content = completion.choices[0].message.content or ""
            return ModelReading.model_validate(json.loads(content))
        except (ValidationError, ValueError, IndexError, AttributeError):
            return None  # not the structured reading asked for: nothing is taken
        except Exception:
            return None

    def __call__(self, text: str, reads: Callable[[str], bool]) -> tuple[list[str], list[str]]:
        """The canonical clauses to ask back, and why the others were refused."""
        reading = self.ask(text)
        if reading is None:
            return [], ["the model gave no reading I can check"]
        taken: list[str] = []
        refused: list[str] = []
        for said in reading.instructions:
            clause, why = check(said, text, reads)
            if clause is not None:
                taken.append(clause)
            elif why is not None:
                refused.append(why)
        return taken, refused
