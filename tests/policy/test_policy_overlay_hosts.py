"""On a host whose GPUs are numbered differently from the default's examples (the agent owns GPUs
4-7 by an operator's overlay): asking a server for its help touches no GPU, `drain -p` names its
GPU by PCI address, and `policy test` judges each file's examples under that file's own host."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent.policy.policyset import load_policy_set

REPO = Path(__file__).resolve().parents[2]

OVERLAY = """\
    facts:
      work_dir: /srv/gpu-work
      home: /srv
      agent_gpus: [4, 5, 6, 7]
      agent_gpu_pci: ["0000:81:00.0", "0000:a1:00.0", "0000:c1:00.0", "0000:e1:00.0"]
      protected_gpus: [0, 1, 2, 3]
      protected_pci: ["0000:01:00.0", "0000:21:00.0", "0000:41:00.0", "0000:61:00.0"]
"""


@pytest.fixture
def overlay(tmp_path: Path) -> Path:
    path = tmp_path / "gpu-box.yaml"
    path.write_text(textwrap.dedent(OVERLAY))
    return path


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("python3 -m sglang.launch_server --help", "allow"),
        ("python3 -m sglang.launch_server -h", "allow"),
        ("python3 -m sglang.launch_server --model-path /models/m --tp 4 --help", "allow"),
        ("sglang serve --help", "allow"),
        # the same launches without help start a server on GPUs 0-3, the co-tenant's
        ("python3 -m sglang.launch_server --model-path /models/m --tp 4", "deny"),
        ("python3 -m sglang.launch_server --he", "deny"),  # an abbreviation is not resolved: fail closed
        ("torchrun --nproc-per-node 4 train.py --help", "deny"),  # the script's help: the script runs
        ("CUDA_VISIBLE_DEVICES=4,5,6,7 python3 -m sglang.launch_server --tp 4", "allow"),
    ],
)
def test_help_touches_no_gpu(overlay: Path, command: str, decision: str) -> None:
    assert load_policy_set([overlay]).evaluate_command(command).decision == decision


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("nvidia-smi drain -p 0000:81:00.0 -m 1", "ask"),  # the agent's own GPU: a state change asks
        ("nvidia-smi drain --pciid=0000:a1:00.0 --modify 1", "ask"),
        ("nvidia-smi drain --pciid 0000:c1:00.0 --modify 0", "ask"),
        ("nvidia-smi drain -p 0000:01:00.0 -m 1", "deny"),  # the co-tenant's
        ("nvidia-smi drain -p 01:00.0 -m 1", "deny"),  # the short spelling of the same address
    ],
)
def test_drain_is_judged_against_the_gpu_its_pci_address_names(overlay: Path, command: str, decision: str) -> None:
    assert load_policy_set([overlay]).evaluate_command(command).decision == decision


def _policy_test(*files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent.cli.policy", "test", *map(str, files)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_policy_test_on_an_overlay_judges_each_files_examples_on_its_own_host(overlay: Path) -> None:
    overlay.write_text(
        textwrap.dedent(OVERLAY)
        + textwrap.dedent("""\
            examples:
              - {command: "rm -rf /srv/gpu-work/logs", decision: allow}
              - {command: "nvidia-smi -i 0 -pl 300", decision: deny}
              - {command: "nvidia-smi -i 4 -pl 300", decision: ask}
        """)
    )
    proc = _policy_test(overlay)
    assert proc.returncode == 0, proc.stdout[-2000:]
    default_count = len(load_policy_set([]).examples)
    assert f"{default_count + 3}/{default_count + 3} examples hold" in proc.stdout


def test_a_wrong_example_in_the_overlay_fails_and_is_named(overlay: Path) -> None:
    wrong = 'examples:\n  - {command: "nvidia-smi -i 0 -pl 300", decision: ask}\n'
    overlay.write_text(textwrap.dedent(OVERLAY) + wrong)
    proc = _policy_test(overlay)
    assert proc.returncode == 1
    assert f"FAIL {overlay}: " in proc.stdout
    assert "expected ask, got deny" in proc.stdout
