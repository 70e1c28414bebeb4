"""`opsagent user add` and `opsagent serve` on bad input: one clear line, a non-zero exit, nothing
changed; and the account they make signs in."""

from __future__ import annotations

import socket
from pathlib import Path

from agent.store.sqlite import Store
from tests.web.server import Client, make_workspace, start_server


def _one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_user_add_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    unknown = ws.cli("user", "add", "carol", "--role", "boss", "--password-stdin", input="pw\n")
    assert unknown.returncode == 2 and "unknown role 'boss'" in _one_line(unknown.stderr)
    empty = ws.cli("user", "add", "carol", "--role", "operator", "--password-stdin", input="\n")
    assert empty.returncode == 2 and "empty password" in _one_line(empty.stderr)
    no_tty = ws.cli("user", "add", "carol", "--role", "operator")
    assert no_tty.returncode == 2 and "--password-stdin" in _one_line(no_tty.stderr)
    bad_name = ws.cli("user", "add", "a b", "--role", "viewer", "--password-stdin", input="pw\n")
    assert bad_name.returncode == 2 and "user name 'a b'" in _one_line(bad_name.stderr)
    bad_state = ws.cli("user", "add", "carol", "--role", "viewer", "--state", "/proc/no/such", "--password-stdin",
                       input="pw\n")  # fmt: skip
    assert bad_state.returncode != 0 and "state directory /proc/no/such" in _one_line(bad_state.stderr)
    assert [name for name, _ in Store(ws.state).list_users()] == ["alice", "victor"]  # nothing added


def test_user_add_replaces_the_password_and_stores_only_a_hash(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    assert ws.cli("user", "add", "alice", "--role", "admin", "--password-stdin", input="new-secret\n").returncode == 0
    role, stored = Store(ws.state).get_user("alice") or ("", "")
    assert role == "admin" and stored.startswith("$argon2id$") and "new-secret" not in stored
    assert b"new-secret" not in (ws.state / "opsagent.sqlite").read_bytes()
    listed = ws.cli("user", "list")
    assert listed.stdout.splitlines() == ["alice\tadmin", "victor\tviewer"]
    server = start_server(ws)
    try:
        assert Client(server.base).login("alice", "alice-pw-1").status == 401  # the old password is gone
        assert Client(server.base).login("alice", "new-secret").status == 303
    finally:
        server.stop()


def test_serve_refuses_a_port_in_use_and_a_bad_state(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        busy = ws.cli("serve", "--port", str(port), timeout=60)
    assert busy.returncode == 2 and f"port {port} on 127.0.0.1 is in use" in _one_line(busy.stderr)
    bad_port = ws.cli("serve", "--port", "70000", timeout=60)
    assert bad_port.returncode == 2 and "--port 70000" in _one_line(bad_port.stderr)
    bad_state = ws.cli("serve", "--state", "/proc/no/such", "--port", "0", timeout=60)
    assert bad_state.returncode != 0 and "state directory /proc/no/such" in _one_line(bad_state.stderr)
    bad_host = ws.cli("serve", "--host", "no-such-host.invalid", "--port", "0", timeout=60)
    assert bad_host.returncode == 2 and "--host 'no-such-host.invalid'" in _one_line(bad_host.stderr)
