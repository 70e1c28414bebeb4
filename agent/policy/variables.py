"""Which variables a command's text may leave unknown or set in ways the gate cannot follow
(`read`, `printf -v`, arithmetic, `IFS`), found once per command before the walk."""

from __future__ import annotations

import re
from collections import Counter

from tree_sitter import Node, Query, QueryCursor

from agent.policy.programs.builtins import EXIT_SIGNALS
from agent.policy.shellparse import LANGUAGE, node_text

_SETTERS = (
    "read",
    "mapfile",
    "readarray",
    "printf",
    "getopts",
    "let",
    "declare",
    "typeset",
    "local",
    "export",
    "unset",
    "eval",
    "source",
    ".",
    "builtin",
    "command",
)


_EXPANDED_OR_SET = frozenset(("simple_expansion", "expansion", "variable_assignment", "for_statement"))


_TOP_PARENTS = frozenset(("program", "declaration_command", "variable_assignments"))


# the nodes `_unsafe_variables` looks at, found by tree-sitter itself instead of a walk in Python
_VARIABLE_QUERY = Query(
    LANGUAGE,
    "(for_statement) @for\n"
    "(variable_assignment) @assign\n"
    "(variable_name) @var\n"
    "(command name: (command_name) @setter (#any-of? @setter " + " ".join(f'"{n}"' for n in _SETTERS) + "))\n"
    '(command name: (command_name) @anything (#any-of? @anything "trap" "source" "."))\n',
)


_ENVIRONMENT_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")


_SECRET_ROOTS = ("~", "/home/", "/root", "/etc/", "/run/", "/var/run/", "/proc/")


# PATH named other than as `$PATH`/`${PATH}` (a read): an assignment, a setter's operand
_SETS_PATH = re.compile(r"(?<![$\w{])['\"]?PATH\b")


_COMMAND_TABLES = frozenset(("BASH_CMDS", "BASH_ALIASES"))


class _EveryName(set[str]):
    """After a trap (run before every command with DEBUG) or a sourced file, any variable may
    hold anything: no value is assumed."""

    def __contains__(self, name: object) -> bool:
        return True

    def __or__(self, other: object) -> _EveryName:  # type: ignore[override]
        return self

    __ror__ = __or__


# arithmetic that sets a variable outside `((...))`: `let x-=1`, `a[x=1]=0`, `[[ 1 -eq x=1 ]]`, `x++`
# (`x++` only inside brackets: elsewhere `$TP --port` is no increment)
_ARITHMETIC_SETS = re.compile(
    r"([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)=(?!=)"
    r"|\[[^\]\n]*?(?:([A-Za-z_]\w*)\s*(?:=(?!=)|\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*))"
)


_LET = re.compile(r"\blet\b([^;&|\n]*)")


_LET_SETS = re.compile(r"([A-Za-z_]\w*)\s*(?:(?:[-+*/%&|^]|<<|>>)?=|\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)")


_ARITHMETIC_ASSIGNMENTS = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="))


def _arithmetic_read(var: Node, parent: Node) -> bool:
    """Whether a bare name in arithmetic (`n * 2`) is only read there, not set (`n = 1`, `n++`)."""
    if parent.type == "binary_expression":
        op = parent.child_by_field_name("operator")
        operator = (
            node_text(op) if op is not None else next((node_text(c) for c in parent.children if not c.is_named), "")
        )
        left = parent.child_by_field_name("left")
        return not (operator in _ARITHMETIC_ASSIGNMENTS and left is not None and left == var)
    if parent.type in ("postfix_expression", "unary_expression"):
        return not any(node_text(c) in ("++", "--") for c in parent.children if not c.is_named)
    return parent.type in ("parenthesized_expression", "ternary_expression", "arithmetic_expansion")


def _at_top(node: Node) -> bool:
    """Whether an assignment runs unconditionally at the top level: every ancestor is the
    program, a declaration or a run of assignments, or it is the first part of a top-level list."""
    parent = node.parent
    while parent is not None:
        if parent.type == "list":
            first = parent.named_children[0] if parent.named_child_count else None
            if first is None or first != node:
                return False
        elif parent.type not in _TOP_PARENTS:
            return False
        node, parent = parent, parent.parent
    return True


