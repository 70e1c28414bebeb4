"""Scenario families: parameters with choices or ranges, a template, and variants drawn from a seed.

A family file (SCHEMA.md, "Families") names a base scenario, declares parameters, derives values
from them with small expressions, and overlays a template on the base with the values
substituted (`${expr}` in any string, key or value). `draw(family, seed)` is deterministic per
(family name, seed); every drawn variant is checked by the same validator as a scenario file, so
a family whose variant breaks the schema fails at `opsagent lab validate FILE`, naming the seed,
the field and the line of the family file (or of its base) that set it.

Expressions are Python expressions over the parameters, limited to literals, arithmetic,
comparisons, conditionals, list/dict displays and comprehensions, subscripts and a few pure
functions (FUNCTIONS); no attribute access, no imports.
"""

from __future__ import annotations

import ast
import functools
import math
import random
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError, model_validator

from tools.lab.scenario import (
    Scenario,
    ScenarioError,
    _fmt_path,
    _line_index,
    _Loader,
    _Strict,
    _where,
    scenario_from_data,
    schema_problems,
)

FAMILY_DIR = Path(__file__).parent / "families"
VALIDATE_SEEDS = 12  # `lab validate FAMILY` draws this many variants (seeds 0..N-1)

FUNCTIONS: dict[str, Any] = {
    "min": min,
    "max": max,
    "round": round,
    "int": int,
    "float": float,
    "str": str,
    "len": len,
    "range": range,
    "list": list,
    "sorted": sorted,
    "sum": sum,
    "abs": abs,
    "ceil": math.ceil,
    "floor": math.floor,
    "hex2": lambda n: f"{int(n):02x}",
    "dict": dict,
    "zip": zip,
    "enumerate": enumerate,
}
_ALLOWED = (
    ast.Expression, ast.Constant, ast.Name, ast.Load, ast.Store, ast.BinOp, ast.UnaryOp, ast.BoolOp,
    ast.Compare, ast.IfExp, ast.Call, ast.List, ast.Tuple, ast.Dict, ast.Subscript, ast.Slice,
    ast.ListComp, ast.DictComp, ast.comprehension, ast.JoinedStr, ast.FormattedValue,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.USub, ast.UAdd, ast.Not,
    ast.And, ast.Or, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn,
)  # fmt: skip


class FamilyError(ValueError):
    """A family file is wrong; `problems` lists (where, message) pairs, like ScenarioError."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source, self.problems = source, problems
        lines = [f"{source}: {len(problems)} problem(s):"] + [f"  {where}: {msg}" for where, msg in problems]
        super().__init__("\n".join(lines))


class Param(_Strict):
    """One parameter: a choice among values, or a number in [lo, hi] (on a grid of `step` when given)."""

    choices: list[Any] | None = Field(default=None, min_length=1)
    range: list[int | float] | None = Field(default=None, min_length=2, max_length=2)
    step: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _one_kind(self) -> Param:
        if (self.choices is None) == (self.range is None):
            raise ValueError("a parameter needs exactly one of choices, range")
        if self.range is not None and self.range[0] > self.range[1]:
            raise ValueError("a range is [low, high] with low <= high")
        if self.step is not None and self.range is None:
            raise ValueError("step goes with range")
        return self


class FamilySpec(_Strict):
    family: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    summary: str
    base: str | None = Field(default=None, description="A scenario file, relative to the family file.")
    params: dict[str, Param] = Field(default_factory=dict)
    derive: dict[str, str] = Field(default_factory=dict, description="name: expression, in order, over the params.")
    template: dict[str, Any] = Field(default_factory=dict)


class Family:
    """A loaded family file: its spec, its base scenario's data and where each field came from."""

    def __init__(self, path: Path, spec: FamilySpec, base: dict[str, Any], lines: dict[tuple[str, ...], str]) -> None:
        self.path, self.spec, self.base, self.lines = path, spec, base, lines

    @property
    def name(self) -> str:
        return self.spec.family

    def values(self, seed: int) -> dict[str, Any]:
        """The drawn parameters and derived values of variant `seed`."""
        rng = random.Random(f"{self.name}:{seed}")
        values: dict[str, Any] = {}
        for name, param in self.spec.params.items():
            values[name] = _draw(param, rng)
        for name, expr in self.spec.derive.items():
            values[name] = evaluate(expr, values, f"derive.{name}")
        return values

    def data(self, seed: int) -> dict[str, Any]:
        """The variant as plain data (before validation): base, overlaid by the rendered template."""
        values = self.values(seed)
        rendered = _render(self.spec.template, values, ("template",))
        data = _merge(self.base, rendered)
        if "name" not in self.spec.template:
            data["name"] = f"{self.name}-{seed}"
        return dict(data)

    def draw(self, seed: int) -> Scenario:
        """Variant `seed`, validated like a scenario file (ScenarioError names the field and line)."""
        return scenario_from_data(self.data(seed), f"{self.path}#{seed}", self.lines)


