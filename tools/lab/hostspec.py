"""Schema parts for the ways a GPU host breaks (SCHEMA.md, "Broken hosts"): a GPU's health, the
host's filesystems, /dev/shm, NVML and host RAM. Data only (pydantic models, no lab imports), so
scenario.py can hold them and the physics modules can read them without import cycles.

Every default changes nothing: a scenario that says none of this behaves exactly as before.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Phase = Literal["init", "load", "kv_cache", "cuda_graph", "warmup", "serving"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class FallOff(_Strict):
    """The GPU falls off the bus while a launch that uses it is in `phase` (Xid 79)."""

    phase: Phase = "load"
    after_s: float = Field(default=0.0, ge=0, description="Seconds into the phase.")


class Throttle(_Strict):
    """A GPU whose clocks are held down under load (a failed fan, a power brake)."""

    reason: Literal["hw_thermal", "sw_thermal", "hw_power_brake", "sw_power_cap"] = "hw_thermal"
    factor: float = Field(default=0.5, gt=0, le=1, description="SM clock and throughput while busy.")
    temp_c: int = Field(default=94, description="Temperature under load (idle: 20 C less).")


class Mig(_Strict):
    """MIG mode on, with these GPU instances (profiles as nvidia-smi names them, e.g. 3g.71gb)."""

    instances: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _profiles(self) -> Mig:
        for name in self.instances:
            head, _, mem = name.partition(".")
            if not (head.endswith("g") and head[:-1].isdigit() and mem.endswith("gb") and mem[:-2].isdigit()):
                raise ValueError(f"MIG profile {name!r} is not like 3g.71gb")
        return self


class GpuHealth(_Strict):
    lost: bool = Field(default=False, description="Fell off the bus before the session (Xid 79 at boot).")
    falls_off_bus: FallOff | None = None
    ecc_uncorrectable: int = Field(default=0, ge=0, description="Volatile uncorrectable (DBE) ECC errors.")
    row_remap_pending: bool = Field(default=False, description="Rows waiting for a GPU reset to be remapped.")
    throttle: Throttle | None = None
    mig: Mig | None = None


class JunkFile(_Strict):
    """A file that takes space and may be deleted (an old checkpoint, a cache)."""

    path: str
    size_gb: float = Field(gt=0)


class Filesystem(_Strict):
    """A mounted filesystem with a capacity: `df` shows it, writes past it fail with ENOSPC."""

    mount: str
    size_gb: float = Field(gt=0, description="Capacity in 10^9 bytes.")
    used_gb: float = Field(ge=0, description="Used at the start, the files under it included.")
    device: str = "/dev/nvme0n1p2"
    fstype: str = "ext4"
    files: list[JunkFile] = []

    @model_validator(mode="after")
    def _fits(self) -> Filesystem:
        if self.used_gb > self.size_gb:
            raise ValueError(f"used_gb {self.used_gb:g} exceeds size_gb {self.size_gb:g}")
        for f in self.files:
            if not (f.path == self.mount or f.path.startswith(self.mount.rstrip("/") + "/")):
                raise ValueError(f"{f.path} is not under {self.mount}")
        return self


NvmlState = Literal["ok", "driver_mismatch", "no_device_access", "no_driver", "no_library"]
