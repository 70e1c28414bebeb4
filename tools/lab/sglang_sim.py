"""A simulated `python -m sglang.launch_server`: its log over virtual time, faults and endpoints.

A launch is turned into a timeline of log lines when it starts (imports, torch distributed,
weight loading, KV cache, CUDA graph capture, uvicorn, warmup, ready). A fault whose `when`
holds cuts the timeline at its phase: a crash writes the scheduler traceback and exits, a hang
stops the log and keeps the process alive, a corruption lets the server come up and answer with
garbage. Log lines use SGLang's format `[%Y-%m-%d %H:%M:%S TP0] message`.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from tools.lab import breakage, gpuhealth, kv, modelfs, sglang_logs
from tools.lab.clock import VirtualClock
from tools.lab.launch import LaunchConfig, holds
from tools.lab.scenario import Effect, Scenario

PHASES = ["init", "load", "kv_cache", "cuda_graph", "warmup", "serving"]
SITE = "/usr/local/lib/python3.12/dist-packages"
GARBAGE = "ĠĠĠ!!!!!!!!!!!!!!!!!!!!ĊĊ ... ... ÃÂÃÂÃÂ"


@dataclass
class LogEvent:
    t: float
    text: str  # full line(s) without the trailing newline


class ServerProcess(Protocol):
    """The host's process a server runs as (tools.lab.host.SimProcess): the server sets where it listens."""

    pid: int
    start: float
    port: int | None
    listen_from: float
    host_addr: str


