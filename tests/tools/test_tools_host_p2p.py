from __future__ import annotations

import json
from pathlib import Path

from tools_testkit import ScriptedTarget, fixture_text

from tools.gpus import QUERY_APPS, QUERY_GPUS
from tools.hostinfo import (
    CMDLINE,
    DETECT_VIRT,
    DMESG,
    LSPCI,
    SMI_PLAIN,
    SMI_VERSION,
    TORCH_VERSIONS,
    driver_command,
    group_command,
    group_type_command,
    observe_host,
    parse_iommu,
    parse_lspci,
)
from tools.local import LocalTarget
from tools.p2p import check_command, p2p_check, script_path
from tools.registry import ToolContext
from tools.sglang.flags import version_command

LSPCI_TEXT = """\
01:00.0 3D controller [0302]: NVIDIA Corporation Device [10de:2bb5] (rev a1)
\tSubsystem: NVIDIA Corporation Device [10de:204e]
\tKernel driver in use: nvidia
\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia
11:00.0 3D controller [0302]: NVIDIA Corporation Device [10de:2bb5] (rev a1)
\tKernel driver in use: nvidia
21:00.0 Ethernet controller [0200]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]
\tKernel driver in use: mlx5_core
81:00.0 3D controller [0302]: NVIDIA Corporation Device [10de:2bb5] (rev a1)
\tKernel driver in use: vfio-pci
\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia
"""

TWO_GPUS = (
    "0, NVIDIA RTX PRO 6000 Blackwell Server Edition, 00000000:01:00.0, 0, 97887, 0, 30, 12.34\n"
    "1, NVIDIA RTX PRO 6000 Blackwell Server Edition, 00000000:11:00.0, 0, 97887, 0, 31, [N/A]\n"
)


def sev_host(tmp_path: Path) -> ScriptedTarget:
    """Case 1's host: translated IOMMU (amd_iommu=on, no iommu=pt), a co-tenant's GPU on vfio-pci."""
    answers: dict[str, str | tuple[int, str, str]] = {
        DETECT_VIRT: (1, "none\n", ""),
        CMDLINE: "BOOT_IMAGE=/vmlinuz-6.8.0 root=/dev/nvme0n1p2 ro amd_iommu=on kvm_amd.sev=1\n",
        QUERY_GPUS: TWO_GPUS,
        QUERY_APPS: "",
        LSPCI: LSPCI_TEXT,
        DMESG: "[ 12.1] AMD-Vi: Interrupt remapping enabled\n"
        "[ 901.2] nvidia 0000:01:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0012 "
        "address=0x7f000 flags=0x0020]\n"
        "[ 901.3] NVRM: Xid (PCI:0000:01:00): 31, pid=4242, Ch 00000008, intr 10000000\n",
        SMI_VERSION: fixture_text("nvidia_smi_version.txt"),
        TORCH_VERSIONS: "2.12.0.dev20260101+cu130\n13.0\n2.27.3\n",
        version_command("python3"): "0.5.9\n",
    }
    for bdf, group, driver in (("0000:01:00.0", "12", "nvidia"), ("0000:11:00.0", "13", "nvidia")):
        answers[driver_command(bdf)] = f"/sys/bus/pci/drivers/{driver}\n"
        answers[group_command(bdf)] = f"/sys/kernel/iommu_groups/{group}\n"
        answers[group_type_command(bdf)] = "DMA-FQ\n"
    answers[driver_command("0000:81:00.0")] = "/sys/bus/pci/drivers/vfio-pci\n"
    answers[group_command("0000:81:00.0")] = "/sys/kernel/iommu_groups/40\n"
    answers[group_type_command("0000:81:00.0")] = (
        1,
        "",
        "cat: /sys/bus/pci/devices/0000:81:00.0/iommu_group/type: Permission denied",
    )
    return ScriptedTarget(str(tmp_path), answers)


def test_observe_host_on_a_translated_iommu_host_with_a_cotenant(tmp_path: Path) -> None:
    out = observe_host.invoke(ToolContext(target=sev_host(tmp_path)), {"agent_gpus": [0, 1]})
    assert out.ok
    data = out.data
    assert data["virtualization"]["value"] == "none"
    assert data["iommu"]["value"] == {"flags": ["amd_iommu=on"], "mode": "translated"}
    gpus = {g["bdf"]: g for g in data["gpus"]}
    assert set(gpus) == {"0000:01:00.0", "0000:11:00.0", "0000:81:00.0"}
    assert gpus["0000:01:00.0"]["owner"] == "agent" and gpus["0000:01:00.0"]["translated"] is True
    assert gpus["0000:01:00.0"]["iommu_group"]["value"] == "12"
    cotenant = gpus["0000:81:00.0"]
    assert cotenant["owner"] == "other" and cotenant["driver"]["value"] == "vfio-pci" and cotenant["index"] is None
    assert (
        cotenant["iommu_group_type"]["value"] is None and "Permission denied" in cotenant["iommu_group_type"]["reason"]
    )
    assert data["other_tenant_gpus"] == ["0000:81:00.0"]
    assert data["iommu_faults"]["value"] == 1 and "IO_PAGE_FAULT" in data["iommu_fault_lines"][0]
    assert len(data["xid_lines"]) == 1
    v = data["versions"]
    assert v["driver"]["value"] == "580.82.07" and v["cuda"]["value"] == "13.0"
    assert v["torch"]["value"].startswith("2.12") and v["nccl"]["value"] == "2.27.3" and v["sglang"]["value"] == "0.5.9"
    assert "someone else's GPUs" in out.summary


