"""Statistics over per-episode facts: breakdowns, behaviour metrics, a failure taxonomy, intervals and
paired comparisons.

Everything here is a pure function of *facts*: one JSON-ready dict per episode (``episode_facts``),
built the same way from a live ``EpisodeResult`` (``mobilepa run``) or from a results-store row and
its task (``mobilepa report``, ``mobilepa compare``), so a run and a stored sweep are analysed alike.
Rates are in percent, like ``results.json``; intervals are 95 %.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from sandbox.tasks import Task
from verification.scoring import CATEGORY_WEIGHTS, overall

Facts = dict[str, Any]
Z95 = 1.959963984540054
RESAMPLES = 1000

# Tools that deal with a PermissionDenied: grant it, look at the states, ask the user, or stop and say so.
PERMISSION_HANDLERS = frozenset({"grant_app_permission", "get_app_permissions", "ask_user", "finish"})
FORMAT_ERROR_STEP = "<format_error>"


# ---- facts ---------------------------------------------------------------------------------------


def episode_facts(
    task: Task | None,
    *,
    key: str,
    planner: str,
    seed: int,
    passed: bool,
    scorable: bool,
    termination: str,
    reasons: Sequence[str],
    steps: Sequence[Mapping[str, Any]],
    category: str | None = None,
    bucket: str | None = None,
    domain: str | None = None,
    l2: str | None = None,
) -> Facts:
    """One episode's facts. ``steps`` are trajectory steps as JSON (``Step.to_json``); ``task`` may be
    None for a stored row whose task file is gone: its tag axes are then unknown (None), not guessed."""
    base, _, condition = key.partition("@")
    tags = dict(task.tags) if task else {}
    errors = [
        s["envelope"].get("ErrorType")
        for s in steps
        if isinstance(s.get("envelope"), dict) and s["envelope"].get("ErrorType")
    ]
    names = [s.get("name") for s in steps]
    denied = next((i for i, s in enumerate(steps) if _error(s) == "PermissionDenied"), None)
    handled = (
        None
        if denied is None
        else next((j for j in range(denied + 1, len(steps)) if names[j] in PERMISSION_HANDLERS), None)
    )
    usage = [s.get("planner") or {} for s in steps]
    return {
        "planner": planner,
        "seed": seed,
        "key": key,
        "task_id": base,
        "condition": condition or "default",
        "category": task.category if task else category,
        "bucket": task.bucket if task else bucket,
        "domain": task.domain if task else domain,
        "l2": task.l2 if task else l2,
        "memory_type": tags.get("memory_type"),
        # where a memory task's facts live (db | api) and the application domain it acts in (its
        # level-1 domain), both read from the task as it is loaded
        "memory_primary": tags.get("primary") if task and task.category == "memory" else None,
        "memory_domain": (task.domain if task else domain)
        if (task.category if task else category) == "memory"
        else None,
        "memory_write": tags.get("write"),
        "turn": (tags.get("turn") or ("multi" if task.history else "single")) if task else None,
        "composition": tags.get("composition"),
        "friction": tags.get("friction"),
        "agent": tags.get("agent"),
        "passed": bool(passed),
        "scorable": bool(scorable),
        "termination": termination,
        "reasons": list(reasons),
        "steps": len(steps),
        "gold_steps": len(task.gold) if task else None,
        "errors": errors,
        "format_errors": names.count(FORMAT_ERROR_STEP),
        # steps between the first PermissionDenied and the call that handled it (None: none met / never handled)
        "permission_denied": denied is not None,
        "calls_before_handling": None if denied is None or handled is None else handled - denied - 1,
        "asked": names.count("ask_user"),
        "ask_needed": bool(task) and any(a.name == "ask_user" for a in task.gold),  # type: ignore[union-attr]
        "memory_searches": names.count("search_memory"),
        "skill_loaded": "load_skill" in names,
        "skill_needed": bool(task and task.required_skill_id),
        **{k: _token_sum(usage, k) for k in ("prompt_tokens", "completion_tokens", "cached_prompt_tokens")},
    }


def result_facts(result: Any, *, planner: str, seed: int) -> Facts:
    """Facts of a live ``experiments.episodes.loop.EpisodeResult`` (``mobilepa run``)."""
    v = result.verdict
    return episode_facts(
        result.task,
        key=result.key or result.task.task_id,
        planner=planner,
        seed=seed,
        passed=v.passed,
        scorable=v.scorable,
        termination=v.termination,
        reasons=v.reasons,
        steps=[s.to_json() for s in result.trajectory.steps],
    )


def row_facts(row: Mapping[str, Any], trajectory: Mapping[str, Any], task: Task | None) -> Facts:
    """Facts of a results-store row, its decompressed trajectory and its task (None when unknown)."""
    return episode_facts(
        task,
        key=row["task_id"],
        planner=row["planner"],
        seed=row["seed"],
        passed=row["passed"],
        scorable=row["scorable"],
        termination=row["termination"],
        reasons=json.loads(row["reasons"]),
        steps=trajectory.get("steps", []),
        category=row["category"],
        bucket=row["bucket"],
        domain=row["domain"],
        l2=row["l2"],
    )


def _error(step: Mapping[str, Any]) -> str | None:
    envelope = step.get("envelope")
    return envelope.get("ErrorType") if isinstance(envelope, dict) else None


def _token_sum(usage: Sequence[Mapping[str, Any]], key: str) -> int | None:
    """None when the server never reported it (a reference planner, or no prompt caching), not 0."""
    values = [u[key] for u in usage if isinstance(u.get(key), int)]
    return sum(values) if values else None


def scored(facts: Iterable[Facts]) -> list[Facts]:
    """Unscorable episodes (infra, sandbox) say nothing about the planner: never in a rate."""
    return [f for f in facts if f["scorable"]]


# ---- intervals -----------------------------------------------------------------------------------


def wilson(passed: int, total: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion, in percent; it stays inside 0..100 and is
    sensible at 0 and n passes, where the normal interval collapses."""
    if total <= 0:
        raise ValueError("wilson interval of no trials")
    p = passed / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    # at 0 or n passes one bound is exactly 0 or 1; float rounding must not move it off the estimate
    lo = 0.0 if passed == 0 else max(0.0, centre - half)
    hi = 1.0 if passed == total else min(1.0, centre + half)
    return 100 * lo, 100 * hi


