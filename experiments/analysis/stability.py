"""Stability across seeds: spread per category and Overall, pass^k / pass@k, flipping tasks, and how far
each category's spread moves Overall (the paper: a 2.25-point Sub-agent range = 2 of 89 tasks, which
moves Overall by 0.1 × 2.25 ≈ 0.23 points).

Rates and ranges count episodes (a skill task has two under condition ``both``, SOR and MTSR); pass^k,
pass@k and flips count base tasks, every episode of a task (its seeds, its SOR and MTSR runs) a run of
that one task."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from experiments.analysis.stats import pass_at_k, pass_hat_k
from verification.scoring import CATEGORY_WEIGHTS, overall

Outcomes = Mapping[int, Mapping[str, tuple[str, bool]]]  # seed -> episode key -> (category, passed)


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
    episodes: dict[str, int]  # category -> episodes scored per seed (the most of any seed)
    range_episodes: dict[str, float]  # category -> its range in episodes (2.25 % of 89 = 2 sub-agent tasks)
    overall_shift: dict[str, float]  # category -> Overall points its range moves (weight × range)
    tasks: int  # base tasks scored under every seed: the unit of pass^k, pass@k and flips
    pass_all: float  # pass^k, k = seeds: percent chance that k runs of a base task all pass
    pass_any: float  # pass@k, k = seeds: percent chance that one of k runs of a base task passes
    flipping: tuple[str, ...]  # base tasks with an episode whose outcome differs between seeds

    @property
    def one_seed(self) -> bool:
        """One seed has no spread and no flips to show: a report says "one seed" instead."""
        return len(self.seeds) < 2

    def to_json(self) -> dict[str, Any]:
        return {
            "seeds": list(self.seeds),
            "overall": self.overall.to_json(),
            "categories": {c: s.to_json() for c, s in self.categories.items()},
            "episodes": self.episodes,
            "range_episodes": self.range_episodes,
            "overall_shift": self.overall_shift,
            "tasks": self.tasks,
            "pass_all": self.pass_all,
            "pass_any": self.pass_any,
            "flipping": list(self.flipping),
        }


def stability(outcomes: Outcomes) -> Stability:
    """Analyse one (planner, split, condition) over its seeds; episodes missing under a seed are ignored
    for pass^k/pass@k and flips (they are not comparable), but still count in that seed's rates."""
    if not outcomes:
        raise ValueError("stability of no seeds")
    seeds = tuple(sorted(outcomes))
    categories = sorted(
        {cat for per_seed in outcomes.values() for cat, _ in per_seed.values()}, key=list(CATEGORY_WEIGHTS).index
    )
    rates: dict[str, list[float]] = {c: [] for c in categories}
    overall_values: list[float] = []
    episodes: dict[str, int] = {}
    for seed in seeds:
        per_category: dict[str, float] = {}
        for c in categories:
            passed = [p for cat, p in outcomes[seed].values() if cat == c]
            episodes[c] = max(episodes.get(c, 0), len(passed))
            if passed:
                per_category[c] = 100.0 * sum(passed) / len(passed)
                rates[c].append(per_category[c])
        overall_values.append(overall(per_category))
    spreads = {c: Spread(tuple(v)) for c, v in rates.items() if v}
    weight = sum(CATEGORY_WEIGHTS[c] for c in spreads)
    common = set.intersection(*(set(outcomes[s]) for s in seeds))
    runs: dict[str, list[bool]] = {}  # base task -> every run (seeds × its episodes)
    flipping: set[str] = set()
    for key in sorted(common):
        task = key.partition("@")[0]
        per_seed = [outcomes[s][key][1] for s in seeds]
        runs.setdefault(task, []).extend(per_seed)
        if len(set(per_seed)) > 1:
            flipping.add(task)
    k = len(seeds)
    return Stability(
        seeds=seeds,
        categories=spreads,
        overall=Spread(tuple(overall_values)),
        episodes=episodes,
        range_episodes={c: s.range * episodes[c] / 100.0 for c, s in spreads.items()},
        overall_shift={c: CATEGORY_WEIGHTS[c] / weight * s.range for c, s in spreads.items()},
        tasks=len(runs),
        pass_all=pass_hat_k(runs).get(k, 0.0) if runs else 0.0,
        pass_any=pass_at_k(runs, k) if runs else 0.0,
        flipping=tuple(sorted(flipping)),
    )
