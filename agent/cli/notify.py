"""`--notify`, `--notify-format` and `--public-url`: the webhook options of `run` and `resume`
(and of any command that drives runs: `serve` may reuse them). See agent/notify/webhooks.py."""

from __future__ import annotations

import atexit
import os
from typing import Annotated

import typer

from agent.cli import exitcodes

# The names agent.notify reads; repeated here so that `opsagent --help` loads no more than typer.
ENV_URLS, ENV_FORMAT, ENV_PUBLIC_URL = "OPSAGENT_NOTIFY", "OPSAGENT_NOTIFY_FORMAT", "OPSAGENT_PUBLIC_URL"

NotifyOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--notify",
        metavar="URL",
        help=f"POST a webhook here when a question waits (repeatable; default ${ENV_URLS}).",
    ),
]
NotifyFormatOpt = Annotated[
    str | None,
    typer.Option(
        "--notify-format",
        metavar="FORMAT",
        help='slack ({"text": ...}), generic (JSON with run, question, link) or auto: slack for '
        f"hooks.slack.com (default ${ENV_FORMAT} or auto).",
    ),
]
PublicUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--public-url",
        metavar="URL",
        help=f"where `opsagent serve` is reached; webhooks link <URL>/runs/<run id> (default ${ENV_PUBLIC_URL}).",
    ),
]


def setup_notify(urls: list[str] | None, fmt: str | None, public_url: str | None) -> None:
    """Install this process's notifier from the options, else from the environment.

    Options are also put into the environment, so that a process this one starts (a detached
    run's worker) notifies the same hooks. A bad setting ends the command: one line, exit 2.
    """
    from agent.notify import webhooks as notify

    env = dict(os.environ)
    if urls:
        env[notify.ENV_URLS] = " ".join(urls)
    if fmt:
        env[notify.ENV_FORMAT] = fmt
    if public_url:
        env[notify.ENV_PUBLIC_URL] = public_url
    try:
        if urls:
            notifier = notify.build(urls, env.get(notify.ENV_FORMAT) or "auto", env.get(notify.ENV_PUBLIC_URL) or None)
        else:
            notifier = notify.from_environment(env)
    except notify.NotifyConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(exitcodes.BAD_INPUT) from None
    for key in (notify.ENV_URLS, notify.ENV_FORMAT, notify.ENV_PUBLIC_URL):
        if key in env:
            os.environ[key] = env[key]
    notify.install(notifier)
    if notifier is not None:
        atexit.register(notifier.close)  # bounded: waits at most notifier.exit_wait_s
