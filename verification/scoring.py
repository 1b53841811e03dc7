"""Success rates per category and bucket, and the paper's weighted Overall score."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sandbox.tasks import BUCKETS, CATEGORIES
from verification.verify import Verdict

CATEGORY_WEIGHTS: dict[str, float] = {"basic": 0.5, "subagent": 0.1, "memory": 0.2, "skill": 0.2}


def overall(rates: Mapping[str, float]) -> float:
    """Overall = 0.5·Basic + 0.1·Sub-agent + 0.2·Memory + 0.2·Skill, in the unit of ``rates``.

    When a category is absent (e.g. a run of one split), the weights are renormalised over the
    categories present, so Overall stays a weighted mean of what was measured; with all four present
    this is exactly the paper's formula.
    """
    unknown = set(rates) - set(CATEGORY_WEIGHTS)
    if unknown:
        raise ValueError(f"unknown categories {sorted(unknown)}; expected some of {list(CATEGORY_WEIGHTS)}")
    if not rates:
        raise ValueError("overall of no categories")
    weight = sum(CATEGORY_WEIGHTS[c] for c in rates)
    return sum(CATEGORY_WEIGHTS[c] * rate for c, rate in rates.items()) / weight


@dataclass(frozen=True)
class Tally:
    """How many of ``total`` verdicts passed (counts, so reports can show 872/1040 next to 83.85 %)."""

    passed: int
    total: int

    @property
    def rate(self) -> float:
        """Success rate in percent (0.0 for an empty tally)."""
        return 100.0 * self.passed / self.total if self.total else 0.0

    def to_json(self) -> dict[str, int | float]:
        return {"passed": self.passed, "total": self.total, "rate": self.rate}


@dataclass(frozen=True)
class Summary:
    """Aggregate of scorable verdicts; unscorable ones (infra or sandbox errors) are only counted."""

    categories: dict[str, Tally]
    buckets: dict[str, Tally]
    overall: float | None  # percent; None when nothing was scorable
    memory_gate: Tally | None  # over verdicts whose task requires memory; None when none does
    skill_gate: Tally | None
    unscorable: int

    def to_json(self) -> dict[str, Any]:
        return {
            "categories": {k: v.to_json() for k, v in self.categories.items()},
            "buckets": {k: v.to_json() for k, v in self.buckets.items()},
            "overall": self.overall,
            "memory_gate": self.memory_gate.to_json() if self.memory_gate else None,
            "skill_gate": self.skill_gate.to_json() if self.skill_gate else None,
            "unscorable": self.unscorable,
        }


def summarise(verdicts: Iterable[Verdict]) -> Summary:
    """Per-category and per-bucket tallies, gate pass rates and Overall (see ``overall`` for absent categories)."""
    all_verdicts = list(verdicts)
    scored = [v for v in all_verdicts if v.scorable]
    categories = {c: _tally(v.passed for v in scored if v.category == c) for c in CATEGORIES}
    buckets = {b: _tally(v.passed for v in scored if v.bucket == b) for b in BUCKETS}
    present = {c: t for c, t in categories.items() if t.total}
    memory = _tally(v.memory_gate for v in scored if v.memory_gate is not None)
    skill = _tally(v.skill_gate for v in scored if v.skill_gate is not None)
    return Summary(
        categories=present,
        buckets={b: t for b, t in buckets.items() if t.total},
        overall=overall({c: t.rate for c, t in present.items()}) if present else None,
        memory_gate=memory if memory.total else None,
        skill_gate=skill if skill.total else None,
        unscorable=len(all_verdicts) - len(scored),
    )


def _tally(outcomes: Iterable[bool | None]) -> Tally:
    values = list(outcomes)
    return Tally(sum(bool(v) for v in values), len(values))
