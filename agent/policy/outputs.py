"""Files written by programs whose main job is to read, named in an option or an operand:
`sort -o F`, `uniq IN OUT`, `xxd IN OUT`, `iconv -o F`, `yq -i F`, `unzip -d DIR`,
`nvidia-smi -f F`, `lstopo OUT`. Without these, a common tool the policy allows would write
anywhere, `/sys/bus/pci/devices/X/remove` included.

A Unix socket a program connects to counts as written too (`socat - UNIX-CONNECT:S`,
`nc -U S`, `curl --unix-socket S`): what is sent there is a request (a VM's QMP `quit`,
systemd's reboot) that path rules must see.
"""

from __future__ import annotations

from agent.policy.facts import DYN, GLOB
from agent.policy.options import long_option, operands, option_values
from agent.policy.programs.awk import awk_outputs
from agent.policy.programs.git import git_outputs

# program -> options whose value is a file the program writes
OUTPUT_OPTIONS: dict[str, frozenset[str]] = {
    "sort": frozenset(("-o", "--output")),
    "shuf": frozenset(("-o", "--output")),
    "iconv": frozenset(("-o", "--output")),
    "tree": frozenset(("-o",)),
    "sar": frozenset(("-o",)),
    "nvidia-smi": frozenset(("-f", "--filename")),
    "nvidia-debugdump": frozenset(("-f", "--file")),
    "nvidia-bug-report.sh": frozenset(("--output-file",)),
    "dmidecode": frozenset(("--dump-bin",)),
    "nvcc": frozenset(("-o", "--output-file", "-MF", "--dependency-output")),
    "lshw": frozenset(("-dump",)),
    "info": frozenset(("-o", "--output")),
    "journalctl": frozenset(("--cursor-file",)),
    "nvidia-ctk": frozenset(("--output", "-o")),
    "less": frozenset(("-o", "-O", "--log-file", "--LOG-FILE")),  # a copy of what it shows
    "pv": frozenset(("-o", "--output")),
    "blkid": frozenset(("-c", "--cache-file")),
    "ss": frozenset(("-D", "--diag")),  # raw netlink records dumped to the file
    "apt-cache": frozenset(("--pkg-cache", "--src-cache", "-p", "-s")),  # the caches `gencaches` writes
    "pip": frozenset(("--log", "--log-file")),  # appended to, whatever the subcommand
    "pip3": frozenset(("--log", "--log-file")),
}
# program -> options whose value is a directory the program writes files into
OUTPUT_DIR_OPTIONS: dict[str, frozenset[str]] = {
    "unzip": frozenset(("-d",)),
    "nvcc": frozenset(("-odir", "--output-directory", "--keep-dir", "-keep-dir")),
    "mktemp": frozenset(("-p", "--tmpdir")),
    "pip": frozenset(("-w", "--wheel-dir", "-d", "--dest")),  # `pip wheel -w DIR`, `pip download -d DIR`
    "pip3": frozenset(("-w", "--wheel-dir", "-d", "--dest")),
}
# programs whose short options cluster (`sort -uo FILE`); the others take `-oFILE` at most
_CLUSTERING = frozenset(("sort", "shuf", "iconv", "tree", "sar", "pv", "blkid", "unzip", "mktemp"))
# program -> which operand (0-based, options skipped) is its output file
OUTPUT_OPERAND: dict[str, int] = {
    "uniq": 1,
    "xxd": 1,
    "lstopo": 0,
    "lstopo-no-graphics": 0,
    "hwloc-ls": 0,
    "mktemp": 0,  # its template: `mktemp /models/xXXXXX` creates the file there
    "fallocate": 0,  # allocates, punches holes in or zeroes its file
}
# program -> flags that make it rewrite its file operands in place
IN_PLACE: dict[str, frozenset[str]] = {"yq": frozenset(("-i", "--inplace", "--in-place"))}
# options of those programs that take a value (so the value is not taken for an operand)
_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "uniq": frozenset(("-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars")),
    "xxd": frozenset(
        ("-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset", "-s", "-seek", "-n", "-name", "-R")
    ),
    "lstopo": frozenset(("--of", "--output-format", "-i", "--input", "--filter", "--restrict", "--only")),
    "yq": frozenset(("-o", "--output-format", "-p", "--input-format", "-I", "--indent", "--expression")),
    "mktemp": frozenset(("-p", "--suffix")),
    "fallocate": frozenset(("-l", "--length", "-o", "--offset")),
}
_SOCKET_CLIENTS = frozenset(("socat", "nc", "ncat", "netcat", "curl"))
AWKS = frozenset(("awk", "gawk"))
_MOUNT_VALUE_OPTIONS = frozenset(
    ("-t", "--types", "-o", "--options", "-O", "--test-opts", "-L", "--label", "-U", "--uuid")
)
# compressors replace each file operand with its (de)compressed twin unless told to keep or print
COMPRESSORS: dict[str, str] = {
    "gzip": ".gz",
    "bzip2": ".bz2",
    "xz": ".xz",
    "lzma": ".lzma",
    "gunzip": "",
    "bunzip2": "",
    "unxz": "",
    "unlzma": "",
}
_UNZIP_NO_FILES = frozenset(("-l", "-t", "-p", "-Z", "-v", "-z"))
WRITES_THROUGH_OPTIONS = frozenset(
    (
        *OUTPUT_OPTIONS,
        *OUTPUT_DIR_OPTIONS,
        *OUTPUT_OPERAND,
        *IN_PLACE,
        *_SOCKET_CLIENTS,
        "mount",
        "umount",
        "git",
        "uv",
        "history",
        "docker",
        "podman",
        *AWKS,
        "dpkg",
        "patch",
        "split",
        "csplit",
        "cpio",
        "ar",
    )
)
_SPLIT_VALUE_OPTIONS = frozenset(
    ("-a", "--suffix-length", "-b", "--bytes", "-C", "--line-bytes", "-l", "--lines", "-n", "--number", "-t",
     "--separator", "--additional-suffix", "--filter")
)  # fmt: skip


