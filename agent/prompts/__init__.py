"""Prompt templates, in one place, rendered strictly.

Each template is a file beside this module (`system.md.j2`, `user.md.j2`, `observations.md.j2`,
`attempts.md.j2`, `repair.md.j2`, ...). Rendering uses `StrictUndefined`: a template that names
a value the caller did not pass fails loudly instead of printing an empty string to the model.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

PROMPTS_DIR = Path(__file__).parent


@cache
def environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(PROMPTS_DIR),
        undefined=StrictUndefined,
        autoescape=False,  # markdown for a model, not HTML
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def template_name(name: str) -> str:
    return name if name.endswith(".j2") else f"{name}.md.j2"


def render(name: str, **ctx: Any) -> str:
    """Render `name` (`"system"` or `"system.md.j2"`) with exactly the values in `ctx`."""
    return environment().get_template(template_name(name)).render(**ctx)
