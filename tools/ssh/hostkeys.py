"""Host-key trust: keys are checked against known_hosts; unknown or changed keys are refused.

The only way past an unknown key is the operator's explicit `accept_new_host_key` flag, and then
the key is appended to the first known_hosts file and its fingerprint returned for the
transcript. A changed key is refused even with the flag, as OpenSSH's `accept-new` does.
"""

from __future__ import annotations

import contextlib
import shlex
from dataclasses import dataclass
from pathlib import Path

import paramiko

from tools.ssh.config import DEFAULT_PORT, ResolvedHost
from tools.target import TargetAuthError


@dataclass(frozen=True)
class HostKeyEvent:
    host: str
    key_type: str
    fingerprint: str
    known_hosts: str

    def as_dict(self) -> dict[str, str]:
        return {
            "host": self.host,
            "key_type": self.key_type,
            "fingerprint": self.fingerprint,
            "known_hosts": self.known_hosts,
        }


def _keyscan_advice(host: ResolvedHost, key_type: str, known_hosts: Path) -> str:
    port = f"-p {host.port} " if host.port != DEFAULT_PORT else ""
    return f"ssh-keyscan {port}-t {key_type} {shlex.quote(host.hostname)} >> {shlex.quote(str(known_hosts))}"


def load_known(paths: tuple[Path, ...]) -> paramiko.HostKeys:
    keys = paramiko.HostKeys()
    for path in paths:
        if path.is_file():
            # A malformed line in someone's known_hosts must not hide the good ones.
            with contextlib.suppress(OSError):
                keys.load(str(path))
    return keys


def prefer_known_key_types(transport: paramiko.Transport, host: ResolvedHost) -> None:
    """Ask the server for a key type we already trust, so a host with several keys matches."""
    known = load_known(host.known_hosts).lookup(host.known_hosts_name)
    if not known:
        return
    options = transport.get_security_options()
    wanted: list[str] = []
    for key_type in known:
        if key_type == "ssh-rsa":
            wanted.extend(t for t in ("rsa-sha2-512", "rsa-sha2-256") if t in options.key_types)
        if key_type in options.key_types:
            wanted.append(key_type)
    if wanted:
        options.key_types = tuple(dict.fromkeys([*wanted, *options.key_types]))


def verify(host: ResolvedHost, key: paramiko.PKey, accept_new: bool) -> HostKeyEvent | None:
    """Raise TargetAuthError unless `key` is the one known_hosts has for `host`.

    Returns the event to record when an unknown key was accepted because of the explicit flag.
    """
    name = host.known_hosts_name
    known = load_known(host.known_hosts).lookup(name)
    offered = f"{key.get_name()} {key.fingerprint}"
    first_file = host.known_hosts[0]
    if known:
        expected = known.get(key.get_name())
        if expected is not None and expected == key:
            return None
        if expected is None and key.get_name().startswith("rsa-sha2") and known.get("ssh-rsa") == key:
            return None
        old = ", ".join(f"{k.get_name()} {k.fingerprint}" for k in known.values())
        raise TargetAuthError(
            f"HOST KEY CHANGED for {name}: known_hosts has {old}, but the server offered {offered}. "
            "Someone may be intercepting the connection, or the host was reinstalled. Refusing to "
            "connect (accept_new_host_key never replaces a known key). After verifying the new "
            "fingerprint with the host's owner, replace the entry: "
            f"ssh-keygen -R {shlex.quote(name)} -f {shlex.quote(str(first_file))} && "
            f"{_keyscan_advice(host, key.get_name(), first_file)}"
        )
    if not accept_new:
        raise TargetAuthError(
            f"unknown host key for {name}: the server offered {offered}, which is in none of "
            f"{', '.join(str(p) for p in host.known_hosts)}. Verify the fingerprint with the host's "
            f"owner, then trust it with: {_keyscan_advice(host, key.get_name(), first_file)} "
            "(or pass --accept-new-host-key to trust it on first use; the fingerprint is written to "
            "the transcript)."
        )
    _append(first_file, name, key)
    return HostKeyEvent(host=name, key_type=key.get_name(), fingerprint=key.fingerprint, known_hosts=str(first_file))


def _append(path: Path, name: str, key: paramiko.PKey) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        existing = path.read_bytes() if path.exists() else b""
        with path.open("a") as handle:
            if existing and not existing.endswith(b"\n"):
                handle.write("\n")
            handle.write(f"{name} {key.get_name()} {key.get_base64()}\n")
    except OSError as exc:
        raise TargetAuthError(f"accepted host key for {name} but could not record it in {path}: {exc}") from exc
