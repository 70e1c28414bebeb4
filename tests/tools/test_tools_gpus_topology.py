from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tools_testkit import ScriptedTarget, fixture_text

from tools.gpus import QUERY_APPS, QUERY_GPUS, observe_gpus, parse_gpu_query, read_nvml, sysfs_bus_id
from tools.registry import ToolContext
from tools.topology import (
    TOPO_MATRIX,
    TOPO_P2P_READ,
    nvml_p2p_index,
    observe_topology,
    parse_topo_matrix,
    parse_topo_p2p,
    read_nvml_p2p,
    strip_ansi,
)


def test_gpu_query_parses_na_fields_and_bus_ids() -> None:
    gpus = parse_gpu_query(fixture_text("gpu_query_rtx6000x8.csv"))
    assert [g.index for g in gpus] == list(range(8))
    assert gpus[0].name == "NVIDIA RTX PRO 6000 Blackwell Server Edition"
    assert gpus[0].memory_total_mib == 97887 and gpus[0].memory_used_mib == 91234
    assert gpus[0].bus_id == "0000:01:00.0" and gpus[6].bus_id == "0000:a1:00.0"
    assert gpus[7].power_w is None and gpus[7].utilization_pct is None
    assert gpus[1].power_w == 13.34
    assert sysfs_bus_id("00000001:41:00.0") == "0001:41:00.0"


def test_observe_gpus_attaches_processes_by_bus_id(tmp_path: Path) -> None:
    target = ScriptedTarget(
        str(tmp_path),
        {
            QUERY_GPUS: fixture_text("gpu_query_rtx6000x8.csv"),
            QUERY_APPS: fixture_text("apps_query_rtx6000x8.csv"),
        },
    )
    out = observe_gpus.invoke(ToolContext(target=target), {})
    assert out.ok and out.data["source"] == "nvidia-smi"
    gpus = out.data["gpus"]
    assert [p["pid"] for p in gpus[0]["processes"]] == [412345]
    assert [p["name"] for p in gpus[1]["processes"]] == ["sglang::scheduler_TP1", "/opt/tools/weird, name"]
    assert gpus[1]["processes"][1]["used_memory_mib"] is None
    assert gpus[2]["processes"] == []
    assert target.sent == [QUERY_GPUS, QUERY_APPS]


def test_no_driver_is_a_typed_result(tmp_path: Path) -> None:
    broken = ScriptedTarget(str(tmp_path), {QUERY_GPUS: (9, fixture_text("nvidia_smi_no_driver.txt"), "")})
    out = observe_gpus.invoke(ToolContext(target=broken), {})
    assert not out.ok and out.error_kind == "no_nvidia_driver"
    assert "couldn't communicate" in out.data["reason"]
    absent = ScriptedTarget(str(tmp_path), {})
    for tool in (observe_gpus, observe_topology):
        out = tool.invoke(ToolContext(target=absent), {})
        assert not out.ok and out.error_kind == "no_nvidia_driver"


def test_garbage_is_unparseable_not_an_exception(tmp_path: Path) -> None:
    target = ScriptedTarget(str(tmp_path), {QUERY_GPUS: "Segmentation fault\n", TOPO_MATRIX: "hello\n"})
    assert observe_gpus.invoke(ToolContext(target=target), {}).error_kind == "unparseable_output"
    assert observe_topology.invoke(ToolContext(target=target), {}).error_kind == "unparseable_output"


class _Err(Exception):
    pass


