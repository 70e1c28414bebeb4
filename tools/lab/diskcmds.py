"""`df`, `free` with host-RAM accounting, and removing a tree: the commands over the host's
capacities (scenario `host.filesystems`, `host.shm_mib`, `host.memory_used_gib`). Like nvidia.py
and sysfs.py these return (stdout, stderr, code) and import no shell module: commands.py wraps them."""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from tools.lab import breakage, diskfs
from tools.lab.host import Host
from tools.lab.hostspec import Filesystem

Out = tuple[str, str, int]


def _default_root(host: Host) -> Filesystem:
    """A host without declared filesystems: one roomy root holding the models (not enforced)."""
    models = sum(m.size_gb for m in host.scenario.models)
    return Filesystem(mount="/", size_gb=3840.0, used_gb=round(180.0 + models, 1), device="/dev/nvme0n1p2")


def df(host: Host, argv: list[str], resolve: Callable[[str], str | None]) -> Out:
    """`df [-h] [-T] [PATH...]`; `resolve` gives a path's absolute form, None when it does not exist."""
    flags = "".join(a[1:] for a in argv if a.startswith("-") and not a.startswith("--"))
    human = "h" in flags or "--human-readable" in argv
    show_type = "T" in flags or "--print-type" in argv
    declared = host.scenario.host.filesystems
    rows = [(fs, host.fs_used(fs)) for fs in declared] if declared else []
    if not declared:
        root = _default_root(host)
        rows = [(root, int(root.used_gb * 1e9))]
    shm = host.scenario.host.shm_mib
    shm_fs = Filesystem(
        mount="/dev/shm",
        size_gb=(shm if shm is not None else host.scenario.host.memory_gib * 512) * 2**20 / 1e9,
        used_gb=0.0,
        device="tmpfs",
        fstype="tmpfs",
    )
    rows.append((shm_fs, 0))
    paths = [a for a in argv if not a.startswith("-")]
    if paths:
        every = [fs for fs, _ in rows]
        picked = []
        for p in paths:
            full = resolve(p)
            if full is None:
                return "", f"df: {p}: No such file or directory\n", 1
            fs = diskfs.mount_of(every, full)
            if fs is not None:
                picked += [r for r in rows if r[0] is fs and r not in picked]
        rows = picked
    return diskfs.df_rows(rows, human, show_type), "", 0


def remove_tree(host: Host, path: str) -> None:
    """`rm -r`: every file and directory under `path` (its space is free again)."""
    prefix = path.rstrip("/") + "/"
    for p in [p for p in host.files if p.startswith(prefix) or p == path]:
        del host.files[p]
    host.dirs -= {d for d in host.dirs if d.startswith(prefix) or d == path}
    host.dirs.add(posixpath.dirname(path))


def free_text(host: Host) -> str:
    """`free` where host RAM is accounted: other processes' memory plus each running server's ranks."""
    h = host.scenario.host
    now = host.clock.now()
    servers = [p.server for p in host.alive(now) if p.server is not None]
    used = (h.memory_used_gib or 0.0) + sum(len(s.cfg.gpus) * breakage.RANK_RSS_GIB for s in servers)
    total = h.memory_gib
    free = max(total - used - 12, 0)
    avail = max(total - used, 0)
    return (
        "               total        used        free      shared  buff/cache   available\n"
        f"Mem:          {total:>6}Gi      {used:>5.0f}Gi      {free:>5.0f}Gi       "
        f"0.0Ki        12Gi      {avail:>5.0f}Gi\nSwap:             0B          0B          0B\n"
    )
