"""Operator replies in plain words and short forms, parsed into a typed `Reply`.

What each reply does next (the graph applies it, whichever decider runs):

- `approve`: run the proposed action (or sign off a met goal);
- `deny [reason]`: the proposed action is excluded for the rest of the run, with your reason;
  with no action proposed, the reason is read as an instruction (a bare `deny` is refused);
- `edit <command>`: that command instead, through the policy gate (also with nothing proposed);
- a number: that step of the report's "Next steps"; a step marked "outside my reach" is
  answered (why, and the steps that remain), never taken silently; one marked "your sign-off"
  ends the run with the final report, for your approval;
- any other sentence: instructions in the grammar of `agent.hearing.instructions` (ports, GPUs, env, flags,
  layout, "don't relaunch", "stop the server"); what is not understood is said so."""

from __future__ import annotations

import re
import time
from typing import Any

from agent.hearing import (
    answers,
    chinese,
    hints,
    litotes,
    not_taken,
    quoted_reply,
    regarding,
    reply_numbers,
    reply_picks,
    reply_text,
    reply_typos,
)
from agent.hearing.context_first import answer_after_context
from agent.hearing.hints import accepts_question, terminal_help
from agent.hearing.polite import suggested
from agent.hearing.reply_remarks import (
    APPROVED,
    APPROVED_AFTER,
    CONDITION,
    HEDGE,
    all_instructions,
    courtesy_only,
    first_then_remarks,
    heard_any,
    judged_then_signed,
    less_remarks,
    made_of,
    read_or_asked,
)
from agent.hearing.reply_words import (
    A_COMMAND,
    A_SETTING,
    ACKNOWLEDGED,
    AFFIRM,
    AFFIRM_ONLY,
    APPROVAL,
    APPROVE_WORDS,
    BENIGN,
    CALL_ME,
    CONTINUE,
    COURTESY,
    DONT_MIND,
    HESITATION,
    INSTEAD_RUN,
    IT_MEANS_THE_RUN,
    LAUGH_THEN_YES,
    LAUNCHES_OVER,
    MORE_WORK,
    NEGATE_ONLY,
    NO_AS_A_WORD,
    NO_THEN_GO,
    NOT_A_VERB,
    NOT_BAD,
    NOT_DONE_YET,
    NOT_NEEDED,
    NOT_SAID_STRAIGHT,
    PICK_ALONE,
    PRAISE,
    QUALIFIES_NEXT,
    REASSURANCE,
    REFUSAL,
    REFUSAL_RUN_ON,
    REFUSAL_THEN,
    RUN_OBJECT,
    SEP,
    SKIP,
    STEPS_ALONE,
    STOP_REASON,
    STOP_RUN,
    TURNS,
    about_a_setting,
    an_order,
    offered_actions,
    own_words,
    reserved,
    steps_named,
    unquoted,
)
from agent.state import Question, Reply

# "n, not now", "d - skip topo", "n not yet": a one-letter no, then its reason (never "d type fp8")
_REASON_AFTER = re.compile(
    r"^\w\s*[,.:;!—–-]|^\w\s+(?:not|no|nope|nah|never|don'?t|thanks|thx|pls|please|sorry)\b", re.I
)
HELP = terminal_help()  # every reply; a question's own help: terminal_help(accepts_question(q))


SIGN_OFF = ("goal_met", "gave_up", "goal_unclear")  # approve signs off (or accepts the reading): no action
NOT_SIGNED = ("goal_met", "gave_up")  # a bare deny refuses the sign-off
# Only these words sign off a run that did NOT meet its goal ("approve", "yes", "continue" do not):
# the gave-up question says so, and a failed run ends only on the operator's explicit word.
EXPLICIT_SIGN_OFF = re.compile(
    r"^(?:i\s+)?(?:sign(?:ed|ing)?[\s-]*(?:it\s+)?off|sign-off)(?:\s+(?:as\s+is|anyway|unmet|the\s+unmet\s+goal|"
    r"with\s+the\s+goal\s+(?:not\s+met|unmet)))?[\s.!]*$",
    re.I,
)


def gave_up_forms(question: Question) -> str:
    return "the goal is NOT met and I have no further step: " + hints.gave_up_forms(bool(question.options))


class ReplyError(ValueError):
    """The reply cannot be used; the message says what was wrong and what to write."""


class Answered(ReplyError):
    """The reply was a question to the agent, answered from the run's evidence; nothing was
    answered in return, and the run's question still waits."""


def bind_approval(reply: Reply, question: Question, shown_digest: str | None) -> Reply:
    """The one approval rule of every surface (the web, the terminal, `opsagent reply`): a reply
    that approves, whatever its words ("approve", "lgtm", "ship it", "👍"), approves only the
    action whose digest the operator was shown; any other is refused and nothing is approved."""
    if reply.kind != "approve":
        return reply
    if (question.digest or "") != (shown_digest or ""):
        raise ReplyError(
            f"the action waiting for approval in question {question.id} is not the one you were shown; "
            "nothing was approved: read the question again (reload the page) and check the command"
        )
    return reply.model_copy(update={"digest": question.digest})


def check_pick(question: Question, number: int) -> None:
    """A number must name one of the question's steps; the message lists the ones it can."""
    if not question.options:
        raise ReplyError(f"this question lists no numbered steps to pick; {terminal_help(accepts_question(question))}")
    numbers = [o.number for o in question.options]
    if number not in numbers:
        raise ReplyError(f"there is no step {number}: this question lists steps {numbers[0]}-{numbers[-1]}")


