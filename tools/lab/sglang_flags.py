"""The launch_server flags of the SGLang versions the lab emulates, as real argparse parsers.

Flag names change between versions (see knowledge/sglang-ops.md section 1): 0.5.9-0.5.12 have
`--nsa-*-backend` and an int `--cuda-graph-max-bs`; 0.5.13-0.5.22 add `--dsa-*` (the `--nsa-*`
spellings stay as aliases) and split the CUDA-graph batch size into `-decode`/`-prefill` with the
old name as an alias; 0.5.23 keeps only the new names. Parsing goes through Python's own argparse
so usage lines, help text and error messages (unrecognized, ambiguous, invalid choice) come out in
the exact format the real `launch_server.py` prints.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

PROG = "launch_server.py"
HELP_WIDTH = 78  # argparse uses the terminal width minus 2; 80 columns when there is no terminal

ATTENTION_059 = [
    "triton",
    "torch_native",
    "flex_attention",
    "nsa",
    "cutlass_mla",
    "fa3",
    "fa4",
    "flashinfer",
    "flashmla",
    "trtllm_mla",
    "trtllm_mha",
    "dual_chunk_flash_attn",
    "aiter",
    "wave",
    "intel_amx",
    "ascend",
    "intel_xpu",
]
ATTENTION_0523 = [*ATTENTION_059[:4], "dsa", *ATTENTION_059[4:]]
SPARSE_BACKENDS = ["flashmla_sparse", "flashmla_kv", "flashmla_auto", "fa3", "tilelang", "aiter", "trtllm"]
KV_059 = ["auto", "fp8_e5m2", "fp8_e4m3", "bf16", "bfloat16", "fp4_e2m1"]
KV_0523 = ["auto", "fp8_e5m2", "fp8_e4m3", "mxfp8", "bf16", "bfloat16", "nvfp4", "fp4_mx_block16"]
MOE_RUNNERS = [
    "auto",
    "deep_gemm",
    "triton",
    "triton_kernel",
    "flashinfer_trtllm",
    "flashinfer_cutlass",
    "flashinfer_mxfp4",
    "flashinfer_cutedsl",
    "cutlass",
]
FP8_GEMM = ["auto", "deep_gemm", "flashinfer_trtllm", "cutlass", "triton", "aiter"]
SPEC_ALGOS = ["EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM"]
MAX = (99, 0, 0)


@dataclass(frozen=True)
class Flag:
    names: tuple[str, ...]
    dest: str
    kind: str  # str | int | float | store_true
    help: str
    default: Any = None
    choices: tuple[str, ...] | None = None
    required: bool = False
    since: tuple[int, int, int] = (0, 0, 0)
    until: tuple[int, int, int] = MAX  # first version without it


def _f(names: str, kind: str, help_text: str, **kw: Any) -> Flag:
    parts = tuple(names.split())
    dest = kw.pop("dest", parts[0].lstrip("-").replace("-", "_"))
    if "choices" in kw and kw["choices"] is not None:
        kw["choices"] = tuple(kw["choices"])
    return Flag(parts, dest, kind, help_text, **kw)


V0513 = (0, 5, 13)
V0523 = (0, 5, 23)

FLAGS: list[Flag] = [
    _f(
        "--model-path --model",
        "str",
        "The path of the model weights. This can be a local folder or a Hugging Face repo ID.",
        required=True,
    ),
    _f("--tokenizer-path", "str", "The path of the tokenizer."),
    _f(
        "--load-format",
        "str",
        "The format of the model weights to load.",
        default="auto",
        choices=["auto", "pt", "safetensors", "npcache", "dummy", "gguf", "bitsandbytes", "layered"],
    ),
    _f(
        "--trust-remote-code",
        "store_true",
        "Whether or not to allow for custom models defined on the Hub in their own modeling files.",
    ),
    _f(
        "--context-length",
        "int",
        "The model's maximum context length. Defaults to None (will use the value "
        "from the model's config.json instead).",
    ),
    _f("--host", "str", "The host of the HTTP server.", default="127.0.0.1"),
    _f("--port", "int", "The port of the HTTP server.", default=30000),
    _f(
        "--dtype",
        "str",
        "Data type for model weights and activations.",
        default="auto",
        choices=["auto", "half", "float16", "bfloat16", "float", "float32"],
    ),
    _f("--quantization", "str", "The quantization method."),
    _f(
        "--kv-cache-dtype",
        "str",
        'Data type for kv cache storage. "auto" will use model data type.',
        default="auto",
        choices=KV_059,
        until=V0523,
    ),
    _f(
        "--kv-cache-dtype",
        "str",
        'Data type for kv cache storage. "auto" will use model data type.',
        default="auto",
        choices=KV_0523,
        since=V0523,
    ),
    _f(
        "--mem-fraction-static",
        "float",
        "The fraction of the memory used for static allocation (model "
        "weights and KV cache memory pool). Use a smaller value if you see out-of-memory errors.",
    ),
    _f("--max-running-requests", "int", "The maximum number of running requests."),
    _f("--max-prefill-tokens", "int", "The maximum number of tokens in a prefill batch.", default=16384),
    _f(
        "--chunked-prefill-size",
        "int",
        "The maximum number of tokens in a chunk for the chunked prefill. "
        "Setting this to -1 means disabling chunked prefill.",
    ),
    _f("--page-size", "int", "The number of tokens in a page."),
    _f("--tensor-parallel-size --tp-size", "int", "The tensor parallelism size.", default=1),
    _f("--pipeline-parallel-size --pp-size", "int", "The pipeline parallelism size.", default=1),
    _f("--data-parallel-size --dp-size", "int", "The data parallelism size.", default=1),
    _f("--expert-parallel-size --ep-size --ep", "int", "The expert parallelism size.", default=1),
    _f("--base-gpu-id", "int", "The base GPU ID to start allocating GPUs from.", default=0),
    _f("--random-seed", "int", "The random seed."),
    _f(
        "--watchdog-timeout",
        "float",
        "Set watchdog timeout in seconds. If a forward batch takes longer "
        "than this, the server will crash to prevent hanging.",
        default=300.0,
    ),
    _f("--log-level", "str", "The logging level of all loggers.", default="info"),
    _f(
        "--served-model-name",
        "str",
        "Override the model name returned by the v1/models endpoint in OpenAI API server.",
    ),
    _f("--api-key", "str", "Set API key of the server."),
    _f("--enable-metrics", "store_true", "Enable log prometheus metrics."),
    _f(
        "--attention-backend",
        "str",
        "Choose the kernels for attention layers.",
        choices=ATTENTION_059,
        until=V0523,
    ),
    _f(
        "--attention-backend",
        "str",
        "Choose the kernels for attention layers.",
        choices=ATTENTION_0523,
        since=V0523,
    ),
    _f(
        "--prefill-attention-backend",
        "str",
        "Choose the kernels for prefill attention layers (have priority over --attention-backend).",
        choices=ATTENTION_059,
        until=V0523,
    ),
    _f(
        "--prefill-attention-backend",
        "str",
        "Choose the kernels for prefill attention layers (have priority over --attention-backend).",
        choices=ATTENTION_0523,
        since=V0523,
    ),
    _f(
        "--decode-attention-backend",
        "str",
        "Choose the kernels for decode attention layers (have priority over --attention-backend).",
        choices=ATTENTION_059,
        until=V0523,
    ),
    _f(
        "--decode-attention-backend",
        "str",
        "Choose the kernels for decode attention layers (have priority over --attention-backend).",
        choices=ATTENTION_0523,
        since=V0523,
    ),
    _f(
        "--sampling-backend",
        "str",
        "Choose the kernels for sampling layers.",
        choices=["flashinfer", "pytorch"],
    ),
    _f("--nsa-prefill-backend", "str", "NSA backend for prefill.", choices=SPARSE_BACKENDS, until=V0513),
    _f("--nsa-decode-backend", "str", "NSA backend for decode.", choices=SPARSE_BACKENDS, until=V0513),
    _f(
        "--dsa-prefill-backend --nsa-prefill-backend",
        "str",
        "DSA backend for prefill (--nsa-prefill-backend is deprecated).",
        choices=SPARSE_BACKENDS,
        since=V0513,
        until=V0523,
    ),
    _f(
        "--dsa-decode-backend --nsa-decode-backend",
        "str",
        "DSA backend for decode (--nsa-decode-backend is deprecated).",
        choices=SPARSE_BACKENDS,
        since=V0513,
        until=V0523,
    ),
    _f("--dsa-prefill-backend", "str", "DSA backend for prefill.", choices=SPARSE_BACKENDS, since=V0523),
    _f("--dsa-decode-backend", "str", "DSA backend for decode.", choices=SPARSE_BACKENDS, since=V0523),
    _f(
        "--moe-runner-backend",
        "str",
        "Choose the runner backend for MoE.",
        default="auto",
        choices=MOE_RUNNERS,
    ),
    _f(
        "--fp8-gemm-backend",
        "str",
        "Choose the runner backend for FP8 blockwise GEMM.",
        default="auto",
        choices=FP8_GEMM,
    ),
    _f("--speculative-algorithm", "str", "Speculative algorithm.", choices=SPEC_ALGOS),
    _f(
        "--speculative-num-steps",
        "int",
        "The number of steps sampled from draft model in Speculative Decoding.",
    ),
    _f(
        "--speculative-eagle-topk",
        "int",
        "The number of tokens sampled from the draft model in eagle2 each step.",
    ),
    _f(
        "--speculative-num-draft-tokens",
        "int",
        "The number of tokens sampled from the draft model in Speculative Decoding.",
    ),
    _f(
        "--cuda-graph-max-bs",
        "int",
        "Set the maximum batch size for cuda graph. It will extend the cuda graph capture batch size to this value.",
        until=V0513,
    ),
    _f(
        "--cuda-graph-max-bs-decode --cuda-graph-max-bs",
        "int",
        "Set the maximum batch size for decode cuda graphs (--cuda-graph-max-bs is deprecated).",
        since=V0513,
        until=V0523,
    ),
    _f("--cuda-graph-max-bs-decode", "int", "Set the maximum batch size for decode cuda graphs.", since=V0523),
    _f(
        "--cuda-graph-max-bs-prefill",
        "int",
        "Set the maximum batch size for prefill cuda graphs.",
        since=V0513,
    ),
    _f("--disable-cuda-graph", "store_true", "Disable cuda graph."),
    _f("--disable-radix-cache", "store_true", "Disable RadixAttention for prefix caching."),
    _f(
        "--disable-custom-all-reduce",
        "store_true",
        "Disable the custom all-reduce kernel and fall back to NCCL.",
    ),
    _f(
        "--enable-flashinfer-allreduce-fusion",
        "store_true",
        "Enable FlashInfer allreduce fusion with Residual RMSNorm.",
    ),
    _f(
        "--enable-dp-attention",
        "store_true",
        "Enabling data parallelism for attention and tensor parallelism for FFN.",
    ),
    _f("--enable-torch-compile", "store_true", "Optimize the model with torch.compile. Experimental feature."),
    _f(
        "--num-continuous-decode-steps",
        "int",
        "Run multiple continuous decoding steps to reduce scheduling overhead.",
        default=1,
    ),
    _f("--skip-server-warmup", "store_true", "If set, skip warmup."),
    _f("--reasoning-parser", "str", "Specify the parser for reasoning models."),
    _f("--tool-call-parser", "str", "Specify the parser for handling tool-call interactions."),
]


def version_tuple(version: str) -> tuple[int, int, int]:
    """'0.5.23' -> (0, 5, 23); suffixes such as '.dev0' or '+cu130' are ignored."""
    numbers: list[int] = []
    for part in version.replace("+", ".").split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        if not digits or len(numbers) == 3:
            break
        numbers.append(int(digits))
    while len(numbers) < 3:
        numbers.append(0)
    return (numbers[0], numbers[1], numbers[2])


@functools.lru_cache(maxsize=16)
def flags_for(version: str) -> list[Flag]:
    v = version_tuple(version)
    return [f for f in FLAGS if f.since <= v < f.until]


class ArgumentError(Exception):
    """What argparse would print before exiting with status 2."""

    def __init__(self, usage: str, message: str) -> None:
        super().__init__(message)
        self.usage = usage
        self.message = message

    def stderr(self) -> str:
        return f"{self.usage}{PROG}: error: {self.message}\n"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ArgumentError(self.format_usage(), message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise ArgumentError(self.format_usage(), message or f"exit {status}")


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(prog, width=HELP_WIDTH)


@functools.lru_cache(maxsize=16)
def parser_for(version: str) -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, formatter_class=_formatter)
    types: dict[str, Any] = {"str": str, "int": int, "float": float}
    for flag in flags_for(version):
        if flag.kind == "store_true":
            parser.add_argument(*flag.names, dest=flag.dest, action="store_true", help=flag.help)
            continue
        kwargs: dict[str, Any] = {"type": types[flag.kind], "default": flag.default, "help": flag.help}
        if flag.choices is not None:
            kwargs["choices"] = list(flag.choices)
        if flag.required:
            kwargs["required"] = True
        parser.add_argument(*flag.names, dest=flag.dest, **kwargs)
    return parser


def help_text(version: str) -> str:
    return parser_for(version).format_help()


def parse(version: str, argv: Sequence[str]) -> argparse.Namespace:
    """Parse launch_server arguments as that version would; raises ArgumentError (exit status 2)."""
    return parser_for(version).parse_args(list(argv))


@functools.lru_cache(maxsize=16)
def option_dests(version: str) -> dict[str, str]:
    """Every option string of that version -> its dest (aliases included)."""
    return {name: flag.dest for flag in flags_for(version) for name in flag.names}


def dest_of(version: str, option: str) -> str | None:
    return option_dests(version).get(option)
