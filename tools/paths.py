"""The one rule for turning a file path given to a target into the absolute path it opens.

The policy gate judges a `read_file`/`tail_log` call by the path this rule gives, and every target
(`LocalTarget`, `SSHTarget`, `LabTarget`) opens exactly that path, so the file judged is the file
read:

- `~` and `~/x` are the target user's home; any other `~` form (`~user`, `~+`, `~-`) is refused;
- a relative path is taken against the agent's work directory on the target (never the agent
  process's own cwd, nor the SSH server's idea of it, which is $HOME);
- `.`, `..` and repeated `/` are then removed by text alone, so the path opened has no `..` for
  the kernel to resolve through a symbolic link;
- paths through /proc's per-process links (`/proc/N/cwd`, `root`, `exe`, `fd/`, `map_files/`,
  also under `task/T/`) and `/dev/fd`, `/dev/std*` are refused: where they lead depends on another
  process's state at the moment of the read, which no check made before it can know.
"""

from __future__ import annotations

import re

_PROC_LINK = re.compile(r"^/proc/[^/]+/(?:task/[^/]+/)?(cwd|root|exe|fd|map_files)(?:/|$)")
_DEV_FD = re.compile(r"^/dev/(fd|stdin|stdout|stderr)(?:/|$)")


class BadPath(ValueError):
    """A path the rule refuses; the message says what was wrong and what to give instead."""


def resolve_path(path: str, *, work_dir: str, home: str | None) -> str:
    """The absolute, normalised path `path` names on a target whose work directory is `work_dir`
    and whose user's home is `home` (None: not known). Raises BadPath."""
    if not path:
        raise BadPath("the path is empty: give an absolute path, ~/… or a path relative to the work directory")
    if "\x00" in path:
        raise BadPath(f"{path!r} contains a NUL byte: give the file's path without it")
    if path == "~" or path.startswith("~/"):
        if not home or not home.startswith("/"):
            raise BadPath(f"{path!r} starts with ~ but the target's home directory is not known: give an absolute path")
        path = home + path[1:]
    elif path.startswith("~"):
        raise BadPath(
            f"{path!r}: only ~ and ~/… (the target user's own home) are understood, not ~user or other ~ forms; "
            "give an absolute path"
        )
    if not path.startswith("/"):
        if not work_dir.startswith("/"):
            raise BadPath(
                f"{path!r} is relative but the work directory {work_dir!r} is not absolute: give an absolute path"
            )
        path = work_dir + "/" + path
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    full = "/" + "/".join(parts)
    m = _PROC_LINK.match(full) or _DEV_FD.match(full)
    if m:
        link = full[: m.end(1)]
        raise BadPath(
            f"{full} goes through {link}, a per-process link whose destination cannot be checked before the read; "
            f"find where it points (e.g. `readlink {link}`) and read that path instead"
        )
    return full
