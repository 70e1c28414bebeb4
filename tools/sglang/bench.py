"""run_benchmark: measure a running server at one or more concurrency levels, as typed numbers.

With SGLang installed on the target, `sglang.bench_serving` runs there (`random-ids` data, so no
download) and writes one JSONL record per run, which is read back; its printed result block is
the fallback. Without it, opsagent's own load generator (tools/sglang/loadgen.py, standard
library only) is sent to the target and run there, or run here against `loadgen_base_url`.
Results can be compared with the goal's targets (aggregate and single-stream tok/s, TTFT).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from tools.registry import ToolContext, ToolOutput, tool
from tools.sglang import loadgen
from tools.sglang.bench_progress import LevelProgress, StreamWatch
from tools.sglang.flags import version_command
from tools.sglang.wait import health_code
from tools.target import OutputListener, Target, TargetFileError, run_watching

Source = Literal["bench_serving-jsonl", "bench_serving-printed", "loadgen"]

PRINTED_START = "Serving Benchmark Result"

# Printed row label -> metric name (bench_serving 0.5.9 .. 0.5.23).
PRINTED_ROWS = {
    "Max request concurrency": "max_concurrency",
    "Successful requests": "completed",
    "Benchmark duration (s)": "duration",
    "Total input tokens": "total_input_tokens",
    "Total generated tokens": "total_output_tokens",
    "Request throughput (req/s)": "request_throughput",
    "Input token throughput (tok/s)": "input_throughput",
    "Output token throughput (tok/s)": "output_throughput",
    "Total token throughput (tok/s)": "total_throughput",
    "Concurrency": "concurrency",
    "Mean E2E Latency (ms)": "mean_e2e_latency_ms",
    "Median E2E Latency (ms)": "median_e2e_latency_ms",
    "Mean TTFT (ms)": "mean_ttft_ms",
    "Median TTFT (ms)": "median_ttft_ms",
    "P99 TTFT (ms)": "p99_ttft_ms",
    "Mean TPOT (ms)": "mean_tpot_ms",
    "Median TPOT (ms)": "median_tpot_ms",
    "P99 TPOT (ms)": "p99_tpot_ms",
    "Mean ITL (ms)": "mean_itl_ms",
    "Median ITL (ms)": "median_itl_ms",
    "P99 ITL (ms)": "p99_itl_ms",
}

REQUIRED = ("output_throughput", "completed", "duration")


class BenchTargets(BaseModel):
    """The goal's numbers; any left None is not checked."""

    aggregate_tok_s: float | None = Field(default=None, description="Best output tok/s over the levels must exceed.")
    single_stream_tok_s: float | None = Field(default=None, description="Output tok/s at concurrency 1 must exceed.")
    max_ttft_ms: float | None = Field(default=None, description="Mean TTFT at every level must stay under.")


class RunBenchmarkArgs(BaseModel):
    port: int = Field(default=30000, ge=1, le=65535, description="Port of the running server.")
    concurrency: list[int] = Field(default=[1, 64], min_length=1, description="Concurrency levels to measure.")
    input_len: int = Field(default=1024, ge=1, description="Input tokens per request (fixed).")
    output_len: int = Field(default=256, ge=1, description="Output tokens per request (fixed, EOS ignored).")
    num_prompts: int | None = Field(
        default=None, ge=1, description="Requests per level; default max(4 x concurrency, 8)."
    )
    use_loadgen: bool | None = Field(
        default=None,
        description="True: opsagent's load generator; False: bench_serving; None: bench_serving if present.",
    )
    targets: BenchTargets | None = Field(default=None, description="The goal's numbers to compare against.")
    loadgen_base_url: str | None = Field(
        default=None, description="Run the load generator here (operator's machine) against this URL instead."
    )


class BenchLevel(BaseModel):
    concurrency: int
    output_throughput: float
    total_throughput: float | None = None
    request_throughput: float | None = None
    mean_ttft_ms: float | None = None
    median_ttft_ms: float | None = None
    mean_tpot_ms: float | None = None
    mean_itl_ms: float | None = None
    completed: int
    duration: float
    p99_ttft_ms: float | None = None
    median_itl_ms: float | None = None
    failed: int | None = None


