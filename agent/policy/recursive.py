"""Reads that descend into directories: `grep -r`, `rg`, `tar c`, `zip -r`, `cp -r`, `rsync -a`,
`scp -r`, `find ... -exec CMD {}`. A rule about `~/.ssh/id_*` must see `grep -r . ~` and
`tar czf - ~ | base64` as reading the key, though neither names it.

A recursive read of a directory is taken to read the well-known secret locations beneath it;
not every file beneath it (a recursive grep of the agent's logs must not be judged as reading
any `.env` anywhere).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from agent.policy.facts import DYN, GLOB
from agent.policy.programs.base import recurses_by_flags
from agent.policy.programs.table import RECURSES, RECURSIVE_FLAGS

# beneath a home directory
HOME_SECRETS = (
    ".ssh",
    ".aws",
    ".gnupg",
    ".docker",
    ".kube",
    ".config/gcloud",
    ".cache/huggingface",
    ".huggingface",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".my.cnf",
    ".vault-token",
    ".azure",
    ".ngc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".config/rclone",
    ".s3cfg",
    ".oci",
    ".password-store",
    ".local/share/keyrings",
)
SYSTEM_SECRETS = (
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/ssh",
    "/etc/pve/priv",
    "/run/secrets",
    "/var/run/secrets",
    "/etc/wireguard",
    "/etc/NetworkManager/system-connections",
    # root-only files and credential stores (read by class in the policy's secret-files)
    "/root",
    "/etc/ssl/private",
    "/etc/corosync/authkey",
    "/var/lib/pve-cluster",
    "/var/backups",
    "/var/lib/docker/containers",
    "/var/lib/containers",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/credstore",
    "/etc/libvirt/secrets",
)
FILES = frozenset((".netrc", ".git-credentials", ".pgpass", ".my.cnf", ".vault-token", "/etc/shadow", "/etc/gshadow"))

# The programs with a module under programs/ declare how they recurse there (programs/table.py
# gathers them: the searchers, cp, rsync, tar...); below, the small programs that have none.
SMALL_RECURSIVE_FLAGS: dict[str, tuple[str, frozenset[str]]] = {
    "diff": ("r", frozenset(("--recursive",))),  # `diff -rN empty ~/.ssh` prints every file
}
_FLAGS = {**SMALL_RECURSIVE_FLAGS, **RECURSIVE_FLAGS}
RECURSIVE_READERS = frozenset((*_FLAGS, *RECURSES))
_NO_FLAGS: tuple[str, frozenset[str]] = ("", frozenset())


def reads_recursively(name: str, args: Sequence[str]) -> bool:
    """Whether `name` with these arguments reads its operands recursively (tar: when it archives)."""
    model = RECURSES.get(name)
    if model is not None:
        return model(args)
    letters, long = _FLAGS.get(name, _NO_FLAGS)
    return recurses_by_flags(args, letters, long)


@lru_cache(maxsize=1024)
def secrets_within(directory: str, home: str | None, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The secret locations at or beneath `directory` (a normalised path), as paths a read rule
    can match: a whole home as `H/.` + DYN (any dot-file or dot-directory in it, at any depth),
    a secret directory as `D/` + GLOB, a file as itself."""
    if DYN in directory:
        directory = directory[: directory.index(DYN)].rsplit("/", 1)[0] or "/"
    base = directory.rstrip("/")
    found: list[str] = []
    parts = base.strip("/").split("/")
    others = "/home/" + (parts[1] if parts[0] == "home" and len(parts) > 1 else GLOB)  # other people's homes
    # `~` stays `~` where the host facts name no home: it is a home all the same
    for h in dict.fromkeys([h.rstrip("/") for h in (home, "~", "/root") if h] + [others]):
        if _beneath(h, base):
            found.append(f"{h}/.{DYN}")
            continue
        for s in HOME_SECRETS:
            loc = f"{h}/{s}"
            if _beneath(loc, base):
                found.append(loc if s in FILES else f"{loc}/{GLOB}")
    for loc in (*SYSTEM_SECRETS, *extra):
        if _beneath(loc, base):
            found.append(loc if loc in FILES else f"{loc}/{GLOB}")
    if base == "/proc" or base.startswith("/proc/"):  # `grep -r TOKEN /proc/self/`: environments
        found.append(f"{base}/environ" if re.fullmatch(r"/proc/[^/]+(/task/[^/]+)?", base) else f"/proc/{DYN}/environ")
    return tuple(found)


def _beneath(location: str, directory: str) -> bool:
    """Whether `location` is `directory` or inside it (a GLOB in `location` stands for one name)."""
    if directory in ("", "/"):
        return True
    loc_parts = location.strip("/").split("/")
    dir_parts = directory.strip("/").split("/")
    if len(dir_parts) > len(loc_parts):
        return False
    return all(lp in (dp, GLOB) for lp, dp in zip(loc_parts, dir_parts, strict=False))


def in_secret_location(path: str, home: str | None) -> bool:
    """Whether `path` (normalised) lies inside a well-known secret location (`~/.ssh/...`,
    `/etc/ssh`): listing it yields names of secrets (`find ~/.ssh -type f | xargs cat`)."""
    if DYN in path or not path.startswith("/"):
        return False
    for h in {h.rstrip("/") for h in (home, "/root") if h} | (
        {"/home/" + path.split("/")[2]} if path.startswith("/home/") and path.count("/") >= 2 else set()
    ):
        for s in HOME_SECRETS:
            loc = f"{h}/{s}"
            if path == loc or path.startswith(loc + "/"):
                return True
    return any(path == loc or path.startswith(loc + "/") for loc in SYSTEM_SECRETS)
