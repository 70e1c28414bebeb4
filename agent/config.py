"""Thresholds of the loop: when to stop and ask. Defaults suit a long deployment session.

They can be set in the `loop:` section of the config file (`OPSAGENT_CONFIG`, else
`~/.config/opsagent/config.yaml`, the file that also holds the model profiles):

    loop:
      confidence_threshold: 0.6   # ask when the decider is less sure than this
      question_ttl_s: 3600        # an unanswered question turns into deny after an hour
      max_steps: 100              # budget checkpoint
      max_launches: 8             # server launches before the runbook asks to go on

Flags on the command line (`--max-steps`, `--question-ttl`) win over the file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError


class LoopConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_steps: int = Field(default=200, description="budget checkpoint: ask after this many actions")
    max_wall_s: float = Field(default=8 * 3600, description="budget checkpoint on the target's clock")
    confidence_threshold: float = Field(default=0.5, description="ask when the decider is less sure")
    max_launches: int = Field(
        default=8,
        ge=1,
        description="server launches the runbook makes before it asks (a 'continue' grants as many more)",
    )
    same_failure_limit: int = Field(default=3, description="ask after this many launches fail the same way")
    no_gain_steps: int = Field(default=25, description="ask when the goal metric has not improved for this long")
    denial_limit: int = Field(default=3, description="ask after this many policy denials in a row")
    continue_grant_steps: int = Field(
        default=10, description="a plain 'continue' after a stall lets the agent work this many steps unasked"
    )
    question_ttl_s: float = Field(default=24 * 3600, description="an unanswered question expires into deny")
    hear_with_model: bool = Field(
        default=True,
        description="a configured model also reads replies the grammar missed (checked, then asked back); "
        "no model configured, the grammar alone reads",
    )


class LoopConfigError(ValueError):
    """The loop section of the config file is wrong; the message names the field."""


def load_loop_config(overrides: Mapping[str, Any], env: Mapping[str, str] | None = None) -> LoopConfig:
    """The config file's `loop:` section with `overrides` (flags) on top."""
    env = os.environ if env is None else env
    path = Path(env["OPSAGENT_CONFIG"]).expanduser() if env.get("OPSAGENT_CONFIG") else None
    path = path or Path(env.get("HOME", "~")).expanduser() / ".config" / "opsagent" / "config.yaml"
    section: Any = {}
    if path.exists():
        try:
            section = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("loop") or {}
        except (yaml.YAMLError, AttributeError) as exc:
            raise LoopConfigError(f"config file {path}: cannot read its 'loop' section ({exc})") from exc
    if not isinstance(section, dict):
        raise LoopConfigError(f"config file {path}: 'loop' must be a mapping of settings")
    try:
        return LoopConfig.model_validate({**section, **{k: v for k, v in overrides.items() if v is not None}})
    except ValidationError as exc:
        problems = "; ".join(f"loop.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise LoopConfigError(f"config file {path}: {problems}") from exc
