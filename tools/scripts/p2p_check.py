"""P2P data-integrity check, sent to the target and run there with its PyTorch.

For every ordered pair of the given GPUs it asks the driver whether peer access is possible
(`torch.cuda.can_device_access_peer`), copies a known pattern from one GPU to the other (the
path NCCL's P2P transport relies on), compares the result on the destination with the pattern
brought over through host memory, and times the copy. A driver that claims access while the
copy corrupts data (an IOMMU in translation mode) shows up as claimed_access=true, copy_ok=false.

    python3 p2p_check.py --gpus 0,1,2,3 --size-mb 64

Prints one JSON object; exits 1 when the check could not run or any pair failed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from typing import Any


def check(gpus: list[int], size_mb: int, iters: int) -> dict[str, Any]:
    # Physical (nvidia-smi) indexes: make CUDA number devices the same way, then use 0..n-1.
    os.environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
    os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(str(g) for g in gpus)
    result: dict[str, Any] = {"gpus": gpus, "size_mb": size_mb, "pairs": [], "error": None}
    try:
        torch: Any = importlib.import_module("torch")
    except ImportError as exc:
        result["error"] = f"PyTorch is not importable: {exc}"
        return result
    result["torch"] = torch.__version__
    if not torch.cuda.is_available():
        result["error"] = "torch.cuda.is_available() is False (no driver, or a CPU-only PyTorch)"
        return result
    count = torch.cuda.device_count()
    if count < len(gpus):
        result["error"] = f"CUDA sees {count} of the {len(gpus)} requested GPUs"
        return result
    numel = size_mb * 1024 * 1024 // 4
    size_bytes = numel * 4
    sources = []
    expected = []
    for local in range(len(gpus)):
        with torch.cuda.device(local):
            pattern = torch.arange(numel, dtype=torch.int32, device=f"cuda:{local}")
            pattern.bitwise_xor_(0x5A5A5A5A ^ (local * 0x01010101))
            sources.append(pattern)
            expected.append(pattern.cpu())
    for a in range(len(gpus)):
        for b in range(len(gpus)):
            if a == b:
                continue
            pair: dict[str, Any] = {
                "src": gpus[a],
                "dst": gpus[b],
                "claimed_access": bool(torch.cuda.can_device_access_peer(a, b)),
                "copy_ok": False,
                "mismatches": None,
                "bandwidth_gbps": None,
                "error": None,
            }
            try:
                dst = torch.full((numel,), -1, dtype=torch.int32, device=f"cuda:{b}")
                torch.cuda.synchronize(a)
                torch.cuda.synchronize(b)
                started = time.perf_counter()
                for _ in range(iters):
                    dst.copy_(sources[a])
                torch.cuda.synchronize(b)
                torch.cuda.synchronize(a)
                elapsed = time.perf_counter() - started
                # The reference travels through host memory, never over the path under test.
                reference = expected[a].to(f"cuda:{b}")
                mismatches = int((dst != reference).sum().item())
                pair["mismatches"] = mismatches
                pair["copy_ok"] = mismatches == 0
                pair["bandwidth_gbps"] = round(size_bytes * iters / max(elapsed, 1e-9) / 1e9, 3)
            except RuntimeError as exc:
                pair["error"] = str(exc).splitlines()[0][:300]
            result["pairs"].append(pair)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="opsagent P2P data-integrity check")
    parser.add_argument("--gpus", required=True, help="Comma-separated nvidia-smi indexes.")
    parser.add_argument("--size-mb", type=int, default=64)
    parser.add_argument("--iters", type=int, default=3)
    args = parser.parse_args(argv)
    gpus = [int(g) for g in args.gpus.split(",") if g.strip()]
    result = check(gpus, args.size_mb, args.iters)
    result["all_ok"] = result["error"] is None and all(p["copy_ok"] for p in result["pairs"])
    print(json.dumps(result))
    return 0 if result["all_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
