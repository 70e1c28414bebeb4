"""Text that bash evaluates arithmetically, where an array subscript runs what it holds.

`[[ 'a[$(reboot)]' -eq 0 ]]`, `let 'a[$(reboot)]=1'`, `(( x ))` with `x='a[$(reboot)]'`,
`printf -v 'a[$(reboot)]' v`, `declare -i n=...`, `[[ -v 'a[...]' ]]`, `${!x}`: bash expands a
subscript when it evaluates the expression, after quoting hid it from the parser. So wherever
bash evaluates arithmetic or a variable name that may hold a subscript, the text is expanded
as bash would, parsed again as arithmetic, and what it would run is judged. Text only known
at run time (a command's output, a variable set elsewhere) cannot be judged there: it fails
closed, with a reason that says how to compare numbers without it.
"""

from __future__ import annotations

import re
from typing import Protocol

from tree_sitter import Node

from agent.policy.facts import DYN, GLOB
from agent.policy.shellparse import _PARSER, node_text

# variables bash itself keeps numeric: their values cannot smuggle a subscript in
NUMERIC_VARIABLES = frozenset(
    [
        "RANDOM",
        "SRANDOM",
        "SECONDS",
        "EPOCHSECONDS",
        "LINENO",
        "BASHPID",
        "PPID",
        "UID",
        "EUID",
        "OPTIND",
        "SHLVL",
        "COLUMNS",
        "LINES",
        "HISTCMD",
        "#",
        "?",
        "$",
        "!",
        "-",
    ]
)
ARITHMETIC_TESTS = frozenset(("-eq", "-ne", "-lt", "-le", "-gt", "-ge"))
RUNTIME_REASON = (
    "bash evaluates text only known at run time as arithmetic here, and an array subscript in it "
    "runs commands (compare with `[ A -eq B ]` or compute with `expr`, which do not)"
)
MAX_DEPTH = 8
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLAIN = re.compile(r"[\sA-Za-z0-9_+\-*/%<>=!&|^~?:(),]*")  # no quote, `$`, backquote or subscript


class Host(Protocol):
    """What the analyser offers: variable values, judging shell code, failing closed."""

    def arith_variable(self, name: str, scope: object) -> str | None: ...

    def arith_code(self, code: str, scope: object, ctx: object) -> None: ...

    def arith_opaque(self, text: str, ctx: object, reason: str) -> None: ...


_NAMES = frozenset(("variable_name", "subscript", "special_variable_name"))


def substring_operands(expansion: Node) -> list[str]:
    """The offset and length of `${x:OFF:LEN}` (`${@:2}`, `${a[@]:i:n}`), as written: bash evaluates
    both as arithmetic, so a subscript in either runs (`y='a[$(reboot)]'; ${x:y}`)."""
    kids = expansion.children
    if len(kids) < 4 or kids[0].type != "${" or kids[1].type not in _NAMES or kids[2].type != ":":
        return []
    src = expansion.text or b""
    start = kids[2].end_byte - expansion.start_byte
    body = src[start : len(src) - 1].decode("utf-8", "replace")  # up to the closing `}`
    parts, depth, ternary, current = [], 0, 0, ""
    for ch in body:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "?" and depth == 0:
            ternary += 1
        elif ch == ":" and depth == 0:
            if ternary:
                ternary -= 1  # `a ? 1 : 2` is one operand
            else:
                parts.append(current)
                current = ""
                continue
        current += ch
    parts.append(current)
    return [p for p in parts if p.strip()]


def evaluate_source(host: Host, source: str, scope: object, ctx: object) -> None:
    """An arithmetic expression as written in the command (`$((...))`'s inside, a `[[ -eq ]]`
    operand, a subscript): expanded as bash expands it first, then evaluated."""
    # plain text (numbers, operators, names) expands to itself: evaluate_text takes it from there
    expanded = source if _PLAIN.fullmatch(source) else _expand(host, source, scope)
    if expanded is None:
        host.arith_opaque(source, ctx, RUNTIME_REASON)
        return
    evaluate_text(host, expanded, scope, ctx)


