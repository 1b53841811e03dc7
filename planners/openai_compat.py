"""The OpenAI-compatible chat-completions planner (vLLM or any compatible server), over aiohttp.

One planner talks to one endpoint: a pooled ``ClientSession``, a semaphore capping requests in
flight, explicit connect and read timeouts, an overall deadline per request (retries included, so an
endpoint that trickles a byte at a time still ends), and bounded retries with exponential backoff
and jitter on 429, 5xx, connection errors and timeouts. A reply without one usable tool call is the
model's *format error* (recorded and fed back by the episode), and so is a reply cut off at
``max_tokens``, one over the size limits (clipped before it goes back into the conversation) and one
nested too deep to decode. A request refused because the conversation outgrew the model's context
raises ``ContextOverflow``: the model's failure, scored. Only an endpoint that keeps failing raises
``InfraError``, so the episode is marked ``infra_error`` and never scored. The API key's value is
masked in every reply before anything reads it.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

import aiohttp
import msgspec
from yarl import URL

from planners.base import ContextOverflow, InfraError, PlannerAction
from planners.messages import FORMAT_ERROR_KINDS, ParsedReply, chat_messages, encode, parse_reply
from sandbox.episode import Observation
from sandbox.tasks import Task

KEYS = frozenset({
    "name", "kind", "model", "served_model_name", "base_url", "api_key", "api_key_env", "concurrency",
    "timeouts", "retries", "limits", "sampling", "extra_body", "tool_choice", "vllm",
    "price",  # USD per 1M tokens, read by the cost analysis only (experiments.cost)
})
VLLM_KEYS = frozenset({
    "tool_call_parser", "chat_template", "serve_args",  # the server's command line (cluster.vllm)
    "gpus", "module", "python", "env", "log_dir", "startup_timeout_s", "stop_timeout_s", "poll_interval_s",
})
"""``vllm``: the server a sweep starts for ``base_url: null`` (``cluster.services``), checked here with
the rest of the config, so a misspelt key stops the run before any work whichever path reads it."""
SAMPLING_KEYS = frozenset({
    "temperature", "top_p", "seed", "max_tokens", "presence_penalty", "frequency_penalty", "stop",
})
TOOL_CHOICES = ("auto", "required", "none")
RESERVED_BODY_KEYS = frozenset({"model", "messages", "tools", "tool_choice", "stream", "n"})
ERROR_EXCERPT = 300  # characters of an error body kept in an InfraError message
MASK = "***"  # what the API key's value becomes wherever a reply or an error repeats it


@dataclass(frozen=True)
class OpenAIConfig:
    """A validated ``kind: openai`` planner config. ``model`` is the id sent to the server."""

    name: str
    model: str
    base_url: str
    api_key: str | None = field(default=None, repr=False)
    concurrency: int = 32
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 300.0
    total_timeout_s: float = 900.0  # one step's request, every attempt and backoff included
    max_retries: int = 4
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    max_reply_chars: int = 65_536  # a reply's content and call arguments; beyond: oversized_reply, clipped
    max_response_bytes: int = 2_097_152  # the HTTP body read at most; beyond: oversized_reply, never read
    sampling: Mapping[str, Any] = field(default_factory=dict)
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    tool_choice: str = "auto"

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any], environ: Mapping[str, str] = os.environ) -> OpenAIConfig:
        """Validate a ``conf/planner`` mapping; every problem names its key (``planner.<key>``)."""
        unknown = sorted(set(config) - KEYS)
        if unknown:
            raise ValueError(f"planner.{unknown[0]}: unknown key for kind openai; "
                             f"known: {', '.join(sorted(KEYS))}")
        model = config.get("served_model_name") or config.get("model")
        if not isinstance(model, str) or not model:
            raise ValueError("planner.model: required for kind openai (the model id the server serves)")
        base_url = config.get("base_url")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError("planner.base_url: required for kind openai when no server is started "
                             f"(an http(s) URL ending in /v1), got {base_url!r}")
        timeouts = _section(config, "timeouts", {"connect", "read", "total"})
        retries = _section(config, "retries", {"max", "backoff_s", "max_backoff_s"})
        limits = _section(config, "limits", {"reply_chars", "response_bytes"})
        vllm_section(config.get("vllm"))
        for key, value in _section(config, "price", {"prompt", "cached_prompt", "completion"}).items():
            if value is not None:
                _number(value, f"price.{key}", minimum=0)
        sampling = _section(config, "sampling", SAMPLING_KEYS)
        extra_body = _section(config, "extra_body", None)
        clash = sorted(set(extra_body) & (RESERVED_BODY_KEYS | SAMPLING_KEYS))
        if clash:
            raise ValueError(f"planner.extra_body.{clash[0]}: set by the planner or planner.sampling, "
                             "not extra_body")
        tool_choice = config.get("tool_choice", "auto")
        if tool_choice not in TOOL_CHOICES:
            raise ValueError(f"planner.tool_choice: one of {', '.join(TOOL_CHOICES)}, got {tool_choice!r}")
        key_env = config.get("api_key_env")
        if key_env is not None and not isinstance(key_env, str):
            raise ValueError("planner.api_key_env: the name of an environment variable")
        api_key = config.get("api_key") or (environ.get(key_env) if key_env else None)
        return cls(
            name=str(config.get("name") or model), model=model, base_url=base_url.rstrip("/"),
            api_key=api_key or None,
            concurrency=_number(config.get("concurrency", cls.concurrency), "concurrency",
                                integer=True, minimum=1),
            connect_timeout_s=_number(timeouts.get("connect", cls.connect_timeout_s), "timeouts.connect"),
            read_timeout_s=_number(timeouts.get("read", cls.read_timeout_s), "timeouts.read"),
            total_timeout_s=_number(timeouts.get("total", cls.total_timeout_s), "timeouts.total"),
            max_retries=_number(retries.get("max", cls.max_retries), "retries.max", integer=True, minimum=0),
            backoff_s=_number(retries.get("backoff_s", cls.backoff_s), "retries.backoff_s", minimum=0),
            max_backoff_s=_number(retries.get("max_backoff_s", cls.max_backoff_s), "retries.max_backoff_s",
                                  minimum=0),
            max_reply_chars=_number(limits.get("reply_chars", cls.max_reply_chars), "limits.reply_chars",
                                    integer=True, minimum=1),
            max_response_bytes=_number(limits.get("response_bytes", cls.max_response_bytes),
                                       "limits.response_bytes", integer=True, minimum=1),
            sampling={k: v for k, v in sampling.items() if v is not None}, extra_body=dict(extra_body),
            tool_choice=tool_choice,
        )


def vllm_section(value: Any) -> dict[str, Any]:
    """The ``vllm`` section checked (names and types; whether a server can be built from it is
    ``cluster.services``' question); errors name ``planner.vllm.<key>``."""
    vllm = _section({"vllm": value}, "vllm", VLLM_KEYS)
    if vllm.get("gpus") is not None:
        _number(vllm["gpus"], "vllm.gpus", integer=True, minimum=1)
    for key in ("startup_timeout_s", "stop_timeout_s", "poll_interval_s"):
        if vllm.get(key) is not None:
            _number(vllm[key], f"vllm.{key}")
    for key in ("tool_call_parser", "chat_template", "module", "python", "log_dir"):
        if vllm.get(key) is not None and not isinstance(vllm[key], str):
            raise ValueError(f"planner.vllm.{key}: must be a string, got {vllm[key]!r}")
    if not isinstance(vllm.get("serve_args") or [], list):
        raise ValueError("planner.vllm.serve_args: must be a list of arguments, not a string")
    if not isinstance(vllm.get("env") or {}, Mapping):
        raise ValueError("planner.vllm.env: must be a mapping of environment variables")
    return vllm


def _section(config: Mapping[str, Any], key: str, allowed: frozenset[str] | set[str] | None) -> dict[str, Any]:
    value = config.get(key) or {}
    if not isinstance(value, Mapping):
        raise ValueError(f"planner.{key}: must be a mapping, got {type(value).__name__}")
    unknown = sorted(set(value) - allowed) if allowed is not None else []
    if unknown:
        raise ValueError(f"planner.{key}.{unknown[0]}: unknown key; known: {', '.join(sorted(allowed or ()))}")
    return dict(value)


def _number(value: Any, key: str, *, integer: bool = False, minimum: float | None = None) -> Any:
    """A config number; ``minimum`` None means strictly positive."""
    kind = int if integer else (int, float)
    ok = isinstance(value, kind) and not isinstance(value, bool)
    if ok and (value > 0 if minimum is None else value >= minimum):
        return value
    bound = "> 0" if minimum is None else f">= {minimum}"
    raise ValueError(f"planner.{key}: must be {'an integer' if integer else 'a number'} {bound}, got {value!r}")


@dataclass(frozen=True)
class Completion:
    """A reply with what it cost to get it. ``data`` is None when the reply could not be read as a
    chat completion for a reason of the model's (``format_error`` says which; ``raw`` is what of it
    goes back to the model, clipped)."""

    data: dict[str, Any] | None
    latency_s: float
    retries: int
    format_error: str | None = None
    raw: str = ""


_CONTEXT_LIMIT = re.compile(r"maximum context length is (\d+)|is longer than the maximum model length of (\d+)")
_OUTPUT_TOKENS = re.compile(r"requested (\d+) output tokens|'max_tokens' or 'max_completion_tokens' is too "
                            r"large: (\d+)|(\d+) in the completion")


def context_overflow(status: int, body: bytes) -> str | None:
    """The server's message when it refused a request because the conversation no longer fits the
    model's context; None for any other answer.

    Recognised by the error's structure: the OpenAI API's ``error.code`` ``context_length_exceeded``,
    and vLLM's ``BadRequestError`` (``{"error": {...}}``, or the older top-level ``{"object": "error",
    ...}``) whose message states the maximum context length or the maximum model length. A refusal
    in which the requested reply alone (``max_tokens``) reaches the limit is the configuration's
    fault, not the conversation's: it stays an infrastructure error."""
    if not 400 <= status < 500 or status == 429:
        return None
    try:
        data = msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError):
        return None
    error = data.get("error", data) if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return None
    message = error.get("message") if isinstance(error.get("message"), str) else ""
    limit = _CONTEXT_LIMIT.search(message)
    if error.get("code") != "context_length_exceeded" and limit is None:
        return None
    output = _OUTPUT_TOKENS.search(message)
    if limit is not None and output is not None:
        if int(next(g for g in output.groups() if g)) >= int(next(g for g in limit.groups() if g)):
            return None
    return message or str(error.get("code"))


