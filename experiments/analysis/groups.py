"""Store rows grouped by (planner, split, condition) and seed, and what a group's rows add up to: its
stability over the seeds and its error kinds (the leaderboard, the plots and MLflow read them alike)."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from experiments.analysis.stability import Stability, stability

Group = tuple[str, str, str]  # planner, split, condition


def error_counts(rows: Iterable[dict[str, Any]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for r in rows:
        counts.update(json.loads(r["error_kinds"]))
    return counts


def by_group(rows: Iterable[dict[str, Any]]) -> dict[Group, dict[int, list[dict[str, Any]]]]:
    groups: dict[Group, dict[int, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        groups[(r["planner"], r["split"], r["condition"])][r["seed"]].append(r)
    return {g: dict(seeds) for g, seeds in sorted(groups.items())}


def row_outcomes(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Store rows as the few facts the intervals and pass^k read (``experiments.analysis.stats``): the
    base task (a skill task's SOR and MTSR episodes are one task), category, passed, scorable."""
    return [
        {
            "task_id": r["task_id"].partition("@")[0],
            "category": r["category"],
            "passed": bool(r["passed"]),
            "scorable": bool(r["scorable"]),
        }
        for r in rows
    ]


def group_stability(seeds: dict[int, list[dict[str, Any]]]) -> Stability | None:
    """The spread over the seeds that have a scorable episode; None when none has (e.g. every episode of
    a dead endpoint ended in ``infra_error``): such a group has no score, only its unscorable count."""
    scored = {
        s: {r["task_id"]: (r["category"], bool(r["passed"])) for r in rows if r["scorable"]}
        for s, rows in seeds.items()
    }
    scored = {s: outcomes for s, outcomes in scored.items() if outcomes}
    return stability(scored) if scored else None


def domain_order(domain: str) -> tuple[int, str]:
    """D1, D2, …, D13: by number, not as text (D1, D10, D11, …, D2)."""
    digits = "".join(ch for ch in domain if ch.isdigit())
    return (int(digits) if digits else 10**6, domain)
