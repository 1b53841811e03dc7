"""A scripted OpenAI-compatible server for tests and client benchmarks (no model, no GPU).

``POST /v1/chat/completions``, ``GET /v1/models`` (with vLLM's ``max_model_len`` when given), vLLM's
``POST /tokenize`` (about four bytes a token) and ``GET /health``, with a policy chosen per server:

- ``gold``: finds the task whose H0 and query open the conversation and answers with the gold action
  at the index given by how many tool results the conversation holds (so the gold resumes after a
  format error, which is fed back as a user message).
- ``content``: like ``gold``, but the call is written Hermes-style into ``content`` with no
  ``tool_calls`` (a server whose tool parser does not match the model).
- ``malformed`` / ``malformed:<n>``: cycles the four format errors (plain text, unknown tool, arguments
  that are not JSON, two calls); with ``<n>``, only the first n requests, then ``gold``.
- ``status:<code>`` / ``status:<code>:<n>``: answers HTTP <code> (a 429 carries Retry-After), always
  or for the first n requests, then ``gold``.
- ``hang``: waits ``hang_s`` (past any client read timeout in tests), then ``gold``.
- ``latency:<ms>``: answers as ``gold``, the reply leaving that long after the request arrived (the
  server's own work falls inside that time, as a model server's does).

Replies carry ``usage`` token counts (about four bytes per token). ``stats`` records requests,
in-flight peaks and (unless ``keep_bodies=False``, as a long benchmark runs it) each request's
Authorization header and body, for assertions. ``stop()`` then ``start()`` again is a restart on
the same port (``port=`` picks the port up front, e.g. one that refuses connections until the
server first starts).

The server stands in for a GPU node, so its own CPU must stay small next to the clients' (the
LLM-bound benchmark runs both on one machine, and with 256 requests in flight every microsecond the
server spends on one is spent 256 times a round on the one event loop all replies go through): it
speaks HTTP/1.1 on an asyncio protocol, parsed by httptools (llhttp, the parser uvicorn runs under
vLLM's server; requests kept alive and pipelined, bodies by Content-Length or chunked), which costs
about half of what aiohttp's server did,
and it decodes only what it reads of a request (roles, contents, whether calls were made, the tool
names) with msgspec, which skips the tool schemas, about 90 % of every body.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from types import TracebackType
from typing import Any, Self, cast

import httptools
import msgspec

from planners.messages import FORMAT_ERROR_KINDS
from sandbox.tasks import Action, Task

HOST = "127.0.0.1"
LISTEN_BACKLOG = (
    2048  # as uvicorn (vLLM's server); a backlog of 128 drops connects past it, and the kernel retries them after 1 s
)
MAX_HEAD_BYTES = 65536  # request line and headers; a longer head is refused (431)


@dataclass(frozen=True)
class Request:
    """One HTTP request as the routes read it (header names lower-cased)."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes
    received: float  # the loop's clock when the request had all arrived


@dataclass(frozen=True)
class Reply:
    """One HTTP response: a status, a JSON body (or none), extra headers."""

    status: int
    body: bytes = b""
    headers: Mapping[str, str] | None = None

    def encode(self, keep_alive: bool) -> bytes:
        head = [f"HTTP/1.1 {self.status} {_phrase(self.status)}", f"Content-Length: {len(self.body)}"]
        if self.body:
            head.append("Content-Type: application/json")
        head += [f"{name}: {value}" for name, value in (self.headers or {}).items()]
        if not keep_alive:
            head.append("Connection: close")
        return "\r\n".join(head).encode("latin-1") + b"\r\n\r\n" + self.body


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _json(status: int, document: Any, headers: Mapping[str, str] | None = None) -> Reply:
    return Reply(status, msgspec.json.encode(document), headers)


