"""The standard deployment sequence, run through any `Target`: observe the host, check P2P
integrity, launch SGLang, wait for health, benchmark, read the log, stop. Used by the lab's
benchmark (benchmarks/bench_lab.py) and tests; it is a fixed script, not an agent."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from tools.target import Target

OBSERVE = [
    "nvidia-smi --query-gpu=index,name,pci.bus_id,memory.used,memory.total,utilization.gpu,temperature.gpu,"
    "power.draw --format=csv,noheader,nounits",
    "nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory,process_name --format=csv,noheader,nounits",
    "nvidia-smi",
    "nvidia-smi --version",
    "nvidia-smi topo -m",
    "nvidia-smi topo -p2p r",
    "systemd-detect-virt",
    "cat /proc/cmdline",
    "lspci -nnk",
    "dmesg | tail -n 50",
    "python3 -c 'import torch; print(torch.__version__); print(torch.version.cuda); "
    'print(".".join(map(str, torch.cuda.nccl.version())))\'',
    "python3 -c 'import sglang; print(sglang.__version__)'",
    "python3 -m sglang.launch_server --help",
    "ss -ltnp",
    "ps -eo pid,pgid,etimes,args",
]

P2P_SCRIPT = b"""#!/usr/bin/env python3
# P2P integrity check: copy a known pattern between every pair of GPUs and compare.
"""


@dataclass
class DrillStep:
    command: str
    exit_code: int | None
    stdout: str
    stderr: str


@dataclass
class DrillResult:
    steps: list[DrillStep] = field(default_factory=list)
    ready: bool = False
    throughputs: dict[int, float] = field(default_factory=dict)  # concurrency -> output tok/s


def _launch_spec(
    target: Target, model: str, gpus: list[int], reference: tuple[str, dict[str, str]] | None, port: int
) -> tuple[str, dict[str, str]]:
    if reference is not None:
        return reference
    env = {"CUDA_VISIBLE_DEVICES": ",".join(map(str, gpus))}
    cmd = f"python3 -m sglang.launch_server --model-path {shlex.quote(model)} --tp-size {len(gpus)} --port {port}"
    del target
    return cmd, env


def run_drill(
    target: Target,
    *,
    model: str,
    gpus: list[int],
    concurrency: int,
    reference: tuple[str, dict[str, str]] | None = None,
    port: int = 30000,
) -> DrillResult:
    out = DrillResult()
    if reference is not None:
        words = shlex.split(reference[0])
        if "--port" in words:
            port = int(words[words.index("--port") + 1])

    def run(command: str, timeout: float = 120.0) -> DrillStep:
        r = target.run(command, timeout=timeout)
        step = DrillStep(command, r.exit_code, r.stdout, r.stderr)
        out.steps.append(step)
        return step

    for command in OBSERVE:
        run(command)
    work = target.work_dir
    run(f"mkdir -p {work}")
    target.write_file(f"{work}/p2p_check.py", P2P_SCRIPT)
    run(f"python3 {work}/p2p_check.py --gpus {','.join(map(str, range(len(gpus))))} --size-mb 64")
    run(f"ss -ltnH 'sport = :{port}'")
    command, env = _launch_spec(target, model, gpus, reference, port)
    proc = target.start_detached(command, name="sglang-drill", env=env)
    for _ in range(120):
        target.sleep(15)
        status = target.process_status(proc)
        if not status.running:
            break
        code = run(f"curl -s -o /dev/null -w '%{{http_code}}' --max-time 5 http://127.0.0.1:{port}/health")
        if code.stdout == "200":
            out.ready = True
            break
    if out.ready:
        run(f"curl -s --max-time 5 http://127.0.0.1:{port}/server_info")
        run(f"curl -s --max-time 5 http://127.0.0.1:{port}/v1/models")
        for conc, prompts in ((1, 8), (concurrency, concurrency * 4)):
            step = run(
                f"python3 -m sglang.bench_serving --backend sglang --base-url http://127.0.0.1:{port} "
                "--dataset-name random-ids --random-input-len 1024 --random-output-len 256 "
                "--random-range-ratio 1.0 "
                f"--num-prompts {prompts} --max-concurrency {conc} --output-file {work}/bench.jsonl",
                timeout=3600,
            )
            for line in step.stdout.splitlines():
                if line.startswith("Output token throughput (tok/s):"):
                    out.throughputs[conc] = float(line.split(":", 1)[1])
        run(f"tail -n 5 {work}/bench.jsonl")
    info = target.stat(proc.log_path)
    if info is not None:
        text = target.read_file(proc.log_path, offset=max(info.size - 4000, 0)).decode(errors="replace")
        out.steps.append(DrillStep(f"read_file {proc.log_path}", 0, text, ""))
    status = target.process_status(proc)
    if status.running:
        target.stop_process(proc)
    run("dmesg | tail -n 5")
    run(OBSERVE[1])
    return out
