"""Redirects, here-documents, here-strings and pipelines: what a command's stdin is, and the files
its redirects read and write."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tree_sitter import Node

from agent.policy.facts import DYN
from agent.policy.invocation import DEVNULL, Ctx, Invocation, Redirs, Scope, Stdin, WriteEffect
from agent.policy.programs.files import printf_text
from agent.policy.programs.table import PRODUCES
from agent.policy.shellparse import decode_ansi_c, node_text, resolve_text, resolve_word

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


_HEREDOC_PARTS = frozenset(("heredoc_start", "heredoc_body", "heredoc_end"))


def _command_words(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type != "variable_assignment" and not c.type.endswith("_redirect")]


def redirected(an: Analysis, node: Node, scope: Scope, ctx: Ctx) -> None:
    body = node.child_by_field_name("body")
    while body is not None and body.type == "list" and body.named_children:
        # tree-sitter hangs `a && b > f` on the list; bash binds the redirect to `b` alone,
        # after `a` ran (a `cd` there changes where `f` is)
        *head, body = body.named_children
        for c in head:
            an._node(c, scope, ctx)
    redirected_body(an, node, body, scope, ctx)


def redirected_body(an: Analysis, node: Node, body: Node | None, scope: Scope, ctx: Ctx) -> None:
    an._stand_in(scope)
    redirs = Redirs(list(ctx.redirs.writes), list(ctx.redirs.reads))
    stdin = ctx.stdin
    followers: list[tuple[Node, bool]] = []
    extra: list[Node] = []  # words of the command that stand after a redirect
    broken: list[Node] = []
    for r in node.children_by_field_name("redirect"):
        got = redirect(an, r, scope, ctx, redirs)
        if got is not None:
            stdin = got
        words, nested, unparsed = redirect_parts(r)
        extra += words
        broken += unparsed
        for n in nested:
            got = redirect(an, n, scope, ctx, redirs)
            if got is not None:
                stdin = got
        if r.type == "heredoc_redirect":
            for i, c in enumerate(r.children):
                if (
                    c.is_named
                    and c.type not in _HEREDOC_PARTS
                    and not c.type.endswith("_redirect")
                    and c.type != "ERROR"
                    and r.field_name_for_child(i) != "argument"
                ):
                    prev = c.prev_sibling
                    piped = (prev is not None and node_text(prev) in ("|", "|&")) or (
                        c.type == "pipeline" and bool(c.children) and c.children[0].type in ("|", "|&")
                    )
                    followers.append((c, piped))
    fresh = redirs.writes[len(ctx.redirs.writes) :]
    if fresh and body is not None and body.type == "command":
        out = producer(an, body, scope, stdin, extra)
        if out.kind == "literal" and DYN not in out.text:
            redirs.writes[len(ctx.redirs.writes) :] = [WriteEffect(w.path, out.text) for w in fresh]
    inner = Ctx(ctx.via, redirs, stdin)
    target = body.named_children[-1] if body is not None and body.type == "pipeline" else body
    if broken or (extra and (target is None or target.type != "command")):
        why = "text after a redirect that the gate cannot parse" if broken else "words after a redirect"
        an._opaque(node_text(node)[:200], ctx, why)
    elif extra and target is not None:
        an._extra_words[target.id] = extra  # `rm -rf 2>/dev/null /models`: still rm's operands
    if body is None:
        an._emit(Invocation(":", ":", [], node_text(node)[:200], via=ctx.via), inner, scope)
    else:
        before = len(an.invocations)
        an._node(body, scope, inner)
        redirects_judged(an, redirs, before, node, ctx, scope)
    for follower, piped in followers:
        feed = producer(an, body, scope, stdin) if piped and body is not None else ctx.stdin
        an._node(follower, scope.copy() if piped else scope, Ctx(ctx.via, ctx.redirs, feed))


def redirects_judged(an: Analysis, redirs: Redirs, before: int, node: Node, ctx: Ctx, scope: Scope) -> None:
    """bash opens a redirect's file even when no program runs under it (`export X=1 > F`,
    `[[ 1 ]] > F`, `{ x=1; } < F`): what no invocation since `before` carried is judged alone."""
    emitted = an.invocations[before:]
    writes = [w for w in redirs.writes if not any(w in inv.writes for inv in emitted)]
    reads = [r for r in redirs.reads if not any(r in inv.reads for inv in emitted)]
    if writes or reads:
        alone = Invocation(":", ":", [], node_text(node)[:200], via=ctx.via)
        an._emit(alone, Ctx(ctx.via, Redirs(writes, reads)), scope)


def redirect(an: Analysis, r: Node, scope: Scope, ctx: Ctx, redirs: Redirs) -> Stdin | None:
    """Adds the redirect's file effects to `redirs`; returns stdin it supplies, if any."""
    if r.type == "heredoc_redirect":
        start = next((c for c in r.named_children if c.type == "heredoc_start"), None)
        body = next((c for c in r.named_children if c.type == "heredoc_body"), None)
        text = node_text(body) if body is not None else ""
        quoted = start is not None and any(q in node_text(start) for q in "'\"\\")
        if body is not None and not quoted:
            for c in body.named_children:
                if c.type in ("command_substitution", "process_substitution"):
                    an._substitution(c, scope, ctx)
                elif c.type in ("expansion", "simple_expansion"):
                    an._word(c, scope, ctx)
            text = resolve_text(text, an._lookup(scope))  # type: ignore[arg-type]
        if start is not None and node_text(start).startswith("-"):
            text = "\n".join(line.lstrip("\t") for line in text.split("\n"))
        return Stdin("literal", text)
    if r.type == "herestring_redirect":
        word_node = r.named_children[-1] if r.named_children else None
        if word_node is None:
            return Stdin("literal", "")
        w = an._word(word_node, scope, ctx)
        text = " ".join(w.values)
        return Stdin("literal", text + "\n")
    dest = r.child_by_field_name("destination")
    if dest is None:
        return None
    op = "".join(node_text(c) for c in r.children if not c.is_named)
    if (dest.type == "number" and op.endswith("&")) or op in (">&-", "<&-"):
        return None  # a descriptor duplicated (`2>&1`) or closed, not a file (`> 5` is one)
    w = an._word(dest, scope, ctx)
    if dest.type == "process_substitution":  # `< <(CMD)`: a pipe from CMD, judged as a command
        return Stdin("opaque", f"the output of {node_text(dest)[:60]!r}") if op.startswith("<") else None
    if op.startswith("<") and op != "<>":
        for v in w.values:
            redirs.reads.append(an._path(v))
        path = w.values[0] if len(w.values) == 1 else DYN
        return Stdin("file", path)
    for v in w.values:
        ref = an._path(v)
        if ref.aliases[0] in DEVNULL or ref.aliases[0].startswith("/dev/fd/"):
            continue
        redirs.writes.append(WriteEffect(ref, None))
    return None