class _ExprError(Exception):
    pass


def evaluate(expr: str, values: dict[str, Any], where: str) -> Any:
    """Evaluate one family expression over `values`; FamilyError-ready message on failure."""
    try:
        tree = _compile(expr)
        # one namespace (globals), so comprehensions see the values too; only _ALLOWED nodes get here
        return eval(tree, {"__builtins__": {}, **FUNCTIONS, **values})
    except _ExprError as exc:
        raise _ExprError(f"{where}: {exc}") from None
    except Exception as exc:
        raise _ExprError(f"{where}: {expr!r}: {type(exc).__name__}: {exc}") from None


@functools.lru_cache(maxsize=1024)
def _compile(expr: str) -> Any:
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as exc:
        raise _ExprError(f"{expr!r}: not an expression ({exc.msg})") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise _ExprError(f"{expr!r}: {type(node).__name__} is not allowed in a family expression")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS):
            raise _ExprError(f"{expr!r}: only {', '.join(sorted(FUNCTIONS))} can be called")
    return compile(tree, "<family>", "eval")


def _draw(param: Param, rng: random.Random) -> Any:
    if param.choices is not None:
        return param.choices[rng.randrange(len(param.choices))]
    assert param.range is not None
    lo, hi = param.range
    if param.step is not None:
        n = round((hi - lo) / param.step)
        value = lo + param.step * rng.randint(0, n)
        return int(value) if float(param.step).is_integer() and float(lo).is_integer() else round(value, 6)
    if isinstance(lo, int) and isinstance(hi, int):
        return rng.randint(int(lo), int(hi))
    return round(rng.uniform(lo, hi), 4)


def _text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _render(node: Any, values: dict[str, Any], path: tuple[str, ...]) -> Any:
    where = _fmt_path(path)
    if isinstance(node, str):
        parts = _split(node, where)
        if len(parts) == 1 and isinstance(parts[0], tuple):
            return evaluate(parts[0][0], values, where)
        return "".join(p if isinstance(p, str) else _text(evaluate(p[0], values, where)) for p in parts)
    if isinstance(node, dict):
        return {
            str(_render(k, values, path)) if isinstance(k, str) else k: _render(v, values, (*path, str(k)))
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_render(v, values, (*path, str(i))) for i, v in enumerate(node)]
    return node


def _split(text: str, where: str) -> list[str | tuple[str]]:
    """Literal text and `${expr}` pieces (braces inside the expression balanced); a string that
    is one `${expr}` alone (surrounding blanks aside) becomes the expression's typed value."""
    parts: list[str | tuple[str]] = []
    rest = text.strip() if text.strip().startswith("${") and text.strip().endswith("}") else text
    while (start := rest.find("${")) >= 0:
        depth, end = 0, -1
        for i in range(start + 1, len(rest)):
            depth += {"{": 1, "}": -1}.get(rest[i], 0)
            if depth == 0:
                end = i
                break
        if end < 0:
            raise _ExprError(f"{where}: '${{' without its closing '}}'")
        if rest[:start]:
            parts.append(rest[:start])
        parts.append((rest[start + 2 : end],))
        rest = rest[end + 1 :]
    if rest or not parts:
        parts.append(rest)
    return parts