UnsafeState = set[str] | tuple["UnsafeState", Node]


def _resolve_unsafe(state: UnsafeState) -> set[str]:
    if isinstance(state, tuple):
        outer, root = state
        return _resolve_unsafe(outer) | _unsafe_variables(root)
    return state


def _changes_any_variable(name: Node) -> bool:
    """A `trap` whose action may run before later commands (any signal but EXIT), or a sourced
    file other than a virtual environment's `bin/activate` (which sets PATH and its own names)."""
    command = name.parent
    words = [node_text(c).strip("'\"") for c in command.named_children[1:]] if command is not None else []
    if node_text(name) == "trap":
        signals = words[1:] if words and not words[0].startswith("-") else []
        return not signals or not all(s.upper() in EXIT_SIGNALS for s in signals)
    return not (words and words[0].endswith("/bin/activate"))


def _sets_ifs(found: dict[str, list[Node]]) -> bool:
    """IFS set for the rest of the command: not `IFS= read ...` (that one command's own)."""
    for node in found.get("assign", ()):
        name = node.child_by_field_name("name")
        if name is not None and node_text(name) == "IFS" and (node.parent is None or node.parent.type != "command"):
            return True
    for node in found.get("for", ()):
        loop_var = node.child_by_field_name("variable")
        if loop_var is not None and node_text(loop_var) == "IFS":
            return True
    for node in found.get("setter", ()):
        command = node.parent
        if command is not None and any(
            node_text(c).strip("'\"").removeprefix("-v") == "IFS" for c in command.named_children[1:]
        ):
            return True
    return False


def _unsafe_variables(root: Node) -> set[str]:
    """Variables whose value the gate must not assume: set more than once, conditionally, in a
    loop, by `read`/`printf -v`/arithmetic, or anywhere but the top level of the command."""
    found = QueryCursor(_VARIABLE_QUERY).captures(root)
    unsafe: set[str] = set()
    if not found:
        return unsafe
    text = node_text(root)
    if any(_changes_any_variable(n) for n in found.get("anything", ())):
        return _EveryName()
    if "IFS" in text and _sets_ifs(found):  # IFS splits every later expansion its own way
        return _EveryName()
    if "=" in text or "++" in text or "--" in text:
        for m in _ARITHMETIC_SETS.finditer(text):
            unsafe.update(g for g in m.groups() if g)
        for m in _LET.finditer(text):
            for pair in _LET_SETS.findall(m.group(1)):
                unsafe.update(g for g in pair if g)
    counts: Counter[str] = Counter()
    for node in found.get("for", ()):
        loop_var = node.child_by_field_name("variable")
        if loop_var is not None:
            counts[node_text(loop_var)] += 1
    for node in found.get("assign", ()):
        name = node.child_by_field_name("name")
        if name is not None:
            text = node_text(name)
            counts[text] += 1
            if not _at_top(node):
                unsafe.add(text)
    for node in found.get("var", ()):
        parent = node.parent
        if parent is not None and parent.type not in _EXPANDED_OR_SET and not _arithmetic_read(node, parent):
            unsafe.add(node_text(node))
        elif parent is not None and parent.type == "expansion":
            following = node.next_sibling
            if following is not None and following.type in (":=", "="):  # `${x:=V}` sets x
                unsafe.add(node_text(node))
    for node in found.get("setter", ()):
        command = node.parent
        if command is not None:
            for c in command.named_children:
                if c.type in ("word", "raw_string", "string", "concatenation"):
                    # `read 'p'`, `printf -vPATH`, `read -r -a arr`
                    word = node_text(c).replace("'", "").replace('"', "")
                    unsafe.add(word)
                    if word.startswith("-") and len(word) > 2:
                        unsafe.add(word[2:])
    unsafe |= {n for n, c in counts.items() if c > 1}
    return unsafe
