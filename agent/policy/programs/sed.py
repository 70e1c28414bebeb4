"""sed's arguments and scripts as GNU sed reads them, for what a script does beyond editing text:
`e` runs a shell command, `w`/`W` (and `s///w`) write a file, `r`/`R` read one. A script is
parsed command by command, addresses included (`1w F`, `0~1e CMD`, `/re/I,+2r F`, `\\,x,e`), so
a letter inside a regular expression or a replacement is not taken for a command."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent.policy.facts import DYN
from agent.policy.invocation import Ctx, Invocation, Scope, WriteEffect
from agent.policy.options import long_option

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis

_LONG = (
    "--expression", "--file", "--in-place", "--line-length", "--sandbox", "--quiet", "--silent", "--debug",
    "--posix", "--regexp-extended", "--separate", "--null-data", "--unbuffered", "--follow-symlinks",
    "--binary", "--zero-terminated",
)  # fmt: skip
_TEXT_COMMANDS = "aic"  # the rest of the line (or the lines continued with `\`) is text
_FILE_COMMANDS = "wWrRe"  # the rest of the line is a file name (e: a command)
_SIMPLE = "dDgGhHnNpPxzF=lLqQ"
_LABELS = ":btTv"


@dataclass(slots=True)
class SedArgs:
    scripts: list[str] = field(default_factory=list)  # DYN: from a file
    files: list[str] = field(default_factory=list)
    in_place: bool = False
    sandbox: bool = False


def read_sed(args: list[str]) -> SedArgs:
    """Options in every spelling: `-e S`, `-eS`, `-ne S`, `-f F`/`-fF`/`--file=F` (a script
    the gate cannot see), `-i[SUFFIX]` (the rest of its cluster is the suffix), `--in-place`
    and its abbreviations (`--in`), `-l N`."""
    out = SedArgs()
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else ""
        if a == "--":
            operands += args[i + 1 :]
            break
        if a.startswith("--"):
            key, eq, val = a.partition("=")
            key = long_option(key, _LONG)
            if key == "--expression":
                out.scripts.append(val if eq else nxt)
                i += 1 if eq else 2
                continue
            if key == "--file":
                out.scripts.append(DYN)
                i += 1 if eq else 2
                continue
            if key == "--line-length" and not eq:
                i += 2
                continue
            out.in_place = out.in_place or key == "--in-place"
            out.sandbox = out.sandbox or key == "--sandbox"
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            for k, letter in enumerate(a[1:], 1):
                rest = a[k + 1 :]
                if letter == "i":
                    out.in_place = True
                    break  # `-i.bak`: the rest is the backup suffix
                if letter in "efl":
                    if letter == "e":
                        out.scripts.append(rest or nxt)
                    elif letter == "f":
                        out.scripts.append(DYN)
                    i += 0 if rest else 1
                    break
            i += 1
            continue
        operands.append(a)
        i += 1
    if not out.scripts and operands:
        out.scripts.append(operands.pop(0))
    out.files = operands
    return out


def sed_commands(script: str) -> list[tuple[str, str]] | None:
    """(command letter, its file or command argument) for each command of `script` that takes
    one (e, w, W, r, R, and `s///w FILE` as w, `s///e` as e); None when it cannot be read."""
    found: list[tuple[str, str]] = []
    n = len(script)
    i = 0
    while i < n:
        c = script[i]
        if c in " \t\n;{}":
            i += 1
            continue
        i = _skip_address(script, i)
        if i < 0:
            return None
        while i < n and script[i] in " \t!":
            i += 1
        if i >= n:
            return found if i == n else None
        c = script[i]
        if c == "#":
            i = _line_end(script, i)
        elif c in "{}":
            i += 1
        elif c in _TEXT_COMMANDS:
            i = _text_end(script, i + 1)
        elif c in _FILE_COMMANDS:
            end = _line_end(script, i + 1)
            found.append((c, script[i + 1 : end].strip()))
            i = end
        elif c in ("s", "y"):
            i = _skip_delimited(script, i + 1, 2)
            if i < 0:
                return None
            if c == "s":
                while i < n and script[i] not in ";\n}":
                    flag = script[i]
                    if flag == "w":
                        end = _line_end(script, i + 1)
                        found.append(("w", script[i + 1 : end].strip()))
                        i = end
                        break
                    if flag == "e":
                        found.append(("e", ""))
                    elif flag not in "gpIiMm0123456789 \t":
                        return None
                    i += 1
        elif c in _LABELS:
            i += 1  # `:a`, `b a`, `v 4.2`: a label ends at a blank, `;` or `}` (GNU sed's read_label)
            while i < n and script[i] in " \t":
                i += 1
            while i < n and script[i] not in " \t;\n}":
                i += 1
        elif c in _SIMPLE:
            i += 1
            while i < n and (script[i].isdigit() or script[i] in " \t"):
                i += 1  # `q5`, `l 40`
        else:
            return None
    return found


def _skip_address(script: str, i: int) -> int:
    """Past an address or a range of two (`1`, `$`, `0~4`, `/re/I`, `\\%re%`, `1,+2`, `addr,~4`);
    -1 if a regular expression in it does not end."""
    for part in range(2):
        n = len(script)
        if i < n and part == 1:
            j = i
            while j < n and script[j] in " \t":
                j += 1
            if j >= n or script[j] != ",":
                return i
            i = j + 1
            while i < n and script[i] in " \t":
                i += 1
            if i < n and script[i] in "+~":
                i += 1
        if i < n and script[i].isdigit():
            while i < n and (script[i].isdigit() or script[i] == "~"):
                i += 1
        elif i < n and script[i] == "$":
            i += 1
        elif i < n and script[i] == "/":
            i = _skip_delimited(script, i, 1)
        elif i + 1 < n and script[i] == "\\":
            i = _skip_delimited(script, i + 1, 1)
        if i < 0:
            return -1
        while i < n and script[i] in "IM":
            i += 1
    return i


def _skip_delimited(script: str, i: int, parts: int) -> int:
    """`script[i]` is a delimiter: past `parts` fields it ends (a backslash escapes one)."""
    if i >= len(script):
        return -1
    delimiter = script[i]
    i += 1
    for _ in range(parts):
        while i < len(script) and script[i] != delimiter:
            i += 2 if script[i] == "\\" else 1
        if i >= len(script):
            return -1
        i += 1
    return i


def _line_end(script: str, i: int) -> int:
    end = script.find("\n", i)
    return len(script) if end < 0 else end


def _text_end(script: str, i: int) -> int:
    """Past the text of `a`, `i` or `c`: lines that end in a backslash continue it."""
    while True:
        end = _line_end(script, i)
        escapes = len(script[i:end]) - len(script[i:end].rstrip("\\"))
        if end < len(script) and escapes % 2 == 1:  # `\\` before the newline is a backslash, not a continuation
            i = end + 1
            continue
        return end


def sed(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    opts = read_sed(argv[1:])
    for script in opts.scripts:
        commands = None if DYN in script else sed_commands(script)
        if commands is None:
            inv.opaque = "a sed script the gate cannot read (from a file, or only known at run time)"
            return
        for command, arg in commands:
            if opts.sandbox:
                continue  # `--sandbox` rejects e, r and w
            if command == "e":
                inv.opaque = "sed's e command runs a shell command"
                return
            if command in "wW" and arg not in ("/dev/stdout", "/dev/stderr"):
                inv.writes.append(WriteEffect(an._path(arg)))
            elif command in "rR":
                inv.reads.append(an._path(arg))
    for f in opts.files:
        ref = an._path(f)
        inv.reads.append(ref)
        if opts.in_place:
            inv.writes.append(WriteEffect(ref))


# what its output is, to a reader of the pipe (redirects.py, through programs/table.py)
PRODUCES = {"sed": "transformed"}