class ChatEndpoint:
    """POSTs chat completions to one endpoint with pooling, a concurrency cap and bounded retries.

    The session and semaphore belong to the event loop that first uses them; a later loop (a new
    ``asyncio.run``) gets fresh ones, since aiohttp objects cannot cross loops.
    """

    def __init__(self, config: OpenAIConfig) -> None:
        self.config = config
        self.url = f"{config.base_url}/chat/completions"
        self._target = URL(self.url)  # parsed once, not on every request
        self._loop: asyncio.AbstractEventLoop | None = None
        self._session: aiohttp.ClientSession | None = None
        self._gate: asyncio.Semaphore | None = None
        self._jitter = random.Random()

    def _bind(self) -> tuple[aiohttp.ClientSession, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        if self._session is None or self._gate is None or self._loop is not loop or self._session.closed:
            cfg = self.config
            headers = {"Content-Type": "application/json"}
            if cfg.api_key:
                headers["Authorization"] = f"Bearer {cfg.api_key}"
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=cfg.concurrency),
                cookie_jar=aiohttp.DummyCookieJar(),  # an API takes no cookies; filtering the jar cost ~50 µs a request
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=cfg.connect_timeout_s,
                                              sock_read=cfg.read_timeout_s),
                headers=headers,
            )
            self._gate = asyncio.Semaphore(cfg.concurrency)
            self._loop = loop
        return self._session, self._gate

    async def complete(self, payload: bytes) -> Completion:
        """The first usable reply to a JSON request body. ``ContextOverflow`` when the server refuses
        the conversation as too long for the model; ``InfraError`` once retries are spent, on another
        non-retryable status, or at the deadline (``timeouts.total`` from the first attempt's start:
        the read timeout restarts with every byte, so only a deadline ends a trickling reply)."""
        session, gate = self._bind()
        cfg = self.config
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        last = "no attempt"
        for attempt in range(cfg.max_retries + 1):
            retry_after: float | None = None
            async with gate:
                if deadline is None:  # waiting for the gate is this client's queue, not the endpoint's time
                    deadline = loop.time() + cfg.total_timeout_s
                scope = asyncio.timeout_at(deadline)
                try:
                    async with scope:
                        started = time.perf_counter()
                        async with session.post(self._target, data=payload) as response:
                            body = await _body(response, cfg.max_response_bytes)
                            latency = time.perf_counter() - started
                            status, retry_after = response.status, _retry_after(response.headers.get("Retry-After"))
                except (aiohttp.ClientError, TimeoutError) as exc:
                    if scope.expired():
                        raise InfraError(self._overdue(attempt + 1, last)) from None
                    status, body = 0, b""
                    last = f"{type(exc).__name__}: {self._excerpt(str(exc)) or 'no detail'}"
            if status == 200:
                if body is None:  # the model's reply, too long to read: no retry would be shorter
                    return Completion(None, latency, attempt, "oversized_reply",
                                      f"(a reply of over {cfg.max_response_bytes} bytes, not read)")
                try:
                    data = _completion(body)
                except RecursionError:  # nested too deep to decode: the model wrote it, so it is its error
                    return Completion(None, latency, attempt, "undecodable_reply", self._excerpt(_text(body)))
                if data is not None:
                    return Completion(data, latency, attempt)
                last = f"HTTP 200 with a body that is not a chat completion: {self._excerpt(_text(body))}"
            elif status:
                text = f"a body over {cfg.max_response_bytes} bytes" if body is None else self._excerpt(_text(body))
                overflow = context_overflow(status, body) if body is not None else None
                if overflow is not None:
                    raise ContextOverflow(f"{self.url}: HTTP {status}: {self._excerpt(overflow)}")
                if status == 429 or status >= 500:
                    last = f"HTTP {status}: {text}"
                else:
                    raise InfraError(f"{self.url}: HTTP {status} (not retried): {text}")
            if attempt < cfg.max_retries:
                delay = self._delay(attempt, retry_after)
                if loop.time() + delay >= deadline:
                    raise InfraError(self._overdue(attempt + 1, last))
                await asyncio.sleep(delay)
        raise InfraError(f"{self.url}: gave up after {cfg.max_retries + 1} attempt(s); last: {last}")

    def _overdue(self, attempts: int, last: str) -> str:
        return (f"{self.url}: no usable reply within timeouts.total={self.config.total_timeout_s:g} s "
                f"({attempts} attempt(s); last: {last if last != 'no attempt' else 'the reply was still arriving'})")

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        """Exponential backoff with jitter (half to all of the step), at least Retry-After (capped
        at ``max_backoff_s``) when the server sent one."""
        step = min(self.config.max_backoff_s, self.config.backoff_s * 2**attempt)
        delay = step * (0.5 + self._jitter.random() / 2)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.config.max_backoff_s))
        return delay

    def _excerpt(self, text: str) -> str:
        """A short, single-line excerpt with the API key blanked, should a server echo it."""
        if self.config.api_key:
            text = text.replace(self.config.api_key, MASK)
        return " ".join(text.split())[:ERROR_EXCERPT]

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = self._gate = self._loop = None


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (the HTTP-date form is ignored: backoff applies)."""
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and seconds >= 0 else None


def _text(body: bytes) -> str:
    return body.decode("utf-8", errors="replace")


async def _body(response: aiohttp.ClientResponse, limit: int) -> bytes | None:
    """The response body, or None when it is longer than ``limit`` bytes (the rest is never read, and
    the connection is closed rather than reused)."""
    length = response.content_length
    if length is not None and "Content-Encoding" not in response.headers:  # compressed: count what it inflates to
        return await response.read() if length <= limit else None
    body = bytearray()
    async for chunk in response.content.iter_any():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def _completion(body: bytes) -> dict[str, Any] | None:
    """The parsed body if it has ``choices[0].message``; a body without it is the server's fault."""
    try:
        data = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return None
    choices = data.get("choices") if isinstance(data, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    return data if isinstance(first, dict) and isinstance(first.get("message"), dict) else None


def _count(value: Any) -> int | None:
    """A token count from the server's ``usage``, or None for anything that is not one."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _cached(usage: dict[str, Any]) -> int | None:
    """Prompt tokens served from the prefix cache, where the server reports them (OpenAI's
    ``prompt_tokens_details.cached_tokens``; vLLM with prefix caching and usage details on)."""
    details = usage.get("prompt_tokens_details")
    return _count(details.get("cached_tokens")) if isinstance(details, dict) else None


def _mask(value: Any, key: str) -> Any:
    """``value`` with ``key`` replaced by ``MASK`` in every string (keys included)."""
    if isinstance(value, str):
        return value.replace(key, MASK)
    if isinstance(value, dict):
        return {_mask(k, key): _mask(v, key) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v, key) for v in value]
    return value


TOOLS_JSON_CACHE = 4096  # tools whose JSON is kept (212 tools, load_skill once per offered-skill list)
TOOLS_LISTS_CACHE = 512  # tools lists whose joined JSON is kept (~20 KB each; one or two per episode in flight)


@dataclass(frozen=True)
class _EncodedTools:
    """A tools list (held, so its id names no other list while cached), its JSON, and its names."""

    tools: list[dict[str, Any]]
    encoded: bytes
    names: frozenset[str]


class OpenAICompatPlanner:
    """A model behind an OpenAI-compatible ``/v1/chat/completions``: one request per step.

    Usage recorded per step: prompt and completion tokens (from the server's ``usage``), the latency
    of the successful request, retries, finish reason, the raw reply message, and whether the call
    was recovered from ``content``. The API key is sent only as the Authorization header.
    """

    def __init__(self, config: OpenAIConfig) -> None:
        self.name = config.name
        self.config = config
        self.endpoint = ChatEndpoint(config)
        self._encoded_tool: dict[tuple[str, str], bytes] = {}  # by name and description
        self._encoded_tools: dict[int, _EncodedTools] = {}  # by the id of the list

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> OpenAICompatPlanner:
        return cls(OpenAIConfig.from_mapping(config))

    def request_body(self, observation: Observation) -> bytes:
        """The request for one step as JSON: ``tools`` first, then the rest with sorted keys, so the same
        episode state always gives the same bytes; each tool's JSON is encoded once (``_tool_json``), and
        each tools list joined once (``_tools``)."""
        rest = {
            "model": self.config.model, "messages": chat_messages(observation.query, observation.history, observation.context),
            "tool_choice": self.config.tool_choice, "stream": False, **self.config.sampling, **self.config.extra_body,
        }
        if "tools" in rest:  # extra_body overrides the tools
            return encode(rest)
        return b"".join((b'{"tools":[', self._tools(observation.tools).encoded, b"],", memoryview(encode(rest))[1:]))

    def _tools(self, tools: list[dict[str, Any]]) -> _EncodedTools:
        """A tools list's JSON and names, once per list: an episode passes the same list at every step
        until a skill grows its action space (``Episode.tool_schemas``; its callers never change it)."""
        entry = self._encoded_tools.get(id(tools))
        if entry is None or entry.tools is not tools:
            if len(self._encoded_tools) >= TOOLS_LISTS_CACHE:
                self._encoded_tools.clear()
            entry = self._encoded_tools[id(tools)] = _EncodedTools(
                tools, b",".join(self._tool_json(t) for t in tools), frozenset(t["function"]["name"] for t in tools))
        return entry

    def _tool_json(self, tool: dict[str, Any]) -> bytes:
        """One tool's JSON, encoded once per name and description (only ``load_skill``'s description
        varies, with the skills offered): encoding every episode's schemas was a client's largest cost."""
        key = (tool["function"]["name"], tool["function"]["description"])
        encoded = self._encoded_tool.get(key)
        if encoded is None:
            if len(self._encoded_tool) >= TOOLS_JSON_CACHE:
                self._encoded_tool.clear()
            encoded = self._encoded_tool[key] = encode(tool)
        return encoded

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        completion = await self.endpoint.complete(self.request_body(observation))
        if completion.data is None:  # unreadable for a reason of the model's: its format error
            usage = {"latency_s": round(completion.latency_s, 6), "retries": completion.retries,
                     "raw_reply": {"role": "assistant", "content": completion.raw, "clipped": True}}
            return PlannerAction(None, raw=completion.raw, format_error=completion.format_error, usage=usage)
        choice = completion.data["choices"][0]
        try:
            message = self._masked(choice["message"])
            parsed = parse_reply(message, self._tools(observation.tools).names, max_chars=self.config.max_reply_chars)
        except RecursionError:  # a value nested about as deep as the decoder reaches: walking it again fails
            message, parsed = {}, ParsedReply(None, format_error="undecodable_reply")
        kept = parsed.format_error not in ("oversized_reply", "undecodable_reply")  # else only the clipped raw
        finish_reason = choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None
        tokens = completion.data.get("usage")
        tokens = tokens if isinstance(tokens, dict) else {}
        usage = {
            "prompt_tokens": _count(tokens.get("prompt_tokens")), "completion_tokens": _count(tokens.get("completion_tokens")),
            "cached_prompt_tokens": _cached(tokens),
            "latency_s": round(completion.latency_s, 6), "retries": completion.retries,
            "finish_reason": finish_reason,
            "raw_reply": message if kept else {"role": "assistant", "content": parsed.raw, "clipped": True},
            "recovered_from_content": parsed.recovered_from_content,
        }
        if parsed.format_error:
            kind = parsed.format_error
            if finish_reason == "length" and kind in FORMAT_ERROR_KINDS:  # cut off at max_tokens: that is why
                kind = "truncated_reply"
            return PlannerAction(None, raw=parsed.raw, format_error=kind, usage=usage)
        return PlannerAction(parsed.name, parsed.arguments, raw=parsed.raw, usage=usage)

    def _masked(self, message: dict[str, Any]) -> dict[str, Any]:
        """The reply with the API key's value masked, should the server or the model repeat it: the
        reply is kept in the trajectory and goes back into the conversation."""
        return _mask(message, self.config.api_key) if self.config.api_key else message

    async def aclose(self) -> None:
        """Close the HTTP session (call once the run's episodes are done)."""
        await self.endpoint.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()
