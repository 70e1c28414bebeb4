"""systemctl: `systemctl kill` signals the processes of a unit (its other subcommands are judged by
the rules on `subcommand`); systemd's other control programs: their options that take a value."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.policy.invocation import Ctx, Hook, Invocation, Scope, SignalEffect
from agent.policy.programs.base import wrapper_spec

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis

_SYSTEMD_REMOTE = ("-H", "--host", "-M", "--machine")
# variables whose value it runs as a command line (hooks.py, through programs/table.py)
COMMAND_ENV = frozenset(("SYSTEMD_PAGER", "SYSTEMD_EDITOR"))
# options whose value is a file it writes (outputs.py, through programs/table.py)
OUTPUT_OPTIONS: dict[str, frozenset[str]] = {"journalctl": frozenset(("--cursor-file",))}
# for `subcommand` rules (programs/table.py): options before the subcommand that take the next
# word as their value, so that `systemctl -p status reboot` is not read as `systemctl status`
SUBCOMMAND_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    name: frozenset(opts)
    for names, opts in (
        (
            ("systemctl",),
            (
                *_SYSTEMD_REMOTE, "-t", "--type", "--state", "-p", "--property", "-P", "--what", "-s", "--signal",
                "--kill-whom", "--kill-value", "-n", "--lines", "-o", "--output", "--job-mode", "--root", "--image",
                "--image-policy", "--preset-mode", "--boot-loader-menu", "--boot-loader-entry", "--reboot-argument",
                "--timestamp", "--message", "--when", "--drop-in", "--check-inhibitors", "--legend",
            ),
        ),
        (
            ("loginctl",),
            (*_SYSTEMD_REMOTE, "-p", "--property", "-P", "-n", "--lines", "-o", "--output", "-s", "--signal",
             "--kill-whom", "--check-inhibitors", "--when"),
        ),
        (
            ("busctl",),
            (*_SYSTEMD_REMOTE, "--address", "--match", "--size", "--timeout", "--augment-creds", "--watch-bind",
             "--destination", "--json", "--expect-reply", "--auto-start", "--allow-interactive-authorization",
             "--limit-messages"),
        ),
        (("hostnamectl", "timedatectl"), (*_SYSTEMD_REMOTE, "-p", "--property", "--json")),
        (("bootctl",), ("--esp-path", "--boot-path", "--root", "--image", "--install-source",
                        "--make-entry-directory", "--entry-token", "--efi-boot-option-description", "--random-seed")),
    )
    for name in names
}  # fmt: skip


def systemctl(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    if "kill" in argv[1:]:
        inv.signals.append(SignalEffect("foreign", "systemctl kill signals a unit's processes"))


# how it wraps the command it runs (wrappers.py, through programs/table.py)
WRAPPERS = {
    "systemd-run": wrapper_spec(
        "--unit -u -p --property --description --slice --uid --gid -E --setenv -M --machine -H --host "
        "--working-directory --on-active --on-boot --on-startup --on-unit-active --on-unit-inactive "
        "--on-calendar --timer-property --path-property --socket-property --nice --service-type "
        "--expand-environment"
    ),
    "systemd-inhibit": wrapper_spec("--what --who --why --mode"),
    "systemd-cat": wrapper_spec("-t --identifier -p --priority --stderr-priority --level-prefix"),
}


# -- unit files: the commands a unit runs when started (hooks.py asks when one is written)

UNIT_FILE = re.compile(r"\.(service|socket|timer|path|mount)$|/systemd/.*\.conf$")
_EXEC_LINE = re.compile(r"^\s*Exec[A-Za-z]*\s*=\s*[-@:+!|]*(.*)$", re.M)


def unit_file_hooks(content: str, path: str) -> list[Hook]:
    """`ExecStart=CMD` and the other `Exec*=` lines of a unit written to `path`."""
    return [
        Hook(f"{m.group(0).split('=')[0].strip()} in {path}", code=m.group(1)) for m in _EXEC_LINE.finditer(content)
    ]
