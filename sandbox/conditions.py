"""Skill conditions (docs/architecture.md §6): configuration that decides a skill task's initial action space.

- ``sor`` (skill-oracle retrieval): the loaders of the skills the task needs (``tags.sor_skills``) and,
  of the domain tools, only the lookups the job makes outside those skills (the list or search a real
  phone offers anyway, e.g. the contacts search before a skill's ``send_sms``); everything else must
  come from loading the skills.
- ``mtsr`` (mixed tool and skill retrieval): the retrieved top-N tools plus every offered loader,
  distractor skills included, so atomic tools compete with the skills.
- ``default``: the task's stored A0 and loaders (identical to ``mtsr``).
- ``both``: the paper's protocol: every skill task runs twice, under ``sor`` and under ``mtsr`` (episode
  keys ``<task_id>@sor`` and ``<task_id>@mtsr``), every other task once: 1,905 episodes for 1,705 tasks.
Non-skill tasks are the same under every condition.
"""

from __future__ import annotations

from collections.abc import Iterable

from sandbox.tasks import Task

CONDITIONS = ("sor", "mtsr")
BOTH = "both"
KNOWN = ("default", *CONDITIONS, BOTH)


def expand(tasks: Iterable[Task], condition: str) -> list[tuple[str, Task, str]]:
    """(episode key, task, the condition it runs under) for every episode ``condition`` asks for."""
    if condition not in KNOWN:
        raise ValueError(f"condition: unknown skill condition {condition!r}; known: {', '.join(KNOWN)}")
    if condition != BOTH:
        return [(t.task_id, t, condition) for t in tasks]
    return [(f"{t.task_id}@{c}", t, c) if t.category == "skill" else (t.task_id, t, "default")
            for t in tasks for c in (CONDITIONS if t.category == "skill" else ("default",))]


def action_space_for(task: Task, condition: str) -> tuple[list[str], list[str]]:
    """(candidate tools, offered skills) of ``task`` under ``condition``."""
    if condition not in KNOWN or condition == BOTH:
        raise ValueError(f"condition: {condition!r} is not a condition one episode runs under; "
                         f"known: {', '.join(k for k in KNOWN if k != BOTH)}")
    if condition == "sor" and task.category == "skill":
        lookups = {a.name for a in task.gold}
        return ([t for t in task.candidate_tools if t in lookups],
                [s for s in task.tags.get("sor_skills", task.required_skill_id or "").split(",") if s])
    return list(task.candidate_tools), list(task.candidate_skills)