def tally(outcomes: Iterable[bool]) -> dict[str, Any]:
    """``{passed, total, rate, ci}``: rate in percent with its Wilson interval (None when empty)."""
    values = [bool(v) for v in outcomes]
    n, k = len(values), sum(values)
    if not n:
        return {"passed": 0, "total": 0, "rate": None, "ci": None}
    lo, hi = wilson(k, n)
    return {"passed": k, "total": n, "rate": round(100 * k / n, 2), "ci": [round(lo, 2), round(hi, 2)]}


def _task_table(facts: Sequence[Facts]) -> dict[str, dict[str, tuple[int, int]]]:
    """category -> task_id -> (passes, episodes): the bootstrap's unit is the task, with all its
    episodes (seeds, skill conditions) together, since those are not independent."""
    table: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for f in facts:
        cell = table[f["category"]][f["task_id"]]
        cell[0] += f["passed"]
        cell[1] += 1
    return {c: {t: (p, n) for t, (p, n) in tasks.items()} for c, tasks in table.items()}


def _table_overall(table: Mapping[str, Mapping[str, tuple[int, int]]]) -> float:
    """Overall of a task table: each category's pass rate over all its episodes, the paper's weights."""
    return overall({c: 100 * sum(p for p, _ in t.values()) / sum(n for _, n in t.values()) for c, t in table.items()})


def _resampled_rates(
    table: Mapping[str, Mapping[str, tuple[int, int]]], order: Sequence[str], rng: np.random.Generator, resamples: int
) -> dict[str, np.ndarray]:
    """Per category, its rate (percent) under each resample of its tasks (``order`` fixes which
    task each drawn index names, so two planners can share the draws)."""
    rates = {}
    for category in sorted(table):
        ids = [t for t in order if t in table[category]]
        passes = np.array([table[category][t][0] for t in ids], dtype=float)
        counts = np.array([table[category][t][1] for t in ids], dtype=float)
        draw = rng.integers(0, len(ids), size=(resamples, len(ids)))
        rates[category] = 100 * passes[draw].sum(axis=1) / counts[draw].sum(axis=1)
    return rates


