"""The OpenAI-compatible chat-completions planner (vLLM or any compatible server), over aiohttp.

One planner talks to one endpoint: a pooled ``ClientSession``, a semaphore capping requests in
flight, explicit connect and read timeouts, an overall deadline per request (retries included, so an
endpoint that trickles a byte at a time still ends), and bounded retries with exponential backoff
and jitter on 429, 5xx, connection errors and timeouts. A reply without one usable tool call is the
model's *format error* (recorded and fed back by the episode), and so is a reply cut off at
``max_tokens``, one over the size limits (clipped before it goes back into the conversation) and one
nested too deep to decode. A request refused because the conversation outgrew the model's context,
and a reply cut short by the room the context had left (the usage says so), raise
``ContextOverflow``: the model's failure, scored. Only an endpoint that keeps failing raises
``InfraError``, so the episode is marked ``infra_error`` and never scored. The API key's value is
masked in every reply before anything reads it.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

import aiohttp
import msgspec
from yarl import URL

from planners import config as specs
from planners.base import ContextOverflow, InfraError, PlannerAction
from planners.messages import FORMAT_ERROR_KINDS, ParsedReply, chat_messages, encode, parse_reply
from sandbox.episode import Observation
from sandbox.tasks import Task

KEYS = frozenset(specs.OpenAIPlanner.model_fields)
"""Every key of ``kind: openai`` (``planners.config.OpenAIPlanner``; ``conf/planner/_openai_base.yaml``
lists each with its default)."""
VLLM_KEYS = frozenset(specs.Vllm.model_fields)
"""``vllm``: the server a sweep starts for ``base_url: null`` (``cluster.services``), checked here with
the rest of the config, so a misspelt key stops the run before any work whichever path reads it."""
SAMPLING_KEYS = frozenset(specs.Sampling.model_fields)
TOOL_CHOICES = specs.TOOL_CHOICES
RESERVED_BODY_KEYS = frozenset({"model", "messages", "tools", "tool_choice", "stream", "n"})
OWN_KEYS = {"reasoning_effort": "planner.reasoning_effort"}  # body keys the config sets in a key of their own
ERROR_EXCERPT = 300  # characters of an error body kept in an InfraError message
MASK = "***"  # what the API key's value becomes wherever a reply or an error repeats it


@dataclass(frozen=True)
class EndpointConfig:
    """What a model planner needs of its config, whichever API it speaks. ``model`` is the id sent."""

    name: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    concurrency: int = 32
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 300.0
    total_timeout_s: float = 900.0  # one step's request, every attempt and backoff included
    max_retries: int = 4
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    max_reply_chars: int = 65_536  # a reply's content and call arguments; beyond: oversized_reply, clipped
    max_response_bytes: int = 2_097_152  # the reply body read at most; beyond: oversized_reply, never read
    requests_per_minute: int | None = None  # client-side rate limits (None: none)
    tokens_per_minute: int | None = None
    sampling: Mapping[str, Any] = field(default_factory=dict)  # only what is sent; max_completion_tokens
    extra_body: Mapping[str, Any] = field(default_factory=dict)  # replaces max_tokens when set
    tool_choice: str = "auto"
    reasoning_effort: str | None = None

    @property
    def body(self) -> dict[str, Any]:
        """What every request carries besides the model, messages and tools: sampling, the reasoning
        effort where set, the extra body."""
        effort = {"reasoning_effort": self.reasoning_effort} if self.reasoning_effort else {}
        return {**self.sampling, **effort, **self.extra_body}


def endpoint_fields(spec: specs.ModelPlanner, kind: str, environ: Mapping[str, str]) -> dict[str, Any]:
    """The ``EndpointConfig`` fields of a parsed config; checks what the model alone cannot say (the
    model id given, no extra_body key that another key sets), naming the key."""
    model = getattr(spec, "served_model_name", None) or spec.model
    if not model:
        raise ValueError(f"planner.model: required for kind {kind} (the model id the server serves)")
    for key in sorted(spec.extra_body):
        if key in RESERVED_BODY_KEYS or key in SAMPLING_KEYS:
            raise ValueError(f"planner.extra_body.{key}: set by the planner or planner.sampling, not extra_body")
        if key in OWN_KEYS:
            raise ValueError(f"planner.extra_body.{key}: set by {OWN_KEYS[key]}, not extra_body")
    sampling = {k: v for k, v in spec.sampling.model_dump().items() if v is not None}
    if "max_completion_tokens" in sampling:  # OpenAI's newer name (reasoning models take no other)
        sampling.pop("max_tokens", None)
    api_key = spec.api_key or (environ.get(spec.api_key_env) if spec.api_key_env else None)
    limits = spec.limits  # type: ignore[attr-defined]
    return dict(
        name=spec.name or model,
        model=model,
        api_key=api_key or None,
        concurrency=spec.concurrency,
        connect_timeout_s=spec.timeouts.connect,
        read_timeout_s=spec.timeouts.read,
        total_timeout_s=spec.timeouts.total,
        max_retries=spec.retries.max,
        backoff_s=spec.retries.backoff_s,
        max_backoff_s=spec.retries.max_backoff_s,
        max_reply_chars=limits.reply_chars,
        max_response_bytes=getattr(limits, "response_bytes", EndpointConfig.max_response_bytes),
        requests_per_minute=spec.rate_limits.requests_per_minute,
        tokens_per_minute=spec.rate_limits.tokens_per_minute,
        sampling=sampling,
        extra_body=dict(spec.extra_body),
        tool_choice=spec.tool_choice,
        reasoning_effort=spec.reasoning_effort,
    )


@dataclass(frozen=True, kw_only=True)
class OpenAIConfig(EndpointConfig):
    """A validated ``kind: openai`` planner config."""

    base_url: str

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any], environ: Mapping[str, str] = os.environ) -> OpenAIConfig:
        """Validate a ``conf/planner`` mapping (``planners.config.OpenAIPlanner``); every problem is one
        line naming its key (``planner.<key>``)."""
        spec = specs.parse(specs.OpenAIPlanner, config, kind="openai")
        fields = endpoint_fields(spec, "openai", environ)
        base_url = spec.base_url
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(
                "planner.base_url: required for kind openai when no server is started "
                f"(an http(s) URL ending in /v1), got {base_url!r}"
            )
        return cls(**fields, base_url=base_url.rstrip("/"))


def vllm_section(value: Any) -> dict[str, Any]:
    """The ``vllm`` section checked (names and types; whether a server can be built from it is
    ``cluster.services``' question); errors name ``planner.vllm.<key>``."""
    specs.parse(specs.Vllm, {} if value is None else value, prefix="planner.vllm")
    return dict(value or {})


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
_OUTPUT_TOKENS = re.compile(
    r"requested (\d+) output tokens|'max_tokens' or 'max_completion_tokens' is too "
    r"large: (\d+)|(\d+) in the completion"
)


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
    message = error.get("message")
    message = message if isinstance(message, str) else ""
    limit = _CONTEXT_LIMIT.search(message)
    if error.get("code") != "context_length_exceeded" and limit is None:
        return None
    output = _OUTPUT_TOKENS.search(message)
    if (
        limit is not None
        and output is not None
        and int(next(g for g in output.groups() if g)) >= int(next(g for g in limit.groups() if g))
    ):
        return None
    return message or str(error.get("code"))


WINDOW_S = 60.0  # the rate limits' window: requests and tokens per minute


class RateLimiter:
    """Client-side requests- and tokens-per-minute limits over a sliding 60-second window.

    A request waits until it fits: fewer than ``requests_per_minute`` requests sent in the last minute,
    and its estimated tokens plus those of the last minute's requests at most ``tokens_per_minute`` (a
    request larger than the whole budget goes alone, into an empty window). The estimate made when it
    is sent is replaced by the tokens the reply reports (``settle``). Waiting is this client's queue:
    it does not count against ``timeouts.total``. All in one event loop, nothing awaited between the
    check and the booking, so no lock is needed."""

    def __init__(
        self,
        requests_per_minute: int | None,
        tokens_per_minute: int | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.requests_per_minute = requests_per_minute
        self.tokens_per_minute = tokens_per_minute
        self._clock = clock
        self._sleep = sleep
        self._sent: deque[list[float]] = deque()  # [sent at, tokens], oldest first

    def wait_s(self, tokens: int, now: float) -> float:
        """How long a request of ``tokens`` must wait from ``now`` (0: it may go)."""
        sent = self._sent
        while sent and sent[0][0] <= now - WINDOW_S:
            sent.popleft()
        wait = 0.0
        if self.requests_per_minute is not None and len(sent) >= self.requests_per_minute:
            wait = sent[len(sent) - self.requests_per_minute][0] + WINDOW_S - now
        if self.tokens_per_minute is not None and sent:
            excess = sum(t for _, t in sent) + tokens - self.tokens_per_minute
            for at, used in sent:  # the oldest requests leave the window first
                if excess <= 0:
                    break
                excess -= used
                wait = max(wait, at + WINDOW_S - now)
        return max(wait, 0.0)

    async def acquire(self, tokens: int) -> list[float]:
        """Wait until a request of ``tokens`` (estimated) fits, and book it; returns the booking."""
        while (wait := self.wait_s(tokens, self._clock())) > 0:
            await self._sleep(wait)
        booking = [self._clock(), float(tokens)]
        self._sent.append(booking)
        return booking

    @staticmethod
    def settle(booking: list[float], tokens: int) -> None:
        """The tokens a booked request turned out to use (0 for one refused)."""
        booking[1] = float(tokens)


class TransportError(Exception):
    """One attempt reached no answer (connection refused or dropped, a timeout): retried like
    aiohttp's connection errors."""


@dataclass(frozen=True)
class Attempt:
    """One attempt's answer: the HTTP status (or the provider's, through LiteLLM), the body (None when
    over ``limits.response_bytes``, never read) and Retry-After in seconds."""

    status: int
    body: bytes | None
    retry_after: float | None = None


class RetryingEndpoint:
    """The policy of a model endpoint, whatever carries the request: a concurrency cap, client-side
    rate limits, bounded retries with backoff on 429, 5xx and connection errors, an overall deadline,
    and which answers are the model's (format errors, context overflow) and which the
    infrastructure's (``InfraError``). Subclasses carry one attempt (``_attempt``).

    The semaphore belongs to the event loop that first uses it; a later loop (a new ``asyncio.run``)
    gets a fresh one."""

    url: str  # names the endpoint in every InfraError message

    def __init__(self, config: EndpointConfig) -> None:
        self.config = config
        self.limiter = (
            RateLimiter(config.requests_per_minute, config.tokens_per_minute)
            if config.requests_per_minute or config.tokens_per_minute
            else None
        )
        self._reply_tokens = int(config.sampling.get("max_completion_tokens") or config.sampling.get("max_tokens") or 0)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._gate: asyncio.Semaphore | None = None
        self._jitter = random.Random()

    def _bind(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._gate is None or self._loop is not loop or not self._open():
            self._start()
            self._gate = asyncio.Semaphore(self.config.concurrency)
            self._loop = loop
        return self._gate

    def _open(self) -> bool:
        """Whether what the transport holds for the current loop is still usable."""
        return True

    def _start(self) -> None:
        """Set up the transport for the running loop."""

    async def _attempt(self, request: Any) -> Attempt:
        """Send ``request`` once; raise ``TransportError`` (or aiohttp's errors, or TimeoutError) when
        no answer came."""
        raise NotImplementedError

    def estimate_tokens(self, size: int) -> int:
        """The tokens booked against ``tokens_per_minute`` for a request of ``size`` bytes until its
        reply says: about four bytes a token, plus the most the reply may take."""
        return size // 4 + self._reply_tokens

    async def complete(self, request: Any, size: int = 0) -> Completion:
        """The first usable reply to a request (``size``: its bytes, for the rate limit's estimate).
        ``ContextOverflow`` when the server refuses the conversation as too long for the model;
        ``InfraError`` once retries are spent, on another non-retryable status, or at the deadline
        (``timeouts.total`` from the first attempt's start: the read timeout restarts with every
        byte, so only a deadline ends a trickling reply)."""
        gate = self._bind()
        cfg = self.config
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        last = "no attempt"
        for attempt in range(cfg.max_retries + 1):
            retry_after: float | None = None
            booking = await self.limiter.acquire(self.estimate_tokens(size)) if self.limiter else None
            async with gate:
                if deadline is None:  # waiting for the gate is this client's queue, not the endpoint's time
                    deadline = loop.time() + cfg.total_timeout_s
                scope = asyncio.timeout_at(deadline)
                try:
                    async with scope:
                        started = time.perf_counter()
                        answer = await self._attempt(request)
                        latency = time.perf_counter() - started
                    status, body, retry_after = answer.status, answer.body, answer.retry_after
                except (aiohttp.ClientError, TimeoutError, TransportError) as exc:
                    if scope.expired():
                        raise InfraError(self._overdue(attempt + 1, last)) from None
                    status, body = 0, b""
                    last = f"{type(exc).__name__}: {self._excerpt(str(exc)) or 'no detail'}"
            if booking is not None and status != 200:
                RateLimiter.settle(booking, 0)
            if status == 200:
                if body is None:  # the model's reply, too long to read: no retry would be shorter
                    return Completion(
                        None,
                        latency,
                        attempt,
                        "oversized_reply",
                        f"(a reply of over {cfg.max_response_bytes} bytes, not read)",
                    )
                try:
                    data = _completion(body)
                except RecursionError:  # nested too deep to decode: the model wrote it, so it is its error
                    return Completion(None, latency, attempt, "undecodable_reply", self._excerpt(_text(body)))
                if data is not None:
                    if booking is not None:
                        RateLimiter.settle(booking, _used_tokens(data, int(booking[1])))
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
        return (
            f"{self.url}: no usable reply within timeouts.total={self.config.total_timeout_s:g} s "
            f"({attempts} attempt(s); last: {last if last != 'no attempt' else 'the reply was still arriving'})"
        )

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
        self._gate = self._loop = None


class ChatEndpoint(RetryingEndpoint):
    """POSTs chat completions to one OpenAI-compatible endpoint over a pooled aiohttp session (which,
    like the semaphore, belongs to the loop that first uses it: aiohttp objects cannot cross loops)."""

    def __init__(self, config: OpenAIConfig) -> None:
        super().__init__(config)
        self.config: OpenAIConfig = config
        self.url = f"{config.base_url}/chat/completions"
        self._target = URL(self.url)  # parsed once, not on every request
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> bool:
        return self._session is not None and not self._session.closed

    def _start(self) -> None:
        cfg = self.config
        headers = {"Content-Type": "application/json"}
        if cfg.api_key:
            headers["Authorization"] = f"Bearer {cfg.api_key}"
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=cfg.concurrency),
            cookie_jar=aiohttp.DummyCookieJar(),  # an API takes no cookies; filtering the jar cost ~50 µs a request
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=cfg.connect_timeout_s, sock_read=cfg.read_timeout_s),
            headers=headers,
        )

    async def _attempt(self, request: bytes) -> Attempt:
        assert self._session is not None
        async with self._session.post(self._target, data=request) as response:
            body = await _body(response, self.config.max_response_bytes)
            return Attempt(response.status, body, _retry_after(response.headers.get("Retry-After")))

    async def complete(self, request: bytes, size: int | None = None) -> Completion:
        return await super().complete(request, len(request) if size is None else size)

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None
        await super().aclose()


