"""apt/apt-get/aptitude and rpm: hooks and programs their options make them run."""

from __future__ import annotations

import re

from agent.policy.facts import DYN, visible
from agent.policy.invocation import Hook
from agent.policy.options import option_values

_APT_HOOK_KEY = re.compile(r"(?i)::(Pre|Post)-Invoke(-Success)?(::|$)|::Pre-Install-Pkgs(::|$)")


_APT_PROGRAM_KEY = re.compile(
    r"(?i)^(Dir::Bin::|APT::Key::gpgvcommand|Dpkg::Tools::|APT::Changelogs::Server|Acquire::\w+::Proxy-Auto-Detect)"
)


def apt_hooks(name: str, args: list[str]) -> list[Hook]:
    """`apt-get -o APT::Update::Pre-Invoke::=CMD update` runs CMD; `-o Dir::Bin::dpkg=PROG` runs PROG
    in dpkg's place; `-c FILE` reads settings (hooks among them) from a file the gate cannot see."""
    found: list[Hook] = []
    for opt, value in option_values(args, ("-o", "--option", "-c", "--config-file"), clustered=False):
        if opt in ("-c", "--config-file"):
            found.append(
                Hook(f"{name} {opt}", opaque=f"{name} reads settings, hooks among them, from {visible(value)}")
            )
            continue
        key, _, setting = value.partition("=")
        if DYN in key:
            found.append(Hook(f"{name} -o", opaque=f"{name} is given a setting only known at run time"))
        elif _APT_HOOK_KEY.search(key) and setting.strip():
            found.append(Hook(f"{name} -o {key}", code=setting))
        elif _APT_PROGRAM_KEY.match(key) and setting.strip():
            found.append(Hook(f"{name} -o {key}", argv=(setting,)))
    return found


def rpm_hooks(name: str, args: list[str]) -> list[Hook]:
    """`rpm --eval '%(CMD)'` (and `--define`) expands macros, and `%(...)` runs CMD in a shell."""
    found: list[Hook] = []
    spelled = ("-E", "--eval", "-D", "--define", "--qf", "--queryformat")
    for opt, value in option_values(args, spelled, clustered=False):
        if opt in ("-D", "--define") or "%(" in value or "%{lua" in value or DYN in value:
            # a macro defined here may replace a helper rpm runs (`--define '__cat CMD'`)
            found.append(Hook(f"rpm {opt}", opaque="rpm macros that may run shell or Lua code"))
    if option_values(args, ("--rcfile", "--macros"), clustered=False):
        found.append(Hook("rpm --macros", opaque="rpm reads macros (which may run commands) from a file"))
    return found
