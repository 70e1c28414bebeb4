"""Where the llm decider's settings come from: flags, environment, a profile in the config file."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.deciders.llm import LLMDecider
from agent.llm_config import PLACEHOLDER_KEY, LLMConfigError, load_llm_settings

CONFIG = """
default_profile: local
profiles:
  local:
    base_url: http://127.0.0.1:30000/v1
    model: qwen3-32b
    timeout_s: 30
    max_retries: 5
    json_mode: true
    budget_tokens: 100000
    budget_usd: 2.5
    price_per_1k_prompt: 0.001
    price_per_1k_completion: 0.002
  hosted:
    model: gpt-x
    api_key_env: HOSTED_KEY
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(CONFIG)
    return path


def test_default_profile_supplies_everything(config: Path) -> None:
    s = load_llm_settings(env={}, config_path=config)
    assert (s.model, s.base_url, s.profile) == ("qwen3-32b", "http://127.0.0.1:30000/v1", "local")
    assert (s.timeout_s, s.max_retries, s.json_mode) == (30, 5, True)
    assert (s.budget_tokens, s.budget_usd) == (100000, 2.5)
    assert s.api_key == PLACEHOLDER_KEY  # a local server needs no key
    assert s.cost_usd(1000, 1000) == pytest.approx(0.003)


def test_flags_beat_environment_beat_profile(config: Path) -> None:
    env = {
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "OPENAI_API_KEY": "env-key",
        "OPSAGENT_MODEL": "env-model",
    }
    s = load_llm_settings(env=env, config_path=config)
    assert (s.model, s.base_url, s.api_key) == ("env-model", "http://127.0.0.1:9/v1", "env-key")
    s = load_llm_settings(model="flag-model", base_url="http://127.0.0.1:8/v1", env=env, config_path=config)
    assert (s.model, s.base_url) == ("flag-model", "http://127.0.0.1:8/v1")
    assert s.timeout_s == 30  # still from the profile


def test_config_file_from_opsagent_config(config: Path) -> None:
    s = load_llm_settings(env={"OPSAGENT_CONFIG": str(config), "OPSAGENT_PROFILE": "hosted", "HOSTED_KEY": "k"})
    assert (s.model, s.api_key, s.base_url) == ("gpt-x", "k", None)


def test_profile_key_variable_must_be_set(config: Path) -> None:
    with pytest.raises(LLMConfigError, match=r"\$HOSTED_KEY, which is not set"):
        load_llm_settings(profile="hosted", env={}, config_path=config)


def test_unknown_profile_names_the_known_ones(config: Path) -> None:
    with pytest.raises(LLMConfigError, match=r"'nope' is not in .*hosted, local"):
        load_llm_settings(profile="nope", env={}, config_path=config)


def test_no_model_anywhere_says_how_to_configure_one(tmp_path: Path) -> None:
    with pytest.raises(LLMConfigError, match=r"no model configured.*--model.*OPSAGENT_MODEL.*runbook"):
        load_llm_settings(env={}, config_path=tmp_path / "missing.yaml")


def test_default_endpoint_needs_a_key(tmp_path: Path) -> None:
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        load_llm_settings(model="gpt-x", env={}, config_path=tmp_path / "missing.yaml")


def test_broken_config_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("profiles:\n  local:\n    modle: typo\n")
    with pytest.raises(LLMConfigError, match=r"config.yaml: profiles.local.modle: Extra inputs"):
        load_llm_settings(env={}, config_path=path)
    path.write_text("profiles: [unclosed\n")
    with pytest.raises(LLMConfigError, match="not valid YAML"):
        load_llm_settings(env={}, config_path=path)


def test_from_settings_builds_a_decider_without_network(config: Path) -> None:
    decider = LLMDecider.from_settings(model="m", env={}, config_path=config)
    assert decider.settings.model == "m"
    assert decider.json_mode is True
    assert decider.client.max_retries == 0  # tenacity owns retries
