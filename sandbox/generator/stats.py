"""The dataset card's numbers: counts by every axis the suite is stratified on, coverage and retrieval recall."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from sandbox.conditions import CONDITIONS
from sandbox.errors import ErrorType
from sandbox.skills import SKILLS
from sandbox.tasks import Task
from sandbox.taxonomy import DOMAINS, L2
from sandbox.tooling import domain_tools

AXES = {
    "category": lambda t: t.category, "domain": lambda t: t.domain, "l2": lambda t: t.l2,
    "bucket": lambda t: t.bucket, "pattern": lambda t: t.tags.get("pattern"),
    "friction": lambda t: t.tags.get("friction"), "memory_type": lambda t: t.tags.get("memory_type"),
    "turn": lambda t: t.tags.get("turn") or ("multi" if t.history else "single"),
    "primary": lambda t: t.tags.get("primary"), "memory_write": lambda t: t.tags.get("write"),
    "conflict_rule": lambda t: t.tags.get("conflict_rule"), "agent": lambda t: t.tags.get("agent"),
    "skill": lambda t: t.required_skill_id, "composition": lambda t: t.tags.get("composition"),
}


def _count(tasks: list[Task], key: Any) -> dict[str, int]:
    return dict(sorted(Counter(str(v) for t in tasks if (v := key(t)) is not None).items()))


def suite_stats(splits: dict[str, list[Task]]) -> dict[str, Any]:
    """Counts per split, and for ``full`` every axis, the memory cells, coverage and recall@15."""
    full = splits["full"]
    memory = [t for t in full if t.category == "memory"]
    skill = [t for t in full if t.category == "skill"]
    gold_tools = {a.name for t in full for a in t.gold}
    recovered = Counter(e for t in full for e in t.tags.get("recovers", "").split(",") if e)
    recall = [float(t.tags["recall_at_15"]) for t in full if "recall_at_15" in t.tags]
    return {
        "tasks": len(full),
        "trajectories": len(full) + len(skill) * (len(CONDITIONS) - 1),
        "skill_trajectories": len(skill) * len(CONDITIONS),
        "splits": {name: len(tasks) for name, tasks in splits.items()},
        "by": {axis: _count(full, key) for axis, key in AXES.items()},
        "memory_cells": _count(memory, lambda t: "/".join(t.tags.get(k, "?") for k in ("memory_type", "turn", "primary"))),
        "coverage": {
            "domains": f"{len({t.domain for t in full})}/{len(DOMAINS)}",
            "l2": f"{len({t.l2 for t in full})}/{len(L2)}",
            "tools_in_gold": f"{sum(s.name in gold_tools for s in domain_tools())}/{len(domain_tools())}",
            "tools_never_in_gold": sorted(s.name for s in domain_tools() if s.name not in gold_tools),
            "skills": f"{len({t.required_skill_id for t in skill})}/{len(SKILLS)}",
            "error_types_recovered": dict(sorted(recovered.items())),
            "error_types_never_recovered": sorted(e.value for e in ErrorType
                                                  if e.value not in recovered and e is not ErrorType.INTERNAL_ERROR),
        },
        "retrieval": {"bm25": {"recall_at_15_mean": round(statistics.fmean(recall), 4) if recall else None,
                               "tasks_with_full_recall": sum(r == 1.0 for r in recall)}},
        "steps": {"gold_mean": round(statistics.fmean(len(t.gold) for t in full), 2) if full else 0,
                  "gold_max": max((len(t.gold) for t in full), default=0)},
    }
