"""Broken hosts (SCHEMA.md, "Broken hosts"): each way a GPU host breaks is host state, and what the
tools print follows from it. Every test reads only what an operator would run: nvidia-smi, lspci,
dmesg, df, python3, the server's log, bench_serving."""

from __future__ import annotations

import copy
import json
import re
import struct
from typing import Any

import pytest
import yaml

from tests.lab.test_lab_physics import LLAMA, bench, h200, launch, log, row, settle
from tools.lab.scenario import SCENARIO_DIR, ScenarioError, parse_scenario
from tools.lab.target import LabTarget
from tools.sglang.wait import _phase

BASE = yaml.safe_load((SCENARIO_DIR / "healthy-host.yaml").read_text())
DEVICES: list[dict[str, Any]] = BASE["gpus"]["devices"]
LLAMA_SPEC = {"path": LLAMA, "architecture": "LlamaForCausalLM", "size_gb": 141, "layers": 80, "shards": 30}


def sick(index: int, health: dict[str, Any], extra: dict[str, Any] | None = None) -> LabTarget:
    """healthy-host's 8x H200 with GPU `index` in the given health."""
    devices = copy.deepcopy(DEVICES)
    devices[index] = {**devices[index], "health": health}
    return h200({"gpus": {"devices": devices}, **(extra or {})})


def bus(index: int) -> str:
    return str(DEVICES[index]["bus_id"])


def out(t: LabTarget, command: str) -> str:
    return t.run(command).stdout


# ---- a GPU that fell off the bus ---------------------------------------------------------------


def test_a_lost_gpu_stays_lost_in_every_tool() -> None:
    t = sick(3, {"lost": True})
    addr = bus(3)  # 0000:5d:00.0
    table = out(t, "nvidia-smi")
    row3 = next(x for x in table.splitlines() if "00000000:5D:00.0" in x)
    assert "ERR!" in row3 and "ERR!  ERR!  ERR!" in table
    listing = t.run("nvidia-smi -L")
    assert f"Unable to determine the device handle for GPU0000:{addr[5:].upper()}: Unknown Error" in listing.stdout
    assert listing.exit_code == 15 and "GPU 2: NVIDIA H200" in listing.stdout
    query = t.run("nvidia-smi --query-gpu=index,memory.used --format=csv,noheader")
    assert "3, [GPU is lost]" in query.stdout and query.exit_code == 15
    assert f"{addr[5:]} 3D controller" in out(t, "lspci") and "(rev ff)" in out(t, f"lspci -s {addr[5:]}")
    kernel = out(t, "dmesg")
    assert f"NVRM: Xid (PCI:{addr[:-2]}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." in kernel
    assert f"NVRM: GPU {addr}: GPU has fallen off the bus." in kernel
    proc = launch(t, "--tp-size 4")  # GPUs 0-3
    assert settle(t, proc) == "exited"
    assert "CUDA error: unknown error" in log(t, proc)
    ok = launch(t, "--tp-size 4 --port 30001", env={"CUDA_VISIBLE_DEVICES": "4,5,6,7"})
    assert settle(t, ok) == "ready"


def test_a_gpu_that_falls_off_the_bus_while_loading_stalls_the_loader() -> None:
    t = sick(1, {"falls_off_bus": {"phase": "load", "after_s": 20}})
    assert "ERR!" not in out(t, "nvidia-smi")
    proc = launch(t, "--tp-size 2")
    t.sleep(240)
    assert t.process_status(proc).running  # stuck, not crashed
    text = log(t, proc)
    bars = [x for x in text.splitlines() if "Multi-thread loading shards" in x]
    assert bars and "100% Completed" not in text and "Load weight end" not in text
    phase = "starting"
    for line in text.splitlines():
        phase = _phase(line, phase)
    assert phase == "loading weights (50%)"  # where the bar stopped, not "starting"
    assert "ERR!" in out(t, "nvidia-smi")
    xid = re.search(r"Xid \(PCI:0000:2a:00\): 79, pid=(\d+), name=python3, GPU has fallen", out(t, "dmesg"))
    assert xid is not None and xid.group(1) in out(t, "ps -eo pid,comm")  # the rank on GPU 1
    t.stop_process(proc)
    again = launch(t, "--tp-size 2")
    assert settle(t, again) == "exited"  # it stays lost


# ---- another user's memory, MIG --------------------------------------------------------------


