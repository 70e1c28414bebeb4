"""`opsagent doctor --target TARGET`: connect, check, print what the target has.

Exit 0 when the target can be used, 1 when it cannot (unreachable, refused host key or user
key, no writable work directory), 2 when --target names nothing usable.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tools.doctor import Check, DoctorReport, doctor
from tools.target import Target, TargetError


def _open(target: str, identity: Path | None, accept_new_host_key: bool) -> Target:
    if target.startswith("ssh://"):
        from tools.ssh.config import SSHOptions
        from tools.ssh.target import SSHTarget

        return SSHTarget.connect(target, SSHOptions(identity=identity, accept_new_host_key=accept_new_host_key))
    from agent.loop.targets import TargetSpecError, open_target

    try:
        return open_target(target, identity=identity, accept_new_host_key=accept_new_host_key)
    except TargetSpecError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc


def doctor_command(
    target: Annotated[str, typer.Option("--target", help="lab:NAME, local, or ssh://user@host[:port]")],
    identity: Annotated[
        Path | None,
        typer.Option("--identity", help="private key for ssh:// targets (default: agent, ~/.ssh)"),
    ] = None,
    accept_new_host_key: Annotated[
        bool,
        typer.Option(
            "--accept-new-host-key",
            help="trust an unknown SSH host key on first use and record its fingerprint",
        ),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Check that a target can be used and print what it has (Python, SGLang, GPUs, sudo)."""
    try:
        opened = _open(target, identity, accept_new_host_key)
    except TargetError as exc:
        report = DoctorReport(
            target=target, checks=[Check(name="connectivity", status="fail", detail=str(exc), required=True)]
        )
    else:
        try:
            report = doctor(opened)
        finally:
            opened.close()
    if json_out:
        typer.echo(
            json.dumps(
                {**report.model_dump(mode="json"), "usable": report.usable, "usable_for": report.usable_for()},
                indent=2,
            )
        )
    else:
        typer.echo(report.render())
    if not report.usable:
        raise typer.Exit(1)
