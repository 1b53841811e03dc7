"""A real vLLM server on the CPU with the tiny random-weight model (``make test-vllm``).

Proves the launch, readiness, request and teardown path end to end. The model's replies are noise,
so the tests only demand well-formed OpenAI responses; malformed ``<tool_call>`` text is exactly the
traffic the planner's format-error path must survive. Needs VLLM_PYTHON (the .venv-vllm python) and
TINY_MODEL (built by ``python -m experiments.bench.tiny_model``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from cluster.vllm import VLLMServer, group_alive
from experiments.episodes.loop import EpisodeResult, run_episode
from planners.openai_compat import OpenAICompatPlanner
from sandbox.episode import FORMAT_ERROR_STEP, FORMAT_ERRORS
from sandbox.suite import load_split

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(600)]

MODEL_NAME = "tiny-qwen2"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather in a city.",
            "parameters": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "send_message",
            "description": "Send a text message to a contact.",
            "parameters": {
                "type": "object",
                "required": ["contact", "text"],
                "properties": {"contact": {"type": "string"}, "text": {"type": "string"}},
            },
        },
    },
]
# A finished call and its result, so the chat template's tool-call and tool-result branches run too.
HISTORY = [
    {"role": "system", "content": "You are a phone assistant. Use the tools."},
    {"role": "user", "content": "What is the weather in Paris? Then tell Wang Lei."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 21, "sky": "sunny"}'},
]


@pytest.fixture(scope="module")
def vllm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VLLMServer]:
    """The running server (tiny model, hermes parser); after the module, asserts it is gone."""
    python = os.environ.get("VLLM_PYTHON", "")
    model = os.environ.get("TINY_MODEL", "")
    if not python or not model:
        pytest.skip("set VLLM_PYTHON and TINY_MODEL (make test-vllm does)")
    assert Path(python).exists(), f"VLLM_PYTHON={python} does not exist"
    assert (Path(model) / "config.json").exists(), f"TINY_MODEL={model} holds no model"
    config = {
        "model": model,
        "served_model_name": MODEL_NAME,
        "vllm": {
            "tool_call_parser": "hermes",
            "serve_args": ["--enforce-eager", "--max-model-len", "16384"],
        },
    }
    server = VLLMServer(
        config,
        python=python,
        env={"VLLM_CPU_KVCACHE_SPACE": "1"},
        run_dir=tmp_path_factory.mktemp("vllm"),
        startup_timeout=300,
    )
    with server:
        yield server
    assert server.process is not None and server.process.returncode is not None
    assert not group_alive(server.process.pid), "vLLM workers outlived stop()"


async def chat(base_url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    timeout = aiohttp.ClientTimeout(total=120)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.post(f"{base_url}/chat/completions", json=body) as r,
    ):
        return r.status, await r.json(content_type=None)


def assert_well_formed(reply: dict[str, Any]) -> None:
    """The OpenAI chat.completion shape a client relies on, whatever the text says."""
    assert reply["object"] == "chat.completion" and reply["id"] and reply["model"] == MODEL_NAME
    (choice,) = reply["choices"]
    assert choice["finish_reason"] in {"stop", "length", "tool_calls"}
    message = choice["message"]
    assert message["role"] == "assistant"
    assert message["content"] is None or isinstance(message["content"], str)
    for call in message.get("tool_calls") or []:
        assert call["type"] == "function" and call["id"]
        assert isinstance(call["function"]["name"], str)
        assert isinstance(call["function"]["arguments"], str)
    usage = reply["usage"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0


@pytest.mark.parametrize("tool_choice", ["auto", "required"])
@pytest.mark.parametrize("messages", [HISTORY[:2], HISTORY], ids=["first_turn", "after_tool"])
def test_chat_completions_with_tools(vllm_server: VLLMServer, tool_choice: str, messages: list[dict[str, Any]]) -> None:
    body = {
        "model": MODEL_NAME,
        "messages": messages,
        "tools": TOOLS,
        "tool_choice": tool_choice,
        "max_tokens": 48,
        "temperature": 0.0,
    }
    status, reply = asyncio.run(chat(vllm_server.base_url, body))
    assert status == 200, reply
    assert_well_formed(reply)


def test_handwritten_tasks_through_the_planner(vllm_server: VLLMServer) -> None:
    """The benchmark's own path: episodes through the OpenAI-compatible planner against real vLLM.

    Every episode must end with a verdict and no infra error; the tiny model's noise must come back
    as classified format errors (each one a step the model was told about).
    """
    tasks = load_split("handwritten.jsonl")[:8]
    planner = OpenAICompatPlanner.from_config(
        {
            "name": "tiny",
            "kind": "openai",
            "model": MODEL_NAME,
            "base_url": vllm_server.base_url,
            "concurrency": 8,
            "timeouts": {"connect": 5, "read": 300},
            "retries": {"max": 2, "backoff_s": 1, "max_backoff_s": 5},
            "sampling": {"temperature": 0.0, "max_tokens": 48, "seed": 0},
            "tool_choice": "auto",
        }
    )

    async def run_all() -> list[EpisodeResult]:
        try:
            return list(await asyncio.gather(*(run_episode(t, planner, t_max=3) for t in tasks)))
        finally:
            await planner.aclose()

    results = asyncio.run(run_all())
    assert len(results) == len(tasks)
    for r in results:
        assert r.trajectory.termination != "infra_error", r.verdict.reasons
        assert r.verdict.scorable and r.verdict.task_id == r.task.task_id
    steps = [s for r in results for s in r.trajectory.steps]
    errors = [s.planner["format_error"] for s in steps if s.name == FORMAT_ERROR_STEP]
    assert errors, "the tiny model's replies should be noise"
    assert set(errors) <= set(FORMAT_ERRORS)
    cut = [s for s in steps if s.name == FORMAT_ERROR_STEP and s.planner.get("finish_reason") == "length"]
    assert all(s.planner["format_error"] == "truncated_reply" for s in cut)  # cut off at max_tokens 48
    assert all(s.planner.get("prompt_tokens", 0) > 1000 for s in steps)