def _used_tokens(data: dict[str, Any], estimate: int) -> int:
    """The tokens a reply reports using (``usage.total_tokens``, or prompt plus completion), else the estimate."""
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return estimate
    total = _count(usage.get("total_tokens"))
    if total is None:
        parts = [_count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))]
        total = sum(p for p in parts if p is not None) if any(p is not None for p in parts) else None
    return estimate if total is None else total


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


class ChatPlanner:
    """A model planner, one request per step, whatever API carries it: the subclass builds the request
    and its endpoint sends it (``RetryingEndpoint``); the reply is read here, the same for every API
    (``planners.messages.parse_reply``: format errors, the size limits, tokens and latency).

    Usage recorded per step: prompt and completion tokens (from the reply's ``usage``), the latency
    of the successful request, retries, finish reason, the raw reply message, and whether the call
    was recovered from ``content``. The API key is masked in every reply before anything reads it.
    """

    config: EndpointConfig
    endpoint: RetryingEndpoint

    def __init__(self, config: EndpointConfig) -> None:
        self.name = config.name
        self.config = config
        self._encoded_tool: dict[tuple[str, str], bytes] = {}  # by name and description
        self._encoded_tools: dict[int, _EncodedTools] = {}  # by the id of the list

    def _tools(self, tools: list[dict[str, Any]]) -> _EncodedTools:
        """A tools list's JSON and names, once per list: an episode passes the same list at every step
        until a skill grows its action space (``Episode.tool_schemas``; its callers never change it)."""
        entry = self._encoded_tools.get(id(tools))
        if entry is None or entry.tools is not tools:
            if len(self._encoded_tools) >= TOOLS_LISTS_CACHE:
                self._encoded_tools.clear()
            entry = self._encoded_tools[id(tools)] = _EncodedTools(
                tools, b",".join(self._tool_json(t) for t in tools), frozenset(t["function"]["name"] for t in tools)
            )
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

    async def _complete(self, observation: Observation) -> Completion:
        raise NotImplementedError

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        return self.action(await self._complete(observation), self._tools(observation.tools).names)

    def action(self, completion: Completion, offered: frozenset[str]) -> PlannerAction:
        """The step's action from a completion: the one tool call of the reply, or its format error."""
        if completion.data is None:  # unreadable for a reason of the model's: its format error
            usage = {
                "latency_s": round(completion.latency_s, 6),
                "retries": completion.retries,
                "raw_reply": {"role": "assistant", "content": completion.raw, "clipped": True},
            }
            return PlannerAction(None, raw=completion.raw, format_error=completion.format_error, usage=usage)
        choice = completion.data["choices"][0]
        try:
            message = self._masked(choice["message"])
            parsed = parse_reply(message, offered, max_chars=self.config.max_reply_chars)
        except RecursionError:  # a value nested about as deep as the decoder reaches: walking it again fails
            message, parsed = {}, ParsedReply(None, format_error="undecodable_reply")
        kept = parsed.format_error not in ("oversized_reply", "undecodable_reply")  # else only the clipped raw
        finish_reason = choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None
        tokens = completion.data.get("usage")
        tokens = tokens if isinstance(tokens, dict) else {}
        usage = {
            "prompt_tokens": _count(tokens.get("prompt_tokens")),
            "completion_tokens": _count(tokens.get("completion_tokens")),
            "cached_prompt_tokens": _cached(tokens),
            "latency_s": round(completion.latency_s, 6),
            "retries": completion.retries,
            "finish_reason": finish_reason,
            "raw_reply": message if kept else {"role": "assistant", "content": parsed.raw, "clipped": True},
            "recovered_from_content": parsed.recovered_from_content,
        }
        if parsed.format_error:
            kind = parsed.format_error
            if finish_reason == "length" and kind in FORMAT_ERROR_KINDS:  # cut off: by max_tokens or the context?
                if (
                    cut := self.cut_by_context(
                        _count(tokens.get("prompt_tokens")), _count(tokens.get("completion_tokens"))
                    )
                ) is not None:
                    raise ContextOverflow(cut)
                kind = "truncated_reply"
            return PlannerAction(None, raw=parsed.raw, format_error=kind, usage=usage)
        return PlannerAction(parsed.name, parsed.arguments, raw=parsed.raw, usage=usage)

    def cut_by_context(self, prompt_tokens: int | None, completion_tokens: int | None) -> str | None:
        """Why a reply that stopped for its length was cut by the room the context had left, not by
        ``max_tokens``; None when ``max_tokens`` cut it, or when nothing says which did.

        A server may lower ``max_tokens`` to the room left instead of refusing the request (vLLM does:
        an 8,190-token prompt against an 8,192-token context gets two tokens), so it is read from the
        usage the reply reports: a reply shorter than the ``max_tokens`` asked for met the end of the
        context. That is the conversation outgrowing it (``context_overflow``); ``truncated_reply`` is
        the model using up its own ``max_tokens`` (or a cut no usage explains)."""
        asked = self.config.sampling.get("max_completion_tokens") or self.config.sampling.get("max_tokens")
        if completion_tokens is None or asked is None or completion_tokens >= int(asked):
            return None
        total = f"{prompt_tokens} + {completion_tokens} tokens" if prompt_tokens is not None else "the reply"
        return f"the reply was cut at the end of the model's context ({total}; max_tokens {asked} not reached)"

    def _masked(self, message: dict[str, Any]) -> dict[str, Any]:
        """The reply with the API key's value masked, should the server or the model repeat it: the
        reply is kept in the trajectory and goes back into the conversation."""
        return _mask(message, self.config.api_key) if self.config.api_key else message

    async def aclose(self) -> None:
        """Close the HTTP session (call once the run's episodes are done)."""
        await self.endpoint.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


