"""What a signed-in operator does from the page: answer a question, start a run.

Replies go through the same code as `opsagent reply` (agent.hearing.post.post_cli_reply, with the
free-text box read by agent.hearing.replies.parse_reply), so the web and the terminal cannot disagree on
what a reply means. A form names the question it was shown (and, to approve, that question's
action digest): when the run has moved on, the reply is refused and nothing changes.

Until workers exist (issue #20, owner `pg`), a run is driven by an `opsagent run|resume
--approver inbox` process started here, detached, with the same state; its output goes to
`<state>/specs/<run>.log`, which the page tails while a server starts.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.hearing.post import post_cli_reply
from agent.hearing.replies import ReplyError
from agent.store.records import process_alive
from agent.store.sqlite import Store

MILESTONES = ("server-ready", "benchmarked")
MAX_GOAL = 16_000  # characters: a goal is a few sentences; a page of text is refused with a 413
_TARGET = re.compile(r"^(lab:[A-Za-z0-9._-]+|local|ssh://[A-Za-z0-9._@:\[\]-]+)$")
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$")


@dataclass
class ReplyForm:
    question_id: str
    digest: str
    verb: str  # approve | deny | edit | continue | stop | pick | text
    reason: str = ""
    command: str = ""
    steps: str = ""
    pick: str = ""
    text: str = ""


def check_current(store: Store, run_id: str, form: ReplyForm) -> None:
    """The page's question must still be the one waiting (an approval's action is checked by
    agent.hearing.replies.bind_approval, whatever words approve)."""
    question = store.current_question(run_id)
    if question is None or question.id != form.question_id:
        status = store.question_status(run_id, form.question_id)
        now = f"the run now asks {question.id}" if question is not None else "no question waits now"
        was = "is not a question of this run" if status is None else f"was already {status}"
        raise ReplyError(
            f"this page showed question {form.question_id}, which {was}; {now}. Nothing was changed: "
            "reload the page and read what it asks before answering"
        )


def reply_from_form(store: Store, run_id: str, form: ReplyForm, who: str) -> str:
    """Post the reply; the one-line outcome. ReplyError when it cannot be used."""
    check_current(store, run_id, form)
    kw: dict[str, Any] = {"verb": None, "steps": None, "until": None, "edit": None, "say": None, "reason": None}
    verb = form.verb
    if verb == "text":
        # The box's words go to the one reading of replies as they were typed (read once, there).
        kw["words"] = form.text
        if not form.text.strip():
            raise ReplyError("write something in the box, or use a button")
    elif verb == "edit":
        if not form.command.strip():
            raise ReplyError("edit needs the command to run instead")
        kw["edit"] = form.command.strip()
    elif verb == "pick":
        kw["verb"] = form.pick.strip()
    elif verb in ("approve", "deny", "stop", "continue", "sign-off"):
        kw["verb"] = verb
        kw["reason"] = form.reason.strip() or form.text.strip() or None  # Deny takes the composer's words
        if form.steps.strip():
            if not form.steps.strip().isdigit():
                raise ReplyError(f"continue needs a whole number of steps, not {form.steps!r}")
            kw["steps"] = int(form.steps)
    else:
        raise ReplyError(f"unknown reply {verb!r}")
    message = post_cli_reply(store, run_id, who=who, question_id=form.question_id, shown_digest=form.digest, **kw)
    return message


class Launcher:
    """Starts `opsagent` processes that drive runs, detached, and remembers their logs."""

    def __init__(
        self,
        state: str,
        transcripts: str | None,
        log_dir: Path,
        *,
        worker: bool = False,
        roots: list[Path] | None = None,
    ) -> None:
        self.state, self.transcripts, self.log_dir = state, transcripts, log_dir
        self.worker = worker  # a worker in this server resumes answered runs (agent.loop.worker)
        # where policy files named on the page may be: the project first (relative paths), the state
        self.roots = [r.resolve() for r in (roots or [Path.cwd()])]
        self.children: dict[str, subprocess.Popen[bytes]] = {}

    def log_for(self, run_id: str) -> Path | None:
        path = self.log_dir / f"{run_id}.log"
        return path if path.exists() else None

    def _spawn(self, run_id: str, args: list[str], stdin: str | None = None) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        # The state through the environment, not argv: a Postgres URL's password would show in `ps`.
        env = dict(os.environ, PYTHONUNBUFFERED="1", OPSAGENT_STATE=self.state)
        env.setdefault("OPSAGENT_HEARTBEAT_S", "1")  # the page's log tail shows a starting server each second
        log = os.open(self.log_dir / f"{run_id}.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)  # its output
        with os.fdopen(log, "ab") as out:
            child = subprocess.Popen(
                [sys.executable, "-m", "agent.cli", *args],
                stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # the run outlives the page and the server
                env=env,
            )
        if stdin is not None and child.stdin is not None:
            with contextlib.suppress(BrokenPipeError):  # it died at once: its log says why
                child.stdin.write(stdin.encode())
            with contextlib.suppress(BrokenPipeError):
                child.stdin.close()
        self.children[run_id] = child
        self.reap()

    def reap(self) -> None:
        for run_id, child in list(self.children.items()):
            if child.poll() is not None:
                del self.children[run_id]

    def start(self, target: str, goal: str, policies: list[str]) -> str:
        target, goal = target.strip(), goal.strip()
        if not _TARGET.match(target):
            raise ReplyError(f"target {target!r} is not one of lab:NAME, local, ssh://user@host[:port]")
        if not goal and not target.startswith("lab:"):
            raise ReplyError("a goal is needed (only a lab scenario carries its own)")
        if len(goal) > MAX_GOAL:
            raise ReplyError(f"the goal is {len(goal):,} characters; a goal must be under {MAX_GOAL:,}: say it shorter")
        paths = [self.policy_path(p) for p in policies]
        run_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"
        args = ["run", "--target", target, "--approver", "inbox", "--run-id", run_id]
        args += ["--goal-stdin"] if goal else []  # never in argv, where `ps` shows it to every user
        for path in paths:
            args += ["--policy", str(path)]
        args += ["--transcripts", self.transcripts] if self.transcripts else []
        self._spawn(run_id, args, stdin=goal if goal else None)
        return run_id

    def policy_path(self, given: str) -> Path:
        """The policy file a page named, if it is a valid policy under the project or the state.

        Whatever is wrong (no such file, outside those directories, unreadable, not a policy) the
        answer is the same, and quotes nothing of the file: the form must not probe the server."""
        from agent.policy.loader import PolicyLoadError
        from agent.policy.policyset import load_policy_set

        path = Path(given).expanduser()
        path = (path if path.is_absolute() else self.roots[0] / path).resolve()
        inside = any(path.is_relative_to(root) for root in self.roots)
        try:
            if inside and path.is_file():
                load_policy_set([path])
                return path
        except (PolicyLoadError, OSError, ValueError):
            pass
        raise ReplyError(
            f"policy file {given!r} cannot be used: name a valid policy file under the project directory "
            "(relative to it, e.g. policies/lab-host.yaml) or under the state directory"
        )

    def resume_if_undriven(self, store: Store, run_id: str) -> bool:
        """After a reply: when no process drives the run, start one (it takes the reply); with a
        worker in this server, the worker does."""
        record = store.get_run(run_id)
        if self.worker:
            return False
        if record.status in ("finished", "stopped") or (record.pid is not None and process_alive(record.pid)):
            return False
        child = self.children.get(run_id)
        if child is not None and child.poll() is None:
            return False
        self._spawn(run_id, ["resume", run_id, "--approver", "inbox"])
        return True


def valid_run_id(run_id: str) -> bool:
    return bool(_RUN_ID.match(run_id))
