"""Operator replies in plain words and short forms, parsed into a typed `Reply`.

What each reply does next (the graph applies it, whichever decider runs):

- `approve`: run the proposed action (or sign off a met goal);
- `deny [reason]`: the proposed action is excluded for the rest of the run, with your reason;
  with no action proposed, the reason is read as an instruction (a bare `deny` is refused);
- `edit <command>`: that command instead, through the policy gate (also with nothing proposed);
- a number: that step of the report's "Next steps"; a step marked "outside my reach" is
  answered (why, and the steps that remain), never taken silently; one marked "your sign-off"
  ends the run with the final report, for your approval;
- any other sentence: instructions in the grammar of `agent.hearing.instructions` (ports, GPUs, env,
  flags, layout, "don't relaunch", "stop the server"); what is not understood is said so.
"""

from __future__ import annotations

import re
import time
from typing import Any

from agent.state import Question, Reply

HELP = (
    "reply with: approve (a) | deny [reason] (d) | edit <command> (e) | continue [--steps N | until <milestone>] (c) "
    "| a number to pick a next step | stop (s) | any other sentence as an instruction"
)


SIGN_OFF = ("goal_met", "gave_up", "goal_unclear")  # approve signs off (or accepts the reading): no action
NOT_SIGNED = ("goal_met", "gave_up")  # a bare deny refuses the sign-off


class ReplyError(ValueError):
    """The reply cannot be used; the message says what was wrong and what to write."""


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
        raise ReplyError(f"this question lists no numbered steps to pick; {HELP}")
    numbers = [o.number for o in question.options]
    if number not in numbers:
        raise ReplyError(f"there is no step {number}: this question lists steps {numbers[0]}-{numbers[-1]}")


_STEPS = re.compile(r"^(?:--steps\s+|-n\s+)?(\d+)(?:\s+steps?)?$")
_COURTESY = r"(?:thanks|thank\s+you|thx|cheers|please|it|that|this|for\s+me|now|then|man|mate|here)"
_AFFIRM = r"(?:yes|yep|yup|yeah|ok(?:ay)?|sure|fine|sounds\s+(?:reasonable|good|fine|right))"
_APPROVAL = (
    r"(?:looks?\s+(?:good|great|fine)(?:\s+to\s+me)?|lgtm|ship\s+it|sign(?:ed)?\s+(?:it\s+)?off|i\s+sign\s+off|"
    r"approved?|i\s+approve|accept(?:ed)?|go\s+ahead|do\s+it|sounds\s+good|yes|yep|yup|yeah|sure|ok(?:ay)?|"
    r"that'?s\s+(?:fine|good|it)|all\s+good|agreed|works\s+for\s+me|(?:the\s+)?numbers\s+look\s+(?:good|great|fine)|"
    r"signing\s+off|good\s+to\s+go|(?:it\s+)?(?:is|looks)\s+good|i\s+approve|from\s+my\s+side|👍|✅|"
    r"fine\s+by\s+me|sgtm|approving|goal\s+met|you\s+may\s+sign\s+off|sign\s+it\s+off)"
)
# Praise that signs off a finished run, but approves no command: "nice" is no answer to "may I run X?"
_PRAISE = (
    r"(?:good(?:\s+enough)?|great|perfect|nice|fine|well\s+done|(?:nice|good|great)\s+(?:job|work)|that'?s\s+great|"
    r"we'?re\s+done(?:\s+here)?|done|excellent|awesome)"
)
_CONTINUE = (
    r"(?:keep\s+(?:going|at\s+it|trying|working)|carry\s+on|go\s+on|proceed|continue|press\s+on|go\s+for\s+it|"
    r"on\s+your\s+own|your\s+call|up\s+to\s+you|you(?:'ve|\s+have)\s+got\s+(?:this|it|(?:the\s+)?next\s+steps?)|"
    r"as\s+you\s+see\s+fit|(?:go\s+ahead|carry\s+on|continue|proceed)\s+with\s+(?:your|the)\s+(?:plan|next\s+steps?)|"
    r"you\s+know\s+what\s+to\s+do|(?:with\s+)?whatever\s+you\s+think\s+is\s+best)"
)
_SEP = r"[\s,.;:!—–-]+"


# "stop using port 30000", "stop the server", "no more launches": words about the server, not the run's stop or a deny
_NOT_A_VERB = re.compile(
    r"^(?:stop|no)\s+(?:[a-z]+ing\b|more\b|new\b|the\s+server|"
    r"the\s+sglang|sglang|my\s+server|your\s+server)",
    re.I,
)


# "no custom allreduce", "no need to rerun": "no" inside a sentence; a deny's reason follows "no," or "no -"
_NO_AS_A_WORD = re.compile(r"^no\s+(?!(?:way|thanks|thank\s+you|not\b|don'?t|do\s+not|never|please)\b)[a-z0-9-]", re.I)


def _only(phrases: str, text: str) -> bool:
    """Whether `text` is made only of these phrases (and courtesies), at least one of them."""
    words = rf"(?:{phrases}|{_COURTESY})"
    return bool(re.fullmatch(rf"{words}(?:{_SEP}{words})*[\s.!]*", text, re.I)) and bool(
        re.search(rf"\b{phrases}\b", text, re.I)
    )


_APPROVED = r"(?:approved?|i\s+approve|lgtm|ship\s+it|sign(?:ed)?\s+(?:it\s+)?off|signing\s+off)"
_CONDITION = r"\b(?:but|except|however|only\s+if|unless|wait|first|before|after|instead|stop|hold)\b"
_HEDGE = re.compile(rf"{_CONDITION}|\b(?:don'?t|do\s+not|not|no)\b", re.I)  # after an approval, any "not" matters