def _parse(text: str, question: Question, who: str, *, now: float | None = None) -> Reply:
    raw = NOT_DONE_YET.sub(",", text.strip())
    first = REASSURANCE.match(raw)
    if first is not None and not less_remarks(first.group(0), REASSURANCE) and raw[first.end() :].strip(" ,.;!"):
        raw = raw[first.end() :].strip(" ,.;!")  # "no strong opinion here, keep going": the answer after it
    if not raw:
        raise ReplyError(f"empty reply; {terminal_help(accepts_question(question))}")
    word, _, rest = raw.partition(" ")
    word, rest = word.lower().rstrip(",.:;!-"), rest.strip()  # "no, too risky" is a deny with its reason
    at = time.time() if now is None else now
    base: dict[str, Any] = {"question_id": question.id, "who": who, "at": at}
    stop_with_instructions = (word in ("stop", "s") and heard_any(rest)) or bool(  # "stop it and don't relaunch"
        _STOPS_THE_SERVER.match(raw)  # "stop it for now, the box is needed": "it" is the server, as alone
    )
    if rest and (all_instructions(raw) or NOT_A_VERB.match(raw) or NO_AS_A_WORD.match(raw) or stop_with_instructions):
        return Reply(kind="say", text=raw, **base)
    ended = LAUNCHES_OVER.sub("", raw).strip() or raw
    if (made_of(rf"(?:{STOP_RUN}|{AFFIRM})", ended) and re.search(STOP_RUN, ended, re.I)) or (
        first_then_remarks(
            rf"(?:(?:{AFFIRM}|we'?re\s+done(?:\s+here)?){SEP})?{STOP_RUN}", ended, reasons=(REASSURANCE, STOP_REASON)
        )
    ):  # "ok stop here, i'll pick it up tomorrow", "that's enough for today, stop": the run stops
        return Reply(kind="stop", **base)
    approving = rf"(?:{APPROVAL}|{PRAISE})" if question.trigger in SIGN_OFF else APPROVAL
    if question.trigger in SIGN_OFF and judged_then_signed(approving, raw):
        return Reply(kind="approve", digest=question.digest, **base)
    can_approve = question.action is not None or question.trigger in SIGN_OFF
    if rest and word in ("y", "a") and not (made_of(rf"(?:{approving}|{CONTINUE})", rest) or courtesy_only(rest)):
        # "y is it on 127.0.0.1": one letter, then words that neither thank nor go on, is no yes
        return Reply(kind="say", text=raw, **base)
    answered = rf"(?:{APPROVED}|go\s+ahead|do\s+it)"  # "go ahead, that's harmless": then a remark
    if can_approve and (made_of(approving, raw) or first_then_remarks(answered, raw)):  # "looks good, ship it"
        return Reply(kind="approve", digest=question.digest, **base)
    if rest and (
        (made_of(rf"(?:{CONTINUE}|{AFFIRM})", raw) and re.search(CONTINUE, raw, re.I))
        or first_then_remarks(CONTINUE, raw, re.compile(CONDITION, re.I))
    ):  # "yep, keep going", "keep going, you don't need me for this"
        return Reply(kind="continue", **base)
    if (
        rest
        and word.strip(",.!") in ("approve", "yes", "ok", "okay", "sure", "k", "kk")
        and not made_of(approving, raw)
    ):
        return Reply(kind="say", text=raw, **base)  # "ok one sec", "yes but on port 30001": words, not a yes
    if word in ("approve", "a", "yes", "y", "ok", "k", "kk") or raw.lower().rstrip("!. ") in ("ya", "fine"):
        if question.action is None and question.trigger not in SIGN_OFF:
            raise ReplyError("there is no action to approve in this question; reply continue, an instruction, or stop")
        return Reply(kind="approve", digest=question.digest, **base)
    if rest and (not A_COMMAND.match(rest) if word == "e" else word in ("d", "n") and not _REASON_AFTER.match(raw)):
        return Reply(kind="say", text=raw, **base)  # "d type fp8", "E four M three": dictated letters, no reply
    if word in ("deny", "d", "no", "n", "non"):
        if re.match(rf"{DONT_MIND}\b", rest, re.I) or HESITATION.match(rest.strip(" ,.;:!—–-")):
            return Reply(kind="say", text=raw, **base)  # "no I don't mind": a no that means yes; asked, never a deny
        if not offered_actions(question) and question.trigger not in NOT_SIGNED and not rest:
            raise ReplyError(
                "there is no action to deny in this question; write what to do instead "
                "(e.g. 'use port 30001'), pick a numbered step, or stop"
            )
        return _or_stop(Reply(kind="deny", text=re.sub(r"^[-—–]+\s+", "", rest), **base), question)  # "no - skip topo"
    if word in ("edit", "e"):
        if not rest:
            raise ReplyError("edit needs the command to run instead, e.g. 'edit nvidia-smi -L'")
        return Reply(kind="edit", edited_command=rest, **base)
    if word in ("stop", "s", "abort", "quit"):
        if rest and not re.match(r"^\S+[,.:;!—–-]|^\S+\s+[-—–]", raw) and not RUN_OBJECT.match(rest):
            # "stop le serveur": what follows with no pause is what to stop, and these words are not the run
            return Reply(kind="say", text=raw, **base)
        return Reply(kind="stop", text=rest, **base)
    if word in ("continue", "c", "cont", "go", "proceed"):
        if not rest:
            return Reply(kind="continue", **base)
        if rest.lower().startswith("until "):
            return Reply(kind="continue", milestone=rest[6:].strip(), **base)
        match = STEPS_ALONE.match(rest)
        if match is None and word in ("continue", "proceed") and not re.match(r"^(?:--|-n\b|\d)", rest):
            # "continue with your next steps", "continue if you have a plan, I'm in meetings":
            # remarks go on; words the grammar reads, or a condition, are words to read instead.
            if heard_any(rest) or re.search(CONDITION, rest, re.I):
                return Reply(kind="say", text=rest, **base)  # the run goes on with these words heard
            return Reply(kind="continue", **base)
        if match is None and (not re.match(r"^(?:--|-n\b|\d)", rest) or heard_any(rest)):
            return Reply(kind="say", text=raw, **base)  # "go easy on the host", "go 4x2 -- tp 4": words, no count
        if word == "go" and not re.search(r"--steps|-n\b|\bsteps?\b", rest):
            return Reply(kind="say", text=raw, **base)  # "go 30010": a port, a GPU? a bare number is no step count
        if match is None or int(match.group(1)) <= 0:
            raise ReplyError(f"cannot read {rest!r} as a number of steps; write e.g. 'continue --steps 20'")
        return Reply(kind="continue", steps=int(match.group(1)), **base)
    if (picked := PICK_ALONE.match(raw)) is not None:  # "2", "#2", "opt 3", "option 2", "3 please"
        number = int(picked.group(1))
        check_pick(question, number)
        return Reply(kind="pick", pick=number, text=f"step {number}", **base)
    if len(raw) < 3 or (not re.search(r"[A-Za-z]{2}", raw) and not heard_any(raw)):  # "s/30000/30005/" is heard
        raise ReplyError(f"cannot understand {raw!r}; {terminal_help(accepts_question(question))}")
    return Reply(kind="say", text=raw, **base)


