"""Model directories with real sizes: config.json as Hugging Face writes it, the safetensors index and
shards whose sizes add up, and the arithmetic behind them (parameters, bytes, KV bytes per token).

A scenario's model gives `size_gb` (weights in 10^9 bytes), `config` values, or both. Whatever the
config leaves out is derived from the architecture family and the size: a dense model gets the
hidden size whose usual shape (GQA attention, SwiGLU MLP about 3.5x wide) holds that many
parameters; a MoE model gets experts about 0.35x the hidden size wide. The shard files then hold
exactly `size_gb * 10^9` bytes (the index's `metadata.total_size` is their sum), and the config's
parameter count times the bytes per parameter lands within a few percent of it. Shards are sparse
lab files: their size is declared, their first bytes are a real safetensors header.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from typing import Any, Protocol


class _Dumps(Protocol):
    def model_dump(self, *, exclude_none: bool = ...) -> dict[str, Any]: ...


class ModelSpec(Protocol):
    """What the model files are built from: the scenario's model entry (tools.lab.scenario.ModelSpec),
    read through this interface so the scenario's validator can call back into this module."""

    @property
    def architecture(self) -> str: ...
    @property
    def size_gb(self) -> float: ...
    @property
    def config(self) -> _Dumps | None: ...
    @property
    def dtype(self) -> str: ...
    @property
    def quantization(self) -> str | None: ...
    @property
    def layers(self) -> int: ...
    @property
    def context_length(self) -> int: ...
    @property
    def shards(self) -> int: ...

    def model_dump_json(self) -> str: ...


# Bytes per weight for each checkpoint format (4-bit formats carry their block scales).
QUANT_BYTES = {"fp8": 1.0, "modelopt_fp4": 0.5625, "nvfp4": 0.5625, "mxfp4": 0.53125, "awq": 0.53, "gptq": 0.53}
DTYPE_BYTES = {"bfloat16": 2.0, "bf16": 2.0, "float16": 2.0, "fp16": 2.0, "float32": 4.0}
MLA_FAMILIES = ("Deepseek", "Glm", "Kimi")  # multi-head latent attention: one compressed KV per token
VOCAB = {"Llama": 128256, "Qwen": 151936, "Glm": 154880, "Deepseek": 129280, "Kimi": 163840, "Mixtral": 32000}


def is_moe(architecture: str) -> bool:
    return "Moe" in architecture or "Mixtral" in architecture or architecture.startswith(("Deepseek", "Kimi"))


def is_mla(architecture: str) -> bool:
    return architecture.startswith(MLA_FAMILIES) and is_moe(architecture)


def bytes_per_param(dtype: str, quantization: str | None) -> float:
    if quantization is not None:
        return QUANT_BYTES.get(quantization, 1.0)
    return DTYPE_BYTES.get(dtype, 2.0)


def _vocab(architecture: str) -> int:
    return next((v for k, v in VOCAB.items() if architecture.startswith(k)), 32000)


def _experts_key(architecture: str) -> str:
    if architecture.startswith("Mixtral"):
        return "num_local_experts"
    if is_mla(architecture):
        return "n_routed_experts"
    return "num_experts"


@dataclass(frozen=True)
class Shape:
    """A model's shape: its config.json and the counts the lab's memory arithmetic uses."""

    config: dict[str, Any]
    attn_params: int  # attention, embeddings, norms: split by attention TP
    ffn_params: int  # MLP or experts (routed and shared): split by the whole TP group (EP x MoE-TP)
    bytes_per_param: float
    layers: int
    mla: bool

    @property
    def params(self) -> int:
        return self.attn_params + self.ffn_params

    @property
    def weight_bytes(self) -> int:
        return int(self.params * self.bytes_per_param)

    def kv_bytes_per_token(self, kv_dtype_bytes: float, attn_tp: int = 1, pp: int = 1) -> float:
        """KV-cache bytes one token takes on one GPU: MLA keeps one latent per layer on every rank;
        GQA splits the KV heads over attention TP (a head is replicated when TP exceeds them)."""
        layers = math.ceil(self.layers / max(pp, 1))
        c = self.config
        if self.mla:
            return layers * (int(c["kv_lora_rank"]) + int(c["qk_rope_head_dim"])) * kv_dtype_bytes
        heads = max(1, math.ceil(int(c["num_key_value_heads"]) / max(attn_tp, 1)))
        return 2 * layers * heads * _head_dim(c) * kv_dtype_bytes


