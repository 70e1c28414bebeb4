"""awk command lines read the way awk reads them: which words are program text (the first
operand, every `-e`/`--source`), which are files, and what a program does besides printing:
run commands (`system()`, pipes, gawk's `@f()`), read (`getline < F`) and write (`print > F`)."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent.policy.facts import DYN
from agent.policy.invocation import Ctx, Hook, Invocation, Scope, WriteEffect
from agent.policy.options import long_option, option_values
from agent.policy.programs.base import printenv_hooks

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis

# gawk's long options; GNU getopt takes any unambiguous abbreviation (`--so=`, `--exe=`)
_LONG = (
    "--assign",
    "--bignum",
    "--characters-as-bytes",
    "--copyright",
    "--csv",
    "--debug",
    "--dump-variables",
    "--exec",
    "--field-separator",
    "--file",
    "--gen-pot",
    "--help",
    "--include",
    "--lint",
    "--load",
    "--no-optimize",
    "--non-decimal-data",
    "--optimize",
    "--posix",
    "--pretty-print",
    "--profile",
    "--re-interval",
    "--sandbox",
    "--source",
    "--traditional",
    "--use-lc-numeric",
    "--version",
)
_LONG_AS_SHORT = {
    "--assign": "v",
    "--field-separator": "F",
    "--file": "f",
    "--exec": "E",
    "--include": "i",
    "--load": "l",
    "--source": "e",
}
_LONG_WITH_VALUE = frozenset(_LONG_AS_SHORT)
# short options that take a value, attached (`-F,`) or as the next word
_SHORT_WITH_VALUE = frozenset("vFfEeilW")


@dataclass
class AwkLine:
    programs: list[str] = field(default_factory=list)  # program texts, in order
    files: list[str] = field(default_factory=list)  # operands read as input (not `x=1` assignments)
    opaque: str | None = None  # what the gate cannot see (a program file, an extension, mawk's -W exec)


def read_awk(args: list[str]) -> AwkLine:
    """The program texts and input files of `awk ARGS` (gawk's and mawk's options)."""
    line = AwkLine()
    given_program = False  # a -e/--source/-f gave the program: every operand is then a file
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            break  # (i is past it)
        if a.startswith("--") and len(a) > 2:
            name, eq, value = a.partition("=")
            matches = [o for o in _LONG if o.startswith(name)]
            if name not in _LONG and len(matches) != 1:
                line.opaque = f"awk option {name} is not one the gate knows (or stands for more than one)"
                continue
            full = name if name in _LONG else matches[0]
            if full in _LONG_WITH_VALUE:
                if not eq:
                    value = args[i] if i < len(args) else ""
                    i += 1
                given_program = _take(line, _LONG_AS_SHORT[full], value) or given_program
            continue
        if a.startswith("-") and len(a) > 1:
            # a cluster of flags, the first option that takes a value ending it (`-bf prog.awk`)
            k = next((k for k in range(1, len(a)) if a[k] in _SHORT_WITH_VALUE), None)
            if k is None:
                continue  # flags only (`-b`, `-n`, ...)
            letter, value = a[k], a[k + 1 :]
            if not value:
                value = args[i] if i < len(args) else ""
                i += 1
            given_program = _take(line, letter, value) or given_program
            continue
        i -= 1
        break
    for a in args[i:]:  # operands: the program (unless given), then files and `x=1` assignments
        if not given_program:
            line.programs.append(a)
            given_program = True
        elif not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", a):
            line.files.append(a)
    return line  # with no program at all, awk prints its usage


def _take(line: AwkLine, letter: str, value: str) -> bool:
    """An option's value, by the short option it is (a long one as its short twin); whether it
    gave the program (then every operand is a file)."""
    if letter == "e":
        line.programs.append(value)
        return True
    if letter in ("f", "E", "l"):
        line.opaque = "awk runs a program file or extension the gate does not analyse"
        return True
    if letter == "i" and value.rsplit("/", 1)[-1].removesuffix(".awk") != "inplace":
        line.opaque = "awk includes a program file the gate does not analyse"
    elif letter == "W" and not re.fullmatch(r"v(ersion)?|u(sage)?|d(ump)?|posix_space|random=\d+", value):
        line.opaque = f"mawk option -W {value} (exec reads the program from a file)"
    return False


@dataclass
class AwkEffects:
    runs: bool = False  # runs a command or code the gate cannot see
    writes: list[str] = field(default_factory=list)  # files it prints to (DYN: named at run time)
    reads: list[str] = field(default_factory=list)  # files it reads with getline (DYN: named at run time)


def awk_effects(program: str) -> AwkEffects:
    """What an awk program does besides printing to stdout, read token by token: strings and
    regular expressions are skipped (`/error|warn/` is no pipe), `1 /2` is a division, and a
    `>` inside parentheses is a comparison (`print ($2 > 0)`), not a redirect."""
    found = AwkEffects()
    if DYN in program:
        found.runs = True
        return found
    text = program.replace("\\\n", "")
    code, strings = _blank(text)
    if re.search(r"system\s*\(|@|(?<!\|)\|(?!\|)", code):  # `system()`, gawk's `@f()`/`@load`, pipes, `|&`
        found.runs = True
    # the same on the text with only its strings blanked: a `/` read as the wrong one of regex and
    # division (`print /#/`, `i++ / 2`), or a quote inside a regex (`/"/`), must not hide a call,
    # whichever way awk reads it
    if re.search(r"system\s*\(|@|\bSYMTAB\b|\bPROCINFO\b", _strings_blanked(text)):
        found.runs = True
    code = re.sub(r",\s*\n", ", ", code)  # a statement goes on after a comma at the end of a line
    for m in re.finditer(r"\bprintf?\b([^;}\n]*)", code):
        rest = _outside_parentheses(m.group(1))
        redirect = re.search(r">>?\s*(\S+)", rest)
        if redirect is not None:
            target = _operand(redirect.group(1), strings)
            if target not in _SPECIAL_FILES:
                found.writes.append(target)
        elif re.search(r">>?\s*\(", m.group(1)) and not re.search(r"\(.*>", m.group(1).split(">")[0]):
            found.writes.append(DYN)  # `print > ("/proc/" "x")`: a name worked out at run time
    for m in re.finditer(r"\bgetline\b([^;}\n]*)", code):
        source = re.match(r"\s*(?:[^<\s]+\s*)?<\s*(\x01\d+\x01|[^\s)]+)", m.group(1))
        found.reads.append(_operand(source.group(1), strings) if source else "-")
    for m in re.finditer(r"\bARGV\s*\[[^\]]*\]\s*=(?!=)\s*(\S+)", code):  # awk then reads that file
        found.reads.append(_operand(m.group(1).rstrip(";"), strings))
    found.reads = [r for r in found.reads if r not in _SPECIAL_FILES]
    return found


# names awk itself gives meaning to: no file is written or read there
_SPECIAL_FILES = ("/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/null", "-")


def _strings_blanked(program: str) -> str:
    """The program with its string literals blanked and nothing else changed (no comments cut)."""
    return re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', program)


def _operand(token: str, strings: list[str]) -> str:
    """A redirect's target: a string literal's text, anything else only known at run time."""
    m = re.fullmatch(r"\x01(\d+)\x01", token)
    return strings[int(m.group(1))] if m else DYN


def _outside_parentheses(text: str) -> str:
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


# after these, `/` starts a regular expression; after an operand it divides
_REGEX_MAY_FOLLOW = set("(,~!{};&|=<>?:+-*%^\n")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


def _blank(program: str) -> tuple[str, list[str]]:
    """The program with each string literal replaced by `\\x01N\\x01` (N: its index in the list
    returned) and each regular expression by `//`."""
    out: list[str] = []
    strings: list[str] = []
    last = ""  # the last character that was not a blank
    i = 0
    n = len(program)
    while i < n:
        ch = program[i]
        if ch == '"':
            j = i + 1
            text: list[str] = []
            while j < n and program[j] != '"':
                if program[j] == "\\" and j + 1 < n:
                    escaped = program[j + 1]
                    # `\057` and the like spell any character: the text is then not known
                    text.append(escaped if escaped in '"\\/' else _ESCAPES.get(escaped, DYN))
                    j += 2
                    continue
                text.append(program[j])
                j += 1
            out.append(f"\x01{len(strings)}\x01")
            strings.append("".join(text))
            last = '"'
            i = j + 1
            continue
        if ch == "/" and (last == "" or last in _REGEX_MAY_FOLLOW):
            j = i + 1
            in_class = False
            while j < n and (in_class or program[j] != "/"):
                if program[j] == "\\":
                    j += 1
                elif program[j] == "[":
                    in_class = True
                elif program[j] == "]":
                    in_class = False
                j += 1
            out.append("//")
            last = "/"
            i = j + 1
            continue
        if ch == "#":  # a comment runs to the end of the line
            while i < n and program[i] != "\n":
                i += 1
            continue
        out.append(ch)
        if not ch.isspace():
            last = ch
        i += 1
    return "".join(out), strings


def awk(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    line = read_awk(argv[1:])
    if line.opaque is not None:
        inv.opaque = line.opaque
    for program in line.programs:
        found = awk_effects(program)
        if found.runs:
            inv.opaque = "awk program that runs commands"
        inv.writes += [WriteEffect(an._path(p)) for p in found.writes]
        inv.reads += [an._path(p) for p in found.reads]
    inv.reads += [an._path(f) for f in line.files if f != "-"]


# -- files gawk writes through its options (outputs.py asks for them)

# gawk options whose value is a file it writes; only an attached value counts (`-oFILE`,
# `--pretty-print=FILE`), a bare one writes the default file into the current directory
_AWK_OUTPUTS = {"-o": "awkprof.out", "--pretty-print": "awkprof.out", "-p": "awkprof.out", "--profile": "awkprof.out"}


_AWK_OUTPUTS |= {"-d": "awkvars.out", "--dump-variables": "awkvars.out"}


def awk_outputs(args: list[str]) -> list[str]:
    """gawk's `--pretty-print`, `--profile` and `--dump-variables` files, and the files `-i inplace`
    rewrites (every file operand)."""
    found: list[str] = []
    for a in args:
        key, eq, val = a.partition("=") if a.startswith("--") else (a[:2], "", a[2:])
        if a.startswith("--"):
            key = long_option(key, [k for k in _AWK_OUTPUTS if k.startswith("--")])  # `--pre=F`, `--dump=F`
        if key in _AWK_OUTPUTS and (eq or not a.startswith("--")):
            found.append(val or _AWK_OUTPUTS[key])
    included = [v for _, v in option_values(args, ("-i", "--include"), clustered=False)]
    if any(posixpath.basename(v).removesuffix(".awk") == "inplace" for v in included):
        found += [f for f in read_awk(args).files if f != "-"]  # read as awk reads its command line
    return found


OUTPUTS = {"awk": awk_outputs, "gawk": awk_outputs}  # read by outputs.py through programs/table.py


# -- the environment printed into the transcript (hooks.py asks, through programs/table.py)


def awk_environment(name: str, program: str) -> list[Hook]:
    """`awk '...in ENVIRON...'` prints every variable; `ENVIRON["NAME"]` one."""
    if re.search(r"\bin\s+ENVIRON\b|ENVIRON\s*\[\s*[^\"\s]|ENVIRON\s*\[\s*\"[^\"]*\"\s*[^\s\]]", program):
        # every variable, or one whose name is worked out at run time (`ENVIRON[n]`, `ENVIRON["HF_" "TOKEN"]`)
        return [Hook(f"{name} ENVIRON", argv=("env",))]
    return printenv_hooks(re.findall(r"ENVIRON\s*\[\s*\"([A-Za-z_][A-Za-z0-9_]*)\"", program), name)


PRINTED_ENVIRONMENT = dict.fromkeys(("awk", "gawk", "mawk"), awk_environment)


# what its output is, to a reader of the pipe (redirects.py, through programs/table.py)
PRODUCES = {"awk": "transformed"}
