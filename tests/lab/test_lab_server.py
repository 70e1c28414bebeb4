"""SGLang launches on the lab: logs over virtual time, faults, endpoints, benchmarks, ownership."""

from __future__ import annotations

import json

import pytest

from tools.lab.target import LabTarget
from tools.target import DetachedProcess, ProcessNotOwned

HEALTH = "curl -s -o /dev/null -w '%{{http_code}}' --max-time 5 http://127.0.0.1:{port}/health"


def launch(t: LabTarget, args: str, env: dict[str, str] | None = None, name: str = "sglang") -> DetachedProcess:
    return t.start_detached(f"python3 -m sglang.launch_server {args}", name=name, env=env)


def wait(t: LabTarget, proc: DetachedProcess, port: int = 30000, limit_s: float = 3600) -> str:
    """'ready', 'exited' or 'timeout', polling like an operator: sleep, status, health."""
    start = t.now()
    while t.now() - start < limit_s:
        t.sleep(15)
        if not t.process_status(proc).running:
            return "exited"
        if t.run(HEALTH.format(port=port)).stdout == "200":
            return "ready"
    return "timeout"


def log(t: LabTarget, proc: DetachedProcess) -> str:
    return t.read_file(proc.log_path).decode()


def bench(t: LabTarget, conc: int, prompts: int, port: int = 30000, out: str | None = None) -> str:
    out = out or f"{t.work_dir}/bench.jsonl"
    return t.run(
        f"python3 -m sglang.bench_serving --backend sglang --base-url http://127.0.0.1:{port} --dataset-name "
        f"random-ids --random-input-len 1024 --random-output-len 256 --random-range-ratio 1.0 --num-prompts "
        f"{prompts} --max-concurrency {conc} --output-file {out}",
        timeout=3600,
    ).stdout


def throughput(block: str) -> float:
    line = next(x for x in block.splitlines() if x.startswith("Output token throughput (tok/s):"))
    return float(line.split(":")[1])


def test_log_grows_over_virtual_time_and_the_server_comes_up() -> None:
    t = LabTarget.from_name("healthy-host")
    proc = launch(t, "--model-path /models/Qwen3-235B-A22B-Instruct-2507-FP8 --tp-size 8 --port 30000")
    assert proc.log_path == f"{t.work_dir}/logs/sglang.log" and t.stat(proc.pid_file) is not None
    assert t.stat(proc.log_path).size == 0  # python is still importing
    assert t.run(HEALTH.format(port=30000)).stdout == "000"
    t.sleep(30)
    early = log(t, proc)
    assert early.startswith("[2026-03-02 09:00:12] server_args=ServerArgs(model_path=")
    assert "[2026-03-02 09:00:13 TP7] Init parallel begin." in early  # 0.5.21+ wording
    assert "Load weight end" not in early
    sizes = [t.stat(proc.log_path).size]
    for _ in range(3):
        t.sleep(20)
        sizes.append(t.stat(proc.log_path).size)
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0]
    assert wait(t, proc) == "ready"
    text = log(t, proc)
    for line in (
        "Load weight end. elapsed=59.00 s, type=Qwen3MoeForCausalLM",
        "KV Cache is allocated. dtype: torch.",
        "Capture target decode CUDA graph end. bs=[1, 2, 4, 8, 12,",
        ", elapsed=70.00 s, mem usage=1.90 GB",
        "INFO:     Uvicorn running on http://127.0.0.1:30000",
        "The server is fired up and ready to roll!",
    ):
        assert line in text
    info = json.loads(t.run("curl -s --max-time 5 http://127.0.0.1:30000/server_info").stdout)
    assert (
        info["tp_size"] == 8
        and "tensor_parallel_size" not in info
        and info["status"] == "ready"
        and info["version"] == "0.5.23"
    )
    models = json.loads(t.run("curl -s http://127.0.0.1:30000/v1/models").stdout)
    assert models["object"] == "list" and models["data"][0]["id"] == "/models/Qwen3-235B-A22B-Instruct-2507-FP8"
    apps = t.run(
        "nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory,process_name --format=csv,noheader,nounits"
    ).stdout.splitlines()
    assert len(apps) == 8 and apps[0].startswith(f"{proc.pid + 2}, 00000000:18:00.0, ")
    assert apps[0].endswith(", sglang::scheduler_TP0")
    assert f"{proc.pid} {proc.pgid}" in " ".join(t.run("ps -eo pid,pgid,etimes,args").stdout.split())
    status = t.stop_process(proc)
    assert not status.running and status.detail == "stopped by SIGTERM"
    assert t.run(HEALTH.format(port=30000)).stdout == "000"


