"""Model directories in the lab: config.json, the safetensors index and shard sizes as an operator
reads them (`cat`, `ls -l`, `du`, `stat`, `find`), and the scenario checks on model sizes."""

from __future__ import annotations

import json

import pytest

from tools.lab.scenario import SCENARIO_DIR, LinkSpec, ScenarioError, load_scenario, parse_scenario, scenario_names
from tools.lab.target import LabTarget

HEALTHY = (SCENARIO_DIR / "healthy-host.yaml").read_text()


def lab(name: str) -> LabTarget:
    scenario = load_scenario(SCENARIO_DIR / f"{name}.yaml")
    return LabTarget(scenario.model_copy(update={"link": LinkSpec()}), seed=0)


def with_model(block: str) -> LabTarget:
    """healthy-host with its model replaced by `block` (YAML under `models:`)."""
    head, rest = HEALTHY.split("models:\n", 1)
    tail = rest[rest.index("\ntiming:") :]
    text = head + "models:\n" + block + tail
    text = text.replace("/models/Qwen3-235B-A22B-Instruct-2507-FP8", "/models/M")
    return LabTarget(parse_scenario(text, "variant.yaml"), seed=0)


def params(cfg: dict[str, object]) -> float:
    """Dense GQA transformer parameters, the way an operator would count them from config.json."""
    h, layers, vocab = int(cfg["hidden_size"]), int(cfg["num_hidden_layers"]), int(cfg["vocab_size"])  # type: ignore[call-overload]
    heads, kv = int(cfg["num_attention_heads"]), int(cfg["num_key_value_heads"])  # type: ignore[call-overload]
    hd = h // heads
    inter = int(cfg["intermediate_size"])  # type: ignore[call-overload]
    return layers * (2 * h * heads * hd + 2 * h * kv * hd + 3 * h * inter) + 2 * vocab * h


@pytest.mark.parametrize("name", scenario_names())
def test_every_shipped_model_dir_adds_up(name: str) -> None:
    t = lab(name)
    for model in t.scenario.models:
        d = model.path
        index = json.loads(t.read_file(f"{d}/model.safetensors.index.json", max_bytes=1 << 26))
        total = index["metadata"]["total_size"]
        assert total == round(model.size_gb * 1e9)
        shards = sorted(set(index["weight_map"].values()))
        assert len(shards) == model.shards
        sizes = [int(line.split()[0]) for line in t.run(f"stat -c '%s %n' {d}/*.safetensors").stdout.splitlines()]
        assert sum(sizes) == total and len(sizes) == model.shards
        listed = [line.split() for line in t.run(f"ls -l {d}").stdout.splitlines()[1:]]
        assert sum(int(cols[4]) for cols in listed if cols[-1].endswith(".safetensors")) == total
        du_b = int(t.run(f"du -sb {d}").stdout.split()[0])
        assert total < du_b < total * 1.001
        cfg = json.loads(t.run(f"cat {d}/config.json").stdout)
        assert cfg["architectures"] == [model.architecture]
        assert cfg["num_hidden_layers"] == model.layers
        assert cfg["max_position_embeddings"] == model.context_length


def test_dense_config_matches_real_llama_and_its_bytes() -> None:
    t = lab("healthy-host")
    t = with_model(
        "  - path: /models/M\n    architecture: LlamaForCausalLM\n    size_gb: 141\n    layers: 80\n    shards: 30\n"
    )
    cfg = json.loads(t.run("cat /models/M/config.json").stdout)
    assert (cfg["hidden_size"], cfg["intermediate_size"], cfg["num_attention_heads"]) == (8192, 28672, 64)
    assert cfg["num_key_value_heads"] == 8 and cfg["torch_dtype"] == "bfloat16"
    assert "quantization_config" not in cfg
    assert abs(params(cfg) * 2 - 141e9) / 141e9 < 0.03
    assert t.run("du -sh /models/M").stdout == "132G\t/models/M\n"
    assert t.run("find /models/M -name '*.safetensors' -size +4G | wc -l").stdout.strip() == "30"
    assert t.run("find /models/M -name '*.safetensors' -size -1G").stdout == ""  # rounded up: nothing below 1 unit


def test_explicit_config_gives_the_size_and_moe_fields() -> None:
    block = (
        "  - path: /models/M\n    architecture: Qwen3MoeForCausalLM\n    layers: 48\n    shards: 16\n"
        "    quantization: fp8\n"
        "    config: {hidden_size: 2048, num_attention_heads: 32, num_key_value_heads: 4, head_dim: 128,\n"
        "             num_experts: 128, num_experts_per_tok: 8, moe_intermediate_size: 768, vocab_size: 151936}\n"
    )
    t = with_model(block)
    cfg = json.loads(t.run("cat /models/M/config.json").stdout)
    assert (cfg["num_experts"], cfg["num_experts_per_tok"], cfg["moe_intermediate_size"]) == (128, 8, 768)
    assert cfg["head_dim"] == 128 and cfg["quantization_config"]["quant_method"] == "fp8"
    h, layers = 2048, 48
    experts = layers * 128 * 3 * h * 768
    attn = layers * (2 * h * 32 * 128 + 2 * h * 4 * 128 + h * 128)
    expected = (experts + attn + 2 * 151936 * h) * 1.0
    index = t.read_file("/models/M/model.safetensors.index.json", max_bytes=1 << 26)
    total = json.loads(index)["metadata"]["total_size"]
    assert abs(total - expected) / expected < 0.01  # ~30.5B parameters at one byte each
    assert int(t.run("du -sb /models/M").stdout.split()[0]) > total


@pytest.mark.parametrize(("quant", "method"), [("modelopt_fp4", "modelopt"), ("awq", "awq"), ("fp8", "fp8")])
def test_quantization_config_follows_the_format(quant: str, method: str) -> None:
    t = with_model(
        f"  - path: /models/M\n    architecture: LlamaForCausalLM\n    size_gb: 40\n    layers: 80\n"
        f"    quantization: {quant}\n"
    )
    assert json.loads(t.run("cat /models/M/config.json").stdout)["quantization_config"]["quant_method"] == method


def test_a_config_that_contradicts_the_size_is_named() -> None:
    block = (
        "  - path: /models/M\n    architecture: LlamaForCausalLM\n    size_gb: 30\n    layers: 80\n"
        "    config: {hidden_size: 8192, intermediate_size: 28672}\n"
    )
    with pytest.raises(ScenarioError) as err:
        with_model(block)
    assert "models[0]" in str(err.value) and "size_gb is 30" in str(err.value)


def test_shard_head_is_a_safetensors_header() -> None:
    t = lab("stale-port")
    head = t.read_file("/models/Qwen2.5-7B-Instruct/model-00001-of-00004.safetensors")
    length = int.from_bytes(head[:8], "little")
    assert json.loads(head[8 : 8 + length])["__metadata__"]["format"] == "pt"
    st = t.stat("/models/Qwen2.5-7B-Instruct/model-00001-of-00004.safetensors")
    assert st is not None and st.size == 3_800_000_000
