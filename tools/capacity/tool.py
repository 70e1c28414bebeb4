"""plan_layouts: the memory arithmetic as a tool, for the runbook and the llm decider alike."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tools.capacity import layouts
from tools.capacity.layouts import Interconnect, Plan
from tools.capacity.memory import Workload
from tools.capacity.modeldir import ModelFacts, gib, read_model_dir
from tools.gpus import NoNvidiaDriver, UnparseableOutput, observation_failure, query_smi
from tools.registry import ToolContext, ToolOutput, tool


class PlanLayoutsArgs(BaseModel):
    model_path: str = Field(description="Model directory on the target (config.json, safetensors).")
    gpus: list[int] | None = Field(default=None, description="nvidia-smi indexes the agent may use; None: all.")
    concurrency: int = Field(default=64, ge=1, description="Concurrent requests the goal is measured at.")
    input_len: int = Field(default=1024, ge=1, description="Prompt tokens per request.")
    output_len: int = Field(default=256, ge=1, description="Generated tokens per request.")
    mem_fraction_static: float | None = Field(
        default=None, gt=0, lt=1, description="Fraction to plan at; None: 0.88 (SGLang's usual default)."
    )
    interconnect: Interconnect = Field(
        default="pcie",
        description="nvlink, pcie (P2P works) or no_p2p (topo says NS, or P2P is broken/disabled).",
    )
    kv_cache_dtype: str | None = Field(default=None, description="--kv-cache-dtype planned (fp8_e4m3 halves KV).")
    gpu_memory_gib: float | None = Field(
        default=None, gt=0, description="Memory of one GPU; None: read memory.total from nvidia-smi."
    )


class PlanResult(BaseModel):
    model: ModelFacts
    plan: Plan


def _table(plan: Plan, limit: int = 8) -> str:
    rows = [plan.summary]
    for v in plan.layouts[:limit]:
        mark = f"#{v.rank}" if v.rank else "no"
        detail = v.why[0] if v.why else ""
        frac = f" at {v.fraction:.2f}" if v.fraction and v.fraction > plan.fraction else ""
        rows.append(
            f"{mark:>3} {v.label:<16} {gib(v.memory.weights_gib)}/GPU{frac}; "
            f"agg {v.expected_aggregate:.2f}x single {v.expected_single:.2f}x {detail}".rstrip()
        )
    rows += [f"note: {n}" for n in plan.notes]
    return "\n".join(rows)


@tool(read_only=True)
def plan_layouts(ctx: ToolContext, args: PlanLayoutsArgs) -> ToolOutput:
    """Read the model directory (safetensors index, shard sizes, config.json, du) and the GPUs'
    memory, then judge every TP/PP/DP layout within the given GPUs: weights per GPU, KV cache left
    at the memory fraction and the concurrency it holds, the lowest fraction that fits, why a
    layout does not fit, and a ranking by expected throughput (relative to one replica over the
    most GPUs). `nothing_fits` is true when no layout can even hold the weights."""
    target = ctx.target
    try:
        smi = query_smi(target)
    except (NoNvidiaDriver, UnparseableOutput) as exc:
        if args.gpu_memory_gib is None:
            return observation_failure("plan_layouts", target, exc)
        smi = []
    chosen = [g for g in smi if args.gpus is None or g.index in args.gpus]
    gpus = args.gpus if args.gpus is not None else [g.index for g in smi]
    if args.gpu_memory_gib is not None:
        total = args.gpu_memory_gib
    else:
        totals = [g.memory_total_mib for g in chosen if g.memory_total_mib]
        if not totals:
            return ToolOutput(
                tool="plan_layouts",
                ok=False,
                summary=f"nvidia-smi reports no memory.total for GPU(s) {gpus}",
                error_kind="unparseable_output",
            )
        total = min(totals) / 1024
    # memory someone else holds on the busiest of my GPUs (read before my own server runs)
    foreign = max((g.memory_used_mib or 0 for g in chosen), default=0) / 1024
    facts = read_model_dir(target, args.model_path)
    if not facts.found:
        return ToolOutput(
            tool="plan_layouts",
            ok=False,
            summary="; ".join(facts.notes) or f"{args.model_path} not found",
            data=PlanResult(model=facts, plan=layouts.plan_layouts(facts, gpus, total)).model_dump(mode="json"),
            error_kind="model_path_missing",
        )
    plan = layouts.plan_layouts(
        facts,
        gpus,
        total,
        foreign_gib=foreign if foreign > 0.5 else 0.0,  # idle GPUs show a few hundred MiB of driver state
        fraction=args.mem_fraction_static,
        workload=Workload(concurrency=args.concurrency, input_len=args.input_len, output_len=args.output_len),
        interconnect=args.interconnect,
        kv_dtype=args.kv_cache_dtype,
    )
    return ToolOutput(
        tool="plan_layouts",
        ok=True,
        summary=_table(plan),
        data=PlanResult(model=facts, plan=plan).model_dump(mode="json"),
    )
