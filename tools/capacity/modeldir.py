"""What a model directory weighs and what its architecture is, read the way an operator would.

Weight bytes, best source first:
1. `model.safetensors.index.json` -> `metadata.total_size` (what the checkpoint's writer summed);
2. the sizes of the `*.safetensors` files (`stat -c '%s %n'`);
3. config.json: parameters from layers, hidden size, heads, KV heads, head_dim, intermediate
   size, experts, MoE intermediate size, vocab and tied embeddings, times the bytes of the dtype
   or the quantization (an estimate: norms and biases are left out, < 0.1% of a large model);
4. `du -sb` of the directory (an estimate: tokenizer and config files are counted too).
Everything is read through `Target.run`, so SSH, local and lab targets answer alike.

The architecture (`ModelArch`) also gives the KV-cache bytes per token (see `memory`), and the
share of the weights that are routed experts (what expert parallelism splits).
"""

from __future__ import annotations

import json
import math
import re
import shlex
from typing import Any, Literal

from pydantic import BaseModel, Field

from tools.target import Target, TargetError

GIB = 1024**3

DTYPE_BYTES = {
    "float32": 4.0,
    "float": 4.0,
    "bfloat16": 2.0,
    "float16": 2.0,
    "half": 2.0,
    "fp8": 1.0,
    "float8_e4m3fn": 1.0,
}

WeightSource = Literal["safetensors_index", "shard_sizes", "config_estimate", "du", "none"]


class ModelArch(BaseModel):
    """The numbers of config.json that memory depends on; None where the file does not say."""

    architecture: str | None = None
    model_type: str | None = None
    layers: int | None = None
    hidden_size: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    intermediate_size: int | None = None
    vocab_size: int | None = None
    tied_embeddings: bool = False
    dtype: str = "bfloat16"
    quantization: str | None = Field(default=None, description="quant_method (and algorithm) of quantization_config")
    weight_bytes_per_param: float = Field(default=2.0, description="bytes per parameter of the quantized linears")
    experts: int | None = None
    experts_per_token: int | None = None
    moe_intermediate_size: int | None = None
    shared_experts: int = 0
    shared_expert_intermediate_size: int | None = None
    moe_layers: int = 0
    kv_lora_rank: int | None = Field(default=None, description="MLA (DeepSeek/GLM): latent KV width")
    qk_rope_head_dim: int | None = None
    qk_nope_head_dim: int | None = None
    v_head_dim: int | None = None
    q_lora_rank: int | None = None
    attention_layers: int | None = Field(default=None, description="layers that keep a KV cache (full attention)")
    context_length: int | None = None

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def is_moe(self) -> bool:
        return bool(self.experts) and self.moe_layers > 0

    def missing_for_params(self) -> list[str]:
        needed = {"num_hidden_layers": self.layers, "hidden_size": self.hidden_size, "vocab_size": self.vocab_size}
        if not self.is_mla:
            needed["num_attention_heads"] = self.heads
        if self.moe_layers < (self.layers or 0):
            needed["intermediate_size"] = self.intermediate_size
        if self.is_moe:
            needed["moe_intermediate_size"] = self.moe_intermediate_size or self.intermediate_size
        return [name for name, value in needed.items() if value is None]


class ParamCount(BaseModel):
    dense: int = Field(description="parameters every GPU of a replica shares by tensor parallelism")
    experts: int = Field(description="routed-expert parameters (what expert parallelism splits)")
    quantized: int = Field(description="parameters in quantized linear layers (the rest stay in dtype)")

    @property
    def total(self) -> int:
        return self.dense + self.experts


class WeightBytes(BaseModel):
    total_bytes: int
    expert_bytes: int = 0
    source: WeightSource
    estimated: bool
    detail: str

    @property
    def total_gib(self) -> float:
        return self.total_bytes / GIB


class ModelFacts(BaseModel):
    path: str
    found: bool
    arch: ModelArch | None = None
    weights: WeightBytes | None = None
    params: ParamCount | None = None
    notes: list[str] = Field(default_factory=list, description="what could not be read, and why")


