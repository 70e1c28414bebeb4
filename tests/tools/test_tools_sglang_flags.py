from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from tools_testkit import FIXTURES, ScriptedTarget, fixture_text

from tools.registry import ToolContext
from tools.sglang.flags import help_command, parse_help, sglang_flags, version_command


def _builder() -> Any:
    spec = importlib.util.spec_from_file_location("make_sglang_help", FIXTURES / "make_sglang_help.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Caught(Exception):
    pass


def argparse_error(version: str, argv: list[str]) -> str | None:
    """What the real argparse parser of that version says about argv."""
    parser = _builder().build(version)

    def error(message: str) -> None:
        raise _Caught(f"{parser.prog}: error: {message}")

    parser.error = error  # type: ignore[method-assign]
    try:
        parser.parse_args(argv)
    except _Caught as exc:
        return str(exc)
    return None


CASES = [
    ["--model-path", "/m", "--tp-size", "8"],
    ["--model", "/m", "--tp", "8"],
    ["--model-path", "/m", "--nsa-decode-backend", "flashmla_kv"],
    ["--model-path", "/m", "--dsa-decode-backend", "trtllm"],
    ["--model-path", "/m", "--cuda-graph-max-bs", "256"],
    ["--model-path", "/m", "--speculative-algorithm", "MTP"],
    ["--model-path", "/m", "--kv-cache-dtype", "nvfp4"],
    ["--model-path", "/m", "--attention-backend=dsa"],
    ["--tp-size", "2"],
    ["--model-path", "/m", "--tp-size"],
    ["--model-path", "/m", "--disable-cuda-graph", "--cuda-graph-bs", "1", "2", "4"],
    ["--model-path", "/m", "--cuda-graph-bs"],
    ["--model-path", "/m", "--chunked-prefill-size", "-1", "--lora-paths"],
    ["--model-path", "/m", "--disable-cuda-graph=1"],
    ["--model-path", "/m", "stray"],
    ["--model-path", "/m", "--ep", "4", "--enable-torch-compile", "--trust-remote-code"],
]


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])
@pytest.mark.parametrize("argv", CASES, ids=lambda a: " ".join(a))
def test_check_says_what_argparse_says(version: str, argv: list[str]) -> None:
    flags = parse_help(fixture_text(f"sglang_help_{version}.txt"), version)
    assert flags.check(argv) == argparse_error(version, argv)


def test_parsed_specs_both_styles() -> None:
    old = parse_help(fixture_text("sglang_help_0.5.9.txt"), "0.5.9")
    new = parse_help(fixture_text("sglang_help_0.5.23.txt"), "0.5.23")
    for flags in (old, new):
        ep = flags.lookup("--ep")
        assert ep is not None and ep.names == ["--expert-parallel-size", "--ep-size", "--ep"] and ep.nargs == "1"
        model = flags.lookup("--model")
        assert model is not None and model.required
        assert flags.lookup("--disable-cuda-graph") is not None
        graph_bs = flags.lookup("--cuda-graph-bs")
        assert graph_bs is not None and graph_bs.nargs == "+"
    assert old.first_known("--dsa-decode-backend", "--nsa-decode-backend") == "--nsa-decode-backend"
    assert new.first_known("--dsa-decode-backend", "--nsa-decode-backend") == "--dsa-decode-backend"
    spec = new.lookup("--disable-cuda-graph")
    assert spec is not None and spec.deprecated
    kv = new.lookup("--kv-cache-dtype")
    assert kv is not None and kv.choices is not None and "nvfp4" in kv.choices
    assert old.check(["--model-path", "/m", "--nsa-decode-backend", "flashmla_kv"]) is None
    assert new.check(["--model-path", "/m", "--nsa-decode-backend", "flashmla_kv"]) == (
        "launch_server.py: error: unrecognized arguments: --nsa-decode-backend flashmla_kv"
    )


def test_sglang_flags_tool_caches_per_version(tmp_path: Path) -> None:
    answers = {
        version_command("python3"): "0.5.23\n",
        help_command("python3"): fixture_text("sglang_help_0.5.23.txt"),
    }
    target = ScriptedTarget(str(tmp_path), answers)
    out = sglang_flags.invoke(ToolContext(target=target), {})
    assert out.ok and out.data["version"] == "0.5.23"
    assert "--dsa-decode-backend" in out.summary
    again = sglang_flags.invoke(ToolContext(target=target), {})
    assert again.ok and target.sent.count(help_command("python3")) == 1
    # A new process (empty memory cache) reads the help text kept in the work dir.
    fresh = ScriptedTarget(str(tmp_path), {version_command("python3"): "0.5.23\n"})
    fresh.describe = lambda: "another"  # type: ignore[method-assign]
    assert sglang_flags.invoke(ToolContext(target=fresh), {}).ok


def test_sglang_missing_and_garbage_help(tmp_path: Path) -> None:
    missing = ScriptedTarget(
        str(tmp_path),
        {version_command("python3"): (1, "", "ModuleNotFoundError: No module named 'sglang'\n")},
    )
    out = sglang_flags.invoke(ToolContext(target=missing), {})
    assert not out.ok and out.error_kind == "sglang_missing" and "No module named" in out.summary
    garbage = ScriptedTarget(
        str(tmp_path / "g"), {version_command("python3"): "9.9.9\n", help_command("python3"): "Segfault\n"}
    )
    out = sglang_flags.invoke(ToolContext(target=garbage), {})
    assert not out.ok and out.error_kind == "unparseable_output"
