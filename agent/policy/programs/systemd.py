"""systemctl: `systemctl kill` signals the processes of a unit (its other subcommands are judged by
the rules on `subcommand`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.policy.invocation import Ctx, Invocation, Scope, SignalEffect

if TYPE_CHECKING:
    from agent.policy.effects import Analyser


def systemctl(an: Analyser, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    if "kill" in argv[1:]:
        inv.signals.append(SignalEffect("foreign", "systemctl kill signals a unit's processes"))