def _merge(base: Any, over: Any) -> Any:
    """Mappings merge key by key (null removes a key); anything else in the template replaces."""
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for k, v in over.items():
            if v is None:
                out.pop(k, None)
            else:
                out[k] = _merge(base.get(k), v)
        return out
    return over


def _read_yaml(path: Path, what: str) -> tuple[Any, dict[tuple[str, ...], int]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FamilyError(str(path), [("(file)", f"cannot read the {what}: {exc.strerror}")]) from exc
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        raise FamilyError(str(path), [("(yaml)", str(exc))]) from exc
    finally:
        loader.dispose()
    lines: dict[tuple[str, ...], int] = {}
    if node is not None:
        _line_index(node, (), lines)
    return data, lines


def is_family_file(path: Path) -> bool:
    """A family file has a top-level `family:` key (a scenario has `name:`)."""
    try:
        head = path.read_text(encoding="utf-8")
    except OSError:
        return False
    return re.search(r"^family\s*:", head, re.MULTILINE) is not None


def load_family(path: str | Path) -> Family:
    """Load a family file and its base; FamilyError names each mistake by path and line."""
    p = Path(path)
    data, lines = _read_yaml(p, "family file")
    if not isinstance(data, dict):
        raise FamilyError(str(p), [("(top level)", "a family is a YAML mapping")])
    try:
        spec = FamilySpec.model_validate(data)
    except ValidationError as exc:
        raise FamilyError(str(p), schema_problems(exc, lines)) from None
    problems = []
    for name in [*spec.params, *spec.derive]:
        if not name.isidentifier() or name in FUNCTIONS:
            section = "params" if name in spec.params else "derive"
            problems.append((_where((section, name), lines), f"{name!r} is not a usable name"))
    for name, expr in spec.derive.items():
        try:
            _compile(expr)
        except _ExprError as exc:
            problems.append((_where(("derive", name), lines), str(exc)))
    base: dict[str, Any] = {}
    base_lines: dict[tuple[str, ...], int] = {}
    if spec.base is not None:
        base_path = p.parent / spec.base
        if not base_path.is_file():
            problems.append((_where(("base",), lines), f"no scenario file {base_path}"))
        else:
            raw, base_lines = _read_yaml(base_path, "base scenario")
            base = raw if isinstance(raw, dict) else {}
    if problems:
        raise FamilyError(str(p), problems)
    # Where a variant's field came from: the template's line in the family file, else the base's.
    where: dict[tuple[str, ...], str] = {k: f"{n} of {spec.base}" for k, n in base_lines.items()}
    for key, n in lines.items():
        if key[:1] == ("template",) and len(key) > 1:
            where[key[1:]] = f"{n} of {p.name}"
    return Family(p, spec, base, where)


def validate_family(path: str | Path, seeds: range = range(VALIDATE_SEEDS)) -> Family:
    """Load a family and draw `seeds`; FamilyError lists every mistake (the variant's seed named)."""
    family = load_family(path)
    problems: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()  # the same mistake in many variants is named once
    for seed in seeds:
        try:
            family.draw(seed)
            found: list[tuple[str, str]] = []
        except _ExprError as exc:
            found = [("", str(exc))]
        except ScenarioError as exc:
            found = list(exc.problems)
        for where, msg in found:
            if (where, msg) not in seen:
                seen.add((where, msg))
                problems.append((f"seed {seed}: {where}" if where else f"seed {seed}", msg))
        if len(problems) >= 20:
            break
    if problems:
        raise FamilyError(str(path), problems)
    return family


def draw_variant(path: str | Path, seed: int) -> Scenario:
    """Variant `seed` of the family at `path` (FamilyError or ScenarioError when it is wrong)."""
    family = load_family(path)
    try:
        return family.draw(seed)
    except _ExprError as exc:
        raise FamilyError(str(path), [(f"seed {seed}", str(exc))]) from None


def family_paths() -> list[Path]:
    """The shipped families."""
    return sorted(FAMILY_DIR.glob("*.yaml"))
