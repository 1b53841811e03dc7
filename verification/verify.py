"""One task, one trajectory, one verdict: the bucket's checker plus the memory and skill gates."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sandbox.episode import Trajectory
from sandbox.tasks import Task
from verification.checkers import check_agent_behavior, check_state_change, check_tool_calls, successful_steps

TERMINATIONS = ("finished", "truncated", "context_overflow", "prompt_overflow", "infra_error")
"""``prompt_overflow``: the first request did not fit the model's context (refused, or its reply cut
short by the room left): the model never had its turn, so it is scored as failed but counted apart."""

OVERFLOWS = {
    "context_overflow": "context overflow: the conversation outgrew the model's context",
    "prompt_overflow": "prompt overflow: the first request did not fit the model's context",
}

CHECKERS: dict[str, Callable[[Any, Trajectory], list[str]]] = {
    "tool_call": check_tool_calls,
    "state_change": check_state_change,
    "agent_behavior": check_agent_behavior,
}


@dataclass(frozen=True)
class Verdict:
    """The outcome of one episode. ``scorable`` is False when the sandbox or the infrastructure failed:
    such an episode says nothing about the planner, is re-run, and is never counted by scoring."""

    task_id: str
    category: str
    bucket: str
    passed: bool
    checker_passed: bool
    memory_gate: bool | None  # None: the task requires no memory
    skill_gate: bool | None  # None: the task requires no skill
    reasons: tuple[str, ...]
    termination: str
    scorable: bool = True


def verify(task: Task, trajectory: Trajectory) -> Verdict:
    """Score one trajectory of ``task``; raises ValueError for a mismatched pair or a malformed check."""
    if trajectory.task_id != task.task_id:
        raise ValueError(f"trajectory of {trajectory.task_id!r} given for task {task.task_id!r}")
    if trajectory.termination not in TERMINATIONS:
        raise ValueError(f"trajectory {task.task_id}: unknown termination {trajectory.termination!r}")
    problems = [f"sandbox internal error: {e}" for e in trajectory.internal_errors]
    if trajectory.termination == "infra_error":
        problems.insert(
            0,
            "infrastructure error: the episode did not run to completion"
            + (f" ({trajectory.infra_error})" if trajectory.infra_error else ""),
        )
    if problems:
        return Verdict(
            task.task_id,
            task.category,
            task.bucket,
            False,
            False,
            None,
            None,
            tuple(problems),
            trajectory.termination,
            scorable=False,
        )
    reasons = CHECKERS[task.bucket](task.check, trajectory)
    checker_passed = not reasons
    overflowed = trajectory.termination in OVERFLOWS  # the model's failure: scored, never a pass
    if overflowed:
        reasons.insert(
            0,
            OVERFLOWS[trajectory.termination]
            + (f" ({trajectory.context_overflow})" if trajectory.context_overflow else ""),
        )
    memory_gate = skill_gate = None
    if task.required_memory_ids:
        unseen = sorted(set(task.required_memory_ids) - retrieved_memory_ids(trajectory))
        memory_gate = not unseen
        if unseen:
            reasons.append(f"memory gate: required records never returned by search_memory: {', '.join(unseen)}")
    if task.required_skill_id:
        skill_gate = task.required_skill_id in loaded_skill_ids(trajectory)
        if not skill_gate:
            reasons.append(f"skill gate: {task.required_skill_id} was never loaded with load_skill")
    passed = checker_passed and memory_gate is not False and skill_gate is not False and not overflowed
    return Verdict(
        task.task_id,
        task.category,
        task.bucket,
        passed,
        checker_passed,
        memory_gate,
        skill_gate,
        tuple(reasons),
        trajectory.termination,
    )


def retrieved_memory_ids(trajectory: Trajectory) -> set[str]:
    """M̂_T: ids of the records any successful search_memory returned."""
    return {
        record["memory_id"]
        for step in successful_steps(trajectory)
        if step.name == "search_memory"
        for record in step.envelope.get("Payload", {}).get("records", [])
        if isinstance(record, dict) and "memory_id" in record
    }


def loaded_skill_ids(trajectory: Trajectory) -> set[str]:
    """Skills a successful load_skill step loaded."""
    return {
        step.arguments["skill_id"]
        for step in successful_steps(trajectory)
        if step.name == "load_skill" and isinstance(step.arguments, dict) and "skill_id" in step.arguments
    }