class Server:
    """One launch_server process: its timeline, state at any virtual time, and its answers."""

    def __init__(
        self,
        scenario: Scenario,
        clock: VirtualClock,
        cfg: LaunchConfig,
        proc: ServerProcess,
        port_taken: bool | Callable[[float], bool],
        host_foreign_mib: dict[int, int],
        host_now: breakage.HostNow | None = None,
    ) -> None:
        self.scenario = scenario
        self.clock = clock
        self.cfg = cfg
        self.proc = proc
        self.events: list[LogEvent] = []
        self.t0 = proc.start
        self.listen_at: float | None = None
        self.ready_at: float | None = None
        self.exit_at: float | None = None
        self.exit_code: int | None = None
        self.hung_at: float | None = None
        self.corrupted = False
        self.fault_id: str | None = None
        self.stopped: float | None = None
        self.phase_at: dict[str, float] = {}
        self.mem_profile: list[tuple[float, float]] = []  # (t, GiB per GPU in use)
        self.max_total_tokens = 0
        self.last_gen_throughput = 0.0
        self.requests_served = 0  # by benchmarks, for a server that degrades with use
        self.kernel_lines: list[tuple[float, str]] = []
        self.layout = kv.layout(cfg)
        self.max_running = 0
        self.context_len = 0
        self.weights_gib = 0.0  # per GPU, for /server_info's memory_usage
        self.kv_gib = 0.0
        lost = {i for i, d in enumerate(scenario.visible_devices()) if d.health.lost}
        self.host_now = host_now or breakage.HostNow(lost=lost)
        self._host_fault = False  # the chosen fault comes from the host's state (breakage.py)
        self.lost_gpus: list[tuple[float, str]] = []  # (when, bus id): GPUs this launch made fall off the bus
        self.files_written: list[tuple[float, str]] = []  # (when, path): files it leaves on the host
        visible = scenario.visible_devices()
        # The memory CUDA sees per GPU: a MIG GPU shows one instance's (the smallest in the group counts).
        mibs = [gpuhealth.cuda_memory_mib(scenario, visible[g], cfg.env) for g in cfg.gpus if g < len(visible)]
        self.total_mib = min(mibs, default=scenario.gpus.memory_mib)
        self._build(port_taken, host_foreign_mib)

    # ---- log helpers ----------------------------------------------------------------------

    def _prefix(self, rank: int) -> str:
        parts = []
        lay = self.layout
        if lay.dp > 1:
            parts.append(f"DP{rank // max(lay.gpus // lay.dp, 1)}")
        if lay.pp > 1:
            parts.append(f"PP{(rank // lay.tp) % lay.pp}")
        if self.cfg.tp > 1:
            parts.append(f"TP{rank % self.cfg.tp}")
        ep = int(getattr(self.cfg.args, "ep_size", 1) or 1)
        if ep > 1:
            parts.append(f"EP{rank % ep}")
        return (" " + " ".join(parts)) if parts else ""

    def _log(self, t: float, message: str, rank: int | None = 0) -> None:
        prefix = "" if rank is None else self._prefix(rank)
        self.events.append(LogEvent(t, f"[{self.clock.stamp(t)}{prefix}] {message}"))

    def _raw(self, t: float, text: str) -> None:
        self.events.append(LogEvent(t, text))

    def _all_ranks(self, t: float, message: str) -> None:
        for rank in range(max(len(self.cfg.gpus), 1)):
            self._log(t + 0.01 * rank, message, rank)

    def _replica_heads(self, t: float, message: str) -> None:
        """A line each DP replica's first rank logs (its scheduler's own numbers)."""
        per = max(len(self.cfg.gpus) // self.layout.dp, 1)
        for replica in range(self.layout.dp):
            self._log(t + 0.01 * replica, message, replica * per)

    # ---- the timeline ---------------------------------------------------------------------

    def _build(self, port_taken: bool | Callable[[float], bool], foreign_mib: dict[int, int]) -> None:
        s, cfg, timing = self.scenario, self.cfg, self.scenario.timing
        model = s.model(cfg.model_path)
        total_gib = self.total_mib / 1024.0
        t = self.t0 + timing.python_start_s
        effect, fault_id = self._fault(model is None, foreign_mib)
        self.fault_id = fault_id
        self.phase_at["init"] = t
        args_repr = ", ".join(f"{k}={v!r}" for k, v in sglang_logs.server_info_fields(cfg.args).items())
        self._log(t, f"server_args=ServerArgs({args_repr})", None)
        if s.gpus.interconnect == "pcie" and cfg.tp > 2 and not cfg.args.disable_custom_all_reduce:
            self._log(
                t + 0.5,
                "Custom allreduce is disabled because it's not supported on more than two "
                "PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.",
            )
        if self._cut(effect, "init", t + 1.0):
            return
        t += 1.0
        version = cfg.version
        self._all_ranks(t, sglang_logs.dist_begin(version))
        if cfg.env.get("NCCL_DEBUG", "").upper() in ("INFO", "TRACE") and cfg.tp > 1:
            self._nccl_info(t + 2.0)
        t += timing.init_distributed_s
        self._all_ranks(t, sglang_logs.dist_end(version, timing.init_distributed_s - 0.17, 0.98))
        self.mem_profile.append((t, 1.0))
        foreign_gib = max((foreign_mib.get(g, 0) for g in cfg.gpus), default=0) / 1024.0
        avail = total_gib - 1.61 - foreign_gib
        self.phase_at["load"] = t
        self._all_ranks(t, f"Load weight begin. avail mem={avail:.2f} GB")
        size_gb = model.size_gb if model is not None else 1.0
        load_s = size_gb / timing.load_gb_per_s
        weights = kv.weights_gib(model, self.layout) if model is not None else 1.0
        self.weights_gib = weights
        shards = model.shards if model is not None else 1
        # A host fault in the load phase (a stall, a bad shard, the OOM killer) cuts the loader's own
        # progress lines where it strikes: the log shows how far loading got.
        stop = t + effect.after_s if effect is not None and effect.phase == "load" and self._host_fault else None
        if stop is None and self._cut(effect, "load", t):
            return
        step = max(1, shards // 8)
        desc = breakage.loader_desc(cfg)
        for i in range(0, shards + 1, step):
            when = t + load_s * i / shards
            if stop is not None and when > stop:
                break
            pct = int(100 * i / shards)
            per = load_s / shards
            elapsed, left = _mmss(per * i), _mmss(per * (shards - i))
            rate = "?it/s" if i == 0 else f"{per:5.2f}s/it"
            self._raw(
                when,
                f"{desc}: {pct:3d}% Completed | {i}/{shards} [{elapsed}<{left if i else '?'}, {rate}]",
            )
        if stop is not None and self._cut(effect, "load", t):
            return
        t += load_s
        self.mem_profile.append((t, 1.0 + weights))
        arch = model.architecture if model is not None else "?"
        avail_after = avail - weights
        self._all_ranks(
            t,
            f"Load weight end. elapsed={load_s:.2f} s, type={arch}, dtype=torch.{_dtype(model)}, "
            f"avail mem={avail_after:.2f} GB, mem usage={weights:.2f} GB.",
        )
        self.phase_at["kv_cache"] = t
        if self._cut(effect, "kv_cache", t + 0.5):
            return
        frac = float(cfg.value("mem_fraction_static") or 0.88)
        kv_gb = total_gib * frac - weights - kv.RUNTIME_OVERHEAD_GIB - foreign_gib
        kv_dtype = cfg.value("kv_cache_dtype")
        per_token = (
            kv.kv_bytes_per_token(model, self.layout, kv.kv_dtype_bytes(model, kv_dtype, s.gpus.compute_capability))
            if model is not None
            else 1.0
        )
        self.max_total_tokens = kv.max_total_tokens(kv_gb, per_token) if kv_gb > 0 else 0
        self.kv_gib = max(kv_gb, 0.0)
        if kv_gb <= 0.5 or self.max_total_tokens <= 0:
            self._crash(
                t + 1.0,
                "kv_cache",
                [
                    "RuntimeError: Not enough memory. Please try to increase "
                    f"--mem-fraction-static. Current value: mem_fraction_static={frac}"
                ],
                1,
            )
            return
        if model is not None and model.sparse_attention:
            dtype = "fp8_e4m3" if kv_dtype in (None, "auto") else kv_dtype
            self._log(t + 0.2, f"Set NSA backends for {dtype} KV Cache: prefill=flashmla_auto, decode=flashmla_kv.")
        mla = model is not None and modelfs.shape(model).mla  # one latent per token: SGLang's MLA pool
        sizes = f"KV size: {kv_gb:.2f} GB" if mla else f"K size: {kv_gb / 2:.2f} GB, V size: {kv_gb / 2:.2f} GB"
        dtype = sglang_logs.kv_torch_dtype(cfg.value("kv_cache_dtype"))
        self._replica_heads(t + 1.0, sglang_logs.kv_allocated(version, dtype, self.max_total_tokens, sizes))
        t += 1.5
        avail_pool = total_gib * (1 - frac) - 0.6
        self._log(t, f"Memory pool end. avail mem={avail_pool:.2f} GB")
        self.mem_profile.append((t, total_gib * frac))
        self.phase_at["cuda_graph"] = t
        if not getattr(cfg.args, "disable_cuda_graph", False):
            bs = [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 288]
            bs += [320, 352, 384, 416, 448, 480, 512]
            begin = sglang_logs.graph_begin(version, bs, avail_pool)
            self._log(t + 0.3, begin[0])
            if self._cut(effect, "cuda_graph", t + 0.3):
                return
            cg = timing.cuda_graph_s
            for line in begin[1:]:
                self._log(t + 0.4, line)
            t += cg
            avail_pool -= 1.9
            self._log(t, sglang_logs.graph_end(version, bs, cg, 1.90, avail_pool))
            self.mem_profile.append((t, total_gib * frac + 1.9))
        elif self._cut(effect, "cuda_graph", t + 0.3):
            return
        ctx = int(cfg.args.context_length or (model.context_length if model else 32768))
        self.context_len = ctx
        given = cfg.args.max_running_requests
        max_running = int(given) // self.layout.dp if given else kv.default_max_running(self.max_total_tokens, ctx)
        self.max_running = max(max_running, 1)
        chunk = int(cfg.args.chunked_prefill_size or 8192)
        self._replica_heads(
            t + 0.2,
            f"max_total_num_tokens={self.max_total_tokens}, chunked_prefill_size={chunk}, "
            f"max_prefill_tokens={cfg.args.max_prefill_tokens}, max_running_requests={max_running}, "
            f"context_len={ctx}, available_gpu_mem={avail_pool:.2f} GB",
        )
        t += 1.0
        pid = self.proc.pid
        self._raw(t, f"INFO:     Started server process [{pid}]")
        self._raw(t, "INFO:     Waiting for application startup.")
        self._raw(t + 0.1, "INFO:     Application startup complete.")
        t += 0.2
        if port_taken(t) if callable(port_taken) else port_taken:  # checked when uvicorn binds
            self._raw(
                t,
                f"ERROR:    [Errno 98] error while attempting to bind on address ('{cfg.host}', "
                f"{cfg.port}): address already in use",
            )
            self._raw(t + 0.1, "INFO:     Waiting for application shutdown.")
            self._raw(t + 0.2, "INFO:     Application shutdown complete.")
            self._exit(t + 1.0, 3)
            return
        self._raw(t, f"INFO:     Uvicorn running on http://{cfg.host}:{cfg.port} (Press CTRL+C to quit)")
        self.listen_at = t
        self.proc.port, self.proc.listen_from, self.proc.host_addr = cfg.port, t, cfg.host
        self.phase_at["warmup"] = t
        if self._cut(effect, "warmup", t + 0.5):
            return
        self._raw(t + 0.4, 'INFO:     127.0.0.1:45962 - "GET /get_model_info HTTP/1.1" 200 OK')
        self._log(
            t + 0.6,
            "Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, "
            "#running-req: 0, #queue-req: 0, input throughput (token/s): 0.00, cuda graph: False",
        )
        t += timing.warmup_s
        self._raw(t - 0.1, 'INFO:     127.0.0.1:45978 - "POST /generate HTTP/1.1" 200 OK')
        self._log(t, "The server is fired up and ready to roll!", None)
        self.ready_at = t
        self.phase_at["serving"] = t
        self._cut(effect, "serving", t)

    def _fault(self, model_missing: bool, foreign_mib: dict[int, int]) -> tuple[Effect | None, str | None]:
        s, cfg = self.scenario, self.cfg
        if model_missing:
            return Effect(
                kind="crash",
                phase="init",
                log=[
                    "huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or "
                    f"'namespace/repo_name': '{cfg.model_path}'. Use `repo_type` argument if needed."
                ],
            ), "model-missing"
        model = s.model(cfg.model_path)
        assert model is not None
        total_gib = self.total_mib / 1024.0
        busy = max((foreign_mib.get(g, 0) for g in cfg.gpus), default=0) / 1024.0
        weights = kv.weights_gib(model, self.layout)
        host_fault = breakage.launch_fault(s, cfg, model, self.host_now, self.proc.pid)
        if cfg.tp < model.min_tp or weights + busy > total_gib - 2.0:
            gpu = cfg.gpus[0] if cfg.gpus else 0
            free = max(total_gib - busy - weights, 0.31)
            oom = Effect(
                kind="crash",
                phase="load",
                after_s=weights / s.timing.load_gb_per_s * 0.9,
                log=[oom_line(gpu, total_gib, free, total_gib - busy - 2.0)],
            )
            # A broken host met earlier (CUDA cannot start, a lost GPU) still comes first.
            host_key = (PHASES.index(host_fault[0].phase), host_fault[0].after_s) if host_fault else None
            if host_key is None or host_key >= (PHASES.index("load"), oom.after_s):
                return oom, "oom-weights"
        chosen: tuple[int, float, Effect, str] | None = None
        if host_fault is not None:  # the broken host, before the scenario's rules (same phase: it wins)
            chosen = (PHASES.index(host_fault[0].phase), host_fault[0].after_s, *host_fault)
        for fault in s.faults:
            if holds(fault.when, cfg):
                key = (PHASES.index(fault.effect.phase), fault.effect.after_s)
                if chosen is None or key < (chosen[0], chosen[1]):
                    chosen = (key[0], key[1], fault.effect, fault.id)
        if chosen is None:
            return None, None
        self._host_fault = host_fault is not None and chosen[3] == host_fault[1]
        return chosen[2], chosen[3]

    def _cut(self, effect: Effect | None, phase: str, t: float) -> bool:
        """Apply `effect` if it belongs to `phase`; True when the timeline ends here."""
        if effect is None or effect.phase != phase:
            return False
        at = t + effect.after_s
        for line in effect.dmesg:
            self.kernel_lines.append((at, line))
        if self.fault_id is not None and self.fault_id.startswith("fell-off-bus:"):
            self.lost_gpus.append((at, self.fault_id.split(":", 1)[1]))
        if effect.kind == "crash":
            self._crash(at, phase, effect.log, effect.exit_code)
            return True
        if effect.kind == "hang":
            for line in effect.log:
                self._log(at, line)
            self.hung_at = at
            if phase in ("warmup", "serving") and self._host_fault:
                self._watchdog(at)
            return True
        self.corrupted = True
        for line in effect.log:
            self._log(at, line)
        return False

    def _crash(self, t: float, phase: str, lines: list[str], exit_code: int) -> None:
        loop = "scheduler.event_loop_overlap()" if phase in ("warmup", "serving") else "scheduler = Scheduler("
        trace = [
            "Scheduler hit an exception: Traceback (most recent call last):",
            f'  File "{SITE}/sglang/srt/managers/scheduler.py", line 2960, in run_scheduler_process',
            f"    {loop}",
            f'  File "{SITE}/sglang/srt/managers/scheduler.py", line 1032, in event_loop_overlap'
            if phase in ("warmup", "serving")
            else f'  File "{SITE}/sglang/srt/managers/tp_worker.py", line 241, in __init__',
            "    batch_result = self.run_batch(batch)"
            if phase in ("warmup", "serving")
            else "    self.model_runner = ModelRunner(",
            *lines,
            "",
        ]
        self._log(t, "\n".join(trace))
        if phase in ("warmup", "serving"):
            self._log(t + 0.5, "SIGQUIT received. signum=None, frame=None. It usually means one child failed.", None)
        else:
            self._log(t + 0.5, "Received sigquit from a child process. It usually means the child failed.", None)
        self._exit(t + 1.0, exit_code)

    def _watchdog(self, stuck_at: float) -> None:
        """A forward pass stuck on a lost GPU: SGLang's scheduler watchdog gives up after
        --watchdog-timeout (300 s) and SIGQUITs the server (utils/watchdog.py: 0.5.9 :152, 0.5.23 :154)."""
        timeout = self.cfg.value("watchdog_timeout")
        timeout = 300 if timeout is None else timeout
        at = stuck_at + float(timeout)
        self._log(at, f"Scheduler watchdog timeout (self.watchdog_timeout={timeout}, self.soft=False)")
        self._log(at + 5.0, "SIGQUIT received. signum=None, frame=None. It usually means one child failed.", None)
        self._exit(at + 6.0, 1)

    def _exit(self, t: float, code: int) -> None:
        self.exit_at, self.exit_code = t, code

    def _nccl_info(self, t: float) -> None:
        s, cfg = self.scenario, self.cfg
        host, pid = s.host.hostname, self.proc.pid
        visible = s.visible_devices()
        via = "P2P/IPC" if cfg.p2p_transport else "SHM/direct/direct"
        self._raw(t, f"{host}:{pid}:{pid} [0] NCCL INFO NCCL version {s.software.nccl}+cuda{s.software.torch_cuda}")
        for rank, gpu in enumerate(cfg.gpus):
            nxt = (rank + 1) % len(cfg.gpus)
            bus, bus_next = visible[gpu].bus_id[5:7], visible[cfg.gpus[nxt]].bus_id[5:7]
            self._raw(
                t + 0.1,
                f"{host}:{pid + 2 + rank}:{pid + 2 + rank} [{rank}] NCCL INFO Channel 00/0 : "
                f"{rank}[{bus}000] -> {nxt}[{bus_next}000] via {via}",
            )
        self._raw(t + 0.2, f"{host}:{pid}:{pid} [0] NCCL INFO Connected all rings")

    # ---- state at a virtual time ----------------------------------------------------------

    def end_time(self) -> float | None:
        ends = [x for x in (self.exit_at, self.stopped) if x is not None]
        return min(ends) if ends else None

    def alive(self, t: float) -> bool:
        end = self.end_time()
        return self.t0 <= t and (end is None or t < end)

    def state(self, t: float) -> str:
        if not self.alive(t):
            return "exited"
        if self.hung_at is not None and t >= self.hung_at:
            return "hung"
        if self.ready_at is not None and t >= self.ready_at:
            return "ready"
        if self.listen_at is not None and t >= self.listen_at:
            return "warming_up"
        return "starting"

    def stopped_at(self, t: float, signal: str | None) -> None:
        if self.stopped is None or t < self.stopped:
            self.stopped = t

    def log_text(self, t: float) -> tuple[bytes, float]:
        end = self.end_time()
        horizon = t if end is None else min(t, end + 0.5)
        keys = [e.t for e in self.events]
        order = sorted(range(len(self.events)), key=lambda i: (keys[i], i))
        lines = [self.events[i].text for i in order if keys[i] <= horizon]
        mtime = max((keys[i] for i in order if keys[i] <= horizon), default=self.t0)
        return ("".join(line + "\n" for line in lines)).encode(), mtime

    def add_log(self, t: float, message: str, rank: int | None = 0) -> None:
        prefix = "" if rank is None else self._prefix(rank)
        event = LogEvent(t, f"[{self.clock.stamp(t)}{prefix}] {message}")
        bisect.insort(self.events, event, key=lambda e: e.t)

    def gpu_memory_gib(self, t: float) -> float:
        if not self.alive(t):
            return 0.0
        value = 0.0
        for when, gib in self.mem_profile:
            if when <= t:
                value = gib
        if value == 0.0 and t >= self.phase_at.get("init", self.t0 + 1e9):
            value = 0.5
        return value

    # ---- endpoints ------------------------------------------------------------------------

    def served_name(self) -> str:
        return str(self.cfg.args.served_model_name or self.cfg.args.model_path)

    def server_info(self, t: float) -> dict[str, Any]:
        info: dict[str, Any] = sglang_logs.server_info_fields(self.cfg.args)
        info.update(
            status="ready" if self.state(t) == "ready" else "starting",
            max_total_num_tokens=self.max_total_tokens,
            max_running_requests=self.max_running or info.get("max_running_requests"),
            internal_states=[
                {
                    "last_gen_throughput": round(self.last_gen_throughput, 2),
                    "memory_usage": {
                        "weight": round(self.weights_gib, 2),
                        "kvcache": round(self.kv_gib, 2),
                        "graph": 1.9,
                    },
                }
            ],
            version=self.scenario.software.sglang,
        )
        return info

    def model_info(self) -> dict[str, Any]:
        return {
            "model_path": str(self.cfg.args.model_path),
            "tokenizer_path": str(self.cfg.args.model_path),
            "is_generation": True,
            "preferred_sampling_params": None,
            "weight_version": "default",
        }

    def v1_models(self, t: float) -> dict[str, Any]:
        model = self.scenario.model(self.cfg.model_path)
        return {
            "object": "list",
            "data": [
                {
                    "id": self.served_name(),
                    "object": "model",
                    "created": int(self.clock.timestamp(t)),
                    "owned_by": "sglang",
                    "root": self.served_name(),
                    "max_model_len": model.context_length if model else None,
                }
            ],
        }

    def completion_text(self) -> str:
        return GARBAGE if self.corrupted else " Paris. It is the largest city in France and its capital."


def oom_line(gpu: int, total_gib: float, free_gib: float, in_use_gib: float) -> str:
    """PyTorch's CUDA out-of-memory message, as SGLang's scheduler traceback ends with it."""
    return (
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {gpu} has a total "
        f"capacity of {total_gib - 1.6:.2f} GiB of which {free_gib:.2f} GiB is free. Including non-PyTorch "
        f"memory, this process has {in_use_gib:.2f} GiB memory in use. Of the allocated memory "
        f"{in_use_gib - 0.6:.2f} GiB is allocated by PyTorch, and 121.05 MiB is reserved by PyTorch but "
        "unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
        "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
    )


def _mmss(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60:02d}:{s % 60:02d}"


def _dtype(model: Any) -> str:
    return "bfloat16" if model is None or model.dtype in ("bfloat16", "bf16") else str(model.dtype)


def endpoint_json(data: Any) -> str:
    return json.dumps(data)
