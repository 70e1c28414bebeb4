"""p2p_check: does GPU-to-GPU copying actually deliver the right bytes, pair by pair?

"The driver says P2P works" is not evidence (an IOMMU in translation mode lets
`can_device_access_peer` return True while copies arrive corrupted). This tool sends a small
PyTorch script (tools/scripts/p2p_check.py) to the target's work directory, runs it there on the
agent's GPUs, and reports for each ordered pair: claimed access, copy OK, mismatch count and
bandwidth.
"""

from __future__ import annotations

import json
from importlib import resources

from pydantic import BaseModel, Field

from tools.registry import ToolContext, ToolOutput, tool
from tools.target import TargetFileError


class P2PCheckArgs(BaseModel):
    gpus: list[int] = Field(description="nvidia-smi indexes of the agent's GPUs to test (at least two).")
    size_mb: int = Field(default=64, ge=1, le=4096, description="Megabytes copied per pair and iteration.")


class PairResult(BaseModel):
    src: int
    dst: int
    claimed_access: bool
    copy_ok: bool
    mismatches: int | None = None
    bandwidth_gbps: float | None = None
    error: str | None = None


class P2PResult(BaseModel):
    gpus: list[int]
    size_mb: int
    pairs: list[PairResult]
    all_ok: bool
    claimed_but_corrupt: list[str] = Field(
        default_factory=list, description="Pairs the driver allows whose copies arrive wrong: 'src->dst'."
    )
    torch: str | None = None


def script_path(work_dir: str) -> str:
    return f"{work_dir}/p2p_check.py"


def check_command(work_dir: str, gpus: list[int], size_mb: int) -> str:
    return f"python3 {script_path(work_dir)} --gpus {','.join(str(g) for g in gpus)} --size-mb {size_mb}"


def script_source() -> bytes:
    return resources.files("tools.scripts").joinpath("p2p_check.py").read_bytes()


def parse_output(stdout: str) -> dict[str, object]:
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            data = json.loads(line)
            if isinstance(data, dict):
                return data
    raise ValueError("no JSON object in the output")


@tool(read_only=True)
def p2p_check(ctx: ToolContext, args: P2PCheckArgs) -> ToolOutput:
    """Test GPU peer-to-peer copies for data integrity: for every ordered pair of the given GPUs,
    copy a known pattern and compare. Reports claimed access (can_device_access_peer), copy OK,
    mismatch count and bandwidth per pair. Use it before trusting P2P/NCCL on a new host."""
    if len(set(args.gpus)) < 2:
        return ToolOutput(
            tool="p2p_check",
            ok=False,
            summary="p2p_check needs at least two distinct GPUs",
            error_kind="bad_argument",
        )
    target = ctx.target
    try:
        target.write_file(script_path(target.work_dir), script_source())
    except TargetFileError as exc:
        return ToolOutput(tool="p2p_check", ok=False, summary=str(exc), error_kind="file_error")
    command = check_command(target.work_dir, args.gpus, args.size_mb)
    result = target.run(command, timeout=600)
    try:
        raw = parse_output(result.stdout)
    except (ValueError, json.JSONDecodeError):
        said = (result.stderr.strip() or result.stdout.strip()).splitlines()[-3:]
        return ToolOutput(
            tool="p2p_check",
            ok=False,
            summary=f"p2p_check printed no result (exit {result.exit_code}): {' | '.join(said)}",
            error_kind="unparseable_output",
        )
    if raw.get("error"):
        return ToolOutput(
            tool="p2p_check",
            ok=False,
            summary=f"p2p_check could not run: {raw['error']}",
            error_kind="p2p_check_failed",
            data={"error": raw["error"]},
        )
    try:
        report = P2PResult.model_validate(
            {**raw, "all_ok": False, "claimed_but_corrupt": [], "gpus": args.gpus, "size_mb": args.size_mb}
        )
    except ValueError as exc:
        return ToolOutput(
            tool="p2p_check", ok=False, summary=f"p2p_check output: {exc}", error_kind="unparseable_output"
        )
    report.claimed_but_corrupt = [f"{p.src}->{p.dst}" for p in report.pairs if p.claimed_access and not p.copy_ok]
    report.all_ok = bool(report.pairs) and all(p.copy_ok for p in report.pairs)
    lines = [
        f"GPU{p.src}->GPU{p.dst}: claimed {'yes' if p.claimed_access else 'no'}, "
        + ("copy OK" if p.copy_ok else f"CORRUPT ({p.mismatches} mismatches)" if p.mismatches else "copy failed")
        + (f", {p.bandwidth_gbps:g} GB/s" if p.bandwidth_gbps is not None else "")
        + (f", error: {p.error}" if p.error else "")
        for p in report.pairs
    ]
    head = "all pairs copy correctly" if report.all_ok else "P2P copies are NOT reliable"
    if report.claimed_but_corrupt:
        head += f"; the driver claims access but data arrives wrong on {', '.join(report.claimed_but_corrupt)}"
    return ToolOutput(
        tool="p2p_check",
        ok=True,
        summary=head + "\n" + "\n".join(lines),
        data=report.model_dump(mode="json"),
    )
