"""Every sample in tests/corpus (real output from other people's machines) through the parsers.

The manifest says, per sample, where it came from and what must come out of it; the expectations
were read off the samples by eye, never produced by the parsers under test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tools.gpus import UnparseableOutput, parse_gpu_query
from tools.hostinfo import parse_dmesg, parse_versions_smi
from tools.sglang.bench import parse_printed
from tools.sglang.status import throughput_from_log
from tools.sglang.wait import READY, classify, transport_of
from tools.topology import parse_topo_matrix, parse_topo_p2p

CORPUS = Path(__file__).parent.parent / "corpus"
MANIFEST: list[dict[str, Any]] = yaml.safe_load((CORPUS / "manifest.yaml").read_text())["samples"]
NO_CONCURRENCY = -1  # passed as the run's concurrency, so a block without one is told apart


def _ids(kind: str) -> list[Any]:
    return [pytest.param(s, id=s["file"]) for s in MANIFEST if s["kind"] == kind]


def _text(sample: dict[str, Any]) -> str:
    return (CORPUS / sample["file"]).read_text(encoding="utf-8")


def test_manifest_lists_every_sample_once_with_its_source() -> None:
    on_disk = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.is_file()} - {"manifest.yaml"}
    listed = [s["file"] for s in MANIFEST]
    assert sorted(listed) == sorted(on_disk) and len(set(listed)) == len(listed)
    assert len(MANIFEST) >= 60
    for sample in MANIFEST:
        source = sample["source"]
        assert source.get("url", "").startswith("https://github.com/") or {"repo", "commit", "path"} <= set(source)
        assert sample["what"] and isinstance(sample["expect"], dict)


@pytest.mark.parametrize("sample", _ids("smi_version") + _ids("smi_table"))
def test_driver_and_cuda_versions(sample: dict[str, Any]) -> None:
    assert parse_versions_smi(_text(sample)) == (sample["expect"]["driver"], sample["expect"]["cuda"])


@pytest.mark.parametrize("sample", _ids("smi_query"))
def test_query_gpu_csv(sample: dict[str, Any]) -> None:
    gpus = parse_gpu_query(_text(sample))
    want = sample["expect"]["gpus"]
    assert len(gpus) == len(want)
    for got, expected in zip(gpus, want, strict=True):
        assert got.model_dump(include=set(expected)) == expected


@pytest.mark.parametrize("sample", _ids("topo_m"))
def test_topo_matrix(sample: dict[str, Any]) -> None:
    expect = sample["expect"]
    if expect.get("error"):
        with pytest.raises(UnparseableOutput):
            parse_topo_matrix(_text(sample))
        return
    matrix, affinity, nics = parse_topo_matrix(_text(sample))
    assert sorted(int(k[3:]) for k in matrix if k.startswith("GPU")) == expect["gpus"]
    assert nics == expect["nics"]
    by_gpu = {a.gpu: [a.cpu_affinity, a.numa_affinity, a.gpu_numa_id] for a in affinity}
    assert sorted(by_gpu) == expect["gpus"]
    for gpu, cells in expect["affinity"].items():
        assert by_gpu[int(gpu)] == cells
    for pair, link in expect["links"].items():
        a, b = pair.split("-")
        assert matrix[a][b] == link and matrix[b][a] == link


@pytest.mark.parametrize("sample", _ids("topo_p2p"))
def test_topo_p2p(sample: dict[str, Any]) -> None:
    p2p = parse_topo_p2p(_text(sample))
    for pair, cell in sample["expect"]["cells"].items():
        a, b = pair.split("-")
        assert p2p[a][b] == cell


@pytest.mark.parametrize("sample", _ids("dmesg"))
def test_kernel_log_faults_and_xids(sample: dict[str, Any]) -> None:
    faults, xids = parse_dmesg(_text(sample))
    assert (len(faults), len(xids)) == (sample["expect"]["iommu_faults"], sample["expect"]["xids"])


@pytest.mark.parametrize("sample", _ids("sglang_log"))
def test_sglang_log(sample: dict[str, Any]) -> None:
    lines = _text(sample).splitlines()
    expect = sample["expect"]
    cause, evidence = classify(lines)
    assert cause == expect["cause"], evidence
    if cause is not None:
        assert evidence and all(line in lines for line in evidence)
    gen, running, prefill = throughput_from_log(lines)
    if "decode" in expect:
        assert (running, gen) == (expect["decode"]["running"], expect["decode"]["gen_throughput"])
    if "prefill_throughput" in expect:
        assert prefill == expect["prefill_throughput"]
    assert any(READY.search(line) for line in lines) == expect.get("ready", False)


@pytest.mark.parametrize("sample", _ids("bench_printed"))
def test_bench_serving_block(sample: dict[str, Any]) -> None:
    expect = sample["expect"]
    level = parse_printed(_text(sample), NO_CONCURRENCY)
    assert level.output_throughput == expect["output_throughput"]
    assert (level.completed, level.duration) == (expect["completed"], expect["duration"])
    assert level.concurrency == (NO_CONCURRENCY if expect["concurrency"] is None else expect["concurrency"])
    assert level.mean_ttft_ms == expect["mean_ttft_ms"]


@pytest.mark.parametrize("sample", _ids("nccl"))
def test_nccl_transport(sample: dict[str, Any]) -> None:
    assert transport_of(_text(sample).splitlines()) == sample["expect"]["transport"]