def test_another_users_40_gib_shows_and_ooms_a_launch_that_needs_it() -> None:
    big = {**LLAMA_SPEC, "size_gb": 110, "layers": 70}
    proc_spec = {
        "pid": 51234,
        "user": "alice",
        "args": "python3 train.py",
        "gpu_memory_mib": {0: 40960},
        "gpu_busy": True,
    }
    t = h200({"models": [big], "processes": [proc_spec]})
    table = out(t, "nvidia-smi")
    assert re.search(r"\|\s+0\s+N/A\s+N/A\s+51234\s+C\s+python3\s+40960MiB", table)
    assert "40960MiB / 143771MiB" in table
    proc = launch(t, "--tp-size 1")  # 102 GiB of weights next to 40 GiB held
    assert settle(t, proc) == "exited" and "torch.OutOfMemoryError: CUDA out of memory." in log(t, proc)
    elsewhere = launch(t, "--tp-size 1 --port 30001", env={"CUDA_VISIBLE_DEVICES": "1"})
    assert settle(t, elsewhere) == "ready"


def test_mig_instances_show_and_cuda_sees_one_instance() -> None:
    t = sick(0, {"mig": {"instances": ["3g.71gb", "3g.71gb"]}})
    listing = out(t, "nvidia-smi -L")
    assert re.search(r"^  MIG 3g\.71gb +Device  0: \(UUID: MIG-[0-9a-f-]+\)$", listing, re.M)
    assert "Device  1:" in listing
    full = out(t, "nvidia-smi -q")
    assert re.search(r"MIG Mode\n\s+Current\s+: Enabled", full)
    assert "MIG devices:" in out(t, "nvidia-smi") and "71424MiB" in out(t, "nvidia-smi")
    one = launch(t, "--tp-size 1")  # 141 GB of weights in one 70 GiB instance
    assert settle(t, one) == "exited"
    assert re.search(r"GPU 0 has a total capacity of 68\.\d\d GiB", log(t, one))
    two = launch(t, "--tp-size 2 --port 30001")
    assert settle(t, two) == "exited" and "invalid device ordinal" in log(t, two)


# ---- disks ---------------------------------------------------------------------------------


def disk_host() -> LabTarget:
    fs = [
        {"mount": "/", "size_gb": 400, "used_gb": 300},
        {
            "mount": "/home",
            "size_gb": 100,
            "used_gb": 99.5,
            "files": [{"path": "/home/ops/.cache/huggingface/hub/old-checkpoint.bin", "size_gb": 40}],
        },
    ]
    return h200({"host": {"filesystems": fs}})


def test_df_enospc_and_cleaning_up() -> None:
    t = disk_host()
    df = out(t, "df -h /home/ops")
    assert re.search(r"/dev/nvme0n1p2\s+94G\s+93G\s+0\s+100% /home", df)
    assert "No space left on device" in t.run("echo data > /home/ops/notes.txt").stderr
    t.run("rm -rf /home/ops/.cache/huggingface")
    assert re.search(r"\s+94G\s+56G\s+34G\s+63% /home", out(t, "df -h /home"))
    assert t.run("echo data > /home/ops/notes.txt").exit_code == 0


