"""Heeding the operator in the loop: one step after every decider, and what each reply changes.

`decide_heeding` wraps any decider: the operator's forced steps (stop the server, a picked or
edited step, the sign-off step picked) come first; a proposal is rewritten by the operator's rules or, when excluded,
handed back to the decider with the reason (a few times) before the run asks instead; a fresh
instruction that changes launches makes a decider that would stop relaunch with it first.

`apply_reply` turns a reply to a question into a change of the rules (and sometimes the goal),
or into an answer the operator reads in the re-asked question: never silence.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from agent.hearing import (
    applied,
    arithmetic,
    bounds,
    chatops,
    corrections,
    endorsed,
    exclusions,
    normalise,
    phrasing,
    said_twice,
    shorthand,
    subjects,
    time_scope,
    vllm,
)
from agent.hearing import instructions as ins
from agent.hearing.clauses import RELAYED
from agent.hearing.clauses import clauses as split_clauses
from agent.hearing.goal import GoalError, parse_goal, readings_of
from agent.hearing.readback import describe, readings
from agent.hearing.reply_words import offered_actions
from agent.state import Action, AgentState, Alternative, Decision, Goal, OperatorRules, Question, Reply

RETRIES = 3
SIGN_OFF_ASKED = ("goal_met", "gave_up")  # the final report's question: a deny there refuses the sign-off
NO_STEP_AFTER_REFUSAL = (
    # no "pick a step": the next report's reply line offers numbers only where it lists steps
    "I have no further step of my own; instruct me (e.g. 'measure again', a flag, a layout) or stop"
)
rules_of = ins.rules_of


def said(rules: OperatorRules) -> OperatorRules:
    """The rules once a report has told the operator what it owed them."""
    return rules.model_copy(update={"not_understood": [], "answers": []})


def _with(state: AgentState, rules: OperatorRules) -> AgentState:
    merged: AgentState = {**state, "operator": rules}  # type: ignore[typeddict-item]
    return merged


def decide_heeding(state: AgentState, decide: Callable[[AgentState], Decision]) -> tuple[Decision, OperatorRules]:
    """The next decision with the operator's words applied, and the rules after it."""
    rules = rules_of(state)
    forced, rules = applied.operator_decision(state, rules)
    if forced is not None and forced.kind == "finish":
        return forced, rules  # the operator signed off what was measured: no decider overrides that
    if forced is not None and forced.action is not None:
        action, why, notes = applied.rewrite(state, rules, forced.action)
        if why is None:
            return forced.model_copy(update={"action": action}), rules
        answer = f"I did not take {forced.action.render()}: {why}"
        rules = rules.model_copy(update={"answers": [*rules.answers, answer], "try_action": None})
    rejected: list[str] = []
    decision = decide(_with(state, rules))
    for _ in range(RETRIES):
        if decision.kind != "act" or decision.action is None:
            # A launch setting the operator gave after the last launch is used before any stop,
            # a met goal included: "use port 30001" at the sign-off must not be "in force" on paper
            # while the server still serves on 30000.
            if rules.relaunch_wanted and decision.kind in ("ask", "finish"):
                relaunch = applied.relaunch_for_rules(state, rules)
                stopping = (
                    relaunch is not None and relaunch.action is not None and relaunch.action.tool != exclusions.LAUNCH
                )
                rules = rules.model_copy(update={"relaunch_wanted": stopping})  # still wanted after the stop
                if relaunch is not None:
                    return relaunch, rules
            return decision, rules.model_copy(update={"rejected": []})
        action, why, notes = applied.rewrite(state, rules, decision.action)
        if why is None:
            update: dict[str, object] = {"rejected": []}
            if action.tool == exclusions.LAUNCH:
                update["relaunch_wanted"] = False
            rationale = decision.rationale
            if notes:
                rationale = f"{rationale} (changed as you instructed: {', '.join(notes)})".strip()
            return decision.model_copy(update={"action": action, "rationale": rationale}), rules.model_copy(
                update=update
            )
        rejected.append(f"{action.render()}: {why}")
        rules = rules.model_copy(update={"rejected": list(rejected)})
        decision = decide(_with(state, rules))
    last = rejected[-1] if rejected else "my proposals were excluded"
    question = (
        f"My next step would be {last}. I have no other step that keeps to what you and the policy said: "
        "tell me what to do instead (e.g. 'relaunch', a port, a layout), pick a numbered step, or stop."
    )
    kept = [a for a in decision.alternatives if a.action is None or applied.rewrite(state, rules, a.action)[1] is None]
    decisions = state.get("decisions") or []
    previous = decisions[-1] if decisions else None
    if previous is not None and previous.kind == "ask" and previous.question == question:
        # Asked exactly this already and the answer changed nothing: the same question again
        # would never end. The final report instead (the operator can still instruct there).
        why = f"{last}; I asked and have no other step that keeps to what you and the policy said"
        return Decision(kind="finish", goal_met=False, rationale=why, findings=decision.findings), rules.model_copy(
            update={"rejected": []}
        )
    asked = Decision(
        kind="ask", question=question, rationale=last, confidence=0.3, alternatives=kept, findings=decision.findings
    )
    return asked, rules.model_copy(update={"rejected": []})


@dataclass
class ReplyEffect:
    """What a reply changes: the rules, maybe the goal, and whether to ask again (and how)."""

    rules: OperatorRules
    goal: Goal | None = None
    reask: bool = False
    reask_alternatives: list[Alternative] | None = None
    instructions: list[str] = field(default_factory=list)
    confirm: str | None = None  # a partial reading asked back: the canonical clauses a "yes" takes
    readback: str | None = None  # what the re-asked question says first ("I read: ... Right?")