def _int(cfg: dict[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = cfg.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float) and value > 0:
            return int(value)
    return None


def _quantization(cfg: dict[str, Any], dtype_bytes: float) -> tuple[str | None, float]:
    """The quantization's name and the bytes a quantized weight takes, scales included."""
    qc = cfg.get("quantization_config")
    if not isinstance(qc, dict):
        return None, dtype_bytes
    method = str(qc.get("quant_method") or qc.get("quant_algo") or "unknown").lower()
    algo = str(qc.get("quant_algo") or "").lower()
    text = f"{method} {algo} {json.dumps(qc).lower()}"
    name = method if not algo or algo in method else f"{method} {algo}"
    if "fp4" in text or "mxfp4" in text:
        # 4-bit values plus one 8-bit scale per block of 16 (NVFP4) or 32 (MXFP4) values
        return name, 0.5 + (1 / 16 if "nvfp4" in text or "modelopt" in text else 1 / 32)
    if "fp8" in text or method == "fbgemm_fp8":
        return name, 1.0
    bits = qc.get("bits") or qc.get("w_bit") or qc.get("num_bits")
    if not isinstance(bits, int):
        groups = qc.get("config_groups")
        if isinstance(groups, dict):
            found = re.search(r'"num_bits":\s*(\d+)', json.dumps(groups))
            bits = int(found.group(1)) if found else None
    if qc.get("load_in_4bit"):
        bits = 4
    elif qc.get("load_in_8bit"):
        bits = 8
    if isinstance(bits, int) and bits > 0:
        group = qc.get("group_size") or qc.get("q_group_size") or 128
        scale = 2.0 / group if isinstance(group, int) and group > 0 else 0.0
        return name, bits / 8 + scale  # one fp16 scale per group
    return name, dtype_bytes


def parse_config(cfg: dict[str, Any]) -> ModelArch:
    """config.json (Hugging Face layout; a multimodal `text_config` is read for the LLM)."""
    text = cfg.get("text_config")
    if isinstance(text, dict):
        cfg = {**cfg, **text}
    archs = cfg.get("architectures")
    dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16").removeprefix("torch.")
    dtype_bytes = DTYPE_BYTES.get(dtype, 2.0)
    quant, per_param = _quantization(cfg, dtype_bytes)
    layers = _int(cfg, "num_hidden_layers", "n_layer", "num_layers")
    hidden = _int(cfg, "hidden_size", "d_model", "n_embd")
    heads = _int(cfg, "num_attention_heads", "n_head")
    head_dim = _int(cfg, "head_dim") or (hidden // heads if hidden and heads else None)
    experts = _int(cfg, "num_experts", "n_routed_experts", "num_local_experts")
    moe_layers = 0
    if experts and layers:
        first_dense = _int(cfg, "first_k_dense_replace") or 0
        step = _int(cfg, "decoder_sparse_step", "moe_layer_freq") or 1
        only_mlp = cfg.get("mlp_only_layers") or []
        moe_layers = sum(
            1
            for i in range(layers)
            if i >= first_dense and (i + 1) % step == 0 and i not in (only_mlp if isinstance(only_mlp, list) else [])
        )
    layer_types = cfg.get("layer_types")
    attention_layers = layers
    if isinstance(layer_types, list) and layer_types and layers:
        # hybrid models (linear attention / sliding windows): only full-attention layers keep all tokens
        full = sum(1 for t in layer_types if str(t) in ("full_attention", "attention"))
        attention_layers = full or layers
    elif _int(cfg, "full_attention_interval") and layers:
        attention_layers = layers // (_int(cfg, "full_attention_interval") or 1)
    return ModelArch(
        architecture=str(archs[0]) if isinstance(archs, list) and archs else None,
        model_type=str(cfg["model_type"]) if cfg.get("model_type") else None,
        layers=layers,
        hidden_size=hidden,
        heads=heads,
        kv_heads=_int(cfg, "num_key_value_heads", "num_kv_heads") or heads,
        head_dim=head_dim,
        intermediate_size=_int(cfg, "intermediate_size", "ffn_hidden_size"),
        vocab_size=_int(cfg, "vocab_size"),
        tied_embeddings=bool(cfg.get("tie_word_embeddings", False)),
        dtype=dtype,
        quantization=quant,
        weight_bytes_per_param=per_param,
        experts=experts,
        experts_per_token=_int(cfg, "num_experts_per_tok", "moe_topk"),
        moe_intermediate_size=_int(cfg, "moe_intermediate_size"),
        shared_experts=_int(cfg, "n_shared_experts", "num_shared_experts") or 0,
        shared_expert_intermediate_size=_int(cfg, "shared_expert_intermediate_size"),
        moe_layers=moe_layers,
        kv_lora_rank=_int(cfg, "kv_lora_rank"),
        qk_rope_head_dim=_int(cfg, "qk_rope_head_dim"),
        qk_nope_head_dim=_int(cfg, "qk_nope_head_dim"),
        v_head_dim=_int(cfg, "v_head_dim"),
        q_lora_rank=_int(cfg, "q_lora_rank"),
        attention_layers=attention_layers,
        context_length=_int(cfg, "max_position_embeddings", "seq_length", "max_sequence_length"),
    )


def _attention_params(a: ModelArch) -> int:
    hidden = a.hidden_size or 0
    if a.is_mla:
        heads = a.heads or 0
        nope, rope = a.qk_nope_head_dim or 128, a.qk_rope_head_dim or 64
        v = a.v_head_dim or 128
        q = (
            hidden * a.q_lora_rank + a.q_lora_rank * heads * (nope + rope)
            if a.q_lora_rank
            else hidden * heads * (nope + rope)
        )
        kv = hidden * ((a.kv_lora_rank or 0) + rope) + (a.kv_lora_rank or 0) * heads * (nope + v)
        return q + kv + heads * v * hidden
    heads, kv_heads, head_dim = a.heads or 0, a.kv_heads or a.heads or 0, a.head_dim or 0
    return hidden * head_dim * (2 * heads + 2 * kv_heads)  # q, o and k, v projections


def estimate_params(a: ModelArch) -> ParamCount | None:
    """Parameters from config.json, or None when it lacks a number the count needs."""
    if a.missing_for_params():
        return None
    layers, hidden, vocab = a.layers or 0, a.hidden_size or 0, a.vocab_size or 0
    embeddings = vocab * hidden * (1 if a.tied_embeddings else 2)
    attention = layers * _attention_params(a)
    dense_mlp = (layers - a.moe_layers) * 3 * hidden * (a.intermediate_size or 0)
    experts = 0
    shared = 0
    if a.is_moe:
        inter = a.moe_intermediate_size or a.intermediate_size or 0
        experts = a.moe_layers * (a.experts or 0) * 3 * hidden * inter
        shared_inter = a.shared_expert_intermediate_size or (a.shared_experts * inter)
        shared = a.moe_layers * (3 * hidden * shared_inter + hidden * (a.experts or 0))  # + the router
    linear = attention + dense_mlp + shared
    return ParamCount(dense=embeddings + linear, experts=experts, quantized=linear + experts)


def config_bytes(a: ModelArch, params: ParamCount) -> tuple[int, int]:
    """(total, expert) bytes: quantized linears at their width, embeddings and head in dtype."""
    dtype_bytes = DTYPE_BYTES.get(a.dtype, 2.0)
    plain = params.total - params.quantized
    total = plain * dtype_bytes + params.quantized * a.weight_bytes_per_param
    return int(total), int(params.experts * a.weight_bytes_per_param)


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)([KMGTP]?)(i?B?)\s")
_UNIT = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4, "P": 1024**5}


