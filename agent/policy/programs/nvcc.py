"""nvcc: the host compiler and the commands its options and NVCC_*_FLAGS make it run."""

from __future__ import annotations

import re

from agent.policy.facts import DYN
from agent.policy.invocation import Hook
from agent.policy.options import option_values
from agent.policy.programs.base import split_words

# options naming a file it reads settings or code from (hooks.py: what it runs is not seen)
SETTINGS_FILE_OPTIONS: dict[str, tuple[str, ...]] = {"nvcc": ("-optf", "--options-file")}
# variables whose value it runs as a command line: its host compiler (hooks.py, through programs/table.py)
COMMAND_ENV = frozenset(("NVCC_CCBIN",))
# options whose value is a file, or a directory, it writes (outputs.py, through programs/table.py)
OUTPUT_OPTIONS: dict[str, frozenset[str]] = {"nvcc": frozenset(("-o", "--output-file", "-MF", "--dependency-output"))}
OUTPUT_DIR_OPTIONS: dict[str, frozenset[str]] = {
    "nvcc": frozenset(("-odir", "--output-directory", "--keep-dir", "-keep-dir"))
}


def nvcc_hooks(name: str, args: list[str]) -> list[Hook]:
    """`nvcc -ccbin CMD` runs CMD as the host compiler; `nvcc -run` runs what it built."""
    found = [
        Hook(f"nvcc {opt}", code=v)
        for opt, v in option_values(args, ("-ccbin", "--compiler-bindir"), clustered=False)
        if v
    ]
    found += [Hook("nvcc -ccbin=", code=a.partition("=")[2]) for a in args if a.startswith("-ccbin=")]
    passing = ("-Xcompiler", "--compiler-options", "-Xlinker", "--linker-options")
    passed = option_values(args, passing, clustered=False)
    passed += [(a.partition("=")[0], a.partition("=")[2]) for a in args if a.partition("=")[0] in passing and "=" in a]
    if any(re.search(r"(^|,)\s*(-wrapper|-fplugin|-B|-specs|--?plugin)", v) for _, v in passed):
        found.append(Hook("nvcc -Xcompiler", opaque="the host compiler is told to run or load a program"))
    if any(a in ("-run", "--run") for a in args):
        found.append(Hook("nvcc -run", argv=("./a.out",)))  # a program nobody has judged: asked for
    return found


def nvcc_env_hooks(key: str, value: str) -> list[Hook]:
    """`NVCC_PREPEND_FLAGS`, `NVCC_APPEND_FLAGS`: options nvcc adds to its own."""
    return nvcc_hooks("nvcc", split_words(value) or [DYN])


# variable -> the commands its value makes a program run (hooks.py, through programs/table.py)
ENV_HOOKS = {"NVCC_PREPEND_FLAGS": nvcc_env_hooks, "NVCC_APPEND_FLAGS": nvcc_env_hooks}
