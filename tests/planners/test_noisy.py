"""The noisy oracle: each applicable perturbation fails its task, so the expected score is exact, and
the score observed over seeds lands within the binomial tolerance of it."""

from __future__ import annotations

import asyncio
import itertools
import math

import pytest

from experiments.episodes.loop import EpisodeResult, run_episode, run_many
from planners import NoisyOraclePlanner, build_planner
from planners.base import PlannerAction
from planners.noisy import PERTURBATIONS, applicable_perturbations, perturb, variants
from sandbox.episode import Observation
from sandbox.suite import load_split
from sandbox.tasks import Action, Task

TASKS = load_split("handwritten.jsonl")
PROBABILITIES = {
    "p_skip_memory": 0.4,
    "p_corrupt_argument": 0.25,
    "p_skip_skill": 0.4,
    "p_drop_handoff_field": 0.4,
    "p_stop_early": 0.2,
}
SEEDS = range(16)
SIGMAS = 3.0  # tolerance: 3 standard deviations of the mean of independent Bernoulli outcomes


class PlanPlanner:
    """Replays a fixed list of actions (a perturbed gold)."""

    name = "plan"

    def __init__(self, plan: list[Action]) -> None:
        self.plan = plan

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        action = self.plan[min(observation.step, len(self.plan) - 1)]
        return PlannerAction(action.name, dict(action.arguments))


def _passes(task: Task, plan: list[Action]) -> bool:
    return asyncio.run(run_episode(task, PlanPlanner(plan))).verdict.passed


def test_every_perturbation_applies_somewhere_in_the_handwritten_split() -> None:
    assert {p for t in TASKS for p in applicable_perturbations(t)} == set(PERTURBATIONS)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.task_id)
def test_each_applicable_perturbation_fails_the_task(task: Task) -> None:
    """What makes ``expected_pass_probability`` exact: every variant alone fails, and so do combinations."""
    applies = applicable_perturbations(task)
    assert _passes(task, perturb(task, {}))
    assert _passes(task, perturb(task, {p: 0 for p in PERTURBATIONS if p not in applies}))
    for p in applies:
        for v in range(variants(task, p)):
            assert not _passes(task, perturb(task, {p: v})), (p, v)
    for r in range(2, len(applies) + 1):
        for combo in itertools.combinations(applies, r):
            for chosen in itertools.product(*(range(variants(task, p)) for p in combo)):
                applied = dict(zip(combo, chosen, strict=True))
                assert not _passes(task, perturb(task, applied)), applied


def test_no_noise_is_the_oracle() -> None:
    planner = NoisyOraclePlanner(seed=3)
    assert all(planner.expected_pass_probability(t) == 1.0 for t in TASKS)
    assert all(planner.plan(t) == list(t.gold) for t in TASKS)


def test_draws_are_decided_once_per_seed_and_task() -> None:
    a, b, c = (NoisyOraclePlanner(seed, **PROBABILITIES) for seed in (1, 1, 2))
    assert [a.draw(t) for t in TASKS] == [b.draw(t) for t in TASKS]
    assert [a.draw(t) for t in TASKS] != [c.draw(t) for t in TASKS]
    assert a.plan(TASKS[0]) is a.plan(TASKS[0])


def test_observed_score_matches_the_expected_one_over_seeds() -> None:
    """Over len(SEEDS) x len(TASKS) episodes the mean pass rate must be within SIGMAS standard
    deviations of the expected rate, sigma = sqrt(sum p(1-p)) / n over all (seed, task) episodes."""
    expected_each = [NoisyOraclePlanner(0, **PROBABILITIES).expected_pass_probability(t) for t in TASKS]
    n = len(SEEDS) * len(TASKS)
    expected = sum(expected_each) / len(TASKS)
    sigma = math.sqrt(len(SEEDS) * sum(p * (1 - p) for p in expected_each)) / n

    async def observe() -> list[EpisodeResult]:
        results: list[EpisodeResult] = []
        for seed in SEEDS:
            planner = NoisyOraclePlanner(seed, **PROBABILITIES)
            results += [r async for r in run_many(TASKS, planner)]
        return results

    results = asyncio.run(observe())
    observed = sum(r.verdict.passed for r in results) / n
    assert 0.3 < expected < 0.8 and sigma > 0  # the check has teeth
    assert abs(observed - expected) <= SIGMAS * sigma, (observed, expected, sigma)


def test_config_is_validated_naming_the_key() -> None:
    planner = build_planner({"kind": "noisy_oracle", "name": "noisy", "seed": 4, **PROBABILITIES})
    assert isinstance(planner, NoisyOraclePlanner) and planner.seed == 4 and planner.name == "noisy"
    with pytest.raises(ValueError, match=r"planner\.p_stop_early: a probability in \[0, 1\]"):
        build_planner({"kind": "noisy_oracle", "p_stop_early": 1.5})
    with pytest.raises(ValueError, match=r"planner\.p_skip_memorry: unknown key"):
        build_planner({"kind": "noisy_oracle", "p_skip_memorry": 0.1})
    with pytest.raises(ValueError, match=r"planner\.seed: an integer"):
        build_planner({"kind": "noisy_oracle", "seed": "x"})
