"""ip and socat: commands they run (`ip netns exec`, `socat EXEC:`/`SYSTEM:`)."""

from __future__ import annotations

from agent.policy.invocation import Hook

# options whose value is a command it runs, and the prefix the value must have ("" for any):
# found and judged by hooks.py as if the command ran where it stands
COMMAND_OPTIONS: dict[str, dict[str, str]] = {
    "nc": {"-e": "", "-c": ""},
    "ncat": {"-e": "", "--exec": "", "-c": "", "--sh-exec": ""},
}

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
