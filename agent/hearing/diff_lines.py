"""A launch's flags edited as a diff is pasted: "- --tp 8" / "+ --tp 4 --dp 2", "- --enable-torch-compile" /
"+ --disable-custom-all-reduce". A "-" line is a flag taken out, a "+" line one put in; a "-" line whose
flag a "+" line sets again is only the old value. A "-" is also a Markdown bullet, so "-" lines are read
as removals only beside a "+" line, or when the next line takes "that" out ("- --quantization fp8\\nleave
that out"); a bullet of flags stays a bullet. A message of one "-" flag line alone is either, and one that takes out
the very line it puts in says nothing: neither is read."""

from __future__ import annotations

import re

_FLAG = r"--[a-z][a-z0-9-]*"
_PLUS = re.compile(r"^[ \t]*\+[ \t]*(?P<what>(?:--[a-z]|[A-Z][A-Z0-9_]*=)[^\n]*?)[ \t]*$", re.M)
_MINUS = re.compile(rf"^[ \t]*-[ \t]+(?P<flag>{_FLAG})(?:[ \t=]+[^\n]*?)?[ \t]*$", re.M)
# "- --quantization fp8\nleave that out": the bullet's flag is what the next line takes out
_TAKEN_OUT = re.compile(
    rf"^[ \t]*[-*•][ \t]+(?P<flag>{_FLAG})(?:[ \t=]+[^\n]*?)?[ \t]*\n[ \t]*"
    r"(?:drop|remove|lose|kill|leave|take|get\s+rid\s+of)\s+(?:that|it|this)(?:\s+(?:one|flag))?(?:\s+(?:out|off))?\b",
    re.I | re.M,
)


# "- --enable-torch-compile  # not needed": one line, a bullet or a line taken out, and nothing says which
_LONE_MINUS = re.compile(rf"[ \t]*-[ \t]+{_FLAG}(?:[ \t=]+[^\n#;]*?)?[ \t]*(?:[#;][^\n]*)?", re.I)


def undecided(text: str) -> bool:
    """Whether `text` is one "-" flag line alone (a comment after it), or takes out a line it puts in."""
    if _LONE_MINUS.fullmatch(text.strip()):
        return True
    added = {" ".join(m.group("what").split()) for m in _PLUS.finditer(text)}
    return any(" ".join(m.group(0).strip()[1:].split()) in added for m in _MINUS.finditer(text))


# "@@ launch.sh @@": a unified diff's hunk; its lines that start with a space are unchanged context
_HUNK = re.compile(r"^[ \t]*@@[^\n]*@@[^\n]*$", re.M)
_CONTEXT = re.compile(r"^ [ \t]*--[a-z][^\n]*$", re.M)


def read(text: str) -> str:
    """`text` with a pasted diff's lines said as the grammar says them: "don't use --x", "use --y 4"."""
    if _HUNK.search(text):  # a hunk: "-" lines are taken out, context lines said nothing, "+" lines put in
        text = _CONTEXT.sub("", _HUNK.sub("", text)).replace("\\\n", "\n")
        text = re.sub(r"[ \t]*\\[ \t]*$", "", text, flags=re.M)  # a shell line's continuation
        if not _PLUS.search(text):
            return _MINUS.sub(lambda m: f"don't use {m.group('flag')};", text)
    text = _TAKEN_OUT.sub(lambda m: f"don't use {m.group('flag')}", text)
    added = [m.group("what") for m in _PLUS.finditer(text)]
    if not added:
        return text
    put_back = {flag for what in added for flag in re.findall(_FLAG, what)}

    def minus(match: re.Match[str]) -> str:
        flag = match.group("flag")
        return "" if flag in put_back else f"don't use {flag};"

    text = _MINUS.sub(minus, text)
    return _PLUS.sub(lambda m: f"use {m.group('what')};", text)
