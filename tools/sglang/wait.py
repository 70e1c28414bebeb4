"""wait_server: follow a server's log and /health until it is ready or has failed, and say why.

A failure is classified into one typed cause from the log lines (the most specific cause present
wins: a NaN in sampling also trips a device-side assert, and the NaN is the root), with the lines
that show it as evidence. NCCL `INFO Channel ... via P2P/IPC` / `via SHM` lines (`Ring ...` on NCCL
before 2.4) tell which transport the collectives used, which matters on hosts where P2P is broken.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pydantic import BaseModel, Field

from tools.logs import LogCursor, read_new
from tools.registry import ToolContext, ToolOutput, not_owned, tool
from tools.sglang.diagnosis import error_lines
from tools.target import DetachedProcess, ProcessNotOwned, Target

READY = re.compile(r"The server is fired up and ready to roll!")

# Most specific first: the first cause with a matching line is the diagnosis. Each pattern is
# anchored on the text the real program prints (see tests/corpus, where each comes from).
CAUSES: list[tuple[str, list[re.Pattern[str]]]] = [
    (
        "nan_in_sampling",
        [
            # torch.multinomial's check, raised or as a device-side assert
            re.compile(r"probability tensor contains either"),
            # SGLang's own NaN detection (sampler): "... NaN in the logits." / "... NaN in the probability."
            re.compile(r"Detected errors during sampling!? NaN in the (logits|probability)"),
        ],
    ),
    ("kv_cache_oom", [re.compile(r"Not enough memory\. Please try to increase --mem-fraction-static")]),
    (
        "cuda_oom",
        [
            re.compile(r"CUDA out of memory"),  # PyTorch's caching allocator
            re.compile(r"OutOfMemoryError"),
            re.compile(r"CUDA error: out of memory"),  # the CUDA runtime itself (cudaErrorMemoryAllocation)
        ],
    ),
    ("device_assert", [re.compile(r"device-side assert triggered")]),
    (
        "nccl_error",
        [re.compile(r"NCCL error"), re.compile(r"DistBackendError"), re.compile(r"nccl\w*Error\b")],
    ),
    (
        "port_in_use",
        [
            re.compile(r"\[Errno 98\]"),
            re.compile(r"(?i)address already in use"),
            # SGLang's wait_port_available giving up on a port it must bind (metrics, port_base, ...):
            # "ValueError: metrics_port at 40290 is not available in 30 seconds. metrics_port is used by
            # a process already. ...". Not "... is used by a process already" alone: SGLang also logs
            # that while still waiting, and the port may come free.
            re.compile(r"\bat \d+ is not available in \d+ seconds\b"),
        ],
    ),
    (
        "bad_argument",
        [
            re.compile(r"error: (unrecognized arguments|argument |ambiguous option|the following arguments)"),
        ],
    ),
    (
        "child_crash",
        [
            re.compile(r"Scheduler hit an exception"),
            re.compile(r"Received sigquit from a child proces"),  # older releases spell it "proces."
            re.compile(r"SIGQUIT received"),
            re.compile(r"scheduler is dead|scheduler died during initialization"),
            re.compile(r"Initialization failed"),
            re.compile(r"exited unexpectedly|died unexpectedly"),
        ],
    ),
]

# One line per connection, `Channel` since NCCL 2.4 (`Channel 00/0 :`, `Channel 00 :`), `Ring` before:
# "NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC". Ring lines without "via" only give the ring order.
TRANSPORT = re.compile(r"NCCL INFO (?:Channel|Ring) \d+(?:/\d+)? ?: .*? via (\S+)")
NCCL_WARN = re.compile(r"NCCL WARN")

# Start-up phases, matched on every release's wording (see tools/lab/sglang_logs.py for the source
# lines): "Init torch distributed begin." became "Init parallel begin." in 0.5.21; "Capture cuda
# graph begin." became "Capture target decode CUDA graph begin. backend=..." in 0.5.14 (draft,
# verify and prefill graphs are captured the same way); 0.5.9-0.5.13 follow the begin line with
# "Capture cuda graph bs [...]".
PHASES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"Init (?:torch distributed|parallel) begin"), "initialising torch distributed"),
    (re.compile(r"Load weight begin"), "loading weights"),
    # Each loader prints its own tqdm bar (model_loader/weight_utils.py): the single-thread one, the
    # multi-thread one (the default from 0.5.10), .pt checkpoints, fastsafetensors, InstantTensor.
    (
        re.compile(
            r"(?:Loading safetensors checkpoint shards|Multi-thread loading (?:pt checkpoint )?shards|"
            r"Loading pt checkpoint shards|Loading safetensors using [\w ]+?):\s+(\d+)%"
        ),
        "loading weights",
    ),
    (re.compile(r"Load weight end"), "weights loaded"),
    (re.compile(r"KV Cache is allocated"), "KV cache allocated"),
    (re.compile(r"Capture (?:[\w ]+ )?(?:cuda|CUDA) graph (?:begin|bs\b)"), "capturing CUDA graphs"),
    (re.compile(r"Capture (?:[\w ]+ )?(?:cuda|CUDA) graph end"), "CUDA graphs captured"),
    (re.compile(r"Uvicorn running on"), "HTTP server up, warming up"),
    (READY, "ready"),
]

HINTS = {
    "nan_in_sampling": "NaN/inf logits during sampling: try another attention or sparse-attention decode "
    "backend (e.g. decode_backend=trtllm), another kv_cache_dtype, or disable CUDA graphs to localise it.",
    "device_assert": "A CUDA kernel asserted; rerun with CUDA_LAUNCH_BLOCKING=1 to find the kernel.",
    "cuda_oom": "Lower mem_fraction_static, cuda_graph_max_bs or max running requests, or use more GPUs.",
    "kv_cache_oom": "The KV cache did not fit: raise mem_fraction_static, lower the context length, or use more GPUs.",
    "nccl_error": "Run with env NCCL_DEBUG=INFO to see the transport; if P2P is broken (IOMMU, VM) try "
    "NCCL_P2P_DISABLE=1 (falls back to SHM), and check p2p_check.",
    "port_in_use": "Another process holds the port: pick another port.",
    "bad_argument": "A launch flag was rejected: check sglang_flags for this version's spelling.",
    "child_crash": "A child process died: the evidence lines show its traceback.",
    "load_timeout": "Still loading at the deadline: look at the phase; give it longer or check disk/network.",
}


def _exited(code: int | None) -> str:
    """The exit line, with what the shell's own codes mean (a log line read alone does not say)."""
    meaning = {127: " (the shell found no such program)", 126: " (the program could not be run)"}
    return f"process exited with code {code}" + meaning.get(code or 0, "")


