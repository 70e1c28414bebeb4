"""Host-key trust and authentication against a real sshd."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sshd_fixture import SshServer
from tools.ssh.target import SSHTarget
from tools.target import TargetAuthError


def fingerprint(pub: Path) -> str:
    out = subprocess.run(["ssh-keygen", "-lf", str(pub)], capture_output=True, text=True, check=True)
    return out.stdout.split()[1]


def test_unknown_host_key_is_refused_with_advice(sshd: SshServer, tmp_path: Path) -> None:
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    with pytest.raises(TargetAuthError) as caught:
        SSHTarget.connect(sshd.url, sshd.options(known_hosts=empty))
    message = str(caught.value)
    assert "unknown host key" in message
    assert f"[127.0.0.1]:{sshd.port}" in message
    assert fingerprint(Path(f"{sshd.host_key}.pub")) in message
    assert f"ssh-keyscan -p {sshd.port} -t ssh-ed25519 127.0.0.1 >> {empty}" in message
    assert empty.read_text() == ""


def test_changed_host_key_is_refused_even_with_accept_new(sshd: SshServer, tmp_path: Path) -> None:
    known = tmp_path / "known_hosts"
    kind, blob = Path(f"{sshd.wrong_key}.pub").read_text().split()[:2]
    known.write_text(f"[127.0.0.1]:{sshd.port} {kind} {blob}\n")
    for accept in (False, True):
        with pytest.raises(TargetAuthError) as caught:
            SSHTarget.connect(sshd.url, sshd.options(known_hosts=known, accept_new_host_key=accept))
        message = str(caught.value)
        assert "HOST KEY CHANGED" in message
        assert fingerprint(Path(f"{sshd.wrong_key}.pub")) in message
        assert fingerprint(Path(f"{sshd.host_key}.pub")) in message
        assert "ssh-keygen -R" in message
    assert known.read_text() == f"[127.0.0.1]:{sshd.port} {kind} {blob}\n"


def test_accept_new_host_key_records_it_and_reports_the_fingerprint(sshd: SshServer, tmp_path: Path) -> None:
    known = tmp_path / "dir" / "known_hosts"
    with SSHTarget.connect(sshd.url, sshd.options(known_hosts=known, accept_new_host_key=True)) as target:
        event = target.host_key_event
        assert target.run("echo hi").stdout == "hi\n"
    assert event is not None
    assert event["host"] == f"[127.0.0.1]:{sshd.port}"
    assert event["key_type"] == "ssh-ed25519"
    assert event["fingerprint"] == fingerprint(Path(f"{sshd.host_key}.pub"))
    # Now known: a plain connection (no flag) is accepted and reports no event.
    with SSHTarget.connect(sshd.url, sshd.options(known_hosts=known)) as again:
        assert again.host_key_event is None
    assert known.read_text().split()[1:] == Path(f"{sshd.host_key}.pub").read_text().split()[:2]


def test_known_host_key_reports_no_event(target: SSHTarget) -> None:
    assert target.host_key_event is None


def test_wrong_user_key_is_a_clear_authentication_error(sshd: SshServer) -> None:
    with pytest.raises(TargetAuthError) as caught:
        SSHTarget.connect(sshd.url, sshd.options(identity=sshd.wrong_key))
    message = str(caught.value)
    assert f"authentication failed for {sshd.user}@127.0.0.1:{sshd.port}" in message
    assert str(sshd.wrong_key) in message
    assert "authorized_keys" in message and "--identity" in message


def test_missing_identity_file_is_named(sshd: SshServer, tmp_path: Path) -> None:
    with pytest.raises(TargetAuthError, match=r"does-not-exist.*does not exist"):
        SSHTarget.connect(sshd.url, sshd.options(identity=tmp_path / "does-not-exist"))


@pytest.fixture
def agent_socket(sshd: SshServer, tmp_path: Path) -> Iterator[str]:
    socket_path = str(tmp_path / "agent.sock")
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", socket_path], stdout=subprocess.DEVNULL)
    try:
        env = {**os.environ, "SSH_AUTH_SOCK": socket_path}
        for _ in range(100):
            if Path(socket_path).exists():
                break
            subprocess.run(["sleep", "0.05"], check=True)
        subprocess.run(["ssh-add", "-q", str(sshd.user_key)], env=env, check=True, capture_output=True)
        yield socket_path
    finally:
        agent.terminate()
        agent.wait()


def test_ssh_agent_keys_are_used(sshd: SshServer, agent_socket: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSH_AUTH_SOCK", agent_socket)
    options = sshd.options(identity=None, use_agent=True)
    with SSHTarget.connect(sshd.url, options) as target:
        assert target.run("echo via-agent").stdout == "via-agent\n"
