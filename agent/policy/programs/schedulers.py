"""`at`/`batch` and `crontab`: commands that run later, judged now."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.policy.facts import DYN, visible
from agent.policy.invocation import STDIN_PATHS, Ctx, Hook, Invocation, Scope
from agent.policy.programs.shells import feed_interpreter

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


def at(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    if any(a in ("-l", "-d", "-r", "-c") for a in argv[1:]):
        return  # lists, removes or prints jobs: schedules nothing
    if "-f" in argv:
        inv.opaque = "at runs a file later; the gate cannot see it"
        return
    feed_interpreter(an, inv, ctx, scope, env, (*ctx.via, inv.program), shell=True)
    if ctx.stdin.kind == "none":
        inv.opaque = "at with no job text"


def crontab(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """`crontab [-u U] [FILE|-]` installs a table (from stdin without FILE); -l/-r/-e do not."""
    args = argv[1:]
    source: str | None = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-u":
            i += 2
            continue
        if a.startswith("-") and a != "-":
            if any(c in a[1:] for c in "lre"):
                return  # lists, removes or edits (the editor is judged from EDITOR/VISUAL)
        elif source is None:
            source = a
        i += 1
    stdin = ctx.stdin
    if source in STDIN_PATHS:
        source = "-"  # `crontab /dev/stdin` reads stdin as `crontab -` does
    if source in (None, "-") and stdin.kind == "file":
        source = stdin.text
    if source not in (None, "-"):
        assert source is not None
        ref = an._path(source)
        if set(ref.aliases) & an.written or DYN in source:
            inv.opaque = f"installs {visible(source)} as a crontab, written earlier in the same command or unknown"
        inv.reads.append(ref)
    elif stdin.kind == "literal":
        if DYN in stdin.text:
            inv.opaque = "installs a crontab whose lines are only known at run time"
        else:
            an._run_hooks(cron_hooks(stdin.text, system=False, how="crontab line"), env, scope, ctx, inv.text)
    elif stdin.kind == "opaque":
        inv.opaque = f"{stdin.text} is installed as a crontab; the gate cannot see its jobs"


def cron_hooks(table: str, system: bool, how: str) -> list[Hook]:
    """Each job's command in a crontab; system tables (`/etc/crontab`, `cron.d`) name a user first."""
    found: list[Hook] = []
    for raw in table.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or re.match(r"^[A-Za-z_][A-Za-z0-9_]*\s*=", line):
            continue
        skip = (1 if line.startswith("@") else 5) + (1 if system else 0)  # the schedule, then the user
        parts = line.split(None, skip)
        if len(parts) <= skip:
            continue
        command = parts[skip]
        # cron turns an unescaped % into a newline and feeds the rest to the job's stdin
        command = re.split(r"(?<!\\)%", command, maxsplit=1)[0].replace("\\%", "%")
        found.append(Hook(how, code=command))
    return found
