"""Accounts for the web inbox: names, roles and argon2 password hashes kept in the state store.

Roles: a `viewer` reads runs and reports; an `operator` also answers questions and starts runs;
an `admin` may do what an operator does (accounts are managed with `opsagent user` on the
server). Only the hash is stored (argon2id, via argon2-cffi); a password never reaches the disk,
a log or a page.
"""

from __future__ import annotations

import functools
import re
from typing import Protocol

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

ROLES = ("viewer", "operator", "admin")
ANSWERING_ROLES = ("operator", "admin")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")
_HASHER = PasswordHasher()


@functools.cache
def _dummy_hash() -> str:
    """Verified against when a name is unknown, so a wrong name costs the time of a wrong password."""
    return _HASHER.hash("opsagent-no-such-user")


class UserError(ValueError):
    """An account cannot be made as asked; the message says what was wrong and what to do."""


class UserStore(Protocol):
    def put_user(self, name: str, role: str, password_hash: str) -> None: ...
    def get_user(self, name: str) -> tuple[str, str] | None: ...


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise UserError(
            f"user name {name!r} is not usable; use 1-64 letters, digits, '.', '_', '@' or '-', starting with a "
            "letter or digit"
        )
    return name


def check_role(role: str) -> str:
    if role not in ROLES:
        raise UserError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
    return role


def add_user(store: UserStore, name: str, role: str, password: str) -> None:
    """Create the account, or replace its role and password when the name exists."""
    check_name(name)
    check_role(role)
    if not password.strip():
        raise UserError("empty password; give the account a password (typed, or on stdin with --password-stdin)")
    store.put_user(name, role, _HASHER.hash(password))


def authenticate(store: UserStore, name: str, password: str) -> str | None:
    """The user's role when the password is right, else None (unknown name or wrong password)."""
    found = authenticate_account(store, name, password)
    return found[0] if found else None


def authenticate_account(store: UserStore, name: str, password: str) -> tuple[str, str] | None:
    """The account (role, password hash) when the password is right, else None; an unknown name
    costs one verification too, so the time of the answer does not tell whether the name exists."""
    found = store.get_user(name) if _NAME.match(name) else None
    try:
        _HASHER.verify(found[1] if found else _dummy_hash(), password)
    except (VerificationError, InvalidHashError):
        return None
    return found


def can_answer(role: str) -> bool:
    return role in ANSWERING_ROLES
