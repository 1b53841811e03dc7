"""Hosted services: the presets compose and build, max_completion_tokens and reasoning_effort reach the
request, and the client-side rate limits hold (a fake clock; the scripted server, no network)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from experiments.bench.scripted_server import ScriptedServer
from experiments.commands.config import CONF_DIR
from experiments.commands.plans import load_config, parse_args, plan_sweep
from experiments.episodes.loop import run_episode
from experiments.plan.model import SweepConfigError
from planners import LiteLLMPlanner, OpenAICompatPlanner, build_planner
from planners.config import LiteLLMPlanner as LiteLLMSpec
from planners.openai_compat import WINDOW_S, RateLimiter
from sandbox.episode import Episode
from sandbox.suite import load_split

TASKS = load_split("handwritten.jsonl")
BY_ID = {t.task_id: t for t in TASKS}


def planner_config(name: str, *overrides: str) -> dict[str, Any]:
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=[f"planner={name}", "seed=3", *overrides])
    return OmegaConf.to_container(cfg.planner, resolve=True)  # type: ignore[return-value]


def test_the_openai_preset_reads_its_key_and_sends_max_completion_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-preset")
    planner = build_planner(planner_config("openai_gpt4o_mini"))
    assert isinstance(planner, OpenAICompatPlanner) and planner.name == "openai_gpt4o_mini"
    cfg = planner.config
    assert cfg.model == "gpt-4o-mini" and planner.endpoint.url == "https://api.openai.com/v1/chat/completions"
    assert cfg.api_key == "sk-preset" and cfg.requests_per_minute == 500 and cfg.tokens_per_minute == 200_000
    assert cfg.sampling["max_completion_tokens"] == 1024 and "max_tokens" not in cfg.sampling
    assert planner.endpoint.limiter is not None


def test_the_generic_preset_needs_a_base_url_and_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=r"^planner\.base_url: required for kind openai"):
        build_planner(planner_config("hosted_openai", "planner.model=m"))
    monkeypatch.setenv("HOSTED_API_KEY", "k")
    planner = build_planner(
        planner_config(
            "hosted_openai",
            "planner.model=org/model",
            "planner.base_url=https://api.example.com/v1",
            "planner.reasoning_effort=high",
        )
    )
    assert planner.config.api_key == "k" and planner.config.reasoning_effort == "high"  # type: ignore[attr-defined]


def test_a_sweep_names_a_preset_s_misspelt_key_in_one_line() -> None:
    for typo, message in [
        (
            "planner.hosted_openai.timeouts.conect=5",
            "planner.hosted_openai.timeouts.conect: unknown key; known: connect, read, total",
        ),
        (
            "planner.hosted_openai.rate_limits.requests_per_minute=0",
            "planner.hosted_openai.rate_limits.requests_per_minute: must be an integer >= 1, got 0",
        ),
        (
            "planner.hosted_openai.reasoning_effort=hihg",
            "planner.hosted_openai.reasoning_effort: one of none, minimal, low, medium, high",
        ),
    ]:
        args = [
            "planner=hosted_openai",
            "split=handwritten",
            "planner.hosted_openai.model=m",
            "planner.hosted_openai.base_url=https://api.example.com/v1",
            typo,
        ]
        with pytest.raises(SweepConfigError) as caught:
            plan_sweep(load_config(*parse_args(args)))
        assert str(caught.value).startswith(message) and "\n" not in str(caught.value), str(caught.value)


def test_the_litellm_base_lists_every_key_of_its_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    config = planner_config("hosted_litellm", "planner.model=anthropic/some-model")
    assert set(config) == set(LiteLLMSpec.model_fields)
    assert set(config["sampling"]) == set(LiteLLMSpec.model_fields["sampling"].annotation.model_fields)  # type: ignore[union-attr]
    assert set(config["limits"]) == {"reply_chars"}
    monkeypatch.setitem(__import__("sys").modules, "litellm", object())  # built without calling it
    planner = build_planner(config)
    assert isinstance(planner, LiteLLMPlanner) and planner.config.model == "anthropic/some-model"


def test_max_completion_tokens_and_reasoning_effort_reach_the_request() -> None:
    async def go() -> list[dict[str, Any]]:
        async with ScriptedServer(TASKS, "gold") as server:
            planner = build_planner(
                {
                    "kind": "openai",
                    "model": "scripted",
                    "base_url": server.base_url,
                    "reasoning_effort": "low",
                    "sampling": {"temperature": None, "max_tokens": 100, "max_completion_tokens": 2000},
                }
            )
            try:
                assert (await run_episode(BY_ID["hw_basic_012"], planner)).verdict.passed
            finally:
                await planner.aclose()  # type: ignore[attr-defined]
            return server.stats.bodies

    body = asyncio.run(go())[0]
    assert body["max_completion_tokens"] == 2000 and "max_tokens" not in body and "temperature" not in body
    assert body["reasoning_effort"] == "low"


def test_extra_body_may_not_set_what_a_key_of_its_own_sets() -> None:
    base = {"kind": "openai", "model": "m", "base_url": "http://127.0.0.1:1/v1"}
    with pytest.raises(ValueError, match=r"planner\.extra_body\.reasoning_effort: set by planner\.reasoning_effort"):
        build_planner({**base, "extra_body": {"reasoning_effort": "low"}})
    with pytest.raises(ValueError, match=r"planner\.extra_body\.max_completion_tokens: set by the planner or"):
        build_planner({**base, "extra_body": {"max_completion_tokens": 5}})


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_requests_per_minute_hold_over_a_sliding_window() -> None:
    clock = FakeClock()
    limiter = RateLimiter(3, None, clock=clock, sleep=clock.sleep)

    async def go() -> list[float]:
        sent = []
        for _ in range(7):
            await limiter.acquire(0)
            sent.append(clock.now)
            clock.now += 1.0  # a request takes a second
        return sent

    sent = asyncio.run(go())
    assert sent[:3] == [1000.0, 1001.0, 1002.0] and sent[3] == 1000.0 + WINDOW_S and sent[6] == 1060.0 + WINDOW_S
    assert all(sum(t - WINDOW_S < s <= t for s in sent) <= 3 for t in sent)


def test_tokens_per_minute_wait_for_the_oldest_to_leave_and_count_what_replies_report() -> None:
    clock = FakeClock()
    limiter = RateLimiter(None, 1000, clock=clock, sleep=clock.sleep)

    async def go() -> None:
        first = await limiter.acquire(600)
        clock.now += 10
        RateLimiter.settle(first, 300)  # the reply reported fewer tokens than estimated
        await limiter.acquire(600)  # 300 + 600 fit
        assert clock.slept == []
        clock.now += 10
        await limiter.acquire(600)  # 900 + 600 do not, nor 600 + 600 once the first left: until the second leaves
        assert clock.now == 1000.0 + 10 + WINDOW_S and len(clock.slept) == 1
        await limiter.acquire(5000)  # larger than the whole budget: alone, into an empty window
        assert clock.now == 1000.0 + 10 + 2 * WINDOW_S

    asyncio.run(go())


def test_a_planner_s_requests_keep_to_its_rate_limit() -> None:
    clock = FakeClock()

    async def go() -> list[float]:
        async with ScriptedServer(TASKS, "gold") as server:
            planner = build_planner(
                {
                    "kind": "openai",
                    "model": "scripted",
                    "base_url": server.base_url,
                    "rate_limits": {"requests_per_minute": 2},
                }
            )
            assert isinstance(planner, OpenAICompatPlanner) and planner.endpoint.limiter is not None
            limiter = planner.endpoint.limiter
            planner.endpoint.limiter = RateLimiter(limiter.requests_per_minute, None, clock=clock, sleep=clock.sleep)
            try:
                assert (await run_episode(BY_ID["hw_basic_003"], planner)).verdict.passed  # five steps
            finally:
                await planner.aclose()
            assert server.stats.requests == 5
            return clock.slept

    assert asyncio.run(go()) == [pytest.approx(WINDOW_S)] * 2  # requests 3 and 5 waited for the window


def test_a_refused_request_books_no_tokens() -> None:
    clock = FakeClock()

    async def go() -> None:
        async with ScriptedServer(TASKS, "status:401") as server:
            planner = build_planner(
                {
                    "kind": "openai",
                    "model": "scripted",
                    "base_url": server.base_url,
                    "rate_limits": {"tokens_per_minute": 100_000},
                }
            )
            assert isinstance(planner, OpenAICompatPlanner)
            limiter = planner.endpoint.limiter = RateLimiter(None, 100_000, clock=clock, sleep=clock.sleep)
            with Episode(BY_ID["hw_basic_012"]) as episode, pytest.raises(Exception, match="HTTP 401"):
                await planner.act(episode.task, episode.observation())
            await planner.aclose()
            assert [t for _, t in limiter._sent] == [0.0]

    asyncio.run(go())


def test_the_booked_tokens_become_the_reply_s_usage() -> None:
    clock = FakeClock()

    async def go() -> None:
        async with ScriptedServer(TASKS, "gold") as server:
            planner = build_planner(
                {
                    "kind": "openai",
                    "model": "scripted",
                    "base_url": server.base_url,
                    "rate_limits": {"tokens_per_minute": 100_000},
                }
            )
            assert isinstance(planner, OpenAICompatPlanner)
            limiter = planner.endpoint.limiter = RateLimiter(None, 100_000, clock=clock, sleep=clock.sleep)
            with Episode(BY_ID["hw_basic_012"]) as episode:
                action = await planner.act(episode.task, episode.observation())
            await planner.aclose()
            usage = action.usage
            assert [t for _, t in limiter._sent] == [usage["prompt_tokens"] + usage["completion_tokens"]]

    asyncio.run(go())


class _EmptyStore:
    def finished_keys(self) -> set:
        return set()


def test_a_sweep_divides_a_planner_s_rate_limits_among_its_units_in_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    from experiments.execution import sweep

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    args = ["planner=openai_gpt4o_mini,oracle", "split=handwritten", "unit_size=8"]
    plan = plan_sweep(load_config(*parse_args(args)))
    units = sweep.pending_units(plan, _EmptyStore())[0]
    shares = sweep.endpoint_shares(units, threads=4, max_in_flight=None)
    assert shares == {"openai_gpt4o_mini": (4, 4)}  # 4 units at once, 4 requests each: 16 in flight at most
    cell = next(c for c in plan.cells if c.planner == "openai_gpt4o_mini")
    shared = sweep._share(cell, *shares["openai_gpt4o_mini"])
    assert shared.planner_config["rate_limits"] == {"requests_per_minute": 125, "tokens_per_minute": 50_000}
    assert shared.planner_config["concurrency"] == 4
    settings = plan.settings(cell)["planner"]  # how the endpoint is used decides no result
    assert "rate_limits" not in settings and "reasoning_effort" not in settings  # null: as stored before the key
    assert settings["sampling"]["max_completion_tokens"] == 1024


def test_a_dry_run_names_each_hosted_endpoint(
    tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from experiments.commands.sweep import sweep_main

    monkeypatch.setitem(__import__("sys").modules, "litellm", object())  # built, never called
    code = sweep_main(
        [
            "--dry-run",
            "planner=openai_gpt4o_mini,hosted_litellm",
            "split=handwritten",
            "planner.hosted_litellm.model=anthropic/some-model",
            f"store={tmp_path / 'results.db'}",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "openai_gpt4o_mini: https://api.openai.com/v1 (model gpt-4o-mini)" in out
    assert "hosted_litellm:some-model: LiteLLM, model anthropic/some-model at the provider" in out  # named after it
    assert "prompt budget of hosted_litellm:some-model: 34 first requests" in out  # a LiteLLM that cannot count:
    assert "(estimated at 4 bytes a token); the model's context is unknown" in out  # the estimate
    assert list(tmp_path.iterdir()) == []