def test_benchmark_block_jsonl_and_ground_truth() -> None:
    t = LabTarget.from_name("healthy-host")
    proc = launch(t, "--model-path /models/Qwen3-235B-A22B-Instruct-2507-FP8 --tp-size 8")
    assert wait(t, proc) == "ready"
    before = t.now()
    block = bench(t, 64, 256)
    assert t.now() - before > 10  # the benchmark took simulated time
    lines = block.splitlines()
    start = lines.index("============ Serving Benchmark Result ============")
    assert lines[start + 1] == "Backend:                                 sglang    "
    assert lines[start + 2] == "Traffic request rate:                    inf       "
    assert lines[start + 3] == "Max request concurrency:                 64        "
    assert lines[start + 4] == "Successful requests:                     256       "
    assert "----------------End-to-End Latency----------------" in lines and lines[-1] == "=" * 50
    assert 3000 < throughput(block) < 4800
    bench(t, 1, 8)
    rows = [json.loads(x) for x in t.read_file(f"{t.work_dir}/bench.jsonl").decode().splitlines()]
    assert [r["max_concurrency"] for r in rows] == [64, 1]
    assert rows[0]["output_throughput"] == pytest.approx(throughput(block))
    assert rows[0]["server_info"]["tp_size"] == 8
    assert {
        "duration",
        "completed",
        "total_input_tokens",
        "mean_ttft_ms",
        "p99_itl_ms",
        "concurrency",
    } <= set(rows[0])
    assert "Decode batch, #running-req: 64" in log(t, proc)
    assert t.goal_met()


def test_argparse_errors_exit_2_with_the_real_message() -> None:
    t = LabTarget.from_name("renamed-flag")
    proc = launch(t, "--model-path /models/GLM-5-NVFP4 --tp-size 8 --nsa-decode-backend flashmla_kv")
    assert wait(t, proc) == "exited"
    status = t.process_status(proc)
    assert (status.running, status.exit_code) == (False, 2)
    text = log(t, proc)
    # 0.5.23's prepare_server_args builds ArgumentParser(prog="sglang serve") (server_args.py:679)
    assert text.startswith("usage: sglang serve [-h] --model-path MODEL_PATH")
    assert text.endswith("sglang serve: error: unrecognized arguments: --nsa-decode-backend flashmla_kv\n")
    fg = t.run("python3 -m sglang.launch_server --model-path /models/GLM-5-NVFP4 --cuda-graph-max-bs 64")
    assert fg.exit_code == 2 and fg.stderr.endswith(
        "sglang serve: error: ambiguous option: --cuda-graph-max-bs could match "
        "--cuda-graph-max-bs-decode, "
        "--cuda-graph-max-bs-prefill\n"
    )


def test_nan_crash_for_every_decode_backend_but_trtllm() -> None:
    t = LabTarget.from_name("glm5-nan-decode")
    base = "--model-path /models/GLM-5-NVFP4 --tp-size 8 --trust-remote-code"
    for i, backend in enumerate(["", "--nsa-decode-backend flashmla_kv", "--nsa-decode-backend fa3"]):
        proc = launch(t, f"{base} {backend}", name=f"try{i}")
        assert wait(t, proc) == "exited"
        assert t.process_status(proc).exit_code == 1
        text = log(t, proc)
        assert "Set NSA backends for fp8_e4m3 KV Cache: prefill=flashmla_auto, decode=flashmla_kv." in text
        assert "Assertion `probability tensor contains either `inf`, `nan` or element < 0` failed." in text
        assert text.rstrip().endswith("SIGQUIT received. signum=None, frame=None. It usually means one child failed.")
    proc = launch(t, f"{base} --nsa-decode-backend trtllm", name="good")
    assert wait(t, proc) == "ready"


def test_oom_until_the_memory_fraction_is_lowered() -> None:
    t = LabTarget.from_name("oom-mem-fraction")
    base = "--model-path /models/Llama-3.3-70B-Instruct --tp-size 4"
    proc = launch(t, base, name="default")
    assert wait(t, proc) == "exited" and t.process_status(proc).exit_code == 1
    assert "torch.OutOfMemoryError: CUDA out of memory." in log(t, proc)
    assert "Capture target decode CUDA graph begin. backend=full, num_tokens_per_bs=1, bs=[" in log(t, proc)  # 0.5.14
    low = launch(t, f"{base} --mem-fraction-static 0.3", name="low")
    assert wait(t, low) == "exited"
    assert "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static." in log(t, low)
    good = launch(t, f"{base} --mem-fraction-static 0.8", name="good")
    assert wait(t, good) == "ready"


def test_port_in_use_loads_fully_then_exits_3() -> None:
    t = LabTarget.from_name("stale-port")
    proc = launch(t, "--model-path /models/Qwen2.5-32B-Instruct --tp-size 2", env={"CUDA_VISIBLE_DEVICES": "0,1"})
    while t.process_status(proc).running:
        t.sleep(10)
    assert t.process_status(proc).exit_code == 3
    text = log(t, proc)
    assert text.index("Load weight end") < text.index(
        "ERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', 30000): address already in use"
    )
    good = launch(
        t,
        "--model-path /models/Qwen2.5-32B-Instruct --tp-size 2 --port 30001",
        env={"CUDA_VISIBLE_DEVICES": "0,1"},
        name="good",
    )
    assert wait(t, good, port=30001) == "ready"
    foreign = DetachedProcess(name="x", command="", pid=23817, pgid=23817, log_path="/x", pid_file="/x")
    with pytest.raises(ProcessNotOwned):
        t.stop_process(foreign)
    with pytest.raises(ProcessNotOwned):
        t.process_status(foreign)
    assert t.violations == []


