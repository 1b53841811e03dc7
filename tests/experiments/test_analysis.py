"""Each statistic of experiments/analysis/stats.py pinned to a hand-computed case, the bootstrap's coverage on a
simulated planner of known pass rate, and the failure taxonomy on crafted verdicts."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.analysis.stats import (
    CAUSES,
    TAXONOMY_RULES,
    analyse,
    behaviour,
    bootstrap_overall,
    breakdowns,
    episode_facts,
    paired,
    pass_at_k,
    pass_hat_k,
    primary_cause,
    sign_flip_p,
    taxonomy,
    wilson,
)
from verification.scoring import CATEGORY_WEIGHTS


def step(name: str, error: str | None = None, **usage: Any) -> dict[str, Any]:
    return {
        "name": name,
        "arguments": {},
        "envelope": {"Status": "error" if error else "success", "ErrorType": error, "Payload": {}},
        "planner": usage,
    }


def fact(
    task_id: str = "t1",
    *,
    category: str = "basic",
    passed: bool = True,
    reasons: tuple[str, ...] = (),
    termination: str = "finished",
    steps: list[dict[str, Any]] | None = None,
    seed: int = 0,
    planner: str = "p",
    scorable: bool = True,
) -> dict[str, Any]:
    return episode_facts(
        None,
        key=task_id,
        planner=planner,
        seed=seed,
        passed=passed,
        scorable=scorable,
        termination=termination,
        reasons=reasons,
        steps=steps or [step("finish")],
        category=category,
        bucket="state_change",
        domain="D1",
        l2="1.1",
    )


# ---- Wilson ------------------------------------------------------------------------------------------


def test_wilson_on_a_known_table() -> None:
    # 8 of 10, z = 1.96: centre (0.8 + 1.9208/10) / 1.38416 = 0.71675, half-width 0.22659
    lo, hi = wilson(8, 10)
    assert (round(lo, 2), round(hi, 2)) == (49.02, 94.33)
    assert wilson(0, 10)[0] == 0.0 and round(wilson(0, 10)[1], 2) == 27.75
    assert wilson(10, 10) == (
        pytest.approx(100 - wilson(0, 10)[1]),
        100.0,
    )  # 0 of 10: z² / (n + z²) = 27.75 %, mirrored


@settings(deadline=None)  # a shared 2-core machine: timing says nothing here
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_holds_the_estimate_inside_0_100(case: tuple[int, int]) -> None:
    k, n = case
    lo, hi = wilson(k, n)
    assert 0.0 <= lo <= 100 * k / n <= hi <= 100.0


def test_wilson_covers_about_95_percent() -> None:
    rng, p, n = random.Random(7), 0.3, 40
    hits = 0
    for _ in range(2000):
        k = sum(rng.random() < p for _ in range(n))
        lo, hi = wilson(k, n)
        hits += lo <= 100 * p <= hi
    assert 0.93 <= hits / 2000 <= 0.97


# ---- pass^k ------------------------------------------------------------------------------------------


def test_pass_hat_k_on_a_small_example() -> None:
    # 3 runs each: 2 passes, 3 passes, 0 passes. k=2: (C(2,2)/C(3,2) + 1 + 0) / 3 = (1/3 + 1) / 3 = 4/9
    outcomes = {"a": [True, True, False], "b": [True, True, True], "c": [False, False, False]}
    assert pass_hat_k(outcomes) == {1: round(100 * 5 / 9, 4), 2: round(100 * 4 / 9, 4), 3: round(100 / 3, 4)}


@settings(deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=3), st.lists(st.booleans(), min_size=3, max_size=3), min_size=1))
def test_pass_hat_1_is_the_pass_rate_and_pass_hat_k_never_rises(outcomes: dict[str, list[bool]]) -> None:
    result = pass_hat_k(outcomes)
    rate = 100 * sum(map(sum, outcomes.values())) / (3 * len(outcomes))
    assert result[1] == pytest.approx(rate, abs=1e-3)
    assert result[1] >= result[2] >= result[3]
    assert result[3] == pytest.approx(100 * sum(all(v) for v in outcomes.values()) / len(outcomes), abs=1e-3)


def test_pass_hat_k_stops_at_the_fewest_runs_so_every_k_has_the_same_tasks() -> None:
    """A skill task's SOR and MTSR runs are runs of one task: 2 seeds give basic 2 runs, skill 4; k stops at 2."""
    runs = {"basic-1": [True, False], "skill-1": [True, True, True, False]}
    assert pass_hat_k(runs) == {1: round(100 * (1 / 2 + 3 / 4) / 2, 4), 2: round(100 * (0 + 3 / 6) / 2, 4)}
    assert pass_at_k(runs, 2) == pytest.approx(100 * (1 + 1) / 2)