class _Refusal(Exception):
    """A request the server cannot read: answered with ``status`` and the connection closed."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _Connection(asyncio.Protocol):
    """One client connection: its requests parsed by httptools (llhttp, as uvicorn parses them) as they
    arrive, and answered one at a time, in the order they came."""

    def __init__(self, server: ScriptedServer) -> None:
        self._server = server
        self._parser = httptools.HttpRequestParser(self)
        self._transport: asyncio.Transport | None = None
        self._pending: deque[tuple[Request, bool] | _Refusal] = deque()  # parsed, not yet answered
        self._serving: asyncio.Task[None] | None = None
        self._done = False  # a request closed the connection, or one could not be read: nothing more is parsed
        # the request being parsed
        self._url = bytearray()
        self._headers: dict[str, str] = {}
        self._body: list[bytes] = []
        self._head_bytes = 0
        self._complete = True  # no request partly parsed
        self._continue = False  # it asked ``Expect: 100-continue`` and was not answered yet

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # a stream transport (uvloop's subclass none of asyncio's)
        self._server._connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self._server._connections.discard(self)
        if self._serving is not None:  # the client is gone: nothing to answer
            self._serving.cancel()

    def data_received(self, data: bytes) -> None:
        if self._done:
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._refuse(_Refusal(400, "scripted server: protocol upgrades are not served"))
        except httptools.HttpParserError as exc:
            cause = exc.__context__ if isinstance(exc.__context__, _Refusal) else None
            self._refuse(cause or _Refusal(400, f"scripted server: cannot read the request: {exc}"))
        if self._continue and not self._complete and self._transport is not None:
            self._continue = False
            self._transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        if self._serving is None:
            self._next()

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    # ---- httptools callbacks ----

    def on_message_begin(self) -> None:
        self._url = bytearray()
        self._headers = {}
        self._body = []
        self._head_bytes = 0
        self._complete = False

    def _count(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > MAX_HEAD_BYTES:
            raise _Refusal(431, f"scripted server: request head over {MAX_HEAD_BYTES} bytes")

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        self._url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value))
        self._headers[name.decode("latin-1").lower()] = value.decode("latin-1").strip()

    def on_headers_complete(self) -> None:
        self._continue = self._headers.get("expect", "").lower() == "100-continue"

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        keep_alive = bool(self._parser.should_keep_alive())
        method = self._parser.get_method().decode("latin-1")
        path = bytes(self._url).partition(b"?")[0].decode("latin-1")
        received = asyncio.get_running_loop().time()
        self._pending.append((Request(method, path, self._headers, b"".join(self._body), received), keep_alive))
        self._complete, self._continue = True, False
        if not keep_alive:  # what follows on this connection is never answered
            self._done = True

    # ---- answering ----

    def _refuse(self, refusal: _Refusal) -> None:
        self._pending.append(refusal)
        self._done = True

    def _next(self) -> None:
        if not self._pending:
            return
        item = self._pending.popleft()
        if isinstance(item, _Refusal):
            self._pending.clear()
            self._send(_error(item.status, str(item)), keep_alive=False)
            return
        self._serving = asyncio.get_running_loop().create_task(self._serve(*item))

    async def _serve(self, request: Request, keep_alive: bool) -> None:
        try:
            reply = await self._server._dispatch(request)
        except Exception as exc:  # any: a route's bug is the caller's 500, not a dropped connection
            reply = _error(500, f"scripted server: {type(exc).__name__}: {exc}")
        self._serving = None
        self._send(reply, keep_alive)
        if keep_alive:
            self._next()

    def _send(self, reply: Reply, keep_alive: bool) -> None:
        assert self._transport is not None
        self._transport.write(reply.encode(keep_alive))
        if not keep_alive:
            self._pending.clear()
            self._transport.close()


@dataclass
class ServerStats:
    """What the server saw: for assertions on concurrency, auth and prompt shape."""

    requests: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    authorization: list[str | None] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)


class _Function(msgspec.Struct, frozen=True, gc=False):
    name: Any = None


class _Tool(msgspec.Struct, frozen=True, gc=False):
    function: _Function = _Function()


class Message(msgspec.Struct, frozen=True, gc=False):
    """One chat message, as far as the server reads it: ``tool_calls`` and ``content`` left undecoded
    (tool results are most of a long conversation, and the server reads none of them). The decoded
    structs hold no references back, so the collector need not track them (``gc=False``): with the
    default tracking, collections were a fifth of the server's CPU in the LLM-bound benchmark."""

    role: Any = None
    content: msgspec.Raw = msgspec.Raw(b"null")
    tool_calls: list[msgspec.Raw] | None = None

    @property
    def text(self) -> Any:
        """The decoded content (a string, None, or whatever else a client sent)."""
        return msgspec.json.decode(self.content)


