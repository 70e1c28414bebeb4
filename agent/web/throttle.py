"""Sign-in throttling for `opsagent serve`: failed sign-ins counted per account and per address
in a moving window (the `limits` library, in this process's memory).

Over either limit, a sign-in is refused before its password is checked, with how long to wait,
whether the password is right or not and whether the account exists or not: the answer and its
time say nothing about the account. A sign-in that succeeds clears its account's count, not its
address's (one address guessing at many accounts stays throttled).
"""

from __future__ import annotations

import logging
import time

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

PER_ACCOUNT = "5/5 minutes"
PER_ADDRESS = "20/5 minutes"

log = logging.getLogger("opsagent.web")


class SignInThrottle:
    def __init__(self, per_account: str = PER_ACCOUNT, per_address: str = PER_ADDRESS) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self.account: RateLimitItem = parse(per_account)
        self.address: RateLimitItem = parse(per_address)

    def _keys(self, name: str, address: str) -> list[tuple[RateLimitItem, str, str]]:
        # names of unknown accounts are counted the same way: refusing only real ones would tell
        return [(self.account, "account", name.lower()[:64]), (self.address, "address", address)]

    def wait_s(self, name: str, address: str) -> int:
        """Seconds before this name may try again from this address; 0 when it may now."""
        waits = [0]
        for item, kind, key in self._keys(name, address):
            if not self._limiter.test(item, kind, key):
                reset, _ = self._limiter.get_window_stats(item, kind, key)
                waits.append(max(1, int(reset - time.time()) + 1))
        return max(waits)

    def failed(self, name: str, address: str) -> None:
        for item, kind, key in self._keys(name, address):
            self._limiter.hit(item, kind, key)

    def succeeded(self, name: str) -> None:
        self._limiter.clear(self.account, "account", name.lower()[:64])


def log_refused(name: str, address: str, wait_s: int) -> None:
    log.warning("sign-in throttled: account %r from %s: too many failed sign-ins; refused for %d s", name, address,
                wait_s)  # fmt: skip
