"""Scenario families: drawing is deterministic per seed, every variant validates, the pass
criteria follow the drawn parameters, the lab agrees with them (doomed or not, fast enough or
not), and `opsagent lab validate` names a bad family's mistakes by path and line."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from agent.loop.targets import TargetSpecError, open_target
from tests.opsagent_process import run_opsagent
from tools.lab import sglang_flags
from tools.lab.doom import launch_doom
from tools.lab.family import FAMILY_DIR, FamilyError, family_paths, load_family, validate_family
from tools.lab.launch import build
from tools.lab.perf import curve
from tools.lab.scenario import Scenario, scenario_names
from tools.lab.target import LabTarget

REPO = Path(__file__).resolve().parents[2]
SEEDS = range(10)


def opsagent(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return run_opsagent(*args, cwd=cwd, env={**os.environ, "COLUMNS": "80"})


def aggregate(s: Scenario, args: list[str]) -> float:
    """What the lab's performance model gives a launch at the goal's concurrency (no noise)."""
    cfg = build(s, sglang_flags.parse(s.software.sglang, args), {})
    assert not isinstance(cfg, str)
    return curve(s.perf, cfg, s.gpus.interconnect).rate(s.goal.concurrency)


def test_every_shipped_scenario_has_a_family_and_the_three_shapes_are_there() -> None:
    names = {p.stem for p in family_paths()}
    assert set(scenario_names()) <= names
    assert {"model-too-big", "dp-needed", "oom-capture-ladder"} <= names


@pytest.mark.parametrize("path", family_paths(), ids=lambda p: p.stem)
def test_each_family_draws_valid_deterministic_variants(path: Path) -> None:
    family = validate_family(path, SEEDS)
    drawn = [family.data(k) for k in SEEDS]
    assert [load_family(path).data(k) for k in SEEDS] == drawn  # a fresh load draws the same
    assert len({json.dumps(d, sort_keys=True, default=str) for d in drawn}) > 1  # the seed matters
    assert [d["name"] for d in drawn] == [f"{family.name}-{k}" for k in SEEDS]


def test_the_ladder_criteria_follow_the_drawn_threshold() -> None:
    family = load_family(FAMILY_DIR / "oom-capture-ladder.yaml")
    thresholds = set()
    for k in SEEDS:
        values, s = family.values(k), family.draw(k)
        t, low = values["threshold"], values["low"]
        thresholds.add(t)
        assert s.expect.final_launch is not None
        m = s.expect.final_launch.flags_required["--mem-fraction-static"]
        assert (m.le, m.ge) == (t, low)
        model, goal = s.goal.model_path, s.goal.min_aggregate_tps
        base = ["--model-path", model, "--tp-size", "4", "--mem-fraction-static"]
        assert launch_doom(s, [*base, str(t)]) is None
        assert "cuda-graph-oom" in (launch_doom(s, [*base, f"{t + 0.01:.2f}"]) or "")
        assert goal is not None and aggregate(s, [*base, str(t)]) >= goal * 1.05
        assert launch_doom(s, [*base, f"{low - 0.01:.2f}"]) is None  # comes up ...
        assert aggregate(s, [*base, f"{low - 0.01:.2f}"]) < goal * 0.95  # ... and misses the goal
    assert len(thresholds) > 2


def test_too_big_models_are_doomed_on_every_layout_of_the_agents_gpus() -> None:
    family = load_family(FAMILY_DIR / "model-too-big.yaml")
    for k in SEEDS:
        s = family.draw(k)
        assert s.expect.max_doomed_launches == 0 and [r.launch for r in s.expect.ask_before] == ["doomed"]
        assert s.expect.final_launch is None and s.expect.max_launches is None  # nothing can serve
        for tp, pp in ((4, 1), (2, 2), (1, 4), (8, 1)):
            args = ["--model-path", s.goal.model_path, "--tp-size", str(tp), "--pp-size", str(pp)]
            assert launch_doom(s, args) is not None, (k, tp, pp)


def test_dp_variants_miss_at_tp8_and_reach_the_goal_at_tp4_dp2() -> None:
    family = load_family(FAMILY_DIR / "dp-needed.yaml")
    for k in SEEDS:
        s = family.draw(k)
        goal = s.goal.min_aggregate_tps
        assert goal is not None
        model = ["--model-path", s.goal.model_path]
        assert launch_doom(s, [*model, "--tp-size", "8"]) is None
        assert aggregate(s, [*model, "--tp-size", "8"]) < goal * 0.7
        assert aggregate(s, [*model, "--tp-size", "4"]) < goal
        assert launch_doom(s, [*model, "--tp-size", "4", "--dp-size", "2"]) is None
        assert aggregate(s, [*model, "--tp-size", "4", "--dp-size", "2"]) >= goal * 1.1


def test_the_dp_reference_launch_meets_the_goal_on_the_lab_in_every_variant() -> None:
    # Measured end to end (launch, readiness, benchmark with DP replicas placed), not from the perf
    # curve alone: goals drawn at 2x TP8 were above what two TP4 replicas deliver on the lab, so the
    # family asked the agent for an unreachable goal it graded as reachable (seeds 23, 47, 48, 54).
    from tools.lab.drill import run_drill

    for k in range(60):
        s = load_family(FAMILY_DIR / "dp-needed.yaml").draw(k)
        ref = s.expect.reference
        assert ref is not None and s.expect.goal_reachable
        target = LabTarget(s, seed=k)
        result = run_drill(
            target, model=s.goal.model_path, gpus=s.goal.gpus, concurrency=s.goal.concurrency,
            reference=(ref.command, ref.env),
        )  # fmt: skip
        assert result.ready and target.goal_met(), (k, s.goal.min_aggregate_tps)


def test_launch_doom_names_why() -> None:
    s = LabTarget.from_name("oom-mem-fraction").scenario
    model = ["--model-path", "/models/Llama-3.3-70B-Instruct"]
    assert "fault cuda-graph-oom" in (launch_doom(s, [*model, "--tp-size", "4"]) or "")
    assert launch_doom(s, [*model, "--tp-size", "4", "--mem-fraction-static", "0.8"]) is None
    assert "oom-weights" in (launch_doom(s, [*model, "--tp-size", "1"]) or "")
    assert "cannot be placed" in (launch_doom(s, [*model, "--tp-size", "8"]) or "")
    assert "rejects its arguments" in (launch_doom(s, [*model, "--no-such-flag"]) or "")
    assert "model-missing" in (launch_doom(s, ["--model-path", "/models/nope", "--tp-size", "4"]) or "")


def test_the_lab_records_each_launch_with_its_doom() -> None:
    t = LabTarget.from_name("oom-mem-fraction")
    base = "python3 -m sglang.launch_server --model-path /models/Llama-3.3-70B-Instruct --tp-size 4"
    t.start_detached(base, name="a")
    t.start_detached(base + " --mem-fraction-static 0.8 --port 30001", name="b")
    assert [r.doomed is None for r in t.launches] == [False, True]
    t.sleep(3600)
    final = t.final_launch()
    assert final is not None and final.pid == t.launches[1].pid


# ---- the command line: validate, show, run a variant, eval --family --------------------------


BAD_FAMILIES = {
    "unknown-param-field.yaml": (
        "family: bad\nsummary: s\nbase: {base}\nparams:\n  x: {{choices: [1], wieght: 2}}\n",
        "params.x.wieght (line 5): unknown field",
    ),
    "bad-expression.yaml": (
        'family: bad\nsummary: s\nbase: {base}\nparams:\n  x: {{range: [1, 3]}}\nderive:\n  y: "x +"\n',
        "derive.y (line 7): 'x +': not an expression",
    ),
    "no-call.yaml": (
        "family: bad\nsummary: s\nbase: {base}\nderive:\n  y: \"open('/etc/passwd')\"\n",
        "derive.y (line 5): \"open('/etc/passwd')\": only",
    ),
    "variant-breaks-schema.yaml": (
        "family: bad\nsummary: s\nbase: {base}\nparams:\n  n: {{choices: [lots]}}\n"
        "template:\n  gpus:\n    memory_mib: ${{n}}\n",
        "seed 0: gpus.memory_mib (line 8 of variant-breaks-schema.yaml): Input should be a valid integer",
    ),
    "variant-breaks-semantics.yaml": (
        "family: bad\nsummary: s\nbase: {base}\ntemplate:\n  expect:\n    final_launch:\n"
        "      flags_required: {{--no-such-flag: {{in: [1]}}}}\n",
        "expect.final_launch.flags_required.--no-such-flag (line 7 of variant-breaks-semantics.yaml): "
        "SGLang 0.5.14 has no flag --no-such-flag",
    ),
    "base-missing.yaml": ("family: bad\nsummary: s\nbase: nowhere.yaml\n", "base (line 3): no scenario file"),
}


@pytest.mark.parametrize("name", list(BAD_FAMILIES))
def test_lab_validate_names_a_bad_familys_mistake_by_path_and_line(name: str, tmp_path: Path) -> None:
    text, expected = BAD_FAMILIES[name]
    path = tmp_path / name
    path.write_text(text.format(base=REPO / "tools/lab/scenarios/vm-no-p2p.yaml"))
    result = opsagent("lab", "validate", str(path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert expected in result.stderr
    assert "Traceback" not in result.stderr
    with pytest.raises(FamilyError):
        validate_family(path, range(2))


def test_lab_show_prints_the_variant_and_run_target_opens_it(tmp_path: Path) -> None:
    path = FAMILY_DIR / "oom-capture-ladder.yaml"
    result = opsagent("lab", "show", str(path), "--seed", "4")
    assert result.returncode == 0, result.stderr
    assert yaml.safe_load(result.stdout) == load_family(path).data(4)
    assert f"opsagent run --target lab:{path}#4" in result.stdout
    lab = open_target(f"lab:{path}#4")
    assert isinstance(lab, LabTarget) and (lab.scenario.name, lab.seed) == ("oom-capture-ladder-4", 4)
    with pytest.raises(TargetSpecError, match="a whole number"):
        open_target(f"lab:{path}#four")


def test_run_with_a_bad_variant_target_is_one_line(tmp_path: Path) -> None:
    result = opsagent("run", "--target", f"lab:{tmp_path}/missing.yaml#2", "--goal", "x", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "missing.yaml" in result.stderr


def test_eval_family_json_has_the_families_and_the_scorecard_columns(tmp_path: Path) -> None:
    path = FAMILY_DIR / "healthy-host.yaml"
    result = opsagent("eval", "--family", str(path), "--variants", "2", "--seed", "5", "--json", cwd=tmp_path)
    card = json.loads(result.stdout)
    assert card["families"] == [
        {
            "name": "healthy-host",
            "file": str(path),
            "variants": 2,
            "passed": sum(s["passed"] for s in card["scenarios"]),
            "soft_passed": sum(s["verdict"] == "soft pass" for s in card["scenarios"]),
            "failing_seeds": [s["variant_seed"] for s in card["scenarios"] if not s["passed"]],
        }
    ]
    assert [s["name"] for s in card["scenarios"]] == ["healthy-host-5", "healthy-host-6"]
    for s in card["scenarios"]:
        for key in ("passed", "goal_met", "escalated", "violations", "steps", "launches", "doomed_launches"):
            assert key in s
        assert s["verdict"] in ("pass", "soft pass", "fail") and s["reason"] and s["sim_time_s"] > 0
    assert result.returncode == (0 if card["passed"] else 1)


def test_eval_with_bad_family_input_is_one_line(tmp_path: Path) -> None:
    for args, needle in (
        (["--family", "nope.yaml"], "no such file"),
        (["--families", "--variants", "0"], "at least 1 variant"),
        (["--family", str(REPO / "tools/lab/scenarios/vm-no-p2p.yaml")], "not a family file"),
    ):
        result = opsagent("eval", *args, cwd=tmp_path)
        assert result.returncode == 2 and needle in result.stderr and "Traceback" not in result.stderr


def test_the_schema_docs_family_example_is_a_valid_family(tmp_path: Path) -> None:
    text = (REPO / "tools/lab/SCHEMA.md").read_text()
    example = text.split("## Families", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "families").mkdir()
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios/oom-mem-fraction.yaml").write_text(
        (REPO / "tools/lab/scenarios/oom-mem-fraction.yaml").read_text()
    )
    path = tmp_path / "families/example.yaml"
    path.write_text(example)
    assert validate_family(path, range(3)).name == "oom-capture-ladder"


def test_the_schema_docs_expect_example_is_a_valid_expect_section() -> None:
    from tools.lab.scenario import Expect

    text = (REPO / "tools/lab/SCHEMA.md").read_text()
    example = text.split("### Grading", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    expect = Expect.model_validate(yaml.safe_load(example)["expect"])
    assert expect.ask_before[0].launch == "doomed" and expect.final_launch is not None


def test_a_variant_runs_and_resumes_by_its_target(tmp_path: Path) -> None:
    target = f"lab:{FAMILY_DIR / 'healthy-host.yaml'}#3"
    env = ["--state", str(tmp_path / "state"), "--transcripts", str(tmp_path / "t")]
    started = opsagent("run", "--target", target, "--approver", "none", *env, cwd=tmp_path)
    assert started.returncode == 3, started.stderr  # waits for the sign-off
    run_id = started.stdout.split("opsagent reply ", 1)[1].split()[0]
    events = [json.loads(line) for line in next((tmp_path / "t").glob("*.jsonl")).read_text().splitlines()]
    assert events[0]["payload"]["target"] == "lab:healthy-host-3"
    drawn = load_family(FAMILY_DIR / "healthy-host.yaml").draw(3).goal.model_dump()
    recorded = events[0]["payload"]["goal"]
    # the run's goal is the variant's; the run adds how it read the goal (readings, ambiguities)
    assert {key: recorded[key] for key in drawn} == drawn
    assert opsagent("reply", run_id, "approve", "--state", str(tmp_path / "state"), cwd=tmp_path).returncode == 0
    resumed = opsagent("resume", run_id, "--approver", "none", "--state", str(tmp_path / "state"), cwd=tmp_path)
    assert resumed.returncode == 0 and "goal met" in resumed.stdout
