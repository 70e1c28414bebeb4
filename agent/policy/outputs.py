"""Files written by programs whose main job is to read, named in an option or an operand:
`sort -o F`, `uniq IN OUT`, `xxd IN OUT`, `iconv -o F`, `yq -i F`, `unzip -d DIR`,
`nvidia-smi -f F`, `lstopo OUT`. Without these, a common tool the policy allows would write
anywhere, `/sys/bus/pci/devices/X/remove` included.

What a program with a module under `programs/` writes so is declared there (`OUTPUT_OPTIONS`,
`OUTPUT_DIR_OPTIONS`, `OUTPUTS`, gathered by `programs/table.py`), a Unix socket a client
connects to among it (`socat - UNIX-CONNECT:S`, `curl --unix-socket S`: what is sent there is
a request path rules must see). Here: the lookup, and the small programs without a module.
"""

from __future__ import annotations

from agent.policy.options import operands, option_values
from agent.policy.programs.base import option_outputs
from agent.policy.programs.table import CLUSTERED_OPTIONS, OUTPUT_DIR_OPTIONS, OUTPUT_OPTIONS, OUTPUTS

# The programs with a module under programs/ declare their tables there (programs/table.py
# gathers them); below, the small programs that have none, one line each.

# small program -> options whose value is a file it writes
SMALL_OUTPUT_OPTIONS: dict[str, frozenset[str]] = {
    "sort": frozenset(("-o", "--output")),
    "shuf": frozenset(("-o", "--output")),
    "iconv": frozenset(("-o", "--output")),
    "tree": frozenset(("-o",)),
    "sar": frozenset(("-o",)),
    "dmidecode": frozenset(("--dump-bin",)),
    "lshw": frozenset(("-dump",)),
    "info": frozenset(("-o", "--output")),
    "less": frozenset(("-o", "-O", "--log-file", "--LOG-FILE")),  # a copy of what it shows
    "pv": frozenset(("-o", "--output")),
    "blkid": frozenset(("-c", "--cache-file")),
}
# small programs whose short options cluster (`sort -uo FILE`); the others take `-oFILE` at most
_SMALL_CLUSTERING = frozenset(("sort", "shuf", "iconv", "tree", "sar", "pv", "blkid"))
# small program -> which operand (0-based, options skipped) is its output file
OUTPUT_OPERAND: dict[str, int] = {
    "uniq": 1,
    "xxd": 1,
    "lstopo": 0,
    "lstopo-no-graphics": 0,
    "hwloc-ls": 0,
    "fallocate": 0,  # allocates, punches holes in or zeroes its file
}
# options of those programs that take a value (so the value is not taken for an operand)
_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "uniq": frozenset(("-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars")),
    "xxd": frozenset(
        ("-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset", "-s", "-seek", "-n", "-name", "-R")
    ),
    "lstopo": frozenset(("--of", "--output-format", "-i", "--input", "--filter", "--restrict", "--only")),
    "fallocate": frozenset(("-l", "--length", "-o", "--offset")),
}
_MOUNT_VALUE_OPTIONS = frozenset(
    ("-t", "--types", "-o", "--options", "-O", "--test-opts", "-L", "--label", "-U", "--uuid")
)
_FILE_OPTIONS = {**SMALL_OUTPUT_OPTIONS, **OUTPUT_OPTIONS}
_CLUSTERING = _SMALL_CLUSTERING | CLUSTERED_OPTIONS
WRITES_THROUGH_OPTIONS = frozenset(
    (*_FILE_OPTIONS, *OUTPUT_DIR_OPTIONS, *OUTPUTS, *OUTPUT_OPERAND, "mount", "umount", "history")
)


def written_paths(name: str, args: list[str]) -> list[str]:
    """The paths `name` would write, as written (directories end in `/` + GLOB)."""
    files = _FILE_OPTIONS.get(name)
    dirs = OUTPUT_DIR_OPTIONS.get(name)
    out: list[str] = []
    if files or dirs:
        out = option_outputs(args, files or frozenset(), dirs or frozenset(), clustered=name in _CLUSTERING)
    model = OUTPUTS.get(name)
    if model is not None:
        out += model(args)
    if name == "history" and any(a.startswith("-") and a[1:2] in ("w", "a") for a in args):
        out += operands(args, ())[:1] or ["~/.bash_history"]  # `history -w FILE`
    if name in ("mount", "umount"):
        out += mount_points(name, args)
    operand = OUTPUT_OPERAND.get(name)
    if operand is not None:
        given = operands(_xxd_options(args) if name == "xxd" else args, _VALUE_OPTIONS.get(name, frozenset()))
        if len(given) > operand and given[operand] != "-":
            out.append(given[operand])
    return out


def _xxd_options(args: list[str]) -> list[str]:
    """xxd matches its options by their first letter: `-colsx 2` is `-c 2`, `-c8` carries its
    value; `-capitalize` takes none."""
    out: list[str] = []
    for a in args:
        if a.startswith("--") and len(a) > 3:
            a = a[1:]  # `--cols` reads as `-cols`
        if a[:2] in ("-c", "-g", "-l", "-o", "-s", "-n") and len(a) > 2 and not a.startswith("-cap"):
            out.append(a if any(ch.isdigit() for ch in a[2:]) else a[:2])
        else:
            out.append(a)
    return out


def mount_points(name: str, args: list[str]) -> list[str]:
    """The directories a mount covers or an unmount uncovers: what others see there changes, as
    if it were written (`mount --bind /tmp /models` hides the model store)."""
    targets = [v for _, v in option_values(args, ("--target",), clustered=False)]
    if targets:
        return targets
    found = operands(args, _MOUNT_VALUE_OPTIONS)
    if name == "umount":
        return found
    return found[-1:]  # `mount SRC DIR` or `mount DIR` (from fstab)
