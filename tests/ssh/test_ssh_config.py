"""ssh:// URLs and ~/.ssh/config: Host aliases, HostName, User, Port, IdentityFile, ProxyJump."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sshd_fixture import SshServer
from tools.ssh.config import SSHOptions, parse_ssh_url
from tools.ssh.target import SSHTarget


@pytest.mark.parametrize(
    ("url", "host", "user", "port"),
    [
        ("ssh://alice@gpu-box:2222", "gpu-box", "alice", 2222),
        ("ssh://gpu-box", "gpu-box", None, None),
        ("ssh://GpuBox", "GpuBox", None, None),
        ("bob@10.0.0.5", "10.0.0.5", "bob", None),
        ("ssh://carol@[::1]:2200", "::1", "carol", 2200),
        ("ssh://dave@host/", "host", "dave", None),
    ],
)
def test_parse_ssh_url(url: str, host: str, user: str | None, port: int | None) -> None:
    parsed = parse_ssh_url(url)
    assert (parsed.host, parsed.user, parsed.port) == (host, user, port)


@pytest.mark.parametrize("url", ["http://host", "ssh://", "ssh://host:notaport", "ssh://host/path"])
def test_parse_ssh_url_rejects(url: str) -> None:
    with pytest.raises(ValueError, match="ssh://user@host"):
        parse_ssh_url(url)


def _config(sshd: SshServer, tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "ssh_config"
    path.write_text(
        f"Host gpubox\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User {sshd.user}\n"
        f"  IdentityFile {sshd.user_key}\n  UserKnownHostsFile {sshd.known_hosts}\n" + extra
    )
    return path


def test_host_alias_from_ssh_config(sshd: SshServer, tmp_path: Path) -> None:
    options = SSHOptions(ssh_config=_config(sshd, tmp_path), use_agent=False, work_dir=str(tmp_path / "w"))
    with SSHTarget.connect("ssh://gpubox", options) as target:
        assert target.host_label == f"{sshd.user}@127.0.0.1:{sshd.port}"
        assert target.describe() == "ssh://gpubox"
        assert target.run("echo via-config").stdout == "via-config\n"


def test_proxy_jump_through_a_jump_host(own_sshd: SshServer, tmp_path: Path) -> None:
    extra = (
        f"Host inner\n  HostName 127.0.0.1\n  Port {own_sshd.port}\n  User {own_sshd.user}\n"
        f"  IdentityFile {own_sshd.user_key}\n  UserKnownHostsFile {own_sshd.known_hosts}\n"
        "  ProxyJump gpubox\n"
    )
    options = SSHOptions(ssh_config=_config(own_sshd, tmp_path, extra), use_agent=False, work_dir=str(tmp_path / "w"))
    with SSHTarget.connect("ssh://inner", options) as target:
        assert target.run("echo jumped").stdout == "jumped\n"
        # One connection to the jump host and one tunnelled through it to the target.
        assert len(own_sshd.session_pids()) == 2
        # The tunnelled connection comes from the jump host's sshd, not from this client.
        client = target.run('echo "$SSH_CONNECTION"').stdout.split()
        assert client[0] == "127.0.0.1"
