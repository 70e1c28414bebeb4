"""Variable assignments and declarations (`X=1`, `export`, `declare`, `local`, `readonly`,
`unset`) and `for` loops: what each variable holds for the commands that follow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from agent.policy import arith
from agent.policy.facts import DYN, GLOB
from agent.policy.invocation import Ctx, Invocation, Scope
from agent.policy.programs.generic import variables_printed
from agent.policy.shellparse import node_text
from agent.policy.variables import _COMMAND_TABLES, _ENVIRONMENT_NAME
from agent.policy.wrappers import IDENTIFIER_RE

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


def plain_assignment(an: Analysis, node: Node, scope: Scope, ctx: Ctx) -> None:
    """`NAME=value` with no command. bash exports it when the environment already holds
    NAME, which the gate cannot see: an upper-case name (PATH, CUDA_VISIBLE_DEVICES) counts
    as exported, and is judged as `export NAME=value` would be."""
    name_node = node.child_by_field_name("name")
    name = node_text(name_node) if name_node is not None and name_node.type == "variable_name" else ""
    exported = _ENVIRONMENT_NAME.fullmatch(name) is not None or (an._allexport and bool(name))
    pair = assign(an, node, scope, ctx, export=exported)
    if name in _COMMAND_TABLES:  # `BASH_CMDS=([ls]=/bin/sh)`: which program a name runs
        an._opaque(node_text(node), ctx, f"{name} changes which program a command name runs")
    elif exported and pair is not None:
        as_export(an, dict([pair]), node, ctx, scope)


def as_export(an: Analysis, env: dict[str, str], node: Node, ctx: Ctx, scope: Scope) -> None:
    """An assignment that exports (`PATH=/tmp` where PATH is in the environment), judged as
    the `export` it amounts to."""
    shown = Invocation("export", "export", [], node_text(node)[:200], env=env, via=ctx.via, wrapper=True)
    an._emit(shown, ctx, scope)


def unset(an: Analysis, node: Node, scope: Scope, ctx: Ctx) -> None:
    if any(node_text(c) == "-f" for c in node.named_children):  # `unset -f rm`: the program again
        for c in node.named_children:
            scope.functions.discard(node_text(c))
    for c in node.named_children:
        if "[" in node_text(c):  # older bash evaluates `unset 'a[EXPR]'`'s subscript
            arith.evaluate_name(an, an._word(c, scope, ctx).values[0], scope, ctx)
        scope.vars.pop(node_text(c), None)
        scope.env.pop(node_text(c), None)


def for_loop(an: Analysis, node: Node, scope: Scope, ctx: Ctx) -> None:
    var = node.child_by_field_name("variable")
    values: list[str] = []
    for c in node.children_by_field_name("value"):
        values += an._word(c, scope, ctx).values
    body = node.child_by_field_name("body")
    loop_name = node_text(var) if var is not None else ""
    known = bool(values) and len(values) <= 8 and all(DYN not in v for v in values)
    if _ENVIRONMENT_NAME.fullmatch(loop_name) and values:  # `for PATH in /tmp`: exported if it was
        for v in values:
            as_export(an, {loop_name: v}, node, ctx, scope)
    if body is not None and loop_name and known and loop_name not in an.unsafe_vars:
        # a short literal list: judge the body once per value, as bash would run it
        for v in values:
            scope.vars[loop_name] = v
            an._node(body, scope, ctx)
        scope.vars.pop(loop_name, None)
    else:
        scope.vars.pop(loop_name, None)
        an.unsafe_vars = an.unsafe_vars | {loop_name}
        if body is not None:
            an._node(body, scope, ctx)


def assign(an: Analysis, node: Node, scope: Scope, ctx: Ctx, export: bool) -> tuple[str, str] | None:
    name_node = node.child_by_field_name("name")
    value_node = node.child_by_field_name("value")
    if name_node is None:
        return None
    if name_node.type == "subscript":
        an._subscript_name(name_node, scope, ctx)
    name = node_text(name_node) if name_node.type == "variable_name" else ""
    value = ""
    if value_node is not None:
        w = an._word(value_node, scope, ctx)
        value = w.values[0] if len(w.values) == 1 and GLOB not in w.values[0] else DYN
        if value_node.type == "array":
            value = DYN
    if not name:
        return None
    if name in an._integers and value_node is not None:
        arith.evaluate_text(an, value, scope, ctx)  # after `declare -i n`, `n=EXPR` evaluates EXPR
    an._note_secret_words([value])
    if DYN in value or name in an.unsafe_vars:
        scope.vars.pop(name, None)
        if name == "HOME":
            scope.vars["HOME"] = DYN  # `~` then expands to a directory only known at run time
        if export or name in scope.env:  # exported earlier: the child sees a value not assumed
            scope.env[name] = value if export and name not in an.unsafe_vars else DYN
        return name, value
    scope.vars[name] = value
    if export or name in scope.env:
        scope.env[name] = value
    return name, value


def declaration(an: Analysis, node: Node, scope: Scope, ctx: Ctx) -> None:
    keyword = node_text(node.children[0]) if node.children else "declare"
    flags = [node_text(c) for c in node.named_children if c.type == "word"]
    export = keyword == "export" or any(f.startswith("-") and "x" in f for f in flags)
    env: dict[str, str] = {}
    integer = any(f.startswith("-") and "i" in f for f in flags)
    if any(f.startswith("-") and "A" in f for f in flags):  # associative: subscripts are strings
        for c in node.named_children:
            target = c.child_by_field_name("name") if c.type == "variable_assignment" else c
            if target is not None and target.type in ("variable_name", "word"):
                an._associative.add(node_text(target))
    if integer:  # later plain assignments to these names are arithmetic too
        for c in node.named_children:
            target = c.child_by_field_name("name") if c.type == "variable_assignment" else c
            if target is not None and target.type in ("variable_name", "word"):
                an._integers.add(node_text(target))
    nameref = any(f.startswith("-") and "n" in f for f in flags)
    an._namerefs = an._namerefs or nameref
    if nameref:  # `declare -n b=BASH_ENV; export b=F`: every later name may stand for any variable
        an._opaque(node_text(node), ctx, "a nameref makes later assignments and reads reach any variable")
    for c in node.named_children:
        if c.type == "variable_assignment":
            name_node = c.child_by_field_name("name")
            assigned = node_text(name_node) if name_node is not None else ""
            if assigned.partition("[")[0] in _COMMAND_TABLES:
                an._opaque(node_text(node), ctx, f"{assigned} changes which program a command name runs")
            # an upper-case name may already be in the environment: bash then exports the new value
            exported = export or (_ENVIRONMENT_NAME.fullmatch(assigned) is not None and "+x" not in flags)
            pair = assign(an, c, scope, ctx, export=exported)
            if pair and exported:
                env[pair[0]] = pair[1]
            value_node = c.child_by_field_name("value")
            if value_node is not None and (integer or nameref):
                value = an._word(value_node, scope, ctx).values[0]
                if integer and assigned not in an._integers:
                    arith.evaluate_text(an, value, scope, ctx)  # `declare -i n=EXPR` evaluates it
                else:
                    arith.evaluate_name(an, value, scope, ctx)  # a nameref's target is a name
        elif c.type != "word":
            for value in an._word(c, scope, ctx).values:  # `declare 'a[EXPR]=v'`
                arith.evaluate_name(an, value, scope, ctx, unknown_fails=False)
        elif "[" in node_text(c):
            arith.evaluate_name(an, node_text(c), scope, ctx)
    inv = Invocation(keyword, keyword, flags, node_text(node)[:200], env=env, via=ctx.via, wrapper=True)
    words = [node_text(c) for c in node.named_children if c.type in ("word", "variable_name")]
    if not any(c.type == "variable_assignment" for c in node.named_children):
        inv.prints = variables_printed(keyword, words)
    if export:  # `read X <<< V; export X`: X's value, known or not, goes to every child
        for name in words:
            if IDENTIFIER_RE.fullmatch(name):
                known = scope.vars.get(name) if name not in an.unsafe_vars else None
                scope.env[name] = known if known is not None else DYN
                env[name] = scope.env[name]
    an.invocations.append(inv)
