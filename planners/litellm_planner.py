"""``kind: litellm``: a provider whose API is not OpenAI-compatible (Anthropic, Gemini, Bedrock, ...),
through LiteLLM's ``acompletion``, which speaks each provider's API and answers in OpenAI's shape.

Only the transport differs from the OpenAI-compatible planner: the messages and tools are the same
(``planners.messages``), and the reply goes through the same policy and the same reading
(``planners.openai_compat.RetryingEndpoint`` and ``ChatPlanner``): the concurrency cap, the rate
limits, retries with backoff on 429, 5xx and connection errors (LiteLLM's own retries are off), the
deadline, format errors and the size limits, tokens and latency, ``context_overflow`` and
``infra_error``. LiteLLM's exceptions carry the provider's status: they are read as that status and
an OpenAI-style error body (``ContextWindowExceededError`` as ``context_length_exceeded``).

LiteLLM is an optional dependency (``pip install 'mobilepa-bench[litellm]'``), imported only when a
planner of this kind is built.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from planners import config as specs
from planners.messages import chat_messages, encode
from planners.openai_compat import (
    Attempt,
    ChatPlanner,
    Completion,
    EndpointConfig,
    RetryingEndpoint,
    TransportError,
    _retry_after,
    endpoint_fields,
)
from sandbox.episode import Observation

INSTALL = "pip install 'mobilepa-bench[litellm]'"
CALL_KEYS = frozenset({"api_key", "api_base", "num_retries", "timeout", "drop_params", "stream"})
"""Keyword arguments of ``acompletion`` the planner sets itself: not in ``extra_body``."""
NO_ANSWER = ("Timeout", "APIConnectionError")  # LiteLLM's exceptions for a request that got no answer


def import_litellm() -> ModuleType:
    """The ``litellm`` module, or one line saying how to install it."""
    try:
        return importlib.import_module("litellm")
    except ImportError:
        raise ValueError(
            f"planner.kind: litellm needs the litellm package, which is not installed: {INSTALL}"
        ) from None


@dataclass(frozen=True, kw_only=True)
class LiteLLMConfig(EndpointConfig):
    """A validated ``kind: litellm`` config. ``model`` is LiteLLM's ``provider/model`` id."""

    base_url: str | None = None  # LiteLLM's api_base; None: the provider's own
    drop_params: bool = False

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any], environ: Mapping[str, str] = os.environ) -> LiteLLMConfig:
        """Validate a ``conf/planner`` mapping (``planners.config.LiteLLMPlanner``); every problem is one
        line naming its key."""
        spec = specs.parse(specs.LiteLLMPlanner, config, kind="litellm")
        fields = endpoint_fields(spec, "litellm", environ)
        clash = sorted(set(spec.extra_body) & CALL_KEYS)
        if clash:
            raise ValueError(f"planner.extra_body.{clash[0]}: set by the planner, not extra_body")
        if spec.base_url is not None and not spec.base_url.startswith(("http://", "https://")):
            raise ValueError(f"planner.base_url: an http(s) URL or null (the provider's own), got {spec.base_url!r}")
        return cls(
            **fields, base_url=spec.base_url.rstrip("/") if spec.base_url else None, drop_params=spec.drop_params
        )


class LiteLLMEndpoint(RetryingEndpoint):
    """One ``litellm.acompletion`` call per attempt, its answer or exception read as an HTTP answer."""

    def __init__(self, config: LiteLLMConfig, litellm: ModuleType) -> None:
        super().__init__(config)
        self.config: LiteLLMConfig = config
        self.litellm = litellm
        self.url = f"litellm {config.model}" + (f" at {config.base_url}" if config.base_url else "")

    def call_arguments(self) -> dict[str, Any]:
        """What every call carries besides the request: the key, the base URL, LiteLLM's retries off
        (the planner's policy retries), the read timeout, ``drop_params``."""
        cfg = self.config
        arguments: dict[str, Any] = {"num_retries": 0, "timeout": cfg.read_timeout_s}
        if cfg.api_key:
            arguments["api_key"] = cfg.api_key
        if cfg.base_url:
            arguments["api_base"] = cfg.base_url
        if cfg.drop_params:
            arguments["drop_params"] = True
        return arguments

    async def _attempt(self, request: dict[str, Any]) -> Attempt:
        try:
            response = await self.litellm.acompletion(**request, **self.call_arguments())
        except Exception as exc:  # every provider failure is classified by its status
            return _failure(exc)
        data = response.model_dump() if hasattr(response, "model_dump") else response
        body = encode(data)
        return Attempt(200, body if len(body) <= self.config.max_response_bytes else None)


def _failure(exc: Exception) -> Attempt:
    """A LiteLLM exception as the answer it stands for: the provider's status and an OpenAI-style error
    body; ``TransportError`` for one that got no answer (a timeout, a connection failure)."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    message = str(getattr(exc, "message", None) or exc)
    if name in NO_ANSWER or not isinstance(status, int) or isinstance(status, bool) or status < 400:
        raise TransportError(f"{name}: {message}") from None
    code = "context_length_exceeded" if name == "ContextWindowExceededError" else getattr(exc, "code", None)
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    retry_after = (
        _retry_after(headers.get("retry-after") or headers.get("Retry-After")) if hasattr(headers, "get") else None
    )
    error = {"message": f"{name}: {message}", "code": code if isinstance(code, str) else None}
    return Attempt(status, encode({"error": error}), retry_after)


class LiteLLMPlanner(ChatPlanner):
    """A model behind any provider LiteLLM speaks: the same messages and tools as the OpenAI-compatible
    planner, and the same reading of the reply."""

    config: LiteLLMConfig
    endpoint: LiteLLMEndpoint

    def __init__(self, config: LiteLLMConfig, litellm: ModuleType | None = None) -> None:
        super().__init__(config)
        self.endpoint = LiteLLMEndpoint(config, litellm or import_litellm())

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> LiteLLMPlanner:
        return cls(LiteLLMConfig.from_mapping(config))

    def request(self, observation: Observation) -> dict[str, Any]:
        """The keyword arguments of one step's ``acompletion`` call, less the per-call ones."""
        return {
            "model": self.config.model,
            "messages": chat_messages(observation.query, observation.history, observation.context),
            "tools": observation.tools,
            "tool_choice": self.config.tool_choice,
            **self.config.body,
        }

    async def _complete(self, observation: Observation) -> Completion:
        request = self.request(observation)
        size = len(encode(request["messages"])) + len(self._tools(observation.tools).encoded)
        return await self.endpoint.complete(request, size)
