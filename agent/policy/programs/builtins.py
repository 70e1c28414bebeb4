"""The shell's own builtins that change what the shell does next: `eval`, `source`, `trap`,
`hash`, `let`, `read`/`printf -v`, `cd`/`pushd`/`popd`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.policy import arith
from agent.policy.facts import DYN, GLOB, visible
from agent.policy.invocation import MAX_CWDS, STDIN_PATHS, Ctx, Hook, Invocation, Redirs, Scope
from agent.policy.options import operands, option_values
from agent.policy.programs.base import judged_inside
from agent.policy.programs.shells import feed_interpreter

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


# signals whose trap runs only as the shell ends: it cannot change what runs before
EXIT_SIGNALS = frozenset(("EXIT", "0", "SIGEXIT"))


def eval(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    code = " ".join(argv[1:])
    via = (*ctx.via, "eval")
    if DYN in code or GLOB in code:
        inv.opaque = "eval of text that is only known at run time"
        return
    an.run_source(code, scope, Ctx(via, Redirs(), ctx.stdin), an._depth_next())
    judged_inside(inv)


def source(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    if len(argv) < 2:
        return
    if argv[1] in STDIN_PATHS:  # `source /dev/stdin <<< CODE` runs CODE
        feed_interpreter(an, inv, ctx, scope, env, (*ctx.via, inv.program), shell=True)
        return
    ref = an._path(argv[1])
    if set(ref.aliases) & an.written or DYN in argv[1]:
        inv.opaque = f"sources {visible(argv[1])}, written earlier in the same command or unknown"
    inv.reads.append(ref)


def trap(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    args = [a for a in argv[1:] if a not in ("-p", "-l", "--")]
    if len(args) >= 2:
        # one that may run before any later command (not at EXIT): what it exports counts from here on
        keeps = not all(s.upper() in EXIT_SIGNALS for s in args[1:])
        an._same_shell_string(args[0], scope, Ctx((*ctx.via, "trap")), "trap", keep=keeps)


def hash(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """`hash -p PATH NAME...` makes NAME run PATH; `hash -r` forgets, `hash -d NAME` forgets one."""
    args = argv[1:]
    path: str | None = None
    forget = False
    names: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and "p" in a[1:] and not a.startswith("--"):
            # `-p PATH`, `-pPATH`, `-tp PATH`: the rest of the cluster after p, or the next word
            rest = a[a.index("p") + 1 :]
            path = rest or (args[i + 1] if i + 1 < len(args) else DYN)
            i += 1 if rest else 2
            continue
        if a == "-r":
            an.hashed.clear()
        elif a == "-d":
            forget = True
        elif not a.startswith("-"):
            names.append(a)
        i += 1
    for n in names:
        if forget:
            an.hashed.pop(n, None)
        elif path is not None:
            an.hashed[n] = path
    inv.wrapper = path is None  # `hash -p` is judged as itself; plain `hash NAME` only looks up


def let(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    for expression in argv[1:]:
        arith.evaluate_text(an, expression, scope, ctx)


def sets_variables(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """`printf -v NAME`, `read [-a] NAME...`: a subscript in NAME is evaluated as arithmetic."""
    args = argv[1:]
    if inv.program == "printf":
        names = [args[k + 1] for k, a in enumerate(args[:-1]) if a == "-v"]
    else:
        names = operands(args, ("-d", "-i", "-n", "-N", "-p", "-t", "-u"))
        names += [args[k + 1] for k, a in enumerate(args[:-1]) if a == "-a"]
    for name in names:
        arith.evaluate_name(an, name, scope, ctx)


def cd(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    before = (scope.cwd, *scope.also)
    change_directory(an, inv, argv, env, scope)
    names_only = [a for a in argv[1:] if not a.startswith(("-", "/", ".", "~"))]
    if scope.cwd is not None and an._shopt_seen and names_only:
        scope.cwd = None  # after `shopt -s cdable_vars`, `cd NAME` goes where variable NAME points
    # it may have failed: every directory it may have been in still counts, except where
    # only its success leads (`cd X && ...`, until that list ends)
    also = tuple(dict.fromkeys(d for d in before if d != scope.cwd))
    guard = an._success_guard() if inv.via == () else None
    if guard is not None:
        an._cwd_guards.append((guard, also))
        also = ()
    scope.also = also if len(also) <= MAX_CWDS else (None,)
    an._stand_in(scope)
    inv.wrapper = True


def change_directory(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope) -> None:
    target = [a for a in argv[1:] if not a.startswith("-") or a == "-"]
    name = inv.program
    if name == "popd" or (name == "pushd" and not target):
        # popd returns to the directory pushd left; pushd alone swaps the top two
        if target:
            scope.cwd = None  # `popd +N`, `pushd -N`: not followed
        elif not scope.dirs:
            pass  # an empty stack: bash refuses, the directory stays
        elif name == "popd":
            scope.cwd = scope.dirs.pop()
        else:
            scope.cwd, scope.dirs[-1] = scope.dirs[-1], scope.cwd
    elif not target:
        scope.cwd = an._home_of(scope)
    else:
        if name == "pushd":
            scope.dirs.append(scope.cwd)
        cdpath = "CDPATH" in env or "CDPATH" in scope.vars or "CDPATH" in an.unsafe_vars
        if DYN in target[0] or target[0] == "-" or target[0].startswith(("+", "-")):
            scope.cwd = None
        elif cdpath and not target[0].startswith(("/", ".")):
            scope.cwd = None  # CDPATH decides which directory of that name: not followed
        else:
            scope.cwd = an._path(target[0]).aliases[0]


def alias_hooks(name: str, args: list[str]) -> list[Hook]:
    """`alias x='CMD'`: where aliases expand (`shopt -s expand_aliases`), x runs CMD; judged
    where it is defined, as a function's body is."""
    found: list[Hook] = []
    for a in args:
        key, eq, value = a.partition("=")
        if eq and key and not key.startswith("-") and value.strip():
            found.append(Hook(f"alias {key}", code=value))
    return found


def mapfile_hooks(name: str, args: list[str]) -> list[Hook]:
    """`mapfile -C CODE`: CODE runs every `-c` lines, with the index and the line appended."""
    return [Hook(f"{name} -C", code=v) for _, v in option_values(args, ("-C",), clustered=False) if v]