# "yep kill it", "run it", "go ahead and launch it": the pronoun is the action the question proposes
_DO_IT = re.compile(
    rf"^(?:{AFFIRM}{SEP})?(?:go\s+ahead\s+and\s+)?(?P<verb>kill|nuke|run|do|launch|start|execute)\s+(?:it|that|this)"
    rf"(?:{SEP}(?:{COURTESY}))*(?:\s*(?:[,.;:!—–]|\s-\s)\s*(?P<remark>\S.*?))?[\s.!]*$",
    re.I,
)
_GPU_NAMED = re.compile(r"\b(?:gpus?|cards?)\s*#?\d", re.I)
# the run named whole, never "no, stop" (halt what was proposed) nor "no, stop it" (the server)
_RUN_NAMED = re.compile(r"\b(?:run|session|everything|whole|altogether|for\s+(?:today|tonight|the\s+day))\b", re.I)


def _or_stop(deny: Reply, question: Question) -> Reply:
    """ "no. none of those. end the whole run": a no whose words stop the run is the stop, never a deny
    after which the run goes on."""
    said = deny.text or ""
    try:
        if _RUN_NAMED.search(said) and parse_reply(said, question, deny.who, now=deny.at).kind == "stop":
            return deny.model_copy(update={"kind": "stop"})
    except (ReplyError, Answered):
        pass  # the words alone are no answer: the deny stands with them as its reason
    return deny


def _only_a_remark(text: str | None) -> bool:
    """ "topo -m is read-only anyway" after "yes, run it": no condition, no "not", no question and
    nothing the grammar reads (then the whole reply is words to read)."""
    if not text:
        return True
    return not HEDGE.search(text) and "?" not in text and not read_or_asked(text)


# a remark beside an answer must not change it: no condition, maybe, question, refusal or other reply word
_NOT_A_REMARK = re.compile(
    rf"{CONDITION}|\b(?:don'?t|do\s+not|not|no|nope|nah|never|if|maybe|perhaps|when|once|until|unless|"
    rf"continue|carry\s+on|keep\s+going|proceed|approve|deny|skip|pass|abort|cancel|kill|rather|wrong|be\s+careful|{NOT_SAID_STRAIGHT}|"
    r"take\s+back|taking\s+back|withdraw\w*|retract\w*|revoke\w*|"  # "take back the yes I gave you"
    # a wait asked for ("give me 5 min to read this", "need a sec"): what the yes beside it answers is not this
    r"(?:give\s+me|gimme|i\s+need|need)\s+(?:a|an|one|two|three|five|ten|a\s+few|few|a\s+couple(?:\s+of)?|\d+)\s+(?:more\s+)?"
    r"(?:secs?|seconds?|mins?|minutes?|moments?|mo|hours?|hrs?)|"
    # what points elsewhere ("whatever the other team did last week, do that"): the answer is about it
    r"(?:whatever|whichever)\s+(?=\w)|the\s+same|same\s+as|as\s+before|like\s+(?:before|last)|"
    r"last\s+(?:week|time|night|run)|yesterday)\b|\?|n't\b",
    re.I,
)
# words of an instruction: a piece that names GPUs, ports, flags, variables or the server is an
# instruction the grammar could not read, never a remark beside an answer
_INSTRUCTION_NOUNS = re.compile(
    r"\b(?:gpus?|cards?|devices?|replicas?|ports?|tp|dp|layout|server|sglang|relaunch|restart|launch|bounce|model|ckpt|checkpoint|"
    r"env|bench(?:mark)?|measure|flag|excl(?:'?d|uded))\b|\b(?:without|except)\s+(?=\d)|--|[A-Z][A-Z0-9_]{2,}=|(?<!\w)/\w",
    re.I,
)
_PIECES = re.compile(
    r"\s*(?:[.!;]+(?:\s+|$)|,(?!\d{3})\s*|:\s+|\s-{1,2}\s|—|\s+and\s+(?:then\s+)?|\s+then\s+|\s*\(|\)\s*)\s*", re.I
)
# "run it", "do it", "do that one": the proposed action itself, approved in a reply made of answer and remarks
_DO_THE_ACTION = r"(?:(?:just\s+)?(?:run|do|execute)\s+(?:it|that|this)(?:\s+one)?)"
# an SRE's go-ahead for the action proposed ("k", "ack", "send it"): only beside an action to approve
_GO = (
    r"(?:go|k|kk|ack|roger|aye|send\s+it|fire\s+away|run\s+with\s+it|have\s+at\s+it|green\s+light|greenlit|go\s+go|"
    # "I don't mind, run it": a yes, never a "don't"
    rf"{DONT_MIND}(?!\s+(?:either|which|whatever|if)\b))"
)