def pipeline(an: Analysis, node: Node, scope: Scope, ctx: Ctx) -> None:
    parts = [c for c in node.named_children]
    feed = ctx.stdin
    for idx, part in enumerate(parts):
        inner = Ctx(ctx.via, ctx.redirs, feed)
        an._node(part, scope.copy(), inner)
        if idx + 1 < len(parts):
            feed = producer(an, part, scope, feed)
    if an._shopt_seen and parts and CHANGES_DIRECTORY.search(node_text(parts[-1])):
        # with `shopt -s lastpipe` the last part runs in this shell, and its `cd` stays
        scope.also = (*scope.also, scope.cwd)
        scope.cwd = None
        an._stand_in(scope)


def producer(an: Analysis, node: Node, scope: Scope, stdin: Stdin, extra: Sequence[Node] = ()) -> Stdin:
    """What `node` writes to a pipe, as far as the gate can know before it runs (`extra`: its
    words that stand after a redirect)."""
    if node.type in ("redirected_statement", "command") and any(
        any(redirect_parts(r)[::2]) for r in node.named_children if r.type.endswith("_redirect")
    ):
        return Stdin("opaque", "the output of a command with words after a redirect")
    if node.type == "redirected_statement":
        body = node.child_by_field_name("body")
        here = [r for r in node.children_by_field_name("redirect") if r.type != "file_redirect"]
        if body is not None and here:
            sub = an.fresh()  # a fresh walker, for the producer alone
            red = Redirs()
            got = redirect(sub, here[-1], scope.copy(), Ctx(), red)
            return producer(an, body, scope, got or stdin)
        if body is not None:
            return producer(an, body, scope, stdin)
    if node.type != "command":
        return Stdin("opaque", f"the output of {node_text(node)[:60]!r}")
    words = [resolve_word(c, an._lookup(scope)) for c in [*_command_words(node), *extra]]  # type: ignore[arg-type]
    argv = [w.values[0] if len(w.values) == 1 else DYN for w in words]
    if not argv:
        return Stdin("opaque", "unknown output")
    name = posixpath.basename(argv[0])
    if name == "echo" and all(DYN not in a for a in argv[1:]):
        args = argv[1:]
        newline = True
        while args and re.fullmatch(r"-[neE]+", args[0]):
            if "n" in args[0]:
                newline = False
            if "e" in args[0]:
                args = [decode_ansi_c(a) for a in args]
            args = args[1:]
        return Stdin("literal", " ".join(args) + ("\n" if newline else ""))
    if name == "printf" and len(argv) >= 2 and all(DYN not in a for a in argv[1:]):
        printed = printf_text(argv[1], argv[2:])
        if printed is not None:
            return Stdin("literal", printed)
    if name == "cat" and len(argv) == 1:
        return stdin
    if name == "cat" and len(argv) == 2 and not argv[1].startswith("-"):
        return Stdin("file", argv[1])
    why = PRODUCES.get(name, "produced at run time")
    return Stdin("opaque", f"text {why} by {name}")


