"""The noisy oracle: the gold trajectory with known, seeded perturbations, so the expected score of a
split is computable in advance. It calibrates the metrics (does the scorer see each kind of mistake?)
and the stability analysis (does the spread over seeds match the binomial spread?).

Each perturbation is defined so that, where it *applies* to a task, it makes the task fail:

- ``skip_memory``: drop the gold's ``search_memory`` steps. Applies when the task requires memory
  ids (the memory gate then fails).
- ``skip_skill``: drop the gold's ``load_skill`` steps. Applies when the task requires a skill (the
  skill gate fails).
- ``corrupt_argument``: in the gold's last mutating call (the one whose effect the task needs),
  give one argument a value of the wrong JSON type (a string becomes a one-element list, anything
  else its JSON text, the way tool-call parsers mangle arguments), so the executor rejects the call
  and its effect never happens. A value change that still validated would only fail where the check
  constrains that argument, so its effect on the score would not be known in advance. Applies when
  the gold has a mutating call with arguments and doing nothing is not the task's correct answer.
- ``drop_handoff_field``: drop one field that the task's check requires from the ``inputs`` or
  ``facts`` of the gold's last call to the checked sub-agent route. Applies to agent-behaviour tasks
  whose check names such fields.
- ``stop_early``: keep the first half (rounded up) of the gold's steps before ``finish``. Applies
  when that drops a step (two or more steps) and doing nothing is not the correct answer.

Which perturbations fire is decided once per episode by ``random.Random(f"{seed}:{task_id}")``, each
independently with its probability, so P(pass) = prod(1 - p) over the perturbations that apply.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping
from typing import Any

from planners.base import PlannerAction
from sandbox.episode import Observation
from sandbox.tasks import Action, AgentBehaviorCheck, Task
from sandbox.tooling import REGISTRY

PERTURBATIONS = ("skip_memory", "corrupt_argument", "skip_skill", "drop_handoff_field", "stop_early")
HANDOFF_FIELDS = ("inputs", "facts")


def _mutating_calls(task: Task) -> list[int]:
    gold = task.gold[:-1]
    return [i for i, a in enumerate(gold) if a.name in REGISTRY and REGISTRY[a.name].mutating and a.arguments]


def _handoff_target(task: Task) -> tuple[int, str, list[str]] | None:
    """(gold index of the last call to the checked route, its handoff field, the keys the check requires)."""
    check = task.check
    if not isinstance(check, AgentBehaviorCheck) or check.route is None:
        return None
    calls = [i for i, a in enumerate(task.gold[:-1]) if a.name == check.route]
    for part in HANDOFF_FIELDS:
        required = check.handoff.get(part)
        if calls and isinstance(required, Mapping) and required:
            last = task.gold[calls[-1]].arguments.get(part)
            keys = sorted(k for k in required if isinstance(last, Mapping) and k in last)
            if keys:
                return calls[-1], part, keys
    return None


def applicable_perturbations(task: Task) -> tuple[str, ...]:
    """The perturbations that change ``task``'s gold in a way its verdict must catch."""
    steps = task.gold[:-1]
    names = {a.name for a in steps}
    applies = {
        "skip_memory": bool(task.required_memory_ids) and "search_memory" in names,
        "corrupt_argument": bool(_mutating_calls(task)) and not task.noop_ok,
        "skip_skill": task.required_skill_id is not None and "load_skill" in names,
        "drop_handoff_field": _handoff_target(task) is not None,
        "stop_early": len(steps) >= 2 and not task.noop_ok,
    }
    return tuple(p for p in PERTURBATIONS if applies[p])


def variants(task: Task, perturbation: str) -> int:
    """How many distinct ways ``perturbation`` can hit ``task`` (which argument, which field)."""
    if perturbation == "corrupt_argument":
        calls = _mutating_calls(task)
        return len(task.gold[calls[-1]].arguments) if calls else 0
    if perturbation == "drop_handoff_field":
        target = _handoff_target(task)
        return len(target[2]) if target else 0
    return 1


def corrupt(value: Any) -> Any:
    """A value of the wrong JSON type: a string becomes a one-element list, anything else its JSON text."""
    return [value] if isinstance(value, str) else json.dumps(value, sort_keys=True)


