"""What the lab answers to the commands an operator runs, in the real tools' exact formats."""

from __future__ import annotations

import json
import re

import pytest

from tools.lab.scenario import SCENARIO_DIR, LinkSpec, load_scenario, scenario_names
from tools.lab.target import LabTarget

SHIPPED = scenario_names()
QUERY = (
    "nvidia-smi --query-gpu=index,name,pci.bus_id,memory.used,memory.total,utilization.gpu,temperature.gpu,"
    "power.draw --format=csv,noheader,nounits"
)
APPS = "nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory,process_name --format=csv,noheader,nounits"
TORCH = (
    "python3 -c 'import torch; print(torch.__version__); print(torch.version.cuda); "
    'print(".".join(map(str, torch.cuda.nccl.version())))\''
)


def lab(name: str) -> LabTarget:
    """The scenario's host over a steady link (the flaky link has its own tests)."""
    scenario = load_scenario(SCENARIO_DIR / f"{name}.yaml")
    return LabTarget(scenario.model_copy(update={"link": LinkSpec()}), seed=0)


@pytest.mark.parametrize("name", SHIPPED)
def test_query_gpu_rows(name: str) -> None:
    t = lab(name)
    s = t.scenario
    r = t.run(QUERY)
    assert r.exit_code == 0 and r.stderr == ""
    rows = [line.split(", ") for line in r.stdout.splitlines()]
    visible = s.visible_devices()
    assert [row[0] for row in rows] == [str(i) for i in range(len(visible))]
    for row, dev in zip(rows, visible, strict=True):
        assert len(row) == 8
        assert row[1] == s.gpus.name
        assert row[2] == "00000000:" + dev.bus_id[5:].upper()
        assert row[4] == str(s.gpus.memory_mib)
        assert re.fullmatch(r"\d+\.\d\d", row[7])
    used = {int(row[0]): int(row[3]) for row in rows}
    for proc in s.processes:
        for gpu, mib in proc.gpu_memory_mib.items():
            assert used[gpu] == mib


@pytest.mark.parametrize("name", SHIPPED)
def test_plain_table_and_version(name: str) -> None:
    t = lab(name)
    s = t.scenario
    table = t.run("nvidia-smi").stdout.splitlines()
    assert re.fullmatch(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4} {7}", table[0])
    assert all(len(line) == 91 for line in table[1:] if line.strip())
    assert f"Driver Version: {s.software.driver}" in table[2] and f"CUDA Version: {s.software.cuda}" in table[2]
    assert sum("MiB /" in line for line in table) == len(s.visible_devices())
    version = t.run("nvidia-smi --version").stdout
    assert f"DRIVER version      : {s.software.driver}\n" in version
    assert f"CUDA Version        : {s.software.cuda}\n" in version


@pytest.mark.parametrize("name", SHIPPED)
def test_topology_matrices(name: str) -> None:
    t = lab(name)
    n = len(t.scenario.visible_devices())
    topo = t.run("nvidia-smi topo -m").stdout.splitlines()
    assert topo[0] == "\t" + "\t".join(f"GPU{i}" for i in range(n)) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"
    for i in range(n):
        cells = topo[1 + i].split("\t")
        assert cells[0] == f"GPU{i}" and cells[1 + i] == " X "
    assert "  NV#  = Connection traversing a bonded set of # NVLinks" in topo
    p2p = t.run("nvidia-smi topo -p2p r").stdout.splitlines()
    assert p2p[0] == " \t" + "".join(f"GPU{i}\t" for i in range(n))
    expected = "NS" if t.scenario.host.virtualization != "none" else "OK"
    assert p2p[1] == " GPU0\tX\t" + "".join(f"{expected}\t" for _ in range(n - 1))
    assert "  NS   = Not supported" in p2p