CHANGES_DIRECTORY = re.compile(r"\b(cd|pushd|popd)\b")


def fd_number(word: Node, command: Node) -> bool:
    """A number that touches the redirect after it (`python3 0<<<CODE`, `systemctl 0</dev/null X`)
    is that redirect's file descriptor, whichever node tree-sitter hangs the redirect on."""
    if word.type != "number" or not node_text(word).isdigit():
        return False
    after = word.next_sibling
    if after is None and word.end_byte == command.end_byte:
        after = command.next_sibling
    return after is not None and after.type.endswith("_redirect") and after.start_byte == word.end_byte


def redirect_parts(r: Node) -> tuple[list[Node], list[Node], list[Node]]:
    """What bash reads after a redirect's own target that tree-sitter hangs on the redirect: more
    words of the command (`rm -rf 2>/dev/null /models`, `rm -rf <<E /models`), more redirects
    (`cat <<E > F`) and text it could not parse (`cat <<E x > F`)."""
    words: list[Node] = []
    redirects: list[Node] = []
    broken: list[Node] = []
    if r.type == "file_redirect":
        closes = any(not c.is_named and node_text(c) in (">&-", "<&-") for c in r.children)
        words = r.children_by_field_name("destination")[0 if closes else 1 :]  # `<&-` takes no file
    elif r.type == "heredoc_redirect":
        for i, c in enumerate(r.children):
            if c.type.endswith("_redirect"):
                redirects.append(c)
                more_words, more_redirects, more_broken = redirect_parts(c)
                words += more_words
                redirects += more_redirects
                broken += more_broken
            elif c.type == "ERROR":
                broken.append(c)
            elif r.field_name_for_child(i) == "argument":
                words.append(c)
    return words, redirects, broken
