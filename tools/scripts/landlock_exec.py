"""The sandbox's first process (tools.sandbox): drop to the sandbox's uid, restrict the network with
Landlock, then exec the command. Sent as text (`python3 -I -S -c THIS ...`), so standard library
only and nothing newer than Python 3.6.

    landlock_exec.py UID GID PORTS ABI_MIN -- COMMAND...

UID/GID: the identity to drop to ("-": keep; only bubblewrap run as root keeps CAP_SETUID for
this). PORTS: comma-separated TCP ports and ranges (`A-B`) the command may bind and connect to
("-": no network rule). ABI_MIN: the Landlock ABI the host probe found; a kernel below it means the probe was
wrong, so refuse rather than run less contained. `--abi` alone prints the kernel's ABI.
Exits 126 with one line on stderr when it cannot do what it was asked.
"""

# ruff: noqa: UP006, UP007, UP031, UP035  (old Pythons run this: no `X | Y`, `list[int]` or f-strings)
import ctypes
import os
import struct
import sys
from typing import List, Union

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # same numbers on x86_64 and aarch64
_VERSION = 1  # LANDLOCK_CREATE_RULESET_VERSION
_BIND_TCP, _CONNECT_TCP = 1, 2  # LANDLOCK_ACCESS_NET_*
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1, 2  # LANDLOCK_SCOPE_* (ABI 6)
_RULE_NET_PORT = 2


def _fail(message: str) -> None:
    sys.stderr.write("opsagent-sandbox: " + message + "\n")
    sys.exit(126)


def _syscall(libc: ctypes.CDLL, *args: Union[int, bytes, None]) -> int:
    # every number as a long: syscall(2) reads its arguments as longs
    return int(libc.syscall(*[ctypes.c_long(a) if isinstance(a, int) else a for a in args]))


def abi(libc: ctypes.CDLL) -> int:
    return _syscall(libc, _CREATE_RULESET, None, 0, _VERSION)


def restrict(libc: ctypes.CDLL, ports: List[int], version: int) -> None:
    scoped = _SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL if version >= 6 else 0
    # struct landlock_ruleset_attr: handled_access_fs, handled_access_net, scoped (ABI 6)
    attr = struct.pack("=QQQ", 0, _BIND_TCP | _CONNECT_TCP, scoped)
    fd = _syscall(libc, _CREATE_RULESET, attr, 24 if version >= 6 else 16, 0)
    if fd < 0:
        _fail("landlock_create_ruleset failed: " + os.strerror(ctypes.get_errno()))
    for port in ports:
        rule = struct.pack("=QQ", _BIND_TCP | _CONNECT_TCP, port)  # struct landlock_net_port_attr
        if _syscall(libc, _ADD_RULE, fd, _RULE_NET_PORT, rule, 0) != 0:
            _fail("landlock_add_rule for port %d failed: %s" % (port, os.strerror(ctypes.get_errno())))
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS: bubblewrap set it already
        _fail("cannot set no_new_privs")
    if _syscall(libc, _RESTRICT_SELF, fd, 0) != 0:
        _fail("landlock_restrict_self failed: " + os.strerror(ctypes.get_errno()))
    os.close(fd)


def parse_ports(text: str) -> List[int]:
    """'30000,31000-31010' -> the ports, ranges included (a server's run at most ~30000)."""
    ports = []  # type: List[int]
    for part in text.split(","):
        low, _, high = part.partition("-")
        if low:
            ports.extend(range(int(low), int(high or low) + 1))
    return ports


def main(argv: List[str]) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if argv == ["--abi"]:
        print(max(abi(libc), 0))
        return
    if len(argv) < 6 or argv[4] != "--":
        _fail("usage: UID GID PORTS ABI_MIN -- COMMAND...")
    uid, gid, ports_text, abi_min, command = argv[0], argv[1], argv[2], int(argv[3]), argv[5:]
    if uid != "-":
        # As root with CAP_SETPCAP/SETUID/SETGID only: empty the bounding set, change uid (which
        # clears the effective and permitted sets), then clear the inheritable set too.
        for cap in range(64):
            if libc.prctl(24, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:  # PR_CAPBSET_DROP; EINVAL: no such cap
                _fail("cannot drop capability %d from the bounding set" % cap)
        os.setgroups([])
        os.setresgid(int(gid), int(gid), int(gid))
        os.setresuid(int(uid), int(uid), int(uid))
        if os.getuid() == 0 or os.geteuid() == 0:
            _fail("could not leave uid 0")
        header = struct.pack("=Ii", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        if libc.capset(header, bytes(24)) != 0:
            _fail("cannot clear the inheritable capabilities")
    if ports_text != "-":
        version = abi(libc)
        if version < max(abi_min, 4):
            _fail("this kernel's Landlock ABI is %d; the sandbox needs %d" % (max(version, 0), max(abi_min, 4)))
        restrict(libc, parse_ports(ports_text), version)
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        _fail("cannot run %s: %s" % (command[0], exc.strerror))


if __name__ == "__main__":
    main(sys.argv[1:])
