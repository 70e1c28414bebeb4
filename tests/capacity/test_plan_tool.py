"""plan_layouts as the deciders call it: through the registry, on the lab and on a local target."""

from __future__ import annotations

from pathlib import Path

from agent.loop.lab_facts import open_lab
from tests.capacity.modeldirs import LLAMA_70B, write_model
from tools.catalog import default_registry
from tools.local import LocalTarget
from tools.registry import ToolContext


def _plan(ctx: ToolContext, **args: object) -> dict[str, object]:
    out = default_registry().get("plan_layouts").invoke(ctx, args)
    assert out.ok, out.summary
    return out.data["plan"]


def test_on_the_lab_the_size_comes_from_the_files_and_tp4_x_dp2_of_glm5_does_not_fit() -> None:
    target = open_lab("lab:vm-no-p2p")
    plan = _plan(ToolContext(target=target), model_path="/models/GLM-5-NVFP4", gpus=list(range(8)))
    # the lab serves real-format directories (index, sized shards): measured, not estimated
    assert plan["weights_source"] in ("safetensors_index", "shard_sizes") and plan["estimated"] is False
    verdicts = {v["label"]: v for v in plan["layouts"]}
    assert verdicts["TP8"]["fits"] and plan["first_choice"] == {"tp": 8, "pp": 1, "dp": 1, "ep": 1}
    assert not verdicts["TP4 x DP2"]["fits"]
    assert "100 GiB per GPU" in verdicts["TP4 x DP2"]["why"][0]


def test_on_the_lab_another_teams_memory_counts_against_my_gpus() -> None:
    target = open_lab("lab:stale-port")
    plan = _plan(ToolContext(target=target), model_path="/models/Qwen2.5-32B-Instruct", gpus=[2, 3])
    assert plan["foreign_gib"] > 35  # GPU 3 holds the colleague's 7B server
    assert plan["nothing_fits"] is True and "held by others" in plan["summary"]


def test_on_a_local_target_the_index_is_read_and_no_gpu_is_needed_when_its_size_is_given(tmp_path: Path) -> None:
    path = write_model(tmp_path / "Llama-3.3-70B-Instruct", LLAMA_70B, total_size=141_107_412_992, shards=[10] * 30)
    ctx = ToolContext(target=LocalTarget(work_dir=str(tmp_path)))  # the sandbox hides the host's /tmp
    plan = _plan(ctx, model_path=str(path), gpus=[0, 1, 2, 3], gpu_memory_gib=79.6, interconnect="nvlink")
    assert plan["weights_source"] == "safetensors_index" and plan["estimated"] is False
    assert plan["first_choice"]["tp"] == 4
    out = (
        default_registry()
        .get("plan_layouts")
        .invoke(ctx, {"model_path": str(tmp_path / "missing"), "gpu_memory_gib": 80})
    )
    assert not out.ok and out.error_kind == "model_path_missing"
