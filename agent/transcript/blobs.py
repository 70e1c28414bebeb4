"""Large strings stored once, content-addressed, beside the transcript: `<dir>/blobs/<sha256>`.

The payload keeps a small reference in their place (`{"$blob": sha, "size": n, "head": ..., "tail":
...}`) so the transcript stays readable; the head and tail are there for a human skimming it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Final

from agent.transcript.record import TranscriptRecord
from agent.transcript.schema import BLOB_KEY

BLOB_THRESHOLD: Final = 8 * 1024
"""Strings longer than this many UTF-8 bytes go to a blob."""
PREVIEW_CHARS: Final = 400


class BlobStore:
    def __init__(self, directory: Path, *, fsync: bool = True, record: TranscriptRecord | None = None) -> None:
        self.directory = directory
        self.fsync = fsync
        self.record = record  # a team's database keeps every blob too (agent.transcript.record)

    def path_for(self, digest: str) -> Path:
        return self.directory / digest

    def put(self, data: bytes) -> str:
        """Store `data` once (write to a temporary name, fsync, rename) and return its SHA-256."""
        digest = hashlib.sha256(data).hexdigest()
        if self.record is not None:
            self.record.put_blob(digest, data)
        final = self.path_for(digest)
        if final.exists():
            return digest
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = final.with_name(f".{digest}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
            if self.fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, final)
        return digest

    def get(self, digest: str) -> bytes:
        path = self.path_for(digest)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise FileNotFoundError(
                f"blob {digest} is missing: expected {path} beside the transcript; "
                "copy the transcript's blobs/ folder along with it"
            ) from None

    def externalise(self, obj: Any, threshold: int = BLOB_THRESHOLD) -> tuple[Any, list[str]]:
        """A copy of `obj` with every string over `threshold` bytes replaced by a blob reference."""
        digests: list[str] = []
        return self._walk(obj, threshold, digests), digests

    def _walk(self, obj: Any, threshold: int, digests: list[str]) -> Any:
        if isinstance(obj, str):
            if len(obj) * 4 <= threshold:  # cannot exceed the limit; skip encoding
                return obj
            data = obj.encode("utf-8", "surrogatepass")
            if len(data) <= threshold:
                return obj
            digest = self.put(data)
            if digest not in digests:
                digests.append(digest)
            return {
                BLOB_KEY: digest,
                "size": len(data),
                "head": obj[:PREVIEW_CHARS],
                "tail": obj[-PREVIEW_CHARS:],
            }
        if isinstance(obj, dict):
            return {k: self._walk(v, threshold, digests) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self._walk(v, threshold, digests) for v in obj]
        return obj

    def inline(self, obj: Any) -> Any:
        """The inverse of `externalise`: blob references replaced by their text (for rerun and export)."""
        if isinstance(obj, dict):
            if is_blob_ref(obj):
                return self.get(obj[BLOB_KEY]).decode("utf-8", "surrogatepass")
            return {k: self.inline(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.inline(v) for v in obj]
        return obj


def is_blob_ref(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get(BLOB_KEY), str)


def blob_dir_for(transcript: Path) -> Path:
    return transcript.parent / "blobs"
