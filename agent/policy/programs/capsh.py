"""capsh: the shell code it runs (`-- -c`, `--`)."""

from __future__ import annotations

from agent.policy.invocation import Hook


def capsh_hooks(name: str, args: list[str]) -> list[Hook]:
    """`capsh [opts] -- ARGS` runs `bash ARGS` (or the `--shell=` given)."""
    shell = "bash"
    for k, a in enumerate(args):
        if a.startswith("--shell="):
            shell = a.partition("=")[2]
        if a == "--":
            return [Hook("capsh --", argv=(shell, *args[k + 1 :]))]
    return []
