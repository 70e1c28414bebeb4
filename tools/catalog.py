"""Every tool opsagent offers, in one registry. New tool modules add themselves here."""

from __future__ import annotations

from tools import control, shell
from tools.registry import ToolRegistry


def default_registry() -> ToolRegistry:
    return ToolRegistry(
        [
            shell.run_command,
            shell.read_file,
            shell.tail_log,
            control.ask_operator,
            control.finish,
        ]
    )