# ---- the paired test over tasks ------------------------------------------------------------------------


def test_sign_flip_test_with_one_episode_per_task_is_mcnemars_exact_test() -> None:
    # 10 tasks only A passed, 2 only B: p = 2 · (C(12,0) + C(12,1) + C(12,2)) / 2^12 = 158 / 4096
    assert sign_flip_p([1] * 10 + [-1] * 2 + [0] * 30) == pytest.approx(158 / 4096)
    assert sign_flip_p([-1] * 10 + [1] * 2) == pytest.approx(158 / 4096)
    assert sign_flip_p([]) == 1.0 and sign_flip_p([0, 0]) == 1.0 and sign_flip_p([1, 1, 1, -1, -1, -1]) == 1.0
    assert sign_flip_p([-1] * 6) == pytest.approx(2 / 64)


def test_sign_flip_test_weighs_each_task_by_its_difference() -> None:
    """Differences 3 and -1: of the four sign patterns, sums ±2 and ±4; |sum| ≥ 2 always: p = 1.
    Differences 3, 1, 1: sums 5, 3, 3, 1 and their negatives; |sum| ≥ 5 in 2 of 8: p = 1/4."""
    assert sign_flip_p([3, -1]) == 1.0
    assert sign_flip_p([3, 1, 1]) == pytest.approx(2 / 8)


@settings(max_examples=50, deadline=None)  # the first example imports scipy
@given(st.integers(0, 60), st.integers(0, 60))
def test_sign_flip_test_equals_scipys_exact_binomial_test(a: int, b: int) -> None:
    stats = pytest.importorskip("scipy.stats")
    expected = 1.0 if a + b == 0 else stats.binomtest(a, a + b, 0.5).pvalue
    assert sign_flip_p([1] * a + [-1] * b) == pytest.approx(expected, rel=1e-9)


