"""How a launch meets a broken host: the fault that the host's state (not a scenario fault rule)
causes, as an `Effect` the server's timeline applies like any other (tools/lab/sglang_sim.py).

In the order a real launch meets them: CUDA cannot start (NVML/driver state), a GPU already lost,
an arch list without the GPU's kernels, a MIG GPU in a multi-rank group, /dev/shm too small for
NCCL, a GPU with uncorrectable ECC errors, the host RAM the loader needs, a truncated shard, a GPU
that falls off the bus, a full disk for the JIT cache. Imports only data modules (scenario,
hostspec, gpuhealth, launch's config type) so nothing here imports the server or the host.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from tools.lab import gpuhealth, modelfs
from tools.lab.launch import LaunchConfig
from tools.lab.scenario import Effect, ModelSpec, Scenario
from tools.lab.sglang_flags import version_key

# NCCL's shared-memory segment per peer connection (NCCL issue #342: "nccl-shm-recv-... (size 9637888)").
NCCL_SHM_SEGMENT = 9637888
NCCL_SHM_CHANNELS = 2  # send and receive buffer per ring neighbour on the SHM transport
NCCL_PROXY_SHM = 4 * 1024 * 1024  # per rank even with P2P (proxy state), well under any real /dev/shm
RANK_RSS_GIB = 6.0  # a scheduler process's host memory before weights: Python, torch, CUDA context
DEFAULT_THREADS = 8  # DefaultModelLoader.DEFAULT_NUM_THREADS (0.5.23 model_loader/loader.py:393)
JIT_CACHE_BYTES = 1_400_000_000  # flashinfer's JIT kernels written under ~/.cache on a first launch
JIT_CACHE_PATH = ".cache/flashinfer/90a/cached_ops/batch_prefill_with_kv_cache/batch_prefill_with_kv_cache.so"
MULTITHREAD_DEFAULT_FROM = (0, 5, 10)
PHASES = [
    "init",
    "load",
    "kv_cache",
    "cuda_graph",
    "warmup",
    "serving",
]  # as the server's timeline runs  # loader.py: enable_multithread_load defaults to True from 0.5.10


@dataclass
class HostNow:
    """What the lab knows about the host when a launch starts."""

    lost: set[int] = field(default_factory=set)  # GPU indices lost when the launch starts
    falling: set[int] = field(default_factory=set)  # GPUs an earlier launch already loses later on
    ram_free_gib: float | None = None  # None: host RAM not accounted
    cache_free: int | None = None  # free bytes for the JIT cache; None: no capacity modelled
    cache_present: bool = True
    home: str = "/home/ops"


def extra_config(cfg: LaunchConfig) -> dict[str, object]:
    raw = getattr(cfg.args, "model_loader_extra_config", None) or "{}"
    try:
        value = json.loads(raw) if isinstance(raw, str) else dict(raw)
    except (ValueError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}


def multithread(cfg: LaunchConfig) -> bool:
    """Whether SGLang loads safetensors shards with its multi-thread loader (its own progress bar)."""
    default = version_key(cfg.version) >= MULTITHREAD_DEFAULT_FROM
    fmt = str(getattr(cfg.args, "load_format", None) or "auto")
    return fmt in ("auto", "safetensors") and bool(extra_config(cfg).get("enable_multithread_load", default))


def loader_desc(cfg: LaunchConfig) -> str:
    # tqdm desc of weight_utils.py: 0.5.10 :857 / 0.5.23 :1371 "Multi-thread loading shards",
    # 0.5.10 :713 / 0.5.23 :1166 "Loading safetensors checkpoint shards", 0.5.10 :764 / 0.5.23 :1306
    # "Loading safetensors using Fastsafetensor loader" (--load-format fastsafetensors).
    if str(getattr(cfg.args, "load_format", None) or "auto") == "fastsafetensors":
        return "Loading safetensors using Fastsafetensor loader"
    return "Multi-thread loading shards" if multithread(cfg) else "Loading safetensors checkpoint shards"


def host_ram_need_gib(model: ModelSpec, cfg: LaunchConfig, ranks: int) -> float:
    """Peak host RAM while loading: every rank's process plus the shards its loader holds at once
    ("Peak CPU RAM ~ (max_workers + 2) x shard_file_size", buffered_multi_thread_... docstring);
    the single-thread loader maps one shard at a time."""
    shard_gib = modelfs.weight_bytes(model) / max(model.shards, 1) / 2**30
    try:
        threads = int(str(extra_config(cfg).get("num_threads", DEFAULT_THREADS)))
    except ValueError:
        threads = DEFAULT_THREADS
    held = (threads + 2) if multithread(cfg) else 1
    return ranks * (RANK_RSS_GIB + min(held, model.shards) * shard_gib)


def _crash(phase: str, after_s: float, log: list[str], dmesg: list[str] | None = None) -> Effect:
    return Effect.model_validate(
        {"kind": "crash", "phase": phase, "after_s": after_s, "log": log, "dmesg": dmesg or [], "exit_code": 1}
    )


def launch_fault(s: Scenario, cfg: LaunchConfig, model: ModelSpec, now: HostNow, pid: int) -> tuple[Effect, str] | None:
    """The broken-host fault this launch meets first (by phase, then time into it), with an id, or None."""
    visible = s.visible_devices()
    devs = [visible[g] for g in cfg.gpus]
    load_s = model.size_gb / s.timing.load_gb_per_s
    found: list[tuple[Effect, str]] = []
    error = gpuhealth.cuda_init_error(s)
    if error is not None:
        found.append((_crash("init", 0.5, [error]), "cuda-unavailable"))
    if any(g in now.lost for g in cfg.gpus):
        found.append((_crash("init", 1.0, [gpuhealth.cuda_error(s, "unknown error"), _ASYNC]), "gpu-lost"))
    if not gpuhealth.arch_supported(s):
        kernel = gpuhealth.cuda_error(s, "no kernel image is available for execution on the device")
        found.append((_crash("load", 0.0, [kernel, _ASYNC]), "arch-list"))
    if len(cfg.gpus) > 1 and any(d.health.mig is not None for d in devs):
        # A process enumerates one MIG device (NVIDIA's MIG user guide): the second rank has no device.
        found.append((_crash("init", 0.5, ["RuntimeError: CUDA error: invalid device ordinal"]), "mig-one-device"))
    shm = _shm_fault(s, cfg, pid)
    if shm is not None:
        found.append((shm, "shm-too-small"))
    for rank, d in enumerate(devs):
        if d.health.ecc_uncorrectable > 0:
            line = gpuhealth.xid94(d.bus_id, pid + 2 + rank)  # the scheduler of the rank on that GPU
            ecc = gpuhealth.cuda_error(s, "uncorrectable ECC error encountered")
            found.append((_crash("load", load_s * 0.3, [ecc, _ASYNC], [line]), "ecc"))
            break
    if now.ram_free_gib is not None:
        need = host_ram_need_gib(model, cfg, len(cfg.gpus))
        if need > now.ram_free_gib:
            found.append((_oom_kill(s, cfg, pid, load_s * max(now.ram_free_gib, 0.0) / need, need), "host-oom"))
    if model.truncated_shards:
        at = load_s * (min(model.truncated_shards) - 0.5) / model.shards
        bad = "safetensors_rust.SafetensorError: Error while deserializing header: MetadataIncompleteBuffer"
        found.append((_crash("load", at, [bad]), "truncated-shard"))
    for rank, d in enumerate(devs):
        falls = d.health.falls_off_bus
        if falls is not None and cfg.gpus[rank] not in now.falling:
            lines = gpuhealth.loss_lines(s, d, pid + 2 + rank)  # the rank's scheduler held it
            hang = {"kind": "hang", "phase": falls.phase, "after_s": falls.after_s, "dmesg": lines}
            found.append((Effect.model_validate(hang), f"fell-off-bus:{d.bus_id}"))
            break
    if now.cache_free is not None and not now.cache_present and now.cache_free < JIT_CACHE_BYTES:
        path = f"{now.home}/{JIT_CACHE_PATH}"
        found.append(
            (_crash("cuda_graph", 2.0, [f"OSError: [Errno 28] No space left on device: '{path}'"]), "disk-full")
        )
    # The first to strike wins; at a tie, the order above (the order a real start-up meets them).
    return min(found, key=lambda f: (PHASES.index(f[0].phase), f[0].after_s), default=None)


# torch's tail after a CUDA error (tests/corpus/sglang/illegal_memory_access_issue3713.log).
# "uncorrectable ECC error encountered": vllm-project/vllm #5222, sgl-project/sglang #3204.
_ASYNC = (
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
    "might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
)


def shm_need(cfg: LaunchConfig) -> int:
    """Bytes NCCL puts in /dev/shm for one TP group: SHM-transport segments without P2P, proxy state with."""
    tp = cfg.tp
    if tp < 2:
        return 0
    if cfg.p2p_transport:
        return tp * NCCL_PROXY_SHM
    return tp * NCCL_SHM_CHANNELS * 2 * NCCL_SHM_SEGMENT


def _shm_fault(s: Scenario, cfg: LaunchConfig, pid: int) -> Effect | None:
    """NCCL's lines when /dev/shm cannot hold its segments (pytorch/ci-infra PR #490, NCCL 2.2x)."""
    if s.host.shm_mib is None or shm_need(cfg) <= s.host.shm_mib * 2**20:
        return None
    host = s.host.hostname
    seg = "nccl-WU88OE"
    warn = [
        f"{host}:{pid + 3}:{pid + 3} [1] misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/{seg} to "
        f"{NCCL_SHM_SEGMENT + 4} bytes, error: No space left on device (28)",
        f"{host}:{pid + 3}:{pid + 3} [1] misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment "
        f"/dev/shm/{seg} (size {NCCL_SHM_SEGMENT}), error: No space left on device (28)",
    ]
    # torch's wrapper around NCCL's failure, assembled: the NCCL lines and "ncclSystemError: System call
    # (e.g. socket, malloc) or external library call failed or device error." are real (vllm #6574),
    # the ProcessGroupNCCL.cpp line number is not checked against a torch release.
    err = [
        "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
        f"3356, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version {s.software.nccl}",
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
        "Last error:",
        f"Error while creating shared memory segment /dev/shm/{seg} (size {NCCL_SHM_SEGMENT}), error: No space left "
        "on device (28)",
    ]
    return Effect.model_validate({"kind": "crash", "phase": "init", "after_s": 2.0, "log": [*warn, *err]})


