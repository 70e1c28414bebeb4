"""SGLang servers and torchrun: the GPUs they take (`--tp`, `--base-gpu-id`, CUDA_VISIBLE_DEVICES)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.policy.facts import DYN, GLOB
from agent.policy.invocation import Ctx, Invocation, Scope, WriteEffect
from agent.policy.programs.base import opt_value, parse_gpu_list
from agent.policy.programs.destinations import environment_destinations, flag_destinations

if TYPE_CHECKING:
    from agent.policy.analysis import Analysis


# SGLang modules that only talk to a server: no GPU of their own
SGLANG_CLIENTS = frozenset(("sglang.bench_serving", "sglang.check_env", "sglang.version"))


HF_CACHE_ENV = ("HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE")


def _int(text: str | None, default: int) -> int | None:
    if text is None:
        return default
    return int(text) if text.isdigit() else None


def sglang_gpus(args: list[str], env: dict[str, str]) -> frozenset[str]:
    """Which physical GPUs an SGLang launch would take: base id, tp*dp (*pp), CUDA_VISIBLE_DEVICES."""
    tp = _int(opt_value(args, ("--tp", "--tp-size", "--tensor-parallel-size")), 1)
    dp = _int(opt_value(args, ("--dp", "--dp-size", "--data-parallel-size")), 1)
    pp = _int(opt_value(args, ("--pp", "--pp-size", "--pipeline-parallel-size")), 1)
    base = _int(opt_value(args, ("--base-gpu-id",)), 0)
    step = _int(opt_value(args, ("--gpu-id-step",)), 1)
    if None in (tp, dp, pp, base, step):
        return frozenset({"all"})
    assert tp is not None and dp is not None and pp is not None and base is not None and step is not None
    if "--enable-dp-attention" in args:
        dp = 1  # DP attention splits the TP group's GPUs; it adds none (`--tp 8 --dp 8` is 8 GPUs)
    logical = [base + k * step for k in range(tp * dp * pp)]
    return _map_visible(logical, env)


# Servers whose whole command line is one argparse parser (no script or remainder after it), so
# a help option anywhere means help and exit: `--tp 8 --help` starts nothing.
ARGPARSE_SERVERS = frozenset({"sglang.launch_server"})


def asks_for_help(args: list[str]) -> bool:
    """`-h`/`--help` as a word of its own; abbreviations (`--he`) stay launches: the gate does not
    resolve them against each version's flags, so it fails closed there."""
    return any(a in ("-h", "--help") for a in args)


def torchrun_gpus(args: list[str], env: dict[str, str]) -> frozenset[str]:
    n = opt_value(args, ("--nproc-per-node", "--nproc_per_node"))
    if n is None or not n.isdigit():
        return frozenset({"all"})
    return _map_visible(list(range(int(n))), env)


def _map_visible(logical: list[int], env: dict[str, str]) -> frozenset[str]:
    cvd = env.get("CUDA_VISIBLE_DEVICES")
    if cvd is None:
        return frozenset(str(i) for i in logical)
    visible_ids = [p.strip() for p in cvd.split(",") if p.strip()]
    if DYN in cvd or GLOB in cvd:
        return frozenset({"all"})
    out: set[str] = set()
    for i in logical:
        if i >= len(visible_ids):
            out.add("all")
        else:
            out |= parse_gpu_list(visible_ids[i])
    return frozenset(out)


def sglang_module(
    an: Analysis, inv: Invocation, module: str, rest: list[str], env: dict[str, str], scope: Scope, ctx: Ctx
) -> bool:
    """`python -m sglang.X`/`torch.distributed.run`: the GPUs and folders it takes. False: it
    stops at once (a server asked for its help), and nothing else it would do counts."""
    if module in ARGPARSE_SERVERS and asks_for_help(rest):
        return False  # argparse prints the help and exits before the server starts: no GPU, no file
    if module.startswith("sglang.") and module not in SGLANG_CLIENTS:
        inv.gpus = sglang_gpus(rest, env)  # a server, a one-batch benchmark: they take GPUs
        if opt_value(rest, ("--config",)) is not None:
            inv.gpus = frozenset({"all"})  # a config file may name any GPUs the gate cannot see
        folders = [
            opt_value(rest, (opt,))
            for opt in ("--download-dir", "--log-requests-folder", "--crash-dump-folder", "--result-filename")
        ]
        for d in [*folders, *(env.get(k) for k in HF_CACHE_ENV)]:
            if d:  # the model is downloaded (written) there
                inv.writes.append(WriteEffect(an._path(d.rstrip("/") + "/" + GLOB)))
    if module.startswith("sglang."):
        # its other flags by class: a URL is a request, a path a read, an output's path a write
        # (`--debug-tensor-dump-output-folder`, `--chat-template /etc/systemd/system/x.service`)
        flag_destinations(an, inv, rest, scope, ctx)
    elif module == "torch.distributed.run":
        inv.gpus = torchrun_gpus(rest, env)
    if module in SGLANG_CLIENTS:
        out = opt_value(rest, ("--output-file",))
        if out:
            inv.writes.append(WriteEffect(an._path(out)))
    return True


def sglang(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    if len(argv) > 1 and argv[1] in ("serve", "launch_server"):
        sglang_module(an, inv, "sglang.launch_server", argv[2:], env, scope, ctx)
    environment_destinations(an, inv, env, scope, ctx)


def torchrun(an: Analysis, inv: Invocation, argv: list[str], env: dict[str, str], scope: Scope, ctx: Ctx) -> None:
    if argv[1:] in (["-h"], ["--help"]):
        return  # torchrun's own help; any other word may be the script, whose `--help` is its own
    inv.gpus = torchrun_gpus(argv[1:], env)
    environment_destinations(an, inv, env, scope, ctx)
    positional = [a for a in argv[1:] if not a.startswith("-")]
    if positional:
        inv.reads.append(an._path(positional[-1]))
