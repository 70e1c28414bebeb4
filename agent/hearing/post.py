"""`opsagent reply`: validate an operator's answer against the waiting question, then post it.

A bad reply changes nothing: unknown run, no open question, expired question, an edit the policy
denies, or words that are not a reply each raise `ReplyError` with what to do instead.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from agent.hearing.instructions import understood
from agent.hearing.replies import NOT_SIGNED, SIGN_OFF, ReplyError, bind_approval, check_pick, parse_reply
from agent.policy.policyset import load_policy_set
from agent.state import Reply
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
    chosen = [name for name, value in (("verb", verb), ("--edit", edit), ("--say", say)) if value]
    if len(chosen) != 1:
        raise ReplyError(f"give exactly one reply: {FORMS}")
    base: dict[str, Any] = {"question_id": question.id, "who": who, "at": now}
    if edit:
        policy = load_policy_set([Path(p) for p in record.spec.policies])
        verdict = policy.evaluate_command(edit)
        if verdict.decision == "deny":
            rules = ", ".join(verdict.rules) or "default"
            raise ReplyError(f"the policy denies the edited command ({rules}: {verdict.reason}); nothing was changed")
        reply = Reply(kind="edit", edited_command=edit, **base)
    elif say:
        reply = Reply(kind="say", text=say, **base)
    elif verb is not None and len(verb.split()) > 1:
        # Words in quotes ("looks good, ship it", "no, too risky", "use port 30001") read as the
        # terminal and the web inbox read them; one unknown word stays an error (a typo of a verb).
        reply = parse_reply(verb, question, who, now=now)
    else:
        word = (verb or "").lower()
        if word == "approve":
            if question.action is None and question.trigger not in SIGN_OFF:
                raise ReplyError(f"question {question.id} proposes no action to approve; reply continue, --say or stop")
            reply = Reply(kind="approve", digest=question.digest, **base)
        elif word == "deny":
            if question.action is None and question.trigger not in NOT_SIGNED and not reason:
                raise ReplyError(
                    f"question {question.id} proposes no action to deny; use --say 'what to do instead', "
                    "a step number, or stop"
                )
            reply = Reply(kind="deny", text=reason or "", **base)
        elif word.lstrip("#").isdigit():
            number = int(word.lstrip("#"))
            check_pick(question, number)
            reply = Reply(kind="pick", pick=number, text=f"step {number}", **base)
        elif word == "stop":
            reply = Reply(kind="stop", **base)
        elif word == "continue":
            if steps is not None and steps <= 0:
                raise ReplyError("--steps must be a positive number of steps")
            reply = Reply(kind="continue", steps=steps, milestone=until, **base)
        else:
            raise ReplyError(f"unknown reply {verb!r}; use {FORMS}")
    reply = bind_approval(reply, question, question.digest if shown_digest is None else shown_digest)
    if not store.post_reply(run_id, reply):
        raise ReplyError(f"question {question.id} of run {run_id} was already answered; nothing was changed")
    holder = live_holder(store, run_id)
    live = holder is not None or (store.pids_are_local and record.pid is not None and process_alive(record.pid))
    heard = _heard_note(reply)
    recorded = f"reply recorded for {run_id} ({question.id}): {reply.kind}{heard}"
    if live:
        pid = holder_pid(holder) if holder is not None else record.pid
        return f"{recorded}; the run continues in {f'process {pid}' if pid is not None else holder}"
    return f"{recorded}; continue the run with: opsagent resume {run_id}"


def _heard_note(reply: Reply) -> str:
    """What of the words the agent will act on, said now (the next report says it again)."""
    if reply.kind not in ("say", "deny") or not reply.text:
        return ""
    heard, missed = understood(reply.text)
    parts = [f"heard: {'; '.join(heard)}"] if heard else []
    if missed and (reply.kind == "say" or heard):
        parts.append(f"I did not understand: {'; '.join(missed)}")
    return f" ({', '.join(parts)})" if parts else ""
