"""`opsagent reply`: validate an operator's answer against the waiting question, then post it.

A bad reply changes nothing: unknown run, no open question, expired question, an edit the policy
denies, or words that are not a reply each raise `ReplyError` with what to do instead.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from agent.hearing.instructions import understood
from agent.hearing.replies import ReplyError, bind_approval, parse_reply, reply_slips
from agent.policy.policyset import load_policy_set
from agent.state import Question, Reply
from agent.store.lease import holder_pid, live_holder
from agent.store.records import process_alive
from agent.store.sqlite import Store

FORMS = (
    "approve | N (a step of the report) | deny [--reason TEXT] | stop | continue [--steps N | --until MILESTONE] "
    "| --edit CMD | --say TEXT"
)


def post_cli_reply(
    store: Store,
    run_id: str,
    *,
    verb: str | None,
    steps: int | None,
    until: str | None,
    edit: str | None,
    say: str | None,
    reason: str | None,
    who: str,
    question_id: str | None = None,
    shown_digest: str | None = None,
    words: str | None = None,
) -> str:
    """`shown_digest`: the digest of the action the operator was shown (the web page's); None
    from a terminal, which approves the action of the question it reads now."""
    record = store.get_run(run_id)  # UnknownRun for a run this store never saw
    question = store.current_question(run_id)
    if question_id is not None and (question is None or question.id != question_id):
        # The operator answered the question they saw; once someone else answered it and the run
        # asked anew, this reply must not land on a question they never read.
        status = store.question_status(run_id, question_id)
        what = "is not a question of this run" if status is None else f"was already {status}"
        raise ReplyError(f"question {question_id} of run {run_id} {what}; nothing was changed")
    if question is None:
        raise ReplyError(
            f"run {run_id} has no open question (status: {record.status}); 'opsagent inbox' lists waiting ones"
        )
    now = time.time()
    if question.expires_at is not None and now > question.expires_at:
        store.expire_question(run_id, question.id)
        raise ReplyError(f"question {question.id} of run {run_id} expired unanswered and counts as deny")
    chosen = [name for name, value in (("verb", verb), ("--edit", edit), ("--say", say), ("words", words)) if value]
    if len(chosen) != 1:
        raise ReplyError(f"give exactly one reply: {FORMS}")
    reply = read_form(
        question, who, now, verb=verb, steps=steps, until=until, edit=edit, say=say, reason=reason, words=words
    )
    if reply.kind == "edit" and reply.edited_command:
        policy = load_policy_set([Path(p) for p in record.spec.policies])
        verdict = policy.evaluate_command(reply.edited_command)
        if verdict.decision == "deny":
            rules = ", ".join(verdict.rules) or "default"
            raise ReplyError(f"the policy denies the edited command ({rules}: {verdict.reason}); nothing was changed")
    reply = bind_approval(reply, question, question.digest if shown_digest is None else shown_digest)
    if not store.post_reply(run_id, reply):
        raise ReplyError(f"question {question.id} of run {run_id} was already answered; nothing was changed")
    holder = live_holder(store, run_id)
    live = holder is not None or (store.pids_are_local and record.pid is not None and process_alive(record.pid))
    heard = _heard_note(reply)
    typo = reply_slips(say or words or verb or "", question)
    heard += f" ({typo})" if typo else ""  # a slip taken is said back: "read 'contineu' as continue"
    recorded = f"reply recorded for {run_id} ({question.id}): {reply.kind}{heard}"
    if live:
        pid = holder_pid(holder) if holder is not None else record.pid
        return f"{recorded}; the run continues in {f'process {pid}' if pid is not None else holder}"
    return f"{recorded}; continue the run with: opsagent resume {run_id}"


_VERBS = ("approve", "stop", "continue", "sign-off", "signoff", "yes", "no", "ok")


def read_form(
    question: Question,
    who: str,
    now: float,
    *,
    verb: str | None = None,
    steps: int | None = None,
    until: str | None = None,
    edit: str | None = None,
    say: str | None = None,
    reason: str | None = None,
    words: str | None = None,
) -> Reply:
    """A reply given as a form (`opsagent reply`'s arguments and flags, the web's buttons) read by
    the one function that reads replies, `parse_reply`: `yes` means here what it means at the
    terminal, and a button cannot do what the same word typed would be refused."""
    base: dict[str, Any] = {"question_id": question.id, "who": who, "at": now}
    if edit:
        return Reply(kind="edit", edited_command=edit, **base)
    if say or words:
        return parse_reply(say or words or "", question, who, now=now)
    word = (verb or "").strip()
    if len(word.split()) > 1:
        # Words in quotes ("looks good, ship it", "no, too risky", "use port 30001") read as the
        # terminal and the web inbox read them.
        return parse_reply(word, question, who, now=now)
    lower = word.lower()
    if lower == "deny":
        return parse_reply(f"deny {reason}" if reason else "deny", question, who, now=now)
    if lower == "continue" and (steps is not None or until):
        if steps is not None and steps <= 0:
            raise ReplyError("--steps must be a positive number of steps")
        said = f"continue --steps {steps}" if steps is not None else "continue"
        reply = parse_reply(said, question, who, now=now)
        return reply.model_copy(update={"milestone": until}) if until else reply
    if lower in _VERBS or lower.lstrip("#").isdigit():
        return parse_reply("sign off" if lower in ("sign-off", "signoff") else word, question, who, now=now)
    # One unknown word stays an error (a typo of a verb), not words to read.
    from agent.hearing.shorthand import verb_typo

    fixed = verb_typo(lower)
    hint = f" (did you mean {fixed!r}? nothing was done)" if fixed else ""
    raise ReplyError(f"unknown reply {verb!r}{hint}; use {FORMS}")


def _heard_note(reply: Reply) -> str:
    """What of the words the agent will act on, said now (the next report says it again)."""
    if reply.kind not in ("say", "deny") or not reply.text:
        return ""
    heard, missed = understood(reply.text)
    parts = [f"heard: {'; '.join(heard)}"] if heard else []
    if missed and (reply.kind == "say" or heard):
        parts.append(f"I did not understand: {'; '.join(missed)}")
    return f" ({', '.join(parts)})" if parts else ""