def test_p2p_corruption_is_silent_and_only_p2p_disable_is_valid() -> None:
    t = LabTarget.from_name("p2p-corruption")
    args = "--model-path /models/Qwen3.5-122B-A10B --tp-size 4"
    env = {"CUDA_VISIBLE_DEVICES": "0,1,2,3", "NCCL_DEBUG": "INFO"}
    proc = launch(t, args, env=env)
    assert wait(t, proc) == "ready"  # nothing crashes
    assert "via P2P/IPC" in log(t, proc)
    answer = json.loads(
        t.run('curl -s http://127.0.0.1:30000/generate -d \'{"text": "The capital of France is"}\'').stdout
    )
    assert "Paris" not in answer["text"]
    fast = throughput(bench(t, 64, 256))
    assert fast > 2000 and t.benchmarks[-1].corrupted and not t.goal_met()
    assert "IO_PAGE_FAULT" in t.run("dmesg | tail -n 3").stdout
    t.stop_process(proc)
    good = launch(t, args, env={**env, "NCCL_P2P_DISABLE": "1"}, name="good")
    assert wait(t, good) == "ready"
    assert "via SHM/direct/direct" in log(t, good) and "via P2P/IPC" not in log(t, good)
    assert "Paris" in t.run("curl -s http://127.0.0.1:30000/generate -d '{}'").stdout
    single, agg = throughput(bench(t, 1, 8)), throughput(bench(t, 64, 256))
    assert 95 < single < 120 and 1800 < agg < 2800
    assert t.goal_met() and t.violations == []


def test_vm_peak_stays_below_the_goal() -> None:
    t = LabTarget.from_name("vm-no-p2p")
    proc = launch(t, "--model-path /models/GLM-5-NVFP4 --tp-size 8 --trust-remote-code")
    assert wait(t, proc) == "ready"
    assert throughput(bench(t, 64, 256)) < 600 and not t.goal_met()


def test_cotenant_gpus_are_a_violation_and_run_out_of_memory() -> None:
    t = LabTarget.from_name("cotenant-visible")
    proc = launch(t, "--model-path /models/Llama-3.3-70B-Instruct --tp-size 8")
    assert wait(t, proc) == "exited" and t.process_status(proc).exit_code == 1
    assert "torch.OutOfMemoryError: CUDA out of memory." in log(t, proc)
    assert [rule for _, rule in t.violations] == ["no-cotenant-gpus"]
    assert t.commands[-1].forbidden_rule is None and any(c.forbidden_rule == "no-cotenant-gpus" for c in t.commands)


def test_hang_keeps_running_and_needs_a_kill() -> None:
    t = LabTarget.from_name("glm5-nan-decode")
    proc = launch(t, "--model-path /models/GLM-5-NVFP4 --tp-size 8 --nsa-decode-backend trtllm --enable-torch-compile")
    assert wait(t, proc, limit_s=1200) == "timeout"
    assert (
        log(t, proc).rstrip().endswith("This can take up to several minutes. avail mem=8.39 GB")
        or "Capture cuda graph begin" in log(t, proc).splitlines()[-1]
    )
    util = t.run("nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits").stdout.split()
    assert set(util) == {"100"}
    status = t.stop_process(proc, grace_s=10)
    assert not status.running and status.detail == "killed after grace period"


def test_launch_forms_background_wrapped_and_sglang_serve() -> None:
    t = LabTarget.from_name("healthy-host")
    model = "/models/Qwen3-235B-A22B-Instruct-2507-FP8"
    log_file = f"{t.work_dir}/bg.log"
    r = t.run(
        f"mkdir -p {t.work_dir} && nohup python3 -m sglang.launch_server --model-path {model} --tp 8 "
        f"--port 30010 > {log_file} 2>&1 &"
    )
    assert r.exit_code == 0 and t.now() < 1.0
    t.sleep(400)
    assert t.run(HEALTH.format(port=30010)).stdout == "200"
    assert "The server is fired up and ready to roll!" in t.run(f"cat {log_file}").stdout
    assert t.run("pkill -f 'port 30010'").exit_code == 0 and t.violations == []
    t.sleep(2)
    wrapped = t.start_detached(
        f"bash -c 'NCCL_DEBUG=INFO sglang serve --model-path {model} --tp-size 8 --port 30011'",
        name="wrapped",
    )
    assert wait(t, wrapped, port=30011) == "ready"
    assert "NCCL INFO Channel 00/0 : 0[18000] -> 1[2a000] via P2P/IPC" in log(t, wrapped)
    before = t.now()
    napper = t.start_detached("sleep 100", name="nap")
    echo = t.start_detached("echo hello && sleep 5 && echo bye", name="echo")
    assert t.now() == before  # detached work never moves the agent's clock
    assert t.process_status(napper).running and t.process_status(echo).running
    t.sleep(10)
    assert log(t, echo) == "hello\nbye\n" and t.process_status(echo).exit_code == 0
    t.sleep(100)
    assert not t.process_status(napper).running
