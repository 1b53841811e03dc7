"""``kind: litellm`` with LiteLLM mocked: a fake ``litellm`` module whose ``acompletion`` forwards the
call to the scripted server (as LiteLLM's OpenAI provider would) and raises LiteLLM's exception
types for its refusals. No network beyond 127.0.0.1 and no litellm install needed."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import types
from typing import Any

import aiohttp
import pytest

from experiments.bench.scripted_server import Reply, ScriptedServer
from experiments.episodes.loop import EpisodeResult, run_episode, run_many
from planners import PLANNER_KINDS, InfraError, LiteLLMPlanner, build_planner
from planners.litellm_planner import LiteLLMConfig
from planners.messages import FORMAT_ERROR_KINDS
from sandbox.episode import Episode
from sandbox.suite import load_split
from tests.planners.test_reply_faults import BODIES, LONG, ScriptedReplies, tool_results

TASKS = load_split("handwritten.jsonl")
BY_ID = {t.task_id: t for t in TASKS}
KEY = "sk-litellm-0123456789"


class _LiteLLMError(Exception):
    def __init__(self, message: str, status_code: int | None = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.response = types.SimpleNamespace(headers=headers or {})


def _error(name: str, status: int | None) -> type[_LiteLLMError]:
    return type(name, (_LiteLLMError,), {"__module__": "litellm.exceptions", "default_status": status})


RateLimitError = _error("RateLimitError", 429)
ContextWindowExceededError = _error("ContextWindowExceededError", 400)
BadRequestError = _error("BadRequestError", 400)
AuthenticationError = _error("AuthenticationError", 401)
InternalServerError = _error("InternalServerError", 500)
ServiceUnavailableError = _error("ServiceUnavailableError", 503)
APIConnectionError = _error("APIConnectionError", 500)


class _Response:
    """Stands for LiteLLM's ``ModelResponse`` (a pydantic model in OpenAI's shape)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def model_dump(self) -> dict[str, Any]:
        return self._data


PROVIDER_KEYS = {"anthropic": ("ANTHROPIC_API_KEY",), "gemini": ("GOOGLE_API_KEY", "GEMINI_API_KEY")}
"""The fake's providers and the variables LiteLLM reads their key from (either one for gemini)."""
CONTEXTS = {"anthropic/known-model": 200_000}
"""The fake's table of models (LiteLLM's ``model_prices_and_context_window.json``): max_input_tokens."""
FAKE_BYTES_PER_TOKEN = 3  # the fake's tokenizer: the JSON of the messages and tools, 3 bytes a token


def fake_litellm(base_url: str) -> tuple[types.ModuleType, list[dict[str, Any]]]:
    """A ``litellm`` module posting each call to ``base_url`` as an OpenAI chat completion; the calls'
    keyword arguments are recorded. Its ``validate_environment``, ``token_counter`` and ``get_model_info``
    take the real ones' arguments and answer from this machine, as they do (``PROVIDER_KEYS``,
    ``FAKE_BYTES_PER_TOKEN``, ``CONTEXTS``)."""
    calls: list[dict[str, Any]] = []
    module = types.ModuleType("litellm")

    def validate_environment(
        model: str | None = None,
        api_key: str | None = None,
        api_base: str | None = None,
        api_version: str | None = None,
    ) -> dict[str, Any]:
        needed = PROVIDER_KEYS.get((model or "").partition("/")[0], ())
        missing = [] if api_key or any(k in os.environ for k in needed) else list(needed)
        return {"keys_in_environment": not missing, "missing_keys": missing}

    def token_counter(
        model: str = "",
        custom_tokenizer: Any = None,
        text: str | list[str] | None = None,
        messages: list[dict[str, Any]] | None = None,
        count_response_tokens: bool | None = False,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        use_default_image_token_count: bool | None = False,
        default_token_count: int | None = None,
    ) -> int:
        return len(json.dumps([messages, tools]).encode()) // FAKE_BYTES_PER_TOKEN

    def get_model_info(
        model: str, custom_llm_provider: str | None = None, api_base: str | None = None, api_key: str | None = None
    ) -> dict[str, Any]:
        if model not in CONTEXTS:
            raise Exception(f"This model isn't mapped yet. model={model}")  # LiteLLM's ModelNotMappedError
        return {"key": model, "max_input_tokens": CONTEXTS[model], "max_output_tokens": 8192}

    async def acompletion(**kwargs: Any) -> _Response:
        calls.append(kwargs)
        body = {
            k: v for k, v in kwargs.items() if k not in ("api_key", "api_base", "num_retries", "timeout", "drop_params")
        }
        body["model"] = body["model"].partition("/")[2] or body["model"]  # provider/model -> the model
        headers = {"Authorization": f"Bearer {kwargs['api_key']}"} if kwargs.get("api_key") else {}
        try:
            async with (
                aiohttp.ClientSession() as session,
                session.post(
                    f"{base_url}/chat/completions",
                    json=body,
                    headers=headers,
                    timeout=aiohttp.ClientTimeout(sock_read=kwargs.get("timeout")),
                ) as response,
            ):
                text = await response.text()
                status, retry_after = response.status, response.headers.get("Retry-After")
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise APIConnectionError(f"litellm.APIConnectionError: {exc}") from None
        if status == 200:
            return _Response(json.loads(text))
        message = f"litellm.{status}: {text}"
        if status == 400 and (("context" in text and "length" in text) or "context window" in text):
            raise ContextWindowExceededError(message, 400)
        kind = {429: RateLimitError, 400: BadRequestError, 401: AuthenticationError, 503: ServiceUnavailableError}
        headers = {"retry-after": retry_after} if retry_after else {}
        raise kind.get(status, InternalServerError)(message, status, headers)

    module.acompletion = acompletion  # type: ignore[attr-defined]
    module.validate_environment = validate_environment  # type: ignore[attr-defined]
    module.token_counter = token_counter  # type: ignore[attr-defined]
    module.get_model_info = get_model_info  # type: ignore[attr-defined]
    return module, calls