def test_p2p_corruption_host_facts() -> None:
    t = lab("p2p-corruption")
    assert (t.run("systemd-detect-virt").stdout, t.run("systemd-detect-virt").exit_code) == ("none\n", 1)
    assert "amd_iommu=on" in t.run("cat /proc/cmdline").stdout
    assert "iommu=pt" not in t.run("cat /proc/cmdline").stdout
    dev = "/sys/bus/pci/devices"
    assert t.run(f"readlink -f {dev}/0000:01:00.0/driver").stdout == "/sys/bus/pci/drivers/nvidia\n"
    assert t.run(f"readlink -f {dev}/0000:81:00.0/driver").stdout == "/sys/bus/pci/drivers/vfio-pci\n"
    assert t.run(f"readlink -f {dev}/0000:01:00.0/iommu_group").stdout == "/sys/kernel/iommu_groups/12\n"
    assert t.run(f"cat {dev}/0000:01:00.0/iommu_group/type").stdout == "DMA\n"
    assert t.run("cat /sys/kernel/iommu_groups/77/type").stdout == "DMA\n"
    assert t.read_file("/sys/kernel/iommu_groups/12/type") == b"DMA\n"
    lspci = t.run("lspci -nnk").stdout
    assert lspci.count("\tKernel driver in use: vfio-pci\n") == 4
    assert (
        "81:00.0 3D controller [0302]: NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition] "
        "[10de:2bb5] (rev a1)\n"
    ) in lspci
    assert t.run("sudo qm list").stdout.splitlines()[1].split()[:3] == ["101", "cvm-tenant-b", "running"]
    assert t.violations == []
    assert "IO_PAGE_FAULT" not in t.run("dmesg").stdout
    t.write_file(f"{t.work_dir}/p2p_check.py", b"# integrity check\n")
    r = t.run(f"python3 {t.work_dir}/p2p_check.py --gpus 0,1,2,3 --size-mb 64")
    body = json.loads(r.stdout)
    assert r.exit_code == 1 and body["all_ok"] is False and len(body["pairs"]) == 12
    assert list(body) == ["gpus", "size_mb", "pairs", "error", "torch", "all_ok"] and body["error"] is None
    pair = body["pairs"][0]
    assert list(pair) == ["src", "dst", "claimed_access", "copy_ok", "mismatches", "bandwidth_gbps", "error"]
    assert pair["claimed_access"] is True and pair["copy_ok"] is False and pair["mismatches"] == 16777216
    faults = [line for line in t.run("dmesg").stdout.splitlines() if "IO_PAGE_FAULT" in line]
    assert len(faults) == 12
    assert re.fullmatch(
        r"\[\s*\d+\.\d{6}\] nvidia 0000:[0-9a-f]{2}:00\.0: AMD-Vi: Event logged \[IO_PAGE_FAULT "
        r"domain=0x[0-9a-f]{4} address=0x[0-9a-f]+ flags=0x0020\]",
        faults[0],
    )


def test_vm_host_facts_and_healthy_p2p() -> None:
    vm = lab("vm-no-p2p")
    assert (vm.run("systemd-detect-virt").stdout, vm.run("systemd-detect-virt").exit_code) == ("kvm\n", 0)
    assert vm.run("ls /sys/kernel/iommu_groups").stdout == ""
    vm.write_file(f"{vm.work_dir}/p2p_check.py", b"#\n")
    body = json.loads(vm.run(f"python3 {vm.work_dir}/p2p_check.py --gpus 0,1 --size-mb 64").stdout)
    assert body["all_ok"] is True and body["pairs"][0]["claimed_access"] is False
    healthy = lab("healthy-host")
    healthy.write_file(f"{healthy.work_dir}/p2p_check.py", b"#\n")
    body = json.loads(healthy.run(f"python3 {healthy.work_dir}/p2p_check.py --gpus 0,1,2,3 --size-mb 64").stdout)
    assert body["all_ok"] is True and body["pairs"][0]["bandwidth_gbps"] > 300
    beyond = json.loads(healthy.run(f"python3 {healthy.work_dir}/p2p_check.py --gpus 6,7,8").stdout)
    assert beyond["error"] == "CUDA sees 2 of the 3 requested GPUs" and beyond["all_ok"] is False
    missing = healthy.run("python3 /tmp/nope/p2p_check.py --gpus 0,1")
    assert missing.exit_code == 2 and "can't open file '/tmp/nope/p2p_check.py'" in missing.stderr


@pytest.mark.parametrize("name", SHIPPED)
def test_versions_and_help(name: str) -> None:
    t = lab(name)
    sw = t.scenario.software
    assert t.run(TORCH).stdout == f"{sw.torch}\n{sw.torch_cuda}\n{sw.nccl}\n"
    assert t.run("python -c 'import sglang; print(sglang.__version__)'").stdout == f"{sw.sglang}\n"
    helptext = t.run("python3 -m sglang.launch_server --help")
    # from 0.5.14 prepare_server_args names its parser "sglang serve" whichever way it was started
    prog = "launch_server.py" if sw.sglang == "0.5.9" else "sglang serve"
    assert helptext.exit_code == 0 and helptext.stdout.startswith(f"usage: {prog} [-h] --model-path MODEL_PATH")
    assert "\noptions:\n  -h, --help" in helptext.stdout
    has_nsa = "--nsa-decode-backend" in helptext.stdout
    has_dsa = "--dsa-decode-backend" in helptext.stdout
    # --dsa-* arrived in 0.5.13 with --nsa-* kept as deprecated aliases; --nsa-* is gone from 0.5.20
    assert (has_nsa, has_dsa) == {"0.5.9": (True, False), "0.5.14": (True, True)}.get(sw.sglang, (False, True))
    sparse = "{flashmla_sparse,flashmla_kv,flashmla_auto,fa3,tilelang,aiter,trtllm}"
    assert (sparse in helptext.stdout) == (sw.sglang in ("0.5.9", "0.5.14"))  # later releases add backends
    assert "flashmla_kv" in helptext.stdout


