"""A variable the operator unsets is gone from the server's environment, even where the login shell
exports it: the start script run by a real bash, with the variable in the environment it inherits."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from agent.hearing.applied import rewrite_launch
from agent.hearing.instructions import hear
from agent.state import OperatorRules
from tools.detached import paths_for, start_script
from tools.sglang.launch import LaunchServerArgs

SHOW = 'echo "FOO=${FOO-unset} CVD=${CUDA_VISIBLE_DEVICES-unset} KEEP=${KEEP-unset}"'


def _run_detached(tmp_path: Path, env: dict[str, str], unset: list[str]) -> str:
    script = start_script(str(tmp_path), "probe", SHOW, env, None, unset)
    inherited = {**os.environ, "FOO": "stale", "CUDA_VISIBLE_DEVICES": "9", "KEEP": "kept"}
    subprocess.run(["bash", "-c", script], env=inherited, check=True, capture_output=True, timeout=30)
    log, _, exit_file = paths_for(str(tmp_path), "probe")
    deadline = time.monotonic() + 20
    while not Path(exit_file).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return Path(log).read_text().strip()


def test_an_unset_variable_is_gone_and_one_set_after_it_wins(tmp_path: Path) -> None:
    shown = _run_detached(tmp_path, {"CUDA_VISIBLE_DEVICES": "2,3"}, ["FOO", "CUDA_VISIBLE_DEVICES"])
    assert shown == "FOO=unset CVD=2,3 KEEP=kept"


def test_without_an_unset_the_login_shells_value_reaches_the_server(tmp_path: Path) -> None:
    # the contrast: what "do not set FOO" alone left behind before the unset was real
    assert _run_detached(tmp_path, {}, []) == "FOO=stale CVD=9 KEEP=kept"


def test_a_name_to_unset_that_is_not_a_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="letters, digits"):
        start_script(str(tmp_path), "probe", "true", {}, None, ["X; reboot"])
    with pytest.raises(ValidationError):
        LaunchServerArgs.model_validate({"model_path": "/models/m", "unset_env": ["$(reboot)"]})


def test_unset_said_by_the_operator_reaches_the_launch() -> None:
    said = "unset CUDA_VISIBLE_DEVICES, it's stale from my shell; unset NCCL_DEBUG"
    rules, heard, _ = hear(OperatorRules(), said)
    assert rules.unset_env == ["CUDA_VISIBLE_DEVICES", "NCCL_DEBUG"] and heard
    args, _ = rewrite_launch({}, rules, {"model_path": "/models/m", "gpus": [4, 5], "env": {"NCCL_DEBUG": "INFO"}})
    assert args["unset_env"] == ["CUDA_VISIBLE_DEVICES", "NCCL_DEBUG"] and "NCCL_DEBUG" not in args["env"]
    assert args["gpus"] == [4, 5]  # the launch's own GPU list still sets CUDA_VISIBLE_DEVICES


def test_the_launch_passes_what_it_starts_without_and_shows_it(tmp_path: Path) -> None:
    from tools_testkit import ScriptedTarget, fixture_text

    from tools.gpus import QUERY_APPS, QUERY_GPUS
    from tools.registry import ToolContext
    from tools.sglang.flags import help_command, version_command
    from tools.sglang.launch import launch_server, model_check_command, port_check_command

    target = ScriptedTarget(
        str(tmp_path),
        {
            version_command("python3"): "0.5.9\n",
            help_command("python3"): fixture_text("sglang_help_0.5.9.txt"),
            model_check_command("/models/m"): "",
            QUERY_GPUS: fixture_text("gpu_query_rtx6000x8.csv"),
            QUERY_APPS: "",
            port_check_command(30000): "",
        },
    )
    args = {"model_path": "/models/m", "gpus": [2, 3], "tp": 2, "unset_env": ["NCCL_DEBUG"]}
    out = launch_server.invoke(ToolContext(target=target), args)
    assert out.ok, out.summary
    assert target.unset == [["NCCL_DEBUG"]]
    assert "$ env -u NCCL_DEBUG CUDA_VISIBLE_DEVICES=2,3" in out.summary
