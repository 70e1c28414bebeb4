"""`opsagent serve` on a state directory it cannot write, an auditor's copy (#30): the inbox, a
run's page and its audit view are served, sign-in works, nothing in the copy changes, and an
answer is refused in words. Read-only as tests/cli/test_read_only_state.py makes it: as root, the
server runs in a user namespace where the files' owner is an ordinary uid, so the bits apply."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_read_only_state import _digest, _freeze
from tests.web.server import Client, hidden, make_workspace

UNSHARE = shutil.which("unshare")


@pytest.mark.skipif(os.geteuid() == 0 and UNSHARE is None, reason="root without unshare: nothing is read-only")
def test_the_audit_view_is_served_from_a_read_only_state(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    ran = ws.cli("run", "--target", "lab:vm-no-p2p", "--approver", "none", "--run-id", "ro")
    assert ran.returncode == 3, ran.stdout + ran.stderr
    copy = tmp_path / "audit-copy"
    shutil.copytree(ws.state, copy)
    _freeze(copy)
    _freeze(ws.transcripts)
    before = _digest(copy)
    argv = [sys.executable, "-m", "agent.cli", "serve", "--port", "0", "--state", str(copy)]
    if os.geteuid() == 0:
        assert UNSHARE is not None
        argv = [UNSHARE, "--user", "--map-user=1000", "--map-group=1000", *argv]
    proc = subprocess.Popen(argv, cwd=tmp_path, env=ws.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        if not line:
            err = proc.stderr.read()
            if "Operation not permitted" in err or "unshare failed" in err:
                pytest.skip(f"no user namespaces here: {err.strip()}")
            raise AssertionError(f"serve did not start on a read-only state: {err}")
        match = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert match, line
        viewer = Client(match.group(0))
        signed = viewer.login("victor")
        assert signed.status == 303, signed.body
        inbox = viewer.get("/")
        assert inbox.status == 200 and "/runs/ro" in inbox.body
        page = viewer.get("/runs/ro")
        assert page.status == 200 and "tuning candidates are exhausted" in page.body
        audit = viewer.get("/runs/ro/audit")
        assert audit.status == 200, audit.body[-2000:]
        assert "Integrity" in audit.body or "integrity" in audit.body
        assert "A4" in audit.body  # the attempts table
        # an operator of this copy cannot answer: said in words, nothing written
        operator = Client(match.group(0))
        assert operator.login("alice").status == 303
        form = operator.get("/runs/ro")
        refused = operator.post(
            "/runs/ro/reply",
            {"csrf": hidden(form.body, "csrf"), "verb": "stop", "question_id": "", "digest": ""},
        )
        assert refused.status == 403 and "read-only" in refused.body, refused.body[-500:]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert _digest(copy) == before, "serving changed nothing"