def test_a_full_home_fails_the_jit_cache_and_the_cache_fills_it() -> None:
    t = disk_host()
    proc = launch(t, "--tp-size 2")
    assert settle(t, proc) == "exited"
    assert "OSError: [Errno 28] No space left on device: '/home/ops/.cache/flashinfer/" in log(t, proc)
    t.run("rm -rf /home/ops/.cache/huggingface")
    before = int(out(t, "df /home").splitlines()[1].split()[2])
    ok = launch(t, "--tp-size 2")
    assert settle(t, ok) == "ready"
    after = int(out(t, "df /home").splitlines()[1].split()[2])
    assert abs(after - before - 1_400_000_000 // 1024) <= 1  # the JIT cache now lives there (1K blocks)


# ---- model shards ----------------------------------------------------------------------------


def test_a_truncated_shard_disagrees_with_the_index_and_fails_the_load() -> None:
    t = h200({"models": [{**LLAMA_SPEC, "truncated_shards": {7: 0.4}}]})
    name = "model-00007-of-00030.safetensors"
    got = out(t, f"python3 -c \"import os; print(os.path.getsize('{LLAMA}/{name}'))\"")
    whole = out(t, f"python3 -c \"import os; print(os.path.getsize('{LLAMA}/model-00006-of-00030.safetensors'))\"")
    assert int(got) == int(int(whole) * 0.4)
    assert str(141 * 10**9) in out(t, f"head -c 200 {LLAMA}/model.safetensors.index.json")  # the index still says all
    head = t.read_file(f"{LLAMA}/{name}", max_bytes=1 << 20)
    length = struct.unpack("<Q", head[:8])[0]
    header = json.loads(head[8 : 8 + length])
    declared = 8 + length + max(v["data_offsets"][1] for k, v in header.items() if k != "__metadata__")
    assert declared == int(whole) and int(got) < declared  # the header wants more bytes than the file has
    assert all(header[k]["dtype"] == "BF16" for k in header if k.startswith("model.layers"))
    proc = launch(t, "--tp-size 2")
    assert settle(t, proc) == "exited"
    text = log(t, proc)
    assert "safetensors_rust.SafetensorError: Error while deserializing header: MetadataIncompleteBuffer" in text
    assert "Multi-thread loading shards:  20% Completed | 6/30" in text and "| 9/30" not in text


# ---- clocks and temperature -------------------------------------------------------------------


def test_a_throttled_gpu_reports_it_and_paces_its_tp_group() -> None:
    hot = sick(1, {"throttle": {"reason": "hw_thermal", "factor": 0.55, "temp_c": 95}})
    cool = h200()
    for t in (hot, cool):
        launch(t, "--tp-size 2")
        t.sleep(400)
    perf = out(hot, "nvidia-smi -q -d PERFORMANCE")
    assert re.search(r"HW Slowdown\s+: Not Active", perf)  # idle: only the Idle reason
    slow, fast = bench(hot, 16, 64), bench(cool, 16, 64)
    ratio = row(slow.stdout, "Output token throughput (tok/s):") / row(fast.stdout, "Output token throughput (tok/s):")
    assert 0.45 < ratio < 0.65
    temps = out(hot, "nvidia-smi --query-gpu=index,temperature.gpu,clocks.sm --format=csv,noheader,nounits")
    assert "1, 95, 1089\n" in temps and "0, 32, 345\n" in temps  # the server holds it: hot, clocks held down


def test_throttle_reasons_show_once_work_is_on_the_gpu() -> None:
    t = sick(0, {"throttle": {"reason": "hw_thermal", "factor": 0.5, "temp_c": 93}})
    fields = "temperature.gpu,clocks.sm,clocks_event_reasons.hw_thermal_slowdown"
    query = f"nvidia-smi --query-gpu={fields} --format=csv,noheader -i 0"
    assert out(t, query) == "73, 345 MHz, Not Active\n"
    launch(t, "--tp-size 2")
    t.sleep(300)
    assert out(t, query) == "93, 990 MHz, Active\n"
    perf = out(t, "nvidia-smi -q -d PERFORMANCE")
    gpu0 = perf.split("GPU 00000000:18:00.0")[1].split("GPU 0000")[0]
    assert re.search(r"HW Slowdown\s+: Active\n\s+HW Thermal Slowdown\s+: Active", gpu0)
    assert "HW Thermal Slowdown           : Active" not in perf.split("GPU 00000000:2A:00.0")[1]


# ---- software against hardware ---------------------------------------------------------------


def test_a_torch_without_the_gpus_arch_has_no_kernel_image() -> None:
    t = h200({"software": {"torch_arch_list": ["sm_80", "sm_86"]}})
    r = t.run("python3 -c 'import torch; print(torch.cuda.get_arch_list())'")
    assert r.stdout == "['sm_80', 'sm_86']\n"
    assert "NVIDIA H200 with CUDA capability sm_90 is not compatible with the current PyTorch installation." in r.stderr
    proc = launch(t, "--tp-size 2")
    assert settle(t, proc) == "exited"
    assert "CUDA error: no kernel image is available for execution on the device" in log(t, proc)
    fine = h200()
    assert "sm_90" in out(fine, "python3 -c 'import torch; print(torch.cuda.get_arch_list())'")


@pytest.mark.parametrize(
    ("state", "smi", "code", "torch_error"),
    [
        (
            "driver_mismatch",
            "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 580.82",
            18,
            "Error 803",
        ),
        ("no_device_access", "Failed to initialize NVML: Unknown Error", 255, "No CUDA GPUs are available"),
        (
            "no_driver",
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
            9,
            "Found no NVIDIA driver",
        ),
        (
            "no_library",
            "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system.",
            12,
            "Found no NVIDIA driver",
        ),
    ],
)
def test_nvml_and_cuda_cannot_reach_the_driver(state: str, smi: str, code: int, torch_error: str) -> None:
    t = h200({"host": {"nvml": state}})
    r = t.run("nvidia-smi -L")
    assert r.stdout.startswith(smi) and r.exit_code == code
    assert out(t, "python3 -c 'import torch; print(torch.cuda.is_available())'") == "False\n"
    proc = launch(t, "--tp-size 2")
    assert settle(t, proc) == "exited" and torch_error in log(t, proc)


def test_uncorrectable_ecc_and_pending_row_remaps() -> None:
    t = sick(2, {"ecc_uncorrectable": 2, "row_remap_pending": True})
    table = out(t, "nvidia-smi")
    line = next(x for x in table.splitlines() if "00000000:3A:00.0" in x)
    assert line.rstrip("|").rstrip().endswith("2")
    remap = out(t, "nvidia-smi -q -d ROW_REMAPPER")
    assert re.search(r"GPU 00000000:3A:00.0\n    Remapped Rows\n.*\n.*\n\s+Pending\s+: Yes", remap)
    proc = launch(t, "--tp-size 4")
    assert settle(t, proc) == "exited"
    assert "CUDA error: uncorrectable ECC error encountered" in log(t, proc)
    assert re.search(r"NVRM: Xid \(PCI:0000:3a:00\): 94, pid=\d+, name=python3, Contained ECC error", out(t, "dmesg"))


def test_shm_too_small_for_ncclss_shared_memory_transport() -> None:
    t = h200({"host": {"shm_mib": 64}})
    proc = launch(t, "--tp-size 4", env={"NCCL_P2P_DISABLE": "1"})  # SHM transport: 4 x 36.8 MiB
    assert settle(t, proc) == "exited"
    text = log(t, proc)
    assert "NCCL WARN Error while creating shared memory segment /dev/shm/nccl-" in text
    assert "(size 9637888), error: No space left on device (28)" in text
    assert re.search(r"tmpfs\s+64M\s+0\s+64M\s+0% /dev/shm", out(t, "df -h /dev/shm"))
    assert settle(t, launch(t, "--tp-size 4 --port 30001")) == "ready"  # P2P needs little shm


def test_host_ram_runs_out_while_loading_and_the_oom_killer_strikes() -> None:
    t = h200({"host": {"memory_gib": 256, "memory_used_gib": 40}})
    proc = launch(t, "--tp-size 8")  # 8 ranks x (6 GiB + 10 shards of 4.4 GiB held by the loader)
    assert settle(t, proc) == "exited"
    text = log(t, proc)
    assert "scheduler died during initialization (exit code: -9)" in text or "scheduler is dead" in text
    assert "Multi-thread loading shards:   0% Completed" in text
    assert re.search(r"Out of memory: Killed process \d+ \(sglang::schedul\) total-vm:\d+kB", out(t, "dmesg"))
    assert re.search(r"Mem:\s+256Gi\s+40Gi\s", out(t, "free -g"))
    lean = launch(t, "--tp-size 8 --model-loader-extra-config '{\"enable_multithread_load\": false}'")
    assert settle(t, lean) == "ready"
    assert "Loading safetensors checkpoint shards: 100% Completed | 30/30" in log(t, lean)


def test_fastsafetensors_prints_its_own_bar() -> None:
    t = h200()
    proc = launch(t, "--tp-size 2 --load-format fastsafetensors")
    assert settle(t, proc) == "ready"
    text = log(t, proc)
    assert "Loading safetensors using Fastsafetensor loader: 100% Completed | 30/30" in text
    phase = "starting"
    for line in text.splitlines()[:12]:
        phase = _phase(line, phase)
    assert phase.startswith("loading weights")


@pytest.mark.parametrize(
    ("version", "bar"), [("0.5.9", "Loading safetensors checkpoint shards"), ("0.5.10", "Multi-thread loading shards")]
)
def test_each_release_prints_its_own_loader_bar(version: str, bar: str) -> None:
    t = h200({"software": {"sglang": version}})
    proc = launch(t, "--tp-size 2")
    assert settle(t, proc) == "ready"
    assert f"{bar}: 100% Completed | 30/30" in log(t, proc)


# ---- the schema ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"gpus": {"devices": [{**DEVICES[0], "health": {"mig": {"instances": ["big"]}}}, *DEVICES[1:]]}},
            "not like 3g.71gb",
        ),
        ({"models": [{**LLAMA_SPEC, "truncated_shards": {31: 0.5}}]}, "a shard 1-30"),
        ({"host": {"filesystems": [{"mount": "/models", "size_gb": 500, "used_gb": 10}]}}, "hold 141 GB"),
        ({"host": {"nvml": "flaky"}}, "nvml"),
        ({"gpus": {"health": {8: {"lost": True}}}}, "no nvidia-bound GPU 8"),
    ],
)
def test_the_schema_names_a_broken_host_mistake(change: dict[str, Any], message: str) -> None:
    from tests.lab.test_lab_physics import merge

    data = merge(copy.deepcopy(BASE), {"models": [LLAMA_SPEC], "goal": {"model_path": LLAMA}, **change})
    with pytest.raises(ScenarioError, match=re.escape(message) if message != "nvml" else "nvml"):
        parse_scenario(yaml.safe_dump(data), "broken.yaml")


