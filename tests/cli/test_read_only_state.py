"""An auditor reads a copy of the state they cannot write (#30, item 8): `inbox`, `inbox show` and
`replay RUN --state` work on it and change nothing. The copy is read-only for a user who does not
own it; as root (tests run as root here) that user is made with a user namespace: the files' real
owner is mapped to an ordinary uid, so the permission bits apply."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.opsagent_process import REPO, CliRun

UNSHARE = shutil.which("unshare")


def _as_auditor(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "OPSAGENT_CONFIG": str(cwd / "no-config.yaml")}
    argv = [sys.executable, "-m", "agent.cli", *args]
    if os.geteuid() == 0:
        assert UNSHARE is not None
        argv = [UNSHARE, "--user", "--map-user=1000", "--map-group=1000", *argv]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _freeze(path: Path) -> None:
    for p in [path, *path.rglob("*")]:
        p.chmod(p.stat().st_mode & ~0o222)


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(path.rglob("*")):
        h.update(str(p.relative_to(path)).encode())
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.mark.skipif(os.geteuid() == 0 and UNSHARE is None, reason="root without unshare: nothing is read-only")
def test_inbox_and_replay_read_a_read_only_copy(cli: CliRun, workspace: Path) -> None:
    assert cli("run", "--target", "lab:vm-no-p2p", "--approver", "none", "--run-id", "ro").returncode == 3
    copy = workspace / "audit-copy"
    shutil.copytree(workspace / "state", copy)
    _freeze(copy)
    before = _digest(copy)
    probe = _as_auditor("inbox", "--state", str(copy), cwd=workspace)
    if "Operation not permitted" in probe.stderr or "unshare failed" in probe.stderr:
        pytest.skip(f"no user namespaces here: {probe.stderr.strip()}")
    assert probe.returncode == 0, probe.stderr
    assert "ro (decider_asks" in probe.stdout and "reply: opsagent reply ro" in probe.stdout
    shown = _as_auditor("inbox", "show", "ro", "--state", str(copy), cwd=workspace)
    assert shown.returncode == 0 and "opsagent needs a decision" in shown.stdout, shown.stderr
    replayed = _as_auditor("replay", "ro", "--state", str(copy), cwd=workspace)
    assert replayed.returncode == 0 and "run_started" in replayed.stdout, replayed.stderr
    report = workspace / "auditor" / "audit.html"  # the audit view, written where the auditor may write
    report.parent.mkdir()
    report.parent.chmod(0o777)
    exported = _as_auditor("replay", "ro", "--state", str(copy), "--export", str(report), cwd=workspace)
    assert exported.returncode == 0 and report.exists(), exported.stdout + exported.stderr
    assert _digest(copy) == before, "reading changed nothing"
    # a command that writes still says, in one line, that it cannot
    refused = _as_auditor("reply", "ro", "stop", "--state", str(copy), cwd=workspace)
    assert refused.returncode == 2 and "not writable" in refused.stderr and "Traceback" not in refused.stderr
