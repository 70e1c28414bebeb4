"""The memory arithmetic on real-format model directories, read through a real LocalTarget."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.capacity.modeldirs import (
    DEEPSEEK_V3,
    GLM_45,
    GLM_45_NVFP4,
    LLAMA_70B,
    QWEN3_MOE_235B,
    QWEN3_MOE_235B_FP8,
    write_model,
)
from tools.capacity.layouts import plan_layouts
from tools.capacity.memory import Layout, Workload, kv_bytes_per_token, per_gpu_memory
from tools.capacity.modeldir import GIB, parse_config, read_model_dir
from tools.local import LocalTarget
from tools.target import CommandResult, TargetError

H100 = 81559 / 1024


@pytest.fixture
def target(tmp_path: Path) -> LocalTarget:
    # the work directory holds the model directories: the sandbox shows the host's /tmp to no command
    return LocalTarget(work_dir=str(tmp_path))


def test_weight_bytes_come_from_the_safetensors_index_first(tmp_path: Path, target: LocalTarget) -> None:
    path = write_model(tmp_path / "Llama-3.3-70B-Instruct", LLAMA_70B, total_size=141_107_412_992, shards=[1000] * 3)
    facts = read_model_dir(target, str(path))
    assert facts.weights is not None
    assert facts.weights.source == "safetensors_index" and facts.weights.total_bytes == 141_107_412_992
    assert not facts.weights.estimated


def test_without_an_index_size_the_shards_are_summed(tmp_path: Path, target: LocalTarget) -> None:
    sizes = [4_000_000_000] * 3 + [1_234_567]
    path = write_model(tmp_path / "Qwen3-235B-A22B", QWEN3_MOE_235B, shards=sizes)
    facts = read_model_dir(target, str(path))
    assert facts.weights is not None and facts.weights.source == "shard_sizes"
    assert facts.weights.total_bytes == sum(sizes)
    # routed experts are most of a Qwen3 MoE: what expert parallelism splits
    assert facts.weights.expert_bytes / facts.weights.total_bytes > 0.9


def test_config_json_alone_estimates_an_fp8_moe_near_its_published_size(tmp_path: Path, target: LocalTarget) -> None:
    path = write_model(tmp_path / "Qwen3-235B-A22B-FP8", QWEN3_MOE_235B_FP8)
    facts = read_model_dir(target, str(path))
    assert facts.weights is not None and facts.weights.source == "config_estimate" and facts.weights.estimated
    assert facts.params is not None and 230e9 < facts.params.total < 240e9  # "235B"
    assert 225e9 < facts.weights.total_bytes < 245e9  # fp8: about one byte a parameter
    bf16 = read_model_dir(target, str(write_model(tmp_path / "bf16", QWEN3_MOE_235B)))
    assert bf16.weights is not None and bf16.weights.total_bytes > 1.9 * facts.weights.total_bytes


def test_a_directory_without_usable_config_falls_back_to_du(tmp_path: Path, target: LocalTarget) -> None:
    path = write_model(tmp_path / "opaque", {"architectures": ["X"]})
    (path / "blob.bin").write_bytes(b"x" * 300_000)
    facts = read_model_dir(target, str(path))
    assert facts.weights is not None and facts.weights.source == "du" and facts.weights.estimated
    assert facts.weights.total_bytes >= 300_000
    assert any("lacks" in n for n in facts.notes)


def test_a_missing_directory_is_reported_not_raised(tmp_path: Path, target: LocalTarget) -> None:
    facts = read_model_dir(target, str(tmp_path / "nope"))
    assert not facts.found and "cannot list" in facts.notes[0]


def test_kv_bytes_per_token_gqa_and_mla() -> None:
    llama = parse_config(LLAMA_70B)
    # 80 layers x 8 KV heads x 128 dims x K and V x 2 bytes
    assert kv_bytes_per_token(llama, Layout(tp=1)) == 80 * 8 * 128 * 2 * 2
    assert kv_bytes_per_token(llama, Layout(tp=4)) == 80 * 2 * 128 * 2 * 2
    assert kv_bytes_per_token(llama, Layout(tp=16)) == 80 * 1 * 128 * 2 * 2  # heads replicated past 8
    assert kv_bytes_per_token(llama, Layout(tp=4), "fp8_e4m3") == 80 * 2 * 128 * 2
    deepseek = parse_config(DEEPSEEK_V3)
    assert deepseek.is_mla and deepseek.moe_layers == 58
    # MLA keeps one 512+64 latent per layer, on every TP rank
    assert kv_bytes_per_token(deepseek, Layout(tp=8)) == kv_bytes_per_token(deepseek, Layout(tp=1)) == 61 * 576 * 2


def test_per_gpu_memory_says_why_tp2_of_a_70b_does_not_fit_an_h100() -> None:
    facts_weights = 141 * 10**9
    from tools.capacity.modeldir import WeightBytes

    weights = WeightBytes(total_bytes=facts_weights, source="safetensors_index", estimated=False, detail="")
    arch = parse_config(LLAMA_70B)
    tp2 = per_gpu_memory(weights, arch, Layout(tp=2), H100, fraction=0.88, workload=Workload(concurrency=64))
    assert not tp2.fits
    assert "KV cache" in tp2.reasons[0] and "needed for 64 concurrent requests" in tp2.reasons[0]
    tp4 = per_gpu_memory(weights, arch, Layout(tp=4), H100, fraction=0.88, workload=Workload(concurrency=64))
    assert tp4.fits and tp4.max_concurrency is not None and tp4.max_concurrency >= 64
    assert tp4.weights_gib == pytest.approx(141e9 / GIB / 4, rel=1e-3)
    one = per_gpu_memory(weights, arch, Layout(tp=1), H100, fraction=0.88)
    assert not one.weights_fit and "131 GiB / TP1 = 131 GiB per GPU" in one.reasons[0]


def test_the_plan_ranks_layouts_and_knows_when_nothing_fits(tmp_path: Path, target: LocalTarget) -> None:
    path = write_model(tmp_path / "Llama-3.3-70B-Instruct", LLAMA_70B, total_size=141_000_000_000)
    facts = read_model_dir(target, str(path))
    plan = plan_layouts(facts, [0, 1, 2, 3, 4, 5, 6, 7], H100, interconnect="no_p2p")
    assert plan.first_choice == Layout(tp=8) and not plan.nothing_fits
    tp4dp2 = plan.verdict(Layout(tp=4, dp=2))
    assert tp4dp2 is not None and tp4dp2.fits and tp4dp2.expected_aggregate > 1.3  # fewer GPUs per all-reduce
    assert tp4dp2.expected_single < 1.0
    big = write_model(tmp_path / "Llama-3.1-405B", {**LLAMA_70B, "num_hidden_layers": 126}, total_size=810 * 10**9)
    small = plan_layouts(read_model_dir(target, str(big)), [0, 1, 2, 3], H100)
    assert small.nothing_fits and small.first_choice is None
    assert "754 GiB" in small.summary and "4 GPU(s)" in small.summary and small.min_gpus_needed == 11


@pytest.mark.parametrize(
    ("config", "published"),
    [(DEEPSEEK_V3, 671e9), (GLM_45, 355e9), (QWEN3_MOE_235B, 235e9), (LLAMA_70B, 70.6e9)],
    ids=["deepseek-v3", "glm-4.5", "qwen3-235b", "llama-70b"],
)
def test_parameter_counts_from_config_match_the_published_sizes(config: dict[str, object], published: float) -> None:
    from tools.capacity.modeldir import estimate_params

    params = estimate_params(parse_config(config))
    assert params is not None and abs(params.total - published) / published < 0.02


def test_an_nvfp4_checkpoint_is_about_a_quarter_of_its_bf16_size(tmp_path: Path, target: LocalTarget) -> None:
    fp4 = read_model_dir(target, str(write_model(tmp_path / "GLM-4.5-NVFP4", GLM_45_NVFP4)))
    bf16 = read_model_dir(target, str(write_model(tmp_path / "GLM-4.5", GLM_45)))
    assert fp4.arch is not None and fp4.arch.quantization is not None and "nvfp4" in fp4.arch.quantization
    assert fp4.weights is not None and bf16.weights is not None
    ratio = fp4.weights.total_bytes / bf16.weights.total_bytes
    assert 0.27 < ratio < 0.32  # 4.5 bits a weight, embeddings and head left in bf16


class _Dropping(LocalTarget):
    """A local target whose link drops every command: it never finishes, its outcome unknown."""

    def run(self, command: str, **kwargs: object) -> CommandResult:  # type: ignore[override]
        return CommandResult(command=command, exit_code=None, outcome_unknown=True, error="connection dropped")


def test_a_dropped_command_is_a_target_error_not_a_missing_directory(tmp_path: Path) -> None:
    path = write_model(tmp_path / "m", LLAMA_70B, total_size=10)
    with pytest.raises(TargetError, match="did not finish"):
        read_model_dir(_Dropping(work_dir=str(tmp_path / "work")), str(path))
