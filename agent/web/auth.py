"""Sign-in sessions and CSRF tokens for `opsagent serve`, with nothing but the standard library.

A session is a cookie `opsagent_session` holding the user's name, a random session id and an
expiry, signed with HMAC-SHA256 (HttpOnly, SameSite=Strict, Path=/). The signing key comes from
`OPSAGENT_WEB_SECRET` (several servers behind one address share it) or is random per process
(a restart signs everyone out). The CSRF token of a session is an HMAC of its id under the same
key: every form carries it, and a POST without the right one is refused.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import time
from dataclasses import dataclass

COOKIE = "opsagent_session"
SECRET_ENV = "OPSAGENT_WEB_SECRET"
SESSION_S = 12 * 3600


@dataclass(frozen=True)
class Session:
    user: str
    sid: str
    expires: float


class Signer:
    def __init__(self, key: bytes | None = None) -> None:
        env = os.environ.get(SECRET_ENV)
        self.key = key or (env.encode() if env else secrets.token_bytes(32))

    def _mac(self, data: bytes) -> str:
        return base64.urlsafe_b64encode(hmac.new(self.key, data, hashlib.sha256).digest()).decode().rstrip("=")

    def issue(self, user: str, now: float | None = None) -> str:
        body = json.dumps({"u": user, "s": secrets.token_urlsafe(16), "e": (now or time.time()) + SESSION_S})
        data = base64.urlsafe_b64encode(body.encode()).decode().rstrip("=")
        return f"{data}.{self._mac(data.encode())}"

    def read(self, cookie: str | None, now: float | None = None) -> Session | None:
        """The session a cookie holds, or None when it is missing, forged or expired."""
        if not cookie or "." not in cookie:
            return None
        data, mac = cookie.rsplit(".", 1)
        if not hmac.compare_digest(mac, self._mac(data.encode())):
            return None
        try:
            body = json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
            session = Session(user=str(body["u"]), sid=str(body["s"]), expires=float(body["e"]))
        except (ValueError, KeyError, TypeError):
            return None
        return session if session.expires > (now or time.time()) else None

    def csrf(self, session: Session) -> str:
        return self._mac(b"csrf:" + session.sid.encode())

    def check_csrf(self, session: Session, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(str(token), self.csrf(session))