class TargetCheck(BaseModel):
    metric: str
    target: float
    measured: float | None
    met: bool


class BenchmarkResult(BaseModel):
    source: Source
    input_len: int
    output_len: int
    levels: list[BenchLevel]
    checks: list[TargetCheck] = Field(default_factory=list)
    targets_met: bool | None = None


class Unparseable(Exception):
    pass


def _number(text: str) -> float | None:
    match = re.match(r"^-?[\d.]+(e[-+]?\d+)?", text.strip(), re.I)
    return float(match.group(0)) if match else None


def level_from_record(record: dict[str, Any], concurrency: int) -> BenchLevel:
    missing = [k for k in REQUIRED if not isinstance(record.get(k), int | float)]
    if missing:
        raise Unparseable(f"benchmark record lacks {', '.join(missing)}")

    def num(key: str) -> float | None:
        value = record.get(key)
        return float(value) if isinstance(value, int | float) else None

    out = float(record["output_throughput"])
    total = num("total_throughput")
    if total is None and isinstance(record.get("input_throughput"), int | float):
        total = out + float(record["input_throughput"])
    conc = record.get("max_concurrency")
    return BenchLevel(
        concurrency=int(conc) if isinstance(conc, int | float) else concurrency,
        output_throughput=out,
        total_throughput=total,
        request_throughput=num("request_throughput"),
        mean_ttft_ms=num("mean_ttft_ms"),
        median_ttft_ms=num("median_ttft_ms"),
        mean_tpot_ms=num("mean_tpot_ms"),
        mean_itl_ms=num("mean_itl_ms"),
        completed=int(record["completed"]),
        duration=float(record["duration"]),
        p99_ttft_ms=num("p99_ttft_ms"),
        median_itl_ms=num("median_itl_ms"),
        failed=int(record["failed"]) if isinstance(record.get("failed"), int) else None,
    )