def test_health_by_index_lands_on_that_gpu() -> None:
    t = h200({"gpus": {"health": {6: {"lost": True}}}})
    assert "Unable to determine the device handle for GPU0000:BA:00.0: Unknown Error" in out(t, "nvidia-smi -L")


def test_a_gpu_lost_while_serving_trips_the_schedulers_watchdog() -> None:
    t = sick(1, {"falls_off_bus": {"phase": "serving", "after_s": 60}})
    proc = launch(t, "--tp-size 2 --watchdog-timeout 120")
    assert settle(t, proc) == "ready"
    t.sleep(100)  # lost at +60 s: the forward pass never returns
    assert t.process_status(proc).running and "ERR!" in out(t, "nvidia-smi")
    assert "watchdog timeout (" not in log(t, proc)
    t.sleep(200)
    assert not t.process_status(proc).running
    assert "Scheduler watchdog timeout (self.watchdog_timeout=120.0, self.soft=False)" in log(t, proc)


def test_a_launch_stopped_before_the_gpu_falls_leaves_it_on_the_bus() -> None:
    t = sick(1, {"falls_off_bus": {"phase": "load", "after_s": 40}})
    first = launch(t, "--tp-size 2")
    t.sleep(25)  # python start + init: loading began, the GPU is still there
    t.stop_process(first)
    t.sleep(120)
    assert "ERR!" not in out(t, "nvidia-smi") and "Xid" not in out(t, "dmesg")
    second = launch(t, "--tp-size 2")  # the first launch to reach the point loses it
    t.sleep(200)
    assert t.process_status(second).running and "ERR!" in out(t, "nvidia-smi")