_POLITE_PICK = re.compile(
    r"^(?:(?:please|sorry|pls|so)[,\s]+)*(?:could|can|would|will)\s+(?:you|we)\s+(?:please\s+)?(?P<ask>[^?]+)\?\s*(?P<rest>.*)$",
    re.I,
)


# never "kill it. the whole session i mean": "it" put right as the run (reply_words.STOP_RUN)
_STOPS_THE_SERVER = re.compile(
    rf"\b(?:stop|kill|halt)\s+it\b(?!\s+all\b)(?!{IT_MEANS_THE_RUN}\b)",
    re.I,
)


def _answer_of(piece: str, question: Question, first: bool) -> str | None:
    """One piece of a reply: 'approve', 'continue', 'stop', 'pick N', 'remark', or None (words to read)."""
    can_approve = question.action is not None or question.trigger in SIGN_OFF
    approving = (
        rf"(?:{APPROVAL}|{PRAISE})" if question.trigger in SIGN_OFF else rf"(?:{APPROVAL}|{_DO_THE_ACTION}|{_GO})"
    )
    said = {"approve": approving, "continue": CONTINUE, "stop": STOP_RUN}
    for kind, phrases in said.items():
        allowed = kind != "approve" or can_approve
        if kind == "stop" and _STOPS_THE_SERVER.search(piece):
            continue  # "stop it for now, the other team needs the box": the server, as "stop it" alone reads
        if (
            allowed
            and made_of(rf"(?:{phrases}|{AFFIRM}|just|(?<=\bok\s)so|(?<=\bokay\s)so)", piece)
            and re.search(rf"\b{phrases}(?!\w)", piece, re.I)
        ):
            return kind
    if can_approve and reply_picks.names_the_action(piece, question):
        return "approve"  # "go ahead w/ topo -m": the proposal, named
    if first and (number := reply_picks.picked_with_its_words(piece, question)) is not None:
        return f"pick {number}"  # "3 read the log first": the step's number, and what it does
    if (m := reply_picks.DESCRIBED_PICK.match(piece)) is not None and (
        number := reply_picks.step_named(m.group("what"), question)
    ) is not None:
        return f"pick {number}"  # "do the log one please"
    if (number := reply_picks.picked_in_words(piece, question)) is not None and (
        first or not piece.strip("#").isdigit()
    ):
        return f"pick {number}"  # a bare number after other words ("... gpu 0 and 1") is no pick
    if made_of(AFFIRM, piece) or courtesy_only(piece) or NOT_BAD.match(piece):
        return "remark"  # "ok fine", "thx", "not bad at all": neither an answer nor a condition
    if CALL_ME.match(piece) and not re.search(r"\d|--|[A-Z]{2,}_", piece):
        return "remark"  # "ping me only if it actually OOMs": when to call the operator, no condition on the run
    if (
        _NOT_A_REMARK.search(piece)
        or _INSTRUCTION_NOUNS.search(piece)
        or an_order(piece.strip())  # "fix the nccl thing": an order unread, never a remark beside the answer
        or about_a_setting(piece)
        or chinese.has_unread_script(piece)
        or read_or_asked(piece)
    ):
        return None
    return "remark"


_CHANGES_A_PICK = re.compile(r"\?|\b(?:but|unless|if|instead|except|only|maybe|perhaps|also|and\s+then)\b", re.I)


def _beside_a_pick(piece: str, question: Question) -> str | None:
    from rapidfuzz import fuzz  # loaded only beside a pick

    if any(fuzz.token_set_ratio(piece.lower(), o.description.lower()) >= 85 for o in question.options):
        return "remark"  # "do #2 first (list the gpus)": the step's own words, said again
    if reply_picks.step_named(piece, question) is not None and not _CHANGES_A_PICK.search(piece):
        return "remark"  # "the gpu list one"
    wish = reply_picks.WANTS_TO_SEE.match(piece)
    if wish is not None and reply_picks.step_named(wish.group("what"), question) is not None:
        return "remark"  # "I'd like to see the GPU list before anything else": why the step, its own words
    if reply_picks.WHY_THE_PICK.match(piece) and not re.search(r"\d", piece) and not read_or_asked(piece):
        return "remark"  # "given that the server crashed ...", "it'll tell us if a device fell off the bus"
    if _CHANGES_A_PICK.search(piece) or _INSTRUCTION_NOUNS.search(piece) or an_order(piece) or read_or_asked(piece):
        return None
    return "remark"