def hear_words(
    rules: OperatorRules, text: str, *, answer_missed: bool = True
) -> tuple[OperatorRules, list[str], list[str]]:
    """The rules after `text`, what was heard and what was not (answered in the next report only
    when `answer_missed`)."""
    updated, heard, missed = ins.hear(rules, text)
    if not answer_missed:
        updated.not_understood = [m for m in updated.not_understood if m not in missed]
    return updated, heard, missed


def apply_words(state: AgentState, question: Question, reply: Reply, reader: Reader | None = None) -> ReplyEffect:
    """A `say` (or a deny with nothing to deny): instructions, or an answer that they were not heard."""
    rules = rules_of(state)
    if question.trigger == "goal_unclear":
        return _amend_goal(state, rules, reply.text)
    refused_sign_off = reply.kind == "deny" and question.trigger in SIGN_OFF_ASKED
    known, host = applied.known_gpus(state), bounds.host_gpus(state)
    if not refused_sign_off and (partial := ask_back(rules, reply.text, reader, known, host)) is not None:
        return partial
    # A refusal's reason is quoted as the reason, not also answered "I did not understand".
    updated, heard, missed = hear_words(rules, reply.text, answer_missed=not refused_sign_off)
    if found := bounds.problems(rules, updated, host):
        owed = [bounds.refusal(reply.text, found)]
        if refused_sign_off:  # the refusal stands, as any other: the run goes on without its values
            owed.insert(0, "you did not sign off")
        answered = rules.model_copy(update={"answers": [*rules.answers, *owed]})
        return ReplyEffect(rules=answered, reask=not refused_sign_off)
    if missed:  # kept apart for a model, which may make sense of it; never counted as heard
        updated.free_text = [*updated.free_text, *missed][-10:]
    if refused_sign_off:
        reason = f' (your reason: "{reply.text}")' if reply.text else ""
        then = "" if heard else f": {NO_STEP_AFTER_REFUSAL}"
        updated.answers = [*updated.answers, f"you did not sign off{reason}{then}"]
    elif not heard and reply.kind == "deny":
        updated.answers = [*updated.answers, "you denied, but this question proposed no action to deny"]
    return ReplyEffect(rules=updated, instructions=heard)


# A model that reads what the grammar missed (agent.hearing.model_reading.ModelReader): the clauses
# to ask back, and why the rest of its reading was refused.
Reader = Callable[[str, Callable[[str], bool]], tuple[list[str], list[str]]]


# the change a relaunch is to carry, said by a pronoun: "restart with that", "unset it", "that way", "move it off 7"
_WITH_WHAT_I_MISSED = re.compile(
    r"\b(?:with|unset|drop|set|use|apply|change|move|switch)\s+(?:it|that|this|them|those)\b|\bthat\s+way\b", re.I
)
# a change a relaunch is to carry, said in words I did not read: "set --mem-fraction-static to 0,85 and relaunch",
# "unset: A, B / relaunch: yes"; a yes to the relaunch alone would launch without it
_BARE_PORT = re.compile(r"^port\s+\d{2,5}$", re.I)
_MUST_NOT = re.compile(r"^(?:don'?t|do\s+not|never|not|no|avoid|skip|exclude|stay|keep|leave)\b", re.I)
_A_CHANGE_UNREAD = re.compile(
    r"(?:^|\s)--[a-z]|(?-i:\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b)|^(?:re-?launch|restart)\s+(?:with(?:out)?|on)\s+\S|"
    # "bring it back | up on 30001 with the same flags": where it runs, said in words I did not read (never in
    # a story of what someone did: "i killed a stray proc that was sitting on gpu 2")
    r"^(?!(?:i|we|they|he|she|someone|somebody)\b).*?(?:\bon\s+(?:port\s+|gpus?\s+|cards?\s+)?\d|"
    r"\b(?:port|tp|dp)\s*\d|\bwith\s+(?:\S+\s+){0,2}?\S*\d)|"  # "... but with 32k context"
    r"^(?:please\s+|pls\s+|first\s+|then\s+|also\s+)?(?:set|unset|use|add|remove|drop|change|switch|bump|lower|raise|"
    r"disable|enable|export|put|strip|swap|append|include|turn)\s+(?!(?:nothing|anything|none)\b)\S|"
    # "put quantization fp8 in the args": what goes into the launch's own command line
    r"\b(?:in|into|to|from)\s+the\s+(?:container\s+|launch\s+|server\s+|pod\s+)?(?:args|arguments|cmdline|"
    r"command\s+line|spec)\b",
    re.I,
)


