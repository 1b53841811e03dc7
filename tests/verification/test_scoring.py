from __future__ import annotations

import pytest

from verification.scoring import CATEGORY_WEIGHTS, Tally, overall, summarise
from verification.verify import Verdict

PAPER = {"basic": 83.85, "subagent": 62.92, "memory": 58.51, "skill": 78.00}


def verdict(
    category: str,
    passed: bool,
    bucket: str = "tool_call",
    *,
    memory: bool | None = None,
    skill: bool | None = None,
    scorable: bool = True,
) -> Verdict:
    return Verdict("t", category, bucket, passed, passed, memory, skill, (), "finished", scorable)


def test_paper_overall() -> None:
    assert round(overall(PAPER), 2) == 75.52
    assert sum(CATEGORY_WEIGHTS.values()) == pytest.approx(1.0)


def test_count_form() -> None:
    assert round(Tally(872, 1040).rate, 2) == 83.85
    assert round(Tally(312, 400).rate, 2) == 78.00
    assert round(Tally(243, 376).rate, 2) == 64.63


def test_absent_categories_renormalise() -> None:
    assert overall({"basic": 80.0}) == pytest.approx(80.0)
    assert overall({"basic": 80.0, "memory": 50.0}) == pytest.approx((0.5 * 80 + 0.2 * 50) / 0.7)
    with pytest.raises(ValueError):
        overall({})
    with pytest.raises(ValueError):
        overall({"basics": 1.0})


def test_summarise() -> None:
    verdicts = (
        [verdict("basic", i < 3) for i in range(4)]
        + [verdict("memory", True, "state_change", memory=True), verdict("memory", False, "state_change", memory=False)]
        + [verdict("skill", True, skill=True)]
        + [verdict("basic", False, scorable=False)]
    )
    summary = summarise(verdicts)
    assert summary.categories == {"basic": Tally(3, 4), "memory": Tally(1, 2), "skill": Tally(1, 1)}
    assert summary.buckets == {"tool_call": Tally(4, 5), "state_change": Tally(1, 2)}
    assert summary.memory_gate == Tally(1, 2) and summary.skill_gate == Tally(1, 1)
    assert summary.unscorable == 1
    assert summary.overall == pytest.approx((0.5 * 75 + 0.2 * 50 + 0.2 * 100) / 0.9)
    data = summary.to_json()
    assert data["categories"]["basic"] == {"passed": 3, "total": 4, "rate": 75.0}
    assert data["unscorable"] == 1 and data["skill_gate"]["rate"] == 100.0


def test_summarise_reproduces_paper_from_counts() -> None:
    counts = {"basic": (872, 1040), "subagent": (56, 89), "memory": (220, 376), "skill": (312, 400)}
    verdicts = [verdict(c, i < passed) for c, (passed, total) in counts.items() for i in range(total)]
    summary = summarise(verdicts)
    assert {c: round(t.rate, 2) for c, t in summary.categories.items()} == PAPER
    assert round(summary.overall or 0, 2) == 75.52


def test_summarise_nothing_scorable() -> None:
    summary = summarise([verdict("basic", False, scorable=False)])
    assert summary.overall is None and summary.categories == {} and summary.memory_gate is None
    assert summary.unscorable == 1
