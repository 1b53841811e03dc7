"""Test-only planner factories, imported by workers through ``planner_factory`` (the repository on
their path): the oracle with a little latency per action, so a worker can be killed while units are
still running; an oracle whose backend is down for one task (infra-error retries); and one that kills
its worker at one task (a unit that kills its worker every time)."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Mapping
from typing import Any

from planners import InfraError, OraclePlanner, Planner, PlannerAction
from sandbox.episode import Observation
from sandbox.tasks import Task

DELAY_S = 0.05


class SlowOracle(OraclePlanner):
    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        await asyncio.sleep(DELAY_S)
        return await super().act(task, observation)


def build(config: Mapping[str, Any]) -> Planner:
    return SlowOracle()


class BrokenBackendOracle(OraclePlanner):
    """The oracle whose backend is down for one task: that episode always ends in infra_error."""

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        if task.task_id == BROKEN_TASK:
            raise InfraError("backend unreachable (test)")
        return await super().act(task, observation)


BROKEN_TASK = "hw_basic_001"


def build_broken(config: Mapping[str, Any]) -> Planner:
    return BrokenBackendOracle()


class WorkerKiller(OraclePlanner):
    """The oracle, except that it SIGKILLs the process running it at one task's first step, every time
    (as a segfault or an OOM kill would): run on a Dask worker, it kills that worker."""

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        if task.task_id == KILLER_TASK:
            os.kill(os.getpid(), signal.SIGKILL)
        return await super().act(task, observation)


KILLER_TASK = "hw_basic_001"


def build_killer(config: Mapping[str, Any]) -> Planner:
    return WorkerKiller()
