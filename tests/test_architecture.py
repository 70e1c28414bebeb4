"""The architecture is checked by import-linter (pyproject.toml's contracts, `make lint`): here,
that the contracts hold on the tree, and that each one fails on a deliberately wrong import in a
copy of it, so a passing `lint-imports` means something."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
MAX_MODULE_LINES = 800


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=root, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    for name in ("agent", "tools"):
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_contracts_hold_on_the_tree() -> None:
    proc = _lint(REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("KEPT") == 4


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # a lower layer reaching up: the store asking the loop
        ("agent/store/lease.py", "import agent.loop.runner", "agent's packages are layered"),
        # tools importing agent, lazily inside a function
        ("tools/gpus.py", "def _late() -> None:\n    import agent.state\n", "tools never imports agent"),
        # the gate reading the operator's words
        ("agent/policy/model.py", "import agent.hearing.replies", "the policy gate imports nothing of a run"),
        # a cycle inside one package, only under TYPE_CHECKING
        (
            "agent/transcript/schema.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import agent.transcript.writer\n",
            "no import cycles",
        ),
    ],
)
def test_each_contract_fails_on_a_wrong_import(tree_copy: Path, module: str, line: str, broken: str) -> None:
    path = tree_copy / module
    original = path.read_text()
    try:
        path.write_text(original + "\n" + line + "\n")
        proc = _lint(tree_copy)
    finally:
        path.write_text(original)
    assert proc.returncode != 0
    broken_section = proc.stdout.split("Broken contracts")[-1]
    assert broken in broken_section, proc.stdout


def test_no_module_is_over_800_lines() -> None:
    long = {
        str(p.relative_to(REPO)): n
        for base in ("agent", "tools")
        for p in (REPO / base).rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_agent_keeps_a_handful_of_modules_beside_its_packages() -> None:
    modules = sorted(p.stem for p in (REPO / "agent").glob("*.py") if p.name != "__init__.py")
    assert modules == ["config", "diagnostics", "llm_config", "state", "verdict"]
