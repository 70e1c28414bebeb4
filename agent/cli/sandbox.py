"""`opsagent sandbox check --target T [--json]`: show with harmless probes what the sandbox contains.

Exit 0 when every probe shows what the sandbox promises, 1 when one does not (or the target has
no working sandbox: the report says so), 2 when the target or a policy file cannot be used.

`opsagent sandbox exec --target T [--policy P] -- CMD`: run CMD as the agent's command runner
would (tools.sandbox_exec), without the gate; exits with its code (124: timed out).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from agent.loop.targets import TargetSpecError, open_target, sandbox_spec, sandbox_status
from agent.policy.loader import PolicyLoadError
from agent.policy.policyset import load_policy_set
from tools.sandbox import DEFAULT_PORTS
from tools.sandbox_check import Probe, run_probes
from tools.sandbox_exec import DEFAULT_TIMEOUT_S, command_line, exec_command, exit_status
from tools.target import TargetError

# the options check and exec share: a target, the policy whose sandbox applies, how to reach it
TargetOpt = Annotated[str, typer.Option("--target", help="local, ssh://user@host[:port] or lab:NAME")]
PolicyOpt = Annotated[
    list[Path] | None, typer.Option("--policy", "-p", help="policy file whose sandbox settings apply (repeatable)")
]
IdentityOpt = Annotated[Path | None, typer.Option("--identity", help="private key for ssh:// targets")]
AcceptOpt = Annotated[bool, typer.Option("--accept-new-host-key", help="trust an unknown SSH host key on first use")]

sandbox_app = typer.Typer(
    help="Check what the sandbox contains on a target.", no_args_is_help=True, add_completion=False
)


@sandbox_app.command("check")
def check_command(
    target: TargetOpt,
    policy: PolicyOpt = None,
    identity: IdentityOpt = None,
    accept_new_host_key: AcceptOpt = False,
    json_out: Annotated[bool, typer.Option("--json", help='print {"sandbox": ..., "probes": [...]}')] = False,
) -> None:
    """Run harmless probes inside the sandbox: writes to /etc, /sys and /proc/sys fail, no
    capabilities, no_new_privs, only the agent's GPUs in /dev, sudo fails, host processes hidden,
    the work directory writable, loopback networking works."""
    try:
        policies = load_policy_set(policy or [])
        opened = open_target(
            target,
            identity=identity,
            accept_new_host_key=accept_new_host_key,
            sandbox=sandbox_spec(policies, target),
        )
    except (PolicyLoadError, TargetSpecError, TargetError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    modelled = target.startswith("lab:")  # the lab answers as a host would; probes would test the lab
    try:
        status = sandbox_status(opened)
        ports = status.ports if status is not None and status.ports else DEFAULT_PORTS
        probes = [] if modelled else run_probes(opened, status.devices if status is not None else [], ports)
    except TargetError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    finally:
        opened.close()
    line = status.line() if status is not None else "none"
    if json_out:
        typer.echo(json.dumps({"sandbox": line, "probes": [p.model_dump() for p in probes]}, indent=2))
    elif modelled:
        typer.echo(
            f"sandbox on {opened.describe()}: {line}\nthe lab models the sandbox; probes run on hosts (local, ssh://)"
        )
    else:
        typer.echo(_render(opened.describe(), line, probes))
    if not all(p.contained for p in probes):
        raise typer.Exit(1)


@sandbox_app.command("exec")
def exec_cli(
    target: TargetOpt,
    command: Annotated[list[str], typer.Argument(help="the command line, after --", show_default=False)],
    policy: PolicyOpt = None,
    identity: IdentityOpt = None,
    accept_new_host_key: AcceptOpt = False,
    timeout: Annotated[float, typer.Option("--timeout", help="seconds (run_command's timeout_s)")] = DEFAULT_TIMEOUT_S,
) -> None:
    """Run one command as the agent's command runner would: the same sandbox, work directory and
    environment, without the policy gate. Exits with the command's code (124: timed out)."""
    line = command_line(command)
    if not line.strip() or timeout <= 0:
        typer.echo("error: give a command after -- and a --timeout above 0", err=True)
        raise typer.Exit(2)
    try:
        opened = open_target(
            target,
            identity=identity,
            accept_new_host_key=accept_new_host_key,
            sandbox=sandbox_spec(load_policy_set(policy or []), target),
        )
    except (PolicyLoadError, TargetSpecError, TargetError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    streams = {"stdout": sys.stdout, "stderr": sys.stderr}

    def show(stream: str, text: str) -> None:
        streams[stream].write(text)
        streams[stream].flush()

    try:
        result = exec_command(opened, line, on_output=show, timeout=timeout)
    except TargetError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    finally:
        opened.close()
    if not getattr(opened, "streams_output", False):  # a target that gives the output at the end
        show("stdout", result.stdout)
        show("stderr", result.stderr)
    if result.timed_out:
        typer.echo(f"error: timed out after {timeout:g}s", err=True)
    elif result.error:
        typer.echo(f"error: {result.error}", err=True)
    raise typer.Exit(exit_status(result))


def _render(where: str, line: str, probes: list[Probe]) -> str:
    width = max(len(p.name) for p in probes)
    rows = [f"  {'ok ' if p.contained else 'NOT'}  {p.name.ljust(width)}  {p.detail}" for p in probes]
    failed = sum(not p.contained for p in probes)
    verdict = "everything contained" if not failed else f"{failed} probe(s) show something NOT contained"
    return "\n".join([f"sandbox on {where}: {line}", *rows, verdict])
