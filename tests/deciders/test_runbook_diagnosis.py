"""The runbook reads a broken host from its evidence: real lab runs of healthy-host's 8x H200 with
one thing broken, checking what was launched over which GPUs, and what the question quoted.

Each case failed on the runbook before the diagnosis work: it launched TP8 over a lost, busy or
MIG-partitioned GPU, relaunched a crash it could not place with --disable-cuda-graph, and asked
quoting only "Scheduler hit an exception: Traceback..."."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.opsagent_process import CliRun
from tools.lab.scenario import SCENARIO_DIR

BASE = yaml.safe_load((SCENARIO_DIR / "healthy-host.yaml").read_text())


def _scenario(tmp: Path, name: str, change: dict[str, Any]) -> Path:
    s = copy.deepcopy(BASE)
    s["name"] = name
    for index, health in change.get("health", {}).items():
        s["gpus"]["devices"][index]["health"] = health
    s["software"].update(change.get("software", {}))
    s["models"][0].update(change.get("model", {}))
    s["processes"] = change.get("processes", [])
    s["faults"] = change.get("faults", [])
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(s, sort_keys=False))
    return path


def _run(cli: CliRun, workspace: Path, scenario: Path) -> tuple[list[list[int]], list[str]]:
    """(the GPU list of every launch, every question's text) of a run with a scripted operator."""
    done = cli("run", "--target", f"lab:{scenario}", "--approver", "scripted", "--run-id", "d1", timeout=600)
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr
    events = [json.loads(line) for line in (workspace / "transcripts" / "d1.jsonl").read_text().splitlines()]
    launches = [
        e["payload"]["action"]["args"].get("gpus") or list(range(8))
        for e in events
        if e["type"] == "action_started" and e["payload"]["action"]["tool"] == "launch_server"
    ]
    questions = [json.dumps(e["payload"]) for e in events if e["type"] == "question"]
    return launches, questions


@pytest.mark.parametrize(
    ("name", "change", "never"),
    [
        ("lost", {"health": {2: {"lost": True}}}, 2),
        ("mig", {"health": {3: {"mig": {"instances": ["3g.71gb", "3g.71gb"]}}}}, 3),
        ("ecc", {"health": {5: {"ecc_uncorrectable": 3}}}, 5),
        (
            "busy",
            {"processes": [{"pid": 61234, "user": "alice", "args": "python3 train.py", "gpu_memory_mib": {1: 40960}}]},
            1,
        ),
    ],
)
def test_a_gpu_found_broken_or_busy_before_launching_is_in_no_launch(
    cli: CliRun, workspace: Path, tmp_path: Path, name: str, change: dict[str, Any], never: int
) -> None:
    launches, _ = _run(cli, workspace, _scenario(tmp_path, name, change))
    assert launches, "something was launched on the GPUs left"
    assert all(never not in gpus for gpus in launches), launches


def test_a_gpu_lost_during_load_is_read_from_the_kernel_log_and_left_out(
    cli: CliRun, workspace: Path, tmp_path: Path
) -> None:
    scenario = _scenario(tmp_path, "falls", {"health": {2: {"falls_off_bus": {"phase": "load", "after_s": 20}}}})
    launches, _ = _run(cli, workspace, scenario)
    assert 2 in launches[0]  # nothing could tell before the first launch
    assert len(launches) > 1 and all(2 not in gpus for gpus in launches[1:]), launches
    events = (workspace / "transcripts" / "d1.jsonl").read_text()
    assert "Xid (PCI:0000:3a:00): 79" in events  # the relaunch said why, with the kernel's line


@pytest.mark.parametrize(
    ("name", "change", "quoted", "launched"),
    [
        ("arch", {"software": {"torch_arch_list": ["sm_80", "sm_86"]}}, "no kernel image is available", 1),
        # a shard shorter than the index allows is seen before any launch: no load of it can work
        ("trunc", {"model": {"truncated_shards": {7: 0.5}}}, "model-00007-of-00048.safetensors is", 0),
        (
            "mystery",
            {
                "faults": [
                    {
                        "id": "mystery",
                        "description": "a crash no rule knows",
                        "when": {"tp": {"ge": 1}},
                        "effect": {
                            "kind": "crash",
                            "phase": "load",
                            "after_s": 5,
                            "log": ["ZeroDivisionError: float division by zero"],
                        },
                    }
                ]
            },
            "ZeroDivisionError: float division by zero",
            1,
        ),
    ],
)
def test_a_failure_no_launch_can_fix_or_nothing_explains_is_asked_with_its_line_and_never_relaunched(
    cli: CliRun, workspace: Path, tmp_path: Path, name: str, change: dict[str, Any], quoted: str, launched: int
) -> None:
    launches, questions = _run(cli, workspace, _scenario(tmp_path, name, change))
    assert len(launches) == launched, launches  # the old runbook relaunched with --disable-cuda-graph
    assert questions and quoted in questions[0], questions[:1]


def test_a_tuning_reason_cites_the_interconnect_this_host_has(cli: CliRun, workspace: Path, tmp_path: Path) -> None:
    """On NVLink (healthy-host), tuning on the GPUs left never says "on PCIe" (#30: it did)."""
    busy = {"processes": [{"pid": 61234, "user": "alice", "args": "python3 train.py", "gpu_memory_mib": {1: 40960}}]}
    _run(cli, workspace, _scenario(tmp_path, "tuned", busy))
    events = [json.loads(line) for line in (workspace / "transcripts" / "d1.jsonl").read_text().splitlines()]
    reasons = [json.dumps(e["payload"]) for e in events if e["type"] == "decision"]
    tuned = [r for r in reasons if "tuning:" in r and "all-reduce" in r]
    assert tuned, "the run tuned all-reduce"
    assert all("PCIe" not in r and "on this host's NVLink" in r for r in tuned), tuned