def parse_du(text: str) -> int | None:
    """`du -sb` prints bytes; `du -sh` style suffixes (131G) are read as powers of 1024."""
    match = _SIZE.match(text + " ")
    if match is None:
        return None
    return int(float(match.group(1)) * _UNIT[match.group(2)])


def _run(target: Target, command: str) -> str | None:
    """stdout of a command that succeeded, None when it failed; a command that never finished
    (dropped link, timeout) raises: its silence says nothing about the directory."""
    result = target.run(command, timeout=60)
    if result.exit_code is None:
        raise TargetError(f"{command.split()[0]} did not finish on {target.describe()}: {result.error or 'no exit'}")
    return result.stdout if result.ok else None


def _json(target: Target, path: str) -> dict[str, Any] | None:
    text = _run(target, f"cat -- {shlex.quote(path)}")
    if text is None:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def _shard_bytes(target: Target, path: str, index: dict[str, Any] | None) -> tuple[int, int] | None:
    """(bytes, files) of the safetensors shards, or None when there are none or they are empty."""
    names: list[str] = []
    weight_map = index.get("weight_map") if index else None
    if isinstance(weight_map, dict):
        names = sorted({str(v) for v in weight_map.values()})
    if not names:
        listing = _run(target, f"ls -1 -- {shlex.quote(path)}")
        names = sorted(n.strip() for n in (listing or "").splitlines() if n.strip().endswith(".safetensors"))
    if not names:
        return None
    quoted = " ".join(shlex.quote(f"{path.rstrip('/')}/{n}") for n in names)
    out = _run(target, f"stat -c '%s %n' -- {quoted}")
    sizes = [int(m.group(1)) for line in (out or "").splitlines() if (m := re.match(r"^(\d+)\s", line))]
    total = sum(sizes)
    return (total, len(sizes)) if total > 0 else None