class ChatRequest(msgspec.Struct, frozen=True, gc=False):
    """A chat-completions request, as far as the server reads it."""

    messages: list[Message] = []
    tools: list[_Tool] = []

    @property
    def tool_names(self) -> list[Any]:
        return [t.function.name for t in self.tools]


_DECODE = msgspec.json.Decoder(ChatRequest).decode


@dataclass(frozen=True)
class Policy:
    kind: str  # gold | content | malformed | status | hang | latency
    value: int = 0  # HTTP status for status, milliseconds for latency
    times: int | None = None  # requests the misbehaviour lasts (None: all)

    @classmethod
    def parse(cls, text: str) -> Policy:
        kind, _, rest = text.partition(":")
        parts = rest.split(":") if rest else []
        try:
            if kind in ("gold", "content", "hang") and not parts:
                return cls(kind)
            if kind == "malformed" and len(parts) <= 1:
                return cls(kind, times=int(parts[0]) if parts else None)
            if kind == "status" and len(parts) in (1, 2):
                return cls(kind, int(parts[0]), int(parts[1]) if len(parts) == 2 else None)
            if kind == "latency" and len(parts) == 1:
                return cls(kind, int(parts[0]))
        except ValueError:
            pass
        raise ValueError(
            f"scripted server: unknown policy {text!r} (gold, content, malformed[:n], "
            "status:<code>[:n], hang, latency:<ms>)"
        )


