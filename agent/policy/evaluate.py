"""Rules against invocations: which rules apply, and the strictest decision wins.

Allow rules must *surely* match (unknown words never satisfy them); deny and ask rules match
when a word *may* match. What cannot be judged takes the policy's fail-closed decision.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from agent.policy.facts import (
    DYN,
    GLOB,
    Facts,
    expand,
    glob_regex,
    glob_source,
    may_match,
    normalise_path,
    sure_match,
    visible,
)
from agent.policy.invocation import Invocation, PathRef
from agent.policy.model import STRICTNESS, Match, Rule
from agent.policy.programs.base import SECRET_VARIABLE
from agent.policy.programs.table import subcommand_of
from agent.verdict import Verdict, VerdictWord

FAIL_CLOSED_RULE = "fail-closed"
DEFAULT_RULE = "default"
UNSURE_RULE = "cannot-establish"  # what a model could not establish: asked, never allowed

Check = Callable[[Invocation, Facts], bool]


@dataclass(frozen=True)
class CompiledMatch:
    program: tuple[str, ...]
    program_path: tuple[str, ...]
    subcommand: tuple[str, ...]
    args: tuple[tuple[str, ...], ...]
    arg_any: tuple[str, ...]
    options: tuple[str, ...]
    flags: str
    args_regex: str | None  # compiled by its check when first used (the loader checked it compiles)
    writes: tuple[str, ...]
    writes_outside: tuple[str, ...]
    deletes: tuple[str, ...]
    deletes_outside: tuple[str, ...]
    reads: tuple[str, ...]
    reads_outside: tuple[str, ...]
    paths_within: tuple[str, ...]
    write_content: tuple[str, ...]
    signals_to: frozenset[str]
    env: tuple[tuple[str, str | None], ...]
    gpus_outside_agent: bool
    prints_secret_variables: bool
    tool: tuple[str, ...]
    given: frozenset[str]
    program_names: frozenset[str] = frozenset()  # literal names: a set lookup, not a glob each
    program_globs: tuple[str, ...] = ()
    needs: frozenset[str] = frozenset()  # effects the invocation must have for a match at all


@dataclass(frozen=True)
class CompiledRule:
    rule: Rule
    match: CompiledMatch
    sure: bool  # allow rules need a sure match
    unless: CompiledMatch | None = None
    match_checks: Checks | None = None
    unless_checks: Checks | None = None  # an unless must hold surely

    def specialise(self, tool: str, program: str, effects: frozenset[str]) -> Candidate | None:
        """What is left to check of this rule for an invocation of `program` (run as `tool`) that
        has `effects`; None when it cannot match such an invocation at all."""
        assert self.match_checks is not None
        if not self.match_checks.static(tool, program, effects):
            return None
        unless = self.unless_checks
        if unless is not None and not unless.static(tool, program, effects):
            unless = None  # the exception can never hold here: the rule applies when it matches
        return Candidate(self.rule, self.match_checks.dynamic, unless.dynamic if unless is not None else None)


@dataclass(frozen=True)
class Candidate:
    """A rule specialised to one program, tool and set of effects: only the checks that depend
    on the rest of the invocation are left."""

    rule: Rule
    checks: tuple[Check, ...]
    unless: tuple[Check, ...] | None

    def matches(self, inv: Invocation, facts: Facts) -> bool:
        for check in self.checks:
            if not check(inv, facts):
                return False
        if self.unless is None:
            return True
        return not all(check(inv, facts) for check in self.unless)


def _exp(values: Sequence[str], facts: Facts) -> tuple[str, ...]:
    out: list[str] = []
    for v in values:
        out += expand(v, facts)
    return tuple(dict.fromkeys(out))


def compile_rule(rule: Rule, facts: Facts) -> CompiledRule:
    unless = _compile_match(rule.unless, facts) if rule.unless is not None else None
    match = _compile_match(rule.match, facts)
    sure = rule.decision == "allow"
    return CompiledRule(
        rule,
        match,
        sure,
        unless,
        _compile_checks(match, sure),
        _compile_checks(unless, True) if unless is not None else None,
    )


_EFFECT_FIELDS = (
    "writes",
    "writes_outside",
    "write_content",
    "deletes",
    "deletes_outside",
    "reads",
    "reads_outside",
    "signals_to",
)


def _compile_match(m: Match, facts: Facts) -> CompiledMatch:
    env: list[tuple[str, str | None]] = []
    for e in m.env:
        name, eq, value = e.partition("=")
        for v in expand(value, facts) if eq else [None]:  # type: ignore[list-item]
            env.append((name, v))
    cm = CompiledMatch(
        program=_exp(m.program, facts),
        program_path=_exp(m.program_path, facts),
        subcommand=_exp(m.subcommand, facts),
        args=tuple(tuple(_exp(a, facts)) for a in m.args if True),
        arg_any=_exp(m.arg_any, facts),
        options=tuple(m.options),
        flags=m.flags,
        args_regex=m.args_regex or None,
        writes=_exp(m.writes, facts),
        writes_outside=_exp(m.writes_outside, facts),
        deletes=_exp(m.deletes, facts),
        deletes_outside=_exp(m.deletes_outside, facts),
        reads=_exp(m.reads, facts),
        reads_outside=_exp(m.reads_outside, facts),
        paths_within=_exp(m.paths_within, facts),
        write_content=_exp(m.write_content, facts),
        signals_to=frozenset(m.signals_to),
        env=tuple(env),
        gpus_outside_agent=m.gpus_outside_agent,
        prints_secret_variables=m.prints_secret_variables,
        tool=tuple(m.tool),
        given=frozenset(k for k in Match.model_fields if getattr(m, k)),
    )
    names = frozenset(p for p in cm.program if not any(c in p for c in "*?["))
    needs = {
        "writes" if f in ("writes", "writes_outside", "write_content") else f for f in cm.given if f in _EFFECT_FIELDS
    }
    for outside, effect in (("deletes_outside", "deletes"), ("reads_outside", "reads")):
        if outside in needs:
            needs = (needs - {outside}) | {effect}
    if "signals_to" in needs:
        needs = (needs - {"signals_to"}) | {"signals"}
    return replace(
        cm,
        program_names=names,
        program_globs=tuple(p for p in cm.program if p not in names),
        needs=frozenset(needs),
    )


# ---------------------------------------------------------------- matching, compiled once per rule


def _any_alias(globs: _Globs, refs: Sequence[PathRef]) -> bool:
    """Whether any spelling of any of these paths (sysfs links, `..`, `~`) matches."""
    for ref in refs:
        for alias in ref.aliases:
            if globs.any(alias):
                return True
    return False


class _Globs:
    """A list of glob patterns matched as a set.

    A subject without markers matches a pattern exactly when the pattern's regex matches it
    (`may_match` and `sure_match` agree there), so literal patterns become one set lookup and
    the wildcard ones one alternation; a subject with markers goes pattern by pattern, and its
    answer is kept (it depends on the subject alone: the same paths come back command after command).

    The alternation is compiled when first needed: most rules never see a subject their literal
    set does not answer, and compiling every rule's up front was most of a cold start's judgement.
    """

    __slots__ = ("_literal", "_marked", "_one", "_pending", "_rx", "_wild", "patterns")
    MAX_MARKED = 1024

    def __init__(self, patterns: Sequence[str], sure: bool) -> None:
        self.patterns = tuple(patterns)
        self._one = sure_match if sure else may_match
        self._literal = frozenset(p for p in self.patterns if not any(c in p for c in "*?["))
        self._pending = tuple(p for p in self.patterns if p not in self._literal)  # wildcards, not compiled yet
        self._rx: re.Pattern[str] | None = None
        self._wild: tuple[re.Pattern[str], ...] = ()
        self._marked: dict[str, bool] = {}

    def _compile(self) -> None:
        wild, self._pending = self._pending, ()
        try:
            self._rx = re.compile("|".join(f"(?:{glob_source(p)})" for p in wild), re.S)
        except re.error:  # a Python whose fnmatch names its groups: one regex per pattern then
            self._wild = tuple(glob_regex(p) for p in wild)

    def any(self, subject: str) -> bool:
        if DYN in subject or GLOB in subject:
            found = self._marked.get(subject)
            if found is None:
                one = self._one
                found = any(one(subject, p) for p in self.patterns)
                if len(self._marked) >= self.MAX_MARKED:
                    self._marked.clear()
                self._marked[subject] = found
            return found
        if subject in self._literal:
            return True
        if self._pending:
            self._compile()
        if self._rx is not None:
            return self._rx.match(subject) is not None
        return any(rx.match(subject) is not None for rx in self._wild)


def _path_arg(arg: str, inv: Invocation, facts: Facts) -> str:
    """A path pattern sees the argument as a path: `p2p_check.py` after `cd W` is `W/p2p_check.py`,
    and `W/../../tmp/x.py` is `/tmp/x.py`."""
    if arg and not arg.startswith("-") and "://" not in arg and "=" not in arg:
        return normalise_path(arg, cwd=inv.cwd, home=facts.home)
    return arg


def _gpu_outside(inv: Invocation, facts: Facts) -> bool:
    if inv.gpus is None:
        return False
    if facts.agent_gpus is None:
        return bool(inv.gpus)
    ours = {str(g) for g in facts.agent_gpus} | {f"pci:{p}" for p in facts.agent_gpu_pci}
    ours |= {f"uuid:{u.lower()}" for u in facts.agent_gpu_uuids}
    return any(g not in ours for g in inv.gpus)


EFFECTS = ("writes", "deletes", "reads", "signals")  # what `CompiledMatch.needs` may name
# besides those, what `Checks.needs` may name: an `env` match needs an environment set, a
# `gpus_outside_agent` match GPUs named (their checks are false without), so rules that give
# them are left out of the candidates of invocations without
ENV, GPUS, PRINTS = "env", "gpus", "prints"


_NO_EFFECTS: frozenset[str] = frozenset()


def effects_of(inv: Invocation) -> frozenset[str]:
    if not (inv.writes or inv.deletes or inv.reads or inv.signals or inv.env or inv.gpus is not None or inv.prints):
        return _NO_EFFECTS  # most invocations
    found = [n for n in EFFECTS if getattr(inv, n)]
    if inv.env:
        found.append(ENV)
    if inv.gpus is not None:
        found.append(GPUS)
    if inv.prints:
        found.append(PRINTS)
    return frozenset(found)


def _prints_secrets(inv: Invocation, facts: Facts) -> bool:
    return any(n == "*" or DYN in n or GLOB in n or SECRET_VARIABLE.search(n) for n in inv.prints)


@dataclass(frozen=True)
class Checks:
    """A match as predicates: `static` on what an index can key on (tool, program name, which
    effects the invocation has), `dynamic` on the rest; the match holds when all of them do."""

    needs: frozenset[str]
    tools: frozenset[str] | None
    program: _Globs | None
    program_names: frozenset[str]
    dynamic: tuple[Check, ...]

    def static(self, tool: str, program: str, effects: frozenset[str]) -> bool:
        if not self.needs <= effects:
            return False
        if self.tools is not None and tool not in self.tools:
            return False
        return self.program is None or program in self.program_names or self.program.any(program)

    def holds(self, inv: Invocation, facts: Facts) -> bool:
        return self.static(inv.tool, inv.program, effects_of(inv)) and all(c(inv, facts) for c in self.dynamic)


def _searcher(source: str) -> Callable[[str], bool]:
    """`re.compile(source).search(text) is not None`, compiled on the first search: a cold
    start compiling every rule's regex paid more than its first judgement."""
    compiled: list[re.Pattern[str]] = []

    def search(text: str) -> bool:
        if not compiled:
            compiled.append(re.compile(source))
        return compiled[0].search(text) is not None

    return search


