"""`opsagent user add NAME --role viewer|operator|admin`: accounts for `opsagent serve`.

The password is read from the terminal without echo (asked twice), or from standard input with
`--password-stdin` (its first line), never from the command line where `ps` would show it.
"""

from __future__ import annotations

import getpass
import sys
import time
from typing import Annotated

import typer

from agent.store.open import open_store
from agent.store.sessions import SessionStore

ROLES = ("viewer", "operator", "admin")  # agent.store.users.ROLES; that module (argon2) loads only when used

user_app = typer.Typer(help="Accounts that sign in to 'opsagent serve'.", add_completion=False, no_args_is_help=True)


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def _read_password(from_stdin: bool) -> str:
    from agent.store.users import UserError

    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if not sys.stdin.isatty():
        raise UserError("no terminal to read the password from; pipe it in with --password-stdin")
    first = getpass.getpass("password: ")
    if first != getpass.getpass("again: "):
        raise UserError("the two passwords differ; nothing was changed, run the command again")
    return first


@user_app.command("add")
def add(
    name: Annotated[str, typer.Argument(metavar="NAME", help="the name to sign in with")],
    role: Annotated[str, typer.Option(help=f"one of {', '.join(ROLES)}")] = "",
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="read the password from standard input's first line")
    ] = False,
    state: Annotated[
        str | None,
        typer.Option("--state", help="state directory or postgresql:// URL (default ./.opsagent or $OPSAGENT_STATE)"),
    ] = None,
) -> None:
    """Create an account (or replace an existing one's role and password)."""
    from agent.store.users import UserError, add_user, check_name, check_role

    try:
        check_name(name)
        if not role:
            raise UserError(f"--role is required: one of {', '.join(ROLES)}")
        check_role(role)
        password = _read_password(password_stdin)
        store = open_store(state)
        add_user(store, name, role, password)
    except UserError as exc:
        raise _fail(str(exc)) from None
    # a new password or role ends the sessions signed in with the old one
    ended = SessionStore(store).revoke_user(name)
    note = f"; {ended} session(s) signed in before were ended" if ended else ""
    typer.echo(f"user {name} ({role}) saved; sign in at 'opsagent serve'{note}")


StateOpt = Annotated[
    str | None,
    typer.Option("--state", help="state directory or postgresql:// URL (default ./.opsagent or $OPSAGENT_STATE)"),
]


@user_app.command("list")
def list_users(state: StateOpt = None) -> None:
    """The accounts and their roles (never a password or its hash)."""
    for name, role in open_store(state).list_users():
        typer.echo(f"{name}\t{role}")


@user_app.command("remove")
def remove(
    name: Annotated[str, typer.Argument(metavar="NAME", help="the account to remove")],
    state: StateOpt = None,
) -> None:
    """Remove an account; its sessions end at once."""
    if not SessionStore(open_store(state)).remove_account(name):
        raise _fail(f"no account {name!r}; 'opsagent user list' shows them")
    typer.echo(f"user {name} removed; its sessions are ended")


@user_app.command("sessions")
def sessions(
    name: Annotated[str, typer.Argument(metavar="NAME", help="the account whose sessions to show")],
    revoke: Annotated[bool, typer.Option("--revoke", help="end every session of the account")] = False,
    state: StateOpt = None,
) -> None:
    """The account's signed-in sessions (when begun, last used, from where); --revoke ends them."""
    from agent.cli.terminal_text import safe

    store = SessionStore(open_store(state))
    if revoke:
        typer.echo(f"{store.revoke_user(name)} session(s) of {name} ended")
        return
    found = store.of_user(name)
    if not found:
        typer.echo(f"no sessions of {name}")
    for info in found:
        began, seen = (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) for t in (info.created, info.seen))
        typer.echo(f"{info.sid[:12]}\tsince {began}\tlast used {seen}\tfrom {info.address}\t{safe(info.agent)}")