def evaluate_text(host: Host, text: str, scope: object, ctx: object, depth: int = 0) -> None:
    """Text bash evaluates as an arithmetic expression once it is expanded: a `let` argument,
    a variable's value, a subscript. A substitution in it runs; a name in it is evaluated."""
    if DYN in text or GLOB in text:
        host.arith_opaque(text.replace(DYN, "$?").replace(GLOB, "*"), ctx, RUNTIME_REASON)
        return
    if depth > MAX_DEPTH:
        host.arith_opaque(text, ctx, "arithmetic whose names refer to each other more than 8 levels deep")
        return
    if _PLAIN.fullmatch(text):
        _names(host, text, scope, ctx, depth)
        return
    root = _PARSER.parse(f"(( {text} ))".encode()).root_node
    if root.has_error:
        host.arith_opaque(text, ctx, "arithmetic bash would evaluate that the gate cannot parse")
        return
    stack = list(root.named_children)
    while stack:
        n = stack.pop()
        if n.type == "command_substitution":
            inner = node_text(n)
            host.arith_code(inner[2:-1] if inner.startswith("$(") else inner[1:-1], scope, ctx)
        elif n.type in ("variable_name", "word") and _IDENTIFIER.fullmatch(node_text(n)):
            if not _assigned(n):
                _value(host, node_text(n), scope, ctx, depth)
        elif n.type in ("simple_expansion", "expansion"):
            name = node_text(n).lstrip("$").strip("{}")
            if _IDENTIFIER.fullmatch(name) or name in NUMERIC_VARIABLES:
                _value(host, name, scope, ctx, depth)
            else:
                stack.extend(n.named_children)
        else:
            stack.extend(n.named_children)


def evaluate_name(host: Host, name: str, scope: object, ctx: object, unknown_fails: bool = True) -> None:
    """A variable name bash assigns, tests or dereferences (`printf -v NAME`, `read NAME`,
    `[[ -v NAME ]]`, `declare NAME=`, a nameref's target): a subscript in it is arithmetic.
    `unknown_fails`: a name only known at run time fails closed (`export $(cat f)` does not)."""
    name = name.partition("=")[0].rstrip("+")
    if DYN in name or GLOB in name:
        if unknown_fails:
            host.arith_opaque(name.replace(DYN, "$?").replace(GLOB, "*"), ctx, RUNTIME_REASON + " (a variable name)")
        return
    open_at = name.find("[")
    if open_at != -1:
        evaluate_text(host, name[open_at + 1 : name.rfind("]") if name.endswith("]") else None], scope, ctx)


def _value(host: Host, name: str, scope: object, ctx: object, depth: int) -> None:
    """A name in arithmetic: bash evaluates its value as an expression in turn."""
    if name in NUMERIC_VARIABLES:
        return
    value = host.arith_variable(name, scope)
    if value is None:
        host.arith_opaque(name, ctx, RUNTIME_REASON + f" (the value of {name})")
    elif value.strip():
        evaluate_text(host, value, scope, ctx, depth + 1)


def _names(host: Host, text: str, scope: object, ctx: object, depth: int) -> None:
    """The names in plain arithmetic, but for plain assignment targets (`x=1` reads no x)."""
    for m in _IDENTIFIER.finditer(text):
        before = text[m.start() - 1] if m.start() else ""
        if before.isdigit() or re.match(r"\s*=(?!=)", text[m.end() :]):
            continue  # part of a number (`0x1f`, `2#101`), or assigned
        _value(host, m.group(0), scope, ctx, depth)


def _expand(host: Host, source: str, scope: object) -> str | None:
    """`source` after quote removal and parameter expansion, as bash does before it evaluates;
    None when a command or process substitution, or an unknown variable, makes it run-time text."""
    out: list[str] = []
    i, n = 0, len(source)
    quote = ""
    while i < n:
        c = source[i]
        if quote == "'":
            if c == "'":
                quote = ""
            else:
                out.append(c)
            i += 1
            continue
        if c == "'" and not quote:
            quote = "'"
        elif c == '"':
            quote = "" if quote == '"' else '"'
        elif c == "\\" and i + 1 < n:
            out.append(source[i + 1])
            i += 1
        elif c == "`" or (source.startswith("$(", i) and not source.startswith("$((", i)):
            return None
        elif c == "$":
            m = re.match(r"\$(\{)?([A-Za-z_][A-Za-z0-9_]*|[#?$!\-]|\d)(?(1)\})", source[i:])
            if m is None:
                if source.startswith("$((", i) or source.startswith("$[", i):
                    out.append(c)  # nested arithmetic: evaluated with the rest
                    i += 1
                    continue
                return None  # `${x:-...}`, `${#a[@]}` and the like: not followed here
            name = m.group(2)
            value = None if name.isdigit() else ("0" if name in NUMERIC_VARIABLES else host.arith_variable(name, scope))
            if value is None:
                return None
            out.append(value)
            i += len(m.group(0))
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _assigned(name: Node) -> bool:
    """`x = EXPR`: x is set, its old value is not evaluated."""
    parent = name.parent
    if parent is None or parent.type != "binary_expression" or parent.child_by_field_name("left") != name:
        return False
    return any(node_text(c) == "=" for c in parent.children if not c.is_named)
