"""Every GPU/SGLang tool end to end on the lab (the simulated host answers the exact commands)."""

from __future__ import annotations

from typing import Any

import pytest

from tools.catalog import default_registry
from tools.registry import ToolContext, ToolOutput
from tools.target import DetachedProcess

lab = pytest.importorskip("tools.lab.target")


class Agent:
    def __init__(self, scenario: str) -> None:
        self.target = lab.LabTarget.from_name(scenario)
        self.processes: dict[str, DetachedProcess] = {}
        self.ctx = ToolContext(target=self.target, processes=self.processes)
        self.registry = default_registry()

    def call(self, name: str, **args: Any) -> ToolOutput:
        out = self.registry.get(name).invoke(self.ctx, args)
        for proc in out.started:
            self.processes[proc.name] = proc
        for gone in out.stopped:
            self.processes.pop(gone, None)
        return out


def test_p2p_corruption_host_full_session() -> None:
    agent = Agent("p2p-corruption")
    gpus = agent.call("observe_gpus")
    assert gpus.ok and [g["index"] for g in gpus.data["gpus"]] == [0, 1, 2, 3]
    topo = agent.call("observe_topology")
    assert topo.ok and topo.data["interconnect"] == "pcie" and topo.data["p2p_all_ok"] is True
    host = agent.call("observe_host", agent_gpus=[0, 1, 2, 3])
    assert host.data["iommu"]["value"]["mode"] == "translated"
    assert len(host.data["other_tenant_gpus"]) == 4
    p2p = agent.call("p2p_check", gpus=[0, 1, 2, 3])
    assert p2p.ok and not p2p.data["all_ok"] and len(p2p.data["claimed_but_corrupt"]) == 12
    flags = agent.call("sglang_flags")
    assert flags.ok
    launched = agent.call(
        "launch_server",
        model_path="/models/Qwen3.5-122B-A10B",
        tp=4,
        gpus=[0, 1, 2, 3],
        env={"NCCL_P2P_DISABLE": "1"},
    )
    assert launched.ok, launched.summary
    ready = agent.call("wait_server", timeout_s=1800)
    assert ready.ok and ready.data["ready"]
    status = agent.call("server_status")
    assert status.ok and status.data["models"] == ["/models/Qwen3.5-122B-A10B"]
    bench = agent.call("run_benchmark", concurrency=[1, 64], targets={"aggregate_tok_s": 1000})
    assert bench.ok and bench.data["source"] == "bench_serving-jsonl"
    assert [lv["concurrency"] for lv in bench.data["levels"]] == [1, 64]
    assert all(lv["output_throughput"] > 0 for lv in bench.data["levels"])
    stopped = agent.call("stop_server")
    assert stopped.ok
    assert agent.call("run_benchmark").error_kind == "server_down"
    assert agent.target.violations == []


@pytest.mark.parametrize(
    ("scenario", "model", "tp", "cause"),
    [
        ("glm5-nan-decode", "/models/GLM-5-NVFP4", 8, "nan_in_sampling"),
        ("oom-mem-fraction", "/models/Llama-3.3-70B-Instruct", 4, "cuda_oom"),
    ],
)
def test_failures_are_classified_on_the_lab(scenario: str, model: str, tp: int, cause: str) -> None:
    agent = Agent(scenario)
    assert agent.call("launch_server", model_path=model, tp=tp, gpus=list(range(tp))).ok
    out = agent.call("wait_server", timeout_s=1800)
    assert not out.ok and out.error_kind == cause and out.data["evidence"]


def test_bad_input_on_the_lab_is_typed() -> None:
    agent = Agent("renamed-flag")
    renamed = agent.call(
        "launch_server", model_path="/models/GLM-5-NVFP4", tp=8, extra_args=["--nsa-decode-backend", "trtllm"]
    )
    assert renamed.error_kind == "bad_argument" and "unrecognized arguments: --nsa-decode-backend" in renamed.summary
    assert agent.call("launch_server", model_path="/models/nope", tp=8).error_kind == "model_path_missing"
    assert agent.call("launch_server", model_path="/models/GLM-5-NVFP4", tp=16).error_kind == "tp_exceeds_gpus"
    good = agent.call("launch_server", model_path="/models/GLM-5-NVFP4", tp=8, decode_backend="trtllm")
    assert good.ok and "--dsa-decode-backend trtllm" in good.data["command"]
    assert agent.call("run_benchmark", port=30001).error_kind == "server_down"


def test_vm_host_and_taken_port() -> None:
    vm = Agent("vm-no-p2p")
    assert vm.call("observe_host").data["virtualization"]["value"] == "kvm"
    assert {p["p2p_read"] for p in vm.call("observe_topology").data["pairs"]} == {"NS"}
    stale = Agent("stale-port")
    out = stale.call("launch_server", model_path="/models/Qwen2.5-32B-Instruct", tp=2, gpus=[0, 1])
    assert out.error_kind == "port_in_use"
