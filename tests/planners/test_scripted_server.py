"""The scripted server's own contract: routes, refusals of bodies it cannot read, recorded bodies."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
import pytest

from experiments.bench import scripted_server
from experiments.bench.scripted_server import ScriptedServer
from sandbox.suite import load_split

TASKS = load_split("handwritten.jsonl")


async def _exchange(server_kw: dict[str, Any], *requests: tuple[str, str, bytes | None]) -> list[tuple[int, Any]]:
    async with ScriptedServer(TASKS, "gold", **server_kw) as server, aiohttp.ClientSession() as session:
        root = server.base_url.removesuffix("/v1")
        out = []
        for method, path, body in requests:
            async with session.request(method, root + path, data=body) as response:
                text = await response.text()
                out.append((response.status, json.loads(text) if text else None))
        out.append((server.stats.requests, (server.stats.bodies, server.stats.authorization)))
        return out


def _opening(task_index: int) -> bytes:
    task = TASKS[task_index]
    messages = [
        {"role": "system", "content": "sys"},
        *({"role": m.role, "content": m.content} for m in task.history),
        {"role": "user", "content": task.query},
    ]
    return json.dumps({"model": "scripted", "messages": messages, "tools": []}).encode()


def test_routes_and_refusals_name_the_problem() -> None:
    (health, _), (models, listing), (missing, lost), (wrong, refused), (bad, unreadable), (typed, mistyped), _ = (
        asyncio.run(
            _exchange(
                {},
                ("GET", "/health", None),
                ("GET", "/v1/models", None),
                ("GET", "/v2/x", None),
                ("GET", "/v1/chat/completions", None),
                ("POST", "/v1/chat/completions", b"{not json"),
                ("POST", "/v1/chat/completions", b'{"messages": "hello"}'),
            )
        )
    )
    assert (health, models, missing, wrong, bad, typed) == (200, 200, 404, 405, 400, 400)
    assert listing["data"][0]["id"] == "scripted"
    assert "/v2/x" in lost["error"]["message"] and "GET" in refused["error"]["message"]
    assert "not a chat completion request" in unreadable["error"]["message"]
    assert "messages" in mistyped["error"]["message"]


def test_gold_reply_and_recorded_bodies() -> None:
    body = _opening(0)
    (status, reply), (requests, (bodies, authorization)) = asyncio.run(
        _exchange({}, ("POST", "/v1/chat/completions", body))
    )
    call = reply["choices"][0]["message"]["tool_calls"][0]["function"]
    assert status == 200 and call["name"] == TASKS[0].gold[0].name
    assert json.loads(call["arguments"]) == TASKS[0].gold[0].arguments
    assert requests == 1 and bodies == [json.loads(body)] and authorization == [None]  # sent without a key
    (status, _), (requests, (bodies, authorization)) = asyncio.run(
        _exchange({"keep_bodies": False}, ("POST", "/v1/chat/completions", body))
    )
    assert (
        status == 200 and requests == 1 and bodies == [] and authorization == []
    )  # a long run keeps nothing per request


async def _raw(data: bytes) -> bytes:
    """What the server writes back to ``data`` sent on one raw connection, until it closes or goes quiet."""
    async with ScriptedServer(TASKS, "gold") as server:
        reader, writer = await asyncio.open_connection(server.host, server.port)
        writer.write(data)
        out = b""
        try:
            while chunk := await asyncio.wait_for(reader.read(65536), 0.5):
                out += chunk
        except TimeoutError:
            pass
        writer.close()
        return out


def _post(body: bytes, *headers: str) -> bytes:
    head = ["POST /v1/chat/completions HTTP/1.1", "Host: x", f"Content-Length: {len(body)}", *headers]
    return "\r\n".join(head).encode() + b"\r\n\r\n" + body


def test_kept_alive_requests_are_answered_in_order_and_close_when_asked() -> None:
    body = _opening(0)
    out = asyncio.run(
        _raw(
            b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
            + _post(body)
            + _post(body, "Connection: close")
            + b"GET /health HTTP/1.1\r\n\r\n"
        )
    )  # after the close: never answered
    replies = out.split(b"HTTP/1.1 ")[1:]
    assert [r.split(b" ", 1)[0] for r in replies] == [b"200", b"200", b"200"]
    assert b"Connection: close" in replies[2] and b"Connection: close" not in replies[1]
    assert replies[1].count(TASKS[0].gold[0].name.encode()) == 1


def test_a_body_sent_after_100_continue_is_read() -> None:
    async def scenario() -> tuple[bytes, bytes]:
        body = _opening(0)
        async with ScriptedServer(TASKS, "gold") as server:
            reader, writer = await asyncio.open_connection(server.host, server.port)
            writer.write(
                _post(b"", "Expect: 100-continue").replace(
                    b"Content-Length: 0", f"Content-Length: {len(body)}".encode()
                )
            )
            interim = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            writer.write(body)
            final = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            writer.close()
            return interim, final

    interim, final = asyncio.run(scenario())
    assert interim.startswith(b"HTTP/1.1 100 Continue") and final.startswith(b"HTTP/1.1 200 OK")


def test_a_chunked_body_is_read() -> None:
    body = _opening(0)
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:100], body[100:])) + b"0\r\n\r\n"
    out = asyncio.run(
        _raw(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked)
    )
    assert out.startswith(b"HTTP/1.1 200 OK") and out.count(TASKS[0].gold[0].name.encode()) == 1


def test_requests_it_cannot_read_are_refused_with_a_reason_and_the_connection_closed() -> None:
    cases = {
        b"NONSENSE\r\n\r\n": (b"400", b"cannot read the request"),
        b"POST /v1/chat/completions HTTP/1.1\r\nno colon here\r\n\r\n": (b"400", b"cannot read the request"),
        b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: -3\r\n\r\n": (b"400", b"cannot read the request"),
        b"GET /" + b"x" * 70000: (b"431", b"request head over"),
        b"GET /health HTTP/1.1\r\nX: " + b"y" * 70000 + b"\r\n\r\n": (b"431", b"request head over"),
    }
    for sent, (status, reason) in cases.items():
        out = asyncio.run(_raw(sent))
        assert out.startswith(b"HTTP/1.1 " + status) and reason in out and b"Connection: close" in out, (sent[:40], out)


def test_latency_counts_from_arrival_with_the_servers_own_work_inside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A model server's latency includes its own work: the reply waits only for what is left of it."""
    answer, real_sleep, waits = ScriptedServer._gold_reply, asyncio.sleep, []

    def slow_answer(self: ScriptedServer, body: Any, size: int, number: int) -> Any:
        time.sleep(0.06)  # the server's work on this request, after it arrived
        return answer(self, body, size, number)

    async def recorded_sleep(delay: float) -> None:
        waits.append(delay)
        await real_sleep(0)

    async def one_request() -> int:
        async with ScriptedServer(TASKS, "latency:100") as server, aiohttp.ClientSession() as session:
            monkeypatch.setattr(scripted_server.asyncio, "sleep", recorded_sleep)
            async with session.post(server.base_url + "/chat/completions", data=_opening(0)) as response:
                return response.status

    monkeypatch.setattr(ScriptedServer, "_gold_reply", slow_answer)
    assert asyncio.run(one_request()) == 200
    assert len(waits) == 1 and waits[0] <= 0.1 - 0.06


def test_each_completion_id_names_the_request_it_answers_when_replies_overlap() -> None:
    """Under ``hang`` a later request arrives before an earlier one is answered; each id is its own."""

    async def overlapping() -> list[str]:
        async with ScriptedServer(TASKS, "hang", hang_s=0.3) as server, aiohttp.ClientSession() as session:

            async def one(delay: float) -> str:
                await asyncio.sleep(delay)
                async with session.post(server.base_url + "/chat/completions", data=_opening(0)) as response:
                    return (await response.json())["id"]

            return await asyncio.gather(one(0.0), one(0.1))

    assert asyncio.run(overlapping()) == ["chatcmpl-scripted-1", "chatcmpl-scripted-2"]
