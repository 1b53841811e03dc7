"""The stability arithmetic, checked against the paper's own numbers."""

from __future__ import annotations

import pytest

from experiments.analysis.stability import stability


def _seed(passed: dict[str, int], totals: dict[str, int]) -> dict[str, tuple[str, bool]]:
    return {f"{c}-{i:04d}": (c, i < passed[c]) for c, n in totals.items() for i in range(n)}


def test_paper_subagent_range_moves_overall_by_about_a_quarter_point() -> None:
    """Sub-agent 56/89 vs 58/89 is a 2.25-point range = 2 tasks, and moves Overall by 0.1 × 2.25."""
    totals = {"basic": 1040, "subagent": 89, "memory": 376, "skill": 400}
    base = {"basic": 872, "subagent": 56, "memory": 220, "skill": 312}
    outcomes = {0: _seed(base, totals), 1: _seed({**base, "subagent": 58}, totals), 2: _seed(base, totals)}
    s = stability(outcomes)
    assert s.categories["subagent"].range == pytest.approx(2.247, abs=1e-3)
    assert round(s.categories["subagent"].range, 2) == 2.25
    assert s.range_episodes["subagent"] == pytest.approx(2.0)
    assert s.overall_shift["subagent"] == pytest.approx(0.2247, abs=1e-4)
    assert round(s.overall_shift["subagent"], 2) == 0.22 and round(0.1 * 2.25, 3) == 0.225
    assert s.overall.range == pytest.approx(s.overall_shift["subagent"])  # only sub-agent moved
    assert s.categories["basic"].range == 0 and s.overall_shift["basic"] == 0
    assert s.flipping == ("subagent-0056", "subagent-0057")
    n = sum(totals.values())
    assert s.pass_all == pytest.approx(100 * (872 + 56 + 220 + 312) / n, abs=1e-3)
    assert s.pass_any == pytest.approx(100 * (872 + 58 + 220 + 312) / n)


def test_spread_statistics_and_single_seed() -> None:
    totals = {"basic": 4}
    s = stability({0: _seed({"basic": 1}, totals), 1: _seed({"basic": 3}, totals)})
    assert s.categories["basic"].values == (25.0, 75.0)
    assert s.categories["basic"].mean == 50.0
    assert s.categories["basic"].std == pytest.approx(35.355, abs=1e-3)  # sample std
    assert s.overall.values == (25.0, 75.0)  # one category: Overall is its rate
    one = stability({3: _seed({"basic": 2}, totals)})
    assert one.categories["basic"].std == 0 and one.flipping == () and one.pass_all == one.pass_any == 50.0
    assert one.one_seed and not s.one_seed


def test_pass_k_and_flips_count_base_tasks_with_sor_and_mtsr_as_repeats() -> None:
    """A skill task passing under SOR and failing under MTSR on both seeds flips nothing; pass^2 over its
    four runs is C(2,2)/C(4,2) = 1/6; a basic task failing on one seed flips and has pass^2 0, pass@2 1."""
    seed0 = {"skill-1@sor": ("skill", True), "skill-1@mtsr": ("skill", False), "basic-1": ("basic", True)}
    seed1 = {**seed0, "basic-1": ("basic", False)}
    s = stability({0: seed0, 1: seed1})
    assert s.tasks == 2 and s.flipping == ("basic-1",)
    assert s.pass_all == pytest.approx(100 * (1 / 6 + 0) / 2, abs=1e-3)
    assert s.pass_any == pytest.approx(100 * (5 / 6 + 1) / 2)
    assert s.episodes == {"basic": 1, "skill": 2}