def _fake_nvml(count: int, p2p: int) -> Any:
    """Mirrors pynvml's API and units (bytes, milliwatts) and its tuple-valued P2P index constant."""
    calls: list[Any] = []

    def p2p_status(a: int, b: int, idx: Any) -> int:
        calls.append(idx)
        if not isinstance(idx, int):
            raise TypeError("an integer is required")  # what the real C call does with (0,)
        return p2p

    def power(h: int) -> int:
        if h == 1:
            raise _Err("Not Supported")
        return 245_500

    return SimpleNamespace(
        NVMLError=_Err,
        NVML_TEMPERATURE_GPU=0,
        NVML_P2P_CAPS_INDEX_READ=(0,),
        calls=calls,
        nvmlDeviceGetCount=lambda: count,
        nvmlDeviceGetHandleByIndex=lambda i: i,
        nvmlDeviceGetName=lambda h: b"NVIDIA H200",
        nvmlDeviceGetMemoryInfo=lambda h: SimpleNamespace(used=1024 * 1024 * 512, total=143771 * 1024 * 1024),
        nvmlDeviceGetUtilizationRates=lambda h: SimpleNamespace(gpu=42, memory=10),
        nvmlDeviceGetTemperature=lambda h, s: 31,
        nvmlDeviceGetPowerUsage=power,
        nvmlDeviceGetPciInfo=lambda h: SimpleNamespace(busId=f"00000000:{0x18 + h:02X}:00.0".encode()),
        nvmlDeviceGetComputeRunningProcesses=lambda h: [SimpleNamespace(pid=4242, usedGpuMemory=2 * 1024**3)],
        nvmlDeviceGetP2PStatus=p2p_status,
    )


def test_nvml_reader_converts_bytes_and_milliwatts() -> None:
    gpus = read_nvml(_fake_nvml(2, 0))
    assert gpus[0].memory_total_mib == 143771 and gpus[0].memory_used_mib == 512
    assert gpus[0].power_w == 245.5 and gpus[1].power_w is None
    assert gpus[0].bus_id == "0000:18:00.0"
    assert gpus[0].processes[0].used_memory_mib == 2048


def test_nvml_p2p_index_tuple_pitfall() -> None:
    nvml = _fake_nvml(3, 5)
    assert nvml_p2p_index(nvml) == 0
    matrix = read_nvml_p2p(nvml)
    assert matrix["GPU0"] == {"GPU0": "X", "GPU1": "NS", "GPU2": "NS"}
    assert all(isinstance(i, int) for i in nvml.calls)


def test_topo_matrix_with_ansi_header_and_nic() -> None:
    text = fixture_text("topo_m_rtx6000x8_ansi.txt")
    assert "\x1b[" in text and "\x1b[" not in strip_ansi(text)
    matrix, affinity, nics = parse_topo_matrix(text)
    assert matrix["GPU0"]["GPU0"] == "X" and matrix["GPU0"]["GPU1"] == "NODE" and matrix["GPU0"]["GPU5"] == "SYS"
    assert nics == ["NIC0"] and matrix["GPU0"]["NIC0"] == "PHB"
    assert affinity[5].cpu_affinity == "48-95,144-191" and affinity[5].numa_affinity == "1"
    assert affinity[5].gpu_numa_id == "N/A"


def test_observe_topology_pcie_vm_all_ns(tmp_path: Path) -> None:
    target = ScriptedTarget(
        str(tmp_path),
        {
            TOPO_MATRIX: fixture_text("topo_m_rtx6000x8_ansi.txt"),
            TOPO_P2P_READ: fixture_text("topo_p2p_r_vm_ns8.txt"),
        },
    )
    out = observe_topology.invoke(ToolContext(target=target), {})
    assert out.ok
    assert out.data["interconnect"] == "pcie" and out.data["p2p_all_ok"] is False
    assert len(out.data["pairs"]) == 56
    assert {p["p2p_read"] for p in out.data["pairs"]} == {"NS"}


def test_observe_topology_nvlink_all_ok(tmp_path: Path) -> None:
    target = ScriptedTarget(
        str(tmp_path),
        {
            TOPO_MATRIX: fixture_text("topo_m_h200x4_nvlink.txt"),
            TOPO_P2P_READ: fixture_text("topo_p2p_r_ok4.txt"),
        },
    )
    out = observe_topology.invoke(ToolContext(target=target), {})
    assert out.data["interconnect"] == "nvlink" and out.data["p2p_all_ok"] is True
    pair = out.data["pairs"][0]
    assert pair["link"] == "NV18" and pair["nvlink"] and pair["p2p_ok"]


def test_topo_p2p_mixed() -> None:
    matrix = parse_topo_p2p(fixture_text("topo_p2p_r_mixed8.txt"))
    assert matrix["GPU0"]["GPU1"] == "OK" and matrix["GPU0"]["GPU4"] == "CNS" and matrix["GPU3"]["GPU3"] == "X"
