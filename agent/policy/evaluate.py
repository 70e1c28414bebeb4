"""Rules against invocations: which rules apply, and the strictest decision wins.

Allow rules must *surely* match (unknown words never satisfy them); deny and ask rules match
when a word *may* match. What cannot be judged takes the policy's fail-closed decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agent.policy.effects import Invocation, PathRef
from agent.policy.facts import DYN, Facts, expand, may_match, normalise_path, sure_match, visible
from agent.policy.model import STRICTNESS, Match, Rule
from agent.state import Verdict, VerdictWord

FAIL_CLOSED_RULE = "fail-closed"
DEFAULT_RULE = "default"


@dataclass(frozen=True)
class CompiledMatch:
    program: tuple[str, ...]
    program_path: tuple[str, ...]
    subcommand: tuple[str, ...]
    args: tuple[tuple[str, ...], ...]
    arg_any: tuple[str, ...]
    options: tuple[str, ...]
    flags: str
    args_regex: re.Pattern[str] | None
    writes: tuple[str, ...]
    writes_outside: tuple[str, ...]
    deletes: tuple[str, ...]
    deletes_outside: tuple[str, ...]
    reads: tuple[str, ...]
    paths_within: tuple[str, ...]
    write_content: tuple[str, ...]
    signals_to: frozenset[str]
    env: tuple[tuple[str, str | None], ...]
    gpus_outside_agent: bool
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


def _exp(values: Sequence[str], facts: Facts) -> tuple[str, ...]:
    out: list[str] = []
    for v in values:
        out += expand(v, facts)
    return tuple(dict.fromkeys(out))


def compile_rule(rule: Rule, facts: Facts) -> CompiledRule:
    unless = _compile_match(rule.unless, facts) if rule.unless is not None else None
    return CompiledRule(rule, _compile_match(rule.match, facts), rule.decision == "allow", unless)


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
        args_regex=re.compile(m.args_regex) if m.args_regex else None,
        writes=_exp(m.writes, facts),
        writes_outside=_exp(m.writes_outside, facts),
        deletes=_exp(m.deletes, facts),
        deletes_outside=_exp(m.deletes_outside, facts),
        reads=_exp(m.reads, facts),
        paths_within=_exp(m.paths_within, facts),
        write_content=_exp(m.write_content, facts),
        signals_to=frozenset(m.signals_to),
        env=tuple(env),
        gpus_outside_agent=m.gpus_outside_agent,
        tool=tuple(m.tool),
        given=frozenset(k for k in Match.model_fields if getattr(m, k)),
    )
    names = frozenset(p for p in cm.program if not any(c in p for c in "*?["))
    needs = {
        "writes" if f in ("writes", "writes_outside", "write_content") else f
        for f in cm.given
        if f in ("writes", "writes_outside", "write_content", "deletes", "deletes_outside", "reads", "signals_to")
    }
    if "deletes_outside" in needs:
        needs = (needs - {"deletes_outside"}) | {"deletes"}
    if "signals_to" in needs:
        needs = (needs - {"signals_to"}) | {"signals"}
    return replace(
        cm,
        program_names=names,
        program_globs=tuple(p for p in cm.program if p not in names),
        needs=frozenset(needs),
    )


def _word_match(word: str, pattern: str, sure: bool) -> bool:
    return sure_match(word, pattern) if sure else may_match(word, pattern)


def _arg_match(arg: str, pattern: str, sure: bool, inv: Invocation, facts: Facts) -> bool:
    """A path pattern sees the argument as a path: `p2p_check.py` after `cd W` is `W/p2p_check.py`,
    and `W/../../tmp/x.py` is `/tmp/x.py`."""
    if pattern.startswith("/") and arg and not arg.startswith("-") and "://" not in arg and "=" not in arg:
        arg = normalise_path(arg, cwd=inv.cwd, home=facts.home)
    return _word_match(arg, pattern, sure)


def _any_path(paths: Sequence[PathRef], patterns: Sequence[str], sure: bool) -> bool:
    for p in paths:
        for alias in p.aliases:
            for pat in patterns:
                if _word_match(alias, pat, sure):
                    return True
    return False


def _within(p: PathRef, patterns: Sequence[str]) -> bool:
    return all(any(sure_match(alias, pat) for pat in patterns) for alias in p.aliases)


def _positional(args: Sequence[str]) -> str | None:
    for a in args:
        if not a.startswith("-") or DYN in a[:1]:
            return a
    return None


def _gpu_outside(inv: Invocation, facts: Facts) -> bool:
    if inv.gpus is None:
        return False
    if facts.agent_gpus is None:
        return bool(inv.gpus)
    ours = {str(g) for g in facts.agent_gpus} | {f"pci:{p}" for p in facts.agent_gpu_pci}
    return any(g not in ours for g in inv.gpus)


def matches(cr: CompiledRule, inv: Invocation, facts: Facts) -> bool:
    if not _match(cr.match, cr.sure, inv, facts):
        return False
    return cr.unless is None or not _match(cr.unless, True, inv, facts)


def _match(m: CompiledMatch, sure: bool, inv: Invocation, facts: Facts) -> bool:
    g = m.given
    if m.needs and any(not getattr(inv, n) for n in m.needs):
        return False
    if "tool" in g and inv.tool not in m.tool:
        return False
    if (
        "program" in g
        and inv.program not in m.program_names
        and not any(_word_match(inv.program, p, sure) for p in m.program_globs)
    ):
        return False
    if "program_path" in g and not any(_word_match(inv.path, p, sure) for p in m.program_path):
        return False
    if "subcommand" in g:
        sub = _positional(inv.args)
        if sub is None or not any(_word_match(sub, p, sure) for p in m.subcommand):
            return False
    if "args" in g:
        ok = False
        for alt in m.args:
            if len(inv.args) >= len(alt) and all(
                _arg_match(a, p, sure, inv, facts) for a, p in zip(inv.args, alt, strict=False)
            ):
                ok = True
                break
        if not ok:
            return False
    if "arg_any" in g and not any(_arg_match(a, p, sure, inv, facts) for a in inv.args for p in m.arg_any):
        return False
    if "options" in g and not any(_opt(a, o, sure) for a in inv.args for o in m.options):
        return False
    if "flags" in g and not any(
        a.startswith("-") and not a.startswith("--") and any(c in a[1:] for c in m.flags) for a in inv.args
    ):
        return False
    if m.args_regex is not None and not m.args_regex.search(" ".join(visible(a) for a in inv.args)):
        return False
    if "writes" in g and not _any_path([w.path for w in inv.writes], m.writes, sure):
        return False
    if "writes_outside" in g and not any(not _within(w.path, m.writes_outside) for w in inv.writes):
        return False
    if "deletes" in g and not _any_path(inv.deletes, m.deletes, sure):
        return False
    if "deletes_outside" in g and not any(not _within(d, m.deletes_outside) for d in inv.deletes):
        return False
    if "reads" in g and not _any_path(inv.reads, m.reads, sure):
        return False
    if "paths_within" in g and not all(
        _within(p, m.paths_within) for p in [*(w.path for w in inv.writes), *inv.deletes]
    ):
        return False
    if "write_content" in g:
        hit = False
        for w in inv.writes:
            if w.content is None or any(may_match(w.content.strip(), p) for p in m.write_content):
                hit = True
        if not hit:
            return False
    if "signals_to" in g and not any(s.target in m.signals_to for s in inv.signals):
        return False
    if "env" in g:
        hit = False
        for name, value in m.env:
            for k, v in inv.env.items():
                if _word_match(k, name, sure) and (value is None or _word_match(v, value, sure)):
                    hit = True
        if not hit:
            return False
    return not ("gpus_outside_agent" in g and not _gpu_outside(inv, facts))


def _opt(arg: str, option: str, sure: bool) -> bool:
    if arg == option or arg.startswith(option + "="):
        return True
    return not sure and DYN in arg


@dataclass
class InvocationVerdict:
    invocation: Invocation
    decision: VerdictWord
    rules: list[Rule]
    reason: str


def judge_invocation(
    inv: Invocation,
    rules: Sequence[CompiledRule],
    facts: Facts,
    default: VerdictWord,
    fail_closed: VerdictWord,
) -> InvocationVerdict:
    if inv.opaque is not None:
        return InvocationVerdict(inv, fail_closed, [], f"cannot be judged: {inv.opaque}")
    hits = [cr.rule for cr in rules if matches(cr, inv, facts)]
    if not hits:
        if inv.wrapper or inv.tool != "run_command":
            return InvocationVerdict(inv, "allow", [], "")
        what = inv.program or inv.tool
        return InvocationVerdict(inv, default, [], f"no rule names {what!r}; the policy's default applies")
    top = max(STRICTNESS[r.decision] for r in hits)
    deciding = [r for r in hits if STRICTNESS[r.decision] == top]
    return InvocationVerdict(inv, deciding[0].decision, deciding, "; ".join(dict.fromkeys(r.reason for r in deciding)))


def combine(verdicts: Sequence[InvocationVerdict], empty_reason: str = "nothing would run") -> Verdict:
    if not verdicts:
        return Verdict(decision="allow", rules=[], reason=empty_reason)
    top = max(STRICTNESS[v.decision] for v in verdicts)
    deciding = [v for v in verdicts if STRICTNESS[v.decision] == top]
    rule_ids: list[str] = []
    reasons: list[str] = []
    for v in deciding:
        ids = [r.id for r in v.rules] or [FAIL_CLOSED_RULE if v.invocation.opaque else DEFAULT_RULE]
        rule_ids += ids
        what = v.invocation.describe() if v.invocation.program not in ("", ":") else v.invocation.text
        reasons.append(f"{v.reason} [{what[:120]}]")
    decision = deciding[0].decision
    return Verdict(decision=decision, rules=list(dict.fromkeys(rule_ids)), reason="; ".join(dict.fromkeys(reasons)))
