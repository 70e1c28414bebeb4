"""A real OpenSSH server on 127.0.0.1 for the SSH target tests (see tests/sshd_fixture.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# `tests.sshd_fixture` is imported from the repository root; pytest's importlib mode does not
# put the root on sys.path by itself.
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.sshd_fixture import SKIP_REASON, SSHD_PATH, SshServer  # noqa: E402
from tools.ssh.target import SSHTarget  # noqa: E402


def _require_sshd() -> None:
    if not SSHD_PATH.exists():
        pytest.skip(SKIP_REASON)


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshServer]:
    """One server shared by a module's tests that do not stop or kill it."""
    _require_sshd()
    with SshServer.start(tmp_path_factory.mktemp("sshd")) as server:
        yield server


@pytest.fixture
def own_sshd(tmp_path: Path) -> Iterator[SshServer]:
    """A server for one test, which may kill its sessions or restart it."""
    _require_sshd()
    with SshServer.start(tmp_path / "sshd") as server:
        yield server


@pytest.fixture
def target(sshd: SshServer) -> Iterator[SSHTarget]:
    with SSHTarget.connect(sshd.url, sshd.options()) as connected:
        yield connected
