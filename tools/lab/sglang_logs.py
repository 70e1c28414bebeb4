"""Start-up log lines and /server_info fields of each SGLang release, as its source writes them.

Each text below is copied from the released wheel's source (file and line named per release) with
the f-string's values filled in by the caller. Where the text changed between releases the
boundary is the first release whose source has the new text (checked in every release from
0.5.9 to 0.5.23 with `grep` over the unpacked wheels, see scripts/gen-sglang-flags).
"""

from __future__ import annotations

from typing import Any

from tools.lab.sglang_flags import server_args, version_key

V0513 = (0, 5, 13)
V0514 = (0, 5, 14)
V0516 = (0, 5, 16)
V0521 = (0, 5, 21)
V0522 = (0, 5, 22)


def _at_least(version: str, first: tuple[int, int, int]) -> bool:
    return version_key(version) >= first


def dist_begin(version: str) -> str:
    # 0.5.9 model_executor/model_runner.py:731 ... 0.5.15 model_runner.py:1233,
    # 0.5.16-0.5.20 distributed/bootstrap.py:62-82: "Init torch distributed begin."
    # 0.5.21 distributed/bootstrap.py:118, 0.5.22/0.5.23 bootstrap.py:115: "Init parallel begin."
    return "Init parallel begin." if _at_least(version, V0521) else "Init torch distributed begin."


def dist_end(version: str, elapsed_s: float, mem_gb: float) -> str:
    # 0.5.9 model_runner.py:850, 0.5.16 bootstrap.py:135: "Init torch distributed ends. elapsed=..., mem usage=..."
    # 0.5.21 bootstrap.py:174, 0.5.23 bootstrap.py:190: "Init parallel ends. elapsed=... s"
    if _at_least(version, V0521):
        return f"Init parallel ends. elapsed={elapsed_s:.2f} s"
    return f"Init torch distributed ends. elapsed={elapsed_s:.2f} s, mem usage={mem_gb:.2f} GB"


def kv_allocated(version: str, dtype: str, tokens: int, sizes: str) -> str:
    """`sizes`: "K size: X GB, V size: Y GB", or "KV size: X GB" for an MLA pool (same file, next line)."""
    # 0.5.9 mem_cache/memory_pool.py:652: "KV Cache is allocated. #tokens: ..., K size: ..., V size: ..."
    # 0.5.13 memory_pool.py:819, 0.5.17 memory_pool.py:1670: "... is allocated. dtype: torch.X, #tokens: ..."
    if _at_least(version, V0513):
        return f"KV Cache is allocated. dtype: torch.{dtype}, #tokens: {tokens}, {sizes}"
    return f"KV Cache is allocated. #tokens: {tokens}, {sizes}"


def kv_torch_dtype(kv_cache_dtype: Any) -> str:
    """The torch dtype the KV pool logs: the model's activation dtype under "auto"."""
    return {"fp8_e4m3": "float8_e4m3fn", "fp8_e5m2": "float8_e5m2"}.get(str(kv_cache_dtype), "bfloat16")


def graph_begin(version: str, bs: list[int], avail_gb: float, backend: str = "full") -> list[str]:
    """The decode CUDA-graph capture's first line(s)."""
    if not _at_least(version, V0514):
        # 0.5.9 model_runner.py:2147 (graph_backend "cuda graph"), then cuda_graph_runner.py:299
        return [
            f"Capture cuda graph begin. This can take up to several minutes. avail mem={avail_gb:.2f} GB",
            f"Capture cuda graph bs {bs}",
        ]
    per = "num_tokens_per_req" if _at_least(version, V0516) else "num_tokens_per_bs"
    if _at_least(version, V0522):
        # 0.5.22 model_runner_components/cuda_graph_setup.py:716, 0.5.23 :759 (bs moved to the end line)
        return [f"Capture target decode CUDA graph begin. backend={backend}, {per}=1, avail mem={avail_gb:.2f} GB"]
    # 0.5.14 model_runner.py:2563 (num_tokens_per_bs), 0.5.16 cuda_graph_setup.py:312 (num_tokens_per_req)
    return [f"Capture target decode CUDA graph begin. backend={backend}, {per}=1, bs={bs}, avail mem={avail_gb:.2f} GB"]


def graph_end(version: str, bs: list[int], elapsed_s: float, mem_gb: float, avail_gb: float) -> str:
    if not _at_least(version, V0514):
        # 0.5.9 model_runner.py:2161
        return (
            f"Capture cuda graph end. Time elapsed: {elapsed_s:.2f} s. mem usage={mem_gb:.2f} GB. "
            f"avail mem={avail_gb:.2f} GB."
        )
    tail = f"elapsed={elapsed_s:.2f} s, mem usage={mem_gb:.2f} GB, avail mem={avail_gb:.2f} GB."
    if _at_least(version, V0522):
        # 0.5.22 cuda_graph_setup.py:745, 0.5.23 :788
        return f"Capture target decode CUDA graph end. bs={bs}, {tail}"
    # 0.5.14 model_runner.py:2588, 0.5.16 cuda_graph_setup.py:338
    return f"Capture target decode CUDA graph end. {tail}"


def server_info_fields(args: Any) -> dict[str, Any]:
    """/server_info's ServerArgs part: the dataclass's field names (tp_size, dp_size, ep_size, ...).

    entrypoints/http_server.py `server_info` returns the ServerArgs fields plus scheduler info
    (0.5.23 http_server.py:863); ServerArgs names its parallel sizes tp_size, pp_size, dp_size,
    ep_size in every release (server_args.py from_cli_args copies the long argparse dests onto them
    before 0.5.14)."""
    return server_args(args)
