"""read_host_evidence's parsers on what real hosts print, and the diagnosis of a failed launch.

The lines are the real tools' formats (tools/lab/gpuhealth.py and breakage.py cite where each was
seen): nvidia-smi -L with MIG devices and a GPU the driver lost, --query-gpu cells of a lost GPU,
the kernel's Xid 79 sequence, `df`, and SGLang's log around a scheduler's exception."""

from __future__ import annotations

from tools.host_evidence import HostEvidence, read_df, read_gpu_list, read_health, read_kernel
from tools.sglang.diagnosis import diagnose, error_lines

LIST = """\
GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-53b2932a-71c9-a18e-530c-a439a27942e1)
GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-e4c303a9-df0d-05b4-7503-79346a98e69f)
  MIG 3g.40gb     Device  0: (UUID: MIG-1bb0dc41-ac8b-5d2b-9b5b-a2c51b7a2a5c)
  MIG 3g.40gb     Device  1: (UUID: MIG-7a1bd6a5-8c0d-5b5f-9bd0-7a0bd1c0bd3e)
Unable to determine the device handle for GPU0000:5D:00.0: Unknown Error
GPU 3: NVIDIA H100 80GB HBM3 (UUID: GPU-f76deddc-0669-35cd-05b5-d9b27a58db19)
"""
HEALTH = """\
0, 00000000:18:00.0, Disabled, Not Active, Not Active, Not Active, 0
1, 00000000:2A:00.0, Enabled, Not Active, Not Active, Not Active, 0
2, 00000000:5D:00.0, [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost]
3, 00000000:9A:00.0, Disabled, Active, Not Active, Not Active, 2
"""
DMESG = """\
[    4.101] nvidia: loading out-of-tree module taints kernel.
[129600.000000] NVRM: GPU at PCI:0000:5d:00: GPU-cd9a6396-efd8-7650-65fd-129688e367c1
[129600.000000] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
[129600.000000] NVRM: GPU 0000:5d:00.0: GPU has fallen off the bus.
"""
DF = """\
Filesystem     1K-blocks      Used Available Use% Mounted on
/dev/nvme0n1p2 1921724676 1921724676        0 100% /
/dev/nvme1n1   7501488128 2501488128 5000000000  34% /models
"""
SGLANG_CRASH = [
    "[2026-11-30 10:00:01 TP0] Load weight begin. avail mem=139.20 GB",
    "[2026-11-30 10:00:03 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/usr/lib/python3/dist-packages/sglang/srt/managers/scheduler.py", line 2710, in run_scheduler_process',
    "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)",
    "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device",
    "[2026-11-30 10:00:04] Received sigquit from a child process. It usually means the child failed.",
]


def _evidence() -> HostEvidence:
    ev = HostEvidence()
    read_gpu_list(LIST, ev)
    read_health(HEALTH, ev)
    read_kernel(DMESG, 1, ev)
    read_df(DF, [".", "/models"], ev)
    return ev


def test_each_part_of_the_hosts_health_is_read() -> None:
    ev = _evidence()
    assert ev.mig == [1]
    assert set(ev.lost) == {"0000:5d:00.0"}
    assert ev.lost_indices() == [2]  # the address the listing and the kernel name, back to its index
    assert ev.throttled == {3: "hw_thermal_slowdown"} and ev.ecc == {3: 2}
    assert [x[1] for x in ev.xid] == [79] and ev.kernel_lines == 4
    assert len(ev.kernel) == 2  # the module load before the mark is not "since the launch"
    assert (ev.disks[0].path, ev.disks[0].available_gb, ev.disks[0].use_pct) == (".", 0.0, 100)


def test_the_error_line_is_the_exceptions_own_not_the_traceback_header() -> None:
    assert error_lines(SGLANG_CRASH)[-1] == (
        "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device"
    )
    assert not any("Traceback" in line for line in error_lines(SGLANG_CRASH))


def test_failures_are_placed_by_their_evidence() -> None:
    ev = _evidence()
    assert diagnose("child_crash", SGLANG_CRASH, ev, [0, 1]).cls == "no_kernel_image"
    lost = diagnose("load_timeout", ["Load weight begin."], ev, [0, 1, 2, 3])
    assert (lost.cls, lost.family, lost.gpus) == ("gpu_lost", "hardware", [2])
    assert "Xid (PCI:0000:5d:00): 79" in lost.lines[0]
    full = diagnose("child_crash", ["OSError: [Errno 28] No space left on device: '/root/.cache/flashinfer'"], ev, [0])
    assert full.family == "disk" and any(line.startswith("df: /dev/nvme0n1p2") for line in full.lines)
    held = diagnose("weights_oom", ["torch.OutOfMemoryError: CUDA out of memory."], None, [0, 1], {1: 40960})
    assert (held.cls, held.gpus) == ("gpu_held", [1])
    assert (
        diagnose("cuda_graph_oom", ["torch.OutOfMemoryError: CUDA out of memory."], None, [0]).family == "configuration"
    )


def test_a_crash_nothing_explains_is_unknown_with_its_own_line() -> None:
    lines = [
        "Scheduler hit an exception: Traceback (most recent call last):",
        "ZeroDivisionError: float division by zero",
    ]
    found = diagnose("child_crash", lines, HostEvidence(), [0])
    assert (found.cls, found.family) == ("unknown", "unknown")
    assert found.lines == ["ZeroDivisionError: float division by zero"]


def test_every_way_nvidia_smi_says_the_driver_cannot_be_reached_is_read_as_no_driver() -> None:
    from tools.gpus import no_driver_reason
    from tools.target import CommandResult

    said = [
        (9, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest"),
        (18, "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 580.82"),
        (255, "Failed to initialize NVML: Unknown Error"),  # a container without the device cgroup's permission
        (12, "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA"),
    ]
    for code, text in said:
        result = CommandResult(command="nvidia-smi", exit_code=code, stdout=text)
        assert no_driver_reason(result) == text.splitlines()[0], text


def _listing(sizes: list[int]) -> str:
    count = len(sizes)
    return "\n".join(
        f"-rw-r--r-- 1 root root {size} Feb 27 09:00 model-{i:05d}-of-{count:05d}.safetensors"
        for i, size in enumerate(sizes, 1)
    )


def test_a_shard_short_of_what_the_index_declares_is_named_even_the_last() -> None:
    from tools.host_evidence import read_shards

    index = '{\n  "metadata": {\n    "total_size": 39000000000\n  },\n  "weight_map": {'
    intact = HostEvidence()
    read_shards(_listing([10_000_000_100] * 3 + [9_000_000_100]), index, intact)
    assert intact.short_shards == []  # headers make intact shards hold more than the index declares
    middle = HostEvidence()
    read_shards(_listing([10_000_000_100, 9_000_000_000, 10_000_000_100, 9_000_000_100]), index, middle)
    assert len(middle.short_shards) == 1 and middle.short_shards[0].startswith("model-00002-of-00004")
    last = HostEvidence()
    read_shards(_listing([10_000_000_100] * 3 + [3_000_000_000]), index, last)
    assert len(last.short_shards) == 1 and last.short_shards[0].startswith(
        "model-00004-of-00004.safetensors (the last)"
    )
