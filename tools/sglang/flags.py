"""sglang_flags: the launch flags the target's SGLang accepts, learned from its own `--help`.

The help text is argparse's, so parsing it recovers each option's spellings, whether it takes a
value, and its choices. `FlagSet.check` then replays argparse's own checks on a command line
(exact match, unique-prefix abbreviation, ambiguity, missing values, invalid choices, required
options, unrecognized arguments) and returns the message argparse would print, so a bad launch is
caught before anything loads. Parsed flag sets are cached per (target, python, SGLang version),
and the raw help text is kept in the target's work directory so a later run need not re-import
SGLang (which takes seconds: it imports torch).
"""

from __future__ import annotations

import contextlib
import itertools
import re
import shlex
from collections.abc import Sequence

from pydantic import BaseModel, Field

from tools.registry import ToolContext, ToolOutput, tool
from tools.target import Target, TargetError, TargetFileError

# an interpreter is a program name or path: it is put into command lines, so nothing else is allowed
INTERPRETER_PATTERN = r"^[A-Za-z0-9_./+-]+$"


def version_command(python: str) -> str:
    return f"{shlex.quote(python)} -c 'import sglang; print(sglang.__version__)'"


def help_command(python: str) -> str:
    return f"{shlex.quote(python)} -m sglang.launch_server --help"


class FlagSpec(BaseModel):
    names: list[str] = Field(description="Every spelling, in the order --help lists them.")
    nargs: str = Field(description="'0' (a switch), '1', '?', '*' or '+'.")
    metavar: str | None = None
    choices: list[str] | None = None
    help: str = ""
    deprecated: bool = False
    required: bool = False

    @property
    def display(self) -> str:
        """How argparse names the option in its errors."""
        return "/".join(self.names)


class SglangMissing(Exception):
    """SGLang is not importable with this Python on the target."""


class HelpUnparseable(Exception):
    """`--help` printed something that is not argparse help."""


class FlagSet(BaseModel):
    version: str | None = None
    prog: str = "launch_server.py"
    flags: list[FlagSpec]

    def lookup(self, option: str) -> FlagSpec | None:
        for spec in self.flags:
            if option in spec.names:
                return spec
        return None

    def has(self, option: str) -> bool:
        return self.lookup(option) is not None

    def first_known(self, *options: str) -> str | None:
        """The first of `options` this version accepts by its exact name."""
        return next((o for o in options if self.has(o)), None)

    def _option_strings(self) -> list[tuple[str, FlagSpec]]:
        return [(name, spec) for spec in self.flags for name in spec.names]

    def error(self, message: str) -> str:
        return f"{self.prog}: error: {message}"

    def check(self, argv: Sequence[str]) -> str | None:
        """The error argparse would print for `argv` (the arguments after the module), or None."""
        table = self._option_strings()
        exact = dict(table)
        seen: set[int] = set()
        extras: list[str] = []
        i = 0
        while i < len(argv):
            token = argv[i]
            i += 1
            if token == "--":
                extras.extend(argv[i:])
                break
            if not _looks_like_option(token):
                extras.append(token)
                continue
            option, _, value = token.partition("=")
            explicit = value if "=" in token else None
            spec = exact.get(option)
            if spec is None and option.startswith("--"):
                matches = [name for name, _ in table if name.startswith(option)]
                if len(matches) > 1:
                    return self.error(f"ambiguous option: {option} could match {', '.join(matches)}")
                if matches:
                    spec = exact[matches[0]]
            if spec is None:
                extras.append(token)
                continue
            seen.add(id(spec))
            values: list[str] = []
            if spec.nargs == "0":
                if explicit is not None:
                    return self.error(f"argument {spec.display}: ignored explicit argument {explicit!r}")
            elif explicit is not None:
                values = [explicit]
            elif spec.nargs in ("1", "?"):
                if i < len(argv) and not _looks_like_option(argv[i]):
                    values = [argv[i]]
                    i += 1
                elif spec.nargs == "1":
                    return self.error(f"argument {spec.display}: expected one argument")
            else:
                while i < len(argv) and not _looks_like_option(argv[i]):
                    values.append(argv[i])
                    i += 1
                if spec.nargs == "+" and not values:
                    return self.error(f"argument {spec.display}: expected at least one argument")
            if spec.choices is not None:
                for value in values:
                    if value not in spec.choices:
                        allowed = ", ".join(repr(c) for c in spec.choices)
                        return self.error(f"argument {spec.display}: invalid choice: {value!r} (choose from {allowed})")
        missing = [spec.display for spec in self.flags if spec.required and id(spec) not in seen]
        if missing:
            return self.error(f"the following arguments are required: {', '.join(missing)}")
        if extras:
            return self.error(f"unrecognized arguments: {' '.join(extras)}")
        return None

    def check_command(self, command: str) -> str | None:
        """Validate a `... -m sglang.launch_server ARGS` command line."""
        words = shlex.split(command)
        for marker in ("sglang.launch_server", "serve"):
            if marker in words:
                return self.check(words[words.index(marker) + 1 :])
        return None


