"""SGLang launch command building and bench_serving parsing, against recorded 0.5.9 / 0.5.23 outputs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError
from tools_testkit import ScriptedTarget, fixture_text

from tools.detached import start_script
from tools.gpus import QUERY_APPS, QUERY_GPUS
from tools.registry import ToolContext
from tools.sglang.bench import BenchTargets, Unparseable, compare, parse_jsonl, parse_printed, run_benchmark
from tools.sglang.flags import SglangFlagsArgs, help_command, version_command
from tools.sglang.launch import LaunchServerArgs, launch_server, model_check_command, port_check_command
from tools.sglang.wait import classify, health_command

MODEL = "/models/GLM-5-NVFP4"


def host(tmp_path: Path, version: str, port_taken: bool = False) -> ScriptedTarget:
    return ScriptedTarget(
        str(tmp_path),
        {
            version_command("python3"): f"{version}\n",
            help_command("python3"): fixture_text(f"sglang_help_{version}.txt"),
            model_check_command(MODEL): "",
            QUERY_GPUS: fixture_text("gpu_query_rtx6000x8.csv"),
            QUERY_APPS: "",
            port_check_command(30000): "LISTEN 0 4096 0.0.0.0:30000 0.0.0.0:*\n" if port_taken else "",
        },
    )


@pytest.mark.parametrize(
    ("version", "decode_flag", "graph_flag"),
    [
        ("0.5.9", "--nsa-decode-backend", "--cuda-graph-max-bs"),
        ("0.5.23", "--dsa-decode-backend", "--cuda-graph-max-bs-decode"),
    ],
)
def test_launch_spells_flags_the_way_the_installed_version_does(
    tmp_path: Path, version: str, decode_flag: str, graph_flag: str
) -> None:
    target = host(tmp_path, version)
    out = launch_server.invoke(
        ToolContext(target=target),
        {
            "model_path": MODEL,
            "tp": 4,
            "gpus": [0, 1, 2, 3],
            "decode_backend": "trtllm",
            "cuda_graph_max_bs": 128,
            "mem_fraction_static": 0.85,
            "kv_cache_dtype": "fp8_e4m3",
            "disable_custom_all_reduce": True,
            "env": {"NCCL_P2P_DISABLE": "1", "NCCL_DEBUG": "INFO"},
        },
    )
    assert out.ok, out.summary
    command, env = target.started[0]
    assert command.startswith(f"python3 -m sglang.launch_server --model-path {MODEL} --tp-size 4 ")
    assert f"{decode_flag} trtllm" in command and f"{graph_flag} 128" in command
    assert "--mem-fraction-static 0.85" in command and "--disable-custom-all-reduce" in command
    assert env == {
        "NCCL_P2P_DISABLE": "1",
        "NCCL_DEBUG": "INFO",
        "CUDA_VISIBLE_DEVICES": "0,1,2,3",
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
    }
    assert out.data["sglang_version"] == version
    assert out.started[0].name == "sglang"


def test_old_flag_on_new_sglang_is_refused_with_sglangs_message(tmp_path: Path) -> None:
    target = host(tmp_path, "0.5.23")
    out = launch_server.invoke(
        ToolContext(target=target),
        {"model_path": MODEL, "extra_args": ["--nsa-decode-backend", "flashmla_kv"]},
    )
    assert not out.ok and out.error_kind == "bad_argument"
    assert "launch_server.py: error: unrecognized arguments: --nsa-decode-backend flashmla_kv" in out.summary
    bad_choice = launch_server.invoke(
        ToolContext(target=target), {"model_path": MODEL, "extra_args": ["--speculative-algorithm", "MTP"]}
    )
    assert bad_choice.error_kind == "bad_argument"
    assert "invalid choice: 'MTP' (choose from 'EAGLE', 'EAGLE3', 'NEXTN', 'STANDALONE', 'NGRAM')" in bad_choice.summary
    assert target.started == []


def test_launch_refuses_tp_beyond_the_host_unknown_gpus_and_taken_port(tmp_path: Path) -> None:
    target = host(tmp_path, "0.5.9", port_taken=True)
    ctx = ToolContext(target=target)
    assert launch_server.invoke(ctx, {"model_path": MODEL, "tp": 16}).error_kind == "tp_exceeds_gpus"
    assert launch_server.invoke(ctx, {"model_path": MODEL, "tp": 4, "gpus": [0, 1]}).error_kind == "tp_exceeds_gpus"
    unknown = launch_server.invoke(ctx, {"model_path": MODEL, "gpus": [9]})
    assert unknown.error_kind == "bad_argument" and "[9]" in unknown.summary
    assert launch_server.invoke(ctx, {"model_path": MODEL, "tp": 8}).error_kind == "port_in_use"
    assert launch_server.invoke(ctx, {"model_path": "/models/missing"}).error_kind == "model_path_missing"
    assert target.started == []


@pytest.mark.parametrize(
    ("fixture", "concurrency", "output", "total"),
    [("bench_0.5.9.jsonl", 64, 1452.48, 1452.48 + 5809.93), ("bench_0.5.23.jsonl", 1, 99.85, 499.25)],
)
def test_jsonl_last_record(fixture: str, concurrency: int, output: float, total: float) -> None:
    level = parse_jsonl(fixture_text(fixture), 0)
    assert level.concurrency == concurrency and level.output_throughput == output
    assert level.total_throughput == pytest.approx(total)
    assert level.mean_ttft_ms is not None and level.mean_itl_ms is not None and level.completed > 0


@pytest.mark.parametrize(
    ("fixture", "concurrency", "output", "total", "tpot"),
    [
        ("bench_0.5.9_printed.txt", 64, 1452.48, 7262.41, 41.29),
        ("bench_0.5.23_printed.txt", 1, 99.85, 499.25, 9.68),
    ],
)
def test_printed_block(fixture: str, concurrency: int, output: float, total: float, tpot: float) -> None:
    level = parse_printed(fixture_text(fixture), 0)
    assert (level.concurrency, level.output_throughput, level.total_throughput, level.mean_tpot_ms) == (
        concurrency,
        output,
        total,
        tpot,
    )


def test_unknown_formats_are_unparseable() -> None:
    for text in (
        "",
        "Traceback (most recent call last):\nKeyError: 'x'\n",
        "{not json}\n",
        '{"completed": 3}\n',
    ):
        with pytest.raises(Unparseable):
            parse_jsonl(text, 1)
    with pytest.raises(Unparseable):
        parse_printed("100%|██████████| 8/8\n", 1)


def test_compare_with_goal() -> None:
    single = parse_jsonl(fixture_text("bench_0.5.23.jsonl"), 1)
    many = parse_jsonl(fixture_text("bench_0.5.9.jsonl"), 64)
    checks = compare([single, many], BenchTargets(aggregate_tok_s=1000, single_stream_tok_s=100, max_ttft_ms=500))
    assert [(c.metric.split()[0], c.met) for c in checks] == [
        ("aggregate", True),
        ("single-stream", False),
        ("mean", False),
    ]


def _bench_host(tmp_path: Path, write_jsonl: bool) -> ScriptedTarget:
    def bench(command: str) -> tuple[int, str, str]:
        output_file = re.search(r"--output-file (\S+)", command)
        assert output_file
        if write_jsonl:
            Path(output_file.group(1)).write_text(fixture_text("bench_0.5.23.jsonl"))
        return 0, fixture_text("bench_0.5.23_printed.txt"), ""

    target = ScriptedTarget(str(tmp_path), {health_command(30000): "200", version_command("python3"): "0.5.23\n"})
    work = target.work_dir
    command = (
        "python3 -m sglang.bench_serving --backend sglang --base-url http://127.0.0.1:30000 "
        "--dataset-name random-ids --random-input-len 1024 --random-output-len 256 "
        "--random-range-ratio 1.0 --num-prompts 8 --max-concurrency 1 "
        f"--output-file {work}/bench/c1-in1024-out256-0.jsonl"
    )
    target.answers[command] = bench
    return target


@pytest.mark.parametrize(("write_jsonl", "source"), [(True, "bench_serving-jsonl"), (False, "bench_serving-printed")])
def test_run_benchmark_with_bench_serving(tmp_path: Path, write_jsonl: bool, source: str) -> None:
    target = _bench_host(tmp_path, write_jsonl)
    out = run_benchmark.invoke(ToolContext(target=target), {"concurrency": [1], "targets": {"single_stream_tok_s": 90}})
    assert out.ok, out.summary
    assert out.data["source"] == source
    level = out.data["levels"][0]
    assert level["output_throughput"] == 99.85 and level["concurrency"] == 1
    assert out.data["targets_met"] is True


def test_run_benchmark_against_a_server_that_is_down(tmp_path: Path) -> None:
    target = ScriptedTarget(str(tmp_path), {health_command(30000): (7, "000", "")})
    out = run_benchmark.invoke(ToolContext(target=target), {})
    assert not out.ok and out.error_kind == "server_down"


def test_classifier_prefers_the_root_cause() -> None:
    lines = fixture_text("log_0.5.9_nan_decode.log").splitlines()
    cause, evidence = classify(lines)
    assert cause == "nan_in_sampling" and "probability tensor" in evidence[0]
    assert classify(fixture_text("log_0.5.9_ready.log").splitlines()) == (None, [])


@pytest.mark.parametrize(
    "bad",
    [{"python": "python3; reboot"}, {"python": "$(reboot)"}, {"env": {"X=1; reboot; Y": "v"}}],
)
def test_arguments_that_would_be_pasted_into_a_command_line_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        LaunchServerArgs.model_validate({"model_path": MODEL, **bad})
    if "python" in bad:
        with pytest.raises(ValidationError):
            SglangFlagsArgs.model_validate(bad)


def test_detached_start_refuses_a_variable_name_that_is_not_a_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="letters, digits"):
        start_script(str(tmp_path), "sglang", "true", {"X=1; reboot; Y": "v"})
    assert "env NCCL_P2P_DISABLE=1 setsid" in start_script(str(tmp_path), "sglang", "true", {"NCCL_P2P_DISABLE": "1"})


def test_the_interpreter_is_quoted_in_every_command_line() -> None:
    assert help_command("/opt/sg lang/bin/python").startswith("'/opt/sg lang/bin/python' -m")
    assert version_command("/opt/x/python3").startswith("/opt/x/python3 -c")