def _head_dim(c: dict[str, Any]) -> int:
    return int(c.get("head_dim") or int(c["hidden_size"]) // int(c["num_attention_heads"]))


def _attention_params(c: dict[str, Any], mla: bool) -> int:
    h, nh = int(c["hidden_size"]), int(c["num_attention_heads"])
    if mla:
        q_lora, kv_lora = int(c["q_lora_rank"]), int(c["kv_lora_rank"])
        nope, rope, v = int(c["qk_nope_head_dim"]), int(c["qk_rope_head_dim"]), int(c["v_head_dim"])
        return h * q_lora + q_lora * nh * (nope + rope) + h * (kv_lora + rope) + kv_lora * nh * (nope + v) + nh * v * h
    hd, nkv = _head_dim(c), int(c["num_key_value_heads"])
    return h * nh * hd * 2 + 2 * h * nkv * hd


def counts(c: dict[str, Any], architecture: str) -> tuple[int, int]:
    """(attention and embeddings, MLP or experts) parameter counts of a config, by the usual formulas."""
    h, layers, vocab = int(c["hidden_size"]), int(c["num_hidden_layers"]), int(c["vocab_size"])
    embed = vocab * h * (1 if c.get("tie_word_embeddings") else 2) + h
    attn = layers * (_attention_params(c, is_mla(architecture)) + 2 * h)
    if is_moe(architecture):
        e, mi = int(c[_experts_key(architecture)]), int(c["moe_intermediate_size"])
        shared = int(c.get("n_shared_experts") or 0)
        ffn = layers * (h * e + (e + shared) * 3 * h * mi)
    else:
        ffn = layers * 3 * h * int(c["intermediate_size"])
    return embed + attn, ffn


def _fit(spec: ModelSpec, given: dict[str, Any], params: float) -> dict[str, Any]:
    """Fill what `given` leaves out so the config holds about `params` parameters."""
    arch, moe, mla = spec.architecture, is_moe(spec.architecture), is_mla(spec.architecture)
    base: dict[str, Any] = {"num_hidden_layers": spec.layers, "vocab_size": given.get("vocab_size") or _vocab(arch)}
    if moe:
        base[_experts_key(arch)] = given.get("num_experts") or (256 if mla else 128)
        base["num_experts_per_tok"] = given.get("num_experts_per_tok") or 8
        if mla:
            base |= {"n_shared_experts": 1, "q_lora_rank": 1536, "kv_lora_rank": 512}
            base |= {"qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128}
    wide_key, ratio, step = ("moe_intermediate_size", 0.35, 32) if moe else ("intermediate_size", 3.5, 128)

    def shaped(h: int) -> tuple[dict[str, Any], float]:
        hd = int(given.get("head_dim") or 128)
        nh = int(given.get("num_attention_heads") or max(h // hd, 1))
        c = {**base, "hidden_size": h, "num_attention_heads": nh, "head_dim": hd}
        c["num_key_value_heads"] = int(given.get("num_key_value_heads") or (nh if mla else min(8, nh)))
        without = sum(counts({**c, wide_key: 0}, arch))
        per_unit = (sum(counts({**c, wide_key: 1}, arch)) - without) or 1
        width = given.get(wide_key) or max(step, round((params - without) / per_unit / step) * step)
        c[wide_key] = int(width)
        return c, abs(width / h - ratio)

    if given.get("hidden_size"):
        config, _ = shaped(int(given["hidden_size"]))
    else:
        config = min((shaped(h) for h in range(1024, 16385, 1024)), key=lambda pair: pair[1])[0]
    return config


def shape(spec: ModelSpec) -> Shape:
    """The model's config and counts: the scenario's `config` values, the rest derived."""
    given = spec.config.model_dump(exclude_none=True) if spec.config is not None else {}
    bpp = bytes_per_param(spec.dtype, spec.quantization)
    arch = spec.architecture
    c = _fit(spec, given, spec.size_gb * 1e9 / bpp if spec.size_gb > 0 else 0.0)
    if not (arch.startswith("Qwen3") or "head_dim" in given or is_mla(arch)):
        c.pop("head_dim", None)  # Llama/Qwen2-style configs leave it implied
    if is_mla(arch):
        c.pop("head_dim", None)
    attn, ffn = counts(c, arch)
    return Shape(c, attn, ffn, bpp, spec.layers, is_mla(arch))


def config_json(spec: ModelSpec, sh: Shape) -> dict[str, Any]:
    """config.json in Hugging Face's key order: architectures first, quantization_config last."""
    model_type = _model_type(spec.architecture)
    out: dict[str, Any] = {"architectures": [spec.architecture], "model_type": model_type}
    order = ["hidden_size", "intermediate_size", "moe_intermediate_size", "num_attention_heads"]
    order += ["num_key_value_heads", "head_dim", "num_hidden_layers", "num_local_experts", "num_experts"]
    order += ["n_routed_experts", "n_shared_experts", "num_experts_per_tok", "q_lora_rank", "kv_lora_rank"]
    order += ["qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "vocab_size"]
    for key in order:
        if key in sh.config:
            out[key] = sh.config[key]
    out["max_position_embeddings"] = spec.context_length
    out["rms_norm_eps"] = 1e-05 if spec.architecture.startswith("Llama") else 1e-06
    out["rope_theta"] = 500000.0 if spec.architecture.startswith("Llama") else 1000000.0
    out["tie_word_embeddings"] = bool(sh.config.get("tie_word_embeddings", False))
    out["torch_dtype"] = "bfloat16" if spec.dtype in ("bf16", "bfloat16") else spec.dtype
    out["transformers_version"] = "4.57.1"
    out["use_cache"] = True
    qc = quantization_config(spec.quantization)
    if qc is not None:
        out["quantization_config"] = qc
    return out


def _model_type(architecture: str) -> str:
    name = architecture.removesuffix("ForCausalLM").removesuffix("ForConditionalGeneration")
    out = "".join("_" + ch.lower() if ch.isupper() and i else ch.lower() for i, ch in enumerate(name))
    return out.replace("__", "_")


def quantization_config(quantization: str | None) -> dict[str, Any] | None:
    if quantization is None:
        return None
    if quantization == "fp8":
        return {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]}
    if quantization in ("modelopt_fp4", "nvfp4"):
        return {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "kv_cache_quant_algo": None}
    if quantization == "mxfp4":
        return {"quant_method": "mxfp4", "modules_to_not_convert": ["lm_head"]}
    if quantization in ("awq", "gptq"):
        return {"quant_method": quantization, "bits": 4, "group_size": 128, "zero_point": quantization == "awq"}
    return {"quant_method": quantization}


def shard_names(count: int) -> list[str]:
    return [f"model-{i:05d}-of-{count:05d}.safetensors" for i in range(1, count + 1)]


def shard_sizes(total: int, count: int) -> list[int]:
    """Sizes that add up to `total` exactly: equal shards, the last one takes the remainder."""
    each = total // count
    return [each] * (count - 1) + [total - each * (count - 1)]


class LazyShardHead:
    """A shard's first bytes: the 8-byte header length, then a real safetensors header naming the
    tensors the index maps to this shard, with `data_offsets` that end at the shard's full indexed
    size. Built on first read (not pickled): a truncated shard still declares its full payload, so
    the header against the file's size shows the truncation, as safetensors' own check does."""

    def __init__(self, spec: ModelSpec, shard: int, full_size: int, mtime: float) -> None:
        self.spec = spec
        self.shard = shard
        self.full_size = full_size
        self.mtime = mtime
        self._data: bytes | None = None

    def __call__(self, t: float) -> tuple[bytes, float]:
        if self._data is None:
            self._data = shard_head(self.spec, self.shard, self.full_size)
        return self._data, self.mtime

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_data": None}


def shard_head(spec: ModelSpec, shard: int, full_size: int) -> bytes:
    names = _names(spec)
    files = spec.shards
    mine = [n for i, n in enumerate(names) if i * files // len(names) == shard - 1] or [f"shard.{shard}.weight"]
    dtype, width = ("F8_E4M3", 1) if spec.quantization == "fp8" else ("BF16", 2)
    length = 0
    for _ in range(6):  # the header's length depends on the offsets it holds: settle it
        payload = max(full_size - 8 - length, 0)
        each = payload // len(mine) // width * width
        header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
        start = 0
        for k, name in enumerate(mine):
            end = payload if k == len(mine) - 1 else start + each
            kind, size = (dtype, width) if (end - start) % width == 0 else ("U8", 1)
            header[name] = {"dtype": kind, "shape": [(end - start) // size], "data_offsets": [start, end]}
            start = end
        text = json.dumps(header, separators=(",", ":")).encode()
        text += b" " * (-len(text) % 8)  # safetensors pads the header to 8 bytes
        if len(text) == length:
            break
        length = len(text)
    return struct.pack("<Q", len(text)) + text


_NAMES: dict[str, list[str]] = {}


def _names(spec: ModelSpec) -> list[str]:
    key = spec.model_dump_json()
    if key not in _NAMES:
        if len(_NAMES) >= _MAX_INDEXES:
            _NAMES.clear()
        _NAMES[key] = tensor_names(spec, shape(spec))
    return _NAMES[key]


def tensor_names(spec: ModelSpec, sh: Shape) -> list[str]:
    """Tensor names as the family's checkpoints spell them, in file order."""
    names = ["model.embed_tokens.weight"]
    c = sh.config
    attn = (
        ["q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"]
        if sh.mla
        else ["q_proj", "k_proj", "v_proj", "o_proj"]
    )
    experts = int(c.get(_experts_key(spec.architecture)) or 0) if is_moe(spec.architecture) else 0
    for layer in range(spec.layers):
        p = f"model.layers.{layer}"
        names += [f"{p}.input_layernorm.weight", f"{p}.post_attention_layernorm.weight"]
        names += [f"{p}.self_attn.{a}.weight" for a in attn]
        if experts:
            names.append(f"{p}.mlp.gate.weight")
            for e in range(experts):
                names += [f"{p}.mlp.experts.{e}.{w}.weight" for w in ("gate_proj", "up_proj", "down_proj")]
            if c.get("n_shared_experts"):
                names += [f"{p}.mlp.shared_experts.{w}.weight" for w in ("gate_proj", "up_proj", "down_proj")]
        else:
            names += [f"{p}.mlp.{w}.weight" for w in ("gate_proj", "up_proj", "down_proj")]
    names += ["model.norm.weight", "lm_head.weight"]
    return names


def index_json(spec: ModelSpec, sh: Shape, total: int) -> bytes:
    names = tensor_names(spec, sh)
    files = shard_names(spec.shards)
    weight_map = {name: files[i * len(files) // len(names)] for i, name in enumerate(names)}
    return json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2).encode() + b"\n"


class LazyIndex:
    """model.safetensors.index.json, built on first read (a MoE index lists tens of thousands of
    tensors; most runs never open it). A class, not a closure, so lab state stays picklable; the
    built text is not pickled (megabytes, and the lab is saved after every step) but built again."""

    def __init__(self, spec: ModelSpec, mtime: float) -> None:
        self.spec = spec
        self.mtime = mtime
        self._data: bytes | None = None

    def __call__(self, t: float) -> tuple[bytes, float]:
        if self._data is None:
            self._data = _built_index(self.spec)
        return self._data, self.mtime

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_data": None}


_INDEXES: dict[str, bytes] = {}  # by the model's spec: a family's variants share their models
_MAX_INDEXES = 8


def _built_index(spec: ModelSpec) -> bytes:
    key = spec.model_dump_json()
    data = _INDEXES.get(key)
    if data is None:
        data = index_json(spec, shape(spec), weight_bytes(spec))
        if len(_INDEXES) >= _MAX_INDEXES:
            _INDEXES.clear()
        _INDEXES[key] = data
    return data


def weight_bytes(spec: ModelSpec) -> int:
    """The bytes the shards hold: the scenario's size."""
    return round(spec.size_gb * 1e9)
