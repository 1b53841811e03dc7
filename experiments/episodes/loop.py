"""The episode loop: planner and sandbox alternate until ``finish`` or T_max, then the verdict."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Collection, Iterable
from dataclasses import dataclass
from typing import Self

from planners.base import ContextOverflow, InfraError, Planner
from sandbox.conditions import action_space_for, expand, withheld_for
from sandbox.episode import T_MAX, Episode, Trajectory
from sandbox.tasks import Task
from verification.verify import Verdict, verify


@dataclass(frozen=True)
class EpisodeResult:
    task: Task
    trajectory: Trajectory
    verdict: Verdict
    wall_s: float
    condition: str = "default"
    key: str = ""  # the episode key: the task id, or ``<task_id>@<condition>`` when a task runs twice


class Turnstile:
    """Lets the episodes of one run work one at a time between their planner's replies.

    An episode holds its turn while it works (sandbox step, observation, the planner's request) and
    gives it up while it awaits the planner (``away``), one loop pass later, so that what the turn
    started runs before the next episode's turn. On Python 3.11 aiohttp writes a request from a new
    task, which otherwise runs only after every episode whose reply came in the same loop pass has
    worked: the requests of such a burst then left together, came back together as the next burst,
    and waited for it (about a tenth of each 200 ms round trip in the LLM-bound benchmark). A planner
    that never suspends (the reference planners) keeps its turn, so its episodes run as before.
    """

    def __init__(self) -> None:
        self._lock = asyncio.Lock()

    def turn(self) -> Turn:
        """A new episode's hold, taken by ``async with``."""
        return Turn(self._lock)


class Turn:
    """One episode's hold on a ``Turnstile``: ``async with turn:`` for the episode, ``async with turn.away:``
    around each await on the planner (a plain object, not a generator: it runs at every step)."""

    def __init__(self, lock: asyncio.Lock) -> None:
        self._lock = lock
        self.held = False
        self.away = _Away(self)

    async def __aenter__(self) -> Self:
        await self._lock.acquire()
        self.held = True
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()

    def release(self) -> None:
        if self.held:
            self.held = False
            self._lock.release()

    async def take_back(self) -> None:
        await self._lock.acquire()  # a cancellation here leaves the turn not held
        self.held = True


class _Away:
    """Gives the turn up one loop pass after entering, takes it back on leaving; an await that never
    suspended (so the pass never came) keeps the turn."""

    def __init__(self, turn: Turn) -> None:
        self._turn = turn
        self._leaving: asyncio.Handle | None = None

    async def __aenter__(self) -> None:
        self._leaving = asyncio.get_running_loop().call_soon(self._turn.release)

    async def __aexit__(self, *exc: object) -> None:
        if self._turn.held:
            assert self._leaving is not None
            self._leaving.cancel()
        else:
            await self._turn.take_back()


async def run_episode(
    task: Task,
    planner: Planner,
    *,
    t_max: int = T_MAX,
    condition: str = "default",
    key: str | None = None,
    turnstile: Turnstile | None = None,
    retrieval_model: str | None = None,
) -> EpisodeResult:
    """Run one task with one planner on a fresh private sandbox, under a skill condition (docs/architecture.md §6)
    or one refined by a retrieval variant or an ablation (``both.bm25-n10``, ``mtsr.memory_off``;
    ``retrieval_model``: a dense variant's local model), taking turns through ``turnstile`` with the other
    episodes of its run (its own when None)."""
    started = time.perf_counter()
    termination = infra_error = overflow = None
    tools, skills = action_space_for(task, condition, retrieval_model)
    async with (turnstile or Turnstile()).turn() as turn:
        with Episode(
            task, t_max=t_max, candidate_tools=tools, candidate_skills=skills, withheld=withheld_for(condition)
        ) as episode:
            while not episode.done:
                observation = episode.observation()
                asked = time.perf_counter()
                try:
                    async with turn.away:
                        action = await planner.act(task, observation)
                        latency = time.perf_counter() - asked  # the planner's, not the wait for the turn
                except InfraError as exc:
                    termination, infra_error = "infra_error", str(exc)
                    break
                except ContextOverflow as exc:  # scored, not retried; the first request's is the prompt's own
                    termination = "context_overflow" if episode.steps else "prompt_overflow"
                    overflow = str(exc)
                    break
                usage = {**action.usage, "planner_latency_s": round(latency, 6)}
                if action.format_error:
                    episode.record_format_error(action.raw or "", action.format_error, usage)
                else:
                    episode.step(action.name, action.arguments, planner=usage)
            trajectory = episode.trajectory(termination, infra_error, overflow)
        verdict = verify(task, trajectory)
    return EpisodeResult(task, trajectory, verdict, time.perf_counter() - started, condition, key or task.task_id)


async def run_many(
    tasks: Iterable[Task],
    planner: Planner,
    *,
    concurrency: int = 64,
    t_max: int = T_MAX,
    condition: str = "default",
    keys: Collection[str] | None = None,
    retrieval_model: str | None = None,
) -> AsyncIterator[EpisodeResult]:
    """Run the episodes of ``tasks`` under ``condition`` (``both``: skill tasks twice) concurrently (bounded),
    yielding each result as it finishes; ``keys`` restricts them to those episode keys.

    Episodes start longest first, by the length of the task's gold trajectory (a stable sort: ties keep
    their order). Started in task order, a long episode admitted last holds the run open while the other
    slots sit empty; with 256 in flight against a 200 ms endpoint that tail alone cost 17 % of the ideal
    rate, longest-first 5 % (a planner's own lengths differ from the gold's, but follow them).
    The episodes take turns working (``Turnstile``)."""
    gate = asyncio.Semaphore(concurrency)
    turnstile = Turnstile()

    async def one(key: str, task: Task, runs_under: str) -> EpisodeResult:
        async with gate:
            return await run_episode(
                task,
                planner,
                t_max=t_max,
                condition=runs_under,
                key=key,
                turnstile=turnstile,
                retrieval_model=retrieval_model,
            )

    chosen = sorted(
        (e for e in expand(tasks, condition) if keys is None or e[0] in keys),
        key=lambda e: len(e[1].gold),
        reverse=True,
    )
    started = [asyncio.ensure_future(one(*e)) for e in chosen]  # tasks run, so queue at the gate, in this order
    try:
        for next_done in asyncio.as_completed(started):
            yield await next_done
    finally:  # a consumer that stops early leaves no episode running
        for task in started:
            task.cancel()
