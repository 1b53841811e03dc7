"""Stability across seeds: spread per category and Overall, pass^k / pass@k, flipping tasks, and how far
each category's spread moves Overall (the paper: a 2.25-point Sub-agent range = 2 of 89 tasks, which
moves Overall by 0.1 × 2.25 ≈ 0.23 points)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from verification.scoring import CATEGORY_WEIGHTS, overall

Outcomes = Mapping[int, Mapping[str, tuple[str, bool]]]  # seed -> task_id -> (category, passed)


@dataclass(frozen=True)
class Spread:
    """Rates in percent over seeds; ``std`` is the sample standard deviation (0 for one seed)."""

    values: tuple[float, ...]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.values)

    @property
    def std(self) -> float:
        return statistics.stdev(self.values) if len(self.values) > 1 else 0.0

    @property
    def range(self) -> float:
        return max(self.values) - min(self.values)

    def to_json(self) -> dict[str, Any]:
        return {"values": list(self.values), "mean": self.mean, "std": self.std, "range": self.range}


@dataclass(frozen=True)
class Stability:
    seeds: tuple[int, ...]
    categories: dict[str, Spread]
    overall: Spread
    tasks: dict[str, int]  # category -> tasks scored per seed
    range_tasks: dict[str, float]  # category -> its range in tasks (2.25 % of 89 = 2 tasks)
    overall_shift: dict[str, float]  # category -> Overall points its range moves (weight × range)
    pass_all: float  # pass^k: percent of tasks passed under every seed
    pass_any: float  # pass@k: percent of tasks passed under at least one seed
    flipping: tuple[str, ...]  # tasks whose outcome differs between seeds

    def to_json(self) -> dict[str, Any]:
        return {
            "seeds": list(self.seeds),
            "overall": self.overall.to_json(),
            "categories": {c: s.to_json() for c, s in self.categories.items()},
            "tasks": self.tasks,
            "range_tasks": self.range_tasks,
            "overall_shift": self.overall_shift,
            "pass_all": self.pass_all,
            "pass_any": self.pass_any,
            "flipping": list(self.flipping),
        }


def stability(outcomes: Outcomes) -> Stability:
    """Analyse one (planner, split, condition) over its seeds; tasks missing under a seed are ignored
    for pass^k/pass@k and flips (they are not comparable), but still count in that seed's rates."""
    if not outcomes:
        raise ValueError("stability of no seeds")
    seeds = tuple(sorted(outcomes))
    categories = sorted(
        {cat for per_seed in outcomes.values() for cat, _ in per_seed.values()}, key=list(CATEGORY_WEIGHTS).index
    )
    rates: dict[str, list[float]] = {c: [] for c in categories}
    overall_values: list[float] = []
    tasks: dict[str, int] = {}
    for seed in seeds:
        per_category: dict[str, float] = {}
        for c in categories:
            passed = [p for cat, p in outcomes[seed].values() if cat == c]
            tasks[c] = max(tasks.get(c, 0), len(passed))
            if passed:
                per_category[c] = 100.0 * sum(passed) / len(passed)
                rates[c].append(per_category[c])
        overall_values.append(overall(per_category))
    spreads = {c: Spread(tuple(v)) for c, v in rates.items() if v}
    weight = sum(CATEGORY_WEIGHTS[c] for c in spreads)
    common = set.intersection(*(set(outcomes[s]) for s in seeds))
    results = {t: [outcomes[s][t][1] for s in seeds] for t in sorted(common)}
    n = len(results) or 1
    return Stability(
        seeds=seeds,
        categories=spreads,
        overall=Spread(tuple(overall_values)),
        tasks=tasks,
        range_tasks={c: s.range * tasks[c] / 100.0 for c, s in spreads.items()},
        overall_shift={c: CATEGORY_WEIGHTS[c] / weight * s.range for c, s in spreads.items()},
        pass_all=100.0 * sum(all(v) for v in results.values()) / n,
        pass_any=100.0 * sum(any(v) for v in results.values()) / n,
        flipping=tuple(t for t, v in results.items() if len(set(v)) > 1),
    )
