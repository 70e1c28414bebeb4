"""GNU parallel: the commands it runs from its arguments, ::: lists and files."""

from __future__ import annotations

import re
import shlex

from agent.policy.facts import DYN
from agent.policy.invocation import Hook
from agent.policy.programs.base import MAX_VALUES, wrapper_spec

_PARALLEL_VALUE_OPTS = frozenset(
    [
        "-j",
        "-P",
        "-S",
        "-a",
        "-d",
        "-E",
        "-I",
        "-n",
        "-N",
        "-L",
        "-l",
        "-C",
        "--jobs",
        "--sshlogin",
        "--arg-file",
        "--delimiter",
        "--timeout",
        "--joblog",
        "--results",
        "--tmpdir",
        "--workdir",
        "--colsep",
        "--halt",
        "--memfree",
        "--load",
        "--delay",
        "--retries",
        "--tagstring",
        "--env",
    ]
)


_PARALLEL_PLACEHOLDER = re.compile(r"\{(?:\d*[./#%]*|//|/\.)\}")


def parallel_hooks(name: str, args: list[str]) -> list[Hook]:
    """GNU parallel: the command template before `:::`, run by a shell once per value."""
    i = 0
    from_file = False
    while i < len(args) and args[i].startswith("-") and args[i] not in (":::", "::::", ":::+", "::::+"):
        key = args[i].partition("=")[0]
        from_file = from_file or key in ("-a", "--arg-file")
        i += 2 if args[i] in _PARALLEL_VALUE_OPTS else 1
    template: list[str] = []
    while i < len(args) and args[i] not in (":::", "::::", ":::+", "::::+"):
        template.append(args[i])
        i += 1
    values: list[str] = []
    known = not from_file and i < len(args)
    while i < len(args):
        if args[i] in ("::::", "::::+"):
            known = False
        elif args[i] not in (":::", ":::+"):
            values.append(args[i])
        i += 1
    if not known or not values or len(values) > MAX_VALUES or any(DYN in v for v in values):
        if template:
            return [Hook("parallel", code=_PARALLEL_PLACEHOLDER.sub("", " ".join(template)) + " " + DYN)]
        return [Hook("parallel", opaque="parallel runs command lines it reads at run time")]
    code = " ".join(template)
    found: list[Hook] = []
    for v in values:
        quoted = shlex.quote(v)
        if not code:
            found.append(Hook("parallel :::", code=v))
        elif _PARALLEL_PLACEHOLDER.search(code):
            found.append(Hook("parallel", code=_PARALLEL_PLACEHOLDER.sub(quoted.replace("\\", r"\\"), code)))
        else:
            found.append(Hook("parallel", code=f"{code} {quoted}"))
    return found


# how it wraps the command it runs (wrappers.py, through programs/table.py)
WRAPPERS = {"sem": wrapper_spec()}  # `parallel --semaphore`