def simulated_pair(rng: np.random.Generator, tasks: int, runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Two planners with equal true rates over the task population but not on each task: each task's
    chance of a pass, per planner, is drawn from the same Beta(0.6, 0.4) (mean 60 %), and its runs
    (seeds, SOR and MTSR) share that chance. Returns (tasks × runs) pass matrices."""
    pa, pb = rng.beta(0.6, 0.4, tasks), rng.beta(0.6, 0.4, tasks)
    return rng.random((tasks, runs)) < pa[:, None], rng.random((tasks, runs)) < pb[:, None]


def test_the_task_level_test_holds_its_nominal_level_where_episode_counting_does_not() -> None:
    """400 simulated comparisons of two planners with equal true rates (100 tasks, 4 runs each): the
    task-level test rejects at 5 % about 5 % of the time (within 2.5 binomial standard deviations, 1.1
    points each), while McNemar over the pooled episodes (each a pair) calls the noise a difference far
    more often. Fixed seed: the same 400 comparisons on every machine."""
    rng = np.random.default_rng(20240601)
    trials, alpha = 400, 0.05
    by_task = by_episode = 0
    for _ in range(trials):
        a, b = simulated_pair(rng, tasks=100, runs=4)
        by_task += sign_flip_p((a.sum(axis=1) - b.sum(axis=1)).tolist()) < alpha
        by_episode += sign_flip_p((a.astype(int) - b.astype(int)).ravel().tolist()) < alpha
    sd = math.sqrt(alpha * (1 - alpha) / trials)
    assert abs(by_task / trials - alpha) <= 2.5 * sd, by_task / trials
    assert by_episode / trials > 3 * alpha, by_episode / trials


# ---- bootstrap ---------------------------------------------------------------------------------------

SIZES = {"basic": 100, "subagent": 20, "memory": 40, "skill": 40}
TRUE_RATES = {"basic": 0.7, "subagent": 0.5, "memory": 0.4, "skill": 0.6}


def simulated_planner(rng: random.Random, seed: int = 0, planner: str = "sim") -> list[dict[str, Any]]:
    return [
        fact(f"{c}-{i}", category=c, passed=rng.random() < TRUE_RATES[c], seed=seed, planner=planner)
        for c, n in SIZES.items()
        for i in range(n)
    ]


def test_bootstrap_is_reproducible_under_a_seed_and_weights_the_categories() -> None:
    facts = simulated_planner(random.Random(1))
    first, again = bootstrap_overall(facts, seed=3), bootstrap_overall(facts, seed=3)
    assert first == again and first["ci"][0] < first["value"] < first["ci"][1]
    rates = {c: 100 * sum(f["passed"] for f in facts if f["category"] == c) / SIZES[c] for c in SIZES}
    assert first["value"] == round(sum(CATEGORY_WEIGHTS[c] * rates[c] for c in SIZES), 2)
    assert bootstrap_overall(facts, seed=4)["ci"] != first["ci"]


def test_bootstrap_covers_the_true_overall_about_95_percent_of_the_time() -> None:
    rng = random.Random(11)
    truth = 100 * sum(CATEGORY_WEIGHTS[c] * p for c, p in TRUE_RATES.items())
    repetitions = 300
    hits = 0
    for r in range(repetitions):
        lo, hi = bootstrap_overall(simulated_planner(rng), resamples=400, seed=r)["ci"]
        hits += lo <= truth <= hi
    assert 0.90 <= hits / repetitions <= 0.985  # sd of the estimate ≈ 1.3 points at 300 repetitions


def test_bootstrap_keeps_a_tasks_seeds_together() -> None:
    """Three seeds of identical outcomes carry no more information than one: same interval width."""
    one = simulated_planner(random.Random(5))
    three = [{**f, "seed": s} for f in one for s in range(3)]
    assert bootstrap_overall(one, seed=0)["ci"] == bootstrap_overall(three, seed=0)["ci"]


# ---- paired comparison ---------------------------------------------------------------------------------


def test_paired_comparison_counts_tasks_and_tests_them() -> None:
    a = [fact(f"t{i}", passed=i < 8, planner="a") for i in range(12)]  # passes t0..t7
    b = [fact(f"t{i}", passed=i < 2 or i >= 10, planner="b") for i in range(12)]  # passes t0, t1, t10, t11
    result = paired(a, b, seed=0)
    row = result["rows"]["basic"]
    assert (row["a"], row["b"], row["difference"]) == (round(800 / 12, 2), round(400 / 12, 2), round(400 / 12, 2))
    assert (row["a_better"], row["b_better"], row["tasks"], row["episodes"]) == (6, 2, 12, 12)
    assert row["p"] == pytest.approx(2 * (1 + 8 + 28) / 256)  # one episode per task: McNemar's exact test
    assert row["ci"][0] <= row["difference"] <= row["ci"][1]
    assert result["rows"]["overall"]["difference"] == row["difference"]
    assert result["flips"]["a_better"] == [f"t{i}" for i in range(2, 8)]
    assert result["flips"]["b_better"] == ["t10", "t11"]


def test_paired_comparison_counts_a_tasks_seeds_and_conditions_once() -> None:
    """Three seeds × SOR and MTSR of five skill tasks, A passing each everywhere and B nowhere: 30
    discordant episodes but five tasks, so p = 2 / 2^5, not 2 / 2^30."""
    keys = [(f"s{i}@{c}", seed) for i in range(5) for c in ("sor", "mtsr") for seed in range(3)]
    a = [fact(k, category="skill", passed=True, seed=seed, planner="a") for k, seed in keys]
    b = [fact(k, category="skill", passed=False, seed=seed, planner="b") for k, seed in keys]
    row = paired(a, b, resamples=100)["rows"]["skill"]
    assert (row["episodes"], row["tasks"], row["a_better"]) == (30, 5, 5)
    assert row["p"] == pytest.approx(2 / 32)


def test_paired_comparison_of_a_planner_with_itself_is_zero() -> None:
    facts = simulated_planner(random.Random(2))
    result = paired(facts, facts, resamples=200)
    for row in result["rows"].values():
        assert row["difference"] == 0 and row["ci"] == [0.0, 0.0] and row["p"] == 1.0


def test_paired_comparison_needs_shared_episodes() -> None:
    with pytest.raises(ValueError, match="share no scored episode"):
        paired([fact("x")], [fact("y")])


def test_paired_interval_is_narrower_than_unpaired_for_correlated_planners() -> None:
    """B is A with 5 % of passes flipped: the paired interval sees the small gap, which the two separate
    intervals overlap completely."""
    rng = random.Random(3)
    a = simulated_planner(rng, planner="a")
    b = [{**f, "planner": "b", "passed": f["passed"] and rng.random() > 0.05} for f in a]
    row = paired(a, b, seed=1)["rows"]["overall"]
    width = row["ci"][1] - row["ci"][0]
    lo_a, hi_a = bootstrap_overall(a, seed=1)["ci"]
    assert width < (hi_a - lo_a) / 2


# ---- facts and behaviour -------------------------------------------------------------------------------


def test_facts_count_calls_after_a_permission_denied_until_it_is_handled() -> None:
    steps = [
        step("search_photos", "PermissionDenied"),
        step("search_photos", "PermissionDenied"),
        step("list_albums"),
        step("grant_app_permission"),
        step("search_photos"),
        step("finish"),
    ]
    f = fact(steps=steps)
    assert f["permission_denied"] and f["calls_before_handling"] == 2 and f["errors"].count("PermissionDenied") == 2
    never = fact(steps=[step("search_photos", "PermissionDenied"), step("search_photos")])
    assert never["permission_denied"] and never["calls_before_handling"] is None
    b = behaviour([f, never, fact()])
    assert b["permission_denied"]["episodes"] == 2 and b["permission_denied"]["handled"] == 1
    assert b["permission_denied"]["mean_calls_before_handling"] == 2.0
    assert b["recovery"]["PermissionDenied"]["passed"] == 2


def test_behaviour_recovery_clarification_skills_memory_format_and_tokens() -> None:
    failing = fact(
        "t1",
        passed=False,
        reasons=("answer: x",),
        steps=[
            step("get_x", "EntityNotFound", prompt_tokens=100, completion_tokens=5),
            step("<format_error>", prompt_tokens=120, completion_tokens=7),
            step("ask_user"),
            step("finish"),
        ],
    )
    passing = fact("t2", steps=[step("get_x", "EntityNotFound"), step("load_skill"), step("finish")])
    memory = fact("t3", category="memory", steps=[step("search_memory"), step("search_memory"), step("finish")])
    b = behaviour([failing, passing, memory])
    assert b["recovery"]["EntityNotFound"] == {"passed": 1, "total": 2, "rate": 50.0, "ci": [9.45, 90.55]}
    assert b["clarification"]["asked_when_not_needed"]["passed"] == 1  # no gold here: nothing needed a question
    assert b["skill_loading"]["loaded_when_not_needed"]["passed"] == 1
    assert b["memory_searches"] == {"tasks": 1, "mean": 2.0, "none": 0}
    assert b["format_errors"] == {"errors": 1, "steps": 10, "rate": 10.0}
    assert failing["prompt_tokens"] == 220 and failing["cached_prompt_tokens"] is None
    assert analyse([failing, passing])["tokens"]["prompt_tokens"] == {"total": 220, "per_episode": 220.0}


def test_breakdowns_count_by_axis_and_skip_unscorable() -> None:
    facts = [
        fact("a", passed=True),
        fact("b", passed=False, reasons=("x",)),
        fact("c", category="memory"),
        fact("d", scorable=False, passed=False, termination="infra_error"),
    ]
    result = breakdowns(facts)
    assert result["category"]["basic"]["passed"] == 1 and result["category"]["basic"]["total"] == 2
    assert result["category"]["memory"]["total"] == 1
    assert "friction" not in result  # no task tags known: the axis is absent, not guessed


# ---- taxonomy ------------------------------------------------------------------------------------------

CRAFTED = [
    (
        "infra",
        dict(
            scorable=False,
            termination="infra_error",
            reasons=("infrastructure error: the episode did not run to completion",),
        ),
    ),
    (
        "context_overflow",
        dict(
            termination="context_overflow",
            reasons=(
                "context overflow: the conversation outgrew the model's context",
                "expected call #1 get_x({}): never called successfully",
            ),
        ),
    ),
    (
        "format_errors",
        dict(
            steps=[step("<format_error>"), step("<format_error>"), step("finish")],
            reasons=("answer: the episode never finished with an answer",),
        ),
    ),
    (
        "step_budget",
        dict(termination="truncated", reasons=("events: expected a row inserted like {}; no row was inserted",)),
    ),
    (
        "memory_gate",
        dict(
            reasons=(
                "events: expected a row inserted like {}; closest inserted row 1: title: 'a' != 'b'",
                "memory gate: required records never returned by search_memory: m1",
            )
        ),
    ),
    ("skill_gate", dict(reasons=("skill gate: trip_booking was never loaded with load_skill",))),
    ("handoff", dict(reasons=("handoff: call_voice_agent at step 3: inputs.time: missing",))),
    ("handoff", dict(reasons=("route: call_gui_agent was never called successfully",))),
    (
        "wrong_tool",
        dict(
            reasons=(
                "expected call #1 send_sms({'to': 'Ana'}): never called successfully",
                "unexpected side effect at step 2: send_email({'to': 'Ana'})",
            )
        ),
    ),
    (
        "wrong_tool",
        dict(
            steps=[step("send_mms", "ToolNotAvailable"), step("finish")],
            reasons=("expected call #1 send_sms({}): never called successfully",),
        ),
    ),
    (
        "wrong_argument",
        dict(
            reasons=(
                "events: expected a row inserted like {'title': 'x'}; closest inserted row 9: title: 'y' != 'x'",
                "events: unexpected row inserted: {'title': 'y'}",
            )
        ),
    ),
    (
        "wrong_argument",
        dict(
            reasons=(
                "expected call #2 set_alarm({'time': '07:00'}): wrong arguments at step 1: time: '08:00' != '07:00'",
            )
        ),
    ),
    (
        "wrong_argument",
        dict(
            reasons=("alarms: expected update of {'id': 1} to {'on': True}; the row was updated but on: False != True",)
        ),
    ),
    (
        "wrong_argument",
        dict(
            steps=[step("update_contact", "InvalidArgumentType"), step("finish")],
            reasons=("contacts: expected update of {'contact_id': 'c1'} to {'phone': '1'}; no row was updated",),
        ),
    ),
    ("collateral_write", dict(reasons=("messages: unexpected row inserted: {'body': 'hi'}",))),
    ("collateral_write", dict(reasons=("contacts: forbidden change 3 matches forbid {'id': 3}",))),
    (
        "collateral_write",
        dict(reasons=("alarms: expected update of {'id': 1} to {'on': True}; it also changed label: 'a' -> 'b'",)),
    ),
    ("missing_call", dict(reasons=("alarms: expected update of {'id': 1} to {'on': True}; no row was updated",))),
    ("missing_call", dict(reasons=("ask first: step 2 delete_photo({}) acted without asking the user to confirm",))),
    (
        "missing_call",
        dict(
            reasons=(
                "expected call #1 get_weather({}): never called successfully; no read-only call returned its evidence",
                "answer: 'rain' not found",
            )
        ),
    ),
    ("wrong_answer", dict(reasons=("answer: 'Sunny' not found in the answer",))),
    ("other", dict(reasons=("something new",))),
]


@pytest.mark.parametrize(("cause", "how"), CRAFTED, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CRAFTED)])
def test_taxonomy_gives_crafted_failures_their_primary_cause(cause: str, how: dict[str, Any]) -> None:
    assert primary_cause(fact(passed=False, **how)) == cause


def test_taxonomy_counts_per_planner_and_documents_every_cause() -> None:
    assert set(TAXONOMY_RULES) == set(CAUSES)
    facts = [fact(passed=False, planner=p, **how) for p in ("a", "b") for _, how in CRAFTED[:4]] + [fact(planner="a")]
    counts = taxonomy(facts)
    assert counts["a"] == counts["b"] == {"infra": 1, "context_overflow": 1, "format_errors": 1, "step_budget": 1}
    assert primary_cause(fact()) is None


def test_analyse_bundles_everything_json_ready() -> None:
    import json

    facts = simulated_planner(random.Random(4)) + [{**f, "seed": 1} for f in simulated_planner(random.Random(5))]
    doc = json.loads(json.dumps(analyse(facts, resamples=100)))
    assert set(doc) >= {"overall", "breakdowns", "behaviour", "taxonomy", "pass_hat_k", "tokens"}
    assert set(doc["pass_hat_k"]) == {"1", "2"} and doc["pass_hat_k"]["1"] >= doc["pass_hat_k"]["2"]
    assert math.isclose(sum(doc["taxonomy"]["sim"].values()), sum(not f["passed"] for f in facts))


def test_cached_prompt_tokens_are_read_where_the_server_reports_them() -> None:
    from planners.openai_compat import _cached

    assert _cached({"prompt_tokens": 90, "prompt_tokens_details": {"cached_tokens": 64}}) == 64
    assert _cached({"prompt_tokens_details": None}) is None and _cached({}) is None
    f = fact(steps=[step("get_x", cached_prompt_tokens=64), step("finish", cached_prompt_tokens=80)])
    assert f["cached_prompt_tokens"] == 144
