"""Settings for the `llm` decider: which endpoint, which model, which key, which limits.

Each setting comes from the first of these that has it:

1. the command line (`--model`, and the `base_url` / `api_key` / `profile` arguments of
   `load_llm_settings`);
2. the environment: `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `OPSAGENT_MODEL`, `OPSAGENT_PROFILE`;
3. a profile in the config file (`OPSAGENT_CONFIG`, else `~/.config/opsagent/config.yaml`):

    default_profile: local          # used when no profile is named
    profiles:
      local:
        base_url: http://127.0.0.1:30000/v1
        model: qwen3-32b
        api_key_env: LOCAL_LLM_KEY  # the name of the variable holding the key, never the key
        timeout_s: 60
        max_retries: 3
        json_mode: false            # true for servers whose tool-call parsing is unreliable
        budget_tokens: 2000000
        budget_usd: 5.0
        price_per_1k_prompt: 0.0
        price_per_1k_completion: 0.0

A key is only required when no `base_url` is given (api.openai.com needs one); local
OpenAI-compatible servers (SGLang, vLLM) usually accept any key, so a placeholder is sent.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

PLACEHOLDER_KEY = "not-needed"


class LLMConfigError(ValueError):
    """The model endpoint is not configured well enough to start; the message says how to fix it."""


class LLMProfile(BaseModel):
    """One profile of the config file, as written there (every field optional)."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    timeout_s: float | None = Field(default=None, gt=0)
    max_retries: int | None = Field(default=None, ge=0)
    json_mode: bool | None = None
    budget_tokens: int | None = Field(default=None, gt=0)
    budget_usd: float | None = Field(default=None, gt=0)
    price_per_1k_prompt: float | None = Field(default=None, ge=0)
    price_per_1k_completion: float | None = Field(default=None, ge=0)


class LLMConfigFile(BaseModel):
    model_config = ConfigDict(extra="allow")  # the file may hold other sections later

    default_profile: str | None = None
    profiles: dict[str, LLMProfile] = {}


class LLMSettings(BaseModel):
    """Everything the `llm` decider needs to talk to its endpoint, resolved."""

    model: str
    base_url: str | None = None
    api_key: str = Field(default=PLACEHOLDER_KEY, repr=False)
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=3, ge=0, description="retries after the first try, per call")
    retry_wait_s: float = Field(default=1.0, ge=0, description="first backoff wait; doubles per retry")
    retry_wait_max_s: float = Field(default=30.0, ge=0, description="cap on any wait, Retry-After included")
    json_mode: bool = False
    budget_tokens: int | None = Field(default=None, gt=0)
    budget_usd: float | None = Field(default=None, gt=0)
    price_per_1k_prompt: float = Field(default=0.0, ge=0)
    price_per_1k_completion: float = Field(default=0.0, ge=0)
    profile: str | None = None

    def cost_usd(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.price_per_1k_prompt + completion_tokens * self.price_per_1k_completion) / 1000.0


def default_config_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("OPSAGENT_CONFIG"):
        return Path(env["OPSAGENT_CONFIG"]).expanduser()
    return Path("~/.config/opsagent/config.yaml").expanduser()


def read_config_file(path: Path) -> LLMConfigFile:
    """The config file parsed; a missing file is an empty config, a broken one an error."""
    if not path.exists():
        return LLMConfigFile()
    try:
        raw: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise LLMConfigError(f"config file {path} is not valid YAML: {exc}") from exc
    if raw is None:
        return LLMConfigFile()
    if not isinstance(raw, dict):
        raise LLMConfigError(f"config file {path} must hold a mapping with a 'profiles' key")
    try:
        return LLMConfigFile.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise LLMConfigError(f"config file {path}: {problems}") from exc


def load_llm_settings(
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    profile: str | None = None,
    env: Mapping[str, str] | None = None,
    config_path: Path | None = None,
) -> LLMSettings:
    """Resolve the settings from flags, environment and config profile (in that order)."""
    env = os.environ if env is None else env
    path = config_path or default_config_path(env)
    config = read_config_file(path)

    profile_name = profile or env.get("OPSAGENT_PROFILE") or config.default_profile
    chosen = LLMProfile()
    if profile_name:
        if profile_name not in config.profiles:
            known = ", ".join(sorted(config.profiles)) or "none"
            raise LLMConfigError(
                f"model profile {profile_name!r} is not in {path} (profiles there: {known}); "
                "add it under 'profiles:' or name another with --profile"
            )
        chosen = config.profiles[profile_name]
    elif len(config.profiles) == 1:
        profile_name, chosen = next(iter(config.profiles.items()))

    resolved_model = model or env.get("OPSAGENT_MODEL") or chosen.model
    if not resolved_model:
        raise LLMConfigError(
            "no model configured for the llm decider: pass --model NAME, set OPSAGENT_MODEL, or add "
            f"a profile with 'model:' to {path} (see agent/llm_config.py); "
            "or use --decider runbook, which needs no model"
        )
    resolved_url = base_url or env.get("OPENAI_BASE_URL") or chosen.base_url

    key = api_key
    if key is None and chosen.api_key_env:
        key = env.get(chosen.api_key_env)
        if not key:
            raise LLMConfigError(
                f"profile {profile_name!r} reads its API key from ${chosen.api_key_env}, which is not set"
            )
    if key is None:
        key = env.get("OPENAI_API_KEY")
    if not key:
        if not resolved_url:
            raise LLMConfigError(
                "no API key for the default OpenAI endpoint: set OPENAI_API_KEY, or point "
                "OPENAI_BASE_URL (or a profile's base_url) at an OpenAI-compatible server"
            )
        key = PLACEHOLDER_KEY

    fields: dict[str, Any] = {
        "model": resolved_model,
        "base_url": resolved_url,
        "api_key": key,
        "profile": profile_name,
    }
    for name in (
        "timeout_s",
        "max_retries",
        "json_mode",
        "budget_tokens",
        "budget_usd",
        "price_per_1k_prompt",
        "price_per_1k_completion",
    ):
        value = getattr(chosen, name)
        if value is not None:
            fields[name] = value
    return LLMSettings(**fields)