# a setting given the value it had at some earlier moment: "the ctx length from like before", "the mem frac we had
# yesterday", "back to what we had": the value is the operator's memory, not words I can read ("the same flags as
# before" changes nothing, and is no such value)
_FROM_BEFORE = re.compile(
    r"(?<!same\s)\b(?:--[a-z][\w-]+|ctx|context(?:\s+length)?|mem(?:ory)?[-_ ]?frac\w*|tp|dp|port|gpus?|model|backend|"
    r"kv(?:\s+cache)?|chunked\s+prefill|(?:max\s+)?running\s+req\w*|quant\w*|layout)\b"
    r"(?:\s+\S+){0,3}?\s+(?:(?:from|like|as)\s+(?:like\s+)?|(?:that\s+)?(?:we|you)\s+had\s+)"
    r"(?:before|earlier|last\s+time|yesterday|previously|at\s+step\s+\d+)\b|\bback\s+to\s+what\s+(?:we|you)\s+had\b",
    re.I,
)
_QUESTION_MARK = re.compile(r"\?+(?=\s|$)")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")  # never the dot in "v0.3" or "Qwen2.5"
# a request's verb in a question: "use gpus 0-3?", "can we try tp 8 and compare?", "ok to put the KV cache in fp8?"
_REQUEST_VERB = re.compile(
    r"(?:^\s*|[,:]\s*|\b(?:you|we|to|and|then)\s+)(?:(?:please|only|just|also)\s+)*(?:re-?do|re-?run|re-?launch|launch|start|bind|listen|restart|run|try|use|move|"
    r"switch|disable|enable|set|unset|drop|add|put|bump|lower|raise|keep|stay|serve|shard|cap|limit|go\s+with)\b",
    re.I,
)


Heard = tuple[OperatorRules, list[str], list[str]]  # what `ins.hear` gives: the rules, heard, missed


def _asked_as_a_question(rules: OperatorRules, text: str) -> tuple[str, Heard] | None:
    """The words read without their "?" and that reading, when a "?" is all that keeps them from reading as
    instructions: "use gpus 0-3?", "can we try tp 8 and compare?" ask for a change the way a colleague
    would; never taken, but asked back, not dropped. None otherwise."""
    questions = [asked for asked in _SENTENCE_END.split(text) if asked.rstrip().endswith("?")]
    if not questions or not all(_REQUEST_VERB.search(asked) for asked in questions):
        return None  # no question (read as said: no second reading), or "NCCL_IB_DISABLE=1?": about a thing
    as_asked_text = _QUESTION_MARK.sub(".", text)
    as_said, as_asked = ins.hear(rules, text), ins.hear(rules, as_asked_text)
    if len(as_asked[2]) < len(as_said[2]) or (not _reads_some(rules, text) and _reads_some(rules, as_asked_text)):
        return as_asked_text, as_asked
    return None


def _reads_some(rules: OperatorRules, text: str) -> bool:
    """Whether the grammar reads any of `text`, taken or only to be asked back ("org/name", bare ids)."""
    _, heard, missed = ins.hear(rules, text)
    return bool(heard) or any(ins.counted(rules, clause) for clause in missed)


# a flag with a value that looks like one ("fp8_e5m2", "32768"), never a word after it ("--x fails")
_FLAG_VALUE = re.compile(r"(--[a-z][a-z0-9-]+)(?:\s+|=)([\w.]*[\d_][\w.]*)", re.I)


# a layout's part said in words: "dp 2", "tp=4", "replicas 2"; and a DP said at all ("single replica", "dp1")
_LAYOUT_PART = re.compile(r"\b(tp|dp|replicas?)\s*[=:]?\s*(\d+)\b", re.I)
_TAKEN_BACK = re.compile(r"\b(?:scrap|forget|ignore|drop)\s+(?:that|it)\b|\bnvm\b|\bnever\s*mind\b", re.I)
_DP_COUNTED = re.compile(r"\b(?:[2-8]|two|three|four|five|six|seven|eight)\s+(?:replicas|copies)\b", re.I)
_DP_SPOKEN_OF = re.compile(r"\bdp\b|data[-\s]parallel", re.I)
# "no dp needed", "dp is pointless here", "do not split into dp": a DP of one, said so
_NO_DP_WANTED = re.compile(
    r"\b(?:no|not|don'?t|never|without|pointless|unnecessary|needless|useless|single|one|1)\b|n't\b", re.I
)
_DP_SAID = re.compile(r"\bdp\b|\bdp\s*\d|data[-\s]parallel|replicas?\b|\bcop(?:y|ies)\b", re.I)


def _clashes(updated: OperatorRules, reading: list[str]) -> bool:
    """Whether a state's must-not ("avoid port 30000") keeps off a port or GPU that `updated` uses."""
    kept_off, _, _ = ins.hear(OperatorRules(), "; ".join(reading))
    used_gpus = set(updated.use_gpus or [])
    return updated.use_port in kept_off.avoid_ports or bool(used_gpus & set(kept_off.avoid_gpus))


def _named_in_unread(clauses: list[str], missed: list[str]) -> str | None:
    """A flag my reading sets that the words I did not read give another value ("--kv-cache-dtype
    fp8_e5m2" beside my fp8_e4m3), or None."""
    read = {flag.lower(): value for clause in clauses for flag, value in _FLAG_VALUE.findall(clause)}
    return next(
        (
            f"{flag} {value}"
            for m in missed
            for flag, value in _FLAG_VALUE.findall(m)
            if read.get(flag.lower(), value) != value
        ),
        None,
    )


_PORT_NAMED = re.compile(r"\b(?:port|on|:)\s*(\d{4,5})\b", re.I)
_GPU_NAMED = re.compile(r"\b(?:gpus?|cards?)\s*#?(\d{1,2})\b", re.I)
# words that add a value to what is said beside them ("keep it on 30000 as well", "make sure gpu 2 is in the group")
_ADDED = re.compile(
    r"\b(?:as\s+well|too|also|both|plus|in\s+addition|include[sd]?|including|in\s+the\s+(?:group|set|mix|list))\b", re.I
)


