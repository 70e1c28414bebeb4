"""launch_server: structured arguments -> a checked SGLang command line, started detached with its log.

Everything that can be checked before a model loads is checked first, each failure typed:
`already_running`, `model_path_missing`, `tp_exceeds_gpus`, `bad_argument` (unknown GPU index, or
a flag the installed SGLang rejects, with argparse's own message), `port_in_use`,
`sglang_missing`. Only then is the command started through `Target.start_detached`.
"""

from __future__ import annotations

import re
import shlex

from pydantic import BaseModel, Field, field_validator

from tools.gpus import NoNvidiaDriver, UnparseableOutput, query_smi
from tools.registry import ToolContext, ToolOutput, tool
from tools.sglang.flags import INTERPRETER_PATTERN, FlagSet, HelpUnparseable, SglangMissing, learn
from tools.target import ProcessNotOwned, Target, TargetError


class LaunchServerArgs(BaseModel):
    model_path: str = Field(description="Local path of the model directory on the target.")
    tp: int = Field(default=1, ge=1, description="Tensor-parallel size (--tp-size).")
    dp: int = Field(default=1, ge=1, description="Data-parallel size (--dp-size).")
    ep: int | None = Field(default=None, ge=1, description="Expert-parallel size (--ep-size); omitted when None.")
    port: int = Field(default=30000, ge=1, le=65535, description="HTTP port of the server.")
    host: str = Field(default="127.0.0.1", description="Address the server binds to.")
    gpus: list[int] | None = Field(
        default=None, description="Physical GPU indexes to use (becomes CUDA_VISIBLE_DEVICES); None: all."
    )
    attention_backend: str | None = Field(default=None, description="--attention-backend value.")
    decode_backend: str | None = Field(
        default=None,
        description="Sparse-attention (DSA/NSA) decode backend; sent as --dsa-decode-backend or "
        "--nsa-decode-backend, whichever the installed SGLang accepts.",
    )
    moe_runner_backend: str | None = Field(default=None, description="--moe-runner-backend value.")
    kv_cache_dtype: str | None = Field(default=None, description="--kv-cache-dtype value.")
    mem_fraction_static: float | None = Field(
        default=None,
        gt=0,
        lt=1,
        description="--mem-fraction-static: share of GPU memory for weights + KV cache.",
    )
    cuda_graph_max_bs: int | None = Field(
        default=None,
        ge=1,
        description="Largest CUDA-graph batch: --cuda-graph-max-bs (or its rename -decode).",
    )
    disable_cuda_graph: bool = Field(default=False, description="Pass --disable-cuda-graph.")
    disable_custom_all_reduce: bool = Field(default=False, description="Pass --disable-custom-all-reduce.")
    extra_args: list[str] = Field(default_factory=list, description="More launch arguments, one word per item.")
    env: dict[str, str] = Field(
        default_factory=dict,
        description="Environment for the server, e.g. NCCL_P2P_DISABLE=1, NCCL_DEBUG=INFO.",
    )
    unset_env: list[str] = Field(
        default_factory=list,
        description="Variables the server starts without, even where the host's login shell exports them.",
    )
    name: str = Field(default="sglang", description="Name of the process (its log is logs/<name>.log).")
    command: str | None = Field(
        default=None, description="A custom command line instead of SGLang (tests, non-SGLang servers)."
    )
    python: str = Field(
        default="python3",
        pattern=INTERPRETER_PATTERN,
        description="Python interpreter on the target that has SGLang (a program name or path).",
    )

    @field_validator("env", "unset_env")
    @classmethod
    def _variable_names(cls, names: dict[str, str] | list[str]) -> dict[str, str] | list[str]:
        bad = [k for k in names if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k)]
        if bad:
            raise ValueError(f"environment variable names must be letters, digits and '_': {bad}")
        return names