def _compile_checks(m: CompiledMatch, sure: bool) -> Checks:
    """One predicate per field the match gives, cheapest first."""
    g = m.given
    wm = sure_match if sure else may_match
    checks: list[Check] = []
    if "program_path" in g:
        program_path = _Globs(m.program_path, sure)
        checks.append(lambda inv, facts: program_path.any(inv.path))
    if "subcommand" in g:
        subcommand = _Globs(m.subcommand, sure)

        def check_subcommand(inv: Invocation, facts: Facts) -> bool:
            sub = subcommand_of(inv.program, inv.args)
            return sub is not None and subcommand.any(sub)

        checks.append(check_subcommand)
    if "options" in g:
        options = frozenset(m.options)
        letters = frozenset(o[1] for o in options if len(o) == 2 and o[0] == "-" and o[1] != "-")
        longs = tuple(o for o in options if o.startswith("--"))

        def check_options(inv: Invocation, facts: Facts) -> bool:
            for a in inv.args:
                if a in options or (not sure and DYN in a):
                    return True
                eq = a.find("=")
                while eq != -1:  # `--opt=value` (an option may itself hold `=`)
                    if a[:eq] in options:
                        return True
                    eq = a.find("=", eq + 1)
                if sure or a == "--" or not a.startswith("-"):
                    continue
                # a deny or ask rule also sees `-us` and `-p1` (the option in a cluster, or with its
                # value attached) and `--se=X` (getopt takes any unambiguous abbreviation)
                if a.startswith("--"):
                    key = a.partition("=")[0]
                    if len(key) > 3 and any(o.startswith(key) for o in longs):
                        return True
                elif letters and not letters.isdisjoint(a[1:]):
                    return True
            return False

        checks.append(check_options)
    if "flags" in g:
        flags = m.flags
        checks.append(
            lambda inv, facts: any(
                a.startswith("-") and not a.startswith("--") and any(c in a[1:] for c in flags) for a in inv.args
            )
        )
    if "args" in g:
        alts = tuple(tuple((p, p.startswith("/")) for p in alt) for alt in m.args)

        def check_args(inv: Invocation, facts: Facts) -> bool:
            args = inv.args
            for alt in alts:
                if len(args) >= len(alt) and all(
                    wm(_path_arg(a, inv, facts) if is_path else a, p)
                    for a, (p, is_path) in zip(args, alt, strict=False)
                ):
                    return True
            return False

        checks.append(check_args)
    if "arg_any" in g:
        plain = _Globs([p for p in m.arg_any if not p.startswith("/")], sure)
        paths = _Globs([p for p in m.arg_any if p.startswith("/")], sure)

        def check_arg_any(inv: Invocation, facts: Facts) -> bool:
            for a in inv.args:
                if plain.patterns and plain.any(a):
                    return True
                if paths.patterns and paths.any(_path_arg(a, inv, facts)):
                    return True
            return False

        checks.append(check_arg_any)
    if m.args_regex is not None:
        search = _searcher(m.args_regex)
        checks.append(lambda inv, facts: search(" ".join(visible(a) for a in inv.args)))
    if "writes" in g:
        writes = _Globs(m.writes, sure)

        checks.append(lambda inv, facts: _any_alias(writes, [w.path for w in inv.writes]))
    if "writes_outside" in g:
        writes_outside = _Globs(m.writes_outside, True)
        checks.append(lambda inv, facts: any(not _within(w.path, writes_outside) for w in inv.writes))
    if "deletes" in g:
        deletes = _Globs(m.deletes, sure)

        checks.append(lambda inv, facts: _any_alias(deletes, inv.deletes))
    if "deletes_outside" in g:
        deletes_outside = _Globs(m.deletes_outside, True)
        checks.append(lambda inv, facts: any(not _within(d, deletes_outside) for d in inv.deletes))
    if "reads" in g:
        reads = _Globs(m.reads, sure)

        checks.append(lambda inv, facts: _any_alias(reads, inv.reads))
    if "reads_outside" in g:
        reads_outside = _Globs(m.reads_outside, True)
        checks.append(lambda inv, facts: any(not _within(r, reads_outside) for r in inv.reads))
    if "paths_within" in g:
        within = _Globs(m.paths_within, True)
        checks.append(
            lambda inv, facts: (
                all(_within(w.path, within) for w in inv.writes) and all(_within(d, within) for d in inv.deletes)
            )
        )
    if "write_content" in g:
        content = _Globs(m.write_content, False)
        checks.append(lambda inv, facts: any(w.content is None or content.any(w.content.strip()) for w in inv.writes))
    if "signals_to" in g:
        targets = m.signals_to
        checks.append(lambda inv, facts: any(s.target in targets for s in inv.signals))
    if "env" in g:
        env = m.env

        def check_env(inv: Invocation, facts: Facts) -> bool:
            for k, v in inv.env.items():
                for name, value in env:
                    if wm(k, name) and (value is None or wm(v, value)):
                        return True
            return False

        checks.append(check_env)
    if "gpus_outside_agent" in g:
        checks.append(_gpu_outside)
    if "prints_secret_variables" in g:
        checks.append(_prints_secrets)
    needs = m.needs
    if "env" in g:
        needs = needs | {ENV}  # `check_env` is false for an invocation that sets none
    if "gpus_outside_agent" in g:
        needs = needs | {GPUS}  # `_gpu_outside` is false for one that names no GPUs
    if "prints_secret_variables" in g:
        needs = needs | {PRINTS}
    return Checks(
        needs=needs,
        tools=frozenset(m.tool) if "tool" in g else None,
        program=_Globs(m.program_globs, sure) if "program" in g else None,
        program_names=m.program_names,
        dynamic=tuple(checks),
    )


