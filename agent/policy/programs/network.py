"""ip, socat, nc, ss: commands they run (`ip netns exec`, `socat EXEC:`/`SYSTEM:`), the Unix
sockets the clients connect to and the files they write."""

from __future__ import annotations

from collections.abc import Callable

from agent.policy.invocation import Hook
from agent.policy.options import operands

# options whose value is a command it runs, and the prefix the value must have ("" for any):
# found and judged by hooks.py as if the command ran where it stands
COMMAND_OPTIONS: dict[str, dict[str, str]] = {
    "nc": {"-e": "", "-c": ""},
    "ncat": {"-e": "", "--exec": "", "-c": "", "--sh-exec": ""},
}

# options whose value is a file it writes (outputs.py, through programs/table.py)
OUTPUT_OPTIONS: dict[str, frozenset[str]] = {"ss": frozenset(("-D", "--diag"))}  # raw netlink records dumped there

_IP_VALUE_OPTIONS = frozenset(("-n", "-netns", "-f", "-family", "-l", "-loops", "-rc", "-rcvbuf"))


def ip_hooks(name: str, args: list[str]) -> list[Hook]:
    """`ip netns exec NS CMD...` and `ip vrf exec VRF CMD...` run CMD (ip takes any unambiguous
    prefix: `ip net e NS CMD`); `ip -batch FILE` runs ip commands from a file."""
    i = 0
    every_netns = False
    while i < len(args) and args[i].startswith("-"):
        option = args[i].lstrip("-")
        if option and "batch".startswith(option):  # ip takes any prefix: `-b`, `-ba`, `--batch`
            return [Hook("ip -batch", opaque="ip runs commands from a batch file the gate cannot see")]
        every_netns = every_netns or (option and "all".startswith(option) and len(option) >= 2) or option == "a"
        takes = args[i] in _IP_VALUE_OPTIONS or any(
            len(option) >= 2 and full.lstrip("-").startswith(option) for full in _IP_VALUE_OPTIONS
        )  # `-net NS` is `-netns NS`
        i += 2 if takes else 1
    rest = args[i:]
    skip = 2 if every_netns else 3  # `ip -all netns exec CMD` names no namespace
    runs = len(rest) > skip and rest[1] != "" and "exec".startswith(rest[1])
    if runs and (
        ("netns".startswith(rest[0]) and len(rest[0]) >= 3) or (len(rest[0]) >= 2 and "vrf".startswith(rest[0]))
    ):
        return [Hook(f"ip {rest[0]} exec", argv=tuple(rest[skip:]))]
    return []


def socat_hooks(name: str, args: list[str]) -> list[Hook]:
    """`socat - EXEC:CMD` / `SYSTEM:CMD`: an address that runs a program."""
    found: list[Hook] = []
    for a in args:
        kind, colon, rest = a.partition(":")
        if colon and kind.upper() in ("EXEC", "SYSTEM"):
            found.append(Hook(f"socat {kind.upper()}:", code=rest.split(",")[0]))
    return found


def socat_sockets(args: list[str]) -> list[str]:
    """The Unix sockets socat connects to (`socat - UNIX-CONNECT:S`): counted as written, since
    what is sent there is a request (a VM's QMP `quit`, systemd's reboot) path rules must see."""
    found = []
    for a in args:
        kind, colon, rest = a.partition(":")
        if colon and kind.upper() in ("UNIX-CONNECT", "UNIX-CLIENT", "UNIX-SENDTO", "UNIX"):
            found.append(rest.split(",")[0])
    return found


def nc_sockets(args: list[str]) -> list[str]:
    """`nc -U SOCKET`: the socket it connects to, counted as written as for socat."""
    if any(a == "-U" or (a.startswith("-") and not a.startswith("--") and "U" in a) for a in args):
        return operands(args, ())[:1]
    return []


# files written (a socket connected to counts), read by outputs.py through programs/table.py
OUTPUTS: dict[str, Callable[[list[str]], list[str]]] = {
    "socat": socat_sockets,
    **dict.fromkeys(("nc", "ncat", "netcat"), nc_sockets),
}


# what its output is, to a reader of the pipe (redirects.py, through programs/table.py)
PRODUCES = {"nc": "received", "ncat": "received", "socat": "received"}