_NEGATIVE = re.compile(r"^-\d+$|^-\d*\.\d+$")


def _looks_like_option(token: str) -> bool:
    return token.startswith("-") and token != "-" and not _NEGATIVE.match(token)


_OPTION_LINE = re.compile(r"^  (-\S.*?)(?:\s{2,}(\S.*))?$")


def _nargs_and_metavar(words: list[str]) -> tuple[str, str | None]:
    if not words:
        return "0", None
    joined = " ".join(words)
    if joined.startswith("[") and joined.endswith("...]"):
        return "*", joined[1:].split(" ")[0]
    if joined.startswith("[") and joined.endswith("]"):
        return "?", joined[1:-1]
    if len(words) > 1 and words[1].startswith("[") and joined.endswith("...]"):
        return "+", words[0]
    return "1", words[0]


def _required_from_usage(usage: str) -> set[str]:
    depth = 0
    required: set[str] = set()
    for word in usage.split():
        if depth == 0 and word.startswith("--"):
            required.add(word.strip("()|"))
        depth += word.count("[") - word.count("]")
    return required


def parse_help(text: str, version: str | None = None) -> FlagSet:
    """Parse argparse `--help` output into a `FlagSet`."""
    lines = text.replace("\r", "").split("\n")
    usage_lines: list[str] = []
    in_usage = False
    for line in lines:
        if line.startswith("usage:"):
            in_usage = True
        elif in_usage and not line.strip():
            break
        if in_usage:
            usage_lines.append(line)
    if not usage_lines:
        raise HelpUnparseable("no 'usage:' line: this is not argparse --help output")
    usage_words = " ".join(usage_lines).split()
    # the program name runs up to the first option: "launch_server.py", or "sglang serve" (0.5.14+)
    prog_words = [w for w in itertools.takewhile(lambda w: not w.startswith(("[", "-")), usage_words[1:])]
    prog = " ".join(prog_words) or "launch_server.py"
    required = _required_from_usage(" ".join(usage_words[1 + len(prog_words) :]))
    flags: list[FlagSpec] = []
    current: FlagSpec | None = None
    for line in lines[len(usage_lines) :]:
        match = _OPTION_LINE.match(line)
        if match:
            parts = re.split(r", (?=-)", match.group(1).strip())
            names: list[str] = []
            nargs, metavar = "0", None
            for part in parts:
                words = part.split(" ")
                names.append(words[0])
                part_nargs, part_metavar = _nargs_and_metavar(words[1:])
                if part_metavar is not None:
                    nargs, metavar = part_nargs, part_metavar
            choices = None
            if metavar and metavar.startswith("{") and metavar.endswith("}"):
                choices = metavar[1:-1].split(",")
            current = FlagSpec(
                names=names,
                nargs=nargs,
                metavar=metavar,
                choices=choices,
                help=(match.group(2) or "").strip(),
                required=any(n in required for n in names),
            )
            flags.append(current)
        elif current is not None and line.startswith(" " * 4) and line.strip():
            current.help = f"{current.help} {line.strip()}".strip()
        elif not line.strip() or not line.startswith(" "):
            current = None
    if not flags:
        raise HelpUnparseable("the --help output lists no options")
    for spec in flags:
        spec.deprecated = "deprecated" in spec.help.lower()
    return FlagSet(version=version, prog=prog, flags=flags)


_CACHE: dict[tuple[str, str, str], FlagSet] = {}