def _within(p: PathRef, patterns: _Globs) -> bool:
    return all(patterns.any(alias) for alias in p.aliases)


def matches(cr: CompiledRule, inv: Invocation, facts: Facts) -> bool:
    assert cr.match_checks is not None
    if not cr.match_checks.holds(inv, facts):
        return False
    return cr.unless_checks is None or not cr.unless_checks.holds(inv, facts)


@dataclass(slots=True)
class InvocationVerdict:
    invocation: Invocation
    decision: VerdictWord
    rules: list[Rule]
    reason: str


def judge_invocation(
    inv: Invocation,
    rules: Sequence[Candidate],
    facts: Facts,
    default: VerdictWord,
    fail_closed: VerdictWord,
) -> InvocationVerdict:
    """`rules`: the candidates for the invocation's tool, program and effects (see `specialise`)."""
    if inv.opaque is not None:
        return InvocationVerdict(inv, fail_closed, [], f"cannot be judged: {inv.opaque}")
    hits: list[Rule] = []
    for c in rules:  # `Candidate.matches`, inlined: this runs for every candidate of every invocation
        for check in c.checks:
            if not check(inv, facts):
                break
        else:
            unless = c.unless
            if unless is None or not all(check(inv, facts) for check in unless):
                hits.append(c.rule)
    if inv.unsure is not None and all(r.decision == "allow" for r in hits):
        word: VerdictWord = default if not hits and STRICTNESS[default] > STRICTNESS["ask"] else "ask"
        return InvocationVerdict(inv, word, [], f"the gate cannot establish what it does: {inv.unsure}")
    if not hits:
        if inv.wrapper:
            return InvocationVerdict(inv, "allow", [], "a wrapper: what it runs is judged on its own")
        if inv.tool != "run_command":
            return InvocationVerdict(inv, "allow", [], "")
        what = inv.program or inv.tool
        return InvocationVerdict(inv, default, [], f"no rule names {what!r}; the policy's default applies")
    if len(hits) == 1:
        return InvocationVerdict(inv, hits[0].decision, hits, hits[0].reason)
    top = max(STRICTNESS[r.decision] for r in hits)
    deciding = [r for r in hits if STRICTNESS[r.decision] == top]
    return InvocationVerdict(inv, deciding[0].decision, deciding, "; ".join(dict.fromkeys(r.reason for r in deciding)))


