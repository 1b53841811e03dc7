"""Sweep plots as PNG bytes (matplotlib, Agg backend, so they render on headless workers and CI)."""

from __future__ import annotations

import io
import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from experiments.analysis.groups import by_group, domain_order, error_counts, group_stability
from sandbox.tasks import CATEGORIES
from sandbox.taxonomy import DOMAINS


def _png(fig: Any) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def _label(group: tuple[str, str, str]) -> str:
    """A (planner, split, condition) group as plots name it: every label says its split."""
    planner, split, condition = group
    return f"{planner} / {split}" if condition == "default" else f"{planner} / {split} ({condition})"


def category_scores(rows: Sequence[dict[str, Any]]) -> bytes:
    """Overall and each category per planner, bars at the mean over seeds, error bars one sample std."""
    scored = {group: s for group, seeds in by_group(rows).items() if (s := group_stability(seeds)) is not None}
    names = ["overall", *CATEGORIES]
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(names)), 4))
    width = 0.8 / max(1, len(scored))
    for i, (group, s) in enumerate(scored.items()):
        spreads = [s.overall, *(s.categories.get(c) for c in CATEGORIES)]
        xs = [k + i * width for k in range(len(names))]
        ax.bar(
            xs,
            [sp.mean if sp else 0 for sp in spreads],
            width,
            yerr=[sp.std if sp else 0 for sp in spreads],
            capsize=3,
            label=_label(group),
        )
    ax.set_xticks([k + (len(scored) - 1) * width / 2 for k in range(len(names))], names)
    ax.set_ylabel("success rate (%)")
    ax.set_ylim(0, 105)
    if scored:  # beside the axes, never over a bar
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    else:
        ax.text(0.5, 0.5, "no scorable episode", ha="center", va="center", transform=ax.transAxes)
    ax.set_title("Scores by category (mean ± std over seeds)")
    return _png(fig)


def domain_heatmap(rows: Sequence[dict[str, Any]]) -> bytes:
    """Pass rate per level-1 domain (rows) and planner (columns), over all seeds."""
    tally: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for r in rows:
        if r["scorable"]:
            tally[(r["domain"], _label((r["planner"], r["split"], r["condition"])))].append(bool(r["passed"]))
    domains = sorted({d for d, _ in tally}, key=domain_order)
    planners = sorted({p for _, p in tally})
    grid = [
        [100 * statistics.fmean(tally[(d, p)]) if tally.get((d, p)) else float("nan") for p in planners]
        for d in domains
    ]
    fig, ax = plt.subplots(figsize=(2 + 1.2 * len(planners), 1 + 0.4 * len(domains)))
    if not grid:
        ax.text(0.5, 0.5, "no scorable episode", ha="center", va="center", transform=ax.transAxes)
        ax.set_title("Pass rate by domain × planner / split")
        return _png(fig)
    image = ax.imshow(grid, cmap="viridis", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(planners)), planners, rotation=30, ha="right")
    ax.set_yticks(range(len(domains)), [f"{d} {DOMAINS.get(d, '')}".strip() for d in domains])
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            if not math.isnan(value):
                ax.text(
                    j, i, f"{value:.0f}", ha="center", va="center", color="white" if value < 60 else "black", fontsize=8
                )
    fig.colorbar(image, ax=ax, label="pass rate (%)")
    ax.set_title("Pass rate by domain × planner / split")
    return _png(fig)


def error_types(rows: Sequence[dict[str, Any]]) -> bytes:
    """Tool-call error types (the envelope's ErrorType) per planner, summed over seeds."""
    per_planner = {
        _label(g): error_counts(r for seed_rows in seeds.values() for r in seed_rows)
        for g, seeds in by_group(rows).items()
    }
    kinds = sorted({k for counts in per_planner.values() for k in counts})
    fig, ax = plt.subplots(figsize=(7, 1.5 + 0.35 * max(1, len(kinds))))
    height = 0.8 / max(1, len(per_planner))
    for i, (planner, counts) in enumerate(per_planner.items()):
        ax.barh([k + i * height for k in range(len(kinds))], [counts.get(k, 0) for k in kinds], height, label=planner)
    ax.set_yticks(range(len(kinds)), kinds)
    ax.set_xlabel("tool calls")
    if not kinds:
        ax.text(0.5, 0.5, "no tool-call errors", ha="center", va="center", transform=ax.transAxes)
    else:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.set_title("Error types")
    return _png(fig)


def sweep_plots(rows: Sequence[dict[str, Any]]) -> dict[str, bytes]:
    return {
        "category_scores": category_scores(rows),
        "domain_heatmap": domain_heatmap(rows),
        "error_types": error_types(rows),
    }


def suite_composition(tasks: Sequence[Any]) -> bytes:
    """The dataset card's chart: tasks per domain stacked by category, and per level-2 within each domain."""
    counts: dict[str, dict[str, int]] = {d: {c: 0 for c in CATEGORIES} for d in DOMAINS}
    per_l2: dict[str, int] = defaultdict(int)
    for t in tasks:
        counts[t.domain][t.category] += 1
        per_l2[t.l2] += 1
    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 6), gridspec_kw={"width_ratios": [1, 2.2]})
    names = [f"{d} {DOMAINS[d]}" for d in DOMAINS]
    bottom = [0] * len(names)
    for category in CATEGORIES:
        values = [counts[d][category] for d in DOMAINS]
        left.barh(names, values, left=bottom, label=category)
        bottom = [b + v for b, v in zip(bottom, values)]
    left.invert_yaxis()
    left.set_xlabel("tasks")
    left.set_title("Tasks per domain, by category")
    left.legend(loc="lower right")
    codes = sorted(per_l2, key=lambda c: [int(p) for p in c.split(".")])
    colours = [plt.cm.tab20(int(c.split(".")[0]) % 20) for c in codes]
    right.bar(range(len(codes)), [per_l2[c] for c in codes], color=colours)
    right.set_xticks(range(len(codes)), codes, rotation=90, fontsize=6)
    right.set_ylabel("tasks")
    right.set_title("Tasks per level-2 category (colour: domain)")
    fig.tight_layout()
    return _png(fig)
