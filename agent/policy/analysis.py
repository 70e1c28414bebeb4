"""What a program model, and each concern beside the shell walker, may ask of the analysis.

The shell walker (`effects.Analyser`) imports every program model through `programs/table.py`;
the models call back into it (resolve a path, judge a nested shell string, emit an invocation).
They depend on this `Protocol` instead of the class, so the imports point one way: the walker
knows the models, the models know only this interface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from agent.policy.arith import Host

if TYPE_CHECKING:
    from tree_sitter import Node

    from agent.policy.facts import Facts
    from agent.policy.invocation import Ctx, Hook, Invocation, PathRef, Scope
    from agent.policy.shellparse import Word


class Analysis(Host, Protocol):
    """The analysis of one command line, as the code beside the walker sees it."""

    facts: Facts
    invocations: list[Invocation]
    written: set[str]
    links: dict[str, str]
    hashed: dict[str, str]
    listed_secrets: bool
    unseen_python: bool
    # walker state the shell's own concerns (commands, assignments, redirects, wrappers) share
    _src: str | None
    _allexport: bool
    _associative: set[str]
    _integers: set[str]
    _command_node: Node | None
    _current_words: list[Word] | None
    _cwd_guards: list[tuple[tuple[int, int], tuple[str | None, ...]]]
    _env_hooks_judged: set[tuple[str, str]]
    _extra_words: dict[int, list[Node]]
    _function_bodies: dict[str, tuple[Node, str | None]]
    _namerefs: bool
    _path_named: bool
    _scope_also: tuple[str | None, ...]
    _scope_cwd: str | None
    _shopt_seen: bool
    _wrapped: bool

    @property
    def unsafe_vars(self) -> set[str]: ...

    @unsafe_vars.setter
    def unsafe_vars(self, value: set[str]) -> None: ...

    def run_source(self, source: str, scope: Scope, ctx: Ctx, depth: int = 0) -> None: ...

    def fresh(self) -> Analysis:
        """A new walker over the same facts, for judging a part of the command on its own."""
        ...

    def _argv(
        self,
        argv: list[str],
        words: list[Word] | None,
        full_env: dict[str, str],
        new_env: dict[str, str],
        scope: Scope,
        ctx: Ctx,
        text: str,
    ) -> None: ...

    def _python_code(self, code: str, inv: Invocation, scope: Scope, via: tuple[str, ...]) -> None: ...

    def _opaque(self, text: str, ctx: Ctx, reason: str, program: str = "") -> None: ...

    def _path_unknown(self) -> bool: ...

    def _note_secret_words(self, words: list[str]) -> None: ...

    def _subscript_name(self, name_node: Node, scope: Scope, ctx: Ctx) -> None: ...

    def _lookup(self, scope: Scope) -> object: ...

    def _word(self, node: Node, scope: Scope, ctx: Ctx) -> Word: ...

    def _substitution(self, node: Node, scope: Scope, ctx: Ctx) -> None: ...

    def _node(self, node: Node, scope: Scope, ctx: Ctx) -> None: ...

    def _call_function(self, name: str, argv: list[str], scope: Scope, ctx: Ctx, text: str) -> None: ...

    def _secrets_beneath(self, inv: Invocation, directories: list[str]) -> None: ...

    def _run_hooks(self, hooks: list[Hook], env: dict[str, str], scope: Scope, ctx: Ctx, text: str) -> None: ...

    def _emit(self, inv: Invocation, ctx: Ctx, scope: Scope) -> None: ...

    def _unpacked(self, directory: str) -> None: ...

    def _depth_next(self) -> int: ...

    def _path(self, raw: str, cwd: str | bool | None = True) -> PathRef: ...

    def _stand_in(self, scope: Scope) -> None: ...

    def _home_of(self, scope: Scope) -> str | None: ...

    def _shell_string(self, code: str, env: dict[str, str], scope: Scope, ctx: Ctx, how: str) -> None: ...

    def _same_shell_string(self, code: str, scope: Scope, ctx: Ctx, how: str, keep: bool = False) -> None: ...

    def _success_guard(self) -> tuple[int, int] | None: ...
