"""Model directories shaped like Hugging Face repos (config.json, safetensors index, shards)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LLAMA_70B: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 8192,
    "intermediate_size": 28672,
    "num_attention_heads": 64,
    "num_hidden_layers": 80,
    "num_key_value_heads": 8,
    "max_position_embeddings": 131072,
    "vocab_size": 128256,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
QWEN3_MOE_235B: dict[str, Any] = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "model_type": "qwen3_moe",
    "hidden_size": 4096,
    "intermediate_size": 12288,
    "moe_intermediate_size": 1536,
    "num_attention_heads": 64,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "num_hidden_layers": 94,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "decoder_sparse_step": 1,
    "mlp_only_layers": [],
    "vocab_size": 151936,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "max_position_embeddings": 262144,
}
QWEN3_MOE_235B_FP8: dict[str, Any] = {
    **QWEN3_MOE_235B,
    "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]},
}
GLM_45: dict[str, Any] = {
    "architectures": ["Glm4MoeForCausalLM"],
    "model_type": "glm4_moe",
    "hidden_size": 5120,
    "intermediate_size": 12288,
    "moe_intermediate_size": 1536,
    "num_attention_heads": 96,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "num_hidden_layers": 92,
    "first_k_dense_replace": 3,
    "n_routed_experts": 160,
    "n_shared_experts": 1,
    "num_experts_per_tok": 8,
    "vocab_size": 151552,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "max_position_embeddings": 131072,
}
GLM_45_NVFP4: dict[str, Any] = {
    **GLM_45,
    "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16},
}
DEEPSEEK_V3: dict[str, Any] = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "model_type": "deepseek_v3",
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "num_hidden_layers": 61,
    "first_k_dense_replace": 3,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "num_experts_per_tok": 8,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "vocab_size": 129280,
    "torch_dtype": "bfloat16",
    "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]},
}


def write_model(
    root: Path,
    config: dict[str, Any] | None,
    *,
    total_size: int | None = None,
    shards: list[int] | None = None,
) -> Path:
    """A repo directory: config.json, optionally an index with metadata.total_size, and shards
    of the given sizes (sparse files: the size is real, the disk use is not)."""
    root.mkdir(parents=True)
    if config is not None:
        (root / "config.json").write_text(json.dumps(config, indent=2))
    (root / "tokenizer.json").write_text("{}")
    names = [f"model-{i:05d}-of-{len(shards or []):05d}.safetensors" for i in range(1, len(shards or []) + 1)]
    for name, size in zip(names, shards or [], strict=True):
        with open(root / name, "wb") as fh:
            fh.truncate(size)
    if total_size is not None or names:
        index: dict[str, Any] = {"weight_map": {f"layers.{i}.weight": n for i, n in enumerate(names)}}
        if total_size is not None:
            index["metadata"] = {"total_size": total_size}
        (root / "model.safetensors.index.json").write_text(json.dumps(index))
    return root
