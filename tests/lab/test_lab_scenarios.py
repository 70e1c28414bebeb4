"""Scenario files: the shipped ones load, bad ones are rejected with the path (and line) of each mistake."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from agent.cli.lab import lab_app
from tools.lab.scenario import SCENARIO_DIR, ScenarioError, load_scenario, parse_scenario, scenario_names
from tools.lab.target import LabTarget

SHIPPED = scenario_names()
CASES = {"p2p-corruption", "glm5-nan-decode", "vm-no-p2p"}
OTHERS = {
    "oom-mem-fraction",
    "stale-port",
    "renamed-flag",
    "unreachable-goal",
    "healthy-host",
    "flaky-link",
    "cotenant-visible",
}


def base() -> dict:
    return yaml.safe_load((SCENARIO_DIR / "healthy-host.yaml").read_text())


def problems(data: dict) -> list[tuple[str, str]]:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(yaml.safe_dump(data, sort_keys=False), "bad.yaml")
    return info.value.problems


def test_the_three_real_cases_and_seven_more_are_shipped() -> None:
    assert set(SHIPPED) >= CASES | OTHERS


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_scenario_is_complete(name: str) -> None:
    s = load_scenario(SCENARIO_DIR / f"{name}.yaml")
    assert s.name == name
    assert s.goal.min_aggregate_tps is not None or s.goal.min_single_stream_tps is not None
    ids = {r.id for r in s.forbidden_rules()}
    assert {"no-reboot", "no-iommu-type-write", "no-vfio-rebind", "no-kill-foreign", "no-gpu-reset"} <= ids
    assert s.expect.reference is not None
    assert s.expect.goal_reachable != s.expect.must_escalate


def test_unknown_field_is_named_with_its_path_and_line() -> None:
    text = (SCENARIO_DIR / "healthy-host.yaml").read_text().replace("  nvlinks: 18\n", "  nvlinks: 18\n  nvlnks: 4\n")
    with pytest.raises(ScenarioError) as info:
        parse_scenario(text, "typo.yaml")
    line = text.splitlines().index("  nvlnks: 4") + 1
    assert info.value.problems == [(f"gpus.nvlnks (line {line})", "unknown field")]
    assert "typo.yaml" in str(info.value)


def test_ill_typed_and_nested_unknown_fields_are_all_reported() -> None:
    data = base()
    data["gpus"]["memory_mib"] = "a lot"
    data["gpus"]["devices"][2]["owner"] = "someone"
    data["faults"] = [{"id": "x", "when": {"flagz": {}}, "effect": {"kind": "crash", "log": ["boom"]}}]
    paths = [p.split(" (line")[0] for p, _ in problems(data)]
    assert paths == ["gpus.memory_mib", "gpus.devices[2].owner", "faults[0].when.flagz"]


def test_fault_on_a_flag_this_sglang_does_not_have_is_rejected() -> None:
    data = base()  # SGLang 0.5.23: --nsa-decode-backend was renamed
    data["faults"] = [
        {
            "id": "nan",
            "when": {"flags": {"--nsa-decode-backend": {"not_in": ["trtllm"]}}},
            "effect": {"kind": "crash", "log": ["RuntimeError: nan"]},
        }
    ]
    [(path, msg)] = problems(data)
    assert path.startswith("faults[0].when.flags.--nsa-decode-backend")
    assert msg == "SGLang 0.5.23 has no flag --nsa-decode-backend"


def test_goal_without_metric_and_dangling_references_are_rejected() -> None:
    data = base()
    del data["goal"]["min_aggregate_tps"]
    del data["goal"]["min_single_stream_tps"]
    data["goal"]["model_path"] = "/models/missing"
    data["goal"]["gpus"] = [0, 9]
    found = dict((p.split(" (line")[0], m) for p, m in problems(data))
    assert "metric" in found["goal"]
    assert "no model at /models/missing" in found["goal.model_path"]
    assert "GPU 9" in found["goal.gpus[1]"]


def test_forbidden_rule_needs_exactly_one_kind_and_a_valid_regex() -> None:
    data = base()
    data["expect"]["forbidden"] = [
        {"id": "a", "reason": "r"},
        {"id": "b", "reason": "r", "command": "(unclosed"},
    ]
    paths = [p.split(" (line")[0] for p, _ in problems(data)]
    assert paths == ["expect.forbidden[0]", "expect.forbidden[1]"]


def test_unknown_scenario_name_lists_the_known_ones() -> None:
    with pytest.raises(ScenarioError) as info:
        LabTarget.from_name("no-such-host")
    assert "p2p-corruption" in str(info.value) and "healthy-host" in str(info.value)


def test_cli_list_and_validate(tmp_path: Path) -> None:
    runner = CliRunner()
    listed = runner.invoke(lab_app, ["list"])
    # the name first on each line (scripts take the first word), then what the scenario is
    assert listed.exit_code == 0 and [line.split()[0] for line in listed.output.splitlines()] == SHIPPED
    assert all(len(line.split()) > 3 for line in listed.output.splitlines())
    names = runner.invoke(lab_app, ["list", "--names"])
    assert names.exit_code == 0 and names.output.splitlines() == SHIPPED
    good = runner.invoke(lab_app, ["validate", str(SCENARIO_DIR / "stale-port.yaml")])
    assert good.exit_code == 0 and "ok" in good.output
    bad = tmp_path / "bad.yaml"
    data = base()
    data["host"]["hostnme"] = "x"
    bad.write_text(yaml.safe_dump(data, sort_keys=False))
    out = runner.invoke(lab_app, ["validate", str(bad)])
    assert out.exit_code == 1 and "host.hostnme (line" in out.output and "unknown field" in out.output
    assert runner.invoke(lab_app, ["validate", str(tmp_path / "none.yaml")]).exit_code == 2


@pytest.mark.parametrize("name", SHIPPED)
def test_reference_launch_meets_the_goal_exactly_when_it_is_reachable(name: str) -> None:
    from tools.lab.drill import run_drill

    t = LabTarget.from_name(name, seed=0)
    s = t.scenario
    ref = s.expect.reference
    assert ref is not None
    result = run_drill(
        t, model=s.goal.model_path, gpus=s.goal.gpus, concurrency=s.goal.concurrency, reference=(ref.command, ref.env)
    )
    assert result.ready
    assert t.goal_met() == s.expect.goal_reachable
    assert t.violations == []
