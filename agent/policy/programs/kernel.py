"""sysctl: settings fed on stdin are judged as `sysctl -w` is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.policy.invocation import STDIN_PATHS, Ctx, Hook, Invocation, Scope
from agent.policy.options import option_values

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


def sysctl(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """`sysctl -p -` / `-p /dev/stdin` with settings fed to it: each judged as `sysctl -w` is."""
    files = [v for _, v in option_values(argv[1:], ("-p", "--load"), clustered=False)]
    if any(f in ("-", *STDIN_PATHS) for f in files) and ctx.stdin.kind == "literal":
        lines = [ln.strip() for ln in ctx.stdin.text.splitlines() if ln.strip() and ln.strip()[0] not in "#;"]
        hooks = [Hook("sysctl -p line", argv=("sysctl", "-w", ln.replace(" ", ""))) for ln in lines]
        an._run_hooks(hooks, env, scope, ctx, inv.text)
