"""`opsagent policy check|test|explain` as a real process (`python -m agent.cli.policy`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LAB = str(REPO / "policies" / "lab-host.yaml")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent.cli.policy", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("command", "code", "decision"),
    [
        ("nvidia-smi topo -p2p r", 0, "allow"),
        ("sudo apt-get install -y nvtop", 10, "ask"),
        ("sudo sh -c 'echo b > /proc/sysrq-trigger'", 20, "deny"),
    ],
)
def test_check_json_and_exit_code(command: str, code: int, decision: str) -> None:
    proc = cli("check", "--policy", LAB, "--json", "--", command)
    assert proc.returncode == code, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"decision", "rules", "reason"}
    assert out["decision"] == decision
    assert isinstance(out["rules"], list) and out["rules"]


def test_check_joins_words_after_double_dash() -> None:
    proc = cli("check", "--json", "--", "systemctl", "--no-wall", "kexec")
    assert proc.returncode == 20
    assert json.loads(proc.stdout)["rules"] == ["power-systemctl"]


def test_bad_policy_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("rules:\n  - id: r\n    decison: deny\n")
    proc = cli("check", "--policy", str(bad), "--", "ls")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert f"{bad}:3:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_shipped_policy_examples_hold() -> None:
    proc = cli("test")
    assert proc.returncode == 0, proc.stdout
    held, total = proc.stdout.strip().splitlines()[-1].split()[0].split("/")
    assert held == total
    assert int(total) >= 200


def test_failing_example_is_reported(tmp_path: Path) -> None:
    pol = tmp_path / "p.yaml"
    pol.write_text(
        "rules:\n"
        "  - {id: ro, decision: allow, reason: reads, match: {program: [cat]}}\n"
        "examples:\n"
        "  - {command: 'cat /etc/hostname', decision: allow}\n"
        "  - {command: 'cat /etc/hostname; reboot', decision: deny}\n"
    )
    proc = cli("test", str(pol))
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout
    assert "expected deny, got ask" in proc.stdout
    assert "1/2 examples hold" in proc.stdout


def test_explain_lists_each_command_and_its_rule() -> None:
    proc = cli("explain", "--policy", LAB, "--", "nvidia-smi && echo 1 > /sys/bus/pci/devices/0000:81:00.0/remove")
    assert proc.returncode == 20
    lines = proc.stdout
    assert "1. nvidia-smi" in lines
    assert "common-tools" in lines
    assert "writes  /sys/bus/pci/devices/0000:81:00.0/remove" in lines
    assert "pci-remove-rescan" in lines
    assert lines.strip().splitlines()[-1].startswith("verdict: deny")
