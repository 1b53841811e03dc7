"""Fault-injecting OpenAI-compatible servers for sweep tests, and a planner factory that counts runs.

- ``FaultyServer``: the scripted ``gold`` server that also answers 503 to a burst of request
  numbers, always answers 503 for some tasks (an episode that can never succeed), and can echo the
  caller's Authorization header in those error bodies (a careless proxy), to test key redaction.
- ``ServerThread``: runs a server on its own event loop in a background thread, so a synchronous
  sweep can run against it; ``start``/``stop`` can be called from any thread, and a stop then a start
  is a restart on the same port.
- ``planner_factory=tests.experiments.servers:build_counting``: the normal planner, wrapped to count
  on this process how many times each task's episode ran and how many runs ended in an
  ``InfraError`` (for the in-process Dask clients these tests use), so the sweep's own figures can be
  checked against what really happened.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any, Self

from experiments.bench.scripted_server import ChatRequest, Reply, ScriptedServer, _error
from planners import InfraError, Planner, PlannerAction, build_planner
from sandbox.episode import Observation
from sandbox.tasks import Task


class FaultyServer(ScriptedServer):
    def __init__(
        self,
        tasks: Sequence[Task],
        *,
        burst: range = range(0),
        fail_tasks: frozenset[str] = frozenset(),
        echo_auth: bool = False,
        **kwargs: Any,
    ) -> None:
        # The sweeps under test point planner=qwen3_8b at this server, whose pre-flight asks /v1/models for
        # that config's model.
        kwargs.setdefault("model", "Qwen/Qwen3-8B")
        super().__init__(tasks, "gold", **kwargs)
        self.burst = burst
        self.fail_tasks = fail_tasks
        self.echo_auth = echo_auth
        self.faults: Counter[str] = Counter()  # burst | failed_task | echoed

    async def _answer(self, body: ChatRequest, size: int, number: int, received: float) -> Reply:
        if number in self.burst:
            self.faults["burst"] += 1
            return _error(503, "scripted burst: server overloaded")
        found = self._match(body)
        task = found[0] if found else None
        if task is not None and task.task_id in self.fail_tasks:
            self.faults["failed_task"] += 1
            message = f"backend for {task.task_id} is down"
            if self.echo_auth:
                self.faults["echoed"] += 1
                message += f"; request headers: Authorization: {self.stats.authorization[-1]}"
            return _error(503, message)
        return await super()._answer(body, size, number, received)


class ServerThread:
    """``with ServerThread(server) as thread:`` … ``thread.stop()`` / ``thread.start()``. The server binds a
    free port when it first starts (never one picked beforehand, which another process could take meanwhile)
    and keeps it across restarts."""

    def __init__(self, server: ScriptedServer) -> None:
        self.server = server
        self.restarts = 0
        self.up = False
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="scripted-server", daemon=True)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def _call(self, make: Callable[[], Any]) -> Any:
        async def run() -> Any:
            return await make()

        future: Future[Any] = asyncio.run_coroutine_threadsafe(run(), self._loop)
        return future.result(timeout=30)

    def start(self) -> None:
        if not self.up:
            self._call(self.server.start)
            self.up = True

    def stop(self) -> None:
        if self.up:
            self._call(self.server.stop)
            self.up = False

    def restart(self, down_s: float) -> None:
        """Stop (closing every open connection), stay down ``down_s`` (connections refused), start again."""
        self.stop()
        threading.Event().wait(down_s)
        self.start()
        self.restarts += 1

    def __enter__(self) -> Self:
        self._thread.start()
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.stop()
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            self._loop.close()


# ---- counting planner factory ----------------------------------------------------------------------

_lock = threading.Lock()
RUNS: Counter[str] = Counter()  # task_id -> episode runs started
INFRA: Counter[str] = Counter()  # task_id -> runs that ended in InfraError


def reset_counts() -> None:
    with _lock:
        RUNS.clear()
        INFRA.clear()


class CountingPlanner:
    def __init__(self, inner: Planner) -> None:
        self.inner = inner
        self.name = inner.name

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        if observation.step == 0:
            with _lock:
                RUNS[task.task_id] += 1
        try:
            return await self.inner.act(task, observation)
        except InfraError:
            with _lock:
                INFRA[task.task_id] += 1
            raise

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()


def build_counting(config: Mapping[str, Any]) -> Planner:
    return CountingPlanner(build_planner(config))
