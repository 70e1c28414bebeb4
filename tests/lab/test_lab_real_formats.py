"""The lab's nvidia-smi prints what a real driver prints: compared with captures from real machines
(tests/corpus, recorded by nvidia_gpu_exporter's collector) for a driver before and after 610."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.hostinfo import parse_versions_smi
from tools.lab.scenario import SCENARIO_DIR, load_scenario
from tools.lab.target import LabTarget

CORPUS = Path(__file__).parent.parent / "corpus" / "nvidia-smi"
CAPTURES = [("h100-80gb-hbm3_590.48.01", "590.48.01", "13.1"), ("rtx-2080-super_610.57.04", "610.57.04", "13.3")]


def lab_with(driver: str, cuda: str) -> LabTarget:
    scenario = load_scenario(SCENARIO_DIR / "healthy-host.yaml")
    software = scenario.software.model_copy(update={"driver": driver, "cuda": cuda})
    return LabTarget(scenario.model_copy(update={"software": software}), seed=0)


@pytest.mark.parametrize(("capture", "driver", "cuda"), CAPTURES)
def test_version_output_matches_the_real_driver(capture: str, driver: str, cuda: str) -> None:
    printed = lab_with(driver, cuda).run("nvidia-smi --version").stdout
    assert printed == (CORPUS / "version" / f"{capture}.txt").read_text()
    assert parse_versions_smi(printed) == (driver, cuda)


@pytest.mark.parametrize(("capture", "driver", "cuda"), CAPTURES)
def test_table_header_matches_the_real_driver(capture: str, driver: str, cuda: str) -> None:
    printed = lab_with(driver, cuda).run("nvidia-smi").stdout
    real = (CORPUS / "table" / f"{capture}.txt").read_text().splitlines()
    assert printed.splitlines()[1:3] == real[1:3]
    assert parse_versions_smi(printed) == (driver, cuda)
