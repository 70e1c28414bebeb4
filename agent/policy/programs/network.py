"""ip, socat, nc, ss: commands they run (`ip netns exec`, `socat EXEC:`/`SYSTEM:`), the Unix
sockets the clients connect to and the files they write."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agent.policy.invocation import Ctx, Hook, Invocation, Scope
from agent.policy.options import operands

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis

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


# `ip` takes any prefix of an object or a command, and the first in its own order wins: `ip l s`
# is `ip link set` (link tries set before show), `ip a s` is `ip address show`, `ip netns s` is
# `ip netns set` (iproute2's ip.c, iplink.c, ipaddress.c, iproute.c, ...)
_IP_OBJECTS = (
    "address", "addrlabel", "maddress", "route", "rule", "neighbor", "neighbour", "ntable", "ntbl", "link",
    "l2tp", "fou", "ila", "macsec", "tunnel", "tuntap", "tap", "token", "tcpmetrics", "tcp_metrics", "monitor",
    "xfrm", "mroute", "mrule", "netns", "netconf", "vrf", "sr", "nexthop", "mptcp", "ioam", "stats", "help",
)  # fmt: skip
_IP_COMMANDS: dict[str, tuple[str, ...]] = {
    "link": ("add", "set", "change", "replace", "delete", "show", "lst", "list", "xstats", "afstats", "property",
             "help"),
    "address": ("add", "change", "chg", "replace", "delete", "flush", "list", "show", "lst", "showdump", "save",
                "restore", "help"),
    "route": ("add", "change", "chg", "replace", "prepend", "append", "test", "delete", "list", "show", "lst",
              "get", "flush", "restore", "showdump", "save", "help"),
    "neighbor": ("add", "change", "chg", "replace", "delete", "list", "show", "lst", "flush", "get", "help"),
    "rule": ("list", "show", "lst", "add", "delete", "flush", "save", "restore", "help"),
    "netns": ("list", "list-id", "monitor", "add", "attach", "set", "delete", "identify", "pids", "exec", "help"),
    "tuntap": ("add", "delete", "del", "list", "show", "lst", "help"),
    "maddress": ("add", "delete", "list", "show", "lst", "help"),
    "nexthop": ("list", "show", "lst", "flush", "add", "replace", "get", "bucket", "delete", "help"),
}  # fmt: skip
_IP_SAME = {"neighbour": "neighbor", "tap": "tuntap"}


def _first_match(word: str, names: tuple[str, ...]) -> str | None:
    return next((n for n in names if word and n.startswith(word)), None)


def ip(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    """Spells the object and command out as ip reads them, so that rules see `ip link set` in
    `ip l s tap104i0 nomaster` (the gate's rules name the full words)."""
    args = inv.args
    i = 0
    while i < len(args) and args[i].startswith("-"):
        option = args[i].lstrip("-")
        takes = args[i] in _IP_VALUE_OPTIONS or any(
            len(option) >= 2 and full.lstrip("-").startswith(option) for full in _IP_VALUE_OPTIONS
        )
        i += 2 if takes else 1
    if i >= len(args):
        return
    obj = _first_match(args[i], _IP_OBJECTS)
    if obj is None:
        return
    obj = _IP_SAME.get(obj, obj)
    commands = _IP_COMMANDS.get(obj)
    canonical = [*args[:i], obj]
    if commands is not None and i + 1 < len(args):
        command = _first_match(args[i + 1], commands)
        canonical.append(command if command is not None else args[i + 1])
        canonical += args[i + 2 :]
    else:
        canonical += args[i + 1 :]
    inv.args = canonical
