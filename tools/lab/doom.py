"""Would a launch fail on this host? The lab's own answer, for grading ("doomed launches").

A launch is doomed when the lab knows it cannot serve: argparse rejects it, CUDA cannot place it,
or its simulated timeline ends in a crash, a hang or corrupted output (a fault rule whose `when`
holds, weights that do not fit, too little memory for the KV cache, a port already taken).
A launch that comes up and is merely too slow is not doomed.

`launch_doom(scenario, args, env)` answers for a config before (or without) launching it, by
simulating its timeline on a quiet copy of the host; the lab records the same answer for every
real launch (`LabTarget.launches`). Physics added to the simulated server (sglang_sim) shows up
here by itself; a rule that needs no simulation belongs in `launch_doom` before the timeline.
"""

from __future__ import annotations

from collections.abc import Mapping

from tools.lab import sglang_flags
from tools.lab.clock import VirtualClock
from tools.lab.host import SimProcess
from tools.lab.launch import build
from tools.lab.scenario import Scenario
from tools.lab.sglang_sim import Server


def server_doom(server: Server) -> str | None:
    """Why this simulated server cannot serve (crash, hang, corruption), or None when it can."""
    fault = f" (fault {server.fault_id})" if server.fault_id else ""
    if server.exit_at is not None:
        return f"exits with code {server.exit_code}{fault}"
    if server.hung_at is not None:
        return f"hangs{fault}"
    if server.corrupted:
        return f"serves corrupted output{fault}"
    return None


def launch_doom(
    scenario: Scenario,
    args: list[str],
    env: Mapping[str, str] | None = None,
    *,
    port_taken: bool = False,
    foreign_mib: Mapping[int, int] | None = None,
) -> str | None:
    """Why `launch_server ARGS` under `env` cannot succeed on this scenario's host, or None."""
    version = scenario.software.sglang
    try:
        ns = sglang_flags.parse(version, args)
    except sglang_flags.ArgumentError as exc:
        return f"rejects its arguments: {exc}"
    cfg = build(scenario, ns, dict(env or {}))
    if isinstance(cfg, str):
        return f"cannot be placed: {cfg}"
    clock = VirtualClock(scenario.host.start)
    proc = SimProcess(1, 1, 1, scenario.host.user, "launch_server", 0.0, "agent")
    return server_doom(Server(scenario, clock, cfg, proc, port_taken, dict(foreign_mib or {})))
