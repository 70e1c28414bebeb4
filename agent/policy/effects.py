"""What a bash command line does: every program it runs, through every wrapper, with the files
it writes, deletes and reads, the signals it sends, the environment it sets and the GPUs it uses.

This module is the shell walker: it visits the tree-sitter parse and knows shell semantics
only (words and expansions, functions, traps, lists, `cd`); the modules beside it take one
concern each (commands.py: a simple command to an argv and its dispatch; redirects.py,
assignments.py, builtins.py, wrappers.py, variables.py). What each program does is its model's
business, under agent/policy/programs/, found through the one table in programs/table.py.

`analyse(command, facts)` returns one `Invocation` per program that would run. An invocation
the gate cannot judge (a variable in the command position, `eval` of run-time text, a decoded
or downloaded payload fed to a shell, a script written and run in one go, a parse error)
carries `opaque`, the reason, and is never allowed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from tree_sitter import Node

from agent.policy import arith
from agent.policy.assignments import declaration, for_loop, plain_assignment, unset
from agent.policy.commands import command, run_argv
from agent.policy.facts import DYN, GLOB, Facts, aliases, normalise_path, visible
from agent.policy.hooks import file_hooks, runs_later
from agent.policy.invocation import MAX_CWDS, Ctx, Hook, Invocation, PathRef, Redirs, Scope, WriteEffect
from agent.policy.programs.base import printenv_hooks, visible_words
from agent.policy.programs.generic import VARIABLE_PRINTERS, variables_printed
from agent.policy.programs.python.interpreter import python_code
from agent.policy.recursive import in_secret_location, secrets_within
from agent.policy.redirects import pipeline, redirect, redirected, redirects_judged
from agent.policy.shellparse import (
    ContinuationHazard,
    Word,
    expanded_names,
    first_error,
    node_text,
    parse_ascii,
    plain_value,
    resolve_word_slow,
)
from agent.policy.variables import _SECRET_ROOTS, _SETS_PATH, UnsafeState, _EveryName, _resolve_unsafe
from agent.policy.wrappers import IDENTIFIER_RE

MAX_DEPTH = 8


_SUB = re.compile(r"\$\{[#]?[\w@*]+:(?![-=+?])")  # a substring expansion `${x:...}`


class Analyser:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.invocations: list[Invocation] = []
        self.written: set[str] = set()
        self.links: dict[str, str] = {}
        # the unsafe variables, or (what was unsafe outside, the tree still to be looked at):
        # most commands set and expand no variable, and the look is made only when asked for
        self._unsafe: UnsafeState = set()
        self._env_hooks_judged: set[tuple[str, str]] = set()
        self.hashed: dict[str, str] = {}  # `hash -p PATH NAME` earlier in the command
        self._arith_counters: set[str] = set()  # `for ((i=0; ...; i++))`: numbers by construction
        # after `declare -n r=x`, setting r sets x: no variable's value can be assumed from then on
        self._namerefs = False
        self._function_bodies: dict[str, tuple[Node, str | None]] = {}  # to judge a call fed stdin
        self._associative: set[str] = set()  # arrays declared `-A` in this command
        self._integers: set[str] = set()  # names declared `-i`: what is assigned to them is arithmetic
        self._wrapped = False  # the next `_argv` is a wrapper's program: a function of that name is not it
        self._allexport = False  # after `set -a`, every assignment is exported
        self._path_named = False  # the command's text names PATH somewhere (most do not)
        # node id of a command -> its words that tree-sitter hung on a redirect after it
        self._extra_words: dict[int, list[Node]] = {}
        self._calling: set[str] = set()
        self._command_node: Node | None = None  # the simple command being judged
        self._shopt_seen = False  # a `shopt` ran earlier: `cdable_vars` may be on
        self.unseen_python = False  # a .py of unseen text was written: Python may import it
        # something named, listed or read a secret location (`ls ~/.ssh | xargs cat`): see
        # `_note_secret_words`, `_emit`
        self.listed_secrets = False
        self._cwd_guards: list[tuple[tuple[int, int], tuple[str | None, ...]]] = []  # see `_list`

    def fresh(self) -> Analyser:
        return type(self)(self.facts)

    def run_source(self, source: str, scope: Scope, ctx: Ctx, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            self._opaque(source, ctx, "shell code nested more than 8 levels deep")
            return
        try:
            tree, src = parse_ascii(source)
        except ContinuationHazard as hazard:
            self._opaque(source, ctx, str(hazard))
            return
        root = tree.root_node
        err = first_error(root)
        if err is not None:
            near = node_text(err)[:40] or source[err.start_byte : err.start_byte + 40]
            self._opaque(source, ctx, f"bash cannot parse it as written (near {near!r})")
            return
        saved = self._unsafe
        self._unsafe = (saved, root)
        self._depth = depth
        self._path_named = self._path_named or "PATH" in source
        saved_src, self._src = self._src, src
        if "`" in source:
            self._stray_backticks(root, scope, ctx)
        self._node(root, scope, ctx)
        self._unsafe = saved
        self._src = saved_src

    @property
    def unsafe_vars(self) -> set[str]:
        """Variables whose value must not be assumed here (see `_unsafe_variables`)."""
        state = self._unsafe
        if isinstance(state, tuple):
            state = self._unsafe = _resolve_unsafe(state)
        return state

    @unsafe_vars.setter
    def unsafe_vars(self, value: set[str]) -> None:
        self._unsafe = value

    def _opaque(self, text: str, ctx: Ctx, reason: str, program: str = "") -> None:
        shown = visible(text) if DYN in text or GLOB in text else text  # markers as a person reads them
        self.invocations.append(Invocation(program, program, [], shown.strip()[:200], via=ctx.via, opaque=reason))

    def _stray_backticks(self, root: Node, scope: Scope, ctx: Ctx) -> None:
        """`` `CMD` `` where tree-sitter kept it as text (a here-document's body, `${x:-`CMD`}`,
        `[[ a =~ `CMD` ]]`): bash runs CMD there all the same, so it is judged as `$(CMD)` is."""
        stack = [root]
        while stack:
            n = stack.pop()
            if n.type in ("raw_string", "ansi_c_string"):
                continue
            if n.type == "heredoc_redirect":
                start = next((c for c in n.named_children if c.type == "heredoc_start"), None)
                if start is not None and any(q in node_text(start) for q in "'\"\\"):
                    continue  # a quoted here-document's body is text
            if n.child_count == 0 or n.type in ("heredoc_body", "regex", "word"):
                text = node_text(n)
                for m in re.finditer(r"(?<!\\)`((?:[^`\\]|\\.)*)`", text):
                    via = Ctx((*ctx.via, "`...`"))
                    self._same_shell_string(m.group(1).replace("\\`", "`"), scope, via, "`...`")
                if n.type != "heredoc_body":
                    continue
            stack.extend(n.children)

    def _path_unknown(self) -> bool:
        unsafe = self.unsafe_vars
        if isinstance(unsafe, _EveryName):  # after a trap or IFS: PATH if it is set anywhere here
            return _SETS_PATH.search(self._src or "") is not None
        return "PATH" in unsafe

    def _note_secret_words(self, words: list[str]) -> None:
        """A secret location named anywhere in the command (`bash -c 'cat "$1"' _ ~/.ssh/id_rsa`,
        `f=~/.ssh/id_rsa` in a trap's text): a file named only at run time may be that secret."""
        if self.listed_secrets:
            return
        home = self.facts.home
        # and where a link (a host fact's, `/proc/N/root`) leads into one
        roots = (*_SECRET_ROOTS, *((home,) if home else ()), *self.facts.known_symlinks, *self.links)
        for word in words:
            if "/" not in word and "~" not in word:
                continue  # most words: no path at all
            # `a=x,/home/ops/.ssh/id_rsa` split on IFS, `--key=/root/.ssh/id_rsa`
            for w in re.split(r"[,:;=\s]+", word) if any(c in word for c in ",:;= \t") else (word,):
                if not (w.startswith(roots) or (w[:1] == "/" and ".." in w)):
                    continue  # the secret locations lie in homes and a few system directories
                if any(in_secret_location(p, home) for p in self._path(w).aliases):
                    self.listed_secrets = True
                    return

    def arith_variable(self, name: str, scope: object) -> str | None:
        if name in self._arith_counters:
            return "0"
        assert isinstance(scope, Scope)
        value = self._lookup(scope)(name)  # type: ignore[operator]
        return value if isinstance(value, str) else None

    def arith_code(self, code: str, scope: object, ctx: object) -> None:
        assert isinstance(scope, Scope) and isinstance(ctx, Ctx)
        self._shell_string(code, dict(scope.env), scope, Ctx((*ctx.via, "arithmetic")), "a subscript bash evaluates")

    def arith_opaque(self, text: str, ctx: object, reason: str) -> None:
        assert isinstance(ctx, Ctx)
        self._opaque(text, ctx, reason)

    def _arithmetic_in_word(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`$((...))`, `$[...]`, `${a[...]}` and `${!x}` inside a word: evaluated as arithmetic."""
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "arithmetic_expansion":
                text = node_text(n)
                arith.evaluate_source(self, text[3:-2] if text.startswith("$((") else text[2:-1], scope, ctx)
                continue
            if n.type == "expansion":
                text = node_text(n)
                if text.endswith("@P}") and IDENTIFIER_RE.fullmatch(text[2:-3]):
                    # `${x@P}` expands x's value as a prompt: a `$(...)` in it runs
                    value = self.arith_variable(text[2:-3], scope)
                    if value is None:
                        self._opaque(
                            text, ctx, "a prompt expansion of a value only known at run time runs what it holds"
                        )
                    else:
                        self._shell_string(f": {value}", dict(scope.env), scope, Ctx((*ctx.via, "${x@P}")), "${x@P}")
                if text.startswith("${!") and IDENTIFIER_RE.fullmatch(text[3:-1]):
                    target = self.arith_variable(text[3:-1], scope)
                    arith.evaluate_name(self, DYN if target is None else target, scope, ctx)
                for part in arith.substring_operands(n):
                    arith.evaluate_source(self, part, scope, ctx)  # `${x:OFF:LEN}`: both are arithmetic
                for sub in n.named_children:
                    index = sub.child_by_field_name("index") if sub.type == "subscript" else None
                    array = sub.child_by_field_name("name") if sub.type == "subscript" else None
                    if array is not None and node_text(array) in self._associative:
                        continue  # `${m[key]}` of a `declare -A` array: a string, not arithmetic
                    if index is not None and node_text(index) not in ("@", "*"):
                        arith.evaluate_source(self, node_text(index), scope, ctx)
            stack.extend(n.named_children)

    def _subscript_name(self, name_node: Node, scope: Scope, ctx: Ctx) -> None:
        """`a[EXPR]=v`: EXPR is judged (a substitution in it runs) and evaluated as arithmetic."""
        index = name_node.child_by_field_name("index")
        array = name_node.child_by_field_name("name")
        if index is not None:
            self._word(index, scope, ctx)
            if array is None or node_text(array) not in self._associative:
                arith.evaluate_source(self, node_text(index), scope, ctx)

    def _arith_compound(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`(( EXPR ))` is arithmetic; `{ ...; }` is a group of commands."""
        first = node.children[0] if node.children else None
        if first is not None and first.type == "((":
            text = node_text(node).strip()
            self._children(node, scope, ctx)
            arith.evaluate_source(self, text[2:-2] if text.endswith("))") else text[2:], scope, ctx)
        else:
            self._children(node, scope, ctx)

    def _c_for(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`for ((INIT; COND; STEP))`: names the header assigns numbers to count as numbers."""
        parts = [node.child_by_field_name(f) for f in ("initializer", "condition", "update")]
        header = " ".join(node_text(p) for p in parts if p is not None)
        self._arith_counters |= set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=[^=]|\+\+|--|[-+*/%]=)", header))
        self._arith_counters |= set(re.findall(r"(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)", header))
        for part in parts:
            if part is not None:
                arith.evaluate_source(self, node_text(part), scope, ctx)
        self._children(node, scope, ctx)

    def _test_command(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`[[ A -eq B ]]` evaluates A and B as arithmetic, `[[ -v NAME ]]` NAME's subscript
        (`[ ... ]`, the test builtin, does neither)."""
        first = node.children[0] if node.children else None
        if first is not None and first.type == "[[":
            stack = list(node.named_children)
            while stack:
                n = stack.pop()
                op = n.child_by_field_name("operator")
                if n.type == "binary_expression" and op is not None and node_text(op) in arith.ARITHMETIC_TESTS:
                    for side in ("left", "right"):
                        operand = n.child_by_field_name(side)
                        if operand is not None:
                            arith.evaluate_source(self, node_text(operand), scope, ctx)
                elif n.type == "unary_expression" and n.children and node_text(n.children[0]) == "-v":
                    for operand in n.named_children[-1:]:
                        arith.evaluate_name(self, self._word(operand, scope, ctx).values[0], scope, ctx)
                stack.extend(n.named_children)
        self._children(node, scope, ctx)

    def _lookup(self, scope: Scope) -> object:
        """A variable's value; called while the word is resolved, so the unsafe variables are
        looked for only when a word names a variable."""
        home = self.facts.home

        def lookup(name: str) -> str | None:
            if self._namerefs or name in self.unsafe_vars:
                return None
            if name in scope.vars:
                return scope.vars[name]
            if name in scope.env:
                return scope.env[name]
            if name == "HOME":
                return home
            return None

        return lookup

    def _word(self, node: Node, scope: Scope, ctx: Ctx) -> Word:
        plain = plain_value(node)
        if plain is not None:
            return Word([plain], node)  # nothing in it to look up or to run
        w = resolve_word_slow(node, self._lookup(scope))  # type: ignore[arg-type]
        for sub in w.substitutions:
            self._substitution(sub, scope, ctx)
        raw = node_text(node)
        # `${x:OFF}` (a colon not followed by `-=+?`): its offset and length are arithmetic too
        if (
            "$((" in raw
            or "$[" in raw
            or ("${" in raw and ("[" in raw or "${!" in raw or "@P}" in raw or _SUB.search(raw)))
        ):
            self._arithmetic_in_word(node, scope, ctx)
        if "$" in raw:
            self._secret_expansions(node, scope, ctx)
        return w

    def _secret_expansions(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`$HF_TOKEN` anywhere (an argument, a here-string, an assignment that copies it) may put
        the secret in the transcript: judged as `printenv HF_TOKEN`; `${!name}` as `env`."""
        names = expanded_names(node)
        hooks = printenv_hooks(names, "")
        if "*" in names:
            hooks.append(Hook("${!name}", argv=("env",)))
        if hooks and not _in_a_test(node):  # `[ -n "$HF_TOKEN" ]`: compared, not printed
            self._run_hooks(hooks, dict(scope.env), scope, ctx, node_text(node))

    def _substitution(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        inner = Ctx(via=(*ctx.via, "$(...)" if node.type == "command_substitution" else "<(...)"))
        sub_scope = scope.copy()
        for child in node.named_children:
            if child.type == "file_redirect":  # `$(<file)`: bash reads the file, as `cat file` would
                redirs = Redirs()
                redirect(self, child, sub_scope, inner, redirs)
                read = Invocation(":", ":", [], node_text(node)[:200], reads=redirs.reads, via=inner.via)
                self._emit(read, Ctx(inner.via), sub_scope)
                continue
            self._node(child, sub_scope, inner)

    def _node(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        handler = _NODE_HANDLERS.get(node.type)
        if handler is None:
            self._children(node, scope, ctx)
        else:
            handler(self, node, scope, ctx)

    def _children(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """Every named child: words resolved (their substitutions judged), the rest analysed."""
        for c in node.named_children:
            t = c.type
            if t in _WORD_CHILDREN:
                self._word(c, scope, ctx)
            else:
                handler = _NODE_HANDLERS.get(t)
                if handler is None:
                    self._children(c, scope, ctx)
                else:
                    handler(self, c, scope, ctx)

    def _skip(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        return

    def _as_word(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        self._word(node, scope, ctx)

    def _subshell(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        sub = scope.copy()
        for c in node.named_children:
            self._node(c, sub, ctx)

    def _substitution_node(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        self._substitution(node, scope, ctx)

    def _assignment_node(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        plain_assignment(self, node, scope, ctx)

    def _assignments(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        for c in node.named_children:
            plain_assignment(self, c, scope, ctx)

    def _function(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is not None:
            scope.functions.add(node_text(name))
            if body is not None:
                self._function_bodies[node_text(name)] = (body, self._src)
        # `f() { echo b; } > /proc/sysrq-trigger`: the redirects (and those around the definition)
        # apply to the body each time it runs; the body is judged once, here, with them
        redirs = Redirs(list(ctx.redirs.writes), list(ctx.redirs.reads))
        stdin = Ctx().stdin
        for r in node.children_by_field_name("redirect"):
            stdin = redirect(self, r, scope, ctx, redirs) or stdin
        if body is not None:
            via = (*ctx.via, f"function {node_text(name) if name else ''}")
            before = len(self.invocations)
            self._node(body, scope.copy(), Ctx(via, redirs, stdin))
            redirects_judged(self, redirs, before, node, ctx, scope)

    def _call_function(self, name: str, argv: list[str], scope: Scope, ctx: Ctx, text: str) -> None:
        found = self._function_bodies.get(name)
        if found is None or name in self._calling:
            self._emit(Invocation(name, name, argv[1:], text, via=ctx.via, wrapper=True), ctx, scope)
            return
        body, src = found
        saved, self._src = self._src, src
        self._calling.add(name)
        try:
            self._node(body, scope.copy(), Ctx((*ctx.via, f"function {name}"), ctx.redirs, ctx.stdin))
        finally:
            self._calling.discard(name)
            self._src = saved

    # what the models call back into, defined beside the walker (commands.py, programs/python/)
    def _argv(
        self,
        argv: list[str],
        words: list[Word] | None,
        full_env: dict[str, str],
        new_env: dict[str, str],
        scope: Scope,
        ctx: Ctx,
        text: str,
    ) -> None:
        run_argv(self, argv, words, full_env, new_env, scope, ctx, text)

    def _python_code(self, code: str, inv: Invocation, scope: Scope, via: tuple[str, ...]) -> None:
        python_code(self, code, inv, scope, via)

    def _secrets_beneath(self, inv: Invocation, directories: list[str]) -> None:
        """A recursive read of these directories reads the secrets beneath them (recursive.py)."""
        seen = {r.aliases[0] for r in inv.reads}
        for d in directories:
            for location in secrets_within(d, self.facts.home, self.facts.secret_paths):
                if location not in seen:  # normalised already, and no kernel alias leads there
                    seen.add(location)
                    inv.reads.append(PathRef(location, (location,)))

    def _run_hooks(self, hooks: list[Hook], env: dict[str, str], scope: Scope, ctx: Ctx, text: str) -> None:
        """Judge what a program runs on the command's behalf (see hooks.py) as if it ran here."""
        for h in hooks:
            inner = Ctx((*ctx.via, h.how))
            if h.opaque is not None:
                self._opaque(text, ctx, h.opaque)
            elif h.argv:
                argv = list(h.argv)
                self._argv(argv, None, env, {}, scope, inner, visible_words(argv)[:300])
            else:
                self._shell_string(h.code, env, scope, inner, h.how)

    def _emit(self, inv: Invocation, ctx: Ctx, scope: Scope) -> None:
        if inv.program in VARIABLE_PRINTERS and not inv.wrapper and not inv.prints:
            inv.prints = variables_printed(inv.program, inv.args)
        if ctx.redirs.writes:
            inv.writes = [*inv.writes, *ctx.redirs.writes]
        if ctx.redirs.reads:
            inv.reads = [*inv.reads, *ctx.redirs.reads]
        if not self.listed_secrets:
            home = self.facts.home
            self.listed_secrets = any(in_secret_location(a, home) for r in inv.reads for a in r.aliases)
        for w in inv.writes:
            self.written.update(w.path.aliases)
            if w.content is None:
                self._unseen_text(w, ctx)
                continue
            if w.path.aliases[0].endswith((".sh", ".py")) or w.content.startswith("#!"):
                self._judge_script_text(w, ctx, scope)
                continue
            for alias in w.path.aliases:  # a cron line, a start-up file, a unit's ExecStart=
                later = file_hooks(alias, w.content, self.facts.home)
                if later:
                    self._run_hooks(later, dict(scope.env), Scope(), Ctx(ctx.via), visible(w.path.raw))
                    break
        self.invocations.append(inv)

    def _unpacked(self, directory: str) -> None:
        """An archive unpacked there: files of any name (a `.git/config`, a `json.py`) the gate
        has not seen. Python started there may import them; git there reads their settings."""
        where = self._path(directory).aliases[0].rstrip("/")
        if "/.git/" in where + "/" or where.endswith(".git"):  # git's own settings and hooks, unseen
            why = f"unpacks files the gate has not seen into {visible(where)}, a git repository's own"
            self._opaque(directory, Ctx(), why)
        self.written.add(where + "/" + DYN)
        if self._scope_cwd is None or where == self._scope_cwd or DYN in where:
            self.unseen_python = True

    def _unseen_text(self, w: WriteEffect, ctx: Ctx) -> None:
        """Text the gate cannot see, written where the host (or the next git or Python) runs it:
        nothing judges it later, so it fails closed now."""
        for alias in w.path.aliases:
            if alias.endswith((".py", ".pth", ".pyc", ".so", ".zip")):  # a module Python may import instead
                self.unseen_python = True
            if runs_later(alias, self.facts.home):
                shown = visible(w.path.raw)
                self.invocations.append(
                    Invocation(
                        "", "", [], shown, via=ctx.via, opaque=f"writes unseen text to {shown}, which runs later"
                    )
                )
                return

    def _judge_script_text(self, w: WriteEffect, ctx: Ctx, scope: Scope) -> None:
        """A script written with literal text is judged as if it ran: writing it is not safer."""
        assert w.content is not None
        via = (*ctx.via, f"script text written to {visible(w.path.raw)}")
        if w.path.aliases[0].endswith(".py") or w.content.startswith("#!/usr/bin/env python"):
            script = Invocation("python3", "python3", [w.path.aliases[0]], w.content[:200], via=via)
            python_code(self, w.content, script, scope, via)
            self._emit(script, Ctx(via), scope)  # its writes, deletes, reads and signals count too
        else:
            self.run_source(
                w.content, Scope(cwd=scope.cwd, env=dict(scope.env), also=scope.also), Ctx(via=via), self._depth_next()
            )

    def _depth_next(self) -> int:
        return getattr(self, "_depth", 0) + 1

    def _path(self, raw: str, cwd: str | bool | None = True) -> PathRef:
        base = self._scope_cwd if cwd is True else cwd
        norm = normalise_path(raw, cwd=base if isinstance(base, str) else None, home=self._scope_home)
        found = aliases(norm, self.facts, self.links)
        if cwd is True and self._scope_also and not raw.startswith(("/", "~")):
            for other in self._scope_also:  # relative to each directory a failed `cd` left it in
                alt = normalise_path(raw, cwd=other, home=self._scope_home)
                found = tuple(dict.fromkeys((*found, *aliases(alt, self.facts, self.links))))
        return PathRef(raw, found)

    _scope_cwd: str | None = None

    _scope_also: tuple[str | None, ...] = ()  # see `Scope.also`

    _scope_home: str | None = None  # what `~` expands to where the current command runs

    _src: str | None = None  # the ASCII text of the tree being walked (None: read nodes' own text)

    def _stand_in(self, scope: Scope) -> None:
        """Resolve paths from here on as `scope` would: its directory, and the `~` it expands."""
        self._scope_cwd = scope.cwd
        self._scope_also = scope.also
        self._scope_home = self._home_of(scope)

    def _home_of(self, scope: Scope) -> str | None:
        """`~` as bash expands it here: $HOME if this command set it (unknown: DYN), else the host's."""
        value = scope.vars.get("HOME", scope.env.get("HOME"))
        return self.facts.home if value is None else value

    def _shell_string(self, code: str, env: dict[str, str], scope: Scope, ctx: Ctx, how: str) -> None:
        if DYN in code:
            self._opaque(code, ctx, f"{how} runs shell code that is only known at run time (eval of non-literal text)")
            return
        sub = Scope(env=dict(env), cwd=scope.cwd, also=scope.also)
        self.run_source(code, sub, ctx, self._depth_next())

    def _same_shell_string(self, code: str, scope: Scope, ctx: Ctx, how: str, keep: bool = False) -> None:
        """Code this shell runs itself (a trap's action, `` `CMD` ``): it sees the variables set
        here, and with `keep` what it sets stays set for what follows."""
        if DYN in code:
            self._opaque(code, ctx, f"{how} runs shell code that is only known at run time")
            return
        self.run_source(code, scope if keep else scope.copy(), ctx, self._depth_next())

    _current_words: list[Word] | None = None

    def _success_guard(self) -> tuple[int, int] | None:
        """The list whose rest runs only if the current command succeeded (`cmd && rest`)."""
        node = self._command_node
        while node is not None and node.parent is not None and node.parent.type in ("list", "redirected_statement"):
            parent = node.parent
            if parent.type == "list":
                kids = parent.children
                at = next(
                    (k for k, c in enumerate(kids) if c.start_byte == node.start_byte and c.end_byte == node.end_byte),
                    -1,
                )
                if at > 0 and kids[at - 1].type != "&&":
                    return None  # `cd a || cd b && rest`: rest also runs where `cd a` went
                if 0 <= at < len(kids) - 1:
                    return (parent.start_byte, parent.end_byte) if kids[at + 1].type == "&&" else None
            node = parent
        return None

    def _list(self, node: Node, scope: Scope, ctx: Ctx) -> None:
        """`a && b || c`: once it ends, a `cd` guarded inside it may have failed after all."""
        self._children(node, scope, ctx)
        key = (node.start_byte, node.end_byte)
        while self._cwd_guards and self._cwd_guards[-1][0] == key:
            _, also = self._cwd_guards.pop()
            merged = tuple(dict.fromkeys((*scope.also, *(d for d in also if d != scope.cwd))))
            scope.also = merged if len(merged) <= MAX_CWDS else (None,)
            self._stand_in(scope)


# what a node of each type does; a type not named here: its named children, one by one
_NODE_HANDLERS: dict[str, Callable[[Analyser, Node, Scope, Ctx], None]] = {
    **dict.fromkeys(
        ("comment", "heredoc_body", "heredoc_start", "heredoc_end", "variable_name", "word"), Analyser._skip
    ),
    "command": command,
    "list": Analyser._list,
    "redirected_statement": redirected,
    "pipeline": pipeline,
    "subshell": Analyser._subshell,
    "command_substitution": Analyser._substitution_node,
    "process_substitution": Analyser._substitution_node,
    "variable_assignment": Analyser._assignment_node,
    "variable_assignments": Analyser._assignments,
    "declaration_command": declaration,
    "unset_command": unset,
    "function_definition": Analyser._function,
    "for_statement": for_loop,
    "c_style_for_statement": Analyser._c_for,
    "compound_statement": Analyser._arith_compound,
    "test_command": Analyser._test_command,
    **dict.fromkeys(
        ("string", "concatenation", "simple_expansion", "expansion", "raw_string", "number"), Analyser._as_word
    ),
}


# children resolved as words where they stand (in a list, a program, any other statement)
_WORD_CHILDREN = frozenset(("word", "string", "concatenation", "simple_expansion", "expansion"))


def _in_a_test(node: Node) -> bool:
    """Whether a word is an operand of `[ ]`, `test` or `[[ ]]` (which print nothing)."""
    parent = node.parent
    while parent is not None and parent.type not in ("command", "test_command", "program", "redirected_statement"):
        parent = parent.parent
    if parent is None or (parent.type != "command" and parent.type != "test_command"):
        return False
    if parent.type == "test_command":
        return True
    name = parent.child_by_field_name("name")
    return name is not None and node_text(name) in ("[", "test")


def analyse(command: str, facts: Facts) -> list[Invocation]:
    """Every program `command` would run, with what each does."""
    a = Analyser(facts)
    a._scope_cwd = facts.cwd
    a._scope_home = facts.home
    scope = Scope(cwd=facts.cwd)
    a.run_source(command, scope, Ctx())
    return a.invocations


def with_tool(inv: Invocation, tool: str) -> Invocation:
    return replace(inv, tool=tool)
