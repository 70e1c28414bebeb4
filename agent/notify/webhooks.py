"""Webhooks when a question starts waiting: the operator hears about it where they are.

Each configured hook gets one POST per waiting question, as Slack incoming-webhook JSON
(`{"text": ...}`) or as a generic JSON object (run id, question id, trigger, question, link),
with a link to the run's thread `<public_url>/runs/<run_id>` when a public URL is set.

Delivery is in the background (a daemon thread per hook and question) and retried with
exponential backoff on connection errors, timeouts, 408, 429 and 5xx; other 4xx answers are
final. A slow or failing hook never blocks or fails the run: at exit the process waits at most
`exit_wait_s` for deliveries still under way, then gives up on them. Each outcome (sent, failed,
abandoned at exit) is recorded in the transcript as a `notification` event, with the hook named
by its scheme and host only: a webhook's path is often its secret (Slack's is).

Configured per process: `--notify URL` (repeatable), `--notify-format`, `--public-url` on
`run` and `resume`, or the environment (`OPSAGENT_NOTIFY`, space- or comma-separated URLs,
`OPSAGENT_NOTIFY_FORMAT`, `OPSAGENT_PUBLIC_URL`, `OPSAGENT_NOTIFY_TIMEOUT` seconds per request).
The one hook into the loop is `question_waiting`, called by agent/loop/runner.py where a question is
handed to the approver.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

import structlog
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from agent.state import Question

log = structlog.get_logger(__name__)

ENV_URLS: Final = "OPSAGENT_NOTIFY"
ENV_FORMAT: Final = "OPSAGENT_NOTIFY_FORMAT"
ENV_PUBLIC_URL: Final = "OPSAGENT_PUBLIC_URL"
ENV_TIMEOUT: Final = "OPSAGENT_NOTIFY_TIMEOUT"
FORMATS: Final = ("auto", "slack", "generic")
AUTOMATIC_APPROVERS: Final = frozenset({"scripted-operator"})
"""Approvers that answer at once by themselves: nobody waits, so nobody is told."""

Record = Callable[[str, dict[str, Any]], object]


class NotifyConfigError(ValueError):
    """A bad webhook setting; the message is one line naming the setting and the fix."""


@dataclass(frozen=True)
class Hook:
    url: str
    format: str  # "slack" or "generic"

    @property
    def label(self) -> str:
        """How the transcript names the hook: scheme, host and a digest, never the path or query."""
        parts = urlsplit(self.url)
        digest = hashlib.sha256(self.url.encode()).hexdigest()[:8]
        return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}/… ({digest})"


def _check_url(url: str, where: str) -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise NotifyConfigError(f"{where} {url!r} is not a webhook URL; give an http:// or https:// URL with a host")
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise NotifyConfigError(f"{where} {url!r} has a bad port; give an http:// or https:// URL") from None
    return url.strip()


def parse_hooks(urls: Sequence[str], fmt: str, *, where: str = "--notify") -> list[Hook]:
    if fmt not in FORMATS:
        raise NotifyConfigError(f"--notify-format {fmt!r}: choose one of {', '.join(FORMATS)}")
    hooks = []
    for url in urls:
        checked = _check_url(url, where)
        chosen = fmt
        if fmt == "auto":  # Slack's incoming webhooks live on hooks.slack.com
            chosen = "slack" if urlsplit(checked).hostname == "hooks.slack.com" else "generic"
        hooks.append(Hook(checked, chosen))
    return hooks


def thread_link(public_url: str | None, run_id: str) -> str | None:
    return f"{public_url.rstrip('/')}/runs/{run_id}" if public_url else None


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def payload(hook_format: str, run_id: str, question: Question, public_url: str | None) -> dict[str, Any]:
    """The JSON body for one hook (scrubbed of secrets by the caller)."""
    link = thread_link(public_url, run_id)
    from agent.hearing.hints import reply_hint  # the same line the terminal and `inbox` print

    hint = reply_hint(run_id, question)
    if hook_format == "slack":
        text = (
            f"opsagent run `{_slack_escape(run_id)}` is waiting for you ({_slack_escape(question.trigger)}): "
            f"{_slack_escape(question.question)}"
        )
        text += f"\n<{link}|Open the thread>" if link else f"\nAnswer with: `{_slack_escape(hint)}`"
        return {"text": text}
    action = question.action
    return {
        "event": "question_waiting",
        "run_id": run_id,
        "question_id": question.id,
        "trigger": question.trigger,
        "question": question.question,
        "reason": question.reason,
        "action": action.model_dump(mode="json") if action is not None else None,
        "digest": question.digest,
        "asked_at": question.asked_at,
        "expires_at": question.expires_at,
        "link": link,
        "reply": hint,
    }


class _Retry(Exception):
    """A delivery worth trying again (no answer, a timeout, 408, 429 or 5xx)."""

    def __init__(self, why: str, status: int | None = None) -> None:
        super().__init__(why)
        self.status = status


class _Final(Exception):
    def __init__(self, why: str, status: int | None) -> None:
        super().__init__(why)
        self.status = status


@dataclass
class _Job:
    hook: Hook
    run_id: str
    question_id: str
    body: bytes
    record: Record | None
    attempts: int = 0
    done: bool = False


class Notifier:
    def __init__(
        self,
        hooks: Sequence[Hook],
        public_url: str | None = None,
        *,
        attempts: int = 5,
        timeout_s: float = 10.0,
        backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
        exit_wait_s: float = 5.0,
    ) -> None:
        self.hooks, self.public_url = list(hooks), public_url
        self.attempts, self.timeout_s = attempts, timeout_s
        self.backoff_s, self.max_backoff_s, self.exit_wait_s = backoff_s, max_backoff_s, exit_wait_s
        self._closing = threading.Event()
        self._lock = threading.Lock()  # one outcome recorded at a time; none after close
        self._closed = False
        self._jobs: list[tuple[_Job, threading.Thread]] = []

    def question_waiting(self, run_id: str, question: Question, record: Record | None = None) -> None:
        """Start delivering to every hook; returns at once."""
        from agent.store.at_rest import scrubber

        scrub = scrubber()
        for hook in self.hooks:
            body, _ = scrub.scrub(payload(hook.format, run_id, question, self.public_url))
            job = _Job(hook, run_id, question.id, json.dumps(body).encode(), record)
            thread = threading.Thread(target=self._deliver, args=(job,), name="opsagent-notify", daemon=True)
            with self._lock:
                if self._closed:
                    return
                self._jobs.append((job, thread))
            thread.start()

    def _post(self, job: _Job) -> int:
        job.attempts += 1
        req = urllib.request.Request(
            job.hook.url,
            data=job.body,
            method="POST",
            headers={"Content-Type": "application/json", "User-Agent": "opsagent-notify"},
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:  # the scheme is checked: http(s) only
                return int(resp.status)
        except urllib.error.HTTPError as exc:
            if exc.code in (408, 429) or exc.code >= 500:
                raise _Retry(f"HTTP {exc.code}", exc.code) from None
            raise _Final(f"HTTP {exc.code} (not retried)", exc.code) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise _Retry(str(reason) or type(exc).__name__) from None

    def _deliver(self, job: _Job) -> None:
        status: int | None = None
        error: str | None = None
        retrying = Retrying(
            stop=stop_after_attempt(self.attempts),
            wait=wait_exponential(multiplier=self.backoff_s, max=self.max_backoff_s),
            retry=retry_if_exception_type(_Retry),
            sleep=self._sleep,
        )
        try:
            status = retrying(self._post, job)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            error = str(last)
            status = getattr(last, "status", None)
        except (_Retry, _Final) as exc:
            error, status = str(exc), exc.status
        if self._closing.is_set() and error is not None:
            return  # close() records it as abandoned
        self._finish(job, "sent" if error is None else "failed", status, error)

    def _sleep(self, seconds: float) -> None:
        if self._closing.wait(seconds):
            raise _Final("the process exited while the webhook was being retried", None)

    def _finish(self, job: _Job, outcome: str, status: int | None, error: str | None) -> None:
        with self._lock:
            if job.done or self._closed:
                return
            job.done = True
            entry = {
                "question_id": job.question_id,
                "hook": job.hook.label,
                "format": job.hook.format,
                "status": outcome,
                "attempts": job.attempts,
                "http_status": status,
                "error": error,
                "at": time.time(),
            }
            if outcome != "sent":
                log.warning("webhook not delivered", hook=job.hook.label, error=error)
            if job.record is not None:
                try:
                    job.record("notification", entry)
                except Exception as exc:  # a record that fails must not fail the run
                    log.warning("could not record the notification", error=str(exc))

    def close(self, wait_s: float | None = None) -> None:
        """Wait up to `wait_s` (default `exit_wait_s`) for deliveries under way, then give up on them."""
        deadline = time.monotonic() + (self.exit_wait_s if wait_s is None else wait_s)
        for _job, thread in list(self._jobs):
            thread.join(max(deadline - time.monotonic(), 0.0))
        self._closing.set()
        for job, _thread in list(self._jobs):
            if not job.done:
                why = "the process exited before the webhook answered"
                self._finish(job, "abandoned", None, why)
        with self._lock:
            self._closed = True


_active: Notifier | None = None


def install(notifier: Notifier | None) -> None:
    """Make `notifier` the process's (None: no notifications)."""
    global _active
    _active = notifier


