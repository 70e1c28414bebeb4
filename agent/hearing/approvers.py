"""The `Approver` interface, a question in and the operator's reply out, and its implementations.

- `TerminalApprover`: the report, then a chat-style prompt; a reply from another shell
  (`opsagent reply`) is taken too while it waits.
- `InboxApprover`: waits for `opsagent reply` from any shell (detached runs, no terminal).
- `LeaveInInbox`: answers nothing; the run stops as waiting and `opsagent resume` continues it.
- `ScriptedOperator`: behaves like the real operator of the cases: continues when the agent has
  next steps, signs off a met goal, denies anything the policy marks for approval.
- `ListApprover`: replies from a list, in order (tests).
"""

from __future__ import annotations

import select
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TextIO, runtime_checkable

from rich.console import Console
from rich.markdown import Markdown

from agent.hearing.hints import WHOLE_REPORT_WORD, accepts_question, report_changes, terminal_help
from agent.hearing.replies import Answered, ReplyError, bind_approval, parse_reply, reply_slips
from agent.state import Question, Reply
from agent.store.sqlite import Store


@runtime_checkable
class Approver(Protocol):
    name: str

    def answer(self, question: Question) -> Reply | None:
        """The reply, or None when nobody can answer now (the run then waits in the inbox)."""
        ...


def expired_reply(question: Question) -> Reply:
    return Reply(
        question_id=question.id,
        kind="deny",
        text="the question expired unanswered",
        who="opsagent",
        at=question.expires_at or time.time(),
    )


class ScriptedOperator:
    name = "scripted-operator"

    def __init__(self, who: str = "scripted-operator", console: Console | None = None) -> None:
        self.who, self.console = who, console

    def answer(self, question: Question) -> Reply:
        reply = self._decide(question)
        if self.console is not None:  # show what it was asked, as a person would have seen it
            self.console.print(Markdown(question.report_markdown or question.question))
            self.console.print(f"[bold]scripted operator:[/bold] {reply.kind} {reply.text}".rstrip())
        return reply

    def _decide(self, question: Question) -> Reply:
        base: dict[str, Any] = {"question_id": question.id, "who": self.who, "at": question.asked_at}
        if question.trigger == "policy_ask":
            return Reply(kind="deny", text="the scripted operator denies what the policy marks for approval", **base)
        if question.trigger in ("goal_met", "gave_up"):
            return Reply(kind="approve", digest=question.digest, **base)
        if question.trigger == "outcome_unknown":
            return Reply(kind="say", text="verify the state of the host before doing anything else", **base)
        return Reply(kind="continue", text="continue if you have next steps", **base)


class ListApprover:
    name = "list"

    def __init__(self, replies: Iterable[str | Callable[[Question], Reply]], who: str = "test-operator") -> None:
        self._replies = list(replies)
        self.who = who
        self.asked: list[Question] = []

    def answer(self, question: Question) -> Reply | None:
        self.asked.append(question)
        if not self._replies:
            return None
        item = self._replies.pop(0)
        if callable(item):
            return item(question)
        return parse_reply(item, question, self.who, now=question.asked_at)


class LeaveInInbox:
    name = "inbox-only"

    def answer(self, question: Question) -> Reply | None:
        return None


def reply_from_elsewhere(store: Store, run_id: str, question: Question, now: float) -> Reply | None:
    """A reply posted from another shell, or deny once the question has expired; else None."""
    reply = store.take_reply(run_id, question.id)
    if reply is not None:
        return reply
    if question.expires_at is not None and now > question.expires_at:
        store.expire_question(run_id, question.id)
        return expired_reply(question)
    return None


class InboxApprover:
    """Waits for a reply posted by `opsagent reply` from any process, until the question expires."""

    name = "inbox"

    def __init__(self, store: Store, run_id: str, poll_s: float = 0.3, clock: Callable[[], float] = time.time) -> None:
        self.store, self.run_id, self.poll_s, self.clock = store, run_id, poll_s, clock

    def answer(self, question: Question) -> Reply | None:
        while (reply := reply_from_elsewhere(self.store, self.run_id, question, self.clock())) is None:
            time.sleep(self.poll_s)
        return reply


class TerminalApprover:
    """Chat-style at the terminal; replies typed elsewhere (`opsagent reply`) are taken too."""

    name = "terminal"

    def __init__(self, store: Store, run_id: str, who: str, console: Console, stream: TextIO = sys.stdin) -> None:
        self.store, self.run_id, self.who, self.console, self.stream = store, run_id, who, console, stream
        self._shown = ""  # the last report printed whole: the next one shows what changed

    def answer(self, question: Question) -> Reply | None:
        report = question.report_markdown
        if self._shown and report:
            self.console.print(Markdown(report_changes(self._shown, report)))
            self.console.print(f"type {WHOLE_REPORT_WORD} for the whole report", style="dim", markup=False)
        else:
            self.console.print(Markdown(report or question.question))
        self._shown = report
        if not report:  # a report ends with its own line on how to reply
            self.console.print(terminal_help(accepts_question(question)), style="dim", markup=False)
        while True:
            self.console.print("[bold]reply>[/bold] ", end="")
            line = self._read_line(question)
            if isinstance(line, str) and line.strip().lower() == WHOLE_REPORT_WORD:
                self.console.print(Markdown(report or question.question))
                continue
            if isinstance(line, Reply):
                self.console.print(f"\n[dim]answered from another shell by {line.who}: {line.kind}[/dim]")
                return line
            if line is None:  # end of input: leave the question waiting in the inbox
                return None
            try:
                reply = bind_approval(parse_reply(line, question, self.who), question, question.digest)
                if (typo := reply_slips(line, question)) is not None:  # a slip taken is said back
                    self.console.print(f"[dim]{typo}[/dim]")
                return reply
            except Answered as answered:  # the operator's question, answered; mine still waits
                self.console.print(str(answered), markup=False, highlight=False)
            except ReplyError as exc:
                self.console.print(str(exc), style="red", markup=False)  # `[reason]` is text, not markup

    def _read_line(self, question: Question) -> str | Reply | None:
        while True:
            ready, _, _ = select.select([self.stream], [], [], 0.5)
            if ready:
                line = self.stream.readline()
                return None if line == "" else line
            reply = reply_from_elsewhere(self.store, self.run_id, question, time.time())
            if reply is not None:
                return reply
