"""A version check that never finished (dropped link) is not evidence that SGLang is missing."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from tools_testkit import ScriptedTarget

from tools.sglang.flags import SglangMissing, installed_version, version_command
from tools.target import DEFAULT_OUTPUT_CAP, DEFAULT_TIMEOUT_S, CommandResult, TargetError


class DroppingTarget(ScriptedTarget):
    def run(
        self,
        command: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        self.sent.append(command)
        return CommandResult(command=command, exit_code=None, outcome_unknown=True, error="connection dropped")


def test_a_dropped_version_check_is_a_target_error_not_a_missing_sglang(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="did not finish") as caught:
        installed_version(DroppingTarget(str(tmp_path), {}))
    assert not isinstance(caught.value, SglangMissing)
    # a check that finished and failed still means SGLang is missing
    missing = ScriptedTarget(str(tmp_path), {version_command("python3"): (1, "", "No module named 'sglang'")})
    with pytest.raises(SglangMissing):
        installed_version(missing)


def test_a_dropped_model_path_check_is_a_target_error_not_a_missing_model(tmp_path: Path) -> None:
    from tools.registry import ToolContext
    from tools.sglang.launch import launch_server

    ctx = ToolContext(target=DroppingTarget(str(tmp_path), {}))
    with pytest.raises(TargetError, match="model path check did not finish"):
        launch_server.invoke(ctx, {"model_path": "/models/m", "tp": 1})


def test_dropped_gpu_and_help_queries_are_target_errors_not_parse_failures(tmp_path: Path) -> None:
    from tools.gpus import query_smi
    from tools.sglang.flags import learn

    dropping = DroppingTarget(str(tmp_path), {})
    with pytest.raises(TargetError, match="nvidia-smi did not finish"):
        query_smi(dropping)

    class VersionOnly(DroppingTarget):
        def run(self, command: str, **kwargs: object) -> CommandResult:  # type: ignore[override]
            if command == version_command("python3"):
                return CommandResult(command=command, exit_code=0, stdout="0.5.77\n")
            return super().run(command)

    with pytest.raises(TargetError, match="did not finish"):
        learn(VersionOnly(str(tmp_path), {}))
