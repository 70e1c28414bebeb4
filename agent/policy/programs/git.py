"""git: the work tree it rewrites and the settings it reads."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from agent.policy.facts import DYN, GLOB, may_match, visible
from agent.policy.invocation import Invocation, Scope, WriteEffect
from agent.policy.options import git_global_options

if TYPE_CHECKING:
    from agent.policy.effects import Analyser


# git commands that rewrite or delete files of the work tree
_GIT_TREE_CHANGERS = frozenset(
    ("clean", "reset", "checkout", "restore", "rm", "mv", "stash", "switch", "merge", "pull", "rebase",
     "cherry-pick", "revert", "am", "apply")
)  # fmt: skip


def git_work_tree(an: Analyser, inv: Invocation, args: list[str], env: dict[str, str]) -> None:
    """`git clean`, `reset --hard`, `checkout`, `restore` ... rewrite and delete files of the
    work tree: the one `--work-tree`/`GIT_WORK_TREE` names, else where `-C` leads."""
    found, i = git_global_options(args)
    sub = args[i] if i < len(args) else ""
    soft_reset = sub == "reset" and not set(args[i + 1 :]) & {"--hard", "--merge", "--keep"}
    if sub not in _GIT_TREE_CHANGERS or soft_reset:
        return
    where = "."
    for opt, value in found:
        if opt == "-C" and value:
            where = value if value.startswith(("/", "~")) else posixpath.join(where, value)
    tree = next((v for o, v in found if o == "--work-tree" and v), None) or env.get("GIT_WORK_TREE")
    if tree:
        where = tree if tree.startswith(("/", "~")) else posixpath.join(where, tree)
    inv.writes.append(WriteEffect(an._path(where.rstrip("/") + "/" + GLOB)))
    if sub in ("clean", "reset", "rm", "restore"):  # these remove files; the others rewrite them
        inv.deletes.append(an._path(where.rstrip("/") + "/" + GLOB))


def git_settings_written(an: Analyser, inv: Invocation, args: list[str], env: dict[str, str], scope: Scope) -> None:
    """git reads the settings of the repository it works in. One written earlier in this
    command where the gate did not know a repository was (`x/config` before `--git-dir=x`,
    a repository unpacked from an archive) is unseen text that git runs: fail closed."""
    if not an.written:
        return
    found, _ = git_global_options(args)
    places = [v for o, v in found if o in ("-C", "--git-dir", "--work-tree") and v]
    places += [env[k] for k in ("GIT_DIR", "GIT_WORK_TREE") if k in env]
    for place in [*places, scope.cwd or DYN]:
        base = an._path(place).aliases[0].rstrip("/")
        for settings in (f"{base}/config", f"{base}/.git/config", f"{base}/.git"):
            if any(w == settings or ((DYN in w or GLOB in w) and may_match(w, settings)) for w in an.written):
                inv.opaque = f"git reads settings from {visible(settings)}, written earlier in this command"
                return