def test_observe_host_with_nothing_readable_reports_unknowns(tmp_path: Path) -> None:
    out = observe_host.invoke(ToolContext(target=ScriptedTarget(str(tmp_path), {})), {})
    assert out.ok
    data = out.data
    for key in ("virtualization", "kernel_cmdline", "iommu", "iommu_faults", "gpu_list"):
        assert data[key]["value"] is None and data[key]["reason"], key
    for key, fact in data["versions"].items():
        assert fact["value"] is None and fact["reason"], key
    assert data["gpus"] == []


def test_versions_fall_back_to_the_plain_header(tmp_path: Path) -> None:
    target = ScriptedTarget(str(tmp_path), {SMI_PLAIN: fixture_text("nvidia_smi_header.txt")})
    out = observe_host.invoke(ToolContext(target=target), {})
    assert out.data["versions"]["driver"]["value"] == "570.133.20"
    assert out.data["versions"]["cuda"]["value"] == "12.8"


def test_iommu_modes_and_lspci_domains() -> None:
    assert parse_iommu("ro quiet amd_iommu=on iommu=pt").mode == "passthrough"
    assert parse_iommu("intel_iommu=on").mode == "translated"
    assert parse_iommu("intel_iommu=off").mode == "off"
    assert parse_iommu("ro quiet").mode == "kernel default"
    listed = parse_lspci("0001:41:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [10de:2684]\n")
    assert listed == [("0001:41:00.0", "VGA compatible controller [0300]: NVIDIA Corporation AD102 [10de:2684]", None)]


def _p2p_json(claimed: bool, corrupt: bool) -> str:
    pairs = [
        {
            "src": a,
            "dst": b,
            "claimed_access": claimed,
            "copy_ok": not corrupt,
            "mismatches": 4096 if corrupt else 0,
            "bandwidth_gbps": 24.1,
            "error": None,
        }
        for a in (0, 1)
        for b in (0, 1)
        if a != b
    ]
    return json.dumps(
        {
            "gpus": [0, 1],
            "size_mb": 64,
            "pairs": pairs,
            "error": None,
            "torch": "2.9.0",
            "all_ok": not corrupt,
        }
    )


def test_p2p_check_flags_claimed_but_corrupt(tmp_path: Path) -> None:
    work = str(tmp_path)
    target = ScriptedTarget(work, {check_command(str(tmp_path.resolve()), [0, 1], 64): (1, _p2p_json(True, True), "")})
    out = p2p_check.invoke(ToolContext(target=target), {"gpus": [0, 1]})
    assert out.ok and out.data["all_ok"] is False
    assert out.data["claimed_but_corrupt"] == ["0->1", "1->0"]
    assert out.data["pairs"][0]["mismatches"] == 4096
    assert Path(script_path(target.work_dir)).read_text().startswith('"""P2P data-integrity check')
    assert target.sent == ["python3 " + script_path(target.work_dir) + " --gpus 0,1 --size-mb 64"]


def test_p2p_check_healthy_pairs(tmp_path: Path) -> None:
    target = ScriptedTarget(str(tmp_path), {check_command(str(tmp_path.resolve()), [0, 1], 64): _p2p_json(True, False)})
    out = p2p_check.invoke(ToolContext(target=target), {"gpus": [0, 1]})
    assert out.ok and out.data["all_ok"] is True and out.data["claimed_but_corrupt"] == []


def test_p2p_check_bad_input_and_missing_torch_are_typed(tmp_path: Path) -> None:
    one = p2p_check.invoke(ToolContext(target=LocalTarget(str(tmp_path))), {"gpus": [0]})
    assert not one.ok and one.error_kind == "bad_argument"
    # Really runs the script here: without PyTorch (or without a GPU) it reports why, typed.
    out = p2p_check.invoke(ToolContext(target=LocalTarget(str(tmp_path))), {"gpus": [0, 1], "size_mb": 1})
    assert not out.ok and out.error_kind == "p2p_check_failed"
    assert "PyTorch" in out.summary or "cuda" in out.summary.lower()
    garbage = ScriptedTarget(str(tmp_path), {check_command(str(tmp_path.resolve()), [0, 1], 64): "Killed\n"})
    out = p2p_check.invoke(ToolContext(target=garbage), {"gpus": [0, 1]})
    assert not out.ok and out.error_kind == "unparseable_output"
