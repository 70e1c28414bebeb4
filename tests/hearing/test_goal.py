"""The operator's goal sentence, read into the numbers the agent measures against."""

from __future__ import annotations

import pytest

from agent.hearing.goal import GoalError, parse_goal


def test_the_readme_goal() -> None:
    goal = parse_goal(
        "serve /models/Qwen3.5-122B-A10B with SGLang on GPUs 0-3 at over 1,000 tok/s at concurrency 64 "
        "and 80 tok/s single stream; never reboot the host"
    )
    assert goal.model_path == "/models/Qwen3.5-122B-A10B"
    assert goal.gpus == [0, 1, 2, 3]
    assert (goal.min_aggregate_tps, goal.min_single_stream_tps, goal.concurrency) == (1000.0, 80.0, 64)
    assert goal.constraints == ["never reboot the host"]


def test_the_design_goal() -> None:
    goal = parse_goal(
        "serve GLM-5-NVFP4 with SGLang on gpu-box across 8 GPUs at over 1,000 tok/s; never reboot the host; "
        "never touch the vfio groups"
    )
    assert goal.model_path is None  # "tok/s" is no path
    assert goal.gpus is None and goal.gpu_count == 8  # "8 GPUs" is a count, not ids
    assert goal.min_aggregate_tps == 1000.0 and goal.min_single_stream_tps is None
    assert goal.constraints == ["never reboot the host", "never touch the vfio groups"]


def test_single_stream_named_first_and_kilo_rates() -> None:
    goal = parse_goal("single stream of at least 100 tok/s for /models/x/y; 2k tok/s aggregate at conc 128")
    assert (goal.min_single_stream_tps, goal.min_aggregate_tps, goal.concurrency) == (100.0, 2000.0, 128)
    assert goal.model_path == "/models/x/y"


def test_an_empty_goal_says_what_to_write() -> None:
    with pytest.raises(GoalError, match="--goal"):
        parse_goal("  ")