def config(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "via-litellm",
        "kind": "litellm",
        "model": "anthropic/scripted",
        "concurrency": 8,
        "timeouts": {"connect": 1.0, "read": 2.0},
        "retries": {"max": 2, "backoff_s": 0.001, "max_backoff_s": 0.01},
        "sampling": {"temperature": 0.0, "max_tokens": 256},
    }
    return {**base, **overrides}


def run(
    server: ScriptedServer, tasks: list[Any], monkeypatch: pytest.MonkeyPatch, **overrides: Any
) -> tuple[list[EpisodeResult], list[dict[str, Any]]]:
    async def go() -> tuple[list[EpisodeResult], list[dict[str, Any]]]:
        async with server:
            module, calls = fake_litellm(server.base_url)
            monkeypatch.setitem(sys.modules, "litellm", module)
            async with build_planner(config(**overrides)) as planner:  # type: ignore[attr-defined]
                assert isinstance(planner, LiteLLMPlanner)
                results = [r async for r in run_many(tasks, planner, concurrency=8)]
        return sorted(results, key=lambda r: r.task.task_id), calls

    return asyncio.run(go())


def test_without_litellm_the_kind_is_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "litellm", None)  # an import of it raises ImportError
    assert "litellm" in PLANNER_KINDS
    with pytest.raises(ValueError) as caught:
        build_planner(config())
    message = str(caught.value)
    assert message.startswith("planner.kind: litellm needs the litellm package")
    assert "pip install 'mobilepa-bench[litellm]'" in message and "\n" not in message


def test_the_config_is_checked_before_litellm_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "litellm", None)
    for change, message in [
        ({"base_url": "host:1"}, "planner.base_url: an http(s) URL or null"),
        ({"vllm": {}}, "planner.vllm: unknown key for kind litellm"),
        ({"limits": {"response_bytes": 1}}, "planner.limits.response_bytes: unknown key"),
        ({"extra_body": {"num_retries": 3}}, "planner.extra_body.num_retries: set by the planner"),
        ({"model": None}, "planner.model: required for kind litellm"),
    ]:
        with pytest.raises(ValueError, match=re.escape(message)):
            build_planner(config(**change))


def test_gold_episodes_pass_through_the_same_messages_and_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOBILEPA_LITELLM_KEY", KEY)
    results, calls = run(
        ScriptedServer(TASKS[:4], "gold", api_key=KEY),
        TASKS[:4],
        monkeypatch,
        api_key_env="MOBILEPA_LITELLM_KEY",
        reasoning_effort="low",
        sampling={"temperature": 0.0, "max_tokens": 256, "max_completion_tokens": 300},
    )
    assert all(r.verdict.passed for r in results)
    first = calls[0]
    assert first["model"] == "anthropic/scripted" and first["num_retries"] == 0 and first["timeout"] == 2.0
    assert first["api_key"] == KEY and first["messages"][0]["role"] == "system" and first["tools"]
    assert first["reasoning_effort"] == "low" and first["max_completion_tokens"] == 300 and "max_tokens" not in first
    step = results[0].trajectory.steps[0].planner
    assert step["prompt_tokens"] and step["completion_tokens"] and step["retries"] == 0
    assert KEY not in json.dumps([r.trajectory.to_json() for r in results], default=str)


