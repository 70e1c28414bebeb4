"""apt/apt-get/aptitude and rpm: hooks and programs their options make them run; the package
managers' options that take a value."""

from __future__ import annotations

import re

from agent.policy.facts import DYN, visible
from agent.policy.invocation import Hook
from agent.policy.options import option_values

# options whose value is a command it runs, and the prefix the value must have ("" for any):
# found and judged by hooks.py as if the command ran where it stands
COMMAND_OPTIONS: dict[str, dict[str, str]] = {
    "dpkg": {"--pre-invoke": "", "--post-invoke": ""},
    "rpm": {"--pipe": ""},
}
# options naming a file it reads settings or code from (hooks.py: what it runs is not seen)
SETTINGS_FILE_OPTIONS: dict[str, tuple[str, ...]] = {"rpm": ("--load", "--macros", "--rcfile")}

_PIP = (
    "--python", "--log", "--log-file", "--cache-dir", "--proxy", "--retries", "--timeout", "--exists-action",
    "--trusted-host", "--cert", "--client-cert", "--use-feature", "--use-deprecated", "--progress-bar",
    "--keyring-provider", "--resume-retries", "--src",
)  # fmt: skip
_CONDA = ("-n", "--name", "-p", "--prefix", "-c", "--channel")
# for `subcommand` rules (programs/table.py): options before the subcommand that take the next
# word as their value, so that `apt-get -o X=1 install` is read as `apt-get install`
SUBCOMMAND_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    name: frozenset(opts)
    for names, opts in (
        (("pip", "pip3"), _PIP),
        (("uv",), ("--directory", "--project", "--config-file", "--cache-dir", "--color", "-p", "--python",
                   "--allow-insecure-host", "--python-preference")),
        (("conda", "mamba", "micromamba"), _CONDA),
        (("apt", "apt-get", "aptitude"), ("-o", "--option", "-c", "--config-file", "-t", "--target-release",
                                          "--default-release", "-a", "--host-architecture", "-P", "--build-profiles")),
        (("fwupdmgr",), ("--filter", "--filter-release", "--download-retries")),
    )
    for name in names
}  # fmt: skip

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
