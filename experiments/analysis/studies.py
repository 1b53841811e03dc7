"""The retrieval and ablation studies of a sweep, from its results-store rows.

A cell's condition label says how its action space was made (``sandbox.conditions``): ``both`` the
stored A0, ``both.bm25-n10`` BM25's top 10 computed at run time, ``both.bm25-n10.memory_off`` the same
with the memory tools withheld. From the rows of a report this module draws

- **the retrieval curve**: Overall with its bootstrap interval (``analysis.bootstrap_overall``, tasks
  resampled, all seeds together) at each N of the same planner, split, condition, retriever and repair;
- **the ablation deltas**: each ablation against the same cells without it, paired on the same episodes
  (``analysis.paired``: the difference ablation − baseline with its paired-bootstrap interval and
  McNemar's exact p), Overall and per category.

Only the rows' verdict columns are needed (no trajectory is read).
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from experiments.analysis.stats import Facts, bootstrap_overall, paired, row_facts
from sandbox.conditions import Variant, condition_label, split_label

Group = tuple[str, str, str]  # planner, split, condition label


def _facts(rows: Iterable[dict[str, Any]]) -> dict[Group, list[Facts]]:
    groups: dict[Group, list[Facts]] = defaultdict(list)
    for r in rows:
        groups[(r["planner"], r["split"], r["condition"])].append(row_facts(r, {"steps": []}, None))
    return groups


def studies(rows: Iterable[dict[str, Any]], *, resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """``{"curves": [...], "ablations": [...]}``; empty lists when the rows hold no study."""
    groups = _facts(rows)
    parsed: dict[Group, tuple[str, Variant]] = {}
    for group in groups:
        try:
            parsed[group] = split_label(group[2])
        except ValueError:  # a label this version does not know: not part of a study
            continue
    lines: dict[tuple[str, str, str, str, bool], dict[int, dict[str, Any]]] = defaultdict(dict)
    for (planner, split, label), (condition, v) in parsed.items():
        if v.method != "stored" and v.ablation == "none":
            facts = groups[(planner, split, label)]
            point = bootstrap_overall(facts, resamples=resamples, seed=seed)
            lines[(planner, split, condition, v.method, v.repair)][v.top_n] = {
                "top_n": v.top_n,
                "overall": point["value"],
                "ci": point["ci"],
                "label": label,
                "episodes": sum(f["scorable"] for f in facts),
            }
    curves = [
        {
            "planner": p,
            "split": s,
            "condition": c,
            "method": m,
            "repair": r,
            "points": [points[n] for n in sorted(points)],
        }
        for (p, s, c, m, r), points in sorted(lines.items())
        if len(points) >= 2
    ]
    ablations = []
    for (planner, split, label), (condition, v) in sorted(parsed.items()):
        if v.ablation == "none":
            continue
        base = (planner, split, condition_label(condition, Variant(v.method, v.top_n, v.repair)))
        if base not in groups:
            continue
        try:
            result = paired(groups[(planner, split, label)], groups[base], resamples=resamples, seed=seed)
        except ValueError:  # no episode in common
            continue
        ablations.append(
            {
                "planner": planner,
                "split": split,
                "condition": label,
                "baseline": base[2],
                "ablation": v.ablation,
                "episodes": result["episodes"],
                "rows": result["rows"],
                "lost": len(result["flips"]["b_better"]),  # tasks, not episodes
                "gained": len(result["flips"]["a_better"]),
            }
        )
    return {"curves": curves, "ablations": ablations, "resamples": resamples, "seed": seed}


def _ci(ci: Sequence[float] | None) -> str:
    return "–" if not ci else f"[{ci[0]:.1f}, {ci[1]:.1f}]"


def study_tables(study: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, body) tables of the curve and the deltas, for the report."""
    tables = []
    if study["curves"]:
        body = [
            [
                c["planner"],
                c["split"],
                c["condition"],
                f"{c['method']}{'' if c['repair'] else ' no repair'}",
                str(p["top_n"]),
                "–" if p["overall"] is None else f"{p['overall']:.1f}",
                _ci(p["ci"]),
                str(p["episodes"]),
            ]
            for c in study["curves"]
            for p in c["points"]
        ]
        tables.append(
            (
                "Retrieval curve: Overall over N, the top-N tools retrieved at run time (95 % bootstrap "
                "interval over tasks, all seeds)",
                ["planner", "split", "cond", "retriever", "N", "Overall", "95 % CI", "episodes"],
                body,
            )
        )
    if study["ablations"]:
        body = []
        for a in study["ablations"]:
            for name, row in a["rows"].items():
                body.append(
                    [
                        a["planner"],
                        a["split"],
                        a["baseline"],
                        a["ablation"],
                        name,
                        f"{row['b']:.1f}",
                        f"{row['a']:.1f}",
                        f"{row['difference']:+.1f}",
                        _ci(row["ci"]),
                        f"{row['p']:.3g}",
                        str(row["tasks"]),
                        str(row["episodes"]),
                    ]
                )
        tables.append(
            (
                "Ablations: the ablation's rate minus its baseline's on the same episodes (paired bootstrap "
                "95 % interval over tasks; p: sign-flip test over tasks, exact)",
                [
                    "planner",
                    "split",
                    "baseline",
                    "ablation",
                    "score",
                    "base",
                    "ablated",
                    "Δ",
                    "95 % CI",
                    "p",
                    "tasks",
                    "episodes",
                ],
                body,
            )
        )
    return tables


