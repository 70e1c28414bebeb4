"""What the state store keeps about a run (its spec and record), where state lives, and the
store's errors: shared by the SQLite store (sqlite.py) and the Postgres one (postgres.py)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

STATE_ENV = "OPSAGENT_STATE"


TRANSCRIPTS_ENV = "OPSAGENT_TRANSCRIPTS"


DRIVEN = ("queued", "running", "waiting")  # the statuses of a run that may need a driver


class StateDirError(Exception):
    """The state directory cannot be used; the message says what to do."""


class UnknownRun(KeyError):
    pass


class RunSpec(BaseModel):
    """Everything needed to rebuild a run's runtime in another process."""

    run_id: str
    goal: dict[str, Any]
    target: str
    decider: str
    model: str | None = None
    policies: list[str] = []
    loop: dict[str, Any] = Field(default_factory=dict, description="LoopConfig settings for this run")
    identity: str | None = None
    accept_new_host_key: bool = False
    seed: int = 0
    transcript: str
    scripted_operator: bool = False
    replay_from: str | None = None


class RunRecord(BaseModel):
    spec: RunSpec
    status: str
    pid: int | None
    created: float
    updated: float

    @classmethod
    def from_row(cls, spec: str, status: str, pid: int | None, created: float, updated: float) -> RunRecord:
        """A runs-table row (`RUN_COLUMNS`, in that order) as read by either backend."""
        return cls(spec=RunSpec.model_validate_json(spec), status=status, pid=pid, created=created, updated=updated)


RUN_COLUMNS = "spec, status, pid, created, updated"


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def resolve_state_dir(flag: str | None) -> Path:
    return Path(flag or os.environ.get(STATE_ENV) or ".opsagent").expanduser()


def is_database_url(state: str) -> bool:
    return state.startswith(("postgresql://", "postgres://"))


def resolve_transcripts_dir(flag: str | None) -> Path:
    return Path(flag or os.environ.get(TRANSCRIPTS_ENV) or "transcripts").expanduser()


def ensure_writable_dir(path: Path, what: str, flag: str) -> Path:
    """Create `path` or explain in one line why it cannot be used."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        # A probe of its own per process: runs started at the same moment must not remove each
        # other's probe (a shared name lost one of ten concurrent starts).
        handle, probe = tempfile.mkstemp(prefix=".write-test-", dir=path)
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        raise StateDirError(
            f"{what} {path} is not writable ({exc.strerror}); pass {flag} DIR with a directory you can write"
        ) from exc
    return path
