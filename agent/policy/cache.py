"""A per-user cache of validated policy files, so a command starts without composing YAML.

Composing and validating `policies/default.yaml` costs far more than a judgement; every
`opsagent policy check` and every run paid it. A file's validated `PolicyFile` is kept under
`$XDG_CACHE_HOME/opsagent/policy/` (default `~/.cache`), keyed by the file's bytes and by the
source of the modules that decide what a file means (schema, loader, facts), so an edit to
either is a miss, never a stale hit. `OPSAGENT_CACHE=off` turns it off; `OPSAGENT_CACHE=DIR`
moves it.

The entries are pickles, so the directory is trusted only when it belongs to this user and no
one else can write to it; otherwise the cache is skipped (loading still works, just slower).
Any unreadable or foreign entry is a miss. Writes are atomic (temp file, then rename), so
concurrent starts never read half an entry.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import tempfile
from functools import cache
from pathlib import Path

from agent.policy.model import PolicyFile

CACHE_ENV = "OPSAGENT_CACHE"
_SHAPERS = ("model.py", "loader.py", "facts.py", "cache.py")


@cache
def code_version() -> str:
    """What decides a file's meaning besides its bytes: these modules' source and pydantic's version."""
    import pydantic

    digest = hashlib.sha256(pydantic.VERSION.encode())
    here = Path(__file__).resolve().parent
    for name in _SHAPERS:
        digest.update((here / name).read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path | None:
    setting = os.environ.get(CACHE_ENV, "")
    if setting.lower() in ("off", "0", "no", "false"):
        return None
    if setting:
        return Path(setting).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "opsagent" / "policy"


def _trusted(directory: Path) -> bool:
    try:
        info = directory.stat()
    except OSError:
        return False
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _entry(raw: bytes) -> Path | None:
    directory = cache_dir()
    if directory is None:
        return None
    key = hashlib.sha256(code_version().encode() + b"\0" + raw).hexdigest()
    return directory / f"{key}.pickle"


def cached(raw: bytes) -> PolicyFile | None:
    entry = _entry(raw)
    if entry is None or not _trusted(entry.parent):
        return None
    try:
        with entry.open("rb") as handle:
            value = pickle.load(handle)
    except Exception:  # a missing, truncated or foreign entry is a miss: the file is loaded afresh
        return None
    return value if isinstance(value, PolicyFile) else None


def remember(raw: bytes, policy: PolicyFile) -> None:
    entry = _entry(raw)
    if entry is None:
        return
    try:
        entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not _trusted(entry.parent):
            return
        handle, temp = tempfile.mkstemp(prefix=".entry-", dir=entry.parent)
    except OSError:
        return  # a read-only cache directory only costs speed
    try:
        with os.fdopen(handle, "wb") as out:
            pickle.dump(policy, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temp, entry)
    except OSError:
        Path(temp).unlink(missing_ok=True)  # a full disk only costs speed
