"""Text that others wrote, made safe to print on an operator's terminal.

A goal or a reply typed on the web page, a model's report, a host's output: any of them may hold
control characters and escape sequences (OSC 52 writes the clipboard, OSC 0 the window title,
OSC 8 makes links, CSI 2J clears the screen, a bare CR rewrites a line, bidi overrides reorder
what is shown). `safe` makes each visible instead (`\\x1b]52;...`), keeping newlines and tabs.
`SafeRender` does the same for everything a rich console prints, its own colours excepted: every
CLI output of such text goes through `safe`, directly (typer.echo) or through the console.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderHook, RenderResult
from rich.segment import Segment

# C0 controls but TAB and LF, DEL, C1 controls; bidi embeddings, overrides and isolates
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: str) -> str:
    """`text` with every control character and escape sequence shown as text, not obeyed."""
    return _UNSAFE.sub(_visible, text)


class SafeRender:
    """A renderable that renders another and passes its text through `safe`: rich's own styles are
    kept (they are not in the text), the text's escapes are shown."""

    def __init__(self, inner: RenderableType) -> None:
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for segment in console.render(self.inner, options):
            if segment.control:  # rich's own cursor moves, never text someone wrote
                yield segment
            else:
                yield Segment(safe(segment.text), segment.style, segment.control)


class SafeHook(RenderHook):
    """Every renderable a console prints goes through SafeRender."""

    def process_renderables(self, renderables: list[Any]) -> list[Any]:
        return [SafeRender(r) for r in renderables]


def make_safe(console: Console) -> Console:
    console.push_render_hook(SafeHook())
    return console


def safe_lines(lines: Iterable[str]) -> Iterable[str]:
    return (safe(line) for line in lines)
