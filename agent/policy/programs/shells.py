"""Shells and other interpreters: `bash -c CODE`, `sh SCRIPT`, code fed on stdin; perl/ruby/node."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.policy.facts import DYN, visible
from agent.policy.invocation import STDIN_PATHS, Ctx, Invocation, Redirs, Scope, Stdin
from agent.policy.programs.base import judged_inside

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "fish", "csh", "tcsh", "rbash"}


# options naming a file it reads code from (hooks.py, through programs/table.py)
SETTINGS_FILE_OPTIONS: dict[str, tuple[str, ...]] = {"bash": ("--rcfile", "--init-file")}
# variables naming a file or directory of start-up code (hooks.py)
CONFIG_FILE_ENV = frozenset(("ZDOTDIR",))  # zsh's start-up files


OTHER_INTERPRETERS = {"perl": "-e", "ruby": "-e", "node": "-e", "php": "-r", "lua": "-e", "nodejs": "-e"}


def shell(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    args = argv[1:]
    code: str | None = None
    script: str | None = None
    i = 0
    reads_stdin = False
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if a.startswith("-") and not a.startswith("--") and "c" in a[1:]:
            # the code is the first operand after all the options: `sh -c -x CODE`, `sh -c -- CODE`
            j = i + 1
            while j < len(args) and args[j].startswith(("-", "+")) and args[j] not in ("-", "+"):
                if args[j] == "--":
                    j += 1
                    break
                j += 2 if args[j] in ("-o", "+o", "-O", "+O") else 1
            code = args[j] if j < len(args) else ""
            break
        if a.startswith(("-", "+")) and len(a) > 1:
            if "s" in a[1:] and not a.startswith("--"):
                reads_stdin = True
            i += 1
            continue
        break
    if code is None and i < len(args) and not reads_stdin:
        script = args[i]
    via = (*ctx.via, f"{inv.program} -c" if code is not None else inv.program)
    if code is not None:
        an._shell_string(code, env, scope, Ctx(via, Redirs(), Stdin.none()), f"{inv.program} -c")
        judged_inside(inv)
        return
    if script in STDIN_PATHS or script == "-":
        script = None  # `bash /dev/stdin`, `sh -` read their code from stdin, like `bash -s`
    if script is not None:
        ref = an._path(script)
        if set(ref.aliases) & an.written:
            inv.opaque = f"runs {script}, a script written earlier in the same command"
        inv.reads.append(ref)
        return
    feed_interpreter(an, inv, ctx, scope, env, via, shell=True)


def feed_interpreter(
    an: Analysis, inv: Invocation, ctx: Ctx, scope: Scope, env: dict[str, str], via: tuple[str, ...], shell: bool
) -> None:
    stdin = ctx.stdin
    if stdin.kind == "literal":
        if DYN in stdin.text:
            inv.opaque = f"{inv.program} reads code from stdin that is only known at run time"
        elif shell:
            an.run_source(stdin.text, Scope(env=dict(env), cwd=scope.cwd, also=scope.also), Ctx(via), an._depth_next())
            if inv.opaque is None:
                judged_inside(inv)
        else:
            an._python_code(stdin.text, inv, scope, via)
    elif stdin.kind == "file":
        ref = an._path(stdin.text)
        if set(ref.aliases) & an.written or DYN in stdin.text:
            inv.opaque = f"{inv.program} runs {visible(stdin.text)}, written earlier in the same command"
        else:
            inv.reads.append(ref)
            inv.args = [*inv.args, "<", stdin.text]
    elif stdin.kind == "opaque":
        inv.opaque = f"{stdin.text} is piped into {inv.program}; the gate cannot see what would run"


def other_interpreter(
    an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx
) -> None:
    flag = OTHER_INTERPRETERS[inv.program]
    if any(a == flag or (a.startswith("-") and not a.startswith("--") and flag[1] in a[1:]) for a in argv[1:]):
        inv.opaque = f"{inv.program} {flag} runs inline code the gate does not analyse"
        return
    positional = [a for a in argv[1:] if not a.startswith("-") and a not in STDIN_PATHS]
    if positional:
        ref = an._path(positional[0])
        if set(ref.aliases) & an.written:
            inv.opaque = f"runs {positional[0]}, a script written earlier in the same command"
        inv.reads.append(ref)
        return
    feed_interpreter(an, inv, ctx, scope, env, (*ctx.via, inv.program), shell=False)
    if ctx.stdin.kind == "literal" and inv.opaque is None:
        inv.opaque = f"{inv.program} reads inline code from stdin that the gate does not analyse"


# what its output is, to a reader of the pipe (redirects.py, through programs/table.py)
PRODUCES = {"perl": "generated"}
