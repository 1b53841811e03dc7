"""results.json and the end-of-run summary table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from sandbox.tasks import BUCKETS, CATEGORIES
from verification.scoring import summarise
from verification.verify import Verdict


def results_document(
    *,
    planner: str,
    split: str,
    seed: int,
    condition: str,
    verdicts: Sequence[Verdict],
    wall_s: float,
) -> dict[str, Any]:
    """The run's scores: every category and bucket is present (``total`` 0 and ``rate`` null when unmeasured)."""
    summary = summarise(verdicts).to_json()
    empty = {"passed": 0, "total": 0, "rate": None}
    return {
        "planner": planner,
        "split": split,
        "seed": seed,
        "condition": condition,
        "episodes": len(verdicts),
        "overall": _round(summary["overall"]),
        "categories": {c: _rounded(summary["categories"].get(c, empty)) for c in CATEGORIES},
        "buckets": {b: _rounded(summary["buckets"].get(b, empty)) for b in BUCKETS},
        "gates": {
            "memory": _rounded(summary["memory_gate"]) if summary["memory_gate"] else None,
            "skill": _rounded(summary["skill_gate"]) if summary["skill_gate"] else None,
        },
        "unscorable": summary["unscorable"],
        "wall_s": round(wall_s, 3),
        "terminations": dict(sorted(Counter(v.termination for v in verdicts).items())),  # context_overflow counted here
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _rounded(tally: dict[str, Any]) -> dict[str, Any]:
    return {**tally, "rate": _round(tally["rate"]) if tally["total"] else None}


def print_summary(doc: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    table = Table(title=f"{doc['planner']} on {doc['split']} (seed {doc['seed']}): {doc['episodes']} episodes")
    for column in ("group", "name", "passed", "total", "rate %"):
        table.add_column(column, justify="right" if column in ("passed", "total", "rate %") else "left")
    for group in ("categories", "buckets", "gates"):
        for name, tally in doc[group].items():
            if tally and tally["total"]:
                table.add_row(
                    group.rstrip("s").replace("categorie", "category"),
                    name,
                    str(tally["passed"]),
                    str(tally["total"]),
                    f"{tally['rate']:.2f}",
                )
    console.print(table)
    overall = "n/a" if doc["overall"] is None else f"{doc['overall']:.2f} %"
    console.print(
        f"[bold]Overall[/bold] (0.5·Basic + 0.1·Sub-agent + 0.2·Memory + 0.2·Skill): {overall}"
        f"   unscorable: {doc['unscorable']}   wall: {doc['wall_s']:.2f} s"
    )
    console.print("episodes ended: " + ", ".join(f"{k} {n}" for k, n in doc["terminations"].items()))