class ScriptedServer:
    """``async with ScriptedServer(tasks, "gold") as server:`` serves on ``host`` (127.0.0.1) at a free port;
    ``server.base_url`` is the ``/v1`` root an OpenAI client takes."""

    def __init__(
        self,
        tasks: Sequence[Task],
        policy: str = "gold",
        *,
        model: str = "scripted",
        retry_after_s: float = 0.0,
        hang_s: float = 30.0,
        api_key: str | None = None,
        max_model_len: int | None = None,
        port: int | None = None,
        host: str = HOST,
        keep_bodies: bool = True,
    ) -> None:
        self.policy = Policy.parse(policy)
        self.model = model
        self.retry_after_s = retry_after_s
        self.hang_s = hang_s
        self.api_key = api_key
        self.max_model_len = max_model_len
        self.stats = ServerStats()
        self.keep_bodies = keep_bodies
        self._openings: dict[tuple[tuple[str, str], ...], list[Task]] = {}
        for t in tasks:  # a skill task can open exactly like the Basic task its job comes from
            self._openings.setdefault(_opening(t), []).append(t)
        self._opening_lengths = sorted({len(o) for o in self._openings}, reverse=True)  # the longest opening wins
        self._stopping = asyncio.Event()
        self._listener: asyncio.Server | None = None
        self._connections: set[_Connection] = set()
        self._routes: dict[tuple[str, str], Callable[[Request], Awaitable[Reply]]] = {
            ("POST", "/v1/chat/completions"): self._chat,
            ("GET", "/v1/models"): self._models,
            ("POST", "/tokenize"): self._tokenize,
            ("GET", "/health"): self._health,
        }
        self.port: int | None = port
        self.host = host

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("scripted server: not started")
        return f"http://{self.host}:{self.port}/v1"

    async def start(self) -> None:
        """Serve on ``port`` (a free one the first time when none was given; the same one on a restart)."""
        self._stopping.clear()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart rebinds despite TIME_WAIT
        sock.bind((self.host, self.port or 0))
        self.port = int(sock.getsockname()[1])
        self._listener = await asyncio.get_running_loop().create_server(
            lambda: _Connection(self), sock=sock, backlog=LISTEN_BACKLOG
        )

    async def stop(self) -> None:
        """Stop listening and drop every open connection (requests in flight get no reply)."""
        self._stopping.set()  # releases hanging handlers at once
        if self._listener is not None:
            self._listener.close()
            for connection in list(self._connections):
                connection.close()
            await self._listener.wait_closed()
            self._listener = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    async def _dispatch(self, request: Request) -> Reply:
        handler = self._routes.get((request.method, request.path))
        if handler is not None:
            return await handler(request)
        if any(path == request.path for _, path in self._routes):
            return _error(405, f"scripted server: {request.method} not allowed on {request.path}")
        return _error(404, f"scripted server: no route {request.path}")

    async def _health(self, request: Request) -> Reply:
        return Reply(200)

    def _refused(self, request: Request) -> Reply | None:
        if self.api_key is not None and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return _error(401, "invalid API key")
        return None

    async def _models(self, request: Request) -> Reply:
        if refused := self._refused(request):
            return refused
        model: dict[str, Any] = {"id": self.model, "object": "model", "owned_by": "scripted"}
        if self.max_model_len is not None:
            model["max_model_len"] = self.max_model_len
        return _json(200, {"object": "list", "data": [model]})

    async def _tokenize(self, request: Request) -> Reply:
        """vLLM's ``/tokenize`` of a chat (messages and tools): the count, at the usage's four bytes a token."""
        if refused := self._refused(request):
            return refused
        asked = json.loads(request.body)
        size = len(json.dumps([asked.get("messages"), asked.get("tools")], separators=(",", ":")))
        return _json(200, {"count": size // 4, "max_model_len": self.max_model_len, "tokens": []})

    async def _chat(self, request: Request) -> Reply:
        stats = self.stats
        stats.requests += 1
        number = stats.requests
        stats.in_flight += 1
        stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        try:
            authorization = request.headers.get("authorization")
            if self.keep_bodies:
                stats.authorization.append(authorization)
            if refused := self._refused(request):
                return refused
            raw = request.body
            try:
                body = _DECODE(raw)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                return _error(400, f"scripted server: not a chat completion request: {exc}")
            if self.keep_bodies:
                stats.bodies.append(json.loads(raw))
            return await self._answer(body, len(raw), number, request.received)
        finally:
            stats.in_flight -= 1

    async def _answer(self, body: ChatRequest, size: int, number: int, received: float) -> Reply:
        """The reply to one request of ``size`` bytes (usage counts about four bytes per token) that
        arrived at ``received`` (the loop's clock)."""
        policy = self.policy
        misbehaving = policy.times is None or number <= policy.times
        if policy.kind == "status" and misbehaving:
            headers = {"Retry-After": f"{self.retry_after_s:g}"} if policy.value == 429 else None
            return _error(policy.value, f"scripted status {policy.value}", headers)
        if policy.kind == "hang":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.hang_s)
        if policy.kind == "malformed" and misbehaving:
            return self._reply(
                size, number, _malformed(FORMAT_ERROR_KINDS[(number - 1) % len(FORMAT_ERROR_KINDS)], body)
            )
        reply = self._gold_reply(body, size, number)
        if policy.kind == "latency":  # measured from arrival: the time spent reading and answering is part of it
            loop = asyncio.get_running_loop()
            await asyncio.sleep(max(0.0, received + policy.value / 1000 - loop.time()))
        return reply

    def _gold_reply(self, body: ChatRequest, size: int, number: int) -> Reply:
        """The gold action the conversation has reached, as tool calls (``content`` policy: as text), in
        reply to the server's request ``number``."""
        found = self._match(body)
        if found is None:
            return _error(400, "scripted server: no task opens with this conversation")
        task, since = found
        done = sum(_replays_gold(m, task) for m in since)
        action = task.gold[min(done, len(task.gold) - 1)]
        if self.policy.kind == "content":
            call = json.dumps({"name": action.name, "arguments": action.arguments})
            text = f"<tool_call>\n{call}\n</tool_call>"
            return self._reply(size, number, {"role": "assistant", "content": text})
        return self._reply(size, number, _calls([action]))

    def _match(self, body: ChatRequest) -> tuple[Task, list[Message]] | None:
        """The task whose H0 and query open the request's conversation, and the turns since; of tasks
        opening alike, the first that offers skills exactly when the request offers ``load_skill``."""
        turns = [m for m in body.messages if m.role != "system"]
        chat = tuple((m.role, m.text) for m in turns[: max(self._opening_lengths, default=0)])
        skills_offered = "load_skill" in body.tool_names
        for n in self._opening_lengths:
            alike = self._openings.get(chat[:n])
            if alike:
                return next((t for t in alike if bool(t.candidate_skills) == skills_offered), alike[0]), turns[n:]
        return None

    def _reply(self, size: int, number: int, message: dict[str, Any]) -> Reply:
        """A completion whose id names the request it answers (under ``latency`` and ``hang`` requests overlap)."""
        completion = len(msgspec.json.encode(message))
        usage = {"prompt_tokens": size // 4, "completion_tokens": completion // 4 + 1}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return _json(
            200,
            {
                "id": f"chatcmpl-scripted-{number}",
                "object": "chat.completion",
                "created": 0,
                "model": self.model,
                "usage": usage,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            },
        )


def _replays_gold(message: Message, task: Task) -> bool:
    """Whether a past turn was one of the task's gold actions: a dispatched call, or one the client
    refused as a format error because the tool was not offered (the oracle spends a step there too).
    The malformed replies this server injects never count."""
    if message.role != "assistant":
        return False
    if message.tool_calls:
        return True
    try:
        reply = json.loads(message.text or "")
    except (json.JSONDecodeError, TypeError, RecursionError):  # a reply nested too deep was the client's format error
        return False
    calls = reply.get("tool_calls") if isinstance(reply, dict) else None
    if not isinstance(calls, list) or len(calls) != 1 or not isinstance(calls[0], dict):
        return False
    try:
        arguments = json.loads(calls[0].get("arguments") or "{}")
    except (json.JSONDecodeError, TypeError, RecursionError):
        return False
    return isinstance(arguments, dict) and calls[0].get("name") in {a.name for a in task.gold}


def _opening(task: Task) -> tuple[tuple[str, str], ...]:
    return (*((m.role, m.content) for m in task.history), ("user", task.query))


def _calls(actions: Sequence[Action], arguments: str | None = None) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"chatcmpl-tool-{i}",
                "type": "function",
                "function": {"name": a.name, "arguments": json.dumps(a.arguments) if arguments is None else arguments},
            }
            for i, a in enumerate(actions)
        ],
    }


def _malformed(kind: str, body: ChatRequest) -> dict[str, Any]:
    tools = body.tool_names
    offered = Action(name=tools[0] if tools else "finish")
    if kind == "no_tool_call":
        return {"role": "assistant", "content": "Let me think about which app to open first."}
    if kind == "unknown_tool":
        return _calls([Action(name="teleport_user", arguments={"to": "home"})])
    if kind == "bad_arguments":
        return _calls([offered], arguments='{"name": "Mike')
    return _calls([offered, offered])


def _error(status: int, message: str, headers: Mapping[str, str] | None = None) -> Reply:
    return _json(status, {"error": {"message": message, "type": "scripted", "code": status}}, headers)