class WaitServerArgs(BaseModel):
    name: str = Field(default="sglang", description="Name given to launch_server.")
    port: int = Field(default=30000, ge=1, le=65535, description="Port the server listens on.")
    timeout_s: float = Field(default=1800, gt=0, description="Give up after this many seconds.")
    poll_s: float = Field(default=5, gt=0, description="Seconds between checks.")


class WaitResult(BaseModel):
    ready: bool
    cause: str | None = Field(default=None, description="Failure cause; None when ready.")
    evidence: list[str] = Field(default_factory=list)
    elapsed_s: float
    transport: str | None = Field(default=None, description="NCCL transport seen in INFO lines (P2P/IPC, SHM, ...).")
    phase: str = "starting"
    exit_code: int | None = None
    hint: str | None = None
    nccl_warnings: list[str] = Field(default_factory=list)
    errors: list[str] = Field(
        default_factory=list, description="The log's decisive lines: the exceptions' own last lines, not their headers."
    )


def health_command(port: int) -> str:
    return f"curl -s -o /dev/null -w '%{{http_code}}' --max-time 5 http://127.0.0.1:{port}/health"


def health_code(target: Target, port: int) -> int | None:
    result = target.run(health_command(port), timeout=15)
    text = result.stdout.strip()
    return int(text) if text.isdigit() and text != "000" else None


def classify(lines: Sequence[str]) -> tuple[str | None, list[str]]:
    """The most specific failure cause in `lines` and the lines that show it."""
    for cause, patterns in CAUSES:
        hits = [line for line in lines if any(p.search(line) for p in patterns)]
        if hits:
            extra: list[str] = []
            if cause == "nccl_error":
                extra = [line for line in lines if NCCL_WARN.search(line)][:5]
            return cause, (hits[:8] + [e for e in extra if e not in hits])
    return None, []


def is_fatal(line: str) -> bool:
    return any(p.search(line) for _, patterns in CAUSES for p in patterns)


def transport_kind(via: str) -> str:
    """`SHM/direct/direct` -> SHM, `P2P/IPC/read` -> P2P/IPC, `NET/IB/0/GDRDMA` -> NET/IB: the mechanism,
    without the read/write mode or the NIC index, so one transport is named once."""
    parts = via.split("/")
    return parts[0] if parts[0] == "SHM" else "/".join(parts[:2])


def transport_of(lines: Sequence[str]) -> str | None:
    kinds: list[str] = []
    for line in lines:
        match = TRANSPORT.search(line)
        if match:
            kind = transport_kind(match.group(1))
            if kind not in kinds:
                kinds.append(kind)
    return ",".join(kinds) if kinds else None


def _phase(line: str, current: str) -> str:
    for pattern, name in PHASES:
        match = pattern.search(line)
        if match:
            return f"{name} ({match.group(1)}%)" if match.groups() else name
    return current


def _result(
    target: Target,
    start: float,
    lines: list[str],
    phase: str,
    ready: bool,
    cause: str | None,
    evidence: list[str],
    exit_code: int | None,
) -> WaitResult:
    return WaitResult(
        ready=ready,
        cause=cause,
        evidence=evidence,
        elapsed_s=round(target.now() - start, 3),
        transport=transport_of(lines),
        phase=phase,
        exit_code=exit_code,
        hint=HINTS.get(cause or ""),
        nccl_warnings=[line for line in lines if NCCL_WARN.search(line)][:10],
        errors=[] if ready else error_lines(lines),
    )


