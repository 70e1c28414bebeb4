"""One probe's result (tools.sandbox_check, tools.sandbox_escapes)."""

from __future__ import annotations

from pydantic import BaseModel

from tools.target import CommandResult


class Probe(BaseModel):
    name: str
    contained: bool
    detail: str


def text_of(result: CommandResult) -> str:
    """A command's complaint on one line: stderr, else stdout, else its exit code."""
    return " ".join((result.stderr.strip() or result.stdout.strip() or f"exit code {result.exit_code}").split())