def written_paths(name: str, args: list[str]) -> list[str]:
    """The paths `name` would write, as written (directories end in `/` + GLOB)."""
    out: list[str] = socket_paths(name, args) if name in _SOCKET_CLIENTS else []
    files = OUTPUT_OPTIONS.get(name, frozenset())
    dirs = OUTPUT_DIR_OPTIONS.get(name, frozenset())
    if files or dirs:
        # `-oFILE`, `-uo FILE` (where short options cluster), `--out=FILE` (an abbreviation)
        for opt, value in option_values(args, files | dirs, clustered=name in _CLUSTERING):
            if value:
                out.append(value.rstrip("/") + "/" + GLOB if opt in dirs else value)
    if name == "unzip" and not out and not any(a in _UNZIP_NO_FILES for a in args):
        out.append("./" + GLOB)  # no -d: into the current directory
    if name == "unzip" and any(a.startswith("-") and ":" in a for a in args):
        out.append(DYN + "/" + GLOB)  # `-:` keeps `../` in member names: anywhere
    if name == "history" and any(a.startswith("-") and a[1:2] in ("w", "a") for a in args):
        out += operands(args, ())[:1] or ["~/.bash_history"]  # `history -w FILE`
    if name in ("mount", "umount"):
        out += mount_points(name, args)
    if name == "git":
        out += git_outputs(args)
    if name == "uv" and args[:1] == ["venv"]:  # `uv venv [DIR]`, `.venv` by default
        out.append((operands(args[1:], ("-p", "--python", "--prompt", "--seed"))[:1] or [".venv"])[0] + "/" + GLOB)
    if name in ("docker", "podman"):  # `docker save -o F`, `docker build -o type=local,dest=DIR`
        for _, value in option_values(args, ("-o", "--output"), clustered=False):
            fields = dict(f.partition("=")[::2] for f in value.split(",")) if "=" in value else {}
            target = fields.get("dest", value if not fields else "")
            if target and target != "-":
                out.append(target + ("/" + GLOB if "dest" in fields else ""))
    if name in AWKS:
        out += awk_outputs(args)
    if name == "patch":  # the files its diff names, under `-d DIR`; or the one `-o FILE`
        given = [v for _, v in option_values(args, ("-o", "--output"), clustered=False)]
        where = [v for _, v in option_values(args, ("-d", "--directory"), clustered=False)]
        out += given or [(where[-1] if where else ".").rstrip("/") + "/" + GLOB]
    if name in ("split", "csplit"):  # files named PREFIX + a suffix
        prefix = [v for _, v in option_values(args, ("-f", "--prefix"), clustered=False)] if name == "csplit" else []
        words = operands(args, _SPLIT_VALUE_OPTIONS) if name == "split" else []
        out.append((prefix[-1] if prefix else words[1] if len(words) > 1 else "x") + GLOB)
    if name in ("cpio", "ar") and any((a.startswith("-") and "i" in a) or a in ("x", "-x") for a in args):
        out.append("./" + GLOB)  # extracted into the current directory
    if name == "dpkg":  # `dpkg -x PKG.deb DIR`: the package's files (or its control files) land in DIR
        for i, a in enumerate(args):
            if a in ("-x", "--extract", "-X", "--vextract", "-e", "--control"):
                target = args[i + 2] if i + 2 < len(args) else ("DEBIAN" if a in ("-e", "--control") else DYN)
                out.append(target.rstrip("/") + "/" + GLOB)
    if name == "yq" and any(a in ("-s", "--split-exp") or a.startswith("--split-exp=") for a in args):
        out.append(DYN)  # one file per document, named by an expression evaluated at run time
    operand = OUTPUT_OPERAND.get(name)
    in_place = IN_PLACE.get(name)
    if operand is not None or in_place is not None:
        given = operands(_xxd_options(args) if name == "xxd" else args, _VALUE_OPTIONS.get(name, frozenset()))
        if operand is not None and len(given) > operand and given[operand] != "-":
            out.append(given[operand])
        if in_place is not None and any(
            a in in_place or long_option(a, in_place) in in_place or (a[:1] == "-" and a[1:2] != "-" and "i" in a[1:])
            for a in args
        ):
            out += given[1:] if name == "yq" else given  # yq's first operand is its expression
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