# "kv cache fp8_e4m3 — sorry, fp8_e5m2. e5m2", "chunked prefill 8192... 4096 sorry": a value said again alone,
# unread, beside a reading that sets one
_VALUE_ALONE = re.compile(
    r"^(?:(?:go|use|ok(?:ay)?|sorry|so|then|make\s+it|i\s+mean|actually)[\s,]+)*"
    # a size, a fraction, a dtype, a model: never a GPU id, a step or a ticket ("INC0098777")
    r"(?:(?P<number>\d{2,}[\d.]*[kb]?|\d*\.\d+|\d+[kb])|(?P<dtype>(?:fp8_)?e[45]m[23]|fp8\w*|bf16|int[48]\w*)|"
    r"(?P<model>[A-Za-z][\w.-]*/[\w.-]+|/[\w.@+/-]+))"
    r"(?:[\s,]+(?:sorry|final|then|ok(?:ay)?|pls|please|instead))*[\s.!]*$",
    re.I,
)


def _value_alone_in_unread(reading: OperatorRules, rules: OperatorRules, missed: list[str]) -> str | None:
    """A value said alone in words I did not read, of the kind my reading sets but not its value ("chunked
    prefill 8192... 4096 sorry. 4096"): a yes would take mine, maybe not the one they settled on; or None."""
    was = rules.model_dump()
    now = {k: v for k, v in reading.model_dump().items() if v != was[k] and k not in ("heard", "not_understood")}
    said = " ".join(str(v) for v in now.values()).lower()
    numeric = bool(now.get("use_port") or now.get("layout") or re.search(r"'\d", said))
    for unread in missed:
        found = _VALUE_ALONE.match(unread.strip())
        if found is None or found.group(0).strip(" .!").lower() in said:
            continue
        bare = (found.group("number") or found.group("dtype") or found.group("model") or "").lower()
        if bare in said:
            continue  # "kv cache in fp8 please, fp8_e4m3": the value said again, the same
        kind_set = (
            (found.group("number") and numeric)
            or (found.group("dtype") and re.search(r"fp8|bf16|int[48]|e[45]m", said))
            or (found.group("model") and now.get("use_model"))
        )
        if kind_set:
            return f"'{bare}'"
    return None


def _other_value_in_unread(reading: OperatorRules, missed: list[str]) -> str | None:
    """A port or GPU that words I did not read name beside my reading's port or GPUs, and that my reading
    neither uses nor keeps off ("serve on 30001, but keep it on 30000 as well", "gpus 4-7 only, and make sure
    gpu 2 is in the group"): a yes would drop it, and what they want of it I cannot tell; or None."""
    for unread in missed:
        if not _ADDED.search(unread):
            continue  # "use 30001, the demo is sitting on 30000": the other value is why, not more of it
        if reading.use_port is not None:
            for port in _PORT_NAMED.findall(unread):
                if int(port) != reading.use_port and int(port) not in reading.avoid_ports:
                    return f"port {port}"
        if reading.use_gpus is not None:
            for gpu in _GPU_NAMED.findall(unread):
                if int(gpu) not in reading.use_gpus and int(gpu) not in reading.avoid_gpus:
                    return f"GPU {gpu}"
    return None


# a must-not said in words I did not read: "but do keep off 2 if you can"
_KEEP_OFF = re.compile(
    r"\b(?:keep\s+off|stay\s+(?:off|away\s+from)|avoid|skip|exclude|leave\s+out|don'?t\s+(?:use|touch)|not)(?:\s+|\s*:\s*\[?)"
    r"(?:gpus?\s*|cards?\s*|ports?\s*)?#?(?P<ids>\d{1,5}(?:\s*(?:,|and|&)\s*\d{1,5})*)\b",
    re.I,
)


_USED = re.compile(
    r"\b(?:use|only|(?:run|launch|serve|put\s+it)\s+on)\s+(?:exactly\s+|just\s+)?(?:gpus?\s+|cards?\s+)?(?P<ids>\d{1,2}(?:\s*(?:-|to|,|and)\s*\d{1,2})*)\b",
    re.I,
)


_ALL_USED = re.compile(r"\b(?:use|on|across)\s+(?:all|every)\s+(?:8|eight|of\s+them|the\s+gpus|gpus|cards)\b", re.I)


_NO_ENV = re.compile(
    r"\b(?:don'?t|do\s+not|dont|no)\s+(?:set\s+)?(?:any\s+)?env(?:ironment)?(?:\s+var(?:iable)?s?)?\b", re.I
)


def _used_yet_kept_off(reading: OperatorRules, missed: list[str]) -> str | None:
    """A GPU or port my reading uses that words I did not read keep off ("use gpus 0 to 3, but do keep off 2
    if you can"), or one it keeps off that they use ("Use gulps 0-3 and avoid gpu 2"): a yes would take
    the one and drop the other; or None."""
    for unread in missed:
        if reading.avoid_gpus and _ALL_USED.search(unread):
            return "every GPU"  # "drop gpu 2 and use all 8"
        if reading.set_env and _NO_ENV.search(unread):
            return "the environment"  # "set NCCL_DEBUG=INFO and also dont set any env vars this time"
        for used in _USED.finditer("" if "?" in unread else unread):  # never a question ("whats on gpu 3?")
            if both := sorted(set(normalise.gpu_ids(used.group("ids"))) & set(reading.avoid_gpus)):
                return f"GPU {both[0]}"
        for kept in _KEEP_OFF.finditer(unread):
            for number in map(int, re.findall(r"\d+", kept.group("ids"))):
                if number in (reading.use_gpus or []):
                    return f"GPU {number}"
                if number == reading.use_port:
                    return f"port {number}"
    return None