def parse_jsonl(text: str, concurrency: int) -> BenchLevel:
    """The last record of a bench_serving --output-file."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise Unparseable(f"benchmark output file holds a line that is not JSON: {line[:120]!r}") from exc
        if not isinstance(record, dict):
            raise Unparseable("benchmark output file's last line is not a JSON object")
        return level_from_record(record, concurrency)
    raise Unparseable("benchmark output file is empty")


def parse_printed(text: str, concurrency: int) -> BenchLevel:
    """The printed `Serving Benchmark Result` block (the last one when there are several)."""
    start = text.rfind(PRINTED_START)
    if start < 0:
        raise Unparseable("no 'Serving Benchmark Result' block in the benchmark output")
    record: dict[str, Any] = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("=" * 10):
            break
        label, sep, value = line.partition(":")
        if not sep:
            continue
        key = PRINTED_ROWS.get(label.strip())
        number = _number(value)
        if key is not None and number is not None:
            record[key] = number
    return level_from_record(record, concurrency)


def compare(levels: list[BenchLevel], targets: BenchTargets) -> list[TargetCheck]:
    checks: list[TargetCheck] = []
    if targets.aggregate_tok_s is not None:
        best = max((lv.output_throughput for lv in levels), default=None)
        checks.append(
            TargetCheck(
                metric="aggregate output tok/s (best level)",
                target=targets.aggregate_tok_s,
                measured=best,
                met=best is not None and best >= targets.aggregate_tok_s,
            )
        )
    if targets.single_stream_tok_s is not None:
        single = next((lv.output_throughput for lv in levels if lv.concurrency == 1), None)
        checks.append(
            TargetCheck(
                metric="single-stream output tok/s (concurrency 1)",
                target=targets.single_stream_tok_s,
                measured=single,
                met=single is not None and single >= targets.single_stream_tok_s,
            )
        )
    if targets.max_ttft_ms is not None:
        worst = max((lv.mean_ttft_ms for lv in levels if lv.mean_ttft_ms is not None), default=None)
        checks.append(
            TargetCheck(
                metric="mean TTFT ms (worst level)",
                target=targets.max_ttft_ms,
                measured=worst,
                met=worst is not None and worst <= targets.max_ttft_ms,
            )
        )
    return checks


def bench_serving_command(
    port: int, input_len: int, output_len: int, num_prompts: int, concurrency: int, output_file: str
) -> str:
    return (
        f"python3 -m sglang.bench_serving --backend sglang --base-url http://127.0.0.1:{port} "
        f"--dataset-name random-ids --random-input-len {input_len} --random-output-len {output_len} "
        f"--random-range-ratio 1.0 --num-prompts {num_prompts} --max-concurrency {concurrency} "
        f"--output-file {shlex.quote(output_file)}"
    )


def loadgen_command(work_dir: str, port: int, input_len: int, output_len: int, num_prompts: int, conc: int) -> str:
    return (
        f"python3 {shlex.quote(work_dir + '/loadgen.py')} --base-url http://127.0.0.1:{port} "
        f"--input-len {input_len} --output-len {output_len} --num-prompts {num_prompts} --concurrency {conc}"
    )


def _run_timeout(num_prompts: int, output_len: int) -> float:
    # Generous: even 5 tok/s per stream at concurrency 1 finishes; the server's own timeouts come first.
    return min(7200.0, 600.0 + num_prompts * output_len / 5.0)


def _bench_serving_level(
    target: Target, args: RunBenchmarkArgs, conc: int, prompts: int, listen: OutputListener
) -> tuple[BenchLevel, Source]:
    output_file = f"{target.work_dir}/bench/c{conc}-in{args.input_len}-out{args.output_len}-{int(target.now())}.jsonl"
    target.write_file(output_file, b"")  # creates bench/; bench_serving appends to it
    command = bench_serving_command(args.port, args.input_len, args.output_len, prompts, conc, output_file)
    result = run_watching(target, command, timeout=_run_timeout(prompts, args.output_len), on_output=listen)
    text = ""
    try:
        text = target.read_file(output_file, max_bytes=4 * 1024 * 1024).decode("utf-8", errors="replace")
    except TargetFileError:
        text = ""
    if text.strip():
        return parse_jsonl(text, conc), "bench_serving-jsonl"
    try:
        return parse_printed(result.stdout, conc), "bench_serving-printed"
    except Unparseable as exc:
        said = (result.stderr.strip() or result.stdout.strip()).splitlines()[-3:]
        raise Unparseable(f"{exc} (exit {result.exit_code}): {' | '.join(said)}") from exc


def _loadgen_level(
    target: Target, args: RunBenchmarkArgs, conc: int, prompts: int, listen: OutputListener
) -> BenchLevel:
    if args.loadgen_base_url:
        record = loadgen.run_load(
            args.loadgen_base_url,
            input_len=args.input_len,
            output_len=args.output_len,
            num_prompts=prompts,
            concurrency=conc,
            progress=lambda line: listen("stderr", line + "\n"),
        )
        return level_from_record(record, conc)
    command = loadgen_command(target.work_dir, args.port, args.input_len, args.output_len, prompts, conc)
    result = run_watching(target, command, timeout=_run_timeout(prompts, args.output_len), on_output=listen)
    lines = [line for line in result.stdout.strip().splitlines() if line.startswith("{")]
    if not lines:
        said = (result.stderr.strip() or result.stdout.strip()).splitlines()[-3:]
        raise Unparseable(f"the load generator printed no result (exit {result.exit_code}): {' | '.join(said)}")
    try:
        record = json.loads(lines[-1])
    except json.JSONDecodeError as exc:
        raise Unparseable(f"the load generator printed broken JSON: {lines[-1][:120]!r}") from exc
    return level_from_record(record, conc)


def _use_loadgen(target: Target, args: RunBenchmarkArgs) -> bool:
    if args.use_loadgen is not None:
        return args.use_loadgen
    if args.loadgen_base_url:
        return True
    return not target.run(version_command("python3"), timeout=120).ok


def measure(
    target: Target, args: RunBenchmarkArgs, on_progress: Callable[[str], None] | None = None
) -> BenchmarkResult:
    """`on_progress` hears which level runs, while it runs the requests done and the throughput so
    far (read from the client's output as it streams), and the throughput of the levels done."""
    use_loadgen = _use_loadgen(target, args)
    if use_loadgen and not args.loadgen_base_url:
        target.write_file(f"{target.work_dir}/loadgen.py", Path(loadgen.__file__).read_bytes())
    levels: list[BenchLevel] = []
    source: Source = "loadgen"
    for i, conc in enumerate(args.concurrency, 1):
        prompts = args.num_prompts or max(4 * conc, 8)
        done = ", ".join(
            f"{lv.completed} requests at concurrency {lv.concurrency}: {lv.output_throughput:,.0f} tok/s"
            for lv in levels
        )
        after = f"; done: {done}" if done else ""
        heading = f"level {i}/{len(args.concurrency)}: {prompts} requests at concurrency {conc}"
        if on_progress is not None:
            on_progress(heading + after)

        def running(p: LevelProgress, heading: str = heading, after: str = after) -> None:
            if on_progress is not None:
                on_progress(f"{heading}: {p.line()}{after}")

        listen = StreamWatch(args.output_len, running)
        if use_loadgen:
            levels.append(_loadgen_level(target, args, conc, prompts, listen))
        else:
            level, source = _bench_serving_level(target, args, conc, prompts, listen)
            levels.append(level)
    result = BenchmarkResult(source=source, input_len=args.input_len, output_len=args.output_len, levels=levels)
    if args.targets is not None:
        result.checks = compare(levels, args.targets)
        result.targets_met = all(c.met for c in result.checks) if result.checks else None
    return result


def _table(result: BenchmarkResult) -> str:
    def fmt(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}"

    rows = [f"source {result.source}, input {result.input_len}, output {result.output_len} tokens"]
    rows.append("conc | out tok/s | total tok/s | req/s | TTFT mean ms | TPOT mean ms | ITL mean ms | done")
    for lv in result.levels:
        rows.append(
            f"{lv.concurrency} | {fmt(lv.output_throughput)} | {fmt(lv.total_throughput)} | "
            f"{fmt(lv.request_throughput)} | {fmt(lv.mean_ttft_ms)} | {fmt(lv.mean_tpot_ms)} | "
            f"{fmt(lv.mean_itl_ms)} | {lv.completed}"
        )
    for check in result.checks:
        verdict = "met" if check.met else "NOT met"
        rows.append(f"{verdict}: {check.metric} {fmt(check.measured)} (goal {check.target:g})")
    return "\n".join(rows)


@tool()
def run_benchmark(ctx: ToolContext, args: RunBenchmarkArgs) -> ToolOutput:
    """Benchmark the running server at each concurrency level with fixed input/output lengths
    (sglang.bench_serving with random-ids data, or opsagent's own OpenAI-completions load
    generator where bench_serving is missing); returns output/total tok/s, req/s, TTFT, TPOT, ITL
    per level and, when targets are given, whether the goal's numbers are met."""
    base = args.loadgen_base_url
    if base is None and health_code(ctx.target, args.port) != 200:
        return ToolOutput(
            tool="run_benchmark",
            ok=False,
            summary=f"no server answers /health on port {args.port} of {ctx.target.describe()}: "
            "launch_server and wait_server first",
            error_kind="server_down",
        )
    try:
        result = measure(ctx.target, args, on_progress=ctx.report)
    except Unparseable as exc:
        return ToolOutput(tool="run_benchmark", ok=False, summary=str(exc), error_kind="unparseable_output")
    failed = [lv.concurrency for lv in result.levels if lv.completed == 0]
    data = result.model_dump(mode="json")
    if failed:
        return ToolOutput(
            tool="run_benchmark",
            ok=False,
            summary=f"no request completed at concurrency {failed}\n{_table(result)}",
            data=data,
            error_kind="benchmark_failed",
        )
    return ToolOutput(tool="run_benchmark", ok=True, summary=_table(result), data=data)
