"""GPU identity and ownership, IOMMU and distribution facts as the lab shows them: CUDA_VISIBLE_DEVICES
by UUID, the operator's own workload on a GPU, vendor-true IOMMU boot and fault lines."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from agent.loop.lab_facts import facts_for_lab
from agent.policy.gate import GateContext
from agent.policy.model import HostFacts
from agent.policy.policyset import load_policy_set
from tools.lab.scenario import SCENARIO_DIR, ScenarioError, parse_scenario
from tools.lab.target import LabTarget

LLAMA = "/models/Llama-3.3-70B-Instruct"


def merge(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in changes.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def variant(name: str, changes: dict[str, Any]) -> LabTarget:
    data = merge(yaml.safe_load((SCENARIO_DIR / f"{name}.yaml").read_text()), {"link": {"drop_rate": 0.0}, **changes})
    return LabTarget(parse_scenario(yaml.safe_dump(data), f"{name}-variant.yaml"), seed=0)


def uuids(t: LabTarget) -> list[str]:
    listing = t.run("nvidia-smi -L").stdout
    return re.findall(r"^GPU \d+: .* \(UUID: (GPU-[0-9a-f-]+)\)$", listing, re.M)


def settle(t: LabTarget, name: str = "sglang") -> str:
    log = f"{t.work_dir}/logs/{name}.log"
    for _ in range(100):
        t.sleep(15)
        text = t.read_file(log, max_bytes=1 << 22).decode()
        if "ready to roll" in text or "Received sigquit" in text:
            return text
    return t.read_file(log, max_bytes=1 << 22).decode()


def test_cuda_visible_devices_takes_uuids_and_unique_prefixes() -> None:
    t = variant("unreachable-goal", {})
    ids = uuids(t)
    assert len(ids) >= 4 and len(set(ids)) == len(ids)
    env = {"CUDA_VISIBLE_DEVICES": ",".join(ids[2:4])}
    assert t.run("python3 -c 'import torch; print(torch.cuda.device_count())'", env=env).stdout == "2\n"
    proc = t.start_detached(f"python3 -m sglang.launch_server --model-path {LLAMA} --tp-size 2", name="sglang", env=env)
    assert "ready to roll" in settle(t)
    used = t.run("nvidia-smi --query-gpu=uuid,memory.used --format=csv,noheader,nounits").stdout.splitlines()
    busy = {line.split(", ")[0] for line in used if int(line.split(", ")[1]) > 0}
    assert busy == set(ids[2:4])  # the server runs on the GPUs its UUIDs named
    t.stop_process(proc)
    prefix = ids[1][:12]
    assert (
        t.run(
            "python3 -c 'import torch; print(torch.cuda.device_count())'", env={"CUDA_VISIBLE_DEVICES": prefix}
        ).stdout
        == "1\n"
    )
    assert (
        t.run(
            "python3 -c 'import torch; print(torch.cuda.device_count())'", env={"CUDA_VISIBLE_DEVICES": "GPU-zz"}
        ).stdout
        == "0\n"
    )


def test_lab_facts_name_the_agents_gpus_by_uuid_and_the_gate_hears_them() -> None:
    t = variant("cotenant-visible", {})
    facts = facts_for_lab(t)
    ids = uuids(t)
    ours = facts["agent_gpu_uuids"]
    assert isinstance(ours, list) and ours == [ids[i] for i in facts["agent_gpus"]]  # type: ignore[attr-defined]
    theirs = next(u for i, u in enumerate(ids) if i in facts["protected_gpus"])  # type: ignore[operator]
    gate = load_policy_set([])
    ctx = GateContext(work_dir=t.work_dir, facts=HostFacts.model_validate(facts))
    cmd = "python3 -m sglang.launch_server --model-path /m --tp-size 1"
    assert gate.evaluate_command(f"CUDA_VISIBLE_DEVICES={ours[0]} {cmd}", ctx).decision == "allow"
    assert gate.evaluate_command(f"CUDA_VISIBLE_DEVICES={theirs} {cmd}", ctx).decision == "deny"
    assert (
        gate.evaluate_command(f"CUDA_VISIBLE_DEVICES={ours[0][:12]} {cmd}", ctx).decision == "deny"
    )  # a prefix may be anyone's


def test_an_operator_gpu_shows_its_workload_and_takes_memory() -> None:
    devices = yaml.safe_load((SCENARIO_DIR / "unreachable-goal.yaml").read_text())["gpus"]["devices"]
    devices[3] = {
        **devices[3],
        "owner": "operator",
        "workload": {"args": "python3 finetune.py --run 7", "memory_mib": 40000},
    }
    t = variant("unreachable-goal", {"gpus": {"devices": devices}, "goal": {"gpus": [0, 1, 2]}})
    apps = t.run("nvidia-smi --query-compute-apps=pid,used_memory,process_name --format=csv,noheader,nounits").stdout
    assert "61003, 40000, python3" in apps
    assert "python3 finetune.py --run 7" in t.run("ps -eo pid,args").stdout
    used = t.run("nvidia-smi --query-gpu=index,memory.used,utilization.gpu --format=csv,noheader,nounits").stdout
    assert "3, 40000, 100" in used
    facts = facts_for_lab(t)
    assert 3 in facts["protected_gpus"] and devices[3]["bus_id"] in facts["protected_pci"]  # type: ignore[operator]


def test_a_goal_on_an_operator_gpu_is_named() -> None:
    data = yaml.safe_load((SCENARIO_DIR / "unreachable-goal.yaml").read_text())
    data["gpus"]["devices"][0]["owner"] = "operator"
    with pytest.raises(ScenarioError) as err:
        parse_scenario(yaml.safe_dump(data), "x.yaml")
    assert "goal.gpus[0]" in str(err.value) and "operator's own workload" in str(err.value)


@pytest.mark.parametrize(
    ("vendor", "mode", "cmdline", "expect", "absent"),
    [
        (
            "intel",
            "translated",
            "ro intel_iommu=on",
            [
                "DMAR: IOMMU enabled",
                "DMAR: Intel(R) Virtualization Technology for Directed I/O",
                "iommu: Default domain type: Translated",
                "iommu: DMA domain TLB invalidation policy: lazy mode",
            ],
            "AMD-Vi",
        ),
        (
            "intel",
            "passthrough",
            "ro intel_iommu=on iommu=pt",
            [
                "DMAR-IR: Enabled IRQ remapping in x2apic mode",
                "iommu: Default domain type: Passthrough (set via kernel command line)",
            ],
            "AMD-Vi",
        ),
        (
            "amd",
            "translated",
            "ro",
            ["AMD-Vi: Interrupt remapping enabled", "iommu: Default domain type: Translated"],
            "DMAR",
        ),
        ("none", "off", "ro", [], "Default domain type"),
    ],
)
def test_iommu_boot_lines_follow_the_vendor(
    vendor: str, mode: str, cmdline: str, expect: list[str], absent: str
) -> None:
    t = variant(
        "healthy-host",
        {"iommu": {"vendor": vendor, "mode": mode, "group_type": "DMA-FQ"}, "host": {"cmdline": cmdline}},
    )
    text = t.run("sudo dmesg").stdout
    for line in expect:
        assert re.search(r"^\[\s*\d+\.\d{6}\] " + re.escape(line) + "$", text, re.M), line
    assert absent not in text


@pytest.mark.parametrize(
    ("vendor", "fault"),
    [
        (
            "intel",
            r"DMAR: \[DMA Read NO_PASID\] Request device \[[0-9a-f]{2}:00\.0\] fault addr 0x[0-9a-f]+ "
            r"\[fault reason 0x06\] PTE Read access is not set",
        ),
        ("amd", r"AMD-Vi: Event logged \[IO_PAGE_FAULT domain=0x[0-9a-f]{4} address=0x[0-9a-f]+ flags=0x0020\]"),
    ],
)
def test_dma_faults_are_logged_as_the_vendor_logs_them(vendor: str, fault: str) -> None:
    t = variant("p2p-corruption", {"iommu": {"vendor": vendor}})
    t.write_file("p2p_check.py", b"# the lab's P2P integrity script\n")
    t.run(f"python3 {t.work_dir}/p2p_check.py --gpus 0,1")
    text = t.run("sudo dmesg").stdout
    assert re.search(fault, text)
    other = "AMD-Vi: Event logged" if vendor == "intel" else "DMAR: [DMA Read"
    assert other not in text


@pytest.mark.parametrize(
    ("os_name", "banner", "ident"),
    [
        ("Rocky Linux 9.5 (Blue Onyx)", "mockbuild@", "ID=rocky"),
        ("Debian GNU/Linux 12 (bookworm)", "debian-kernel@lists.debian.org", "ID=debian"),
        ("Ubuntu 24.04.2 LTS", "-Ubuntu SMP", "ID=ubuntu"),
    ],
)
def test_the_distribution_shows_in_boot_log_and_os_release(os_name: str, banner: str, ident: str) -> None:
    t = variant("healthy-host", {"host": {"os": os_name}})
    assert banner in t.run("sudo dmesg").stdout.splitlines()[0]
    assert ident in t.run("cat /etc/os-release").stdout.splitlines()