# a TP asked for, never named in a reason ("it breaks with tp 4", "at tp 2 the weights are too large")
_TP_SAID = re.compile(
    r"\b(?:ensure|make\s+sure|set|use|launch|run|go)\b[^.;,]*?\b(?:tp|tensor[-\s]parallel(?:[-\s]size)?)\s*"
    r"(?:is|=|of|to|:|at)?\s*(\d+)\b",
    re.I,
)


_PORT_TO_SERVE = re.compile(
    r"\b(?:serv(?:e|ing)|use|using|run(?:ning)?|bind(?:ing)?|listen(?:ing)?|launch(?:ing)?|mov(?:e|ing)\s+(?:it\s+)?to)\b"
    r"[^.;,]*?\bport\s+(\d{4,5})",
    re.I,
)


def _asked_for_in_unread(reading: OperatorRules, missed: list[str]) -> str | None:
    """A TP or a port to serve on said in words I did not read while my reading sets none ("use GPU 2 only,
    and kindly ensure that the tensor-parallel size is 4", "I would suggest serving on port 8080 this time,
    and kindly refrain from port 30000"): a yes would launch without it; or None."""
    for unread in missed:
        if reading.layout is None and (tp := _TP_SAID.search(unread)) is not None:
            return f"TP {tp.group(1)}"
        port = _PORT_TO_SERVE.search(unread)
        if reading.use_port is None and port is not None and int(port.group(1)) not in reading.avoid_ports:
            return f"port {port.group(1)}"
    return None


def _other_tp_in_unread(reading: OperatorRules, text: str, missed: list[str]) -> str | None:
    """A second TP named, with words that add it, in words I did not read ("set tp to 4 and also keep tp8
    like yesterday"): a yes would launch only mine; or None."""
    tp = (reading.layout or {}).get("tp")
    if tp is None or not _ADDED.search(text):
        return None
    said = (m for unread in missed for m in _LAYOUT_PART.finditer(unread) if m.group(1).lower() == "tp")
    return next((m.group(0) for m in said if int(m.group(2)) != tp), None)


# "no torch compile for the bench, but keep it for serving": a pronoun in words I did not read keeps what my
# reading changes, for some purpose I cannot place ("keep it out/off/away" agrees with a must-not)
_KEPT_BY_PRONOUN = re.compile(
    r"^(?:but|though|yet)\s+(?:do\s+)?keep\s+(?P<it>it|that|them|this|those)\b(?!\s+(?:out|off|away|disabled)\b)", re.I
)


def _kept_by_pronoun(missed: list[str]) -> str | None:
    """The words "but keep it ..." I did not read, as what they name, or None."""
    return next((f"'{kept.group('it')}'" for m in missed if (kept := _KEPT_BY_PRONOUN.match(m))), None)


def _layout_in_unread(clauses: list[str], missed: list[str]) -> str | None:
    """A DP said in words I did not read beside my reading's TP alone ("replicas 2 ..., tp stays 4"): a yes
    would launch one replica, the DP dropped; or None."""
    if not any(_LAYOUT_PART.search(clause) for clause in clauses) or any(_DP_SAID.search(c) for c in clauses):
        return None
    if any(_TAKEN_BACK.search(unread) for unread in missed):
        return None  # "enable dp attention w/ dp 8 -- nah scrap that, plain tp 8": the DP said was taken back
    said = (m for unread in missed for m in _LAYOUT_PART.finditer(unread) if m.group(1).lower() != "tp")
    # "two replicas" unread beside "tp 4 each": a DP of two or more said in words is dropped all the same
    return (
        next((part.group(0) for part in said), None)
        or next((u for u in missed if _DP_COUNTED.search(u)), None)
        # "tp 2, and dp so that tp times dp is 8": the DP spoken of, its value unread; a yes would take DP 1
        or next((f"the DP ('{u}')" for u in missed if _DP_SPOKEN_OF.search(u) and not _NO_DP_WANTED.search(u)), None)
    )


def _on_the_host(reading: list[str], known_gpus: list[int] | None) -> bool:
    """ "(1, not 8 - 8 was the gpu count)": bare numbers read as GPUs name only GPUs the host has; else they
    are something else, never asked back as GPUs."""
    ids = [int(i) for r in reading if r.startswith(("use GPUs", "don't use GPUs")) for i in re.findall(r"\d+", r)]
    return known_gpus is None or all(i in known_gpus for i in ids)


# a question about what was just said ("is that why it's slow?", "could that be it?")
_ASKED_ABOUT_IT = re.compile(r"^(?:is|was|could|would|might|can|does|did)\s+(?:that|this|it)\b[^?]*\?", re.I)


