"""A real OpenSSH server on 127.0.0.1 for tests: throwaway host and user keys, a known_hosts file.

Used by tests/ssh/conftest.py and by any other test that needs an SSH target (doctor, CLI):

    from tests.sshd_fixture import SSHD_PATH, SshServer
    with SshServer.start(tmp_path) as server:
        target = SSHTarget.connect(server.url, server.options())

The server runs as the current user in the foreground (`sshd -D`), so the test owns its pid and
can stop it, restart it on the same port and keys, or kill the session process of a connection.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

SSHD_PATH = Path("/usr/sbin/sshd")
SFTP_SERVER = "/usr/lib/openssh/sftp-server"
SKIP_REASON = (
    "/usr/sbin/sshd is missing: install Debian's openssh-server (apt-get install -y openssh-server) "
    "to run the SSH tests"
)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def keygen(path: Path, comment: str) -> Path:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return path


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found.extend(int(p) for p in handle.read().split())
    return found


def _descendants(pid: int) -> list[int]:
    out: list[int] = []
    stack = _children(pid)
    while stack:
        child = stack.pop()
        out.append(child)
        stack.extend(_children(child))
    return out


@dataclass
class SshServer:
    """One sshd on 127.0.0.1:`port`, configured from files under `root`."""

    root: Path
    port: int
    user: str
    host_key: Path
    user_key: Path
    wrong_key: Path
    known_hosts: Path
    config: Path
    process: subprocess.Popen[bytes] | None = None
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.root / "sshd.log"

    @classmethod
    def create(cls, root: Path) -> SshServer:
        root.mkdir(parents=True, exist_ok=True)
        os.chmod(root, 0o700)
        port = free_port()
        host_key = keygen(root / "host_ed25519", "test-host")
        user_key = keygen(root / "user_ed25519", "test-user")
        wrong_key = keygen(root / "wrong_ed25519", "not-authorized")
        (root / "authorized_keys").write_text(Path(f"{user_key}.pub").read_text())
        host_pub = Path(f"{host_key}.pub").read_text().split()
        known_hosts = root / "known_hosts"
        known_hosts.write_text(f"[127.0.0.1]:{port} {host_pub[0]} {host_pub[1]}\n")
        config = root / "sshd_config"
        config.write_text(
            "\n".join(
                [
                    f"Port {port}",
                    "ListenAddress 127.0.0.1",
                    f"HostKey {host_key}",
                    f"PidFile {root / 'sshd.pid'}",
                    f"AuthorizedKeysFile {root / 'authorized_keys'}",
                    "StrictModes no",
                    "UsePAM no",
                    "PubkeyAuthentication yes",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PermitRootLogin prohibit-password",
                    "AllowTcpForwarding yes",
                    "MaxSessions 64",
                    "MaxStartups 64",
                    "PrintMotd no",
                    "PrintLastLog no",
                    "UseDNS no",
                    "LogLevel ERROR",
                    f"Subsystem sftp {SFTP_SERVER}",
                    "",
                ]
            )
        )
        user = (
            os.environ.get("USER")
            or subprocess.run(["id", "-un"], capture_output=True, text=True, check=True).stdout.strip()
        )
        return cls(root, port, user, host_key, user_key, wrong_key, known_hosts, config)

    @classmethod
    def start(cls, root: Path) -> SshServer:
        server = cls.create(root)
        server.launch()
        return server

    @property
    def url(self) -> str:
        return f"ssh://{self.user}@127.0.0.1:{self.port}"

    def options(self, **overrides: Any) -> Any:
        """SSHOptions for this server: its user key, its known_hosts, no ~/.ssh/config, no agent."""
        from tools.ssh.config import SSHOptions

        values: dict[str, Any] = {
            "identity": self.user_key,
            "known_hosts": self.known_hosts,
            "ssh_config": self.root / "no_ssh_config",
            "use_agent": False,
            "connect_timeout": 5.0,
            "work_dir": str(self.root / "work"),
        }
        values.update(overrides)
        return SSHOptions(**values)

    def launch(self) -> None:
        if os.geteuid() == 0:
            # Debian's sshd refuses to start as root without its privilege separation directory.
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [str(SSHD_PATH), "-D", "-e", "-f", str(self.config)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"sshd exited at start: {self.log.read_text()[-2000:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                return
            time.sleep(0.02)
        raise RuntimeError(f"sshd did not listen on 127.0.0.1:{self.port}: {self.log.read_text()[-2000:]}")

    def session_pids(self) -> list[int]:
        """The per-connection sshd processes (direct children of the listener)."""
        return _children(self.process.pid) if self.process else []

    def kill_sessions(self) -> list[int]:
        """SIGKILL every connection's sshd process, as a dropped link or a crash would."""
        pids = self.session_pids()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return pids

    def stop(self) -> None:
        """Stop the listener and every session it serves (a host going away)."""
        if self.process is None:
            return
        sessions = _descendants(self.process.pid)
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for pid in _children_of_sessions(sessions):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.launch()

    def __enter__(self) -> SshServer:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


def _children_of_sessions(pids: list[int]) -> Iterator[int]:
    # Only sshd processes themselves: the commands they ran are the tests' to observe.
    for pid in pids:
        with contextlib.suppress(OSError):
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            if comm.startswith("sshd"):
                yield pid