def _understood(text: str) -> tuple[list[str], list[str]]:
    # imported here: agent.cli.errors imports this module, and the instruction grammar is not needed
    # to start `opsagent policy` (its cold start is measured)
    from agent.hearing.instructions import understood

    return understood(text)


def _heard_any(text: str) -> bool:
    return bool(_understood(text)[0])


def _first_then_remarks(phrases: str, text: str, hedges: re.Pattern[str] = _HEDGE) -> bool:
    """ "Approve. Nice work on the P2P thing.", "keep going, you don't need me for this": the answer
    first, then only remarks. A condition or an instruction after it ("approved, but on port
    30001") makes it all words to read instead."""
    match = re.match(rf"^{phrases}\s*(?:[.!,;:—–]|\s-\s)+\s*(?P<rest>.+)$", text.strip(), re.I)
    if match is None or hedges.search(match.group("rest")):
        return False
    return not _heard_any(match.group("rest"))


def _all_instructions(text: str) -> bool:
    """Every clause is an instruction of the grammar: "stop using port 30000" is not a stop."""
    heard, missed = _understood(text)
    return bool(heard) and not missed


def parse_reply(text: str, question: Question, who: str, *, now: float | None = None) -> Reply:
    raw = text.strip()
    if not raw:
        raise ReplyError(f"empty reply; {HELP}")
    word, _, rest = raw.partition(" ")
    word, rest = word.lower().rstrip(",.:;!-"), rest.strip()  # "no, too risky" is a deny with its reason
    at = time.time() if now is None else now
    base: dict[str, Any] = {"question_id": question.id, "who": who, "at": at}
    stop_with_instructions = word in ("stop", "s") and _heard_any(rest)  # "stop it and don't relaunch"
    if rest and (
        _all_instructions(raw) or _NOT_A_VERB.match(raw) or _NO_AS_A_WORD.match(raw) or stop_with_instructions
    ):
        return Reply(kind="say", text=raw, **base)
    approving = rf"(?:{_APPROVAL}|{_PRAISE})" if question.trigger in SIGN_OFF else _APPROVAL
    can_approve = question.action is not None or question.trigger in SIGN_OFF
    if can_approve and (_only(approving, raw) or _first_then_remarks(_APPROVED, raw)):  # "looks good, ship it"
        return Reply(kind="approve", digest=question.digest, **base)
    if rest and (
        (_only(rf"(?:{_CONTINUE}|{_AFFIRM})", raw) and re.search(_CONTINUE, raw, re.I))
        or _first_then_remarks(_CONTINUE, raw, re.compile(_CONDITION, re.I))
    ):  # "yep, keep going", "keep going, you don't need me for this"
        return Reply(kind="continue", **base)
    if rest and word.strip(",.!") in ("approve", "yes", "ok", "okay", "sure") and not _only(approving, raw):
        return Reply(kind="say", text=raw, **base)  # "ok one sec", "yes but on port 30001": words, not a yes
    if word in ("approve", "a", "yes", "y", "ok"):
        if question.action is None and question.trigger not in SIGN_OFF:
            raise ReplyError("there is no action to approve in this question; reply continue, an instruction, or stop")
        return Reply(kind="approve", digest=question.digest, **base)
    if word in ("deny", "d", "no", "n"):
        if question.action is None and question.trigger not in NOT_SIGNED and not rest:
            raise ReplyError(
                "there is no proposed action to deny in this question; write what to do instead "
                "(e.g. 'use port 30001'), pick a numbered step, or stop"
            )
        return Reply(kind="deny", text=rest, **base)
    if word in ("edit", "e"):
        if not rest:
            raise ReplyError("edit needs the command to run instead, e.g. 'edit nvidia-smi -L'")
        return Reply(kind="edit", edited_command=rest, **base)
    if word in ("stop", "s", "abort", "quit"):
        return Reply(kind="stop", text=rest, **base)
    if word in ("continue", "c", "go", "proceed"):
        if not rest:
            return Reply(kind="continue", **base)
        if rest.lower().startswith("until "):
            return Reply(kind="continue", milestone=rest[6:].strip(), **base)
        match = _STEPS.match(rest)
        if match is None and word in ("continue", "proceed") and not re.match(r"^(?:--|-n\b|\d)", rest):
            # "continue with your next steps", "continue if you have a plan, I'm in meetings":
            # remarks go on; words the grammar reads, or a condition, are words to read instead.
            if _heard_any(rest) or re.search(_CONDITION, rest, re.I):
                return Reply(kind="say", text=rest, **base)  # the run goes on with these words heard
            return Reply(kind="continue", **base)
        if match is None and not re.match(r"^(?:--|-n\b|\d)", rest):
            return Reply(kind="say", text=raw, **base)  # "go easy on the host": words, not a step count
        if match is None or int(match.group(1)) <= 0:
            raise ReplyError(f"cannot read {rest!r} as a number of steps; write e.g. 'continue --steps 20'")
        return Reply(kind="continue", steps=int(match.group(1)), **base)
    if raw.isdigit() or (raw.startswith("#") and raw[1:].isdigit()):
        number = int(raw.lstrip("#"))
        check_pick(question, number)
        return Reply(kind="pick", pick=number, text=f"step {number}", **base)
    if len(raw) < 3 or not re.search(r"[A-Za-z]{2}", raw):
        raise ReplyError(f"cannot understand {raw!r}; {HELP}")
    return Reply(kind="say", text=raw, **base)