class _Follower:
    """The log read so far: lines, startup phase, first fatal line's time, the ready line."""

    def __init__(self, target: Target, path: str) -> None:
        self.target = target
        self.cursor = LogCursor(path=path)
        self.lines: list[str] = []
        self.phase = "starting"
        self.fatal_at: float | None = None
        self.ready_line: str | None = None

    def _take(self, line: str) -> None:
        self.lines.append(line)
        self.phase = _phase(line, self.phase)
        if self.fatal_at is None and is_fatal(line):
            self.fatal_at = self.target.now()
        if self.ready_line is None and READY.search(line):
            self.ready_line = line

    def drain(self, final: bool = False) -> None:
        """Read every complete new line; `final` also takes an unterminated last line (the writer is gone)."""
        while True:
            chunk = read_new(self.target, self.cursor)
            self.cursor = chunk.cursor
            for line in chunk.lines:
                self._take(line)
            if not chunk.more:
                break
        if final and self.target.stat(self.cursor.path) is not None:
            rest = self.target.read_file(self.cursor.path, offset=self.cursor.offset, max_bytes=65536)
            if rest.strip():
                self._take(rest.decode("utf-8", errors="replace").rstrip("\r\n"))
        del self.lines[:-20000]


def wait(
    target: Target,
    process: DetachedProcess,
    port: int,
    timeout_s: float,
    poll_s: float,
    on_progress: Callable[[str], None] | None = None,
) -> WaitResult:
    """`on_progress` hears the startup phase and the log's last line after each read."""
    start = target.now()
    log = _Follower(target, process.log_path)
    grace = max(2 * poll_s, 5.0)  # time for the rest of a traceback to reach the log

    def done(ready: bool, cause: str | None, evidence: list[str], exit_code: int | None = None) -> WaitResult:
        return _result(target, start, log.lines, log.phase, ready, cause, evidence, exit_code)

    while True:
        log.drain()
        if on_progress is not None:
            on_progress(f"phase: {log.phase}" + (f"; log: {log.lines[-1].strip()}" if log.lines else ""))
        if log.fatal_at is None and log.ready_line is not None:
            return done(True, None, [log.ready_line])
        status = target.process_status(process)
        now = target.now()
        elapsed = now - start
        if not status.running:
            log.drain(final=True)  # whatever it wrote between the read and its exit
            if log.fatal_at is None and log.ready_line is not None:
                return done(True, None, [log.ready_line])
        if log.fatal_at is not None and (not status.running or now - log.fatal_at >= grace):
            cause, evidence = classify(log.lines)
            return done(False, cause, evidence, status.exit_code)
        if not status.running:
            cause, evidence = classify(log.lines)
            if cause is None:
                cause = "child_crash"
                evidence = [_exited(status.exit_code), *log.lines[-10:]]
            return done(False, cause, evidence, status.exit_code)
        if log.fatal_at is None and health_code(target, port) == 200:
            return done(True, None, [f"GET /health -> 200 after {elapsed:.0f}s"])
        if elapsed >= timeout_s:
            return done(
                False,
                "load_timeout",
                [f"not ready after {elapsed:.0f}s; phase: {log.phase}", *log.lines[-10:]],
            )
        target.sleep(min(poll_s, max(timeout_s - elapsed, 0.01)))


@tool(read_only=True)
def wait_server(ctx: ToolContext, args: WaitServerArgs) -> ToolOutput:
    """Wait until a server started by launch_server is ready (its log says so or /health answers
    200) or has failed; a failure comes back classified (nan_in_sampling, device_assert, cuda_oom,
    kv_cache_oom, nccl_error, port_in_use, bad_argument, child_crash, load_timeout) with the log
    lines that show it and the NCCL transport seen."""
    process = ctx.processes.get(args.name)
    if process is None:
        return not_owned("wait_server", ctx, args.name)
    try:
        result = wait(ctx.target, process, args.port, args.timeout_s, args.poll_s, on_progress=ctx.report)
    except ProcessNotOwned as exc:
        return ToolOutput(tool="wait_server", ok=False, summary=str(exc), error_kind="not_owned")
    transport = f", NCCL transport {result.transport}" if result.transport else ""
    if result.ready:
        summary = f"{args.name} ready on port {args.port} after {result.elapsed_s:.0f}s{transport}"
    else:
        summary = (
            f"{args.name} failed: {result.cause} after {result.elapsed_s:.0f}s "
            f"(phase: {result.phase}){transport}\n"
            + "\n".join(result.evidence)
            + "".join(f"\nerror: {line}" for line in result.errors if line not in result.evidence)
            + (f"\nhint: {result.hint}" if result.hint else "")
        )
    return ToolOutput(
        tool="wait_server",
        ok=result.ready,
        summary=summary,
        data=result.model_dump(mode="json"),
        error_kind=None if result.ready else result.cause,
    )
