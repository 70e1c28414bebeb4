"""Device nodes by number: the kernel opens a device by its major:minor, whatever the node is named.

`/dev/char/1:1` is `/dev/mem`, `/dev/char/10:130` the watchdog, `/dev/block/230:16` a zvol; a node
made with `mknod` in the work directory is the same device. `device_name` gives the name the
policy's rules use for a number, or None for a number it does not know (facts.py then counts the
node as any device under /dev, so that a rule about any device may match: never allowed).
"""

from __future__ import annotations

import re

# char majors with fixed minors (Documentation/admin-guide/devices.txt)
_CHAR_FIXED: dict[int, dict[int, str]] = {
    1: {1: "/dev/mem", 2: "/dev/kmem", 3: "/dev/null", 4: "/dev/port", 5: "/dev/zero", 7: "/dev/full",
        8: "/dev/random", 9: "/dev/urandom", 11: "/dev/kmsg", 12: "/dev/oldmem"},
    5: {0: "/dev/tty", 1: "/dev/console", 2: "/dev/ptmx"},
    10: {130: "/dev/watchdog", 144: "/dev/nvram", 183: "/dev/hwrng", 196: "/dev/vfio/vfio", 200: "/dev/net/tun",
         223: "/dev/uinput", 227: "/dev/mcelog", 228: "/dev/hpet", 229: "/dev/fuse", 231: "/dev/snapshot",
         232: "/dev/kvm", 236: "/dev/mapper/control", 237: "/dev/loop-control", 238: "/dev/vhost-net",
         241: "/dev/vhost-vsock"},
    195: {255: "/dev/nvidiactl", 254: "/dev/nvidia-modeset"},
}  # fmt: skip
# char majors whose minor is the unit number: /dev/nvidiaN, /dev/cpu/N/msr, ...
_CHAR_NUMBERED: dict[int, str] = {
    195: "/dev/nvidia{n}",
    202: "/dev/cpu/{n}/msr",
    203: "/dev/cpu/{n}/cpuid",
    4: "/dev/tty{n}",
    21: "/dev/sg{n}",
    89: "/dev/i2c-{n}",
    90: "/dev/mtd{half}",
}

_NODE = re.compile(r"^/dev/(char|block)/(\d+):(\d+)(/.*)?$")


def device_name(kind: str, major: int, minor: int) -> str | None:
    """The /dev name of a device number: `c` (char) or `b` (block). A block device is a disk or
    volume whatever its number (`/dev/block/M:m` is matched as such by the policy)."""
    if kind == "b":
        return f"/dev/block/{major}:{minor}"
    fixed = _CHAR_FIXED.get(major, {}).get(minor)
    if fixed is not None:
        return fixed
    numbered = _CHAR_NUMBERED.get(major)
    if numbered is not None:
        return numbered.format(n=minor, half=minor // 2)
    return None  # a dynamic major (ipmi, watchdogN, a driver's own): any device


def numbered_node(path: str) -> tuple[str, int, int] | None:
    """(`c` or `b`, major, minor) of `/dev/char/M:m` or `/dev/block/M:m`; None for another path."""
    m = _NODE.match(path)
    if m is None or m.group(4):
        return None
    return ("c" if m.group(1) == "char" else "b", int(m.group(2)), int(m.group(3)))
