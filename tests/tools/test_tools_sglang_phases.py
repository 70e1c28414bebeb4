"""wait_server names the start-up phase on every SGLang release's wording (lab logs per release)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tools.catalog import default_registry
from tools.registry import ToolContext, ToolOutput
from tools.sglang import wait as wait_mod
from tools.sglang.status import SERVER_INFO_KEYS
from tools.target import DetachedProcess

lab = pytest.importorskip("tools.lab.target")
from tools.lab import sglang_logs  # noqa: E402
from tools.lab.scenario import load_scenario  # noqa: E402

SCENARIOS = Path(lab.__file__).parent / "scenarios"
# one release per wording era: 0.5.9-0.5.13, 0.5.14-0.5.15, 0.5.16-0.5.20, 0.5.21, 0.5.22+
ERAS = ["0.5.9", "0.5.13", "0.5.14", "0.5.16", "0.5.21", "0.5.22", "0.5.23"]


def call(target: Any, processes: dict[str, DetachedProcess], name: str, **args: Any) -> ToolOutput:
    out = default_registry().get(name).invoke(ToolContext(target=target, processes=processes), args)
    for proc in out.started:
        processes[proc.name] = proc
    return out


@pytest.mark.parametrize("version", ERAS)
def test_timeout_during_graph_capture_is_reported_as_capturing(version: str) -> None:
    scenario = load_scenario(SCENARIOS / "glm5-nan-decode.yaml")
    software = scenario.software.model_copy(update={"sglang": version})
    target = lab.LabTarget(scenario.model_copy(update={"software": software}))
    processes: dict[str, DetachedProcess] = {}
    started = call(
        target,
        processes,
        "launch_server",
        model_path="/models/GLM-5-NVFP4",
        tp=8,
        extra_args=["--trust-remote-code", "--enable-torch-compile"],  # the scenario's hang in graph capture
    )
    assert started.ok, started.summary
    out = call(target, processes, "wait_server", timeout_s=900)
    assert out.error_kind == "load_timeout"
    assert out.data["phase"] == "capturing CUDA graphs", out.data["evidence"]
    text = target.read_file(processes["sglang"].log_path).decode()
    assert sglang_logs.dist_begin(version) in text
    assert sglang_logs.graph_begin(version, [1], 1.0)[0].split(" backend=")[0].split(" This")[0] in text


@pytest.mark.parametrize("version", ERAS)
def test_every_release_s_lines_move_the_phase(version: str) -> None:
    lines = [
        sglang_logs.dist_begin(version),
        sglang_logs.kv_allocated(version, "bfloat16", 1000, "K size: 1.00 GB, V size: 1.00 GB"),
        *sglang_logs.graph_begin(version, [1, 2, 4], 20.0),
    ]
    phases = []
    phase = "starting"
    for line in lines:
        phase = wait_mod._phase(f"[2026-03-02 10:00:03 TP0] {line}", phase)
        phases.append(phase)
    assert phases[0] == "initialising torch distributed"
    assert phases[1] == "KV cache allocated"
    assert set(phases[2:]) == {"capturing CUDA graphs"}
    end = sglang_logs.graph_end(version, [1, 2, 4], 30.0, 1.9, 18.0)
    assert wait_mod._phase(end, phase) == "CUDA graphs captured"


def test_server_info_fields_are_the_ones_status_reads() -> None:
    for version in ("0.5.9", "0.5.23"):
        scenario = load_scenario(SCENARIOS / "healthy-host.yaml")
        software = scenario.software.model_copy(update={"sglang": version})
        target = lab.LabTarget(scenario.model_copy(update={"software": software}))
        processes: dict[str, DetachedProcess] = {}
        model = "/models/Qwen3-235B-A22B-Instruct-2507-FP8"
        assert call(target, processes, "launch_server", model_path=model, tp=8).ok
        assert call(target, processes, "wait_server", timeout_s=1800).ok
        status = call(target, processes, "server_status")
        info = status.data["server_info"]
        assert info["tp_size"] == 8 and info["dp_size"] == 1 and info["ep_size"] == 1, info
        assert {"tp_size", "dp_size", "ep_size", "pp_size"} <= set(SERVER_INFO_KEYS)