def active() -> Notifier | None:
    return _active


def from_environment(environ: Mapping[str, str] | None = None) -> Notifier | None:
    """The notifier the environment asks for, or None; raises NotifyConfigError on a bad setting."""
    env = os.environ if environ is None else environ
    urls = env.get(ENV_URLS, "").replace(",", " ").split()
    return build(urls, env.get(ENV_FORMAT) or "auto", env.get(ENV_PUBLIC_URL) or None, where=ENV_URLS, environ=env)


def build(
    urls: Sequence[str],
    fmt: str,
    public_url: str | None,
    *,
    where: str = "--notify",
    environ: Mapping[str, str] | None = None,
) -> Notifier | None:
    hooks = parse_hooks(urls, fmt, where=where)
    if public_url:
        _check_url(public_url, "--public-url" if where == "--notify" else ENV_PUBLIC_URL)
    if not hooks:
        return None
    env = os.environ if environ is None else environ
    raw = env.get(ENV_TIMEOUT, "")
    try:
        timeout = float(raw) if raw else 10.0
    except ValueError:
        timeout = -1.0
    if not timeout > 0:
        raise NotifyConfigError(f"{ENV_TIMEOUT}={raw!r}: give the seconds to wait for a webhook, e.g. 10")
    return Notifier(hooks, public_url, timeout_s=timeout)


def question_waiting(run_id: str, question: Question, approver: object, sink: object | None = None) -> None:
    """The loop's one call: `question` now waits for `approver`; tell the hooks (in the background)."""
    notifier = _active
    if notifier is None or getattr(approver, "name", "") in AUTOMATIC_APPROVERS:
        return
    emit = getattr(sink, "emit", None)
    notifier.question_waiting(run_id, question, emit if callable(emit) else None)