def _oom_kill(s: Scenario, cfg: LaunchConfig, pid: int, at: float, need_gib: float) -> Effect:
    """The kernel kills a scheduler (dmesg, equinor/ert #7797 format) and SGLang reports it."""
    victim = pid + 2 + max(len(cfg.gpus) - 1, 0)
    rss_kb = int(need_gib / max(len(cfg.gpus), 1) * 2**20)
    dmesg = [
        "python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
        "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,"
        f"task_memcg=/user.slice/user-1000.slice/session-3.scope,task=sglang::schedul,pid={victim},uid=1000",
        f"Out of memory: Killed process {victim} (sglang::schedul) total-vm:{rss_kb * 2}kB, anon-rss:{rss_kb}kB, "
        f"file-rss:{math.ceil(rss_kb / 40)}kB, shmem-rss:0kB, UID:1000 pgtables:{rss_kb // 500}kB oom_score_adj:0",
    ]
    rank = max(len(cfg.gpus) - 1, 0)
    if version_key(cfg.version) >= (0, 5, 23):
        # 0.5.23 entrypoints/engine.py:2002 _scheduler_died_error
        log = [
            f"RuntimeError: Rank {rank} scheduler died during initialization (exit code: -9). If exit code is -9 "
            "(SIGKILL), a common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check."
        ]
    else:
        # Older releases (text not rechecked per release): the launcher's EOFError on the dead pipe.
        log = [f"Rank {rank} scheduler is dead. Please check if there are relevant logs.", "Exit code: -9", "EOFError"]
    return Effect.model_validate({"kind": "crash", "phase": "load", "after_s": at, "log": log, "dmesg": dmesg})