def test_format_errors_are_classified_as_for_the_openai_planner(monkeypatch: pytest.MonkeyPatch) -> None:
    task = BY_ID["hw_basic_001"]
    (result,), _ = run(ScriptedServer(TASKS, f"malformed:{len(FORMAT_ERROR_KINDS)}"), [task], monkeypatch)
    steps = result.trajectory.steps
    assert [s.planner.get("format_error") for s in steps[: len(FORMAT_ERROR_KINDS)]] == list(FORMAT_ERROR_KINDS)
    assert result.verdict.passed and len(steps) == len(FORMAT_ERROR_KINDS) + len(task.gold)


@pytest.mark.parametrize("code", [429, 500, 503])
def test_transient_provider_errors_are_retried_then_an_infra_error(code: int, monkeypatch: pytest.MonkeyPatch) -> None:
    (result,), calls = run(ScriptedServer(TASKS, f"status:{code}:2"), [BY_ID["hw_basic_012"]], monkeypatch)
    assert result.verdict.passed and result.trajectory.steps[0].planner["retries"] == 2
    (result,), calls = run(ScriptedServer(TASKS, f"status:{code}"), [BY_ID["hw_basic_012"]], monkeypatch)
    assert result.trajectory.termination == "infra_error" and not result.verdict.scorable
    assert len(calls) == 3 and "litellm anthropic/scripted" in (result.trajectory.infra_error or "")
    assert f"HTTP {code}" in (result.trajectory.infra_error or "")


def test_a_refused_key_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    (result,), calls = run(
        ScriptedServer(TASKS, "gold", api_key="another"), [BY_ID["hw_basic_012"]], monkeypatch, api_key=KEY
    )
    assert result.trajectory.termination == "infra_error" and len(calls) == 1
    message = result.trajectory.infra_error or ""
    assert "HTTP 401 (not retried)" in message and "AuthenticationError" in message and KEY not in message


def test_a_context_window_refusal_is_a_context_overflow(monkeypatch: pytest.MonkeyPatch) -> None:
    recorded = BODIES["openai_context_length_exceeded"]
    refusal = Reply(recorded["status"], json.dumps(recorded["body"]).encode())
    server = ScriptedReplies(lambda body, number: refusal if tool_results(body) >= 2 else None)
    (result,), calls = run(server, [LONG], monkeypatch)
    assert result.trajectory.termination == "context_overflow" and len(result.trajectory.steps) == 2
    assert len(calls) == 3 and result.verdict.scorable and not result.verdict.passed


def test_no_answer_is_retried_as_a_connection_error(monkeypatch: pytest.MonkeyPatch) -> None:
    module, calls = fake_litellm("http://127.0.0.1:9/v1")  # nothing listens there
    planner = LiteLLMPlanner(LiteLLMConfig.from_mapping(config()), module)

    async def go() -> str:
        with Episode(BY_ID["hw_basic_012"]) as episode, pytest.raises(InfraError) as caught:
            await planner.act(episode.task, episode.observation())
        await planner.aclose()
        return str(caught.value)

    message = asyncio.run(go())
    assert len(calls) == 3 and "gave up after 3 attempt(s)" in message and "APIConnectionError" in message


def test_an_episode_runs_with_the_planner_given_a_module(monkeypatch: pytest.MonkeyPatch) -> None:
    async def go() -> EpisodeResult:
        async with ScriptedServer(TASKS, "gold") as server:
            module, _ = fake_litellm(server.base_url)
            planner = LiteLLMPlanner(LiteLLMConfig.from_mapping(config(base_url="http://proxy.example/v1")), module)
            assert planner.endpoint.call_arguments()["api_base"] == "http://proxy.example/v1"
            try:
                return await run_episode(BY_ID["hw_basic_012"], planner)
            finally:
                await planner.aclose()

    assert asyncio.run(go()).verdict.passed
