"""How a run's episodes share the event loop: turns between replies (``Turnstile``), early stops."""

from __future__ import annotations

import asyncio
from itertools import pairwise

from experiments.episodes.loop import Turnstile, run_many
from planners import OraclePlanner, PlannerAction
from sandbox.episode import Observation
from sandbox.suite import load_split
from sandbox.tasks import Task

TASKS = load_split("handwritten.jsonl")


class DeferredWrites(OraclePlanner):
    """The oracle behind a fake endpoint that, like aiohttp on Python 3.11, writes each request from a new
    task, and answers every request of a round at once (a fixed latency: the replies come as a burst)."""

    def __init__(self, log: list[tuple[str, str]]) -> None:
        super().__init__()
        self.log = log
        self.round: asyncio.Future[None] | None = None
        self.waiting = self.most_waiting = 0

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        key = f"{task.task_id}/{observation.step}"
        self.log.append(("asked", key))

        async def write() -> None:
            self.log.append(("written", key))

        asyncio.get_running_loop().create_task(write())
        if self.round is None or self.round.done():
            self.round = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_later(0.01, self.round.set_result, None)
        self.waiting += 1
        self.most_waiting = max(self.most_waiting, self.waiting)
        try:
            await self.round
        finally:
            self.waiting -= 1
        return await super().act(task, observation)


def _drain(planner: OraclePlanner, concurrency: int, stop_after: int | None = None) -> list[str]:
    async def run() -> list[str]:
        keys = []
        async for result in run_many(TASKS, planner, concurrency=concurrency):
            keys.append(result.key)
            if stop_after is not None and len(keys) == stop_after:
                break
        return keys

    return asyncio.run(run())


def test_each_request_leaves_before_the_next_episode_works() -> None:
    log: list[tuple[str, str]] = []
    planner = DeferredWrites(log)
    keys = _drain(planner, concurrency=8)
    assert sorted(keys) == sorted(t.task_id for t in TASKS) and planner.most_waiting == 8  # turns, yet 8 in flight
    asked = [key for event, key in log if event == "asked"]
    written = [key for event, key in log if event == "written"]
    assert sorted(asked) == sorted(written) and len(asked) > len(TASKS)
    for before, (event, key) in pairwise(log):  # every request's write follows it at once
        if before[0] == "asked":
            assert (event, key) == ("written", before[1]), log


def test_without_turns_a_burst_writes_its_requests_only_after_all_of_it_worked() -> None:
    """What the turnstile prevents, shown on the same planner with every episode on its own turnstile."""
    from experiments.episodes.loop import run_episode

    log: list[tuple[str, str]] = []
    planner = DeferredWrites(log)

    async def run() -> None:
        await asyncio.gather(*(run_episode(t, planner, turnstile=Turnstile()) for t in TASKS[:8]))

    asyncio.run(run())
    first_write = next(i for i, (event, _) in enumerate(log) if event == "written")
    assert [event for event, _ in log[:first_write]] == ["asked"] * 8


def test_a_planner_that_never_suspends_keeps_its_turn() -> None:
    steps: list[str] = []

    class Recording(OraclePlanner):
        async def act(self, task: Task, observation: Observation) -> PlannerAction:
            steps.append(task.task_id)
            return await super().act(task, observation)

    _drain(Recording(), concurrency=8)
    runs = [t for i, t in enumerate(steps) if i == 0 or steps[i - 1] != t]
    assert len(runs) == len(set(steps)) == len(TASKS)  # each episode's steps ran together, one episode at a time


def test_a_consumer_that_stops_early_leaves_no_episode_and_no_turn_held() -> None:
    async def run() -> tuple[list[str], set[asyncio.Task[object]]]:
        keys = []
        generator = run_many(TASKS, DeferredWrites([]), concurrency=8)
        async for result in generator:
            keys.append(result.key)
            if len(keys) == 3:
                break
        await generator.aclose()
        await asyncio.sleep(0.05)  # cancelled episodes unwind, deferred writes run
        return keys, {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}

    keys, left = asyncio.run(run())
    assert len(keys) == 3 and left == set()
