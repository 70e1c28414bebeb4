"""`doctor` and `opsagent doctor --target` against the real sshd and the local machine."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import typer
from typer.testing import CliRunner

from agent.cli.doctor import doctor_command
from tests.sshd_fixture import SshServer
from tools.doctor import doctor
from tools.local import LocalTarget
from tools.ssh.target import SSHTarget

app = typer.Typer()
app.command()(doctor_command)


def _python_version() -> str:
    out = subprocess.run(["python3", "--version"], capture_output=True, text=True, check=True).stdout
    return out.strip().removeprefix("Python ")


def test_doctor_over_ssh_reports_what_the_host_has(target: SSHTarget) -> None:
    report = doctor(target)
    assert report.usable
    assert report.check("connectivity").status == "ok"
    assert report.check("host key").status == "ok"
    assert report.check("work dir").value == target.work_dir
    assert report.check("python3").value == _python_version()
    assert report.check("sudo").status == "info"
    has_sglang = subprocess.run(["python3", "-c", "import sglang"], capture_output=True).returncode == 0
    assert report.check("sglang").status == ("ok" if has_sglang else "missing")
    expected_smi = "missing" if shutil.which("nvidia-smi") is None else "ok"
    assert report.check("nvidia-smi").status in (expected_smi, "fail")
    assert f"opsagent doctor: {target.describe()}" in report.render()


def test_doctor_works_on_any_target(tmp_path: Path) -> None:
    report = doctor(LocalTarget(str(tmp_path / "work")))
    assert report.usable
    assert report.check("host key").status == "info"


def test_cli_doctor_ssh_ok(sshd: SshServer, tmp_path: Path, monkeypatch: object) -> None:
    # The CLI uses the operator's ~/.ssh files; point HOME at a copy that trusts the test server.
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    shutil.copy(sshd.known_hosts, home / ".ssh" / "known_hosts")
    result = CliRunner().invoke(
        app,
        ["--target", sshd.url, "--identity", str(sshd.user_key), "--json"],
        env={"HOME": str(home), "SSH_AUTH_SOCK": ""},
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["usable"] is True
    names = {c["name"]: c for c in data["checks"]}
    assert names["python3"]["value"] == _python_version()


def test_cli_doctor_unknown_host_key_fails_with_advice(sshd: SshServer, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    result = CliRunner().invoke(
        app,
        ["--target", sshd.url, "--identity", str(sshd.user_key)],
        env={"HOME": str(home), "SSH_AUTH_SOCK": ""},
    )
    assert result.exit_code == 1
    assert "FAIL" in result.output and "unknown host key" in result.output
    assert f"ssh-keyscan -p {sshd.port}" in result.output


def test_cli_doctor_accept_new_host_key_prints_fingerprint(sshd: SshServer, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    result = CliRunner().invoke(
        app,
        ["--target", sshd.url, "--identity", str(sshd.user_key), "--accept-new-host-key"],
        env={"HOME": str(home), "SSH_AUTH_SOCK": ""},
    )
    assert result.exit_code == 0, result.output
    assert "SHA256:" in result.output
    assert (home / ".ssh" / "known_hosts").read_text().startswith(f"[127.0.0.1]:{sshd.port} ssh-ed25519 ")


def test_cli_doctor_unreachable(tmp_path: Path) -> None:
    from tests.sshd_fixture import free_port

    port = free_port()
    result = CliRunner().invoke(app, ["--target", f"ssh://nobody@127.0.0.1:{port}"], env={"HOME": str(tmp_path)})
    assert result.exit_code == 1
    assert f"127.0.0.1:{port}" in result.output


def test_cli_doctor_local() -> None:
    assert sys.executable
    result = CliRunner().invoke(app, ["--target", "local"])
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    has_gpus = shutil.which("nvidia-smi") is not None
    has_sglang = subprocess.run(["python3", "-c", "import sglang"], capture_output=True).returncode == 0
    if has_gpus and has_sglang:
        assert last == "usable: yes, for GPU serving with SGLang"
    else:  # never a bare "usable: yes" on a host without a driver or SGLang
        assert last.startswith("usable: for commands only: no ")
        assert ("GPUs" in last) != has_gpus and ("SGLang" in last) != has_sglang
    assert "usable for: commands yes; GPUs " in result.output


def test_doctor_says_what_a_lab_host_is_usable_for() -> None:
    result = CliRunner().invoke(app, ["--target", "lab:healthy-host", "--json"])
    assert result.exit_code == 0, result.output
    uses = json.loads(result.output)["usable_for"]
    assert uses["commands"] == "yes" and uses["GPUs"] == "yes" and uses["SGLang"] == "yes"
