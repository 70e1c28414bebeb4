"""Filesystems with a capacity (scenario `host.filesystems`): which mount holds a path, what `df`
prints, and whether a write fits. Usage is counted from the lab's own files, so deleting a file
frees its space and a write that grows past the capacity fails with ENOSPC, as on a real disk.

Only data and arithmetic here: the host passes its file sizes in (no import of host or shell).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from tools.lab.hostspec import Filesystem

ENOSPC = "No space left on device"
BLOCK = 1024  # df's default 1K-blocks


def mount_of(filesystems: Iterable[Filesystem], path: str) -> Filesystem | None:
    """The filesystem `path` lives on: the longest mount point above it."""
    best: Filesystem | None = None
    for fs in filesystems:
        root = fs.mount.rstrip("/") or "/"
        inside = root == "/" or path == root or path.startswith(root + "/")
        if inside and (best is None or len(root) > len(best.mount.rstrip("/") or "/")):
            best = fs
    return best


def _human(n: float) -> str:
    """df -h: powers of 1024, one decimal below 10, rounded up (coreutils)."""
    if n == 0:
        return "0"
    value = float(n)
    for unit in "KMGTP":
        value /= 1024
        if value < 1024 or unit == "P":
            return f"{math.ceil(value * 10) / 10:.1f}{unit}" if value < 10 else f"{math.ceil(value)}{unit}"
    return str(n)


def df_rows(rows: list[tuple[Filesystem, int]], human: bool, show_type: bool) -> str:
    """`df [-h] [-T]` for (filesystem, used bytes) rows, in coreutils' column layout."""
    head = ["Filesystem", *(["Type"] if show_type else []), "Size" if human else "1K-blocks", "Used"]
    head += ["Avail", "Use%", "Mounted on"]
    table = [head]
    for fs, used in rows:
        size = int(fs.size_gb * 1e9)
        # ext4 keeps 5% for root: Avail is what an unprivileged write may still take.
        avail = max(int(size * 0.95) - used, 0) if fs.fstype.startswith("ext") else max(size - used, 0)
        pct = f"{math.ceil(100 * used / max(used + avail, 1))}%"
        cells = [_human(size), _human(used), _human(avail)] if human else [str(size // BLOCK), str(used // BLOCK)]
        if not human:
            cells.append(str(avail // BLOCK))
        table.append([fs.device, *([fs.fstype] if show_type else []), *cells, pct, fs.mount])
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    out = []
    for r in table:
        # Filesystem and Type left-aligned, numbers right-aligned, the mount point last as it is.
        left = 2 if show_type else 1
        parts = [r[i].ljust(widths[i]) for i in range(left)]
        parts += [r[i].rjust(widths[i]) for i in range(left, len(r) - 1)]
        out.append(" ".join(parts) + " " + r[-1])
    return "".join(line + "\n" for line in out)


def free_bytes(fs: Filesystem, used: int) -> int:
    size = int(fs.size_gb * 1e9)
    return max((int(size * 0.95) if fs.fstype.startswith("ext") else size) - used, 0)