class LaunchRefused(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def model_check_command(model_path: str) -> str:
    return f"test -e {shlex.quote(model_path)}"


def port_check_command(port: int) -> str:
    return f"ss -ltnH 'sport = :{port}'"


def port_taken(target: Target, port: int) -> bool | None:
    """True when something listens on `port`; None when `ss` cannot tell."""
    result = target.run(port_check_command(port), timeout=30)
    if not result.ok:
        return None
    return bool(result.stdout.strip())


def sglang_argv(args: LaunchServerArgs, flags: FlagSet) -> list[str]:
    """The launch_server arguments for `args`, spelled the way this SGLang version spells them."""
    argv = ["--model-path", args.model_path, "--tp-size", str(args.tp)]
    if args.dp > 1:
        argv += ["--dp-size", str(args.dp)]
    if args.ep is not None:
        argv += ["--ep-size", str(args.ep)]
    argv += ["--host", args.host, "--port", str(args.port)]
    if args.attention_backend:
        argv += ["--attention-backend", args.attention_backend]
    if args.decode_backend:
        flag = flags.first_known("--dsa-decode-backend", "--nsa-decode-backend")
        if flag is None:
            raise LaunchRefused(
                "bad_argument",
                f"SGLang {flags.version} has neither --dsa-decode-backend nor --nsa-decode-backend; "
                "drop decode_backend",
            )
        argv += [flag, args.decode_backend]
    if args.moe_runner_backend:
        argv += ["--moe-runner-backend", args.moe_runner_backend]
    if args.kv_cache_dtype:
        argv += ["--kv-cache-dtype", args.kv_cache_dtype]
    if args.mem_fraction_static is not None:
        argv += ["--mem-fraction-static", f"{args.mem_fraction_static:g}"]
    if args.cuda_graph_max_bs is not None:
        flag = flags.first_known("--cuda-graph-max-bs", "--cuda-graph-max-bs-decode") or "--cuda-graph-max-bs"
        argv += [flag, str(args.cuda_graph_max_bs)]
    if args.disable_cuda_graph:
        argv.append("--disable-cuda-graph")
    if args.disable_custom_all_reduce:
        argv.append("--disable-custom-all-reduce")
    return argv + list(args.extra_args)


def sglang_command(python: str, argv: list[str]) -> str:
    return f"{shlex.quote(python)} -m sglang.launch_server " + " ".join(shlex.quote(a) for a in argv)


def server_env(args: LaunchServerArgs) -> dict[str, str]:
    env = dict(args.env)
    if args.gpus is not None:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(str(g) for g in args.gpus)
        # CUDA numbers devices fastest-first by default; nvidia-smi's indexes are PCI order.
        env.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    return env


def _check_gpus(target: Target, args: LaunchServerArgs) -> None:
    if args.gpus is not None and len(set(args.gpus)) != len(args.gpus):
        raise LaunchRefused("bad_argument", f"gpus lists a GPU twice: {args.gpus}")
    try:
        present = [g.index for g in query_smi(target)]
    except (NoNvidiaDriver, UnparseableOutput):
        present = None
    if args.gpus is not None and present is not None:
        unknown = [g for g in args.gpus if g not in present]
        if unknown:
            raise LaunchRefused("bad_argument", f"GPU(s) {unknown} do not exist; the host has {present}")
    allowed = len(args.gpus) if args.gpus is not None else (len(present) if present is not None else None)
    if allowed is not None and args.tp > allowed:
        where = f"the {allowed} GPU(s) {args.gpus}" if args.gpus is not None else f"the host's {allowed} GPU(s)"
        raise LaunchRefused("tp_exceeds_gpus", f"tp={args.tp} needs {args.tp} GPUs but only {where} are allowed")


def plan(ctx: ToolContext, args: LaunchServerArgs) -> tuple[str, dict[str, str], str | None]:
    """The checked command line, its environment and the SGLang version; raises LaunchRefused."""
    target = ctx.target
    existing = ctx.processes.get(args.name)
    if existing is not None:
        try:
            running = target.process_status(existing).running
        except ProcessNotOwned:
            running = False
        if running:
            raise LaunchRefused(
                "already_running",
                f"{args.name!r} is already running (pid {existing.pid}); stop_server it first",
            )
    checked = target.run(model_check_command(args.model_path), timeout=30)
    if checked.exit_code is None:  # it never finished (dropped link): no evidence the model is missing
        raise TargetError(f"the model path check did not finish on {target.describe()}: {checked.error or 'no exit'}")
    if not checked.ok:
        raise LaunchRefused(
            "model_path_missing",
            f"model path {args.model_path!r} does not exist on {target.describe()}; give a local directory "
            "that holds the model's config.json and weights",
        )
    _check_gpus(target, args)
    version: str | None = None
    if args.command is not None:
        command = args.command
    else:
        try:
            flags = learn(target, args.python)
        except SglangMissing as exc:
            raise LaunchRefused("sglang_missing", str(exc)) from exc
        except HelpUnparseable as exc:
            raise LaunchRefused("unparseable_output", str(exc)) from exc
        version = flags.version
        argv = sglang_argv(args, flags)
        problem = flags.check(argv)
        if problem is not None:
            raise LaunchRefused("bad_argument", f"SGLang {version} would refuse this launch: {problem}")
        command = sglang_command(args.python, argv)
    if port_taken(target, args.port):
        raise LaunchRefused("port_in_use", f"port {args.port} is already taken on {target.describe()}; pick another")
    return command, server_env(args), version


@tool()
def launch_server(ctx: ToolContext, args: LaunchServerArgs) -> ToolOutput:
    """Start an SGLang server (or a custom command) detached, with its log in the work directory.

    The launch is checked first against the installed SGLang's own flag set, the model path, the
    allowed GPUs and the port; each refusal comes back as a typed error. Follow with wait_server."""
    try:
        command, env, version = plan(ctx, args)
    except LaunchRefused as exc:
        return ToolOutput(tool="launch_server", ok=False, summary=str(exc), error_kind=exc.kind)
    try:
        process = ctx.target.start_detached(command, name=args.name, env=env, unset=args.unset_env)
    except (TargetError, ValueError) as exc:
        return ToolOutput(tool="launch_server", ok=False, summary=str(exc), error_kind="start_failed")
    shown = " ".join([*(f"-u {k}" for k in args.unset_env), *(f"{k}={v}" for k, v in env.items()), command])
    shown = f"env {shown}" if args.unset_env else shown
    return ToolOutput(
        tool="launch_server",
        ok=True,
        summary=f"started {args.name} (pid {process.pid}), log {process.log_path}\n$ {shown}",
        data={
            "name": args.name,
            "command": command,
            "env": env,
            "unset_env": list(args.unset_env),
            "pid": process.pid,
            "log_path": process.log_path,
            "port": args.port,
            "sglang_version": version,
        },
        started=[process],
    )