# words that go on with what came before ("run it on 4 cards"): never a remark after an answer
_BINDS = re.compile(
    r"^(?:on|with|without|at|using|for|in|to|only|except|but|unless|if|when|after|before|as|via)\b", re.I
)
# an answer said whole, which more words cannot turn into something else
_ENDS_ANSWERED = re.compile(
    r"\b(?:go\s+ahead|run\s+it|do\s+it|ship\s+it|send\s+it|approved?|lgtm|sign(?:ed)?\s+(?:it\s+)?off|"
    r"keep\s+going|carry\s+on|(?:kill|end|stop)\s+the\s+(?:whole\s+)?run)$",
    re.I,
)


def _answers_in(piece: str, question: Question, first: bool) -> list[tuple[str, str | None]]:
    """The piece and what it answers (`_answer_of`); "that ones harmless go for it", "fine fine run it
    whatever": a remark and an answer with no comma between them, as two pieces."""
    said = _answer_of(piece, question, first)
    if said not in (None, "remark"):
        return [(piece, said)]
    words = piece.split()
    for cut in range(1, len(words)):
        head, tail = " ".join(words[:cut]), " ".join(words[cut:])
        kind = _answer_of(tail, question, False)
        if kind is not None and kind.startswith("pick ") and reply_picks.number_taken_before(head, tail):
            continue  # "schedule on 2 3 4 5 only", "you can use 3 again": the number is no step picked
        if QUALIFIES_NEXT.search(head):
            continue  # "looks too good", "not great": the word before turns the answer, never a remark beside it
        if kind not in (None, "remark") and _answer_of(head, question, first) == "remark":
            return [(head, "remark"), (tail, kind)]
    for cut in range(len(words) - 1, 0, -1):  # "just do #3 the log pls": a pick, then the step's own words
        head, tail = " ".join(words[:cut]), " ".join(words[cut:])
        picked = reply_picks.picked_in_words(head, question)
        named = (
            (tail.lower().startswith(("the ", "(")) or not re.fullmatch(r"#?\d+", head.strip()))
            and not reply_picks.COUNTED.match(tail)
            and reply_picks.step_named(tail, question) == picked
        )  # never "2 gpus"; "do the 3rd one tail the log": the pick said in words, then its step's
        if picked is not None and (first or not head.strip("#").isdigit()) and named:
            return [(head, f"pick {picked}"), (tail, "remark")]
    for cut in range(len(words) - 1, 0, -1):  # the answer, then a remark
        head, tail = " ".join(words[:cut]), " ".join(words[cut:])
        if not _ENDS_ANSWERED.search(head) or _BINDS.match(tail) or re.search(r"\d", tail):
            continue  # never "ok one sec", "stop disabling ...", "run it on 4 cards": the words go on with it
        kind = _answer_of(head, question, first)
        if kind not in (None, "remark") and _answer_of(tail, question, False) == "remark":
            return [(head, kind), (tail, "remark")]
    return [(piece, said)]


def _answer_among_remarks(raw: str, question: Question, base: dict[str, Any]) -> Reply | None:
    """ "ok fine, do it. topo output would help rn", "yep confirmed on my end, ttft back under 200ms.
    approved", "lets do option 3 pls": one answer, said once or more, and only remarks beside it.
    Any piece that is neither (a condition, a maybe, a question, an instruction, another answer)
    leaves the whole reply as words to read."""
    pieces = [
        BENIGN.sub("", BENIGN.sub("", less_remarks(p, REASSURANCE).strip(" .!"))).strip(" .!,")
        or "thanks"  # "so there's no risk ...": twice
        for p in _PIECES.split(raw.strip())
        if p.strip(" .!")
    ]
    read = [part for n, p in enumerate(pieces) for part in _answers_in(p, question, n == 0)]
    pieces, answers_said = [p for p, _ in read], [a for _, a in read]
    numbers = [p.strip("#") for p in pieces if re.fullmatch(r"#?\d", p.strip())]
    if len(numbers) == 1 and any(
        not reply_picks.COUNTED.match(p) and reply_picks.step_named(p, question) == int(numbers[0]) for p in pieces
    ):
        # "the log one (3)": a step named and its number beside it, neither alone an answer
        answers_said = [
            f"pick {numbers[0]}" if p.strip("#") == numbers[0] else a for a, p in zip(answers_said, pieces, strict=True)
        ]
    picks = {a for a in answers_said if a is not None and a.startswith("pick ")}
    # "the log one (3)": the step's number said again beside it, in brackets or not
    answers_said = [
        "remark" if a is None and f"pick {p.strip('#')}" in picks else a
        for a, p in zip(answers_said, pieces, strict=True)
    ]
    if None in answers_said and any(a is not None and a.startswith("pick ") for a in answers_said):
        # beside a pick, a remark may say what it will not do ("topo can wait"): the pick runs only its step
        answers_said = [
            a if a is not None else _beside_a_pick(p, question) for a, p in zip(answers_said, pieces, strict=True)
        ]
    if None in answers_said and "stop" in answers_said:  # "abort: the host is being reclaimed": why it stops
        answers_said = [
            "remark" if a is None and not less_remarks(p, STOP_REASON).strip(" .,;!()") else a
            for a, p in zip(answers_said, pieces, strict=True)
        ]
    if any(ACKNOWLEDGED.match(p) for p in pieces) and all(
        a in (None, "remark") or re.fullmatch(rf"{AFFIRM}[\s.!]*", p, re.I)
        for a, p in zip(answers_said, pieces, strict=True)
    ):
        return None  # "yes, i saw the OOM earlier": the yes may answer what was seen, not the question
    if "stop" in answers_said and reply_numbers.BUDGET_THEN_STOP.search(raw):
        return None  # "max 2 more launches then stop and tell me": a budget, then the stop; never the stop now
    if not {"stop", "deny"} & set(answers_said) and any(not_taken.undecided(p) for p in pieces):
        return None  # "yes, thank you for your report. I will discuss with my manager": heard, not decided
    if None in answers_said or re.search(r"(?m)^\s*1[.)]\s+\S.*\n\s*2[.)]\s+\S", raw):  # a numbered list: no pick
        return None
    kinds = {a for a in answers_said if a is not None and a != "remark"}
    if kinds == {"approve", "continue"} and question.action is not None:
        kinds = {"approve"}  # "sure, topo -m is harmless. go for it": with an action waiting, go on is to run it
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    if kind.startswith("pick "):
        number = int(kind.removeprefix("pick "))
        check_pick(question, number)
        return Reply(kind="pick", pick=number, text=f"step {number}", **base)
    if kind == "approve":
        return Reply(kind="approve", digest=question.digest, **base)
    return Reply(kind="continue" if kind == "continue" else "stop", **base)


