"""From results-store rows to scores: per-cell metrics, per-planner leaderboard (mean ± std over seeds)
and stability; and ``mobilepa report``, which prints the leaderboard and writes markdown and HTML."""

from __future__ import annotations

import base64
import html
import json
import math
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from experiments.report import results_document
from experiments.stability import Spread, Stability, stability
from experiments.store import file_in_the_way, record_verdict
from sandbox.tasks import CATEGORIES

Group = tuple[str, str, str]  # planner, split, condition


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def cell_document(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``results.json``'s document for one (planner, split, condition, seed) cell of the store."""
    first = rows[0]
    return results_document(planner=first["planner"], split=first["split"], seed=first["seed"],
                            condition=first["condition"], verdicts=[record_verdict(r) for r in rows],
                            wall_s=sum(r["wall_s"] for r in rows))


def cell_metrics(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """MLflow metrics of one cell, rates in percent (keys: overall, category/*, bucket/*, gate/*, errors/*…)."""
    doc = cell_document(rows)
    metrics: dict[str, float] = {"episodes": len(rows), "unscorable": doc["unscorable"]}
    if doc["overall"] is not None:
        metrics["overall"] = doc["overall"]
    for group, prefix in (("categories", "category"), ("buckets", "bucket"), ("gates", "gate")):
        for name, tally in doc[group].items():
            if tally and tally["total"]:
                metrics[f"{prefix}/{name}"] = tally["rate"]
    for kind, n in error_counts(rows).items():
        metrics[f"errors/{kind}"] = n
    for termination, n in doc["terminations"].items():  # finished, truncated, context_overflow, infra_error
        metrics[f"termination/{termination}"] = n
    steps = sum(r["steps"] for r in rows)
    metrics["format_error_rate"] = 100.0 * sum(r["format_errors"] for r in rows) / steps if steps else 0.0
    for column in ("prompt_tokens", "completion_tokens", "planner_latency_s", "wall_s"):
        values = [r[column] for r in rows if r[column] is not None]
        if values and (column.endswith("_s") or any(values)):
            for q in (50, 90, 99):
                metrics[f"{column}/p{q}"] = percentile(values, q)
    return metrics


def error_counts(rows: Iterable[dict[str, Any]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for r in rows:
        counts.update(json.loads(r["error_kinds"]))
    return counts


def by_group(rows: Iterable[dict[str, Any]]) -> dict[Group, dict[int, list[dict[str, Any]]]]:
    groups: dict[Group, dict[int, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        groups[(r["planner"], r["split"], r["condition"])][r["seed"]].append(r)
    return {g: dict(seeds) for g, seeds in sorted(groups.items())}


def group_stability(seeds: dict[int, list[dict[str, Any]]]) -> Stability | None:
    """The spread over the seeds that have a scorable episode; None when none has (e.g. every episode of
    a dead endpoint ended in ``infra_error``): such a group has no score, only its unscorable count."""
    scored = {s: {r["task_id"]: (r["category"], bool(r["passed"])) for r in rows if r["scorable"]}
              for s, rows in seeds.items()}
    scored = {s: outcomes for s, outcomes in scored.items() if outcomes}
    return stability(scored) if scored else None


def leaderboard(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per (planner, split, condition), best Overall first, with spreads over the seeds that have
    a scorable episode; groups with none come last, unscored, with their infra-error count."""
    board = []
    for (planner, split, condition), seeds in by_group(rows).items():
        s = group_stability(seeds)
        every = [r for v in seeds.values() for r in v]
        board.append({"planner": planner, "split": split, "condition": condition,
                      "seeds": list(s.seeds) if s else [], "all_seeds": sorted(seeds), "episodes": len(every),
                      "unscorable": sum(not r["scorable"] for r in every),
                      "infra_errors": sum(r["termination"] == "infra_error" for r in every), "stability": s})
    return sorted(board, key=lambda e: (e["stability"] is None, -e["stability"].overall.mean if e["stability"] else 0))


def _pm(spread: Spread | None) -> str:
    return "–" if spread is None else f"{spread.mean:.2f} ± {spread.std:.2f}"


UNSCORED = "no scorable episode"  # a group's Overall when none of its episodes could be scored


def _rows(board: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    header = ["planner", "split", "condition", "seeds", "Overall", *(c.capitalize() for c in CATEGORIES),
              "unscorable"]
    body = []
    for e in board:
        s: Stability | None = e["stability"]
        scores = ([_pm(s.overall), *(_pm(s.categories.get(c)) for c in CATEGORIES)] if s is not None
                  else [UNSCORED, *("–" for _ in CATEGORIES)])
        body.append([e["planner"], e["split"], e["condition"], ",".join(map(str, e["seeds"] or e["all_seeds"])),
                     *scores, f"{e['unscorable']} ({e['infra_errors']} infra_error)" if e["unscorable"] else "0"])
    return header, body


def _stability_rows(board: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    header = ["planner", "split", "Overall range", "pass^k", "pass@k", "flipping tasks",
              *(f"{c} range → Overall" for c in CATEGORIES)]
    body = []
    for e in board:
        s = e["stability"]
        if s is None:
            body.append([e["planner"], e["split"], UNSCORED, *("–" for _ in range(3 + len(CATEGORIES)))])
            continue
        shifts = [f"{s.categories[c].range:.2f} ({s.range_tasks[c]:.0f} tasks) → {s.overall_shift[c]:.2f}"
                  if c in s.categories else "–" for c in CATEGORIES]
        body.append([e["planner"], e["split"], f"{s.overall.range:.2f}", f"{s.pass_all:.2f}", f"{s.pass_any:.2f}",
                     str(len(s.flipping)), *shifts])
    return header, body


def print_leaderboard(board: Sequence[dict[str, Any]], console: Console | None = None) -> None:
    console = console or Console()
    for title, (header, body) in (("Leaderboard (percent, mean ± sample std over seeds)", _rows(board)),
                                  ("Stability across seeds (points)", _stability_rows(board))):
        table = Table(title=title)
        for column in header:
            table.add_column(column)
        for row in body:
            table.add_row(*row)
        console.print(table)


def _markdown_table(header: list[str], body: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in body])


def _html_table(header: list[str], body: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in body)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


class ReportError(RuntimeError):
    """The report folder cannot be written; the message is one line naming the path."""


def check_report_dir(out_dir: Path) -> None:
    """Fail before any work, naming the folder, when the report could not be written there later."""
    if (blocker := file_in_the_way(out_dir / "leaderboard.md")) is not None:
        raise ReportError(f"report folder {out_dir}: {blocker} is a file, not a folder; "
                          "choose another with report_dir=<folder> (mobilepa report: --out)")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out_dir, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise ReportError(f"report folder {out_dir}: not writable ({exc.strerror or exc}); "
                          "choose another with report_dir=<folder> (mobilepa report: --out)") from None


def write_report(rows: Sequence[dict[str, Any]], out_dir: Path) -> tuple[list[dict[str, Any]], Path, Path]:
    """Write ``leaderboard.md`` and a self-contained ``leaderboard.html`` (plots inlined as PNG); a file
    that cannot be written is one ``ReportError`` line naming the folder."""
    try:
        return _write_report(rows, out_dir)
    except OSError as exc:
        where = f"{exc.filename}" if exc.filename else "a file there"
        raise ReportError(f"report folder {out_dir}: cannot write {where} ({exc.strerror or exc})") from None


def _write_report(rows: Sequence[dict[str, Any]], out_dir: Path) -> tuple[list[dict[str, Any]], Path, Path]:
    from experiments.plots import sweep_plots

    board = leaderboard(rows)
    out_dir.mkdir(parents=True, exist_ok=True)
    plots = sweep_plots(rows)
    note = ("Overall = 0.5·Basic + 0.1·Sub-agent + 0.2·Memory + 0.2·Skill (renormalised over the categories "
            "a split contains). Stability: a category's range moves Overall by its weight × range.")
    md = ["# MobilePA-Bench leaderboard", "", note, "", _markdown_table(*_rows(board)), "",
          "## Stability across seeds", "", _markdown_table(*_stability_rows(board)), ""]
    md += [f"![{name}]({name}.png)" for name in plots]
    for name, png in plots.items():
        (out_dir / f"{name}.png").write_bytes(png)
    md_path = out_dir / "leaderboard.md"
    md_path.write_text("\n".join(md) + "\n", encoding="utf-8")
    images = "".join(f'<figure><img alt="{name}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'
                     f"<figcaption>{name}</figcaption></figure>" for name, png in plots.items())
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>MobilePA-Bench leaderboard</title><style>"
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}img{max-width:100%}</style></head><body>"
        f"<h1>MobilePA-Bench leaderboard</h1><p>{html.escape(note)}</p>{_html_table(*_rows(board))}"
        f"<h2>Stability across seeds</h2>{_html_table(*_stability_rows(board))}{images}</body></html>\n"
    )
    html_path = out_dir / "leaderboard.html"
    html_path.write_text(page, encoding="utf-8")
    return board, md_path, html_path
