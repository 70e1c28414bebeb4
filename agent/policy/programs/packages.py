"""apt/apt-get/aptitude and rpm: hooks and programs their options make them run; the package
managers' options that take a value; the files pip, uv, dpkg and apt-cache write through theirs."""

from __future__ import annotations

import re

from agent.policy.facts import DYN, GLOB, visible
from agent.policy.invocation import Hook
from agent.policy.options import operands, option_values
from agent.policy.programs.base import option_outputs, wrapper_spec

# options whose value is a command it runs, and the prefix the value must have ("" for any):
# found and judged by hooks.py as if the command ran where it stands
COMMAND_OPTIONS: dict[str, dict[str, str]] = {
    "dpkg": {"--pre-invoke": "", "--post-invoke": ""},
    "rpm": {"--pipe": ""},
}
# options naming a file it reads settings or code from (hooks.py: what it runs is not seen)
SETTINGS_FILE_OPTIONS: dict[str, tuple[str, ...]] = {"rpm": ("--load", "--macros", "--rcfile")}
# variables naming a settings file whose entries may be commands (hooks.py): apt's hooks
CONFIG_FILE_ENV = frozenset(("APT_CONFIG",))
# options whose value is a file it writes (outputs.py, through programs/table.py)
OUTPUT_OPTIONS: dict[str, frozenset[str]] = {
    "apt-cache": frozenset(("--pkg-cache", "--src-cache", "-p", "-s")),  # the caches `gencaches` writes
    "pip": frozenset(("--log", "--log-file")),  # appended to, whatever the subcommand
    "pip3": frozenset(("--log", "--log-file")),
}
# options whose value is a directory it writes files into: `pip wheel -w DIR`, `pip download -d DIR`
OUTPUT_DIR_OPTIONS: dict[str, frozenset[str]] = {
    "pip": frozenset(("-w", "--wheel-dir", "-d", "--dest")),
    "pip3": frozenset(("-w", "--wheel-dir", "-d", "--dest")),
}

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


# -- files written through options and operands (outputs.py asks for them through programs/table.py)


def pip_outputs(args: list[str]) -> list[str]:
    """`pip --log F`, `pip wheel -w DIR`: what `python -m pip` writes as well."""
    return option_outputs(args, OUTPUT_OPTIONS["pip"], OUTPUT_DIR_OPTIONS["pip"], clustered=False)


def uv_outputs(args: list[str]) -> list[str]:
    """`uv venv [DIR]`, `.venv` by default."""
    if args[:1] != ["venv"]:
        return []
    return [(operands(args[1:], ("-p", "--python", "--prompt", "--seed"))[:1] or [".venv"])[0] + "/" + GLOB]


def dpkg_outputs(args: list[str]) -> list[str]:
    """`dpkg -x PKG.deb DIR`: the package's files (or its control files) land in DIR."""
    out: list[str] = []
    for i, a in enumerate(args):
        if a in ("-x", "--extract", "-X", "--vextract", "-e", "--control"):
            target = args[i + 2] if i + 2 < len(args) else ("DEBIAN" if a in ("-e", "--control") else DYN)
            out.append(target.rstrip("/") + "/" + GLOB)
    return out


OUTPUTS = {"uv": uv_outputs, "dpkg": dpkg_outputs}


# -- `uv run CMD`, `conda run -n X CMD`, `poetry run CMD`, `pipx run CMD`: how they wrap the
# command they run, the word `run` first (wrappers.py, through programs/table.py)
WRAPPERS = {
    "uv": wrapper_spec(),
    "conda": wrapper_spec("-n --name -p --prefix"),
    "poetry": wrapper_spec(),
    "pipx": wrapper_spec(),
}
RUN_SUBCOMMAND = {"uv", "conda", "poetry", "pipx", "mamba", "micromamba", "pixi"}


# -- apt's settings files: hooks the next apt run runs (hooks.py asks when one is written)

APT_CONF_FILE = re.compile(r"^/etc/apt/apt\.conf(\.d/[^/]+)?$")
_APT_INVOKE = re.compile(r"(?:Pre|Post)-Invoke(?:-Success)?\s*\{([^}]*)\}", re.I)


def apt_conf_hooks(content: str, path: str) -> list[Hook]:
    """`DPkg::Pre-Invoke {"CMD";};` runs CMD at the next apt run."""
    return [
        Hook(f"apt hook in {path}", code=cmd)
        for m in _APT_INVOKE.finditer(content)
        for cmd in re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))
    ]