def _asked_politely(said: str, question: Question, who: str, now: float | None) -> Reply | None:
    try:
        return None if "?" in said else parse_reply(said, question, who, now=now)
    except ReplyError:
        return None  # what the polite question asks is refused alone: the question stays words to read


def reply_slips(text: str, question: Question) -> str | None:
    """The slips a reply was read through, to say back on every surface ("read 'ahed' as ahead"):
    its first word's, and those of a reply read only once its words were put right ("yep go ahed")."""
    raw, first = reply_typos.typo_read(reply_text.normalised(text))
    notes = [first] if first else []
    slips = reply_typos.fixed(raw)[1]
    try:  # the reply is read twice more only where a slip was found: was it read through the slips?
        retyped = bool(slips) and parse_reply(text, question, "operator", now=0.0).kind != (
            parse_reply(text, question, "operator", now=0.0, retype=False).kind
        )
    except ReplyError:
        retyped = False
    if retyped:
        notes += [note.replace(" read as ", " as ", 1) for note in slips]
    return "read " + "; ".join(n.removeprefix("read ") for n in notes) if notes else None


def parse_reply(text: str, question: Question, who: str, *, now: float | None = None, retype: bool = True) -> Reply:
    """The meaning of an operator's reply to `question`: the one function every surface calls (the
    terminal's line, `opsagent reply RUN <words>` and its flags, `--say`, the web's buttons and box).

    On top of the words' reading, what a reply may mean at this question is decided here, once:
    only explicit words sign off a run whose goal is not met; `continue` never signs off; a number
    of steps is kept or the reply refused; a "yes" to a reading asked back takes exactly that reading."""
    if (picked := quoted_reply.picked(text, question, who, time.time() if now is None else now)) is not None:
        return picked  # "> 2) list the GPUs (nvidia-smi -L)\nthis one": the step quoted
    text = unquoted(text, question)  # "> run `nvidia-smi topo -m`\nyep": the question's own words, quoted
    raw, _ = reply_typos.typo_read(reply_text.normalised(text))
    at = time.time() if now is None else now
    base: dict[str, Any] = {"question_id": question.id, "who": who, "at": at}
    if (maybe := suggested(raw)) is not None:  # before any "do that" is read as a yes to my question
        named = reply_picks.step_named(maybe[1], question)  # "how about listing the gpus first? (your #2)": a pick
        if named is not None and maybe[2] in (None, named):
            return Reply(kind="pick", pick=named, text=f"step {named}", **base)
        if read_or_asked(maybe[1]):  # "how about tp 4?": asked back with its reading, never answered as a question
            return Reply(kind="say", text=maybe[0], **base)
    if question.action is not None and re.fullmatch(r"\s*\+1[\s.!]*", text):  # a bare vote, maybe for a teammate's line
        return Reply(kind="say", text=text.strip(), **base)  # asked again; never a command run on it
    if re.search(r"(?m)^\s*>", text):
        if (put := quoted_reply.resolved(raw)) is not None:  # "> ... --x 0.9?\nno, 0.85": the quoted setting
            return Reply(kind="say", text=put, **base)
        own = own_words(raw)  # "> ops: need the gpus back\nok, stop the server for now": the operator's own
        if own is not None and _says(own, question, who):  # never an answer: to the question, or to the quote?
            return Reply(kind="say", text=own, **base)
        return Reply(kind="say", text=raw, **base)  # "> alice: looks good to me": someone else's answer
    if (about := regarding.split(raw)) is not None:  # "re the port: 30001", "re your 14:02 question: yes"
        if regarding.another_question(raw) or not reply_picks.names_the_proposal(about[0], question):
            return Reply(kind="say", text=raw, **base)  # an answer about something else: its words, read as such
        raw = about[1]  # "re topo -m: go ahead": the proposal named, then the answer
    if chinese.has_unread_script(raw) and not REFUSAL.match(raw) and not raw.lower().startswith(("no", "deny")):
        return Reply(kind="say", text=raw, **base)  # "2,3번 GPU만으로 tp2": never step 2, nor a yes
    if litotes.unsettled(raw) or not_taken.POLICY_CHANGE.search(raw) or not_taken.REVERT.search(raw):
        # "ok no"; "approve all future commands"; "no. put everything back how it was": no answer stands
        return Reply(kind="say", text=raw, **base)
    if NO_THEN_GO.match(raw):
        raise ReplyError(f"{raw!r} says no, then go ahead: write `approve` to run it, or `deny` with your reason")
    turns = sorted(
        (t for turn in TURNS for t in turn.finditer(raw) if t.start() > 0 and raw[t.end() :].strip(" .!")),
        key=lambda t: t.start("word"),
    )
    if (against := reply_picks.PICKED_NOT_OTHER.match(raw)) is not None:  # "do 3, not 1", "not 2 -- 3"
        number = int(next(n for n in against.group("first", "bare", "then", "other", "instead") if n))
        check_pick(question, number)
        return Reply(kind="pick", pick=number, text=f"step {number}", **base)
    if (put_right := reply_picks.PUT_RIGHT.match(raw)) is not None:
        # "2. actually no, 3, the log is more useful": a step picked, then put right; the step said last stands,
        # only where both are picks ("use gpu 2. actually no, 3" picks nothing)
        try:
            first_pick = parse_reply(put_right.group("first"), question, who, now=now, retype=retype)
            later = (
                parse_reply(raw[put_right.start("then") :], question, who, now=now, retype=retype)
                if first_pick.kind == "pick"
                else None
            )
        except ReplyError:
            later = None  # "2,3 ... sorry, 4": no one step either side
        if later is not None and later.kind == "pick":
            return later
    if turns:
        # "hold off -- actually no, carry on", "not yet... eh fine, sign off": what stands is said last;
        # when that alone is no answer, the whole is words to read (a correction never leaves the first)
        later = parse_reply(raw[turns[-1].start("word") :], question, who, now=now, retype=retype)
        before = raw[: turns[-1].start()]
        if later.kind == "approve" and (
            first := reply_picks.confirmed(
                before, raw[turns[-1].start("word") :], lambda w: parse_reply(w, question, who)
            )
        ):
            return first  # "the second one. ok.": the pick, said so
        if (later.kind == "approve" and (heard_any(before) or A_SETTING.search(before))) or (
            later.kind == "pick" and _GPU_NAMED.search(before)
        ):
            # "disable radix cache next run. --x. yes": their own words; "stay off gpu 3 ... just 3": the GPU
            return Reply(kind="say", text=raw, **base)
        turned_again = later.kind == "deny" and bool(re.search(STOP_RUN, later.text or "", re.I))  # "ok no, abort it"
        # a no stands after a yes only ("use gpu 3 -- actually no", "go on. actually no": never a deny)
        turned_again = turned_again or (later.kind == "deny" and not made_of(APPROVAL, raw[: turns[-1].start()]))
        return later if later.kind != "say" and not turned_again else Reply(kind="say", text=raw, **base)
    why_not = NOT_NEEDED.sub("", raw).rstrip(" ,.;:!—–-")  # "kill the whole run, we don't need it anymore"
    if NOT_NEEDED.search(raw) and (stop := parse_reply(why_not, question, who, now=now, retype=retype)).kind == "stop":
        return stop
    if (skip := SKIP.match(raw)) is not None and reply_picks.names_the_proposal(skip.group("what"), question):
        return Reply(kind="deny", **base)  # "skip topo": the proposal, named, refused
    said = " ".join(raw.split())
    said = re.sub(
        r"^`(.+)`$", r"\1", re.sub(r"\s+(?:first|pls|please|then)$", "", said, flags=re.I)
    )  # "`nvidia-smi -L` first"
    if question.action is not None and said == reply_picks.command_of(question.action):
        return Reply(kind="approve", digest=question.digest, **base)  # the proposed command, pasted back
    if (
        step := next((o for o in question.options if o.action and said == reply_picks.command_of(o.action)), None)
    ) is not None:
        return Reply(kind="pick", pick=step.number, text=f"step {step.number}", **base)  # "tail -n 50 sglang.log"
    if LAUGH_THEN_YES.match(raw):
        return Reply(kind="say", text=raw, **base)  # answered "I did not understand", and asked again
    approving_the_action = question.action is not None and APPROVE_WORDS.match(raw)
    if question.confirm and AFFIRM_ONLY.match(raw) and not approving_the_action:
        # the reading asked back, confirmed ("approve" with an action waiting approves that action)
        return Reply(kind="say", text=question.confirm, **base)
    if question.confirm and NEGATE_ONLY.match(raw):
        raise ReplyError(
            "then I take nothing of what you said: say it again in other words, or answer the question "
            "(write `deny` to deny what it proposes)"
        )
    refusal = REFUSAL.match(raw)
    if refusal is None and (then := REFUSAL_THEN.match(raw)) is not None and all_instructions(then.group("reason")):
        refusal = then
    if refusal is None and (then := REFUSAL_RUN_ON.match(raw)) is not None and not heard_any(then.group("reason")):
        refusal = then
    if refusal is not None:
        # "hold off", "absolutely not", "yeah no": a deny, though no "no" leads it
        reason = (refusal.group("reason") or "").strip()
        if APPROVED_AFTER.search(reason) or HESITATION.match(reason):
            # "declined pending review... which just came back clean. signed": the refusal is taken back
            return Reply(kind="say", text=raw, **base)
        if offered_actions(question) or question.trigger in NOT_SIGNED:
            return _or_stop(Reply(kind="deny", text=reason, **base), question)
        raise ReplyError(f"{raw!r}: this question proposes nothing to refuse; {HELP}")
    if (polite := _POLITE_PICK.match(raw)) is not None:  # "Could you do step 3 first? The log will say"
        picked = _answer_among_remarks(polite.group("ask") + ". " + polite.group("rest"), question, base)
        if picked is not None and picked.kind == "pick":
            return picked
        said = polite.group("ask") + (f". {polite.group('rest')}" if polite.group("rest").strip() else "")
        asked = _asked_politely(said, question, who, now)
        if asked is not None and (
            asked.kind in ("stop", "continue") or (asked.kind == "deny" and MORE_WORK.search(said))
        ):
            return asked  # "can we stop the whole run here? we're done for today": a stop, or more work, asked politely
    if answers.asks_if_usable(raw) or (answers.is_question(raw) and not heard_any(raw)):
        raise Answered(answers.answer(raw, question))
    if (instead := INSTEAD_RUN.match(raw)) is not None:  # "run this instead: nvidia-smi -L": an edit, through the gate
        command = instead.group("cmd") or instead.group("quoted")
        return Reply(kind="edit", edited_command=command.strip().strip("`"), **base)
    if question.trigger == "gave_up" and EXPLICIT_SIGN_OFF.match(raw):
        return Reply(kind="approve", digest=question.digest, **base)
    do_it = _DO_IT.match(raw) if not reserved(raw) else None  # "do it, never", "do it tomorrow": asked again
    if (m := do_it) is not None and offered_actions(question) and _only_a_remark(m.group("remark")):
        # "it" is what the question proposes, never the server by default ("yep kill it" at "kill 4121?")
        if question.action is None:
            raise ReplyError(f"{raw!r}: which step? reply with its number")
        if reply_picks.does_what_it_says(m.group("verb"), question):
            return Reply(kind="approve", digest=question.digest, **base)
        raise ReplyError(
            f"{raw!r}: this question proposes {question.action.render()}; write `approve` to run exactly that, "
            "or say what you want instead"
        )
    reply = _parse(raw, question, who, now=now)
    if reply.kind == "stop" and re.fullmatch(r"\W*\w+[\s.!]*\?+\s*", raw):  # "stop?", "^C?": asked, not said
        return Reply(kind="say", text=raw, **base)
    if reply.kind == "approve" and "?" in raw:  # "ok to run?", "y is it on ...?": a question approves nothing
        return Reply(kind="say", text=raw, **base)
    if retype and reply.kind == "say" and not heard_any(raw):
        # "yep go ahed", "absolutly not": words of a reply each one slip from one word it can be, in a
        # reply read as nothing else; the fixed reply is read as a whole, by the same rules
        retyped, notes = reply_typos.fixed(raw)
        if notes and (again := parse_reply(retyped, question, who, now=now)).kind != "say":
            return again
    if reply.kind == "say" and not heard_any(raw) and (composed := _answer_among_remarks(raw, question, base)):
        reply = composed
    if reply.kind == "say" and (last := answer_after_context(raw, lambda s: parse_reply(s, question, who), heard_any)):
        reply = last  # "we already have the topo output from this morning. so no, don't run it again."
    if reply.kind == "say" and re.fullmatch(r"[A-Za-z]{3,}", raw) and (fixed := reply_typos.verb_typo(raw)) is not None:
        raise ReplyError(f"unknown reply {raw!r}: did you mean {fixed!r}? Nothing was done")  # a typo never acts
    if reply.kind == "approve" and question.trigger == "gave_up":
        raise ReplyError(f"{raw!r} does not sign off here: {gave_up_forms(question)}")
    if reply.kind == "continue" and question.trigger in NOT_SIGNED:
        if question.trigger == "gave_up":
            raise ReplyError(f"`continue` has nothing to continue and does not sign off: {gave_up_forms(question)}")
        if MORE_WORK.search(raw):  # "keep going, it can go higher": the met goal not signed, the work goes on
            return Reply(kind="deny", text=raw, question_id=question.id, who=who, at=reply.at)
        raise ReplyError(
            "`continue` does not sign off: write `approve` (or `sign off`) to sign off the met goal, "
            "an instruction to go on with, or `stop`"
        )
    if (two := steps_named(raw, question, reply.kind)) is not None:
        raise ReplyError(two)
    if reply.kind in ("approve", "continue", "pick", "stop") and (
        reserved(text if "👍" in text else raw, reply.kind) or "🙃" in text  # "stop 🙃": an answer said in irony
    ):
        return Reply(kind="say", text=raw, question_id=question.id, who=who, at=reply.at)  # "approved pending review"
    if reply.kind == "continue":
        reply = _with_numbers(raw, reply)
    return reply


def _says(text: str, question: Question, who: str) -> bool:
    try:
        return parse_reply(text, question, who).kind == "say"
    except Answered:
        raise  # "> bob: use gpu 3\nwhy is 3 busy?": a question to me, answered from the evidence
    except ReplyError:
        return False  # "> bob: use gpu 3\nno, 4": a bare number, no step of mine, nor read alone


def _with_numbers(raw: str, reply: Reply) -> Reply:
    """A number the operator gave is honoured (a step count) or the reply is refused: never dropped."""
    if reply.kind == "continue" and reply.steps is not None:
        return reply
    steps, refused = reply_numbers.step_count(raw, counts_steps=reply.kind == "continue")
    if refused is not None:
        raise ReplyError(refused)
    return reply.model_copy(update={"steps": steps}) if steps is not None else reply
