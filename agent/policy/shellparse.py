"""Bash text to syntax tree (tree-sitter-bash), and words resolved the way bash resolves them.

Quote removal, backslash escapes, ANSI-C `$'...'` strings, brace expansion and `~` are
resolved here; what only exists at run time (variables not set literally earlier in the same
command, `$(...)`, arithmetic) becomes the `DYN` marker and unquoted glob wildcards the `GLOB`
marker (see facts.py), so later stages can tell "unknown" from "known".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import tree_sitter_bash
from tree_sitter import Language, Node, Parser, Tree

from agent.policy.facts import DYN, GLOB

LANGUAGE = Language(tree_sitter_bash.language())
_PARSER = Parser(LANGUAGE)

# One char of a word: (text, kind); kind 0 unquoted literal, 1 quoted literal, 2 dynamic.
Seg = tuple[str, int]
UNQ, QUO, DYNK = 0, 1, 2
MAX_BRACE_WORDS = 64


class ContinuationHazard(ValueError):
    """A line continuation where joining lines as bash does needs more than this pre-pass knows."""


def preprocess(source: str) -> str:
    """Join `\\<newline>` continuations the way bash does before tokenising (tree-sitter doesn't).

    Inside single quotes (and `$'...'`, where it is an escape of its own) and comments (which end
    at the newline, backslash or not) they are kept. After a here-document starts, where a body
    line may end in a backslash before its delimiter, it raises ContinuationHazard.
    """
    if "\\\n" not in source:
        return source
    out: list[str] = []
    i, n = 0, len(source)
    single = double = False
    while i < n:
        c = source[i]
        if single:
            out.append(c)
            if c == "'":
                single = False
            i += 1
            continue
        if c == "#" and not double and (i == 0 or source[i - 1] in " \t\n;&|()"):
            end = source.find("\n", i)
            end = n if end == -1 else end
            out.append(source[i:end])  # a comment: its quotes and its last backslash are text
            i = end
            continue
        here_doc = c == "<" and source.startswith("<<", i) and not source.startswith("<<<", i)
        if here_doc and not double and "\\\n" in source[i:]:
            raise ContinuationHazard("a line continuation after a here-document starts")
        if c == "\\" and i + 1 < n:
            if source[i + 1] == "\n":
                i += 2
                continue
            out.append(source[i : i + 2])
            i += 2
            continue
        if c == "'" and not double:
            single = True
        elif c == '"':
            double = not double
        out.append(c)
        i += 1
    return "".join(out)


def parse(source: str) -> Tree:
    return _PARSER.parse(preprocess(source).encode())


def parse_ascii(source: str) -> tuple[Tree, str | None]:
    """The tree, and the text it was parsed from when that is ASCII (its byte offsets are then
    its character offsets: a node's text is a slice of it, see `plain_value`); else None."""
    text = preprocess(source)
    raw = text.encode()
    return _PARSER.parse(raw), text if len(raw) == len(text) else None


def node_text(node: Node) -> str:
    return (node.text or b"").decode(errors="replace")


def first_error(node: Node) -> Node | None:
    """The first ERROR or MISSING node, to say where the command could not be read."""
    if not node.has_error:
        return None
    if node.type == "ERROR" or node.is_missing:
        return node
    for child in node.children:
        found = first_error(child)
        if found is not None:
            return found
    return node


# ---------------------------------------------------------------- words


class Word:
    """A resolved word: its possible values (brace expansion gives several) and what it hides."""

    __slots__ = ("node", "substitutions", "values")

    def __init__(self, values: list[str], node: Node, substitutions: list[Node] | None = None) -> None:
        self.values = values
        self.node = node
        self.substitutions: list[Node] = substitutions if substitutions is not None else []

    @property
    def raw(self) -> str:
        """The word as written (made only when asked for: most words never are)."""
        return node_text(self.node)

    @property
    def dynamic(self) -> bool:
        return any(DYN in v for v in self.values)

    @property
    def literal(self) -> str | None:
        """The single exact value, or None when unknown or several."""
        if len(self.values) == 1 and DYN not in self.values[0] and GLOB not in self.values[0]:
            return self.values[0]
        return None


VarLookup = Callable[[str], str | None]

_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def decode_ansi_c(body: str) -> str:
    """The value of `$'body'`: \\xHH, \\NNN octal, \\uHHHH, \\UHHHHHHHH, \\cX and the usual escapes."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 == n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[e])
        elif e == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", body[i:])
            if m:
                out.append(chr(int(m.group(), 16)))
                i += len(m.group())
            else:
                out.append("\\x")
        elif e in "uU":
            m = re.match(r"[0-9a-fA-F]{1,4}" if e == "u" else r"[0-9a-fA-F]{1,8}", body[i:])
            if m:
                out.append(chr(min(int(m.group(), 16), 0x10FFFF)))
                i += len(m.group())
            else:
                out.append("\\" + e)
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i - 1 :])
            assert m is not None
            out.append(chr(int(m.group(), 8) & 0xFF))
            i += len(m.group()) - 1
        elif e == "c" and i < n:
            out.append(chr(ord(body[i].upper()) ^ 0x40))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out)


def _unquoted_word(text: str) -> list[Seg]:
    if "\\" not in text:
        return [(c, UNQ) for c in text]
    segs: list[Seg] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            segs.append((text[i + 1], QUO))
            i += 2
        else:
            segs.append((c, UNQ))
            i += 1
    return segs


def _double_quoted_content(text: str) -> list[Seg]:
    if "\\" not in text:
        return [(c, QUO) for c in text]
    segs: list[Seg] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\':
            segs.append((text[i + 1], QUO))
            i += 2
        elif c == "\\" and i + 1 < n and text[i + 1] == "\n":
            i += 2
        else:
            segs.append((c, QUO))
            i += 1
    return segs


_SUBST_TYPES = {"command_substitution", "process_substitution"}


SHELL_PID = "4194304"  # a stand-in for `$$`: digits, and above any real pid (pid_max is 4194304)


def _expansion_value(node: Node, lookup: VarLookup) -> str | None:
    """`$x`, `${x}`, `${x:-default}`: known only when x was set literally in this command."""
    names = [c for c in node.children if c.type in ("variable_name", "special_variable_name")]
    if node.type == "simple_expansion" and len(names) == 1 and node_text(names[0]) == "$":
        return SHELL_PID  # `$$`: a number, the shell's own pid (`tmp.$$` is a name in this directory)
    if len(names) != 1 or names[0].type != "variable_name":
        return None
    if node.type == "simple_expansion":
        return lookup(node_text(names[0]))
    # exactly `${name}`: `${!name}`, `${name:+}`, `${name,,}`, `${#name}` ... are other values
    if [c.type for c in node.children] == ["${", "variable_name", "}"]:
        return lookup(node_text(names[0]))
    return None


def segments(node: Node, lookup: VarLookup, subs: list[Node]) -> list[Seg]:
    """The characters of a word node, each marked unquoted, quoted or dynamic."""
    t = node.type
    if t in ("word", "number", "command_name", "brace_expression", "extglob_pattern"):
        if t == "command_name" and node.named_child_count:
            out: list[Seg] = []
            for c in node.named_children:
                out += segments(c, lookup, subs)
            return out
        return _unquoted_word(node_text(node))
    if t == "raw_string":
        return [(c, QUO) for c in node_text(node)[1:-1]]
    if t == "ansi_c_string":
        return [(c, QUO) for c in decode_ansi_c(node_text(node)[2:-1])]
    if t in ("string", "translated_string"):
        out = []
        for c in node.children:
            if c.type == "string_content":
                out += _double_quoted_content(node_text(c))
            elif c.is_named:
                inner = segments(c, lookup, subs)
                out += [(ch, QUO if k == UNQ else k) for ch, k in inner]
        return out
    if t == "concatenation":
        out = []
        for c in node.children:
            out += segments(c, lookup, subs)
        return out
    if t == "$" and node_text(node) == "$$":  # tree-sitter's bare token for `$$` inside a word
        return [(ch, UNQ) for ch in SHELL_PID]
    if t in ("simple_expansion", "expansion"):
        for c in node.children:
            _collect_subs(c, subs)
        value = _expansion_value(node, lookup)
        if value is None:
            return [(DYN, DYNK)]
        return [(ch, UNQ) for ch in value]  # unquoted: bash would split and glob it
    if t in _SUBST_TYPES:
        subs.append(node)
        return [(DYN, DYNK)]
    _collect_subs(node, subs)
    return [(DYN, DYNK)]


def expanded_names(node: Node) -> list[str]:
    """The variables a word expands (`$X`, `"${X:-d}"`, a here-document's `$X`), not those inside
    command substitutions (judged as commands of their own); `*` for `${!name}`, whose variable is
    named at run time."""
    found: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        t = n.type
        if t in _SUBST_TYPES or t == "raw_string":
            continue
        if t in ("simple_expansion", "expansion"):
            kids = n.children
            if t == "expansion" and len(kids) > 1 and kids[1].type == "!" and kids[-2].type not in ("*", "@"):
                found.append("*")
                continue
            if t == "expansion" and len(kids) > 1 and kids[1].type == "#":
                continue  # `${#HF_TOKEN}`: its length
            found += [node_text(c) for c in kids if c.type == "variable_name"]
        stack.extend(n.children)
    return found


def _collect_subs(node: Node, subs: list[Node]) -> None:
    if node.type in _SUBST_TYPES:
        subs.append(node)
        return
    for c in node.children:
        _collect_subs(c, subs)


def _brace_expand(segs: list[Seg], limit: int = MAX_BRACE_WORDS) -> list[list[Seg]] | None:
    """Bash brace expansion over unquoted braces; None when it would exceed `limit` words."""
    depth = 0
    start = -1
    for i, (ch, k) in enumerate(segs):
        if k != UNQ:
            continue
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                inner = segs[start + 1 : i]
                parts = _split_top_commas(inner)
                alts = parts if len(parts) > 1 else _sequence(inner)
                if alts is None:
                    continue
                prefix, suffix = segs[:start], segs[i + 1 :]
                out: list[list[Seg]] = []
                for alt in alts:
                    expanded = _brace_expand(prefix + alt + suffix, limit)
                    if expanded is None:
                        return None
                    out += expanded
                    if len(out) > limit:
                        return None
                return out
    return [segs]


def _split_top_commas(inner: list[Seg]) -> list[list[Seg]]:
    parts: list[list[Seg]] = [[]]
    depth = 0
    for ch, k in inner:
        if k == UNQ and ch == "{":
            depth += 1
        elif k == UNQ and ch == "}":
            depth -= 1
        if k == UNQ and ch == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append((ch, k))
    return parts


def _sequence(inner: list[Seg]) -> list[list[Seg]] | None:
    if any(k != UNQ for _, k in inner):
        return None
    m = re.fullmatch(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?", "".join(c for c, _ in inner))
    if not m:
        return None
    a, b = m.group(1), m.group(2)
    step = abs(int(m.group(3) or 1)) or 1
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        x, y = int(a), int(b)
        rng = range(x, y + 1, step) if x <= y else range(x, y - 1, -step)
        if len(rng) > MAX_BRACE_WORDS:
            return None
        return [[(c, UNQ) for c in str(v)] for v in rng]
    if a.isalpha() and b.isalpha():
        x, y = ord(a), ord(b)
        rng = range(x, y + 1, step) if x <= y else range(x, y - 1, -step)
        return [[(chr(v), UNQ)] for v in rng]
    return None


_FINISH_SPECIAL = re.compile(f"[{DYN}*?\\[~]")  # the only characters `_finish` may do more with than keep


def _finish(segs: list[Seg]) -> str:
    """Collapse segments into text with markers: unquoted globs become GLOB, unknown text DYN."""
    text = "".join([ch for ch, _ in segs])
    if _FINISH_SPECIAL.search(text) is None:
        return text  # every character kept as it is, whatever its quoting
    out: list[str] = []
    i, n = 0, len(segs)
    while i < n:
        ch, k = segs[i]
        if k == DYNK:
            if not out or out[-1] != DYN:
                out.append(DYN)
        elif k == UNQ and ch in "*?":
            if not out or out[-1] != GLOB:
                out.append(GLOB)
        elif k == UNQ and ch == "[":
            close = next((j for j in range(i + 2, n) if segs[j] == ("]", UNQ)), -1)
            if close == -1:
                out.append(ch)
            else:
                out.append(GLOB)
                i = close
        elif k == QUO and ch == "~" and i == 0:
            out.append("./~")  # a quoted tilde is a file named ~, not $HOME
        else:
            out.append(ch)
        i += 1
    return "".join(out)


_BARE_TYPES = frozenset(("word", "number", "brace_expression", "extglob_pattern"))
_BARE_SPECIAL = re.compile(r"[\\{*?\[]")  # what quote removal, brace or glob handling would change


def plain_value(node: Node, t: str | None = None, src: str | None = None) -> str | None:
    """The word's value when resolving it could change nothing but the quotes; None otherwise.

    Exactly what `segments`, `_brace_expand` and `_finish` give for these shapes, without
    going through them character by character: a bare word free of backslashes, braces and
    glob characters, a '...' string, a "..." string holding only plain text. `t`: the node's
    type, when the caller has it already; `src`: the ASCII text the tree was parsed from, if so.
    """
    if t is None:
        t = node.type
    if t == "word":
        text = src[node.start_byte : node.end_byte] if src is not None else node_text(node)
        return None if _BARE_SPECIAL.search(text) else text
    if t == "command_name":
        count = node.named_child_count
        if count == 0:
            t = "word"
        elif count == 1:
            node = node.named_children[0]
            t = node.type
        else:
            return None
    if t in _BARE_TYPES:
        text = src[node.start_byte : node.end_byte] if src is not None else node_text(node)
        return None if _BARE_SPECIAL.search(text) else text
    if t == "raw_string":
        body = src[node.start_byte + 1 : node.end_byte - 1] if src is not None else node_text(node)[1:-1]
        return "./" + body if body.startswith("~") else body  # a quoted tilde names a file ~
    if t == "string":
        parts: list[str] = []
        for c in node.named_children:
            if c.type != "string_content":
                return None
            parts.append(node_text(c))
        body = "".join(parts)
        if "\\" in body:
            return None
        return "./" + body if body.startswith("~") else body
    return None


def resolve_word(node: Node, lookup: VarLookup) -> Word:
    plain = plain_value(node)
    if plain is not None:
        return Word([plain], node)
    return resolve_word_slow(node, lookup)


def resolve_word_slow(node: Node, lookup: VarLookup) -> Word:
    """`resolve_word` for a word `plain_value` has no value for: character by character."""
    subs: list[Node] = []
    segs = segments(node, lookup, subs)
    # only an unquoted `{` starts a brace expansion
    expanded = _brace_expand(segs) if "{" in "".join([ch for ch, _ in segs]) else [segs]
    if expanded is None:
        return Word([DYN], node, subs)
    return Word([_finish(s) for s in expanded], node, subs)


def resolve_text(text: str, lookup: VarLookup) -> str:
    """Resolve `$x` in here-document text (no quote removal there); unknown becomes DYN."""

    def sub(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        value = lookup(name) if name else None
        return value if value is not None else DYN

    text = re.sub(r"\$\(.*?\)|`[^`]*`|\$\(\(.*?\)\)", DYN, text, flags=re.S)
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)|\$[^A-Za-z_\s]", sub, text)


def empty_lookup(name: str) -> str | None:
    return None


def mapping_lookup(values: Mapping[str, str]) -> VarLookup:
    return values.get