def ask_back(
    rules: OperatorRules,
    text: str,
    reader: Reader | None = None,
    known_gpus: list[int] | None = None,
    host: list[int] | None = None,
) -> ReplyEffect | None:
    """Words read only in part: nothing acts on them; the question is asked again with the reading
    said back, canonically, and what was not understood ("I read: leave GPU 0 out of every launch.
    I did not understand: 'the desktop session is on it'. Right?"). None when read whole or not at all.
    With a model, what the grammar missed is read by it too, checked, and asked back the same way."""
    if (up := endorsed.taken_up(text, ins.reads_whole)) is not None:
        # 'docs: "--max-running-requests 64 for this tier". do that': another's words, taken up; asked back
        setting, quoted = up
        if not ins.reads_whole(setting) and (hub := ins.counted(rules, setting)):
            setting = "; ".join(hub)  # "use org/name": a hub id, asked back as one said alone is
        said = "; ".join(describe(rules, ins.hear(rules, setting)[0])) or setting
        readback = (
            f'I read: {said}. You took it up from quoted words ("{quoted[:80]}"). Right? (`yes` takes exactly '
            "my reading, nothing else; or say it again in other words.) Nothing of it is in force yet."
        )
        return ReplyEffect(rules=rules, reask=True, confirm=setting, readback=readback)
    if endorsed.refused(text, lambda words: _reads_some(rules, words)):
        # 'docs: "use tp 8". not for us': quoted words, then the operator's own no; nothing of the quote is offered
        said_again = "I read quoted words, then your own words against them: nothing is taken. Say what to do."
        return ReplyEffect(rules=rules.model_copy(update={"answers": [*rules.answers, said_again]}), reask=True)
    if ins.conditional(text) or said_twice.in_one_run(text):
        return None  # "if the topo looks bad, use tp 4", "tp 2 tp 4": a yes to a reading would drop the rest
    # "the last four": read against this host's GPUs; "!port 30001": a command, or "not"? Either is asked back
    derived = (
        shorthand.relative(text, known_gpus)
        or chatops.bang_command(text)
        or arithmetic.worked_out(text)
        or subjects.stop_named(text)  # "take it down": the server? asked back so
    )
    offered = normalise.REMEDY.search(derived or text)  # "X=1 should fix the hang": a maybe, quoted as said
    text = normalise.remedy_as_maybe(derived or text)
    hedge = ins.HEDGE_FIRST.match(text) or ins.HEDGE_LAST.search(text)
    if hedge is not None:  # "maybe try tp 4", "I think port 30001": a suggestion is asked back, never taken
        unhedged = (text[: hedge.start()] + text[hedge.end() :]).strip()
        if (also := ins.HEDGE_LAST.search(unhedged)) is not None:  # "prob tp4 on 0-3 i guess": a maybe at both ends
            unhedged = unhedged[: also.start()].strip()
        if _reads_some(rules, unhedged) or _reads_some(rules, _QUESTION_MARK.sub(".", unhedged)):
            text = unhedged
        else:  # "Could you set X=1 and restart it? zzz": no maybe, a request; read as said, and asked back
            hedge = None
    as_asked = _asked_as_a_question(rules, text)  # "use gpus 0-3?", "tp 8 and compare?": asked back
    asked_as_question = as_asked is not None
    if as_asked is not None:
        text, (updated, heard, missed) = as_asked  # read once already, without the "?"
    else:
        updated, heard, missed = ins.hear(rules, text)
    said_by_others = [c.removeprefix(RELAYED) for c in split_clauses(text) if c.startswith(RELAYED)]  # "@bob says"
    relayed = bool(said_by_others)
    # "Lee said 256 ... but use 128": someone else's words that the writer's own words after them override
    overridden = set(said_by_others) if relayed and not split_clauses(text)[-1].startswith(RELAYED) else set()
    # "dont tuoch 3": a clause with a slip fixed is tried too; what it reads is only asked back
    tried = {
        m: next(filter(None, (ins.counted(rules, c, relayed) for c in shorthand.slips(m))), None)
        for m in missed
        # "radix keeps thrashing, turn it off": the feature, or the server? never read alone
        if m not in overridden and not (ins.IT_OFF.search(m) and ins.A_FEATURE.search(text))
    }
    counts = {m: reading for m, reading in tried.items() if reading is not None and _on_the_host(reading, known_gpus)}
    states = {m for m in counts if phrasing.held(m) is not None}
    for state, next_clause in itertools.pairwise(missed):
        if state in states and _ASKED_ABOUT_IT.match(next_clause):  # "gpu 5 throws ecc errors, is that why it's slow?"
            del counts[state]  # a state offered as the cause asked about: told as a question, never a must-not
    if heard or counts.keys() - states:
        # "use 30001, 30000 is taken": the state is the instruction's reason, and a must-not of its own, asked
        # back with it; never where it would keep off what the instruction uses ("30000 is busy, use it anyway")
        counts = {m: reading for m, reading in counts.items() if m not in states or not _clashes(updated, reading)}
    missed = [m for m in missed if m not in counts]
    was = rules.model_dump()  # dumped once, not once per field compared
    changed = {k for k, v in updated.model_dump().items() if v != was[k]} - {"heard", "not_understood"}
    rerun_only = {"relaunch_wanted", "measure_again"}
    if counts:  # "relaunch: yes" beside an unread "unset: A, B": what a yes would take, counted readings too
        would, _, _ = ins.hear(rules, "; ".join(readings(heard) + [c for r in counts.values() for c in r]))
        counted = {k for k, v in would.model_dump().items() if v != was[k]} - {"heard", "not_understood"}
    else:
        counted = changed
    if (changed <= rerun_only and not counts and any(_WITH_WHAT_I_MISSED.search(m) for m in [*missed, *heard])) or (
        counted and counted <= rerun_only and any(_A_CHANGE_UNREAD.search(m) for m in missed)
    ):
        # "unset it, restart and rerun the bench", "restart it that way": a relaunch with a change I did not
        # read; a yes to the relaunch alone would launch without it. Nothing is taken; asked again.
        unread = "; ".join(f"'{m}'" for m in missed)
        said_again = f"I read a relaunch, but not what to relaunch with: {unread}. Nothing of it is in force."
        return ReplyEffect(rules=rules.model_copy(update={"answers": [*rules.answers, said_again]}), reask=True)
    if not missed and not counts and ((hedge is None and derived is None and not asked_as_question) or not heard):
        return None
    clauses = readings(heard) + [c for reading in counts.values() for c in reading]
    for at, clause in enumerate(clauses):
        if _BARE_PORT.match(clause) and any(_MUST_NOT.match(before) for before in clauses[:at]):
            clauses[at] = f"use {clause}"  # after "avoid GPU 6", a bare "port 31000" said back would carry the avoid
        elif shorthand.bare_gpus(clause):
            clauses[at] = f"use {clause}"  # "gpus 0,1" said back alone is only asked back again: a yes takes the verb
    if placed_before := next((m.group(0) for unread in missed if (m := _FROM_BEFORE.search(unread))), None):
        # "mem frac 0.85 and the ctx length from like before": a setting whose value is one I cannot place; a
        # yes to the rest would launch without it. Nothing is taken.
        said_again = (
            f"I read: {'; '.join(clauses)}; but '{placed_before}' names a value from earlier that I cannot place. "
            "Nothing of it is in force; say the value itself."
        )
        return ReplyEffect(rules=rules.model_copy(update={"answers": [*rules.answers, said_again]}), reask=True)
    corrected = corrections.corrects_itself(text)
    reading, _, _ = ins.hear(rules, "; ".join(clauses))  # what a yes would take, read once
    # the words a correction took back name the old value, never a second one ("--x fp8 / ~~fp8~~ fp4")
    # nor what someone else said that the writer's own words after it overrode ("the doc recommends --x a, but use b")
    later = [m for m in missed if not (corrected and text.startswith(m)) and m not in overridden]
    named_again = (
        _named_in_unread(clauses, later)
        or _value_alone_in_unread(reading, rules, later)
        or _layout_in_unread(clauses, later)
        or time_scope.later_setting(later)  # "tp 4 now, tp 8 after 6pm": a setting for a time I cannot hold
    ) or (
        None  # never a part taken back, nor the why of a correction ("30001 is the exporter's. 30005")
        if corrected
        else _other_value_in_unread(reading, later)
        or _kept_by_pronoun(missed)
        or _used_yet_kept_off(reading, [m for m in missed if m not in said_by_others])  # never "Sam said 'use 0'"
        or _other_tp_in_unread(reading, text, missed)
        or _asked_for_in_unread(reading, missed)
    )
    if named_again and clauses:  # a reading to weigh them against: else nothing was read to ask back
        # "fp8 kv cache? the docs mention --kv-cache-dtype fp8_e5m2, let's use that one": words I did not read
        # name a setting my reading sets; a yes would take my value, maybe not theirs. Nothing is taken.
        said_again = (
            f"I read: {'; '.join(clauses)}; but you also named {named_again} in words I did not read: "
            f"{'; '.join(repr(m) for m in missed)}. Nothing of it is in force; say the setting once, as you want it."
        )
        return ReplyEffect(rules=rules.model_copy(update={"answers": [*rules.answers, said_again]}), reask=True)
    refused: list[str] = []
    updated = reading
    if reader is not None:
        modelled, refused = reader("; ".join(missed), ins.reads_whole)
        clauses += [c for c in modelled if c not in clauses]
        updated, _, _ = ins.hear(rules, "; ".join(clauses))  # the model's clauses read too
    if not clauses:
        return None
    if found := bounds.problems(rules, updated, host):  # never asked back: a "yes" would take it
        return ReplyEffect(
            rules=rules.model_copy(update={"answers": [*rules.answers, bounds.refusal(text, found)]}), reask=True
        )
    said = "; ".join(describe(rules, updated)) or "; ".join(clauses)
    unread = "; ".join(f"'{m}'" for m in missed)
    why = f" ({'; '.join(refused)})" if refused else ""
    not_read = f" I did not understand: {unread}{why}." if missed else ""
    maybe = f" You said it as a maybe ('{hedge.group(0).strip(' ,')}')." if hedge is not None else ""
    if hedge is not None and offered is not None:
        maybe = f" You offered it as a remedy ('{offered.group('why').strip()}')."
    if asked_as_question and hedge is None:
        maybe += " You asked it as a question."
    if any(r[0].startswith("tp ") for r in counts.values()):  # "only two gpus": a count, no ids, no layout
        maybe += " You gave a count of GPUs, not which: I choose them."
    if any(shorthand.bare_gpus(m) for m in counts):  # "gpu 3": GPUs with no word for what to do with them
        maybe += " You named GPUs and no word for what to do with them: I read them as the GPUs to use."
    elif any(r[0].startswith("use GPUs") for r in counts.values()):  # "4-7": numbers with no word for them
        maybe += " You gave bare numbers: I read them as the GPUs to use."
    elif any(r[0].startswith("don't use GPUs") for r in counts.values()):  # "dont touch 7"
        maybe += " You gave bare numbers: I read them as GPUs to keep out of every launch."
    if any(r[0].startswith(shorthand.HUB_READING) for r in counts.values()):
        maybe += " A hub id: the host fetches it unless it has it cached, and sizing it needs it on disk."
    if any(phrasing.backend_named_alone(said) for said in counts):  # "flashinfer backend"
        maybe += " You named a backend, not which (attention, sampling or MoE): I read the attention backend."
    if any(vllm.said_in_vllm_terms(said) for said in counts):  # "--max-model-len 32768"
        maybe += " You gave vLLM's names: I read them as SGLang's flags of the same meaning."
    readback = (
        f"I read: {said}.{not_read}{maybe} Right? (`yes` takes exactly my reading, nothing "
        "else; or say it again in other words.) Nothing of it is in force yet."
    )
    # the words not understood stay words a model decider may read (never rules)
    kept = rules.model_copy(update={"free_text": [*rules.free_text, *missed][-10:]})
    return ReplyEffect(rules=kept, reask=True, confirm="; ".join(clauses), readback=readback)


