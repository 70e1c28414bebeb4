"""One simple command as the walker meets it: its words, assignments and redirects become an
argv; the argv is dispatched to its program's model (the table in programs/table.py), and the
effects every program may have through its options and environment are added."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from tree_sitter import Node

from agent.policy.facts import DYN, GLOB
from agent.policy.hooks import (
    ENV_PRINTERS,
    HOOKED_BY_OPTIONS,
    env_hooks,
    environment_hooks,
    has_env_hooks,
    option_hooks,
)
from agent.policy.invocation import DEVNULL, Ctx, Invocation, Redirs, Scope, WriteEffect
from agent.policy.options import option_values
from agent.policy.outputs import WRITES_THROUGH_OPTIONS, written_paths
from agent.policy.programs.archives import COMPRESSORS, MOVERS, moved_files, replaced_files
from agent.policy.programs.generic import generic_reads, gpus_from_env
from agent.policy.programs.shells import SHELLS
from agent.policy.programs.table import (
    CONTENT_OPTIONS,
    ENV_OPTIONS,
    ENV_OPTIONS_UNPLACEABLE,
    HOOKS,
    SEARCH_ROOTS,
    handler_for,
)
from agent.policy.recursive import RECURSIVE_READERS, reads_recursively
from agent.policy.redirects import CHANGES_DIRECTORY, fd_number, redirect, redirect_parts
from agent.policy.shellparse import Word, node_text, plain_value
from agent.policy.wrappers import WRAPPERS, wrapper

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


# what `run_argv` checks before calling `option_hooks` (most programs: no hooks)
HOOKED_PROGRAMS = HOOKED_BY_OPTIONS | frozenset(HOOKS)


# bash runs these itself: no PATH lookup
_BUILTINS = frozenset(
    ("echo", "printf", "cd", "pwd", "export", "read", "test", "[", "true", "false", ":", "local", "declare",
     "typeset", "readonly", "set", "unset", "shift", "return", "exit", "let", "eval", "source", ".", "type",
     "command", "builtin", "hash", "trap", "wait", "jobs", "kill", "getopts", "mapfile", "readarray", "shopt",
     "umask", "ulimit", "alias", "unalias", "pushd", "popd", "dirs", "exec", "times", "bg", "fg", "disown")
)  # fmt: skip


def _starts_up(arg: str) -> bool:
    """A shell option that makes it read start-up files: `-i`, `-l`, `--login`, in a cluster."""
    return arg == "--login" or (arg[:1] == "-" and arg[1:2] != "-" and ("l" in arg or "i" in arg))


def command(an: Analysis, node: Node, scope: Scope, ctx: Ctx) -> None:
    an._command_node = node
    an._stand_in(scope)
    env: dict[str, str] = {}
    redirs: Redirs | None = None  # a copy of ctx's, made at the first redirect of its own
    stdin = ctx.stdin
    words: list[Word] = []
    argv: list[str] = []
    src = an._src
    children = node.named_children
    if an._extra_words:
        children = [*children, *an._extra_words.pop(node.id, ())]
    for c in children:
        ct = c.type
        if ct == "variable_assignment":
            name_node = c.child_by_field_name("name")
            value_node = c.child_by_field_name("value")
            value = ""
            if value_node is not None:
                w = an._word(value_node, scope, ctx)
                value = w.values[0] if len(w.values) == 1 else DYN
            if name_node is not None and name_node.type == "subscript":
                an._subscript_name(name_node, scope, ctx)
            elif name_node is not None:
                env[node_text(name_node)] = value
                an._note_secret_words([value])
        elif ct.endswith("_redirect"):
            if redirs is None:
                redirs = Redirs(list(ctx.redirs.writes), list(ctx.redirs.reads))
            got = redirect(an, c, scope, ctx, redirs)
            if got is not None:
                stdin = got
            more_words, nested, unparsed = redirect_parts(c)
            if unparsed:
                an._opaque(node_text(node)[:200], ctx, "text after a redirect that the gate cannot parse")
            for n in nested:
                stdin = redirect(an, n, scope, ctx, redirs) or stdin
            for w_node in more_words:
                w = an._word(w_node, scope, ctx)
                words.append(w)
                argv += w.values
        elif fd_number(c, node):
            continue  # `0<<<CODE`: tree-sitter takes the descriptor for an argument
        else:
            plain = plain_value(c, ct, src)
            w = Word([plain], c) if plain is not None else an._word(c, scope, ctx)
            words.append(w)
            argv += w.values
    text = src[node.start_byte : node.end_byte][:300] if src is not None else node_text(node)[:300]
    inner = ctx if redirs is None and stdin is ctx.stdin else Ctx(ctx.via, redirs or ctx.redirs, stdin)
    if not argv:
        if env or inner.redirs.writes:
            an._emit(Invocation(":", ":", [], text, env=env, via=ctx.via), inner, scope)
        return
    an._argv(argv, words, {**scope.env, **env} if env else dict(scope.env), env, scope, inner, text)


def run_argv(
    an: Analysis,
    argv: list[str],
    words: list[Word] | None,
    full_env: dict[str, str],
    new_env: dict[str, str],
    scope: Scope,
    ctx: Ctx,
    text: str,
) -> None:
    prog = argv[0]
    wrapped, an._wrapped = an._wrapped, False  # run by `command`, `env`, `sudo`...: never a function
    an._stand_in(scope)
    an._note_secret_words(argv[1:])
    if DYN in prog or GLOB in prog:
        an._opaque(
            text,
            ctx,
            "the program to run is not known until it runs (a variable, substitution or glob in the command position)",
        )
        return
    if "/" not in prog and prog in an.hashed:  # `hash -p PATH NAME`: NAME now runs PATH
        prog = an.hashed[prog]
        argv = [prog, *argv[1:]]
        if DYN in prog or GLOB in prog:
            an._opaque(text, ctx, f"runs {argv[0]!r}, hashed earlier to a path only known at run time")
            return
    name = prog[prog.rfind("/") + 1 :]  # posixpath.basename
    if "/" not in prog and an._path_named and prog not in _BUILTINS and an._path_unknown():
        # `read PATH <<< /tmp; ls`, `printf -v PATH ...`: the directories names are looked up in are unknown
        an._opaque(text, ctx, "PATH is set in this command in a way the gate cannot follow", name)
        return
    for key in ENV_OPTIONS.get(name, ()):
        if key in full_env:  # `TAR_OPTIONS='--to-command=CMD' tar ...`: options read before its own
            given = full_env[key]
            try:
                extra = shlex.split(given) if DYN not in given else None
            except ValueError:
                extra = None
            unplaceable = ENV_OPTIONS_UNPLACEABLE.get(name)
            if extra is None or (unplaceable is not None and unplaceable(argv[1:])):  # tar's old form
                an._opaque(text, ctx, f"{name} takes options from {key} that the gate cannot place", name)
                return
            argv = [argv[0], *extra, *argv[1:]]
            words = None
    if name in SHELLS and "HOME" in new_env and any(_starts_up(a) for a in argv[1:]):
        # `HOME=DIR bash -ic ...` runs DIR/.bashrc, a file the gate did not take for a start-up file
        an._opaque(text, ctx, "an interactive or login shell reads the start-up files of a home set here")
        return
    path = an._path(prog).aliases[0] if "/" in prog else prog
    if "/" in prog and path in an.written:
        an._opaque(text, ctx, f"runs {prog}, a file written earlier in the same command", name)
        return
    if name in scope.functions and "/" not in prog and not wrapped:
        # its body was judged where it was defined; a call that feeds it stdin or redirects it
        # is judged again with those (`f() { sh; }; echo reboot | f`)
        # or whose arguments name a secret its body may read (`f() { cat "$1"; }; f ~/.ssh/id_rsa`)
        if ctx.stdin.kind != "none" or ctx.redirs.writes or ctx.redirs.reads or (an.listed_secrets and argv[1:]):
            an._call_function(name, argv, scope, ctx, text)
        body = an._function_bodies.get(name)
        if body is not None and CHANGES_DIRECTORY.search(node_text(body[0])):
            scope.also = (*scope.also, scope.cwd)  # where its `cd` went is not followed
            scope.cwd = None
        return
    if name == "shopt":
        an._shopt_seen = True
    if name == "set" and any(
        (a.startswith("-") and not a.startswith("--") and "a" in a) or a == "allexport" for a in argv[1:]
    ):
        an._allexport = True
    inv = Invocation(name, path, argv[1:], text, env=new_env, via=ctx.via, cwd=scope.cwd)
    an._current_words = words if words is not None and len(words) == len(argv) else None
    handler = handler_for(name)
    if name in WRAPPERS:
        wrapper(an, inv, argv, full_env, scope, ctx)
    else:
        if handler is not None:
            handler(an, inv, argv, full_env, scope, ctx)
        else:
            generic_reads(an, inv)
        if name in RECURSIVE_READERS and reads_recursively(name, argv[1:]):
            where = SEARCH_ROOTS.get(name)
            if where is not None:
                searched = [an._path(r).aliases[0] for r in where(argv[1:])]
                roots = searched or ([scope.cwd] if scope.cwd else [])
            else:
                roots = [r.aliases[0] for r in inv.reads]
            an._secrets_beneath(inv, roots)
        if name in WRITES_THROUGH_OPTIONS:
            for raw in written_paths(name, argv[1:]):
                ref = an._path(raw)
                if ref.aliases[0] not in DEVNULL:
                    inv.writes.append(WriteEffect(ref))
        if name in MOVERS:
            inv.deletes += [an._path(f) for f in moved_files(name, argv[1:])]
        if name in COMPRESSORS:
            for gone, twin in replaced_files(name, argv[1:]):
                inv.writes.append(WriteEffect(an._path(twin)))
                if gone:
                    inv.deletes.append(an._path(gone))
        gpus_from_env(an, inv, full_env)
        an._emit(inv, ctx, scope)
    # after the program itself: its handler may read `_current_words`, which these overwrite
    if name in HOOKED_PROGRAMS:
        an._run_hooks(option_hooks(name, argv), full_env, scope, ctx, text)
    # options whose file's text the program reads and may print (`du --files0-from=F` quotes it
    # in its errors, `file -f F` prints each line), whatever the program does with its operands
    read_options = CONTENT_OPTIONS.get(name)
    if read_options:
        inv.reads += [an._path(v) for _, v in option_values(argv[1:], read_options, clustered=True) if v]
    if name in ENV_PRINTERS:
        stdin = ctx.stdin.text if ctx.stdin.kind == "literal" else None
        an._run_hooks(environment_hooks(name, argv, text, stdin), full_env, scope, ctx, text)
    if full_env and has_env_hooks(full_env):
        fresh = [h for h in env_hooks(full_env) if (h.how, h.code) not in an._env_hooks_judged]
        an._env_hooks_judged.update((h.how, h.code) for h in fresh)
        an._run_hooks(fresh, full_env, scope, ctx, text)
