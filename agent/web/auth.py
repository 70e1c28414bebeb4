"""Who is asking, and over what: the session cookie, the client's address and scheme (through a
trusted proxy), and the Host names this server answers to.

A session is a row in the state store (agent.store.sessions); the cookie `opsagent_session` holds
only its random token (HttpOnly, SameSite=Strict, Path=/, and Secure when the page was served
over TLS, directly or by a proxy named with `--trusted-proxy`). Each session has its own CSRF
token, which every form carries; a POST without the right one is refused.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

COOKIE = "opsagent_session"
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")


def host_name(header: str) -> str:
    """The Host header's name without its port: `[::1]:8420` -> `::1`, `a.example:80` -> `a.example`."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


@dataclass
class Access:
    """The network rules of one server: the Host names it answers to, the proxies it believes."""

    allowed_hosts: set[str] = field(default_factory=lambda: set(LOCAL_NAMES))
    trusted_proxies: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = field(default_factory=list)

    @classmethod
    def make(cls, bind: str, hosts: Iterable[str] = (), proxies: Iterable[str] = ()) -> Access:
        """ValueError naming the proxy that is no address or network."""
        allowed = {*LOCAL_NAMES, *(host_name(h) for h in hosts)}
        if bind not in ("0.0.0.0", "::", ""):
            allowed.add(host_name(f"[{bind}]" if ":" in bind else bind))
        networks = []
        for proxy in proxies:
            try:
                networks.append(ipaddress.ip_network(proxy, strict=False))
            except ValueError:
                raise ValueError(f"--trusted-proxy {proxy!r} is not an address or network (e.g. 127.0.0.1)") from None
        return cls(allowed, networks)

    def host_allowed(self, header: str | None) -> bool:
        return bool(header) and host_name(header or "") in self.allowed_hosts

    def _via_proxy(self, request: Request) -> bool:
        peer = request.client.host if request.client else ""
        try:
            address = ipaddress.ip_address(peer)
        except ValueError:
            return False
        return any(address in net for net in self.trusted_proxies)

    def secure(self, request: Request) -> bool:
        """Served over TLS: by this server, or by a trusted proxy that says so."""
        if request.url.scheme == "https":
            return True
        return self._via_proxy(request) and request.headers.get("x-forwarded-proto", "").lower() == "https"

    def client(self, request: Request) -> str:
        """The client's address: the proxy's word for it when the peer is a trusted proxy."""
        peer = request.client.host if request.client else "unknown"
        forwarded = request.headers.get("x-forwarded-for", "")
        if forwarded and self._via_proxy(request):
            return forwarded.split(",")[-1].strip()[:64] or peer  # the hop the proxy itself saw
        return peer


def set_session_cookie(response: Response, token: str, *, secure: bool) -> None:
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/", secure=secure)


def check_csrf(expected: str, token: str | None) -> bool:
    return bool(token) and hmac.compare_digest(str(token), expected)
