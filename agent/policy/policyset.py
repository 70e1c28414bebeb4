"""`PolicySet`: the loaded policy files, merged, and the two questions the agent asks of them."""

from __future__ import annotations

import copy
import hashlib
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.policy.effects import analyse
from agent.policy.evaluate import (
    Candidate,
    CompiledRule,
    InvocationVerdict,
    combine,
    compile_rule,
    effects_of,
    judge_invocation,
)
from agent.policy.facts import Facts, effective_facts, merge_facts
from agent.policy.gate import GateContext
from agent.policy.invocation import Invocation
from agent.policy.loader import PolicyLoadError, file_sha, load_file
from agent.policy.model import Example, HostFacts, PolicyFile, Rule
from agent.verdict import Verdict, VerdictWord

if TYPE_CHECKING:  # the run's state models: the gate starts without them (`opsagent policy check`)
    from agent.state import Action

DEFAULT_POLICY_PATH = Path(__file__).resolve().parents[2] / "policies" / "default.yaml"


class _Index:
    """Rules by program name, and the rest by the effects they need, so each invocation is
    matched only against rules that could apply to it.

    What can be checked on the tool, the program name and which effects an invocation has is
    checked once per such combination; only the rest is checked per invocation. The order
    is the rules' order of old: rules naming the program, then the generic ones by group.
    """

    MAX_MEMO = 4096

    def __init__(
        self, by_program: dict[str, list[CompiledRule]], generic: dict[frozenset[str], list[CompiledRule]]
    ) -> None:
        self.by_program = by_program
        self.generic = generic
        self._memo: dict[tuple[str, str, frozenset[str]], list[Candidate]] = {}

    def candidates(self, inv: Invocation) -> list[Candidate]:
        key = (inv.tool, inv.program, effects_of(inv))
        found = self._memo.get(key)
        if found is None:
            tool, program, effects = key
            rules = list(self.by_program.get(program, ()))
            for needs, group in self.generic.items():
                if needs <= effects:
                    rules += group
            found = [c for c in (r.specialise(tool, program, effects) for r in rules) if c is not None]
            if len(self._memo) >= self.MAX_MEMO:
                self._memo.clear()
            self._memo[key] = found
        return found