def test_a_launch_stopped_before_capture_leaves_no_jit_cache() -> None:
    t = disk_host()
    t.run("rm -rf /home/ops/.cache/huggingface")
    first = launch(t, "--tp-size 2")
    t.sleep(30)  # still loading weights
    t.stop_process(first)
    assert "flashinfer" not in out(t, "find /home/ops -name '*.so'")
    ok = launch(t, "--tp-size 2")
    assert settle(t, ok) == "ready"
    assert "batch_prefill_with_kv_cache.so" in out(t, "find /home/ops/.cache -name '*.so'")


@pytest.mark.parametrize(("falls_after", "outcome"), [(5, "running"), (50, "exited")])
def test_the_host_fault_that_strikes_first_wins(falls_after: int, outcome: str) -> None:
    # shard 7 of 30 is short: the load dies about 13 s in, unless the GPU has gone before that
    model = {**LLAMA_SPEC, "truncated_shards": {7: 0.4}}
    t = sick(1, {"falls_off_bus": {"phase": "load", "after_s": falls_after}}, {"models": [model]})
    proc = launch(t, "--tp-size 2")
    t.sleep(200)
    assert ("running" if t.process_status(proc).running else "exited") == outcome
    assert ("MetadataIncompleteBuffer" in log(t, proc)) == (outcome == "exited")


def test_a_mig_instance_named_by_uuid_is_the_device_cuda_sees() -> None:
    small = {**LLAMA_SPEC, "size_gb": 40, "layers": 40, "shards": 10}
    t = sick(0, {"mig": {"instances": ["1g.18gb", "3g.71gb"]}}, {"models": [small]})
    big = re.search(r"MIG 3g\.71gb +Device  1: \(UUID: (MIG-[0-9a-f-]+)\)", out(t, "nvidia-smi -L"))
    assert big is not None
    tiny = launch(t, "--tp-size 1", env={"CUDA_VISIBLE_DEVICES": "0"})  # the first instance: 16 GiB
    assert settle(t, tiny) == "exited" and "torch.OutOfMemoryError" in log(t, tiny)
    ok = launch(t, "--tp-size 1 --port 30001", env={"CUDA_VISIBLE_DEVICES": big.group(1)})
    assert settle(t, ok) == "ready"
    assert "avail mem=68." in log(t, ok)  # 71424 MiB less the runtime's share