def _cache_path(target: Target, python: str, version: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", f"{python}-{version}")
    return f"{target.work_dir}/cache/sglang-help-{safe}.txt"


def installed_version(target: Target, python: str = "python3") -> str:
    result = target.run(version_command(python), timeout=120)
    if result.exit_code is None:  # it never finished (dropped link, timeout): no evidence SGLang is missing
        raise TargetError(
            f"the SGLang version check did not finish on {target.describe()}: {result.error or 'no exit'}"
        )
    version = result.stdout.strip().splitlines()[-1].strip() if result.stdout.strip() else ""
    if not result.ok or not re.match(r"^\d+(\.\d+)*", version):
        said = (result.stderr.strip() or result.stdout.strip()).splitlines()
        raise SglangMissing(
            f"SGLang is not importable with {python} on {target.describe()}: "
            f"{said[-1] if said else f'exit {result.exit_code}'}"
        )
    return version


def learn(target: Target, python: str = "python3") -> FlagSet:
    """The flag set of the SGLang that `python` imports on `target` (cached per version)."""
    version = installed_version(target, python)
    key = (target.describe(), python, version)
    if key in _CACHE:
        return _CACHE[key]
    path = _cache_path(target, python, version)
    text = ""
    try:
        if target.stat(path) is not None:
            text = target.read_file(path, max_bytes=4 * 1024 * 1024).decode("utf-8", errors="replace")
    except TargetFileError:
        text = ""
    if not text:
        result = target.run(help_command(python), timeout=300)
        text = result.stdout
        if result.exit_code is None:  # never finished (dropped link, timeout): says nothing about SGLang
            raise TargetError(
                f"{help_command(python)} did not finish on {target.describe()}: {result.error or 'no exit'}"
            )
        if not result.ok or "usage:" not in text:
            said = (result.stderr.strip() or text.strip()).splitlines()
            last = said[-1] if said else "no output"
            raise HelpUnparseable(f"{help_command(python)} failed (exit {result.exit_code}): {last}")
    flag_set = parse_help(text, version)
    # The cache is an optimisation; a read-only work dir only costs a re-run next time.
    with contextlib.suppress(TargetFileError):
        target.write_file(path, text.encode())
    _CACHE[key] = flag_set
    return flag_set


class SglangFlagsArgs(BaseModel):
    python: str = Field(
        default="python3",
        pattern=INTERPRETER_PATTERN,
        description="The Python interpreter on the target that has SGLang (a program name or path).",
    )


_HIGHLIGHTS = (
    "--attention-backend",
    "--dsa-decode-backend",
    "--nsa-decode-backend",
    "--moe-runner-backend",
    "--kv-cache-dtype",
    "--speculative-algorithm",
)


@tool(read_only=True)
def sglang_flags(ctx: ToolContext, args: SglangFlagsArgs) -> ToolOutput:
    """List the launch flags the target's installed SGLang accepts (from its own --help, cached per
    version): each flag's spellings, whether it takes a value, its choices, and deprecations. Use it
    to pick flag names that exist in this version (e.g. --dsa-* vs --nsa-*)."""
    try:
        flag_set = learn(ctx.target, args.python)
    except SglangMissing as exc:
        return ToolOutput(tool="sglang_flags", ok=False, summary=str(exc), error_kind="sglang_missing")
    except HelpUnparseable as exc:
        return ToolOutput(tool="sglang_flags", ok=False, summary=str(exc), error_kind="unparseable_output")
    lines = [f"SGLang {flag_set.version}: {len(flag_set.flags)} launch flags"]
    for name in _HIGHLIGHTS:
        spec = flag_set.lookup(name)
        if spec is not None and spec.choices:
            lines.append(f"{name}: {', '.join(spec.choices)}")
    sparse = flag_set.first_known("--dsa-decode-backend", "--nsa-decode-backend")
    lines.append(f"sparse-attention decode flag: {sparse or 'none'}")
    graph = flag_set.first_known("--cuda-graph-max-bs", "--cuda-graph-max-bs-decode")
    lines.append(f"cuda graph max batch flag: {graph or 'none'}")
    deprecated = [s.names[0] for s in flag_set.flags if s.deprecated]
    if deprecated:
        lines.append(f"deprecated: {', '.join(deprecated)}")
    return ToolOutput(tool="sglang_flags", ok=True, summary="\n".join(lines), data=flag_set.model_dump(mode="json"))