def combine(verdicts: Sequence[InvocationVerdict], empty_reason: str = "nothing would run") -> Verdict:
    if not verdicts:
        return Verdict(decision="allow", rules=[], reason=empty_reason)
    if len(verdicts) == 1:
        deciding: Sequence[InvocationVerdict] = verdicts
    else:
        top = max([STRICTNESS[v.decision] for v in verdicts])
        deciding = [v for v in verdicts if STRICTNESS[v.decision] == top]
    rule_ids: list[str] = []
    reasons: list[str] = []
    for v in deciding:
        inv = v.invocation
        if v.rules:
            rule_ids += [r.id for r in v.rules]
        else:
            rule_ids.append(FAIL_CLOSED_RULE if inv.opaque else UNSURE_RULE if inv.unsure else DEFAULT_RULE)
        what = inv.describe() if inv.program not in ("", ":") else inv.text
        reasons.append(f"{v.reason} [{what[:120]}]")
    decision = deciding[0].decision
    if len(reasons) > 1:
        rule_ids = list(dict.fromkeys(rule_ids))
        reason = "; ".join(dict.fromkeys(reasons))
    else:  # one invocation decides: its reason as it is
        rule_ids = list(dict.fromkeys(rule_ids)) if len(rule_ids) > 1 else rule_ids
        reason = reasons[0]
    return Verdict(decision=decision, rules=rule_ids, reason=reason)
