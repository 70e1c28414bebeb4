"""Hearing the operator, measured on messages written by someone who never saw the grammar.

`tests/fixtures/phrasings/` holds sets of realistic operator messages with what each means, each
written by a helper who never read `agent/hearing/instructions.py`, `agent/hearing/phrasing.py`,
`agent/hearing/replies.py` or the other sets. `dev.jsonl` was used while building the phrasing
rules. Each held-out set was measured once on first sight, then its misses were fixed by class (never by the sentence):
heldout 77% heard / 5 misread, heldout2 74% / 6, heldout3 71% / 2, heldout4 81% / 1, heldout5 80%
/ 3. `sre1` and `sre2` were written in an experienced SRE's terse style (shorthand, typos, hedges,
must-nots) after the hearing work of issue #27 and measured once, not fixed: 77% and 71% heard,
0 misread (one apparent misread of "restart and remeasure" was this harness dropping the relaunch
from the expectation; the harness now reads it as it reads the reply). The floors
below hold the sets at what they reach after those fixes; the first-sight numbers are the honest
measure of how this generalises, and a new set should be added the same way.
A misread (an instruction the operator did not give, or a different one) is never acceptable;
an unread message is answered "I did not understand" and is only counted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.hearing.instructions import hear
from agent.hearing.replies import ReplyError, parse_reply
from agent.state import Action, OperatorRules, Question

SETS = Path(__file__).parent.parent / "fixtures" / "phrasings"
FIELDS = (
    "use_port",
    "avoid_ports",
    "use_gpus",
    "avoid_gpus",
    "set_env",
    "unset_env",
    "use_flags",
    "avoid_flags",
    "layout",
    "no_relaunch",
    "stop_server",
    "measure_again",
)
DEFAULTS = OperatorRules().model_dump()
PARTIAL_LISTS = frozenset({"avoid_ports", "avoid_gpus", "unset_env", "avoid_flags", "use_flags"})
# On a question that proposes an action, continue keeps the proposal and approve runs it: both send
# it through the gate, so "yes continue" read as either is what the operator meant.
SAME_ON_AN_ACTION = {"approve", "continue"}


def _question(context: str | None) -> Question:
    if context == "sign_off":
        return Question(id="q", trigger="goal_met", reason="r", question="Sign off?", asked_at=0.0)
    action = Action(tool="run_command", args={"command": "nvidia-smi topo -m"})
    return Question(id="q", trigger="low_confidence", reason="r", question="Go on?", asked_at=0.0, action=action)


def _rules_said(rules: OperatorRules) -> dict[str, Any]:
    said = {k: v for k, v in rules.model_dump().items() if k in FIELDS and v != DEFAULTS[k]}
    if rules.relaunch_wanted and not rules.no_relaunch and not any(k != "measure_again" for k in said):
        said["relaunch"] = True  # only a bare relaunch: every launch rule asks for a relaunch too
    return said


def _expected_rules(expect: dict[str, Any]) -> dict[str, Any]:
    rules = dict(expect)
    if "layout" in rules:
        rules["layout"] = {"tp": rules["layout"]["tp"], "dp": rules["layout"].get("dp", 1)}
    if rules.get("stop_server"):
        rules["no_relaunch"] = True  # stopping also holds new launches until "relaunch": part of "stop"
    if rules.get("relaunch") and any(k not in ("relaunch", "measure_again") for k in rules):
        rules.pop("relaunch")  # "relaunch with X": X's rules relaunch by themselves (a measurement does not)
    return rules


def judge(line: dict[str, Any]) -> tuple[str, str]:
    """('heard' | 'unread' | 'misread', what happened) for one message."""
    text, expect = line["text"], line["expect"]
    question = _question(line.get("context"))
    try:
        kind: str = parse_reply(text, question, "operator").kind
    except ReplyError:
        kind = "error"
    if "reply" in expect:
        if kind == expect["reply"] or (question.action is not None and {kind, expect["reply"]} == SAME_ON_AN_ACTION):
            return "heard", kind
        return ("unread", kind) if kind in ("say", "error") else ("misread", f"read as a {kind} reply")
    if kind not in ("say", "error"):
        return "misread", f"read as a {kind} reply"
    rules, _, missed = hear(OperatorRules(), text)
    said = _rules_said(rules)
    if expect.get("not_understood"):
        return ("misread", f"heard {said}") if said else ("heard", "not understood, as it should be")
    wanted = _expected_rules(expect["rules"])
    if said == wanted:
        # An aside ("it's flaky") is answered "I did not understand" in the report: harmless.
        return "heard", str(said) + (f" (aside not understood: {missed})" if missed else "")
    if any(k not in wanted or not _part_of(k, said[k], wanted[k]) for k in said):
        return "misread", f"heard {said}, meant {wanted}"
    return "unread", f"heard {said}, missed {missed}, meant {wanted}"


def _part_of(field: str, said: Any, wanted: Any) -> bool:
    """Whether what was heard is a safe part of what was meant: some of the ports, GPUs, variables or
    flags to avoid (the rest is reported as not understood); never a narrower "use exactly"."""
    if said == wanted:
        return True
    if field in PARTIAL_LISTS:
        return all(item in wanted for item in said)
    if field == "set_env":
        return all(wanted.get(k) == v for k, v in said.items())
    return False


def score(name: str) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {"heard": [], "unread": [], "misread": []}
    for raw in (SETS / name).read_text().splitlines():
        if raw.strip():
            line = json.loads(raw)
            verdict, detail = judge(line)
            out[verdict].append((line["text"], detail))
    return out


SET_NAMES = sorted(p.name for p in SETS.glob("*.jsonl"))


@pytest.mark.parametrize("name", SET_NAMES)
def test_no_message_is_misread(name: str) -> None:
    result = score(name)
    assert result["misread"] == [], "\n".join(f"{t!r}: {d}" for t, d in result["misread"])


@pytest.mark.parametrize(
    ("name", "floor"),
    [
        ("dev.jsonl", 0.95),
        ("heldout.jsonl", 0.95),
        ("heldout2.jsonl", 0.9),
        ("heldout3.jsonl", 0.9),
        ("heldout4.jsonl", 0.9),
        ("heldout5.jsonl", 0.9),
        ("sre1.jsonl", 0.77),
        ("sre2.jsonl", 0.70),
    ],
)
def test_most_messages_are_heard(name: str, floor: float) -> None:
    result = score(name)
    total = sum(len(v) for v in result.values())
    rate = len(result["heard"]) / total
    assert rate >= floor, f"{rate:.0%} heard; unread:\n" + "\n".join(f"{t!r}: {d}" for t, d in result["unread"])


if __name__ == "__main__":  # the per-set rates, for a closing note
    for set_name in SET_NAMES:
        counts = {k: len(v) for k, v in score(set_name).items()}
        print(set_name, counts)


@pytest.mark.parametrize(
    "text",
    [
        "keep the model at NVFP4",  # --model exists, but a free-text flag is never set from a sentence
        "set the host to 0.0.0.0",
        "set the served model name to prod",
        "drop the attention backend override",  # reads as avoiding the flag, never as a value "override"
        "don't stop the server",
        "what if we used tp 8?",
        "GPU 2 is free now, use it",  # add GPU 2, or use only GPU 2? Not a guess to make
    ],
)
def test_sentences_near_an_instruction_never_give_one(text: str) -> None:
    rules, _, _ = hear(OperatorRules(), text)
    assert rules.use_flags == [] and rules.layout is None and not rules.stop_server, rules
    assert rules.use_gpus is None, rules
