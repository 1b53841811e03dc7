"""Replay: saved trajectories re-scored without a model give the same steps and verdicts."""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import json
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from experiments.commands.config import CONF_DIR
from experiments.commands.run import run_plan
from experiments.episodes.loop import EpisodeResult, run_many
from experiments.execution.run import run_job
from planners import ContextOverflow, InfraError, NoisyOraclePlanner, Planner, ReplayPlanner, build_planner
from planners.base import PlannerAction
from sandbox.episode import FORMAT_ERROR_STEP, Observation
from sandbox.suite import load_split
from sandbox.tasks import Task

TASKS = load_split("handwritten.jsonl")
NOISE = {
    "p_skip_memory": 0.5,
    "p_corrupt_argument": 0.3,
    "p_skip_skill": 0.5,
    "p_drop_handoff_field": 0.5,
    "p_stop_early": 0.3,
}


class StumblingPlanner:
    """The noisy oracle, but every other task starts with a format error (so replays include some)."""

    name = "stumbling"

    def __init__(self) -> None:
        self.inner = NoisyOraclePlanner(7, **NOISE)

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        if TASKS.index(task) % 2 == 0:
            if observation.step == 0:
                return PlannerAction(None, raw="hmm", format_error="no_tool_call", usage={"prompt_tokens": 5})
            observation = dataclasses.replace(observation, step=observation.step - 1)
        return await self.inner.act(task, observation)


class FailingPlanner:
    name = "failing"

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        raise InfraError("endpoint down")


def _run(planner: Planner, tasks: list[Task] = TASKS) -> dict[str, EpisodeResult]:
    async def drive() -> list[EpisodeResult]:
        return [r async for r in run_many(tasks, planner)]

    return {r.task.task_id: r for r in asyncio.run(drive())}


def _save(results: dict[str, EpisodeResult], path: Path) -> Path:
    """As experiments.execution.run writes them."""
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for r in results.values():
            fh.write(json.dumps(r.trajectory.to_json(), ensure_ascii=False, sort_keys=True, default=str) + "\n")
    return path


def test_replay_reproduces_steps_and_verdicts(tmp_path: Path) -> None:
    original = _run(StumblingPlanner())
    assert any(s.name == FORMAT_ERROR_STEP for r in original.values() for s in r.trajectory.steps)
    assert 0 < sum(r.verdict.passed for r in original.values()) < len(TASKS)
    replayed = _run(ReplayPlanner(_save(original, tmp_path / "trajectories.jsonl.gz")))
    for task_id, r in original.items():
        again = replayed[task_id]
        assert again.verdict == r.verdict
        assert [(s.name, s.arguments, s.envelope) for s in again.trajectory.steps] == [
            (s.name, s.arguments, s.envelope) for s in r.trajectory.steps
        ]
        assert [s.planner.get("format_error") for s in again.trajectory.steps] == [
            s.planner.get("format_error") for s in r.trajectory.steps
        ]
        assert all(s.planner["replayed"] for s in again.trajectory.steps)


def test_missing_or_cut_short_trajectories_stay_unscorable(tmp_path: Path) -> None:
    failed = _run(FailingPlanner(), TASKS[:1])
    replay = ReplayPlanner(_save(failed, tmp_path / "t.jsonl.gz"))
    replayed = _run(replay, TASKS[:2])
    assert all(r.trajectory.termination == "infra_error" and not r.verdict.scorable for r in replayed.values())


class OverflowingPlanner:
    """The oracle until its second step, when the server refuses the grown conversation."""

    name = "overflowing"

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        if observation.step == 1:
            raise ContextOverflow("This model's maximum context length is 16384 tokens.")
        return PlannerAction(task.gold[0].name, task.gold[0].arguments)


def test_a_recorded_context_overflow_replays_as_one(tmp_path: Path) -> None:
    original = _run(OverflowingPlanner(), TASKS[:3])
    assert all(r.trajectory.termination == "context_overflow" and r.verdict.scorable for r in original.values())
    replayed = _run(ReplayPlanner(_save(original, tmp_path / "t.jsonl.gz")), TASKS[:3])
    for task_id, r in original.items():
        assert replayed[task_id].verdict == r.verdict and not r.verdict.passed
        assert replayed[task_id].trajectory.context_overflow == r.trajectory.context_overflow


def test_config_needs_a_path() -> None:
    with pytest.raises(ValueError, match=r"planner.path: required for kind replay"):
        build_planner({"kind": "replay", "path": "???"})
    with pytest.raises(FileNotFoundError, match=r"planner.path: no trajectories"):
        build_planner({"kind": "replay", "path": "/nonexistent/run"})


def test_main_job_replays_a_noisy_run(tmp_path: Path) -> None:
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        noisy = compose(config_name="config", overrides=["planner=noisy_oracle", "split=handwritten", "seed=5"])
        replay = compose(
            config_name="config",
            overrides=["planner=replay", "split=handwritten", f"planner.path={tmp_path / 'noisy'}"],
        )
    first = json.loads(run_job(run_plan(noisy), tmp_path / "noisy").read_text())
    second = json.loads(run_job(run_plan(replay), tmp_path / "replay").read_text())
    assert second["planner"] == "replay" and first["overall"] < 100.0
    assert {k: second[k] for k in ("overall", "categories", "buckets")} == {
        k: first[k] for k in ("overall", "categories", "buckets")
    }
