"""The pre-flight of a model endpoint: one line for an endpoint that is not there, a key it refuses (naming
the variable), a model it does not serve; the first requests counted against the served context, the
episodes that cannot fit named with the fix."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from experiments.bench.scripted_server import ScriptedServer
from planners.preflight import (
    ESTIMATED,
    PreflightError,
    PromptBudget,
    configured_context,
    first_observations,
    planned_budget,
    preflight,
)
from sandbox.suite import load_split

TASKS = load_split("handwritten.jsonl")
OBSERVATIONS = first_observations(TASKS, "both")
KEY = "sk-preflight-7c2d"


def config(base_url: str, **overrides: Any) -> dict[str, Any]:
    return {"kind": "openai", "name": "hosted", "model": "scripted", "base_url": base_url, **overrides}


def run_preflight(server: ScriptedServer, environ: dict[str, str] | None = None, **overrides: Any) -> PromptBudget:
    async def go() -> PromptBudget:
        async with server:
            return await preflight(config(server.base_url, **overrides), OBSERVATIONS, environ=environ or {})

    return asyncio.run(go())


def test_every_episode_of_a_split_has_its_first_request() -> None:
    assert len(OBSERVATIONS) == 34  # 28 tasks, the 6 skill ones twice under both
    key, first = OBSERVATIONS[0]
    assert first.step == 0 and first.tools and key == TASKS[0].task_id


def test_an_endpoint_that_is_not_there_is_one_line() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(PreflightError, match=rf"^planner hosted: http://127.0.0.1:{port}/v1 is not reachable \("):
        asyncio.run(preflight(config(f"http://127.0.0.1:{port}/v1"), OBSERVATIONS, environ={}))


def test_a_key_variable_that_is_not_set_is_named_before_any_episode() -> None:
    server = ScriptedServer(TASKS, api_key=KEY)
    with pytest.raises(PreflightError) as refused:
        run_preflight(server, api_key_env="HOSTED_API_KEY")
    message = str(refused.value)
    assert "answered HTTP 401 to /models" in message and "the key variable HOSTED_API_KEY is not set" in message
    assert "\n" not in message and server.stats.requests == 0, "no chat request was sent"


def test_a_refused_key_names_the_variable_it_came_from() -> None:
    with pytest.raises(PreflightError, match="the key in HOSTED_API_KEY was refused"):
        run_preflight(ScriptedServer(TASKS, api_key=KEY), {"HOSTED_API_KEY": "sk-wrong"}, api_key_env="HOSTED_API_KEY")
    budget = run_preflight(ScriptedServer(TASKS, api_key=KEY), {"HOSTED_API_KEY": KEY}, api_key_env="HOSTED_API_KEY")
    assert len(budget.tokens) == 34


def test_a_model_the_endpoint_does_not_serve_is_one_line_listing_what_it_serves() -> None:
    with pytest.raises(PreflightError, match=r"does not serve the model 'qwen3-8b' .*; it serves: scripted$"):
        run_preflight(ScriptedServer(TASKS), model="qwen3-8b")


def test_the_prompt_budget_is_counted_by_the_server_against_its_context() -> None:
    budget = run_preflight(ScriptedServer(TASKS))
    assert budget.counted_by == "counted by the server's /tokenize" and budget.context is None
    assert budget.refusal() is None and "the model's context is unknown (planner.context_tokens" in budget.summary()
    values = sorted(budget.tokens.values())
    median = values[len(values) // 2]
    small = run_preflight(ScriptedServer(TASKS, max_model_len=median), sampling={"max_tokens": 256})
    assert small.context == median and small.tokens == budget.tokens
    too_long = small.too_long()
    assert too_long == sorted(k for k, n in budget.tokens.items() if n >= median) and len(too_long) >= 17
    summary = small.summary()
    assert summary.startswith("prompt budget of hosted: 34 first requests, median ") and "p90" in summary
    assert f"against a context of {median:,}; {len(too_long)} cannot fit" in summary
    refusal = small.refusal()
    assert refusal is not None and "\n" not in refusal
    assert refusal.startswith(f"planner hosted: {len(too_long)} of 34 episodes' first request does not fit")
    assert "--max-model-len" in refusal and "retrieval.top_n" in refusal and "allow_prompt_overflow=true" in refusal


def test_without_a_server_the_budget_is_the_stated_estimate_against_the_configured_context() -> None:
    raw = config(
        None, vllm={"serve_args": ["--enforce-eager", "--max-model-len", "4096"]}, sampling={"max_tokens": 512}
    )
    assert configured_context(raw) == 4096
    assert configured_context({"vllm": {"serve_args": ["--max-model-len=2048"]}}) == 2048
    assert configured_context({"vllm": {"serve_args": []}}) is None
    budget = planned_budget(raw, OBSERVATIONS)
    assert budget.counted_by == ESTIMATED == "estimated at 4 bytes a token"
    assert budget.context == 4096 and budget.max_tokens == 512 and len(budget.tokens) == 34
    assert all(k in budget.tokens for k, _ in OBSERVATIONS)


def test_a_hosted_model_s_context_comes_from_the_config_unless_the_server_reports_its_own() -> None:
    stated = run_preflight(ScriptedServer(TASKS), context_tokens=1_000)  # a hosted API reports no context
    assert stated.context == 1_000 and len(stated.too_long()) == 34 and stated.refusal() is not None
    served = run_preflight(ScriptedServer(TASKS, max_model_len=1_000_000), context_tokens=1_000)
    assert served.context == 1_000_000 and served.refusal() is None
    assert planned_budget(config("http://pending/v1", context_tokens=1_000), OBSERVATIONS).context == 1_000
