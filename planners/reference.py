"""Reference planners: ``oracle`` replays the gold trajectory (must score 100 %), ``noop`` finishes at once."""

from __future__ import annotations

from planners.base import PlannerAction
from sandbox.episode import Observation
from sandbox.tasks import Task


class OraclePlanner:
    """Replays the task's gold actions in order."""

    name = "oracle"

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        gold = task.gold[min(observation.step, len(task.gold) - 1)]
        return PlannerAction(gold.name, dict(gold.arguments))


class NoopPlanner:
    """Does nothing: finishes immediately (scores 0 except where doing nothing is correct)."""

    name = "noop"

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        return PlannerAction("finish", {"answer": "I did nothing."})