def _amend_goal(state: AgentState, rules: OperatorRules, text: str) -> ReplyEffect:
    goal = state["goal"]
    # Instructions first ("don't use GPU 0" is a rule for every launch, never words of the goal, where
    # "GPU 0" would read as the GPUs to use); what is left, if anything, amends the goal.
    updated, heard, missed = ins.hear(rules, text)
    if found := bounds.problems(rules, updated, bounds.host_gpus(state)):
        return ReplyEffect(
            rules=rules.model_copy(update={"answers": [*rules.answers, bounds.refusal(text, found)]}), reask=True
        )
    if heard:
        rules = updated.model_copy(update={"not_understood": [m for m in updated.not_understood if m not in missed]})
        if not missed:
            took = "; ".join(describe(rules_of(state), updated)) or "; ".join(heard)
            note = f"I took your words as rules for every launch ({took}); the goal still reads as before"
            return ReplyEffect(rules=rules.model_copy(update={"answers": [*rules.answers, note]}), reask=True)
        text = "; ".join(missed)
    try:
        amended = parse_goal(f"{goal.text}; {text}")
    except GoalError as exc:
        return ReplyEffect(rules=rules.model_copy(update={"answers": [*rules.answers, str(exc)]}), reask=True)
    filled = {k: v for k, v in amended.model_dump().items() if v not in (None, [], "")}
    amended = goal.model_copy(update=filled)  # what the text does not say (a lab's model, GPUs) stays
    if amended.min_aggregate_tps is None and amended.min_single_stream_tps is None:
        note = f'I still find no number to reach in "{text}"'
        return ReplyEffect(rules=rules.model_copy(update={"answers": [*rules.answers, note]}), goal=amended, reask=True)
    # The operator's answer settles the readings asked about.
    return ReplyEffect(
        rules=rules, goal=amended.model_copy(update={"ambiguities": [], "readings": readings_of(amended)})
    )


