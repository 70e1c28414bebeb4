"""Leases: each run is driven by exactly one process at a time.

A lease is a row in the store (run id, owner, expiry). The process that drives a run (`opsagent
run`, `resume`, a worker) claims it first and renews it from a background thread while it
drives; when the process dies the renewals stop and the lease lapses, and a worker may take the
run over (agent.loop.worker). A holder on this machine whose process is gone is known dead at once,
so its lease is taken over without waiting for it to lapse; on another machine only the expiry
tells.

Owners are named `host:pid:nonce`.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
from typing import Any

from agent.store.records import process_alive
from agent.store.sqlite import Store

LEASE_ENV = "OPSAGENT_LEASE_S"
DEFAULT_TTL_S = 15.0


def lease_ttl() -> float:
    try:
        return max(0.5, float(os.environ.get(LEASE_ENV, DEFAULT_TTL_S)))
    except ValueError:
        return DEFAULT_TTL_S


def new_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def holder_pid(holder: str) -> int | None:
    """The pid of a holder on this machine; None when it runs elsewhere (or the name is odd)."""
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    return int(pid) if host == socket.gethostname() and pid.isdigit() else None


def holder_is_dead(holder: str) -> bool:
    pid = holder_pid(holder)
    return pid is not None and not process_alive(pid)


def live_holder(store: Store, run_id: str) -> str | None:
    """Who drives the run now: the holder of its unexpired lease, unless known dead."""
    holder = store.lease_holder(run_id)
    return None if holder is None or holder_is_dead(holder) else holder


def claim(store: Store, run_id: str, owner: str, ttl_s: float | None = None) -> bool:
    holder = store.lease_holder(run_id)
    dead = holder if holder is not None and holder_is_dead(holder) else None
    return store.claim_lease(run_id, owner, ttl_s or lease_ttl(), steal_from=dead)


class Heartbeat:
    """Renews a held lease every third of its time to live until stopped; `lost` is set when
    another process took the run (this one stalled past the expiry)."""

    def __init__(self, store: Store, run_id: str, owner: str, ttl_s: float | None = None) -> None:
        self.store, self.run_id, self.owner = store, run_id, owner
        self.ttl_s = ttl_s or lease_ttl()
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"lease-{run_id}", daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.store.release_lease(self.run_id, self.owner)

    def _beat(self) -> None:
        while not self._stop.wait(self.ttl_s / 3):
            try:
                if not self.store.renew_lease(self.run_id, self.owner, self.ttl_s):
                    self.lost.set()
                    return
            except Exception:  # the database away for a moment: the next beat tries again
                continue