def test_processes_ports_and_apps_on_the_stale_port_host() -> None:
    t = lab("stale-port")
    ps = t.run("ps -eo pid,pgid,etimes,args").stdout.splitlines()
    assert ps[0] == "    PID    PGID ELAPSED COMMAND"
    row = next(line for line in ps if "23817" in line)
    assert re.fullmatch(
        r"\s+23817\s+23817\s+\d+ python3 -m sglang.launch_server --model-path "
        r"/models/Qwen2.5-7B-Instruct --host 0.0.0.0 --port 30000 --base-gpu-id 3",
        row,
    )
    ss = t.run("ss -ltnH 'sport = :30000'").stdout
    assert ss.split()[:4] == ["LISTEN", "0", "2048", "0.0.0.0:30000"]
    assert t.run("ss -ltnH 'sport = :30001'").stdout == ""
    assert 'users:(("python3",pid=23817,fd=35))' in t.run("ss -ltnp").stdout
    assert t.run(APPS).stdout == "23817, 00000000:C2:00.0, 40311, python3\n"
    health = t.run("curl -s -o /dev/null -w '%{http_code}' --max-time 5 http://127.0.0.1:30000/health")
    assert (health.stdout, health.exit_code) == ("200", 0)
    info = json.loads(t.run("curl -s --max-time 5 http://127.0.0.1:30000/server_info").stdout)
    assert info["model_path"] == "/models/Qwen2.5-7B-Instruct"
    refused = t.run("curl -s -o /dev/null -w '%{http_code}' --max-time 5 http://127.0.0.1:30001/health")
    assert (refused.stdout, refused.exit_code, refused.stderr) == ("000", 7, "")
    loud = t.run("curl -sS http://127.0.0.1:30001/health")
    assert loud.stderr.startswith("curl: (7) Failed to connect to 127.0.0.1 port 30001")


def test_shell_plumbing() -> None:
    t = lab("healthy-host")
    assert t.run("nvidia-smi -L | head -n 2 | wc -l").stdout == "2\n"
    assert t.run("lspci -nnk | grep -c 'Kernel driver in use: nvidia'").stdout == "8\n"
    assert t.run("false || echo fallback && echo next").stdout == "fallback\nnext\n"
    assert t.run("true; false").exit_code == 1
    assert t.run("test -e /models/Qwen3-235B-A22B-Instruct-2507-FP8 && echo yes").stdout == "yes\n"
    assert t.run("test -e /models/missing").exit_code == 1
    assert "config.json" in t.run("ls /models/Qwen3-235B-A22B-Instruct-2507-FP8").stdout.split()
    r = t.run("frobnicate --now")
    assert (r.exit_code, r.stderr) == (127, "bash: line 1: frobnicate: command not found\n")
    assert t.run("FOO=bar printenv FOO").stdout == "bar\n"
    assert t.run("echo hi", env={"X": "1"}).stdout == "hi\n"
    assert t.run("sudo whoami").stdout == "root\n" and t.run("whoami").stdout == "ops\n"
    t.run(f"mkdir -p {t.work_dir}/a && echo one > {t.work_dir}/a/f && echo two >> {t.work_dir}/a/f")
    assert t.run(f"cat {t.work_dir}/a/f").stdout == "one\ntwo\n"
    assert t.run(f"tail -n 1 {t.work_dir}/a/f").stdout == "two\n"
    assert t.read_file(f"{t.work_dir}/a/f", offset=4) == b"two\n"
    denied = t.run("echo x > /etc/hostname")
    assert denied.exit_code == 1 and denied.stderr == "bash: line 1: /etc/hostname: Permission denied\n"
    bad = t.run("nvidia-smi --query-gpu=index,bogus --format=csv")
    assert (bad.exit_code, bad.stdout) == (2, 'Field "bogus" is not a valid field to query.\n\n')
    header = t.run("nvidia-smi --query-gpu=index,memory.used,power.draw --format=csv -i 0").stdout.splitlines()
    assert header[0] == "index, memory.used [MiB], power.draw [W]"
    assert re.fullmatch(r"0, 0 MiB, \d+\.\d\d W", header[1])
    assert t.run("python3 -c 'import vllm'").stderr.endswith("ModuleNotFoundError: No module named 'vllm'\n")