def apply_deny(state: AgentState, question: Question, reply: Reply, reader: Reader | None = None) -> ReplyEffect:
    """Deny: what the question proposed (its action, or the actions of its numbered steps: what it
    was about to do) is excluded for the run, with the operator's reason; a reason read whole may
    instruct too, one read in part is asked back before it does."""
    rules = rules_of(state)
    offered = offered_actions(question)
    if not offered:
        return apply_words(state, question, reply, reader)
    for action in offered:
        rules = exclusions.exclude(rules, action, "operator", reply.text, [])
    if reply.text:
        host = bounds.host_gpus(state)
        partial = ask_back(rules, reply.text, reader, host=host)
        if partial is not None:
            return partial
        updated, heard, _ = hear_words(rules, reply.text, answer_missed=False)
        if found := bounds.problems(rules, updated, host):  # the deny stands; its reason's values do not
            return ReplyEffect(
                rules=rules.model_copy(update={"answers": [*rules.answers, bounds.refusal(reply.text, found)]})
            )
        return ReplyEffect(rules=updated, instructions=heard)
    return ReplyEffect(rules=rules)


def apply_pick(state: AgentState, question: Question, reply: Reply) -> ReplyEffect:
    """A number: that step next; the sign-off step ends the run for sign-off; one outside my reach is
    explained and the rest offered again."""
    rules = rules_of(state)
    chosen = next((o for o in question.options if o.number == reply.pick), None)
    proposal = state.get("proposal")
    alternatives = list(proposal.alternatives) if proposal is not None else []
    if chosen is None:
        note = f"there is no step {reply.pick} in my last report"
        return ReplyEffect(rules=rules.model_copy(update={"answers": [*rules.answers, note]}), reask=True)
    picked = next((a for a in alternatives if a.description == chosen.description), None)
    if chosen.action is None and picked is not None and picked.sign_off:
        # The operator's call, made: the run ends with the final report for their sign-off.
        accepted = f"{picked.description}: {picked.rationale}" if picked.rationale else picked.description
        return ReplyEffect(rules=rules.model_copy(update={"accept_measured": accepted}))
    if chosen.action is None:
        rest = [a for a in alternatives if a.description != chosen.description]
        sign_off = next((i for i, a in enumerate(rest, start=1) if a.sign_off), None)
        accept = f", pick {sign_off} to sign off what was measured" if sign_off else ""
        note = (
            f'step {chosen.number} ("{chosen.description}") is outside my reach: it needs a machine, a host change '
            f"or a decision only you can make. Do it and tell me (e.g. 'use GPUs 0-7'){accept}, or pick one of the "
            "steps that remain below."
        )
        return ReplyEffect(
            rules=rules.model_copy(update={"answers": [*rules.answers, note]}), reask=True, reask_alternatives=rest
        )
    return ReplyEffect(rules=rules.model_copy(update={"try_action": chosen.action}))


def apply_edit(state: AgentState, command: str, digest: str) -> ReplyEffect:
    """An edit with no action asked about: the command runs next, through the gate."""
    rules = rules_of(state)
    action = Action(tool="run_command", args={"command": command})
    return ReplyEffect(rules=rules.model_copy(update={"try_action": action, "try_approved": digest}))
