"""The lab's physics, checked on what an operator sees: the server's KV pool and request limits in
its log, decode lines that follow the load, retractions, parallel layouts and their GPU needs,
weights per GPU, DP and P2P in benchmark results, client faults, a degrading server, and a
process that takes the port. Expected numbers are computed here from what the lab shows
(config.json, nvidia-smi), not read back from the lab's code."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml

from tools.lab.scenario import SCENARIO_DIR, parse_scenario
from tools.lab.target import LabTarget
from tools.target import DetachedProcess

LLAMA = "/models/Llama-3.3-70B-Instruct"
GIB = 1024**3


def merge(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in changes.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def variant(name: str, changes: dict[str, Any], seed: int = 0) -> LabTarget:
    data = yaml.safe_load((SCENARIO_DIR / f"{name}.yaml").read_text())
    data = merge(data, {"link": {"drop_rate": 0.0}, **changes})
    return LabTarget(parse_scenario(yaml.safe_dump(data), f"{name}-variant.yaml"), seed=seed)


def h200(changes: dict[str, Any] | None = None, seed: int = 0) -> LabTarget:
    """8x H200 (healthy-host) serving Llama-3.3-70B in bf16."""
    model = {"path": LLAMA, "architecture": "LlamaForCausalLM", "size_gb": 141, "layers": 80, "shards": 30}
    base = {
        "models": [model],
        "goal": {"model_path": LLAMA},
        "perf": {"reference_tp": 2, "single_stream_tps": 40, "aggregate_tps": 1500, "at_concurrency": 64},
    }
    return variant("healthy-host", merge(base, changes or {}), seed)


def launch(t: LabTarget, args: str, env: dict[str, str] | None = None) -> DetachedProcess:
    return t.start_detached(f"python3 -m sglang.launch_server --model-path {LLAMA} {args}", name="sglang", env=env)


def settle(t: LabTarget, proc: DetachedProcess) -> str:
    for _ in range(200):
        t.sleep(15)
        if not t.process_status(proc).running:
            return "exited"
        if "ready to roll" in log(t, proc):
            return "ready"
    return "timeout"


def log(t: LabTarget, proc: DetachedProcess) -> str:
    return t.read_file(proc.log_path, max_bytes=1 << 24).decode()


def bench(t: LabTarget, conc: int, prompts: int, in_len: int = 1024, out_len: int = 256) -> Any:
    return t.run(
        "python3 -m sglang.bench_serving --backend sglang --base-url http://127.0.0.1:30000 --dataset-name "
        f"random-ids --random-input-len {in_len} --random-output-len {out_len} --random-range-ratio 1.0 "
        f"--num-prompts {prompts} --max-concurrency {conc}",
        timeout=7200,
    )


def row(block: str, label: str) -> float:
    line = next(x for x in block.splitlines() if x.startswith(label))
    return float(line.split(":", 1)[1])


def operator_kv_tokens(t: LabTarget, frac: float, tp: int) -> int:
    """max_total_num_tokens as an operator would estimate it from the host and the model dir."""
    cfg = json.loads(t.run(f"cat {LLAMA}/config.json").stdout)
    total_mib = int(t.run("nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits").stdout.split()[0])
    weights = int(t.run(f"du -sb {LLAMA}").stdout.split()[0]) / tp / GIB
    pool = total_mib / 1024 * frac - weights - 1.0
    kv_heads = cfg["num_key_value_heads"] // tp
    head_dim = cfg["hidden_size"] // cfg["num_attention_heads"]
    per_token = 2 * cfg["num_hidden_layers"] * kv_heads * head_dim * 2
    return int(pool * GIB / per_token)


def logged(text: str, key: str) -> int:
    return int(re.search(rf"{key}=(\d+)", text).group(1))  # type: ignore[union-attr]


# ---- the server's own limits ----------------------------------------------------------------


@pytest.mark.parametrize("frac", [0.9, 0.6])
def test_kv_pool_follows_memory_weights_and_fraction(frac: float) -> None:
    t = h200()
    proc = launch(t, f"--tp-size 2 --mem-fraction-static {frac}")
    assert settle(t, proc) == "ready"
    text = log(t, proc)
    tokens = logged(text, "max_total_num_tokens")
    assert abs(tokens - operator_kv_tokens(t, frac, 2)) / tokens < 0.01
    assert f"KV Cache is allocated. dtype: torch.bfloat16, #tokens: {tokens}," in text  # 0.5.13+ wording
    assert logged(text, "max_running_requests") == min(tokens // 2, min(max(tokens * 512 // 131072, 2048), 4096))
    assert logged(text, "context_len") == 131072


def test_kv_that_does_not_fit_asks_for_a_higher_fraction() -> None:
    t = h200()
    proc = launch(t, "--tp-size 2 --mem-fraction-static 0.45")  # 63 GiB of 140 cannot hold 66 GiB of weights
    assert settle(t, proc) == "exited"
    assert "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static." in log(t, proc)


def test_weights_that_do_not_fit_oom_while_loading() -> None:
    t = h200({"models": [{"path": LLAMA, "architecture": "LlamaForCausalLM", "size_gb": 160, "layers": 90}]})
    proc = launch(t, "--tp-size 1")  # 149 GiB of weights on a 140 GiB GPU
    assert settle(t, proc) == "exited"
    assert "torch.OutOfMemoryError: CUDA out of memory." in log(t, proc)


def test_max_running_requests_queues_the_rest_and_costs_throughput() -> None:
    free = h200()
    capped = h200()
    launch(free, "--tp-size 2")
    proc = launch(capped, "--tp-size 2 --max-running-requests 8")
    for t in (free, capped):
        t.sleep(400)
    fast, slow = bench(free, 64, 256).stdout, bench(capped, 64, 256).stdout
    assert row(slow, "Output token throughput (tok/s):") < 0.5 * row(fast, "Output token throughput (tok/s):")
    decode = [x for x in log(capped, proc).splitlines() if "Decode batch" in x]
    assert decode and all("#running-req: 8," in x for x in decode)
    assert int(re.search(r"#queue-req: (\d+)", decode[0]).group(1)) > 0  # type: ignore[union-attr]


def test_decode_lines_follow_the_load() -> None:
    t = h200()
    proc = launch(t, "--tp-size 2")
    assert settle(t, proc) == "ready"
    bench(t, 4, 64, out_len=1024)
    bench(t, 64, 512, out_len=1024)
    decode = [x for x in log(t, proc).splitlines() if "Decode batch" in x]
    usages = [float(re.search(r"token usage: ([\d.]+)", x).group(1)) for x in decode]  # type: ignore[union-attr]
    running = {int(re.search(r"#running-req: (\d+)", x).group(1)) for x in decode}  # type: ignore[union-attr]
    assert running == {4, 64}
    assert len(set(usages)) > 4 and max(usages) > 5 * min(usages)


def test_a_small_pool_retracts_and_limits_running_requests() -> None:
    t = h200()
    proc = launch(t, "--tp-size 2 --mem-fraction-static 0.52")
    assert settle(t, proc) == "ready"
    tokens = logged(log(t, proc), "max_total_num_tokens")
    assert tokens < 64 * 2048  # 64 requests of 1024 + 1024 tokens do not fit
    result = bench(t, 64, 256, out_len=1024)
    assert result.exit_code == 0
    text = log(t, proc)
    assert re.search(r"KV cache pool is full\. Retract requests\. #retracted_reqs: \d+, #new_token_ratio: ", text)
    decode = [x for x in text.splitlines() if "Decode batch" in x]
    running = int(re.search(r"#running-req: (\d+)", decode[0]).group(1))  # type: ignore[union-attr]
    assert running < 64 and running * 1024 <= tokens
    assert any("token usage: 1.00" in x for x in decode)


# ---- parallel layouts ------------------------------------------------------------------------


def test_tp4_dp2_needs_eight_visible_gpus() -> None:
    t = h200()
    proc = launch(t, "--tp-size 4 --dp-size 2", env={"CUDA_VISIBLE_DEVICES": "0,1,2,3"})
    assert settle(t, proc) == "exited"
    assert "RuntimeError: CUDA error: invalid device ordinal" in log(t, proc)
    t2 = h200()
    proc2 = launch(t2, "--tp-size 4 --dp-size 2")
    assert settle(t2, proc2) == "ready"
    text = log(t2, proc2)
    assert "DP1 TP3] Init parallel begin." in text  # healthy-host runs 0.5.23: 0.5.21+ wording
    assert len(re.findall(r"max_total_num_tokens=", text)) == 2  # one scheduler per replica
    apps = t2.run("nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader").stdout.splitlines()
    assert len(apps) == 8 and apps[-1].endswith("sglang::scheduler_DP1_TP3")


def test_pipeline_stages_divide_the_weights_per_gpu() -> None:
    usage = {}
    for args in ("--tp-size 2", "--tp-size 2 --pp-size 2"):
        t = h200()
        proc = launch(t, args)
        assert settle(t, proc) == "ready"
        usage[args] = float(re.search(r"Load weight end\..* mem usage=([\d.]+) GB", log(t, proc)).group(1))  # type: ignore[union-attr]
    assert usage["--tp-size 2 --pp-size 2"] == pytest.approx(usage["--tp-size 2"] / 2, rel=0.01)
    assert usage["--tp-size 2"] == pytest.approx(141e9 / 2 / GIB, rel=0.01)


def test_dp_attention_keeps_dp_inside_the_tp_group() -> None:
    t = h200()
    proc = launch(t, "--tp-size 8 --dp-size 8 --enable-dp-attention")
    assert settle(t, proc) == "ready"  # 8 GPUs, not 64
    t2 = h200()
    proc2 = launch(t2, "--tp-size 8 --dp-size 8")
    assert settle(t2, proc2) == "exited" and "invalid device ordinal" in log(t2, proc2)


def test_dp_avoids_the_all_reduce_that_has_no_p2p() -> None:
    """A PCIe host whose TP all-reduce runs without P2P: TP8 tops out, TP4 x DP2 goes further."""
    changes = {
        "gpus": {"interconnect": "pcie"},
        "topology": {"p2p_read": "NS"},
        "perf": {"reference_tp": 4, "pcie_without_p2p": 0.5, "noise_pct": 0.0},
    }
    result = {}
    for args in ("--tp-size 8", "--tp-size 4 --dp-size 2", "--tp-size 4"):
        t = h200(changes)
        proc = launch(t, args)
        assert settle(t, proc) == "ready"
        result[args] = row(bench(t, 64, 512).stdout, "Output token throughput (tok/s):")
    assert result["--tp-size 4 --dp-size 2"] > 1.2 * result["--tp-size 8"]
    assert result["--tp-size 4 --dp-size 2"] > 1.2 * result["--tp-size 4"]


# ---- faults on the client side, a degrading server, a stolen port ---------------------------


def test_client_faults_lose_requests_deterministically() -> None:
    outputs = []
    for _ in range(2):
        t = h200({"perf": {"client_faults": {"reset_rate": 0.1}}}, seed=7)
        launch(t, "--tp-size 2")
        t.sleep(400)
        outputs.append(bench(t, 64, 200).stdout)
    done = row(outputs[0], "Successful requests:")
    assert 150 < done < 200 and outputs[0] == outputs[1]


def test_a_failing_warmup_prints_bench_servings_traceback() -> None:
    t = h200({"perf": {"client_faults": {"run_fail_rate": 1.0}}})
    launch(t, "--tp-size 2")
    t.sleep(400)
    result = bench(t, 64, 200)
    assert result.exit_code == 1 and "Serving Benchmark Result" not in result.stdout
    assert "ValueError: Warmup failed - Please make sure benchmark arguments are correctly specified." in result.stderr
    assert "Connection reset by peer" in result.stderr
    assert t.run("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:30000/health").stdout == "200"


def test_a_server_that_degrades_after_a_while() -> None:
    t = h200({"perf": {"degrade": {"after_s": 1800, "factor": 0.5}, "noise_pct": 0.0}})
    proc = launch(t, "--tp-size 2")
    assert settle(t, proc) == "ready"
    first = row(bench(t, 64, 256).stdout, "Output token throughput (tok/s):")
    t.sleep(2000)
    later = row(bench(t, 64, 256).stdout, "Output token throughput (tok/s):")
    assert later == pytest.approx(first * 0.5, rel=0.05)
    gen = [
        float(x.rsplit("gen throughput (token/s): ", 1)[1].split(",")[0])
        for x in log(t, proc).splitlines()
        if "Decode batch" in x
    ]
    assert min(gen) < 0.6 * max(gen)


def test_a_process_takes_the_port_while_the_model_loads() -> None:
    squatter = {
        "pid": 52110,
        "user": "ops",
        "args": "python3 -m http.server 30000",
        "port": 30000,
        "starts_at_s": 60,
        "answers": "http-404",
    }
    t = h200({"processes": [squatter]})
    proc = launch(t, "--tp-size 2 --port 30000")
    assert settle(t, proc) == "exited"
    text = log(t, proc)
    assert "[Errno 98] error while attempting to bind on address ('127.0.0.1', 30000): address already in use" in text
    assert t.process_status(proc).exit_code == 3
    listing = t.run("ss -ltnp").stdout
    assert 'users:(("python3",pid=52110' in listing
    assert "52110" in t.run("lsof -i :30000").stdout
    fuser = t.run("fuser 30000/tcp")
    assert fuser.stdout.split() == ["52110"] and fuser.stderr.startswith("30000/tcp:")
    assert t.run("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:30000/health").stdout == "404"


def test_a_waiting_process_takes_the_port_when_the_server_stops() -> None:
    squatter = {
        "pid": 52110,
        "user": "ops",
        "args": "/usr/bin/python3 /opt/app/serve.py",
        "port": 30000,
        "starts_at_s": 900,
        "answers": "reset",
    }
    t = h200({"processes": [squatter]})
    proc = launch(t, "--tp-size 2 --port 30000")
    assert settle(t, proc) == "ready"
    t.sleep(1000)
    assert "52110" in t.run("ps -eo pid,args").stdout  # running, waiting for the port
    assert "52110" not in t.run("lsof -i :30000").stdout
    assert t.run("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:30000/health").stdout == "200"
    t.stop_process(proc)
    t.sleep(5)
    assert t.run("lsof -t -i :30000").stdout == "52110\n"
    health = t.run("curl -sS http://127.0.0.1:30000/health")
    assert health.exit_code == 56 and "Connection reset by peer" in health.stderr


def test_mistakes_in_the_new_fields_are_named_by_path_and_line() -> None:
    text = (SCENARIO_DIR / "healthy-host.yaml").read_text()
    text = text.replace("perf:\n", "perf:\n  client_faults: {reset_rte: 0.1}\n  degrade: {factor: 0.5}\n", 1)
    with pytest.raises(Exception) as err:
        parse_scenario(text, "bad.yaml")
    message = str(err.value)
    assert re.search(r"perf\.client_faults\.reset_rte \(line \d+\): unknown field", message)
    assert re.search(r"perf\.degrade \(line \d+\): .*degrade needs after_s or after_requests", message)


def test_an_mla_model_logs_one_kv_pool() -> None:
    t = variant("renamed-flag", {})
    model = t.scenario.goal.model_path
    proc = t.start_detached(f"python3 -m sglang.launch_server --model-path {model} --tp-size 8", name="sglang")
    for _ in range(60):
        t.sleep(15)
        if "KV Cache is allocated" in log(t, proc):
            break
    line = next(x for x in log(t, proc).splitlines() if "KV Cache is allocated" in x)
    assert re.search(r"#tokens: \d+, KV size: [\d.]+ GB$", line)
    cfg = json.loads(t.run(f"cat {model}/config.json").stdout)
    assert cfg["kv_lora_rank"] == 512 and cfg["qk_rope_head_dim"] == 64 and "n_routed_experts" in cfg
