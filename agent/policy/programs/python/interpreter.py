"""Python: `python -c CODE` (judged through the Python analyser), `-m MODULE`, scripts, stdin."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.policy.facts import DYN
from agent.policy.invocation import STDIN_PATHS, Ctx, Invocation, Scope, SignalEffect, WriteEffect
from agent.policy.options import operands
from agent.policy.programs.base import opt_value, printenv_hooks
from agent.policy.programs.destinations import environment_destinations
from agent.policy.programs.packages import pip_outputs
from agent.policy.programs.python.analysis import analyse as analyse_python
from agent.policy.programs.sglang import sglang_module
from agent.policy.programs.shells import feed_interpreter

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


PY_RE = re.compile(r"^(python[0-9.]*|pypy[0-9.]*)$")


def python(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    args = argv[1:]
    if an.unseen_python and any(a in ("-c", "-m") for a in args):
        # `base64 -d > json.py; python3 -c 'import json'`: the cwd comes first on sys.path
        inv.opaque = "runs Python after writing a Python file of unseen text it may import"
        return
    # what the code may do with its environment: an endpoint elsewhere, a file to write
    environment_destinations(an, inv, env, scope, ctx)
    i = 0
    via = (*ctx.via, inv.program)
    while i < len(args):
        a = args[i]
        if a == "-c":
            code = args[i + 1] if i + 1 < len(args) else ""
            if DYN in code:
                inv.opaque = "python -c runs code that is only known at run time"
            else:
                python_code(an, code, inv, scope, (*ctx.via, f"{inv.program} -c"))
            return
        if a == "-m":
            module = args[i + 1] if i + 1 < len(args) else ""
            python_module(an, inv, module, args[i + 2 :], env, scope, ctx)
            return
        if a in ("-W", "-X", "--check-hash-based-pycs"):
            i += 2
            continue
        if a.startswith("-") and a != "-":
            i += 1
            continue
        break
    if i < len(args) and args[i] != "-" and args[i] not in STDIN_PATHS:  # `python3 /dev/stdin` is `python3 -`
        ref = an._path(args[i])
        if set(ref.aliases) & an.written:
            inv.opaque = f"runs {args[i]}, a script written earlier in the same command"
        inv.reads.append(ref)
        return
    feed_interpreter(an, inv, ctx, scope, env, via, shell=False)


def python_code(an: Analysis, code: str, inv: Invocation, scope: Scope, via: tuple[str, ...]) -> None:
    found = analyse_python(code)
    # `print(os.getenv("HF_TOKEN"))` is judged as `printenv HF_TOKEN`; a name known only at run
    # time may be any variable, as `env` prints them all
    hooks = printenv_hooks((n for n in found.env_reads if DYN not in n), "os.environ")
    if hooks:
        an._run_hooks(hooks, dict(scope.env), scope, Ctx(via), inv.text)
    if any(DYN in n for n in found.env_reads):
        found.dumps_environment = True
    if found.opaque:
        inv.opaque = found.opaque
    if found.unsure:
        inv.unsure = found.unsure
    for p, content in found.writes:
        inv.writes.append(WriteEffect(an._path(p), content))
    for p in found.deletes:
        inv.deletes.append(an._path(p))
    for p in found.reads:
        inv.reads.append(an._path(p))
    for d in found.unpacked:
        an._unpacked(d)
    for target in found.signals:
        inv.signals.append(SignalEffect("init" if target == "1" else "unknown", f"os.kill({target})"))
    for cmd in found.commands:
        an._shell_string(cmd, dict(scope.env), scope, Ctx((*via, "subprocess")), "python subprocess")
    if found.dumps_environment:  # judged as the program that does the same: `env`
        an.invocations.append(
            Invocation("env", "env", [], "os.environ, every variable", via=(*via, "os.environ"), prints=("*",))
        )


def python_module(
    an: Analysis, inv: Invocation, module: str, rest: list[str], env: dict[str, str], scope: Scope, ctx: Ctx
) -> None:
    if module.startswith(("sglang.", "torch.")) and not sglang_module(an, inv, module, rest, env, scope, ctx):
        return
    if module == "json.tool":  # `python -m json.tool IN OUT` reads IN, writes OUT
        given = operands(rest, ("--indent",))
        if given and given[0] != "-":
            inv.reads.append(an._path(given[0]))
        if len(given) > 1 and given[1] != "-":
            inv.writes.append(WriteEffect(an._path(given[1])))
    if module == "http.server":  # serves a directory (the cwd by default): every file beneath is read
        served = opt_value(rest, ("-d", "--directory")) or "."
        ref = an._path(served)
        inv.reads.append(ref)
        an._secrets_beneath(inv, [ref.aliases[0]])
    if module == "pip":  # `python -m pip --log F ...` as `pip --log F`
        inv.writes += [WriteEffect(an._path(f)) for f in pip_outputs(rest)]


# what its output is, to a reader of the pipe (redirects.py, through programs/table.py)
PRODUCES = {"python": "generated", "python3": "generated"}