def _expert_share(params: ParamCount | None, arch: ModelArch | None) -> float:
    if params is None or arch is None or params.total == 0:
        return 0.0
    total, experts = config_bytes(arch, params)
    return experts / total if total else 0.0


def read_model_dir(target: Target, path: str) -> ModelFacts:
    """Weight bytes and architecture of the model directory `path` on `target`; raises
    TargetError when a command never finished (the caller may simply look again)."""
    path = path.rstrip("/") or "/"
    notes: list[str] = []
    listed = target.run(f"ls -1 -- {shlex.quote(path)}", timeout=60)
    if listed.exit_code is None:
        raise TargetError(f"ls did not finish on {target.describe()}: {listed.error or 'no exit'}")
    if not listed.ok:
        said = (listed.stderr.strip() or listed.stdout.strip() or "no output").splitlines()[-1]
        return ModelFacts(path=path, found=False, notes=[f"cannot list {path}: {said}"])
    config = _json(target, f"{path}/config.json")
    arch = parse_config(config) if config is not None else None
    if config is None:
        notes.append("config.json is missing or not JSON: no architecture, no KV arithmetic")
    params = estimate_params(arch) if arch is not None else None
    if arch is not None and params is None:
        notes.append("config.json lacks " + ", ".join(arch.missing_for_params()) + ": parameters not counted")
    share = _expert_share(params, arch)
    weights: WeightBytes | None = None
    index = _json(target, f"{path}/model.safetensors.index.json")
    total = (
        (index or {}).get("metadata", {}).get("total_size") if isinstance((index or {}).get("metadata"), dict) else None
    )
    if isinstance(total, int) and total > 0:
        weights = WeightBytes(
            total_bytes=total,
            expert_bytes=int(total * share),
            source="safetensors_index",
            estimated=False,
            detail=f"model.safetensors.index.json metadata.total_size = {total:,} bytes",
        )
    if weights is None:
        shards = _shard_bytes(target, path, index)
        if shards is not None:
            size, files = shards
            weights = WeightBytes(
                total_bytes=size,
                expert_bytes=int(size * share),
                source="shard_sizes",
                estimated=False,
                detail=f"{files} safetensors shard(s) total {size:,} bytes",
            )
    if weights is None and arch is not None and params is not None:
        size, experts = config_bytes(arch, params)
        quant = f", {arch.quantization} at {arch.weight_bytes_per_param:g} B/param" if arch.quantization else ""
        weights = WeightBytes(
            total_bytes=size,
            expert_bytes=experts,
            source="config_estimate",
            estimated=True,
            detail=f"config.json: {params.total / 1e9:.1f}B parameters, {arch.dtype}{quant} (estimate)",
        )
    if weights is None:
        out = _run(target, f"du -sb -- {shlex.quote(path)}")
        du_size = parse_du(out or "")
        if du_size:
            weights = WeightBytes(
                total_bytes=du_size,
                expert_bytes=int(du_size * share),
                source="du",
                estimated=True,
                detail=f"du -sb {path}: {du_size:,} bytes (estimate: the whole directory)",
            )
        else:
            notes.append("no weight size: no safetensors index or shard sizes, no usable config.json, du failed")
    return ModelFacts(path=path, found=True, arch=arch, weights=weights, params=params, notes=notes)


def gib(value: float) -> str:
    """141.0 -> '141 GiB', 70.53 -> '70.5 GiB'."""
    return f"{value:,.0f} GiB" if value >= 100 or math.isclose(value, round(value)) else f"{value:,.1f} GiB"