class OpenAICompatPlanner(ChatPlanner):
    """A model behind an OpenAI-compatible ``/v1/chat/completions`` (vLLM, a hosted service): the
    request is JSON built once per step (``request_body``); the API key is sent only as the
    Authorization header."""

    config: OpenAIConfig
    endpoint: ChatEndpoint

    def __init__(self, config: OpenAIConfig) -> None:
        super().__init__(config)
        self.endpoint = ChatEndpoint(config)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> OpenAICompatPlanner:
        return cls(OpenAIConfig.from_mapping(config))

    def request_body(self, observation: Observation) -> bytes:
        """The request for one step as JSON: ``tools`` first, then the rest with sorted keys, so the same
        episode state always gives the same bytes; each tool's JSON is encoded once (``_tool_json``), and
        each tools list joined once (``_tools``)."""
        rest = {
            "model": self.config.model,
            "messages": chat_messages(observation.query, observation.history, observation.context),
            "tool_choice": self.config.tool_choice,
            "stream": False,
            **self.config.body,
        }
        if "tools" in rest:  # extra_body overrides the tools
            return encode(rest)
        return b"".join((b'{"tools":[', self._tools(observation.tools).encoded, b"],", memoryview(encode(rest))[1:]))

    async def _complete(self, observation: Observation) -> Completion:
        return await self.endpoint.complete(self.request_body(observation))
