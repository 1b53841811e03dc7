"""Every planner config composes and builds; a bad config fails before any work, naming the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from experiments.run import CONF_DIR
from planners import PLANNER_KINDS, OpenAICompatPlanner, OpenAIConfig, build_planner

PLANNER_DIR = Path(CONF_DIR) / "planner"
MODELS = {  # config -> (HF id, vLLM tool-call parser, chat template)
    "qwen2_5_7b": ("Qwen/Qwen2.5-7B-Instruct", "hermes", None),
    "qwen3_8b": ("Qwen/Qwen3-8B", "hermes", None),
    "llama31_8b": ("meta-llama/Llama-3.1-8B-Instruct", "llama3_json",
                   "examples/tool_chat_template_llama3.1_json.jinja"),
    "mistral_7b": ("mistralai/Mistral-7B-Instruct-v0.3", "mistral", "examples/tool_chat_template_mistral.jinja"),
    "gpt_oss_20b": ("openai/gpt-oss-20b", "openai", None),
}


def planner_config(name: str, *overrides: str) -> dict[str, Any]:
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=[f"planner={name}", "seed=11", *overrides])
    return OmegaConf.to_container(cfg.planner, resolve=True)  # type: ignore[return-value]


def test_every_config_file_has_a_known_kind() -> None:
    names = sorted(p.stem for p in PLANNER_DIR.glob("*.yaml"))
    assert set(MODELS) | {"oracle", "noop", "noisy_oracle", "replay"} <= set(names)
    for name in names:
        assert planner_config(name)["kind"] in PLANNER_KINDS


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_configs(name: str) -> None:
    config = planner_config(name)
    model, parser, template = MODELS[name]
    assert config["name"] == name and config["model"] == model and config["base_url"] is None
    assert config["vllm"]["tool_call_parser"] == parser and config["vllm"]["chat_template"] == template
    assert all(isinstance(a, str) for a in config["vllm"]["serve_args"])
    with pytest.raises(ValueError, match="planner.base_url: required for kind openai when no server is started"):
        build_planner(config)
    planner = build_planner(planner_config(name, "planner.base_url=http://127.0.0.1:8000/v1/"))
    assert isinstance(planner, OpenAICompatPlanner) and planner.name == name
    assert planner.endpoint.url == "http://127.0.0.1:8000/v1/chat/completions"
    assert planner.config.sampling["seed"] == 11 and planner.config.tool_choice == "auto"


@pytest.fixture(scope="module")
def qwen() -> dict[str, Any]:
    return planner_config("qwen2_5_7b", "planner.base_url=http://127.0.0.1:8000/v1")


@pytest.mark.faults
@pytest.mark.parametrize(("change", "message"), [
    ({"temprature": 0.1}, r"planner\.temprature: unknown key for kind openai"),
    ({"sampling": {"temprature": 0.1}}, r"planner\.sampling\.temprature: unknown key"),
    ({"timeouts": {"connect": 0, "read": 1}}, r"planner\.timeouts\.connect: must be a number > 0"),
    ({"retries": {"max": -1}}, r"planner\.retries\.max: must be an integer >= 0"),
    ({"concurrency": 2.5}, r"planner\.concurrency: must be an integer >= 1"),
    ({"tool_choice": "any"}, r"planner\.tool_choice: one of auto, required, none"),
    ({"extra_body": {"messages": []}}, r"planner\.extra_body\.messages: set by the planner"),
    ({"extra_body": {"temperature": 1.0}}, r"planner\.extra_body\.temperature: set by the planner or"),
    ({"model": None}, r"planner\.model: required"),
    ({"base_url": "localhost:8000"}, r"planner\.base_url: required"),
])
def test_bad_openai_configs_name_the_key(qwen: dict[str, Any], change: dict[str, Any], message: str) -> None:
    config = {**qwen, **change}
    with pytest.raises(ValueError, match=message):
        build_planner(config)


def test_api_key_from_config_or_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    base = {"kind": "openai", "model": "m", "base_url": "http://127.0.0.1:1/v1"}
    monkeypatch.delenv("MOBILEPA_NO_SUCH_KEY", raising=False)
    assert OpenAIConfig.from_mapping({**base, "api_key_env": "MOBILEPA_NO_SUCH_KEY"}).api_key is None
    monkeypatch.setenv("MOBILEPA_KEY", "k-env")
    assert OpenAIConfig.from_mapping({**base, "api_key_env": "MOBILEPA_KEY"}).api_key == "k-env"
    assert OpenAIConfig.from_mapping({**base, "api_key": "k-conf", "api_key_env": "MOBILEPA_KEY"}).api_key == "k-conf"


def test_served_model_name_is_what_the_client_sends() -> None:
    config = {"kind": "openai", "model": "/models/tiny", "served_model_name": "tiny", "base_url": "http://h:1/v1"}
    assert OpenAIConfig.from_mapping(config).model == "tiny"
