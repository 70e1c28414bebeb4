"""Per-command latency of `true` over SSH: SSHTarget's fast path vs ControlMaster vs exec channels.

All run against the same throwaway sshd on 127.0.0.1 in one run (see tests/sshd_fixture.py):

- SSHTarget on a warm connection (the persistent-shell fast path), with the sandbox (the SSH
  default, `sandbox: require`) and without it (`sandbox: off`); goal: sandboxed within 3 ms,
- `ssh -o ControlMaster=auto` reusing a master connection (OpenSSH multiplexing),
- a plain paramiko exec channel per command on one open connection.

Prints the medians and the ratios; the goal is the fast path at least 50x faster than ControlMaster.
Where bubblewrap does not work for the login, the sandboxed line says why instead.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import paramiko  # noqa: E402

from tests.sshd_fixture import SSHD_PATH, SshServer  # noqa: E402
from tools.sandbox import SandboxError, SandboxSpec  # noqa: E402
from tools.ssh.target import SSHTarget  # noqa: E402

FAST_RUNS = 500
SLOW_RUNS = 25


def median_ms(run: Callable[[], None], count: int) -> float:
    run()  # warm-up
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        run()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def bench_fast_path(server: SshServer, mode: str = "off") -> float:
    options = server.options(sandbox=SandboxSpec.model_validate({"mode": mode}))
    with SSHTarget.connect(server.url, options) as target:
        if mode != "off" and not target.sandbox_status().active:
            raise SandboxError(target.sandbox_status().line())

        def once() -> None:
            if target.run("true").exit_code != 0:
                raise RuntimeError("`true` failed through SSHTarget")

        return median_ms(once, FAST_RUNS)


def bench_control_master(server: SshServer, root: Path) -> float:
    ssh = shutil.which("ssh")
    if ssh is None:
        return float("nan")
    base = [
        ssh, "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
        "-o", f"UserKnownHostsFile={server.known_hosts}", "-i", str(server.user_key),
        "-p", str(server.port), "-o", "ControlMaster=auto", "-o", f"ControlPath={root}/cm-%C",
        "-o", "ControlPersist=60", f"{server.user}@127.0.0.1",
    ]  # fmt: skip

    def once() -> None:
        subprocess.run([*base, "true"], check=True, stdin=subprocess.DEVNULL)

    try:
        return median_ms(once, SLOW_RUNS)
    finally:
        subprocess.run([*base[:-1], "-O", "exit", base[-1]], capture_output=True, check=False)


def bench_exec_channel(server: SshServer) -> float:
    client = paramiko.SSHClient()
    client.load_host_keys(str(server.known_hosts))
    client.connect(
        "127.0.0.1", server.port, username=server.user, key_filename=str(server.user_key),
        allow_agent=False, look_for_keys=False,
    )  # fmt: skip
    transport = client.get_transport()
    assert transport is not None

    def once() -> None:
        channel = transport.open_session()
        channel.exec_command("true")
        if channel.recv_exit_status() != 0:
            raise RuntimeError("`true` failed on an exec channel")
        channel.close()

    try:
        return median_ms(once, SLOW_RUNS)
    finally:
        client.close()


def main() -> int:
    if not SSHD_PATH.exists():
        print(f"skipped: {SSHD_PATH} missing (apt-get install -y openssh-server)")
        return 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-ssh-") as tmp:
        root = Path(tmp)
        with SshServer.start(root / "sshd") as server:
            fast = bench_fast_path(server)
            try:
                boxed: float | str = bench_fast_path(server, "require")
            except SandboxError as exc:
                boxed = str(exc)
            master = bench_control_master(server, root)
            exec_channel = bench_exec_channel(server)
    print(f"SSHTarget fast path (warm)      median {fast:8.3f} ms per `true` ({FAST_RUNS} runs, no sandbox)")
    if isinstance(boxed, float):
        verdict = "ok" if boxed <= 3.0 else "OVER"
        runs = f"{FAST_RUNS} runs; goal <= 3 ms: {verdict}"
        print(f"SSHTarget fast path, sandboxed  median {boxed:8.3f} ms per `true` ({runs})")
    else:
        print(f"SSHTarget fast path, sandboxed  not measured: {boxed}")
    print(f"ssh -o ControlMaster=auto       median {master:8.3f} ms per `true` ({SLOW_RUNS} runs)")
    print(f"paramiko exec channel per cmd   median {exec_channel:8.3f} ms per `true` ({SLOW_RUNS} runs)")
    print(f"ratio ControlMaster / fast path: {master / fast:.1f}x (goal >= 50x)")
    print(f"ratio exec channel / fast path:  {exec_channel / fast:.1f}x")
    print(f"bench took {time.monotonic() - started:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