def _weighted(rates: Mapping[str, np.ndarray]) -> np.ndarray:
    """Overall of every resample: the paper's weights, renormalised over the categories present."""
    weight = sum(CATEGORY_WEIGHTS[c] for c in rates)
    return sum(CATEGORY_WEIGHTS[c] * r for c, r in rates.items()) / weight  # type: ignore[return-value]  # arrays


def bootstrap_overall(facts: Iterable[Facts], *, resamples: int = RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """Overall and each category's rate with percentile bootstrap intervals: tasks resampled with
    replacement within each category (the suite's composition is fixed by design, so every resample has
    every category), the 0.5/0.1/0.2/0.2 weights applied to each resample's category rates."""
    rows = scored(facts)
    if not rows:
        return {"value": None, "ci": None, "categories": {}, "resamples": resamples, "seed": seed}
    table = _task_table(rows)
    value = _table_overall(table)
    order = sorted({f["task_id"] for f in rows})
    rates = _resampled_rates(table, order, np.random.default_rng(seed), resamples)
    categories = {
        c: {
            "value": round(100 * sum(p for p, _ in t.values()) / sum(n for _, n in t.values()), 2),
            "ci": _percentiles(rates[c]),
            "tasks": len(t),
        }
        for c, t in sorted(table.items(), key=lambda ct: list(CATEGORY_WEIGHTS).index(ct[0]))
    }
    return {
        "value": round(value, 2),
        "ci": _percentiles(_weighted(rates)),
        "categories": categories,
        "resamples": resamples,
        "seed": seed,
    }


def _percentiles(draws: np.ndarray) -> list[float]:
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return [round(float(lo), 2), round(float(hi), 2)]


def pass_hat_k(outcomes: Mapping[str, Sequence[bool]]) -> dict[int, float]:
    """pass^k for k = 1…m (percent), ``outcomes`` keyed by base task with all of its runs: the chance that
    k runs of a task drawn without replacement from its n runs all pass, C(c,k)/C(n,k), averaged over
    tasks; unbiased for k ≤ n (τ-bench's estimator). m is the fewest runs any task has, so every k
    averages over the same tasks (a skill task's SOR and MTSR runs are two runs of one task)."""
    if not outcomes:
        return {}
    fewest = min(len(v) for v in outcomes.values())
    return {
        k: round(100 * sum(math.comb(sum(v), k) / math.comb(len(v), k) for v in outcomes.values()) / len(outcomes), 4)
        for k in range(1, fewest + 1)
    }


def pass_at_k(outcomes: Mapping[str, Sequence[bool]], k: int) -> float:
    """pass@k (percent): the chance that at least one of k runs of a task, drawn without replacement from
    its n ≥ k runs, passes, 1 − C(n−c,k)/C(n,k), averaged over the tasks."""
    chances = [1 - math.comb(len(v) - sum(v), k) / math.comb(len(v), k) for v in outcomes.values()]
    return 100 * sum(chances) / len(chances)


def runs_by_task(facts: Iterable[Facts]) -> dict[str, list[bool]]:
    """Base task -> the outcomes of its scored episodes (every seed and skill condition): the unit of
    pass^k, pass@k and the paired test."""
    runs: dict[str, list[bool]] = defaultdict(list)
    for f in scored(facts):
        runs[f["task_id"]].append(f["passed"])
    return dict(runs)


def sign_flip_p(differences: Sequence[int]) -> float:
    """Two-sided exact p of the paired sign-flip (randomisation) test over tasks: ``differences`` holds,
    per task, A's passes minus B's passes over the episodes the two share (its seeds and skill
    conditions). Under no difference A and B are exchangeable within each task, so each task's
    difference is as likely negated; the null distribution of their sum is built exactly by
    convolution. With one episode per task this is McNemar's exact test on task outcomes."""
    magnitudes = [abs(int(d)) for d in differences if d]
    if not magnitudes:
        return 1.0
    observed = abs(int(sum(differences)))
    if len(set(magnitudes)) == 1:  # every task differs by the same d: the sum is d·(2X − m), X ~ Bin(m, 1/2)
        d, m = magnitudes[0], len(magnitudes)
        return min(1.0, sum(math.comb(m, x) for x in range(m + 1) if d * abs(2 * x - m) >= observed) / 2**m)
    total = sum(magnitudes)
    dist = np.zeros(2 * total + 1)  # index i: a sum of i − total
    dist[total] = 1.0
    for d in magnitudes:  # the support stays inside ±total, so no mass is shifted off the ends
        step = np.zeros_like(dist)
        step[d:] += dist[:-d]
        step[:-d] += dist[d:]
        dist = 0.5 * step
    tail = dist[np.abs(np.arange(-total, total + 1)) >= observed].sum()
    return min(1.0, float(tail))


# ---- breakdowns ------------------------------------------------------------------------------------

AXES: dict[str, Callable[[Facts], Any]] = {
    "category": lambda f: f["category"],
    "bucket": lambda f: f["bucket"],
    "domain": lambda f: f["domain"],
    "l2": lambda f: f["l2"],
    "memory_type": lambda f: f["memory_type"],
    "memory_turn": lambda f: f"{f['memory_type']}/{f['turn']}" if f["memory_type"] else None,
    "turn": lambda f: f["turn"],
    "memory_write": lambda f: f["memory_write"],
    "memory_primary": lambda f: f["memory_primary"],
    "memory_domain": lambda f: f["memory_domain"],
    "skill_composition": lambda f: f["composition"],
    "skill_condition": lambda f: f["condition"] if f["category"] == "skill" else None,
    "skill_composition_condition": lambda f: (
        f"{f['composition']}/{f['condition']}" if f["category"] == "skill" and f["composition"] else None
    ),
    "friction": lambda f: f["friction"],
    "subagent": lambda f: f["agent"],
}


def breakdowns(facts: Iterable[Facts]) -> dict[str, dict[str, dict[str, Any]]]:
    """Pass rate with counts and Wilson interval for every value of every axis (axes with no value
    on any episode, e.g. friction on a memory-only split, are left out)."""
    rows = scored(facts)
    result = {}
    for axis, value_of in AXES.items():
        groups: dict[str, list[bool]] = defaultdict(list)
        for f in rows:
            value = value_of(f)
            if value is not None:
                groups[str(value)].append(f["passed"])
        if groups:
            result[axis] = {v: tally(groups[v]) for v in sorted(groups)}
    return result


# ---- behaviour -------------------------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def behaviour(facts: Iterable[Facts]) -> dict[str, Any]:
    """The behaviour the paper's analysis discusses, each with the number of episodes behind it."""
    rows = scored(facts)
    met: dict[str, list[bool]] = defaultdict(list)
    for f in rows:
        for kind in set(f["errors"]):
            met[kind].append(f["passed"])
    denied = [f for f in rows if f["permission_denied"]]
    handled = [f["calls_before_handling"] for f in denied if f["calls_before_handling"] is not None]
    memory = [f["memory_searches"] for f in rows if f["category"] == "memory"]
    gold = [f for f in rows if f["gold_steps"]]
    steps = sum(f["steps"] for f in rows)
    return {
        # met the error at least once and still passed
        "recovery": {kind: tally(met[kind]) for kind in sorted(met)},
        "permission_denied": {
            "episodes": len(denied),
            "handled": len(handled),
            "mean_calls_before_handling": _mean(handled),
            "handled_at_once": tally(n == 0 for n in handled),
        },
        "clarification": {
            "asked_when_needed": tally(f["asked"] > 0 for f in rows if f["ask_needed"]),
            "asked_when_not_needed": tally(f["asked"] > 0 for f in rows if not f["ask_needed"]),
        },
        "memory_searches": {"tasks": len(memory), "mean": _mean(memory), "none": sum(n == 0 for n in memory)},
        "skill_loading": {
            "loaded_when_needed": tally(f["skill_loaded"] for f in rows if f["skill_needed"]),
            "loaded_when_not_needed": tally(f["skill_loaded"] for f in rows if not f["skill_needed"]),
        },
        "format_errors": {
            "errors": sum(f["format_errors"] for f in rows),
            "steps": steps,
            "rate": round(100 * sum(f["format_errors"] for f in rows) / steps, 2) if steps else None,
        },
        "steps": {
            "episodes": len(gold),
            "mean_steps": _mean([f["steps"] for f in gold]),
            "mean_gold_steps": _mean([f["gold_steps"] for f in gold]),
            "mean_ratio": _mean([f["steps"] / f["gold_steps"] for f in gold]),
            "passed_mean_excess": _mean([f["steps"] - f["gold_steps"] for f in gold if f["passed"]]),
        },
    }


# ---- failure taxonomy ------------------------------------------------------------------------------

# The primary cause of a failed episode: the first rule that applies, in this order. The order goes
# from how the episode ended to what its verdict says, and upstream before downstream: a memory
# record never retrieved explains the wrong write that followed, a wrong argument explains the
# stray row the checker also reports for it (a mis-filled insert is both "closest row" and
# "unexpected row").
CAUSES = (
    "infra",
    "prompt_overflow",
    "context_overflow",
    "format_errors",
    "step_budget",
    "memory_gate",
    "skill_gate",
    "handoff",
    "wrong_tool",
    "wrong_argument",
    "collateral_write",
    "missing_call",
    "wrong_answer",
    "other",
)

_MISSING = re.compile(
    r"never called successfully|; no row was (inserted|deleted|updated)|^ask first: "
    r"|uses the result of .* but was only made before it|in no order that respects"
)
_WRONG_ARGUMENT = re.compile(
    r"wrong arguments at step|; closest (inserted|deleted) row |the row was updated but"
    r"|no updated row matches"
)
_COLLATERAL = re.compile(
    r"^unexpected side effect at step|: unexpected row (inserted|deleted)|: unexpected update of"
    r"|; it also changed |: forbidden change "
)
ARGUMENT_ERRORS = frozenset(
    {"MissingRequiredArgument", "UnknownArgument", "InvalidArgumentType", "InvalidArgumentValue"}
)
_HANDOFF = re.compile(r"^(route|handoff|follow-up)[ :]")

TAXONOMY_RULES = {
    "infra": "not scorable, or the episode ended with infra_error",
    "prompt_overflow": "the first request did not fit the model's context: the model never had its turn",
    "context_overflow": "the conversation outgrew the model's context",
    "format_errors": "format errors were at least half of the steps",
    "step_budget": "truncated at T_max without finishing",
    "memory_gate": "a required memory record was never retrieved",
    "skill_gate": "the required skill was never loaded",
    "handoff": "the sub-agent route, its handoff fields or the follow-up after it",
    "wrong_tool": "an expected call or effect is missing and the planner made a wrong-tool call instead "
    "(ToolNotAvailable met, or an unexpected mutating call / row)",
    "wrong_argument": "the right tool or row, with wrong arguments or values; or an expected call or effect "
    "is missing after the executor rejected a call's arguments (an argument ErrorType met)",
    "collateral_write": "a write nobody asked for (unexpected call, row or column, forbidden change)",
    "missing_call": "an expected call or effect never happened (including a confirmation never asked "
    "and a dependent call made too early)",
    "wrong_answer": "the final answer does not state a fact the user asked for",
    "other": "none of the above",
}


def primary_cause(f: Facts) -> str | None:
    """The one primary cause of a failed episode (None for a pass), by ``TAXONOMY_RULES`` in ``CAUSES`` order."""
    if f["passed"] and f["scorable"]:
        return None
    reasons = f["reasons"]
    if not f["scorable"] or f["termination"] == "infra_error":
        return "infra"
    if f["termination"] in ("prompt_overflow", "context_overflow"):
        return str(f["termination"])
    if f["format_errors"] and 2 * f["format_errors"] >= f["steps"]:
        return "format_errors"
    if f["termination"] == "truncated":
        return "step_budget"

    def has(pattern: re.Pattern[str] | str) -> bool:
        return any((pattern.search(r) if isinstance(pattern, re.Pattern) else r.startswith(pattern)) for r in reasons)

    if has("memory gate:"):
        return "memory_gate"
    if has("skill gate:"):
        return "skill_gate"
    if has(_HANDOFF):
        return "handoff"
    if has(_MISSING) and ("ToolNotAvailable" in f["errors"] or has(_COLLATERAL)) and not has(_WRONG_ARGUMENT):
        return "wrong_tool"
    if has(_MISSING) and ARGUMENT_ERRORS & set(f["errors"]):  # the call was made, its arguments rejected
        return "wrong_argument"
    for cause, pattern in (
        ("wrong_argument", _WRONG_ARGUMENT),
        ("collateral_write", _COLLATERAL),
        ("missing_call", _MISSING),
        ("wrong_answer", "answer:"),
    ):
        if has(pattern):
            return cause
    return "other"


def taxonomy(facts: Iterable[Facts]) -> dict[str, dict[str, int]]:
    """planner -> cause -> failed episodes, most frequent first (infra failures included, named)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for f in facts:
        cause = primary_cause(f)
        if cause is not None:
            counts[f["planner"]][cause] += 1
    return {p: dict(c.most_common()) for p, c in sorted(counts.items())}


# ---- paired comparison -----------------------------------------------------------------------------


def _episode_outcomes(facts: Iterable[Facts]) -> dict[tuple[str, int], Facts]:
    return {(f["key"], f["seed"]): f for f in scored(facts)}


PAIRED_TEST = (
    "sign-flip test over tasks (exact): per task, A's passes minus B's over the episodes both scored "
    "(seeds and skill conditions together); equals McNemar's exact test on task outcomes when each task "
    "has one episode; Overall's p pools every task unweighted"
)


def paired(a: Iterable[Facts], b: Iterable[Facts], *, resamples: int = RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """A vs B on the episodes both scored (same episode key and seed): per category and Overall, the
    two rates (over episodes), A minus B, its paired-bootstrap interval (the same task draws for both),
    the tasks where either passed more often and the task-level p (``PAIRED_TEST``); and those tasks.
    The task is the unit of inference: a task's seeds and its SOR and MTSR episodes share one draw."""
    left, right = _episode_outcomes(a), _episode_outcomes(b)
    common = sorted(left.keys() & right.keys())
    if not common:
        raise ValueError("the two planners share no scored episode (same split, condition and seeds?)")
    fa, fb = [left[k] for k in common], [right[k] for k in common]
    ta, tb = _task_table(fa), _task_table(fb)
    order = sorted({f["task_id"] for f in fa})
    # one generator state per planner from the same seed: identical draws, so the resamples are paired
    ra = _resampled_rates(ta, order, np.random.default_rng(seed), resamples)
    rb = _resampled_rates(tb, order, np.random.default_rng(seed), resamples)
    difference: dict[str, int] = defaultdict(int)  # base task -> A's passes minus B's
    category_of = {}
    for x, y in zip(fa, fb):
        difference[x["task_id"]] += int(x["passed"]) - int(y["passed"])
        category_of[x["task_id"]] = x["category"]
    rows = {}
    for name in [*sorted(ta, key=list(CATEGORY_WEIGHTS).index), "overall"]:
        pick = [i for i, f in enumerate(fa) if name == "overall" or f["category"] == name]
        tasks = [t for t in order if name == "overall" or category_of[t] == name]
        if name == "overall":
            rate_a, rate_b = _table_overall(ta), _table_overall(tb)
            diffs = _weighted(ra) - _weighted(rb)
        else:
            rate_a = 100 * sum(fa[i]["passed"] for i in pick) / len(pick)
            rate_b = 100 * sum(fb[i]["passed"] for i in pick) / len(pick)
            diffs = ra[name] - rb[name]
        lo, hi = np.percentile(diffs, [2.5, 97.5])
        rows[name] = {
            "episodes": len(pick),
            "tasks": len(tasks),
            "a": round(rate_a, 2),
            "b": round(rate_b, 2),
            "difference": round(rate_a - rate_b, 2),
            "ci": [round(float(lo), 2), round(float(hi), 2)],
            "a_better": sum(difference[t] > 0 for t in tasks),
            "b_better": sum(difference[t] < 0 for t in tasks),
            "p": sign_flip_p([difference[t] for t in tasks]),
        }
    flips = {  # tasks
        "a_better": [t for t in order if difference[t] > 0],
        "b_better": [t for t in order if difference[t] < 0],
    }
    episode_flips = {  # the discordant episodes themselves, key#seed, for reading them side by side
        "a_only": [f"{k}#{s}" for (k, s), x, y in zip(common, fa, fb) if x["passed"] and not y["passed"]],
        "b_only": [f"{k}#{s}" for (k, s), x, y in zip(common, fa, fb) if y["passed"] and not x["passed"]],
    }
    return {
        "episodes": len(common),
        "tasks": len(order),
        "test": PAIRED_TEST,
        "resamples": resamples,
        "seed": seed,
        "rows": rows,
        "flips": flips,
        "episode_flips": episode_flips,
    }


# ---- everything at once ------------------------------------------------------------------------------

UNITS = {
    "rates": "episodes (a skill task has two under condition both: SOR and MTSR)",
    "overall.ci": "95 % percentile bootstrap over tasks, each task with all its episodes",
    "breakdowns": "episodes, with Wilson intervals that treat them as independent",
    "behaviour": "episodes (format errors: steps)",
    "taxonomy": "failed episodes",
    "pass_hat_k": "base tasks; every run of a task (its seeds, its SOR and MTSR episodes) a repeat; "
    "k up to the fewest runs of any task",
    "tokens": "episodes",
}
"""What every figure of ``analyse`` counts, written beside them."""


def analyse(facts: Sequence[Facts], *, resamples: int = RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """The analysis section of a run's ``results.json`` (one planner, one or more seeds)."""
    rows = list(facts)
    return {
        "units": UNITS,
        "overall": bootstrap_overall(rows, resamples=resamples, seed=seed),
        "breakdowns": breakdowns(rows),
        "behaviour": behaviour(rows),
        "taxonomy": taxonomy(rows),
        "taxonomy_rules": TAXONOMY_RULES,
        "pass_hat_k": {str(k): v for k, v in pass_hat_k(runs_by_task(rows)).items()},
        "tokens": tokens(rows),
    }


def tokens(facts: Iterable[Facts]) -> dict[str, Any]:
    """Token totals and per-episode means; a kind the server never reported stays None."""
    rows = list(facts)
    result: dict[str, Any] = {"episodes": len(rows)}
    for kind in ("prompt_tokens", "completion_tokens", "cached_prompt_tokens"):
        values = [f[kind] for f in rows if f[kind] is not None]
        result[kind] = {"total": sum(values), "per_episode": _mean(values)} if values else None
    return result


def summary_lines(analysis: Mapping[str, Any], top: int = 3) -> list[str]:
    """The few lines a run prints under its table: Overall with its interval, the top failure causes,
    and pass^k when there were repeated runs."""
    o = analysis["overall"]
    lines = []
    if o["value"] is not None:
        lines.append(
            f"Overall {o['value']:.2f} % (95 % CI {o['ci'][0]:.2f}–{o['ci'][1]:.2f}; bootstrap over tasks, "
            f"{o['resamples']} resamples, seed {o['seed']})"
        )
    for planner, causes in analysis["taxonomy"].items():
        shown = ", ".join(f"{c} {n}" for c, n in list(causes.items())[:top])
        lines.append(f"failures of {planner}: {sum(causes.values())}; top causes: {shown}")
    if len(analysis["pass_hat_k"]) > 1:
        lines.append("pass^k: " + ", ".join(f"k={k} {v:.2f} %" for k, v in analysis["pass_hat_k"].items()))
    return lines