def socket_paths(name: str, args: list[str]) -> list[str]:
    """The Unix sockets a client connects to."""
    if name == "socat":
        found = []
        for a in args:
            kind, colon, rest = a.partition(":")
            if colon and kind.upper() in ("UNIX-CONNECT", "UNIX-CLIENT", "UNIX-SENDTO", "UNIX"):
                found.append(rest.split(",")[0])
        return found
    if name == "curl":
        for i, a in enumerate(args):
            key, eq, val = a.partition("=")
            if key == "--unix-socket":
                return [val if eq else (args[i + 1] if i + 1 < len(args) else "")]
        return []
    if any(a == "-U" or (a.startswith("-") and not a.startswith("--") and "U" in a) for a in args):
        return operands(args, ())[:1]  # `nc -U SOCKET`
    return []


# archivers and compressors that delete what they pack when told to: `zip -m`, `zstd --rm`
MOVERS = frozenset(("zip", "zstd", "lz4", "brotli", "7z"))


def moved_files(name: str, args: list[str]) -> list[str]:
    """The files `zip -m ARCHIVE F...` or `zstd --rm F...` deletes once packed."""
    if name == "zip":
        if any(a in ("--move",) or (a.startswith("-") and not a.startswith("--") and "m" in a) for a in args):
            return operands(args, ("-b", "-n", "-t", "-tt", "-x", "-i", "-P", "-O", "--out"))[1:]
        return []
    if name == "7z":
        return operands(args, ())[2:] if "-sdel" in args else []
    if "--rm" in args:
        return [f for f in operands(args, ("-o", "-D", "--patch-from")) if f != "-"]
    return []


def replaced_files(name: str, args: list[str]) -> list[tuple[str | None, str]]:
    """(file deleted, file written) for each operand a compressor turns into its twin: `gzip F`
    leaves F.gz and no F, `gunzip F.gz` leaves F, `gzip -k F` keeps F (None deleted); `-c`,
    `-l` and `-t` write no file."""
    flags = [a for a in args if a.startswith("-") and a != "-"]
    short = "".join(a[1:] for a in flags if not a.startswith("--"))
    if any(a in ("--stdout", "--to-stdout", "--list", "--test") for a in flags) or any(c in short for c in "clt"):
        return []
    keep = "--keep" in flags or "k" in short
    decompress = COMPRESSORS[name] == "" or "--decompress" in flags or "--uncompress" in flags or "d" in short
    suffix = COMPRESSORS[name] or ".gz"
    out: list[tuple[str | None, str]] = []
    for f in operands(args, ("-S", "--suffix")):
        if f == "-":
            continue
        stem, dot, _ = f.rpartition(".")
        twin = (stem if dot and "/" not in f[len(stem) :] else f) if decompress else f + suffix
        out.append((None if keep else f, twin))
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
