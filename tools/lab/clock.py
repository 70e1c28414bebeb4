"""The lab's virtual clock: simulated seconds since the scenario started, never wall time."""

from __future__ import annotations

from datetime import datetime, timedelta


class VirtualClock:
    """Monotonic simulated time. `now()` is seconds since `epoch`; nothing here sleeps."""

    def __init__(self, epoch: datetime) -> None:
        self._epoch = epoch
        self._elapsed = 0.0

    @property
    def epoch(self) -> datetime:
        return self._epoch

    def now(self) -> float:
        """Simulated seconds since the scenario started."""
        return self._elapsed

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError(f"the virtual clock only moves forward (asked for {seconds} s)")
        self._elapsed += seconds
        return self._elapsed

    def restore(self, t: float) -> None:
        """Go back to `t`: only for a detached command the lab evaluates eagerly (its own time
        passes in the background, not on the agent's clock)."""
        self._elapsed = t

    def datetime_at(self, t: float) -> datetime:
        return self._epoch + timedelta(seconds=t)

    def timestamp(self, t: float) -> float:
        """POSIX time of simulated second `t` (used as file mtimes)."""
        return self.datetime_at(t).timestamp()

    def stamp(self, t: float, fmt: str = "%Y-%m-%d %H:%M:%S") -> str:
        return self.datetime_at(t).strftime(fmt)
