"""Reference planners over the hand-written slice, determinism, the main job and the gym-shaped env."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

import sandbox.domains  # noqa: F401
from experiments.commands.config import CONF_DIR
from experiments.commands.run import run_plan
from experiments.episodes.env import MobilePAEnv
from experiments.episodes.loop import run_episode, run_many
from experiments.execution.run import run_job
from planners import NoopPlanner, OraclePlanner
from sandbox.episode import T_MAX, Episode
from sandbox.suite import load_split

TASKS = load_split("handwritten.jsonl")


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.task_id)
def test_oracle_passes_every_task(task) -> None:
    result = asyncio.run(run_episode(task, OraclePlanner()))
    assert result.trajectory.internal_errors == []
    assert result.verdict.passed, result.verdict.reasons


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.task_id)
def test_noop_fails_unless_doing_nothing_is_correct(task) -> None:
    result = asyncio.run(run_episode(task, NoopPlanner()))
    assert result.verdict.passed == task.noop_ok, result.verdict.reasons


def _oracle_final_bytes(task) -> bytes:
    with Episode(task) as episode:
        for action in task.gold:
            episode.step(action.name, action.arguments)
        return episode.state_bytes()


@pytest.mark.parametrize("task", TASKS[:: max(1, len(TASKS) // 8)], ids=lambda t: t.task_id)
def test_same_task_and_actions_give_identical_final_bytes(task) -> None:
    assert _oracle_final_bytes(task) == _oracle_final_bytes(task)


@pytest.mark.faults
def test_episodes_are_isolated() -> None:
    task = next(t for t in TASKS if t.task_id == "hw_basic_001")
    with Episode(task) as first, Episode(task) as second:
        first.step(task.gold[0].name, task.gold[0].arguments)
        assert second.trajectory().diff == {}
        assert "contacts" in first.trajectory().diff


@pytest.mark.faults
def test_step_budget_truncates_and_stepping_after_the_end_raises() -> None:
    task = TASKS[0]
    with Episode(task) as episode:
        for _ in range(T_MAX):
            episode.step("search_contacts", {"name": "Lily"})
        assert episode.done and not episode.finished
        assert episode.trajectory().termination == "truncated"
        with pytest.raises(RuntimeError, match="is over"):
            episode.step("finish", {"answer": "late"})


def test_main_job_writes_results(tmp_path: Path) -> None:
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=["planner=oracle", "split=handwritten"])
    path = run_job(run_plan(cfg), tmp_path)
    doc = json.loads(path.read_text())
    assert doc["planner"] == "oracle" and doc["split"] == "handwritten" and doc["seed"] == 0
    skill = sum(t.category == "skill" for t in TASKS)
    assert doc["condition"] == "both" and doc["episodes"] == len(TASKS) + skill and doc["overall"] == 100.0
    assert doc["categories"]["skill"]["total"] == 2 * skill  # each skill task under SOR and under MTSR
    assert set(doc["categories"]) == {"basic", "subagent", "memory", "skill"}
    assert set(doc["buckets"]) == {"tool_call", "state_change", "agent_behavior"}
    assert all(c["rate"] == 100.0 and c["passed"] == c["total"] > 0 for c in doc["categories"].values())
    rows = [json.loads(line) for line in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    assert len(rows) == len(TASKS) + skill and all(r["passed"] for r in rows)
    assert {r["task_id"] for r in rows if r["category"] == "skill"} == {
        f"{t.task_id}@{c}" for t in TASKS if t.category == "skill" for c in ("sor", "mtsr")
    }
    assert (tmp_path / "trajectories.jsonl.gz").stat().st_size > 0


@pytest.mark.faults
def test_bad_planner_config_fails_before_work(tmp_path: Path) -> None:
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=["planner=oracle", "planner.kind=gpt9"])
    with pytest.raises(ValueError, match=r"planner.kind: unknown planner kind 'gpt9'"):
        run_job(run_plan(cfg), tmp_path)
    assert not (tmp_path / "results.json").exists()


def test_gym_shaped_environment() -> None:
    task = next(t for t in TASKS if t.task_id == "hw_basic_001")
    with MobilePAEnv(TASKS) as env:
        obs, info = env.reset(options={"task_id": task.task_id})
        assert info["task_id"] == task.task_id and obs.query == task.query
        assert any(s["function"]["name"] == "add_contact" for s in obs.tools)
        rewards = []
        for action in task.gold:
            obs, reward, terminated, truncated, info = env.step(action.model_dump())
            rewards.append(reward)
        assert terminated and not truncated and rewards[-1] == 1.0 and info["verdict"].passed
        with pytest.raises(RuntimeError):
            env.step({"name": "finish", "arguments": {"answer": "again"}})
        env.reset(options={"task_id": task.task_id})
        for _ in range(T_MAX):
            obs, reward, terminated, truncated, info = env.step({"name": "search_contacts", "arguments": {"name": "x"}})
        assert truncated and not terminated and reward == 0.0


def test_console_script_prints_results_path_last(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = Path(sys.executable).with_name("mobilepa")
    done = subprocess.run(
        [str(script), "run", "planner=noop", "split=handwritten", f"hydra.run.dir={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    last = done.stdout.strip().splitlines()[-1]
    assert last == str(tmp_path / "results.json")
    assert json.loads(Path(last).read_text())["planner"] == "noop"


def test_condition_group_matches_the_sandbox_conditions() -> None:
    from sandbox.conditions import KNOWN

    assert sorted(p.stem for p in (Path(CONF_DIR) / "condition").glob("*.yaml")) == sorted(KNOWN)


def test_episodes_start_longest_gold_first_and_ties_keep_their_order() -> None:
    started: list[str] = []

    class Recording(OraclePlanner):
        async def act(self, task, observation):  # type: ignore[no-untyped-def]
            if observation.step == 0:
                started.append(task.task_id)
            return await super().act(task, observation)

    async def run() -> list[str]:
        return [r.key async for r in run_many(TASKS, Recording(), concurrency=1)]

    finished = asyncio.run(run())
    expected = [t.task_id for t in sorted(TASKS, key=lambda t: -len(t.gold))]
    assert started == expected == finished
    assert len({len(t.gold) for t in TASKS}) > 1 and expected != [t.task_id for t in TASKS]


def test_a_trajectory_serialises_every_field_of_every_step() -> None:
    import dataclasses

    result = asyncio.run(run_episode(TASKS[0], OraclePlanner()))
    steps = result.trajectory.to_json()["steps"]
    assert steps and steps == [dataclasses.asdict(s) for s in result.trajectory.steps]
