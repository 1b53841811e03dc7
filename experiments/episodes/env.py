"""A gymnasium-shaped environment over episodes, for RL users who drive the sandbox directly.

``reset(seed=, options={"task_id": ...})`` starts an episode; ``step({"name", "arguments"})``
returns ``(observation, reward, terminated, truncated, info)``. ``finish`` terminates; running out
of the step budget truncates; the reward is 1.0 when the final verdict passes, else 0.0, and
arrives on the last step with the verdict in ``info``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sandbox.episode import T_MAX, Episode, Observation
from sandbox.tasks import Task
from verification.verify import verify


class MobilePAEnv:
    def __init__(self, tasks: Sequence[Task], *, t_max: int = T_MAX) -> None:
        if not tasks:
            raise ValueError("MobilePAEnv needs at least one task")
        self.tasks = {t.task_id: t for t in tasks}
        self.order = sorted(self.tasks)
        self.t_max = t_max
        self.episode: Episode | None = None
        self.rng = random.Random()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start an episode: the task named in ``options["task_id"]``, else one drawn with ``seed``."""
        self.close()
        if seed is not None:
            self.rng = random.Random(seed)
        task_id = (options or {}).get("task_id") or self.rng.choice(self.order)
        if task_id not in self.tasks:
            raise KeyError(f"unknown task_id {task_id!r}")
        self.episode = Episode(self.tasks[task_id], t_max=self.t_max)
        return self.episode.observation(), {"task_id": task_id}

    def step(self, action: dict[str, Any]) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        if self.episode is None:
            raise RuntimeError("call reset() before step()")
        if self.episode.done:
            raise RuntimeError("the episode is over; call reset()")
        envelope = self.episode.step(action.get("name"), action.get("arguments", {}))
        terminated = self.episode.finished
        truncated = not terminated and self.episode.done
        info: dict[str, Any] = {"envelope": envelope}
        reward = 0.0
        if terminated or truncated:
            verdict = verify(self.episode.task, self.episode.trajectory())
            info["verdict"] = verdict
            reward = 1.0 if verdict.passed else 0.0
        return self.episode.observation(), reward, terminated, truncated, info

    def close(self) -> None:
        if self.episode is not None:
            self.episode.close()
            self.episode = None

    def __enter__(self) -> MobilePAEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
