"""The OpenAI-compatible planner against the scripted server: scoring, format errors, retries, infra
errors, timeouts, latency, the concurrency cap and the API key. Backoff runs in milliseconds."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import socket
from typing import Any

import pytest

from experiments.bench.scripted_server import ScriptedServer
from experiments.episodes.loop import EpisodeResult, run_episode, run_many
from planners import InfraError, OpenAICompatPlanner, build_planner
from planners.messages import FORMAT_ERROR_KINDS
from sandbox.episode import FORMAT_ERROR_STEP, T_MAX, Episode
from sandbox.suite import load_split
from sandbox.tasks import Task

TASKS = load_split("handwritten.jsonl")
BY_ID = {t.task_id: t for t in TASKS}
KEY = "sk-scripted-0123456789"


def config(base_url: str, **overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "scripted",
        "kind": "openai",
        "model": "scripted",
        "base_url": base_url,
        "concurrency": 8,
        "timeouts": {"connect": 1.0, "read": 2.0},
        "retries": {"max": 2, "backoff_s": 0.001, "max_backoff_s": 0.01},
        "sampling": {"temperature": 0.0, "seed": 0, "max_tokens": 256},
        "extra_body": {"top_k": 1},
        "tool_choice": "auto",
    }
    return {**base, **overrides}


def planner_for(server: ScriptedServer, **overrides: Any) -> OpenAICompatPlanner:
    planner = build_planner(config(server.base_url, **overrides))
    assert isinstance(planner, OpenAICompatPlanner)
    return planner


async def episodes(
    policy: str, tasks: list[Task], *, server_kw: dict[str, Any] | None = None, at_once: int = 16, **overrides: Any
) -> tuple[ScriptedServer, list[EpisodeResult]]:
    async with (
        ScriptedServer(TASKS, policy, **(server_kw or {})) as server,
        planner_for(server, **overrides) as planner,
    ):
        results = [r async for r in run_many(tasks, planner, concurrency=at_once)]
    return server, sorted(results, key=lambda r: r.task.task_id)


def test_gold_replays_like_the_oracle_where_steps_are_refused_or_openings_nest() -> None:
    """Under ``sor`` a gold domain call before load_skill is refused (a step without a tool result), and a
    multi-turn task's opening extends other tasks' queries: the server must still replay each task's own
    gold, one action per step, as the oracle does."""
    suite = load_split("full.jsonl")
    cases = [t for t in suite if t.category == "skill" or t.history]

    async def run() -> list[EpisodeResult]:
        async with ScriptedServer(suite, "gold") as server, planner_for(server, concurrency=32) as planner:
            return [r async for r in run_many(cases, planner, concurrency=32, condition="both")]

    results = asyncio.run(run())
    assert len(results) == len(cases) + sum(t.category == "skill" for t in cases)
    assert [r.key for r in results if not r.verdict.passed] == []


def test_gold_over_the_handwritten_split_scores_100_percent() -> None:
    server, results = asyncio.run(episodes("gold", TASKS))
    assert len(results) == len(TASKS)
    assert all(r.verdict.passed for r in results), [r.verdict.reasons for r in results if not r.verdict.passed]
    steps = [s for r in results for s in r.trajectory.steps]
    assert all(s.planner["prompt_tokens"] > 0 and s.planner["completion_tokens"] > 0 for s in steps)
    assert all(s.planner["latency_s"] > 0 for s in steps)  # retries depend on load, not on the code
    assert all(s.planner["finish_reason"] == "tool_calls" and s.planner["raw_reply"]["tool_calls"] for s in steps)
    body = server.stats.bodies[0]
    assert body["model"] == "scripted" and body["stream"] is False and body["tool_choice"] == "auto"
    assert body["top_k"] == 1 and body["seed"] == 0 and body["temperature"] == 0.0


def test_requests_are_append_only_and_deterministic() -> None:
    task = BY_ID["hw_skill_003"]  # load_skill changes the tool list mid-episode
    first, _ = asyncio.run(episodes("gold", [task]))
    second, _ = asyncio.run(episodes("gold", [task]))
    assert first.stats.bodies == second.stats.bodies
    chats = [b["messages"] for b in first.stats.bodies]
    assert len(chats) == len(task.gold)
    for earlier, later in itertools.pairwise(chats):
        assert later[: len(earlier)] == earlier and len(later) == len(earlier) + 2


def test_each_request_carries_the_tools_offered_at_its_step() -> None:
    """Tools lists are joined once per list: the list a skill grows, or any other list, is its own."""
    planner = build_planner(config("http://127.0.0.1:9/v1"))
    assert isinstance(planner, OpenAICompatPlanner)
    task = BY_ID["hw_skill_003"]
    with Episode(task) as episode:
        seen = []
        for action in task.gold:
            observation = episode.observation()
            assert json.loads(planner.request_body(observation))["tools"] == observation.tools
            seen.append(len(observation.tools))
            episode.step(action.name, action.arguments)
        assert len(set(seen)) > 1  # load_skill grew the action space mid-episode
        fewer = observation.tools[:2]
        body = json.loads(planner.request_body(dataclasses.replace(observation, tools=fewer)))
        assert body["tools"] == fewer


def test_hermes_calls_in_content_are_recovered_and_flagged() -> None:
    _, results = asyncio.run(episodes("content", TASKS))
    assert all(r.verdict.passed for r in results)
    assert all(s.planner["recovered_from_content"] for r in results for s in r.trajectory.steps)


@pytest.mark.faults
def test_each_format_error_is_recorded_fed_back_and_costs_a_step() -> None:
    task = BY_ID["hw_basic_001"]
    server, (result,) = asyncio.run(episodes(f"malformed:{len(FORMAT_ERROR_KINDS)}", [task]))
    steps = result.trajectory.steps
    n = len(FORMAT_ERROR_KINDS)
    assert [s.planner.get("format_error") for s in steps[:n]] == list(FORMAT_ERROR_KINDS)
    assert all(s.name == FORMAT_ERROR_STEP and s.envelope["Status"] == "error" for s in steps[:n])
    assert [s.name for s in steps[n:]] == [a.name for a in task.gold]
    assert result.verdict.passed and len(steps) == n + len(task.gold)
    fed_back = [m for m in server.stats.bodies[n]["messages"] if m["role"] == "user"][1:]
    assert [json.loads(m["content"])["Payload"]["format_error"] for m in fed_back] == list(FORMAT_ERROR_KINDS)


@pytest.mark.faults
def test_a_model_that_never_calls_a_tool_is_truncated_and_scored() -> None:
    _, (result,) = asyncio.run(episodes("malformed", [BY_ID["hw_basic_012"]]))
    assert result.trajectory.termination == "truncated" and len(result.trajectory.steps) == T_MAX
    assert result.verdict.scorable and not result.verdict.passed


@pytest.mark.faults
@pytest.mark.parametrize("code", [429, 500, 503])
def test_transient_errors_are_retried(code: int) -> None:
    server, (result,) = asyncio.run(episodes(f"status:{code}:2", [BY_ID["hw_basic_012"]]))
    assert result.verdict.passed
    assert result.trajectory.steps[0].planner["retries"] == 2 and server.stats.requests == 2 + 2


@pytest.mark.faults
@pytest.mark.parametrize("code", [429, 500, 503])
def test_persistent_errors_end_the_episode_as_an_unscorable_infra_error(code: int) -> None:
    server, (result,) = asyncio.run(episodes(f"status:{code}", [BY_ID["hw_basic_012"]]))
    assert result.trajectory.termination == "infra_error" and result.trajectory.steps == []
    assert not result.verdict.scorable and not result.verdict.passed
    assert server.stats.requests == 3  # retries.max = 2
    assert str(code) in (result.trajectory.infra_error or "")  # the user sees why, in the verdict too
    assert str(code) in result.verdict.reasons[0]


@pytest.mark.faults
def test_retry_after_is_honoured() -> None:
    wait = 0.25
    _server, (result,) = asyncio.run(
        episodes(
            "status:429:2",
            [BY_ID["hw_basic_012"]],
            server_kw={"retry_after_s": wait},
            retries={"max": 3, "backoff_s": 0.001, "max_backoff_s": 5.0},
        )
    )
    first = result.trajectory.steps[0].planner
    assert result.verdict.passed and first["retries"] == 2
    assert first["planner_latency_s"] >= 2 * wait


@pytest.mark.faults
def test_read_timeouts_are_retried_then_reported() -> None:
    async def scenario() -> tuple[ScriptedServer, str]:
        async with (
            ScriptedServer(TASKS, "hang") as server,
            planner_for(
                server,
                timeouts={"connect": 1.0, "read": 0.2},
                retries={"max": 1, "backoff_s": 0.001, "max_backoff_s": 0.01},
            ) as planner,
        ):
            with Episode(BY_ID["hw_basic_012"]) as episode, pytest.raises(InfraError) as caught:
                await planner.act(episode.task, episode.observation())
        return server, str(caught.value)

    server, message = asyncio.run(scenario())
    assert server.stats.requests == 2 and "gave up after 2 attempt(s)" in message
    assert "Timeout" in message and "/v1/chat/completions" in message


@pytest.mark.faults
def test_a_dead_endpoint_is_an_infra_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def scenario() -> EpisodeResult:
        async with OpenAICompatPlanner.from_config(config(f"http://127.0.0.1:{port}/v1")) as planner:
            return await run_episode(BY_ID["hw_basic_012"], planner)

    result = asyncio.run(scenario())
    assert result.trajectory.termination == "infra_error" and not result.verdict.scorable


@pytest.mark.faults
@pytest.mark.parametrize(
    ("server_kw", "tasks", "status"),
    [
        ({"api_key": "another-key"}, TASKS, 401),  # wrong key
        ({}, TASKS[1:], 400),  # the server does not know the task: a bad request
    ],
)
def test_other_client_errors_are_not_retried(server_kw: dict[str, Any], tasks: list[Task], status: int) -> None:
    async def scenario() -> tuple[ScriptedServer, str]:
        async with ScriptedServer(tasks, "gold", **server_kw) as server, planner_for(server, api_key=KEY) as planner:
            with Episode(TASKS[0]) as episode, pytest.raises(InfraError) as caught:
                await planner.act(episode.task, episode.observation())
        return server, str(caught.value)

    server, message = asyncio.run(scenario())
    assert server.stats.requests == 1 and f"HTTP {status} (not retried)" in message
    assert server.base_url in message and KEY not in message


def test_latency_is_recorded() -> None:
    _, (result,) = asyncio.run(episodes("latency:100", [BY_ID["hw_basic_012"]]))
    assert all(s.planner["latency_s"] >= 0.1 for s in result.trajectory.steps)


@pytest.mark.parametrize("limit", [2, 5])
def test_concurrency_limit_is_respected(limit: int) -> None:
    server, results = asyncio.run(episodes("latency:20", TASKS[:12], at_once=12, concurrency=limit))
    assert all(r.verdict.passed for r in results)
    assert server.stats.max_in_flight == limit  # though 12 episodes run at once


@pytest.mark.faults
def test_api_key_is_sent_as_a_header_and_never_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOBILEPA_TEST_KEY", KEY)
    server, results = asyncio.run(
        episodes("gold", TASKS[:3], server_kw={"api_key": KEY}, api_key_env="MOBILEPA_TEST_KEY")
    )
    assert all(r.verdict.passed for r in results)
    assert set(server.stats.authorization) == {f"Bearer {KEY}"}
    recorded = json.dumps([r.trajectory.to_json() for r in results], default=str)
    assert KEY not in recorded
    planner = build_planner(config(server.base_url, api_key_env="MOBILEPA_TEST_KEY"))
    assert KEY not in repr(planner.config) and KEY not in repr(vars(planner))
