"""Help text that reads at 80 columns: option values named in words (TEXT, PATH, N, DIR, ...).

Typer names values by their Python type (`<str>`, `<list[Path]>`); this walks the built click
command tree once and names each value by what it is, unless a command chose its own metavar.
"""

from __future__ import annotations

from typing import Any

# options whose value has a better name than its type's
BY_NAME = {
    "target": "TARGET",
    "state": "DIR",
    "transcripts": "DIR",
    "policy": "FILE",
    "identity": "FILE",
    "export": "FILE",
    "model": "NAME",
    "as_": "NAME",
    "decider": "NAME",
    "approver": "KIND",
    "run_id": "RUN",
    "scenario": "NAME",
    "family": "FILE",
    "until": "MILESTONE",
    "edit": "COMMAND",
    "question_ttl": "SECONDS",
}


def _by_type(param: Any) -> str:
    """The value's Python annotation, in words (typer keeps it; click's type objects vary by version)."""
    descriptor = getattr(param, "type_descriptor", None)
    text = str(getattr(descriptor, "annotation", "") or getattr(getattr(param, "type", None), "name", ""))
    for needle, word in (("Path", "PATH"), ("path", "PATH"), ("int", "N"), ("float", "N")):
        if needle in text:
            return word
    return "TEXT"


def _plain_argument(param: Any) -> None:
    """`RUN_ID` in the usage line and the list, not `{run_id}` and `run_id <str>`."""
    word = param.metavar or (param.name or "value").upper()
    optional = not param.required
    param.metavar = word
    param.display_type_rich = lambda ctx=None: None
    param._usage_display_name = lambda: f"[{word}]" if optional else word


def word_metavars(command: Any) -> Any:
    """Name every option value and argument in words, through the whole command tree."""
    for param in command.params:
        if getattr(param, "param_type_name", "") == "argument":
            _plain_argument(param)
            continue
        if param.metavar is not None or getattr(param, "is_flag", False) or getattr(param, "count", False):
            continue
        param.metavar = BY_NAME.get(param.name or "", _by_type(param))
    subs = getattr(command, "commands", None) or {}
    # a lazy group (agent/cli/lazy.py) names its commands in words as it builds them: walk only
    # those built, so that naming the root's does not import every sub-command
    for sub in subs.built() if hasattr(subs, "built") else subs.values():
        word_metavars(sub)
    return command
