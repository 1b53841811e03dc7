"""Skill conditions (DESIGN.md §6): configuration that decides a skill task's initial action space.

- ``sor`` (skill-oracle retrieval): no domain tools in A0, only the loaders of the skills the task
  needs (``tags.sor_skills``); everything else must come from loading them.
- ``mtsr`` (mixed tool and skill retrieval): the retrieved top-N tools plus every offered loader,
  distractor skills included, so atomic tools compete with the skills.
- ``default``: the task's stored A0 and loaders (identical to ``mtsr``).
Non-skill tasks are the same under every condition.
"""

from __future__ import annotations

from sandbox.tasks import Task

CONDITIONS = ("sor", "mtsr")
KNOWN = ("default", *CONDITIONS)


def action_space_for(task: Task, condition: str) -> tuple[list[str], list[str]]:
    """(candidate tools, offered skills) of ``task`` under ``condition``."""
    if condition not in KNOWN:
        raise ValueError(f"condition: unknown skill condition {condition!r}; known: {', '.join(KNOWN)}")
    if condition == "sor" and task.category == "skill":
        return [], [s for s in task.tags.get("sor_skills", task.required_skill_id or "").split(",") if s]
    return list(task.candidate_tools), list(task.candidate_skills)