def perturb(task: Task, applied: Mapping[str, int]) -> list[Action]:
    """The gold with each perturbation in ``applied`` (name -> variant index) applied; a perturbation
    that does not apply to the task leaves the gold as it is. A handoff field is dropped before an
    argument is corrupted, since the corruption may turn the handoff into text."""
    applies = applicable_perturbations(task)
    steps = list(task.gold[:-1])
    target = _handoff_target(task)
    if "drop_handoff_field" in applied and target is not None:
        i, part, keys = target
        dropped = keys[applied["drop_handoff_field"]]
        handoff = {k: v for k, v in steps[i].arguments[part].items() if k != dropped}
        steps[i] = Action(name=steps[i].name, arguments={**steps[i].arguments, part: handoff})
    if "corrupt_argument" in applied and "corrupt_argument" in applies:
        i = _mutating_calls(task)[-1]
        arguments = steps[i].arguments
        key = sorted(arguments)[applied["corrupt_argument"]]
        steps[i] = Action(name=steps[i].name, arguments={**arguments, key: corrupt(arguments[key])})
    keep = math.ceil(len(steps) / 2) if "stop_early" in applied and "stop_early" in applies else len(steps)
    skipped = {"search_memory"} if "skip_memory" in applied and "skip_memory" in applies else set()
    skipped |= {"load_skill"} if "skip_skill" in applied and "skip_skill" in applies else set()
    return [a for a in steps[:keep] if a.name not in skipped] + [task.gold[-1]]


class NoisyOraclePlanner:
    """Follows the gold with seeded perturbations (see the module docstring for their definitions)."""

    name = "noisy_oracle"

    def __init__(
        self,
        seed: int = 0,
        p_skip_memory: float = 0.0,
        p_corrupt_argument: float = 0.0,
        p_skip_skill: float = 0.0,
        p_drop_handoff_field: float = 0.0,
        p_stop_early: float = 0.0,
    ) -> None:
        self.seed = seed
        self.probabilities = dict(
            zip(
                PERTURBATIONS,
                (p_skip_memory, p_corrupt_argument, p_skip_skill, p_drop_handoff_field, p_stop_early),
                strict=True,
            )
        )
        for p, value in self.probabilities.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
                raise ValueError(f"planner.p_{p}: a probability in [0, 1], got {value!r}")
        self._plans: dict[str, list[Action]] = {}

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> NoisyOraclePlanner:
        known = {"name", "kind", "seed"} | {f"p_{p}" for p in PERTURBATIONS}
        unknown = sorted(set(config) - known)
        if unknown:
            raise ValueError(
                f"planner.{unknown[0]}: unknown key for kind noisy_oracle; known: {', '.join(sorted(known))}"
            )
        seed = config.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"planner.seed: an integer, got {seed!r}")
        planner = cls(seed, **{f"p_{p}": config.get(f"p_{p}", 0.0) for p in PERTURBATIONS})
        planner.name = str(config.get("name") or cls.name)
        return planner

    def draw(self, task: Task) -> dict[str, int]:
        """The perturbations that fire for ``task`` (name -> variant), decided once from the seed.

        All five draws are made whether or not a perturbation applies, so adding a field to a task
        never changes what is drawn for the others; variants are drawn afterwards.
        """
        rng = random.Random(f"{self.seed}:{task.task_id}")
        fired = [p for p in PERTURBATIONS if rng.random() < self.probabilities[p]]
        return {p: rng.randrange(variants(task, p)) if variants(task, p) else 0 for p in fired}

    def expected_pass_probability(self, task: Task) -> float:
        """P(task still passes) = product of (1 - p) over the perturbations that apply to it."""
        return math.prod(1.0 - self.probabilities[p] for p in applicable_perturbations(task))

    def plan(self, task: Task) -> list[Action]:
        if task.task_id not in self._plans:
            self._plans[task.task_id] = perturb(task, self.draw(task))
        return self._plans[task.task_id]

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        plan = self.plan(task)
        action = plan[min(observation.step, len(plan) - 1)]
        return PlannerAction(action.name, dict(action.arguments))
