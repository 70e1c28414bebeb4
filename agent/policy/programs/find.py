"""find: its starting points, what `-delete` removes, what `-exec` runs."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.policy.facts import DYN, GLOB
from agent.policy.invocation import Ctx, Invocation, Scope, WriteEffect
from agent.policy.options import option_values
from agent.policy.programs.files import CHANGERS

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


# a `find -name` pattern that looks for secrets: the names it prints are secrets' names
_SECRET_NAME_PATTERN = re.compile(
    r"\.env\b|id_(rsa|ed25519|ecdsa|dsa)|\.pem\b|\.key\b|credential|token|secret|netrc|environ", re.I
)


def find(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    args = argv[1:]
    if any(_SECRET_NAME_PATTERN.search(a) for a in args):  # `find /srv -name '*.env'`: secrets' names
        an.listed_secrets = True
    roots: list[str] = []
    i = 0
    while i < len(args) and args[i] in ("-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3", "-D"):
        i += 2 if args[i] == "-D" else 1
    while i < len(args) and not args[i].startswith(("-", "(", "!", ")")):
        roots.append(args[i])
        i += 1
    listed = [v for _, v in option_values(args, ("-files0-from",), clustered=False)]
    if listed:  # the starting points are the names in that file: anywhere
        roots = [DYN]
        inv.reads += [an._path(f) for f in listed if f != "-"]
    if not roots:
        roots = ["."]
    while i < len(args):
        a = args[i]
        if a in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(args) and args[j] not in (";", "+"):
                j += 1
            if a in ("-execdir", "-okdir"):  # it runs in each found file's directory
                where = scope.copy()
                where.cwd = None
                inner = [x.replace("{}", DYN) for x in args[i + 1 : j]]
                if inner:
                    an._wrapped = True
                    an._argv(inner, None, env, {}, where, Ctx((*ctx.via, f"find {a}")), " ".join(inner))
            else:
                for root in roots:  # `{}` is a file found beneath a starting point
                    # (for what deletes or changes files; a read of it stays unknown, and the
                    # secrets beneath the starting points count as read, below)
                    beneath = args[i + 1 : i + 2] and args[i + 1] in CHANGERS and DYN not in root
                    found = root.rstrip("/") + "/" + GLOB if beneath else DYN
                    inner = [x.replace("{}", found) for x in args[i + 1 : j]]
                    if inner:
                        an._wrapped = True
                        an._argv(inner, None, env, {}, scope, Ctx((*ctx.via, f"find {a}")), " ".join(inner))
            i = j + 1
            continue
        if a == "-delete":
            for r in roots:
                inv.deletes.append(an._path(r.rstrip("/") + "/" + GLOB if r != "/" else "/" + GLOB))
                inv.deletes.append(an._path(r))
        if a in ("-fprint", "-fprint0", "-fprintf", "-fls") and i + 1 < len(args):
            inv.writes.append(WriteEffect(an._path(args[i + 1])))
        i += 1
    for r in roots:
        inv.reads.append(an._path(r))
    if any(a in ("-exec", "-execdir", "-ok", "-okdir") for a in args):
        an._secrets_beneath(inv, [an._path(r).aliases[0] for r in roots])  # `-exec cat {}` reads them