def study_plots(study: dict[str, Any]) -> dict[str, bytes]:
    """``retrieval_curve``: Overall against N with its interval, a line per planner/split/condition/retriever."""
    if not study["curves"]:
        return {}
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for c in study["curves"]:
        points = [p for p in c["points"] if p["overall"] is not None]
        if not points:
            continue
        xs = [p["top_n"] for p in points]
        ys = [p["overall"] for p in points]
        err = [[y - p["ci"][0] for y, p in zip(ys, points)], [p["ci"][1] - y for y, p in zip(ys, points)]]
        label = f"{c['planner']} / {c['split']} ({c['condition']}, {c['method']}{'' if c['repair'] else ', no repair'})"
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label)
    ax.set_xlabel("N (top-N tools retrieved at run time)")
    ax.set_ylabel("Overall (%)")
    ax.set_title("Overall over N, 95 % bootstrap interval")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return {"retrieval_curve": buffer.getvalue()}


def study_lines(study: dict[str, Any]) -> list[str]:
    """A few console lines: the curve's points and each ablation's Overall delta."""
    lines = []
    for c in study["curves"]:
        points = ", ".join(
            f"N={p['top_n']} {p['overall']:.1f} {_ci(p['ci'])}" for p in c["points"] if p["overall"] is not None
        )
        lines.append(
            f"retrieval curve {c['planner']}/{c['split']}/{c['condition']} ({c['method']}"
            f"{'' if c['repair'] else ', no repair'}): {points}"
        )
    for a in study["ablations"]:
        o = a["rows"]["overall"]
        lines.append(
            f"ablation {a['ablation']} on {a['planner']}/{a['split']}/{a['baseline']}: Overall "
            f"{o['b']:.1f} → {o['a']:.1f} (Δ {o['difference']:+.1f}, 95 % CI {_ci(o['ci'])}, "
            f"task-level p {o['p']:.3g}; {a['episodes']} paired episodes of {o['tasks']} tasks)"
        )
    return lines


def report_study_lines(report_dir: Any) -> list[str]:
    """``study_lines`` of the ``studies.json`` a report just wrote in ``report_dir`` (none when absent)."""
    import json
    from pathlib import Path

    path = Path(report_dir) / "studies.json"
    return study_lines(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else []
