"""The sandbox on the local target, with real bubblewrap: every probe, detached processes that stay
inside, a stop that ends everything a server started, the GPU nodes chosen from the driver's own
information files, and the `require` / `auto` / `off` settings.

Every command here is a harmless probe: a "write" opens a file for appending and writes nothing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tools.local import LocalTarget
from tools.sandbox import (
    HostSandboxFacts,
    Sandbox,
    SandboxError,
    SandboxSpec,
    device_nodes,
    gpu_minors,
    parse_information,
    parse_probe,
)
from tools.sandbox_check import run_probes
from tools.sandbox_view import SANDBOX_UID
from tools.target import TargetFileError

BWRAP = shutil.which("bwrap")
needs_bwrap = pytest.mark.skipif(
    BWRAP is None, reason="bubblewrap is missing: apt-get install -y bubblewrap to run the sandbox tests"
)


def information(model: str, bus: str, minor: int) -> str:
    """An information file as the NVIDIA driver writes it (nv-procfs.c: "Device Minor: \\t %u")."""
    return (
        f"Model: \t\t {model}\n"
        "IRQ:   \t\t 145\n"
        "GPU UUID: \t GPU-3b2c1a0e-5d4f-7a8b-9c0d-1e2f3a4b5c6d\n"
        "Video BIOS: \t 96.00.74.00.0d\n"
        "Bus Type: \t PCIe\n"
        "DMA Size: \t 52 bits\n"
        "DMA Mask: \t 0xfffffffffffff\n"
        f"Bus Location: \t {bus}\n"
        f"Device Minor: \t {minor}\n"
        "GPU Firmware: \t 550.54.15\n"
        "GPU Excluded:\t No\n"
    )


# Minors need not follow PCI order: the driver numbers GPUs as it probes them.
HOST_INFO = {
    "0000:18:00.0": information("NVIDIA H100 80GB HBM3", "0000:18:00.0", 2),
    "0000:2a:00.0": information("NVIDIA H100 80GB HBM3", "0000:2a:00.0", 0),
    "0000:9a:00.0": information("NVIDIA H100 80GB HBM3", "0000:9a:00.0", 3),
    "0000:ab:00.0": information("NVIDIA H100 80GB HBM3", "0000:ab:00.0", 1),
}


# ---- choosing the GPU nodes (pure) -------------------------------------------------------------


def test_information_file_gives_bus_and_minor() -> None:
    assert parse_information(HOST_INFO["0000:9a:00.0"]) == ("0000:9a:00.0", 3)
    assert parse_information("Model: x\n") == (None, None)


def test_the_agents_gpus_by_pci_address_map_to_their_minors() -> None:
    spec = SandboxSpec(gpu_pci=("18:00.0", "0000:AB:00.0"))
    assert gpu_minors(HOST_INFO, spec) == {"0000:18:00.0": 2, "0000:ab:00.0": 1}


def test_gpu_indices_count_in_pci_order_not_minor_order() -> None:
    # index 1 is the second GPU by PCI address (2a:00.0), whose minor is 0
    assert gpu_minors(HOST_INFO, SandboxSpec(gpu_indices=(1, 3))) == {"0000:2a:00.0": 0, "0000:ab:00.0": 1}


def test_protected_gpus_never_get_a_node_even_if_listed_as_the_agents() -> None:
    spec = SandboxSpec(gpu_pci=("0000:18:00.0", "0000:9a:00.0"), protected_pci=("0000:9a:00.0",))
    assert gpu_minors(HOST_INFO, spec) == {"0000:18:00.0": 2}
    unnamed = SandboxSpec(protected_pci=("0000:9a:00.0", "0000:ab:00.0"))
    assert gpu_minors(HOST_INFO, unnamed) == {"0000:18:00.0": 2, "0000:2a:00.0": 0}


def test_device_nodes_are_the_agents_gpus_and_the_shared_nodes_that_exist() -> None:
    facts = HostSandboxFacts(
        gpu_info=HOST_INFO,
        nvidia_nodes=["nvidia0", "nvidia1", "nvidia2", "nvidia3", "nvidiactl", "nvidia-uvm", "nvidia-modeset"],
    )
    nodes = device_nodes(facts, SandboxSpec(gpu_pci=("0000:18:00.0", "0000:ab:00.0")))
    assert nodes == ["/dev/nvidia1", "/dev/nvidia2", "/dev/nvidiactl", "/dev/nvidia-uvm"]


def test_the_host_probe_output_is_read_back() -> None:
    text = "@@uid 0\n@@bwrap /usr/bin/bwrap\n@@info 0000:18:00.0\n" + HOST_INFO["0000:18:00.0"]
    text += "@@dev\nnvidia2\nnvidiactl\nnvidia-caps/nvidia-cap1\n"
    facts = parse_probe(text)
    assert facts.uid == 0 and facts.bwrap == "/usr/bin/bwrap"
    assert parse_information(facts.gpu_info["0000:18:00.0"]) == ("0000:18:00.0", 2)
    assert facts.nvidia_nodes == ["nvidia2", "nvidiactl", "nvidia-caps/nvidia-cap1"]


# ---- require / auto / off ----------------------------------------------------------------------


def _host_without_bwrap(script: str) -> tuple[int | None, str, str]:
    out = subprocess.run(["/bin/bash", "-c", script], capture_output=True, text=True, env={"PATH": "/nonexistent"})
    return out.returncode, out.stdout, out.stderr


def test_require_refuses_a_host_without_bubblewrap_and_names_the_install_command() -> None:
    box = Sandbox(SandboxSpec(mode="require"), work_dir="/w", home="/h", run_host=_host_without_bwrap, where="h1")
    with pytest.raises(SandboxError, match=r"h1: .*sandbox: require.*not installed.*apt-get install -y bubblewrap"):
        box.status()


def test_auto_runs_unconfined_without_bubblewrap_and_says_so() -> None:
    box = Sandbox(SandboxSpec(mode="auto"), work_dir="/w", home="/h", run_host=_host_without_bwrap, where="h1")
    status = box.status()
    assert not status.active and "not installed" in status.line() and "unconfined" in status.line()
    assert box.prefix() is None


@needs_bwrap
def test_require_refuses_a_bubblewrap_that_does_not_work(tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    (fake / "bwrap").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}

    def host(script: str) -> tuple[int | None, str, str]:
        out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env)
        return out.returncode, out.stdout, out.stderr

    box = Sandbox(SandboxSpec(mode="require"), work_dir=str(tmp_path), home="/h", run_host=host, where="h2")
    with pytest.raises(SandboxError, match=r"does not work here .*uid map: Permission denied"):
        box.status()


# ---- the probes, inside real bubblewrap ---------------------------------------------------------


@pytest.fixture
def boxed(tmp_path: Path) -> LocalTarget:
    if BWRAP is None:
        pytest.skip("bubblewrap is missing: apt-get install -y bubblewrap")
    return LocalTarget(str(tmp_path / "work"), sandbox=SandboxSpec(mode="require"))


@needs_bwrap
def test_every_probe_shows_the_sandbox_contains(boxed: LocalTarget) -> None:
    status = boxed.sandbox_status()
    assert status.active
    probes = {p.name: p for p in run_probes(boxed, status.devices)}
    assert set(probes) == {
        "write_etc_fails",
        "write_sys_fails",
        "write_proc_sys_fails",
        "cap_eff_zero",
        "no_new_privs",
        "dev_only_agent_gpus",
        "sudo_fails",
        "host_processes_hidden",
        "work_dir_writable",
        "loopback_network",
        "host_tcp_refused",
        "abstract_sockets_refused",
        "pathname_sockets_refused",
        "unprivileged_identity",
        "tmp_run_private",
        "launcher_follows_no_link",
    }
    assert [p.name for p in probes.values() if not p.contained] == []
    for name in ("write_etc_fails", "write_sys_fails", "write_proc_sys_fails"):
        # a root login runs as an unprivileged uid inside, which the permissions stop first
        assert any(why in probes[name].detail for why in ("Read-only file system", "Permission denied"))
    assert probes["cap_eff_zero"].detail == "CapEff 0000000000000000"
    assert probes["no_new_privs"].detail == "NoNewPrivs 1"


@needs_bwrap
def test_the_same_probes_see_an_unconfined_target(tmp_path: Path) -> None:
    bare = LocalTarget(str(tmp_path / "work"), sandbox=SandboxSpec(mode="off"))
    assert not bare.sandbox_status().active
    probes = {p.name: p for p in run_probes(bare, [])}
    assert not probes["host_processes_hidden"].contained
    if os.geteuid() == 0:  # root outside a sandbox: /etc opens for writing, capabilities are there
        assert not probes["write_etc_fails"].contained
        assert not probes["cap_eff_zero"].contained
    assert probes["work_dir_writable"].contained and probes["loopback_network"].contained


@needs_bwrap
def test_dev_holds_no_block_devices_and_only_the_basic_nodes(boxed: LocalTarget) -> None:
    result = boxed.run("ls -1 /dev; echo @@; find /dev -type b | wc -l")
    listing, blocks = result.stdout.split("@@")
    assert set(listing.split()) <= {
        "core",
        "fd",
        "full",
        "null",
        "ptmx",
        "pts",
        "random",
        "shm",
        "stderr",
        "stdin",
        "stdout",
        "tty",
        "urandom",
        "zero",
    }
    assert blocks.strip() == "0"


@needs_bwrap
def test_only_the_work_directory_and_listed_paths_are_writable(tmp_path: Path) -> None:
    extra = tmp_path / "cache"
    extra.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    target = LocalTarget(str(tmp_path / "work"), sandbox=SandboxSpec(mode="require", writable=(str(extra),)))
    result = target.run(f"touch made && touch {extra}/ok && touch {outside}/no")
    assert result.exit_code == 1
    # /tmp (where pytest's directories are) is private inside: what is outside is not even there
    assert f"{outside}/no': No such file or directory" in result.stderr
    assert (tmp_path / "work" / "made").exists() and (extra / "ok").exists()
    assert not (outside / "no").exists()
    # the target's own file writes keep to the same walls
    with pytest.raises(TargetFileError, match="Read-only file system"):
        target.write_file(str(outside / "script.sh"), b"true\n")
    target.write_file("script.sh", b"true\n")
    # nor through a link the agent made inside its work directory
    (tmp_path / "work" / "out").symlink_to(outside)
    with pytest.raises(TargetFileError, match="Read-only file system"):
        target.write_file("out/escaped.sh", b"true\n")
    assert not (outside / "escaped.sh").exists()
    # TMPDIR points into the work directory, so mktemp and Python's tempfile work
    assert target.run("mktemp").stdout.startswith(str(tmp_path / "work" / "tmp") + "/")


@needs_bwrap
def test_dev_shm_is_private_to_each_command(boxed: LocalTarget) -> None:
    assert boxed.run("echo x > /dev/shm/opsagent-probe && cat /dev/shm/opsagent-probe").stdout == "x\n"
    assert boxed.run("ls /dev/shm").stdout == ""
    assert not Path("/dev/shm/opsagent-probe").exists()


@needs_bwrap
def test_setuid_programs_do_not_change_identity_inside(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to make a setuid program owned by another user")
    prog = tmp_path / "work" / "whoami-setuid"
    prog.parent.mkdir(parents=True)
    shutil.copy("/usr/bin/id", prog)
    os.chown(prog, 65534, 65534)
    prog.chmod(0o755 | stat.S_ISUID)
    bare = LocalTarget(str(tmp_path / "work"), sandbox=SandboxSpec(mode="off"))
    if bare.run(f"{prog} -u").stdout.strip() != "65534":
        pytest.skip("this file system ignores setuid bits (mounted nosuid)")
    boxed = LocalTarget(str(tmp_path / "work"), sandbox=SandboxSpec(mode="require"))
    # the setuid bit did nothing: the command keeps the sandbox's own uid (a root login's is not 0)
    assert boxed.run(f"{prog} -u").stdout.strip() == str(SANDBOX_UID)


@needs_bwrap
def test_a_timeout_ends_everything_the_command_started(boxed: LocalTarget) -> None:
    marker = "sleep 300.25"  # an unusual duration marks this test's processes
    result = boxed.run(f"setsid {marker} & sleep 300", timeout=1)
    assert result.timed_out
    time.sleep(0.3)
    assert marker not in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout


def _descendants(pid: int) -> list[int]:
    out, stack = [], [pid]
    while stack:
        current = stack.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                children = Path(f"/proc/{current}/task/{task}/children").read_text().split()
            except OSError:
                continue
            out += [int(c) for c in children]
            stack += [int(c) for c in children]
    return out


def _status(pid: int) -> dict[str, str]:
    fields: dict[str, str] = {}
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return fields
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


@needs_bwrap
def test_a_detached_server_stays_inside_and_a_stop_ends_all_it_started(boxed: LocalTarget) -> None:
    marker = "sleep 301.25"  # an unusual duration marks this test's processes
    proc = boxed.start_detached(f"setsid {marker} & {marker}", name="probe")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        sleepers = [p for p in _descendants(proc.pid) if _status(p).get("Name") == "sleep"]
        if len(sleepers) == 2:
            break
        time.sleep(0.1)
    assert len(sleepers) == 2, "both sleeps run (one left the process group with setsid)"
    assert boxed.process_status(proc).running  # the command that started it has long returned
    for pid in sleepers:
        status = _status(pid)
        assert status["CapEff"] == "0000000000000000" and status["CapPrm"] == "0000000000000000"
        assert status["NoNewPrivs"] == "1"
    stopped = boxed.stop_process(proc, grace_s=5)
    assert not stopped.running
    time.sleep(0.3)
    assert marker not in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout


@needs_bwrap
def test_an_escalated_command_runs_outside(boxed: LocalTarget) -> None:
    inside = boxed.run("grep ^CapEff /proc/self/status").stdout.split()[-1]
    outside = boxed.run_outside_sandbox("grep ^CapEff /proc/self/status").stdout.split()[-1]
    assert inside == "0000000000000000"
    if os.geteuid() == 0:
        assert outside != inside


@needs_bwrap
def test_sandbox_check_cli_prints_every_probe_as_json(tmp_path: Path) -> None:
    import json
    import sys

    env = {**os.environ, "HOME": str(tmp_path)}  # the local target's work directory is ~/opsagent-work
    out = subprocess.run(
        [sys.executable, "-m", "agent.cli", "sandbox", "check", "--target", "local", "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["sandbox"].startswith("on (policy setting auto)")
    assert len(report["probes"]) == 16
    assert all(set(p) == {"name", "contained", "detail"} and p["contained"] for p in report["probes"])
    off = tmp_path / "off.yaml"
    off.write_text("version: 1\nsandbox: 'off'\n")
    bare = subprocess.run(
        [sys.executable, "-m", "agent.cli", "sandbox", "check", "--target", "local", "--policy", str(off)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert bare.returncode == 1
    assert "OFF (policy setting off)" in bare.stdout and "NOT" in bare.stdout


@needs_bwrap
def test_sandbox_exec_runs_one_command_as_the_runner_would(tmp_path: Path) -> None:
    import sys

    env = {**os.environ, "HOME": str(tmp_path)}  # the local target's work directory is ~/opsagent-work
    base = [sys.executable, "-m", "agent.cli", "sandbox", "exec"]
    out = subprocess.run(
        [*base, "--target", "local", "--", "pwd; echo $TMPDIR; grep ^NoNewPrivs /proc/self/status; exit 3"],
        capture_output=True,
        text=True,
        env=env,
    )
    work = str(tmp_path / "opsagent-work")
    assert out.returncode == 3, out.stderr
    assert out.stdout.splitlines() == [work, f"{work}/tmp", "NoNewPrivs:\t1"]
    slow = subprocess.run(
        [*base, "--target", "local", "--timeout", "1", "--", "sleep 30"], capture_output=True, text=True, env=env
    )
    assert slow.returncode == 124 and "timed out after 1s" in slow.stderr
    for bad in (["--target", "nowhere", "--", "true"], ["--target", "local", "--", " "]):
        wrong = subprocess.run([*base, *bad], capture_output=True, text=True, env=env)
        assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
        assert len(wrong.stderr.strip().splitlines()) == 1 and wrong.stderr.startswith("error: ")


def _probed_host(probe: str) -> Callable[[str], tuple[int | None, str, str]]:
    """A host whose probe answers `probe` (and whose every other script succeeds)."""

    def run(script: str) -> tuple[int | None, str, str]:
        return (0, probe, "") if "@@uid" in script else (0, "opsagent-sandbox-ok\n", "")

    return run


@pytest.mark.parametrize(
    ("probe", "why"),
    [
        ("@@uid 1000\n@@bwrap /usr/bin/bwrap\n@@python /usr/bin/python3\n@@abi 3\n", "Landlock ABI 3"),
        ("@@uid 1000\n@@bwrap /usr/bin/bwrap\n", "no python3 in /usr/bin"),
        ("@@uid 0\n@@bwrap /usr/bin/bwrap\n", "the login is root and the host has no python3"),
    ],
)
def test_require_refuses_a_host_that_cannot_contain_in_one_line(probe: str, why: str) -> None:
    box = Sandbox(SandboxSpec(mode="require"), work_dir="/w", home="/h", run_host=_probed_host(probe), where="h3")
    with pytest.raises(SandboxError) as caught:
        box.status()
    message = str(caught.value)
    assert why in message and "\n" not in message and message.startswith("h3: the policy requires the sandbox")


def test_auto_on_an_old_kernel_runs_and_says_the_network_is_not_contained() -> None:
    probe = "@@uid 1000\n@@bwrap /usr/bin/bwrap\n@@python /usr/bin/python3\n@@abi 0\n@@root d usr\n"
    box = Sandbox(SandboxSpec(mode="auto"), work_dir="/w", home="/h", run_host=_probed_host(probe), where="h4")
    status = box.status()
    assert status.active and "network NOT contained (Landlock ABI 0)" in status.line()
    prefix = box.prefix()
    assert prefix is not None and "/usr/bin/python3" not in prefix  # nothing for the first process to do
    five = probe.replace("@@abi 0", "@@abi 5")
    box5 = Sandbox(SandboxSpec(mode="require"), work_dir="/w", home="/h", run_host=_probed_host(five), where="h5")
    assert "abstract Unix sockets and signals NOT scoped (Landlock ABI 5 < 6)" in box5.status().line()


def test_a_port_the_policy_names_is_reachable_inside_and_no_other(tmp_path: Path) -> None:
    """`sandbox_ports` in a policy file reaches the sandbox's Landlock rules: a listener on that
    port answers a command inside, one on a port nobody named does not."""
    import socket
    import sys
    import threading

    listeners = []
    for _ in range(2):
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        listeners.append(server)

    def answer(server: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = server.accept()
                conn.sendall(b"hello\n")
                conn.close()

    for server in listeners:
        threading.Thread(target=answer, args=(server,), daemon=True).start()
    named, unnamed = (s.getsockname()[1] for s in listeners)
    policy = tmp_path / "ports.yaml"
    policy.write_text(f"version: 1\ndescription: a port for the test\nsandbox_ports: [{named}]\n")
    env = {**os.environ, "HOME": str(tmp_path)}
    probe = (
        "import socket, sys\n"
        "for port in map(int, sys.argv[1:]):\n"
        "    try:\n"
        "        s = socket.create_connection(('127.0.0.1', port), timeout=3)\n"
        "        print(port, s.recv(6).strip().decode())\n"
        "    except OSError as exc:\n"
        "        print(port, type(exc).__name__)\n"
    )
    (tmp_path / "opsagent-work").mkdir(exist_ok=True)
    (tmp_path / "opsagent-work" / "probe.py").write_text(probe)
    try:
        out = subprocess.run(
            [sys.executable, "-m", "agent.cli", "sandbox", "exec", "--target", "local", "--policy", str(policy), "--",
             f"python3 probe.py {named} {unnamed}"],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
    finally:
        for server in listeners:
            server.close()
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [f"{named} hello", f"{unnamed} PermissionError"], out.stdout