def test_process_listings_and_gpu_activity() -> None:
    t = lab("cotenant-visible")
    aux = t.run("ps aux").stdout.splitlines()
    assert aux[0] == "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"
    assert any(
        line.startswith("research   18812 ") and line.endswith("train.py --config configs/run42.yaml") for line in aux
    )
    assert t.run("ps -ef").stdout.startswith("UID          PID    PPID  C STIME TTY          TIME CMD\n")
    util = t.run("nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits").stdout.split()
    assert util == ["0"] * 4 + ["100"] * 4  # the training job is busy
    idle = lab("stale-port").run("nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader -i 3")
    assert idle.stdout == "0 %, 40311 MiB\n"  # an idle server holds memory, not compute
    assert t.run("head -c 11 /proc/cmdline").stdout == "BOOT_IMAGE="


def test_text_filters_in_pipelines() -> None:
    t = lab("healthy-host")
    total = t.run("nvidia-smi --query-gpu=index,memory.total --format=csv,noheader,nounits | cut -d, -f2 | uniq")
    assert total.stdout == " 143771\n"
    assert t.run("ps -eo pid,args | awk '{print $1}' | head -2").stdout == "PID\n1\n"
    assert t.run("echo a,b | tr , ' '").stdout == "a b\n"
    assert t.run("seq 3 | tail -n 1").stdout == "3\n"
    assert t.run("nvidia-smi nvlink --status | grep -c Link").stdout == f"{8 * 18}\n"
    unsupported = t.run("awk 'BEGIN{x=1} {print x}' /etc/hostname")
    assert unsupported.exit_code == 2 and "awk:" in unsupported.stderr


def test_module_cpu_disk_and_kernel_journal_views() -> None:
    t = lab("p2p-corruption")
    assert t.run("lsmod").stdout.startswith("Module                  Size  Used by\n")
    assert "vfio_pci" in t.run("lsmod | grep vfio").stdout
    assert "vfio" not in lab("healthy-host").run("lsmod").stdout
    assert "gpu-box kernel: iommu: Default domain type: Translated" in t.run("journalctl -k").stdout
    assert "NUMA node1 CPU(s):" in t.run("lscpu").stdout
    assert t.run("du -sh /models/Qwen3.5-122B-A10B").stdout == "228G\t/models/Qwen3.5-122B-A10B\n"  # GNU du rounds up
    query = t.run("nvidia-smi -q").stdout
    assert "Attached GPUs                             : 4\n" in query
    assert "        Total                             : 97887 MiB\n" in query


@pytest.mark.parametrize("name", SHIPPED)
def test_sysfs_lspci_dmesg_and_virt_agree_with_the_scenario(name: str) -> None:
    t = lab(name)
    s = t.scenario
    iommu_on = s.iommu.vendor != "none" and s.iommu.mode != "off"
    for d in s.gpus.devices:
        base = f"/sys/bus/pci/devices/{d.bus_id}"
        assert t.run(f"readlink -f {base}/driver").stdout == f"/sys/bus/pci/drivers/{d.driver}\n"
        group = t.run(f"readlink -f {base}/iommu_group")
        if iommu_on:
            assert group.stdout == f"/sys/kernel/iommu_groups/{d.iommu_group}\n"
            assert t.run(f"cat {base}/iommu_group/type").stdout == f"{s.iommu.group_type}\n"
        else:
            assert t.run(f"cat {base}/iommu_group/type").exit_code == 1
        assert t.run(f"cat {base}/numa_node").stdout == f"{d.numa_node}\n"
    lspci = t.run("lspci -nnk").stdout
    for driver in ("nvidia", "vfio-pci"):
        expected = sum(d.driver == driver for d in s.gpus.devices)
        assert lspci.count(f"\tKernel driver in use: {driver}\n") == expected
    assert lspci.count(f"[{s.gpus.pci_id}] (rev a1)") == len(s.gpus.devices)
    virt = t.run("systemd-detect-virt")
    assert virt.stdout == f"{s.host.virtualization}\n" and virt.exit_code == (
        1 if s.host.virtualization == "none" else 0
    )
    assert t.run("cat /proc/cmdline").stdout == s.host.cmdline + "\n"
    dmesg = t.run("dmesg").stdout.splitlines()
    assert re.fullmatch(r"\[\s+0\.000000\] Linux version .*", dmesg[0])
    assert ("iommu: Default domain type: Translated" in "\n".join(dmesg)) == (s.iommu.mode == "translated")
