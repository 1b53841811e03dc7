"""The scripted server's own contract: routes, refusals of bodies it cannot read, recorded bodies."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

from planners.scripted_server import ScriptedServer
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
        out.append((server.stats.requests, server.stats.bodies))
        return out


def _opening(task_index: int) -> bytes:
    task = TASKS[task_index]
    messages = [{"role": "system", "content": "sys"}, *({"role": m.role, "content": m.content} for m in task.history),
                {"role": "user", "content": task.query}]
    return json.dumps({"model": "scripted", "messages": messages, "tools": []}).encode()


def test_routes_and_refusals_name_the_problem() -> None:
    (health, _), (models, listing), (missing, lost), (wrong, refused), (bad, unreadable), (typed, mistyped), _ = (
        asyncio.run(_exchange({}, ("GET", "/health", None), ("GET", "/v1/models", None), ("GET", "/v2/x", None),
                              ("GET", "/v1/chat/completions", None), ("POST", "/v1/chat/completions", b"{not json"),
                              ("POST", "/v1/chat/completions", b'{"messages": "hello"}'))))
    assert (health, models, missing, wrong, bad, typed) == (200, 200, 404, 405, 400, 400)
    assert listing["data"][0]["id"] == "scripted"
    assert "/v2/x" in lost["error"]["message"] and "GET" in refused["error"]["message"]
    assert "not a chat completion request" in unreadable["error"]["message"]
    assert "messages" in mistyped["error"]["message"]


def test_gold_reply_and_recorded_bodies() -> None:
    body = _opening(0)
    (status, reply), (requests, bodies) = asyncio.run(_exchange({}, ("POST", "/v1/chat/completions", body)))
    call = reply["choices"][0]["message"]["tool_calls"][0]["function"]
    assert status == 200 and call["name"] == TASKS[0].gold[0].name
    assert json.loads(call["arguments"]) == TASKS[0].gold[0].arguments
    assert requests == 1 and bodies == [json.loads(body)]
    (status, _), (requests, bodies) = asyncio.run(_exchange({"keep_bodies": False},
                                                            ("POST", "/v1/chat/completions", body)))
    assert status == 200 and requests == 1 and bodies == []
