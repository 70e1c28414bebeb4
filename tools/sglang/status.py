"""server_status and stop_server: inspect or stop a server this agent started (found by name)."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, Field

from tools.logs import last_lines
from tools.registry import ToolContext, ToolOutput, not_owned, tool
from tools.sglang.wait import health_code
from tools.target import ProcessNotOwned, Target, TargetFileError

DECODE = re.compile(r"Decode batch.*?#running-req: (\d+).*?gen throughput \(token/s\): ([\d.]+)")
PREFILL = re.compile(r"Prefill batch.*?input throughput \(token/s\): ([\d.]+)")

SERVER_INFO_KEYS = (
    "version",
    "status",
    "model_path",
    "tp_size",  # ServerArgs' field names in every release (the long argparse dests never reach /server_info)
    "pp_size",
    "dp_size",
    "ep_size",
    "attention_backend",
    "kv_cache_dtype",
    "mem_fraction_static",
    "max_total_num_tokens",
    "max_running_requests",
    "context_length",
    "port",
)


def server_info_command(port: int) -> str:
    return f"curl -s --max-time 5 http://127.0.0.1:{port}/server_info"


def models_command(port: int) -> str:
    return f"curl -s --max-time 5 http://127.0.0.1:{port}/v1/models"


class ServerStatusArgs(BaseModel):
    port: int = Field(default=30000, ge=1, le=65535, description="Port the server listens on.")
    name: str = Field(default="sglang", description="Name given to launch_server.")


class StopServerArgs(BaseModel):
    name: str = Field(default="sglang", description="Name given to launch_server.")
    grace_s: float = Field(default=30, ge=0, description="Seconds between SIGTERM and SIGKILL.")


class ServerStatus(BaseModel):
    name: str
    owned: bool
    running: bool | None = None
    exit_code: int | None = None
    health: int | None = Field(default=None, description="HTTP status of /health; None when nothing answered.")
    server_info: dict[str, Any] = Field(default_factory=dict)
    models: list[str] = Field(default_factory=list)
    last_gen_throughput: float | None = None
    last_running_requests: int | None = None
    last_input_throughput: float | None = None
    log_tail: list[str] = Field(default_factory=list)


def _json(target: Target, command: str) -> Any:
    result = target.run(command, timeout=15)
    if not result.ok or not result.stdout.strip():
        return None
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError:
        return None


def throughput_from_log(lines: list[str]) -> tuple[float | None, int | None, float | None]:
    """Last decode gen throughput, its running requests, and last prefill input throughput."""
    gen: float | None = None
    running: int | None = None
    prefill: float | None = None
    for line in reversed(lines):
        if gen is None and (m := DECODE.search(line)):
            running, gen = int(m.group(1)), float(m.group(2))
        if prefill is None and (m := PREFILL.search(line)):
            prefill = float(m.group(1))
        if gen is not None and prefill is not None:
            break
    return gen, running, prefill


def read_status(ctx: ToolContext, name: str, port: int) -> ServerStatus:
    target = ctx.target
    process = ctx.processes.get(name)
    status = ServerStatus(name=name, owned=process is not None)
    if process is not None:
        try:
            proc = target.process_status(process)
            status.running, status.exit_code = proc.running, proc.exit_code
        except ProcessNotOwned:
            status.owned = False
        try:
            tail = last_lines(target, process.log_path, 400)
        except TargetFileError:
            tail = []
        status.last_gen_throughput, status.last_running_requests, status.last_input_throughput = throughput_from_log(
            tail
        )
        status.log_tail = tail[-5:]
    status.health = health_code(target, port)
    info = _json(target, server_info_command(port))
    if isinstance(info, dict):
        status.server_info = {k: info[k] for k in SERVER_INFO_KEYS if info.get(k) is not None}
        states = info.get("internal_states")
        if isinstance(states, list) and states and isinstance(states[0], dict):
            gen = states[0].get("last_gen_throughput")
            if isinstance(gen, int | float):
                status.server_info["last_gen_throughput"] = gen
    models = _json(target, models_command(port))
    if isinstance(models, dict) and isinstance(models.get("data"), list):
        status.models = [str(m.get("id")) for m in models["data"] if isinstance(m, dict)]
    return status


@tool(read_only=True)
def server_status(ctx: ToolContext, args: ServerStatusArgs) -> ToolOutput:
    """Report a server's state: whether its process (started by launch_server) runs, /health,
    /server_info (version, parallelism, KV tokens), /v1/models, and the last throughput in its log."""
    status = read_status(ctx, args.name, args.port)
    parts = [
        f"{args.name}: process "
        + ("not started by this agent" if not status.owned else ("running" if status.running else "exited"))
        + (f" (exit {status.exit_code})" if status.exit_code is not None else ""),
        f"/health: {status.health if status.health is not None else 'no answer'}",
    ]
    if status.models:
        parts.append(f"models: {', '.join(status.models)}")
    if status.server_info:
        parts.append("server_info: " + ", ".join(f"{k}={v}" for k, v in status.server_info.items()))
    if status.last_gen_throughput is not None:
        parts.append(f"last decode: {status.last_gen_throughput:g} tok/s, {status.last_running_requests} running")
    up = status.health == 200
    return ToolOutput(
        tool="server_status",
        ok=up,
        summary="\n".join(parts),
        data=status.model_dump(mode="json"),
        error_kind=None if up else "server_down",
    )


@tool()
def stop_server(ctx: ToolContext, args: StopServerArgs) -> ToolOutput:
    """Stop a server this agent started with launch_server (SIGTERM to its process group, SIGKILL
    after grace_s). Processes the agent did not start are refused."""
    process = ctx.processes.get(args.name)
    if process is None:
        return not_owned("stop_server", ctx, args.name)
    try:
        result = ctx.target.stop_process(process, grace_s=args.grace_s)
    except ProcessNotOwned as exc:
        return ToolOutput(tool="stop_server", ok=False, summary=f"refused: {exc}", error_kind="not_owned")
    if result.running:
        return ToolOutput(
            tool="stop_server",
            ok=False,
            summary=f"{args.name} (pid {process.pid}) is still running after the stop",
            error_kind="stop_failed",
            data=result.model_dump(mode="json"),
        )
    return ToolOutput(
        tool="stop_server",
        ok=True,
        summary=f"stopped {args.name} (pid {process.pid}): {result.detail or 'exited'}",
        data=result.model_dump(mode="json"),
        stopped=[args.name],
    )