class PolicySet:
    def __init__(self, files: Sequence[tuple[str, PolicyFile, bytes]]) -> None:
        self._files = list(files)
        self._policies = [(src, pol) for src, pol, _ in files]
        self.files: list[tuple[str, str]] = [(src, file_sha(raw)) for src, _, raw in files]
        digest = hashlib.sha256("".join(sha for _, sha in self.files).encode()).hexdigest()
        self.version: str = digest[:16]
        self.rules: list[Rule] = [r for _, p in self._policies for r in p.rules]
        self.examples: list[tuple[str, Example]] = [(src, e) for src, p in self._policies for e in p.examples]
        defaults = [p.default for _, p in self._policies if p.default is not None]
        self.default: VerdictWord = max(defaults, key=_rank) if defaults else "ask"
        # The strictest sandbox setting any file names wins, as for verdicts; unset: by target kind.
        modes = [p.sandbox for _, p in self._policies if p.sandbox is not None]
        self.sandbox: str | None = max(modes, key=("off", "auto", "require").index) if modes else None
        self.sandbox_writable: list[str] = [w for _, p in self._policies for w in p.sandbox_writable]
        self.sandbox_ports: list[int] = sorted({n for _, p in self._policies for n in p.sandbox_ports})
        self.sandbox_readable: list[str] = [r for _, p in self._policies for r in p.sandbox_readable]
        closed = [p.fail_closed for _, p in self._policies if p.fail_closed is not None]
        self.fail_closed: VerdictWord = max(closed, key=_rank) if closed else "deny"
        try:
            self.facts = merge_facts((src, p.facts) for src, p in self._policies)
        except ValueError as exc:
            raise PolicyLoadError(str(exc)) from exc
        self._cache: dict[tuple[object, ...], _Index] = {}
        self._facts_cache: dict[tuple[object, ...], Facts] = {}
        self._runtime_last: tuple[HostFacts, dict[str, Any], str] | None = None
        self._last_index: tuple[Facts, _Index] | None = None

    def as_of(self, count: int) -> PolicySet:
        """The policy as it stood once its first `count` files were loaded (a file's own examples
        are judged there: the default's under the default's facts, an overlay's under its own)."""
        return self if count >= len(self._files) else PolicySet(self._files[:count])

    # -- facts and rules for one evaluation

    def facts_for(self, ctx: GateContext | None) -> Facts:
        key: tuple[object, ...] = ()
        if ctx is not None:
            procs_key = tuple((p.pid, p.pgid, p.pid_file) for p in ctx.own_processes.values())
            key = (ctx.work_dir, procs_key, self._runtime_key(ctx.facts))
        cached = self._facts_cache.get(key)
        if cached is None:
            cached = self._facts_uncached(ctx)
            if len(self._facts_cache) > 64:
                self._facts_cache.clear()
            self._facts_cache[key] = cached
        return cached

    def _runtime_key(self, runtime: HostFacts | None) -> str:
        """The running agent's facts as a cache key; the JSON is made again only when they are
        another object or their values changed (a frozen model's lists can still be mutated)."""
        if runtime is None:
            return ""
        last = self._runtime_last
        if last is not None and last[0] is runtime and last[1] == runtime.__dict__:
            return last[2]
        key = runtime.model_dump_json()
        self._runtime_last = (runtime, copy.deepcopy(runtime.__dict__), key)
        return key

    def _facts_uncached(self, ctx: GateContext | None) -> Facts:
        if ctx is None:
            return effective_facts(self.facts)
        procs = ctx.own_processes.values()
        return effective_facts(
            self.facts,
            work_dir=ctx.work_dir,
            pid_files=[p.pid_file for p in procs if p.pid_file],
            own_pids=[n for p in procs for n in (p.pid, p.pgid) if n > 1],
            runtime=ctx.facts,
        )

    def _index(self, facts: Facts) -> _Index:
        last = self._last_index
        if last is not None and last[0] is facts:  # the key is made of immutable fields only
            return last[1]
        index = self._index_for(facts)
        self._last_index = (facts, index)
        return index

    def _index_for(self, facts: Facts) -> _Index:
        key = facts.key()
        index = self._cache.get(key)
        if index is None:
            by_program: dict[str, list[CompiledRule]] = {}
            generic: dict[frozenset[str], list[CompiledRule]] = {}
            for rule in self.rules:
                cr = compile_rule(rule, facts)
                names = cr.match.program
                if names and not any(c in n for n in names for c in "*?["):
                    for n in names:
                        by_program.setdefault(n, []).append(cr)
                else:
                    generic.setdefault(cr.match.needs, []).append(cr)
            index = _Index(by_program, generic)
            self._cache[key] = index
        return index

    def judge_all(self, invocations: Sequence[Invocation], facts: Facts) -> list[InvocationVerdict]:
        index = self._index(facts)
        return [
            judge_invocation(inv, index.candidates(inv), facts, self.default, self.fail_closed) for inv in invocations
        ]

    # -- the interface the agent calls

    def explain(self, command: str, ctx: GateContext | None = None) -> list[InvocationVerdict]:
        facts = self.facts_for(ctx)
        return self.judge_all(analyse(command, facts), facts)

    def evaluate_command(self, command: str, ctx: GateContext | None = None) -> Verdict:
        return combine(self.explain(command, ctx))

    def evaluate_action(self, action: Action, ctx: GateContext) -> Verdict:
        from agent.policy.actions import evaluate_action

        return evaluate_action(self, action, ctx)

    def evaluate_tool(self, tool: str, ctx: GateContext | None, **extra: Any) -> list[InvocationVerdict]:
        """Rules that name a structured tool (`match: {tool: [...]}`)."""
        facts = self.facts_for(ctx)
        inv = Invocation(tool, tool, [], tool, tool=tool, **extra)
        return self.judge_all([inv], facts)


def _rank(word: VerdictWord) -> int:
    return {"allow": 0, "ask": 1, "deny": 2}[word]


def load_policy_set(paths: Sequence[Path | str]) -> PolicySet:
    """Load and merge policy files; `[]` is the default policy alone.

    Files that hold only host facts (overlays) are merged onto the default policy, so
    `--policy lab-host.yaml` means "the default rules, on this host".
    """
    chosen = [Path(p) for p in paths] or [DEFAULT_POLICY_PATH]
    loaded = [(str(p), *load_file(p)) for p in chosen]
    if all(not pol.rules for _, pol, _ in loaded) and DEFAULT_POLICY_PATH not in [p.resolve() for p in chosen]:
        loaded = [(str(DEFAULT_POLICY_PATH), *load_file(DEFAULT_POLICY_PATH)), *loaded]
    return PolicySet(loaded)


def quote_command(argv: Sequence[str], env: dict[str, str] | None = None) -> str:
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
    return (prefix + " " if prefix else "") + shlex.join(argv)
