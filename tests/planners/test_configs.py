"""Every planner config composes and builds; a bad config fails before any work, naming the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from experiments.commands.config import CONF_DIR
from experiments.commands.plans import load_config, parse_args, plan_sweep
from experiments.plan.model import SweepConfigError
from planners import PLANNER_KINDS, OpenAICompatPlanner, OpenAIConfig, build_planner
from planners.openai_compat import KEYS, VLLM_KEYS

PLANNER_DIR = Path(CONF_DIR) / "planner"
MODELS = {  # config -> (HF id, vLLM tool-call parser, chat template)
    "qwen2_5_7b": ("Qwen/Qwen2.5-7B-Instruct", "hermes", None),
    "qwen3_8b": ("Qwen/Qwen3-8B", "hermes", None),
    "llama31_8b": (
        "meta-llama/Llama-3.1-8B-Instruct",
        "llama3_json",
        "examples/tool_chat_template_llama3.1_json.jinja",
    ),
    "mistral_7b": ("mistralai/Mistral-7B-Instruct-v0.3", "mistral", "examples/tool_chat_template_mistral.jinja"),
    "gpt_oss_20b": ("openai/gpt-oss-20b", "openai", None),
}


def planner_config(name: str, *overrides: str) -> dict[str, Any]:
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=[f"planner={name}", "seed=11", *overrides])
    return OmegaConf.to_container(cfg.planner, resolve=True)  # type: ignore[return-value]


def test_every_config_file_has_a_known_kind() -> None:
    names = sorted(p.stem for p in PLANNER_DIR.glob("[!_]*.yaml"))  # _openai_base: the models' shared base
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
    with pytest.raises(ValueError, match=r"planner.base_url: required for kind openai when no server is started"):
        build_planner(config)
    planner = build_planner(planner_config(name, "planner.base_url=http://127.0.0.1:8000/v1/"))
    assert isinstance(planner, OpenAICompatPlanner) and planner.name == name
    assert planner.endpoint.url == "http://127.0.0.1:8000/v1/chat/completions"
    assert planner.config.sampling["seed"] == 11 and planner.config.tool_choice == "auto"


@pytest.fixture(scope="module")
def qwen() -> dict[str, Any]:
    return planner_config("qwen2_5_7b", "planner.base_url=http://127.0.0.1:8000/v1")


@pytest.mark.faults
@pytest.mark.parametrize(
    ("change", "message"),
    [
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
        ({"context_tokens": 0}, r"planner\.context_tokens: must be an integer >= 1"),
    ],
)
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


DOCUMENTED = {  # every key of kind openai (README "Planners and vLLM") with the shared base's default
    "served_model_name": None,
    "base_url": None,
    "context_tokens": None,
    "api_key": None,
    "api_key_env": "VLLM_API_KEY",
    "concurrency": 64,
    "timeouts": {"connect": 10, "read": 300, "total": 900},
    "retries": {"max": 4, "backoff_s": 1.0, "max_backoff_s": 30.0},
    "limits": {"reply_chars": 65536, "response_bytes": 2097152},
    "tool_choice": "auto",
    "vllm.gpus": 1,
    "vllm.python": None,
    "vllm.module": None,
    "vllm.env": {},
    "vllm.log_dir": None,
    "vllm.startup_timeout_s": 900,
    "vllm.stop_timeout_s": 30,
    "vllm.poll_interval_s": 1.0,
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_documented_key_is_in_each_model_config_with_its_default(name: str) -> None:
    config = planner_config(name)
    assert set(config) == KEYS and set(config["vllm"]) == VLLM_KEYS
    assert set(config["sampling"]) == {
        "temperature",
        "top_p",
        "seed",
        "max_tokens",
        "max_completion_tokens",
        "presence_penalty",
        "frequency_penalty",
        "stop",
    }
    for key, default in DOCUMENTED.items():
        section, _, inner = key.rpartition(".")
        assert (config[section] if section else config)[inner] == default, key


def test_any_key_is_set_without_a_plus_and_a_misspelt_one_is_one_line() -> None:
    """The issue's command, its ``+`` prefixes dropped (and kept: both work)."""
    p = "planner.qwen2_5_7b"
    args = [
        "planner=qwen2_5_7b",
        "split=handwritten",
        "seed=0",
        f"{p}.model=/models/tiny",
        f"{p}.vllm.python=/venvs/vllm/bin/python",
        f"{p}.vllm.serve_args=[--enforce-eager,--max-model-len,'16384']",
        f"{p}.vllm.env={{VLLM_CPU_KVCACHE_SPACE:'1'}}",
        f"{p}.vllm.log_dir=/tmp/vllm-logs",
        f"{p}.concurrency=8",
        f"+{p}.vllm.startup_timeout_s=60",
        f"{p}.timeouts.total=120",
        f"{p}.limits.reply_chars=4096",
        f"{p}.api_key=sk-x",
        "cluster.resources={GPU:1}",
        "cluster.n_workers=1",
    ]
    plan = plan_sweep(load_config(*parse_args(args)))
    config = plan.cells[0].planner_config
    assert config["model"] == "/models/tiny" and config["concurrency"] == 8 and config["api_key"] == "sk-x"
    assert config["vllm"]["python"] == "/venvs/vllm/bin/python" and config["vllm"]["env"] == {
        "VLLM_CPU_KVCACHE_SPACE": "1"
    }
    assert config["vllm"]["serve_args"] == ["--enforce-eager", "--max-model-len", "16384"]
    assert config["vllm"]["log_dir"] == "/tmp/vllm-logs" and config["vllm"]["startup_timeout_s"] == 60
    assert config["timeouts"]["total"] == 120 and config["limits"]["reply_chars"] == 4096
    assert plan.services[0].config["vllm"]["python"] == "/venvs/vllm/bin/python"

    for typo, known in (
        (f"{p}.vllm.pyhton=/x", "chat_template, env, gpus"),
        (f"{p}.timeout.read=3", "api_key"),
        (f"{p}.limits.reply_bytes=3", "reply_chars, response_bytes"),
    ):
        with pytest.raises(SweepConfigError) as caught:
            plan_sweep(load_config(*parse_args(["planner=qwen2_5_7b", "split=handwritten", typo])))
        message = str(caught.value)
        assert message.startswith(f"{typo.split('=')[0].rsplit('.', 1)[0]}") and "unknown key" in message
        assert known in message and "\n" not in message, message
    with pytest.raises(SweepConfigError, match="planners: unknown planner '_openai_base'; known: gpt_oss_20b,"):
        plan_sweep(load_config(*parse_args(["planner=_openai_base", "split=handwritten"])))  # a base, not a planner
