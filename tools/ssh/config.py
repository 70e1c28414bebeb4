"""Where to connect: `ssh://` URLs, `SSHOptions`, and `~/.ssh/config` resolution.

`ssh://NAME` works for any `Host NAME` in the operator's ssh config, as with OpenSSH: HostName,
User, Port, IdentityFile, ProxyJump, UserKnownHostsFile and ConnectTimeout are honoured. What the
URL or the options name explicitly wins over the config file.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import paramiko

from tools.sandbox import SandboxSpec

DEFAULT_PORT = 22
DEFAULT_KEY_NAMES = ("id_ed25519", "id_ecdsa", "id_rsa")


@dataclass(frozen=True)
class SSHOptions:
    """How to connect. Paths default to the operator's own (`~/.ssh/...`)."""

    identity: Path | None = None
    known_hosts: Path | None = None
    ssh_config: Path | None = None
    accept_new_host_key: bool = False
    connect_timeout: float = 10.0
    keepalive_s: float = 15.0
    work_dir: str | None = None
    use_agent: bool = True
    connect_attempts: int = 4
    """Attempts per (re)connect for transient faults (refused, reset, timeout), with backoff."""
    fast_path: bool = True
    """Run short commands through the persistent shell; False sends every command down its own channel."""
    fast_path_max_timeout_s: float = 120.0
    """Commands allowed longer than this get their own exec channel instead of the shared shell."""
    sandbox: SandboxSpec | None = None
    """The sandbox commands run in (tools.sandbox); None: `require`, the default for SSH targets."""


@dataclass(frozen=True)
class SSHUrl:
    host: str
    user: str | None = None
    port: int | None = None


def parse_ssh_url(url: str) -> SSHUrl:
    """`ssh://[user@]host[:port]` (or `[user@]host[:port]` without the scheme) into its parts."""
    text = url.strip()
    if not text.startswith("ssh://"):
        if "://" in text:
            raise ValueError(f"not an ssh:// target: {url!r} (expected ssh://user@host[:port])")
        text = "ssh://" + text
    parts = urlsplit(text)
    if not parts.hostname:
        raise ValueError(f"no host in {url!r} (expected ssh://user@host[:port])")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"unexpected path or query in {url!r} (expected ssh://user@host[:port])")
    try:
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"bad port in {url!r} (expected ssh://user@host[:port]): {exc}") from exc
    user = unquote(parts.username) if parts.username else None
    # urlsplit lowercases the host; ssh config Host patterns are case-sensitive, so keep the spelling.
    netloc_host = parts.netloc.rpartition("@")[2]
    if netloc_host.startswith("["):
        host = netloc_host[1 : netloc_host.index("]")]
    else:
        host = netloc_host.rsplit(":", 1)[0] if parts.port is not None else netloc_host
    return SSHUrl(host=host, user=user, port=port)


@dataclass(frozen=True)
class ResolvedHost:
    """One hop, with everything ssh config said about it."""

    alias: str
    hostname: str
    port: int
    user: str
    identity_files: tuple[Path, ...] = ()
    proxy_jump: tuple[str, ...] = ()
    known_hosts: tuple[Path, ...] = field(default_factory=tuple)
    connect_timeout: float | None = None

    @property
    def label(self) -> str:
        return f"{self.user}@{self.hostname}:{self.port}"

    @property
    def known_hosts_name(self) -> str:
        """The name known_hosts files use for this host (OpenSSH writes `[host]:port` off port 22)."""
        return self.hostname if self.port == DEFAULT_PORT else f"[{self.hostname}]:{self.port}"


def load_ssh_config(path: Path | None) -> paramiko.SSHConfig:
    config_path = path if path is not None else Path.home() / ".ssh" / "config"
    if config_path.is_file():
        return paramiko.SSHConfig.from_path(str(config_path))
    return paramiko.SSHConfig()


def _expand(value: str) -> Path:
    return Path(os.path.expanduser(value))


def resolve(url: SSHUrl, options: SSHOptions, config: paramiko.SSHConfig, *, use_identity: bool = True) -> ResolvedHost:
    """Apply ssh config to `url`; explicit URL parts and options win over the config file."""
    entry = config.lookup(url.host)
    hostname = str(entry.get("hostname", url.host))
    port = url.port or int(entry.get("port", DEFAULT_PORT))
    user = url.user or str(entry.get("user") or getpass.getuser())
    identities: list[Path] = []
    if use_identity and options.identity is not None:
        identities.append(options.identity.expanduser())
    identities.extend(_expand(p) for p in entry.get("identityfile", []))
    jump_value = str(entry.get("proxyjump", "")).strip()
    jumps = () if jump_value.lower() in ("", "none") else tuple(j.strip() for j in jump_value.split(","))
    known: tuple[Path, ...]
    if options.known_hosts is not None:
        known = (options.known_hosts.expanduser(),)
    elif "userknownhostsfile" in entry:
        known = tuple(_expand(p) for p in str(entry["userknownhostsfile"]).split())
    else:
        known = (Path.home() / ".ssh" / "known_hosts", Path("/etc/ssh/ssh_known_hosts"))
    timeout = entry.get("connecttimeout")
    return ResolvedHost(
        alias=url.host,
        hostname=hostname,
        port=port,
        user=user,
        identity_files=tuple(dict.fromkeys(identities)),
        proxy_jump=jumps,
        known_hosts=known,
        connect_timeout=float(timeout) if timeout else None,
    )


def default_identity_files() -> list[Path]:
    """The keys OpenSSH tries when nothing names one."""
    ssh_dir = Path.home() / ".ssh"
    return [ssh_dir / name for name in DEFAULT_KEY_NAMES if (ssh_dir / name).is_file()]
