"""A small bash command-line parser: words with quotes and escapes, `;` `&&` `||` `|` `&`,
redirections (`>`, `>>`, `<`, `2>`, `2>&1`, `&>`), `A=B` prefixes and `$VAR` expansion.
Enough for the commands an operator's tools send; anything else (command substitution,
heredocs, subshells) is a `ParseError`, which the shell reports like bash would."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

OPERATORS = (
    "&&",
    "||",
    ";;",
    "2>&1",
    "1>&2",
    ">&2",
    "2>>",
    "&>",
    ">>",
    "2>",
    "1>",
    "|",
    "&",
    ";",
    ">",
    "<",
    "\n",
)
REDIRECTS = {"2>&1", "1>&2", ">&2", "2>>", "&>", ">>", "2>", "1>", ">", "<"}


class ParseError(Exception):
    pass


@dataclass
class Word:
    text: str
    quoted: bool = False


@dataclass
class Simple:
    assignments: dict[str, str] = field(default_factory=dict)
    argv: list[str] = field(default_factory=list)
    redirects: list[tuple[str, str]] = field(default_factory=list)  # (operator, target)
    globs: list[int] = field(default_factory=list)  # argv positions bash would pathname-expand


@dataclass
class Pipeline:
    commands: list[Simple]
    background: bool = False


@dataclass
class AndOr:
    connector: str  # ";" for the first one, else "&&" / "||" / ";"
    pipeline: Pipeline


def _var(s: str, i: int, env: Mapping[str, str]) -> tuple[str, int]:
    """Expand `$NAME`, `${NAME}` or `$?` starting at s[i] == '$'; returns (text, next index)."""
    if i + 1 < len(s) and s[i + 1] == "{":
        end = s.find("}", i + 2)
        if end < 0:
            raise ParseError("bad substitution")
        return env.get(s[i + 2 : end], ""), end + 1
    if i + 1 < len(s) and s[i + 1] == "(":
        raise ParseError("command substitution is not supported by the lab")
    if i + 1 < len(s) and s[i + 1] in "?$#":
        return env.get(s[i + 1], "0"), i + 2
    j = i + 1
    while j < len(s) and (s[j].isalnum() or s[j] == "_"):
        j += 1
    if j == i + 1:
        return "$", i + 1
    return env.get(s[i + 1 : j], ""), j


def tokenize(s: str, env: Mapping[str, str]) -> list[Word | str]:
    """Words (Word) and operators (str)."""
    out: list[Word | str] = []
    cur: list[str] | None = None
    quoted = False
    i, n = 0, len(s)

    def flush() -> None:
        nonlocal cur, quoted
        if cur is not None:
            out.append(Word("".join(cur), quoted))
        cur, quoted = None, False

    while i < n:
        c = s[i]
        if c in " \t":
            flush()
            i += 1
        elif c == "#" and cur is None:
            while i < n and s[i] != "\n":
                i += 1
        elif c == "'":
            end = s.find("'", i + 1)
            if end < 0:
                raise ParseError("unexpected EOF while looking for matching `''")
            cur = (cur or []) + list(s[i + 1 : end])
            quoted = True
            i = end + 1
        elif c == '"':
            i += 1
            buf: list[str] = []
            while True:
                if i >= n:
                    raise ParseError("unexpected EOF while looking for matching `\"'")
                ch = s[i]
                if ch == '"':
                    break
                if ch == "\\" and i + 1 < n and s[i + 1] in '"\\$`\n':
                    buf.append(s[i + 1])
                    i += 2
                elif ch == "$":
                    text, i = _var(s, i, env)
                    buf.append(text)
                elif ch == "`":
                    raise ParseError("command substitution is not supported by the lab")
                else:
                    buf.append(ch)
                    i += 1
            cur = (cur or []) + buf
            quoted = True
            i += 1
        elif c == "\\":
            if i + 1 < n and s[i + 1] == "\n":
                i += 2
                continue
            cur = (cur or []) + ([s[i + 1]] if i + 1 < n else [])
            i += 2
        elif c == "$":
            text, i = _var(s, i, env)
            cur = (cur or []) + list(text)
        elif c == "`":
            raise ParseError("command substitution is not supported by the lab")
        elif c in "|&;<>\n()":
            if c in "()":
                raise ParseError(f"syntax error near unexpected token `{c}'")
            # `2>` and `1>` are redirections only when the digit stands alone right before `>`
            if cur is not None and not quoted and "".join(cur) in ("1", "2") and c == ">":
                fd = "".join(cur)
                cur = None
                rest = s[i:]
                op = fd + (
                    ">&1"
                    if rest.startswith(">&1")
                    else ">&2"
                    if rest.startswith(">&2")
                    else ">>"
                    if rest.startswith(">>")
                    else ">"
                )
                out.append(op if op in REDIRECTS else op.replace(">&1", ">&1"))
                i += len(op) - 1
                continue
            flush()
            for op in OPERATORS:
                if s.startswith(op, i):
                    out.append(";" if op == "\n" else op)
                    i += len(op)
                    break
        else:
            cur = (cur or []) + [c]
            i += 1
    flush()
    return out


def parse(line: str, env: Mapping[str, str]) -> list[AndOr]:
    tokens = tokenize(line, env)
    lists: list[AndOr] = []
    connector = ";"
    commands: list[Simple] = []
    simple = Simple()
    i = 0

    def end_simple() -> None:
        nonlocal simple
        if not simple.argv and not simple.assignments and not simple.redirects:
            raise ParseError("syntax error near unexpected token")
        commands.append(simple)
        simple = Simple()

    def end_pipeline(background: bool) -> None:
        nonlocal commands
        lists.append(AndOr(connector, Pipeline(commands, background)))
        commands = []

    while i < len(tokens):
        tok = tokens[i]
        if isinstance(tok, Word):
            if not simple.argv and not tok.quoted and "=" in tok.text and tok.text.split("=", 1)[0].isidentifier():
                name, value = tok.text.split("=", 1)
                simple.assignments[name] = value
            else:
                if not tok.quoted and any(ch in tok.text for ch in "*?["):
                    simple.globs.append(len(simple.argv))
                simple.argv.append(tok.text)
        elif tok in REDIRECTS:
            if tok in ("2>&1", "1>&2", ">&2"):
                simple.redirects.append((tok, ""))
            else:
                if i + 1 >= len(tokens) or not isinstance(tokens[i + 1], Word):
                    raise ParseError("syntax error near unexpected token `newline'")
                target = tokens[i + 1]
                assert isinstance(target, Word)
                simple.redirects.append((tok, target.text))
                i += 1
        elif tok == "|":
            end_simple()
        elif tok in ("&&", "||", ";", "&"):
            if not simple.argv and not simple.assignments and not commands and tok == ";":
                i += 1
                continue  # empty statement (trailing newline or ';')
            end_simple()
            end_pipeline(tok == "&")
            connector = tok if tok in ("&&", "||") else ";"
        else:
            raise ParseError(f"syntax error near unexpected token `{tok}'")
        i += 1
    if simple.argv or simple.assignments or simple.redirects:
        end_simple()
    if commands:
        end_pipeline(False)
    elif connector in ("&&", "||"):
        raise ParseError("syntax error: unexpected end of file")
    return lists
