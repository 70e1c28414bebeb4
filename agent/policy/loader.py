"""Load policy YAML with line numbers: every error names the file, the line and the fix.

PolicyLoadError       a file is missing, not YAML, or breaks the schema (one line of text)
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from agent.policy import cache
from agent.policy.facts import FACT_NAMES, placeholders
from agent.policy.model import Match, PolicyFile

TEMPLATE_FIELDS = {
    "program",
    "program_path",
    "subcommand",
    "args",
    "arg_any",
    "writes",
    "writes_outside",
    "deletes",
    "deletes_outside",
    "reads",
    "reads_outside",
    "paths_within",
    "write_content",
    "env",
}


class PolicyLoadError(ValueError):
    """A policy file could not be loaded; the message is one line: file:line: what and how to fix."""


# libyaml's composer keeps the marks the error messages need and is about ten times faster than
# the pure-Python one; the pure-Python one stays for an interpreter built without libyaml.
_COMPOSER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _node_to_python(
    node: yaml.Node,
    path: tuple[Any, ...],
    lines: dict[tuple[Any, ...], int],
    source: str,
    scalars: yaml.SafeLoader | None = None,
) -> Any:
    scalars = scalars or yaml.SafeLoader("")  # resolves a scalar's type (int, bool, null) as safe_load would
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = key_node.value
            if key in out:
                raise PolicyLoadError(
                    f"{source}:{key_node.start_mark.line + 1}: duplicate key {key!r} (fix: keep one of them)"
                )
            lines[(*path, key)] = key_node.start_mark.line + 1
            out[key] = _node_to_python(value_node, (*path, key), lines, source, scalars)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_node_to_python(item, (*path, i), lines, source, scalars) for i, item in enumerate(node.value)]
    return scalars.construct_object(node)


def _line_for(loc: tuple[Any, ...], lines: dict[tuple[Any, ...], int]) -> int:
    for cut in range(len(loc), -1, -1):
        if loc[:cut] in lines:
            return lines[loc[:cut]]
    return 1


def _what(loc: tuple[Any, ...], data: Any) -> str:
    if len(loc) >= 2 and loc[0] == "rules" and isinstance(loc[1], int):
        try:
            rid = data["rules"][loc[1]].get("id")
        except (KeyError, IndexError, TypeError, AttributeError):
            rid = None
        return f"rule {rid!r}" if rid else f"rule #{loc[1] + 1}"
    if len(loc) >= 2 and loc[0] == "examples" and isinstance(loc[1], int):
        return f"example #{loc[1] + 1}"
    return ".".join(str(p) for p in loc[:1]) or "file"


_FIXES = {
    "extra_forbidden": "remove it or spell it as one of: {fields}",
    "literal_error": "use one of the allowed words",
    "missing": "add it",
    "string_pattern_mismatch": "use letters, digits and . _ : - only",
}


def _format_error(source: str, err: Any, data: Any, lines: dict[tuple[Any, ...], int]) -> str:
    loc = tuple(err["loc"])
    line = _line_for(loc, lines)
    what = _what(loc, data)
    kind = err["type"]
    field = loc[-1] if loc else ""
    if kind == "extra_forbidden":
        parent = loc[:-1]
        fields = _fields_for(parent)
        return f"{source}:{line}: {what}: unknown field {field!r} (fix: remove it or use one of: {fields})"
    if kind == "literal_error":
        where = ".".join(map(str, loc[2:] or loc))
        return f"{source}:{line}: {what}: {where}: {err['msg']} (fix: use one of them)"
    if kind == "missing":
        return f"{source}:{line}: {what}: missing field {field!r} (fix: add it)"
    msg = str(err["msg"]).removeprefix("Value error, ")
    fix = _FIXES.get(kind, "correct the value")
    where = ".".join(str(p) for p in loc[2:]) if what.startswith(("rule", "example")) else ".".join(map(str, loc))
    return f"{source}:{line}: {what}: {where + ': ' if where else ''}{msg} (fix: {fix})"


def _fields_for(parent: tuple[Any, ...]) -> str:
    from agent.policy.model import Example, HostFacts, Rule

    if not parent:
        model: Any = PolicyFile
    elif parent[0] == "facts":
        model = HostFacts
    elif parent[0] == "rules" and len(parent) == 2:
        model = Rule
    elif parent[0] == "rules":
        model = Match
    elif parent[0] == "examples":
        model = Example
    else:
        model = PolicyFile
    return ", ".join(model.model_fields)


def load_file(path: Path) -> tuple[PolicyFile, bytes]:
    source = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PolicyLoadError(f"{source}:0: cannot read the policy file: {exc.strerror} (fix: check the path)") from exc
    hit = cache.cached(raw)
    if hit is not None:
        return hit, raw
    try:
        node = yaml.compose(raw.decode("utf-8"), Loader=_COMPOSER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        problem = getattr(exc, "problem", None) or str(exc)
        raise PolicyLoadError(
            f"{source}:{line}: not valid YAML: {problem} (fix: check indentation and quoting)"
        ) from exc
    except UnicodeDecodeError as exc:
        raise PolicyLoadError(f"{source}:0: not UTF-8 text (fix: save it as UTF-8)") from exc
    if node is None:
        raise PolicyLoadError(f"{source}:1: the file is empty (fix: add rules or a facts section)")
    lines: dict[tuple[Any, ...], int] = {}
    data = _node_to_python(node, (), lines, source)
    if not isinstance(data, dict):
        raise PolicyLoadError(f"{source}:1: the top level must be a mapping (fix: start with 'rules:' or 'facts:')")
    try:
        policy = PolicyFile.model_validate(data)
    except ValidationError as exc:
        # a misspelt key also shows up as a missing one: name the misspelling
        order = {"extra_forbidden": 0, "literal_error": 1, "missing": 3}
        first = min(exc.errors(), key=lambda e: order.get(e["type"], 2))
        raise PolicyLoadError(_format_error(source, first, data, lines)) from exc
    _check_semantics(policy, source, lines)
    cache.remember(raw, policy)
    return policy, raw


def _check_semantics(policy: PolicyFile, source: str, lines: dict[tuple[Any, ...], int]) -> None:
    seen: dict[str, int] = {}
    for i, rule in enumerate(policy.rules):
        line = lines.get(("rules", i, "id"), lines.get(("rules", i), 1))
        if rule.id in seen:
            raise PolicyLoadError(
                f"{source}:{line}: rule {rule.id!r}: duplicate id (first at line {seen[rule.id]}) "
                "(fix: give each rule its own id)"
            )
        seen[rule.id] = line
        for field in TEMPLATE_FIELDS:
            values = getattr(rule.match, field)
            flat = [v for group in values for v in group] if field == "args" else list(values)
            for v in flat:
                for name in placeholders(v):
                    if name not in FACT_NAMES:
                        fl = lines.get(("rules", i, "match", field), line)
                        raise PolicyLoadError(
                            f"{source}:{fl}: rule {rule.id!r}: unknown fact {{{name}}} in {field} "
                            f"(fix: use one of: {', '.join(FACT_NAMES)})"
                        )


def file_sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()
