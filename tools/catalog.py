"""Every tool opsagent offers, in one registry. New tool modules add themselves here."""

from __future__ import annotations

from tools import control, gpus, host_evidence, hostinfo, p2p, shell, topology
from tools.capacity.tool import plan_layouts
from tools.registry import ToolRegistry
from tools.sglang import bench, flags, launch, status, wait


def default_registry() -> ToolRegistry:
    return ToolRegistry(
        [
            shell.run_command,
            shell.read_file,
            shell.tail_log,
            gpus.observe_gpus,
            topology.observe_topology,
            hostinfo.observe_host,
            host_evidence.read_host_evidence,
            p2p.p2p_check,
            plan_layouts,
            flags.sglang_flags,
            launch.launch_server,
            wait.wait_server,
            status.server_status,
            status.stop_server,
            bench.run_benchmark,
            control.ask_operator,
            control.finish,
        ]
    )
