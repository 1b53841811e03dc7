"""From results-store rows to scores: per-cell metrics, per-planner leaderboard (mean ± std over seeds)
and stability; and ``mobilepa report``, which prints the leaderboard and writes markdown and HTML."""

from __future__ import annotations

import base64
import html
import io
import json
import math
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from experiments.analysis.cost import TOKEN_KINDS, cost_metrics, device_label, money, rows_cost, tokens_short
from experiments.analysis.groups import by_group, domain_order, error_counts, group_stability, row_outcomes
from experiments.analysis.stability import Spread, Stability
from experiments.analysis.stats import bootstrap_overall
from experiments.reporting.console import FULL_DISK
from experiments.results.store import file_in_the_way, record_verdict
from experiments.results.summary import results_document
from sandbox.tasks import BUCKETS, CATEGORIES
from sandbox.taxonomy import DOMAINS


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def cell_document(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``results.json``'s document for one (planner, split, condition, seed) cell of the store."""
    first = rows[0]
    return results_document(
        planner=first["planner"],
        split=first["split"],
        seed=first["seed"],
        condition=first["condition"],
        verdicts=[record_verdict(r) for r in rows],
        wall_s=sum(r["wall_s"] for r in rows),
    )


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
    for termination, n in doc["terminations"].items():  # finished, truncated, context/prompt_overflow, infra_error
        metrics[f"termination/{termination}"] = n
    steps = sum(r["steps"] for r in rows)
    metrics["format_error_rate"] = 100.0 * sum(r["format_errors"] for r in rows) / steps if steps else 0.0
    metrics.update(cost_metrics(rows_cost(rows)))  # cost/*: tokens, USD when priced, GPU-s when served
    metrics.update(interval_metrics(rows))
    for condition in SKILL_CONDITIONS:  # skill episodes under SOR and under MTSR
        picked = [
            bool(r["passed"])
            for r in rows
            if r["scorable"] and r["category"] == "skill" and episode_condition(r) == condition
        ]
        if picked:
            metrics[f"retrieval/{condition}"] = 100.0 * sum(picked) / len(picked)
    domains: dict[str, list[bool]] = {}
    for r in rows:
        if r["scorable"]:
            domains.setdefault(r["domain"], []).append(bool(r["passed"]))
    metrics.update({f"domain/{d}": 100.0 * sum(v) / len(v) for d, v in domains.items()})
    for column in ("prompt_tokens", "completion_tokens", "planner_latency_s", "wall_s"):
        values = [r[column] for r in rows if r[column] is not None]
        if values and (column.endswith("_s") or any(values)):
            for q in (50, 90, 99):
                metrics[f"{column}/p{q}"] = percentile(values, q)
    return metrics


def interval_metrics(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Overall's and each category's 95 % bootstrap interval over tasks (``overall/ci_low``,
    ``category/basic/ci_high``, …), a skill task's SOR and MTSR episodes resampled together."""
    result = bootstrap_overall(row_outcomes(rows))
    if result["ci"] is None:
        return {}
    metrics = {"overall/ci_low": result["ci"][0], "overall/ci_high": result["ci"][1]}
    for category, c in result["categories"].items():
        metrics.update({f"category/{category}/ci_low": c["ci"][0], f"category/{category}/ci_high": c["ci"][1]})
    return metrics


def episode_condition(row: dict[str, Any]) -> str:
    """The skill condition one stored episode ran under: ``sor``/``mtsr`` from its key under ``both``
    (``<task_id>@sor``), else its cell's condition."""
    return row["task_id"].rpartition("@")[2] if "@" in row["task_id"] else row["condition"]


def _rate_spread(seeds: dict[int, list[dict[str, Any]]], chosen: Any) -> Spread | None:
    """Pass rate (percent) over the scorable rows ``chosen(row)`` picks, one value per seed that has any."""
    values = []
    for rows in seeds.values():
        picked = [bool(r["passed"]) for r in rows if r["scorable"] and chosen(r)]
        if picked:
            values.append(100.0 * sum(picked) / len(picked))
    return Spread(tuple(values)) if values else None


def leaderboard(rows: Iterable[dict[str, Any]], analysis: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One entry per (planner, split, condition), best Overall first, with spreads over the seeds that have
    a scorable episode (Overall and categories, the three buckets, and skill tasks under SOR and MTSR) and
    the episodes per seed; groups with none come last, unscored, with their infra-error count.
    ``analysis``: the report's ``analysis.json`` document, whose group (intervals, failure causes,
    breakdowns) each entry then carries."""
    groups = (analysis or {}).get("groups", {})
    board = []
    for (planner, split, condition), seeds in by_group(rows).items():
        s = group_stability(seeds)
        every = [r for v in seeds.values() for r in v]
        board.append(
            {
                "planner": planner,
                "split": split,
                "condition": condition,
                "seeds": list(s.seeds) if s else [],
                "all_seeds": sorted(seeds),
                "episodes": len(every),
                "per_seed": max(len(v) for v in seeds.values()),
                "unscorable": sum(not r["scorable"] for r in every),
                "infra_errors": sum(r["termination"] == "infra_error" for r in every),
                "prompt_overflows": sum(r["termination"] == "prompt_overflow" for r in every),
                "stability": s,
                "buckets": {b: _rate_spread(seeds, lambda r, b=b: r["bucket"] == b) for b in BUCKETS},
                "retrieval": {
                    c: _rate_spread(seeds, lambda r, c=c: r["category"] == "skill" and episode_condition(r) == c)
                    for c in SKILL_CONDITIONS
                },
                "cost": group_cost(seeds),
                "analysis": groups.get(f"{planner}/{split}/{condition}"),
            }
        )
    return sorted(
        board, key=lambda e: (e["split"], e["stability"] is None, -e["stability"].overall.mean if e["stability"] else 0)
    )


def group_cost(seeds: dict[int, list[dict[str, Any]]]) -> dict[str, Any]:
    """A group's cost: tokens per episode over all its episodes, and per cell (mean over seeds) its USD when
    priced and its GPU-seconds when served (None when unknown: never a guessed price)."""
    every = [r for rows in seeds.values() for r in rows]
    cost = rows_cost(every)
    per_cell = [rows_cost(rows) for rows in seeds.values()]
    for key in ("cost_usd", "gpu_s"):
        values = [c[key] for c in per_cell if c[key] is not None]
        cost[f"{key}_per_cell"] = sum(values) / len(values) if values else None
    return cost


def _pm(spread: Spread | None) -> str:
    """A rate over seeds, short enough for a 100-column table: the mean, and ±std when there are seeds to differ."""
    if spread is None:
        return "–"
    return f"{spread.mean:.1f}" if len(spread.values) < 2 else f"{spread.mean:.1f}±{spread.std:.1f}"


UNSCORED = "unscored"  # a group's Overall when none of its episodes could be scored
ONE_SEED = "one seed"  # a stability figure of a group run under one seed: there is no spread to show
SKILL_CONDITIONS = ("sor", "mtsr")
SHORT = {
    "basic": "Basic",
    "subagent": "Sub-agent",
    "memory": "Memory",
    "skill": "Skill",
    "tool_call": "Tool call",
    "state_change": "State chg",
    "agent_behavior": "Behavior",
}

Section = tuple[str, list[str], list[list[str]]]  # title, header, rows


SCORE_HEADER = ["planner", "cond", "seeds", "n", "Overall", *(SHORT[c] for c in CATEGORIES)]


def score_row(
    planner: str,
    condition: str,
    seeds: Sequence[int],
    per_seed: int,
    overall: Spread | None,
    categories: dict[str, Spread],
) -> list[str]:
    """One row of the leaderboard's scores table, from the store or read back from MLflow alike."""
    scores = (
        [_pm(overall), *(_pm(categories.get(c)) for c in CATEGORIES)] if overall else [UNSCORED, "–", "–", "–", "–"]
    )
    return [planner, condition, ",".join(map(str, seeds)), str(per_seed), *scores]


def _prompt_overflows(entries: Sequence[dict[str, Any]]) -> str:
    """The episodes failed because their first request did not fit the model's context, counted apart
    (the model never had its turn): "; first request beyond the context: smollm2 both 20"."""
    found = [f"{e['planner']} {e['condition']} {e['prompt_overflows']}" for e in entries if e["prompt_overflows"]]
    return f"; failed with the first request beyond the context: {', '.join(found)}" if found else ""


def sections(board: Sequence[dict[str, Any]]) -> list[tuple[str, list[Section]]]:
    """The report's tables, per split (each labelled with it), each narrow enough for 100 columns:
    scores; buckets, SOR/MTSR and unscorable episodes; stability; each category's spread over seeds."""
    splits: dict[str, list[dict[str, Any]]] = {}
    for e in board:
        splits.setdefault(e["split"], []).append(e)
    out = []
    for split, entries in splits.items():
        scores, buckets, spread, ranges, costs = [], [], [], [], []
        for e in entries:
            s: Stability | None = e["stability"]
            who = [e["planner"], e["condition"]]
            paid = e["cost"]  # beside the score: tokens per episode, USD when priced, GPU-s when served
            costs.append(
                [
                    *who,
                    _pm(s.overall) if s is not None else UNSCORED,
                    *(tokens_short(paid[f"{k}_per_episode"]) for k in TOKEN_KINDS),
                    money(paid["cost_usd_per_cell"]),
                    money(paid["cost_usd_per_episode"]),
                    "–"
                    if paid["gpu_s_per_cell"] is None
                    else f"{paid['gpu_s_per_cell']:.0f} {device_label(paid['server_device'])}",
                ]
            )
            scores.append(
                score_row(
                    e["planner"],
                    e["condition"],
                    e["seeds"] or e["all_seeds"],
                    e["per_seed"],
                    s.overall if s else None,
                    s.categories if s else {},
                )
            )
            unscorable = f"{e['unscorable']} ({e['infra_errors']} infra)" if e["infra_errors"] else str(e["unscorable"])
            buckets.append(
                [
                    *who,
                    *(_pm(e["buckets"][b]) for b in BUCKETS),
                    *(_pm(e["retrieval"][c]) for c in SKILL_CONDITIONS),
                    unscorable,
                ]
            )
            if s is None:
                spread.append([*who, UNSCORED, "–", "–", "–", "–"])
                ranges.append([*who, *("–" for _ in CATEGORIES)])
                continue
            if s.one_seed:  # a spread of one value is no stability figure
                spread.append([*who, ONE_SEED, ONE_SEED, ONE_SEED, ONE_SEED, str(s.tasks)])
                ranges.append([*who, *(ONE_SEED if c in s.categories else "–" for c in CATEGORIES)])
                continue
            spread.append(
                [
                    *who,
                    f"{s.overall.range:.2f}",
                    f"{s.pass_all:.1f}",
                    f"{s.pass_any:.1f}",
                    str(len(s.flipping)),
                    str(s.tasks),
                ]
            )
            ranges.append(
                [
                    *who,
                    *(
                        f"{s.categories[c].range:.2f} ({s.range_episodes[c]:.0f}) → {s.overall_shift[c]:.2f}"
                        if c in s.categories
                        else "–"
                        for c in CATEGORIES
                    ),
                ]
            )
        out.append(
            (
                split,
                [
                    (
                        f"Leaderboard, split {split} (percent; mean±std over seeds; n: episodes per seed)",
                        SCORE_HEADER,
                        scores,
                    ),
                    (
                        f"Buckets and skill retrieval, split {split} (percent){_prompt_overflows(entries)}",
                        ["planner", "cond", *(SHORT[b] for b in BUCKETS), "SOR", "MTSR", "unscorable"],
                        buckets,
                    ),
                    (
                        f"Stability across seeds, split {split} (range: points; the rest: base tasks, k = seeds)",
                        ["planner", "cond", "Overall range", "pass^k", "pass@k", "flipping tasks", "tasks"],
                        spread,
                    ),
                    (
                        f"Category range over seeds, split {split}: points (episodes) → Overall points it moves",
                        ["planner", "cond", *(SHORT[c] for c in CATEGORIES)],
                        ranges,
                    ),
                ]
                + _analysis_tables(split, entries)
                + _across_planners(split, entries)
                + (
                    [
                        (
                            f"Cost, split {split} (tokens per episode; USD at the planner config's price, "
                            "per cell (mean over seeds) and per episode; server-seconds of the vLLM server the sweep "
                            "started, per cell, on the device it ran on (GPU-s × its GPUs, or CPU); –: unknown)",
                            [
                                "planner",
                                "cond",
                                "Overall",
                                "prompt",
                                "cached",
                                "completion",
                                "USD/cell",
                                "USD/ep",
                                "server-s/cell",
                            ],
                            costs,
                        )
                    ]
                    if any(set(row[3:]) != {"–"} for row in costs)
                    else []
                ),
            )
        )  # none reported: no table
    return out


BELOW = 70.0
"""The paper's threshold: how many planners fall below 70 % (seven of its 13 models did, on Overall)."""


def _interval(ci: list[float] | None) -> str:
    return "–" if ci is None else f"{ci[0]:.1f}–{ci[1]:.1f}"


def _analysis_tables(split: str, entries: Sequence[dict[str, Any]]) -> list[Section]:
    """From each group's analysis: Overall and the categories with their 95 % bootstrap intervals over
    tasks, the failure causes, and memory by where its facts live and by application domain."""
    analysed = [e for e in entries if e.get("analysis")]
    if not analysed:
        return []
    intervals, causes, primary, domains = [], [], [], []
    domain_names = sorted(
        {d for e in analysed for d in e["analysis"]["breakdowns"].get("memory_domain", {})}, key=domain_order
    )
    for e in analysed:
        a = e["analysis"]
        who = [e["planner"], e["condition"]]
        o = a["overall"]
        per = o.get("categories", {})
        intervals.append(
            [
                *who,
                _interval(o["ci"]),
                *(_interval(per[c]["ci"]) if c in per else "–" for c in CATEGORIES),
            ]
        )
        failed = {cause: n for planner in a["taxonomy"].values() for cause, n in planner.items()}
        top = sorted(failed.items(), key=lambda cn: -cn[1])
        causes.append([*who, str(sum(failed.values())), ", ".join(f"{c} {n}" for c, n in top[:4]) or "–"])
        memory = a["breakdowns"]
        if "memory_primary" in memory:
            primary.append([*who, *(_tallied(memory["memory_primary"].get(k)) for k in ("db", "api"))])
        if "memory_domain" in memory:
            domains.append([*who, *(_rate(memory["memory_domain"].get(d)) for d in domain_names)])
    tables: list[Section] = [
        (
            f"95 % intervals of the scores, split {split} (bootstrap over tasks, all seeds together)",
            ["planner", "cond", "Overall", *(SHORT[c] for c in CATEGORIES)],
            intervals,
        ),
        (
            f"Failure causes, split {split} (failed episodes, all seeds; rules: analysis.json)",
            ["planner", "cond", "failed", "most frequent causes"],
            causes,
        ),
    ]
    if primary:
        tables.append(
            (
                f"Memory by where its facts live, split {split} (% of episodes, passed/episodes)",
                ["planner", "cond", "DB-primary", "API-primary"],
                primary,
            )
        )
    if domains:
        tables.append(
            (
                f"Memory by application domain, split {split} (% of episodes; the domains: see the note)",
                ["planner", "cond", *domain_names],
                domains,
            )
        )
    return tables


def _tallied(t: dict[str, Any] | None) -> str:
    return "–" if not t or t["rate"] is None else f"{t['rate']:.1f} ({t['passed']}/{t['total']})"


def _rate(t: dict[str, Any] | None) -> str:
    return "–" if not t or t["rate"] is None else f"{t['rate']:.1f}"


def _across_planners(split: str, entries: Sequence[dict[str, Any]]) -> list[Section]:
    """The paper's cross-model figures, per condition: each category's mean over the planners (their
    means over seeds) and how many planners are below ``BELOW`` percent."""
    by_condition: dict[str, list[Stability]] = {}
    for e in entries:
        if e["stability"] is not None:
            by_condition.setdefault(e["condition"], []).append(e["stability"])
    body = []
    for condition, scored in by_condition.items():
        cells = []
        columns: list[list[Spread | None]] = [[s.overall for s in scored]]
        columns += [[s.categories.get(c) for s in scored] for c in CATEGORIES]
        for spreads in columns:
            means = [sp.mean for sp in spreads if sp is not None]
            below = sum(m < BELOW for m in means)
            cells.append(f"{sum(means) / len(means):.1f} ({below}/{len(means)})" if means else "–")
        body.append([condition, str(len(scored)), *cells])
    if not body:
        return []
    return [
        (
            f"Across planners, split {split}: mean of their means (planners below {BELOW:.0f} % / planners)",
            ["cond", "planners", "Overall", *(SHORT[c] for c in CATEGORIES)],
            body,
        )
    ]


def print_leaderboard(board: Sequence[dict[str, Any]], console: Console | None = None) -> None:
    """Every section's tables, each row on one line of a 100-column console."""
    console = console or Console()
    for _, tables in sections(board):
        for title, header, body in tables:  # the title on a line of its own: never wrapped to the table's width
            console.print(f"[bold]{title}[/bold]", soft_wrap=True, highlight=False)
            table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
            for i, column in enumerate(header):
                table.add_column(column, no_wrap=True, justify="left" if i < 2 else "right")
            for row in body:
                table.add_row(*row)
            console.print(table)
            console.print()


def _markdown_table(header: list[str], body: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in body])


def _html_table(header: list[str], body: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in body)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


class ReportError(RuntimeError):
    """The report folder cannot be written; the message is one line naming the path. ``exit_code``: 1
    for a full disk, 2 for a folder that cannot be used."""

    def __init__(self, message: str, *, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def check_report_dir(out_dir: Path) -> None:
    """Fail before any work, naming the folder, when the report could not be written there later."""
    if (blocker := file_in_the_way(out_dir / "leaderboard.md")) is not None:
        raise ReportError(
            f"report folder {out_dir}: {blocker} is a file, not a folder; "
            "choose another with report_dir=<folder> (mobilepa report: --out)"
        )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out_dir, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise ReportError(
            f"report folder {out_dir}: not writable ({exc.strerror or exc}); "
            "choose another with report_dir=<folder> (mobilepa report: --out)",
            exit_code=1 if exc.errno in FULL_DISK else 2,
        ) from None


def write_report(
    rows: Sequence[dict[str, Any]],
    out_dir: Path,
    about: str | None = None,
    analysis: dict[str, Any] | None = None,
) -> tuple[list[dict[str, Any]], Path]:
    """Write the report of ``rows`` into ``out_dir``, the whole of it and nothing else: ``leaderboard.md``,
    ``leaderboard.txt`` (the console's tables) and a self-contained ``leaderboard.html`` (plots inlined
    as PNG), each saying what it is about (``about``: a sweep, or a selection of the store), the plots,
    ``studies.json`` and ``analysis.json`` (``analysis``, whose intervals and failure causes the
    leaderboard shows); the files of an earlier report there that this one does not write are removed
    (``report.json`` lists each report's files). A file that cannot be written is one ``ReportError``
    line naming the folder. Returns the leaderboard and the folder."""
    try:
        return _write_report(rows, out_dir, about, analysis)
    except OSError as exc:
        where = f"{exc.filename}" if exc.filename else "a file there"
        raise ReportError(
            f"report folder {out_dir}: cannot write {where} ({exc.strerror or exc})",
            exit_code=1 if exc.errno in FULL_DISK else 2,
        ) from None


NOTE = (
    "Overall = 0.5·Basic + 0.1·Sub-agent + 0.2·Memory + 0.2·Skill (renormalised over the categories a split "
    "contains). Units: rates count episodes (a skill task has two, SOR and MTSR); intervals are 95 % percentile "
    "bootstraps over tasks, each task with all its seeds and episodes; pass^k and pass@k (k = seeds: the chance "
    "that k runs of a task all pass / one passes) and flipping tasks count base tasks, a skill task's SOR and "
    "MTSR runs as repeats of it; failure causes count failed episodes; a group run under one seed says 'one "
    "seed' where a spread would be. Buckets: tool_call, state_change, agent_behavior. SOR/MTSR: skill tasks "
    "under skill-oracle and mixed tool-and-skill retrieval. A category's range over seeds moves Overall by its "
    "weight × range. Domains: " + "; ".join(f"{code} {name}" for code, name in DOMAINS.items()) + "."
)
MANIFEST = "report.json"  # what the report in a folder is about and which files are its own


def _write_report(
    rows: Sequence[dict[str, Any]], out_dir: Path, about: str | None, analysis: dict[str, Any] | None
) -> tuple[list[dict[str, Any]], Path]:
    from experiments.analysis.studies import studies, study_plots, study_tables
    from experiments.reporting.plots import sweep_plots

    board = leaderboard(rows, analysis)
    out_dir.mkdir(parents=True, exist_ok=True)
    plots = sweep_plots(rows)
    split_names = sorted({r["split"] for r in rows})
    about = about or f"every episode of the store, split(s) {', '.join(split_names)}"
    md = ["# MobilePA-Bench leaderboard", "", f"About: {about}.", "", NOTE, ""]
    page = [f"<h1>MobilePA-Bench leaderboard</h1><p>About: {html.escape(about)}.</p><p>{html.escape(NOTE)}</p>"]
    for split, tables in sections(board):
        md += [f"## Split {split}", ""]
        page.append(f"<h2>Split {html.escape(split)}</h2>")
        for title, header, body in tables:
            md += [f"### {title}", "", _markdown_table(header, body), ""]
            page.append(f"<h3>{html.escape(title)}</h3>{_html_table(header, body)}")
    files: dict[str, str | bytes] = {}
    study = studies(rows)  # the retrieval curve over N and the ablation deltas, when the rows hold them
    files["studies.json"] = json.dumps(study, indent=2, sort_keys=True) + "\n"
    if study["curves"] or study["ablations"]:
        md += ["## Retrieval and ablation studies", ""]
        page.append("<h2>Retrieval and ablation studies</h2>")
        for title, header, body in study_tables(study):
            md += [f"### {title}", "", _markdown_table(header, body), ""]
            page.append(f"<h3>{html.escape(title)}</h3>{_html_table(header, body)}")
        plots.update(study_plots(study))
    md += [f"![{name}]({name}.png)" for name in plots]
    files.update({f"{name}.png": png for name, png in plots.items()})
    files["leaderboard.md"] = "\n".join(md) + "\n"
    images = "".join(
        f'<figure><img alt="{name}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'
        f"<figcaption>{name}</figcaption></figure>"
        for name, png in plots.items()
    )
    files["leaderboard.html"] = (
        "<!doctype html><html><head><meta charset='utf-8'><title>MobilePA-Bench leaderboard</title><style>"
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}img{max-width:100%}</style></head><body>"
        f"{''.join(page)}{images}</body></html>\n"
    )
    text = io.StringIO()
    console = Console(file=text, width=TEXT_WIDTH, color_system=None, emoji=False, highlight=False)
    console.print(f"MobilePA-Bench leaderboard. About: {about}.", soft_wrap=True)
    console.print(NOTE, soft_wrap=True)
    console.print()
    print_leaderboard(board, console)
    files["leaderboard.txt"] = text.getvalue()
    if analysis is not None:
        files["analysis.json"] = json.dumps(analysis, indent=2, sort_keys=True) + "\n"
    _replace_report(out_dir, about, files)
    return board, out_dir


TEXT_WIDTH = 140  # leaderboard.txt: wide enough that no table wraps


def _replace_report(out_dir: Path, about: str, files: dict[str, str | bytes]) -> None:
    """Write ``files`` into ``out_dir`` and remove those of the report written there before that this one
    does not have (an old ``retrieval_curve.png`` beside a leaderboard without a retrieval study), so a
    folder never holds files of two reports."""
    manifest = out_dir / MANIFEST
    try:
        earlier = json.loads(manifest.read_text(encoding="utf-8")).get("files", [])
    except (OSError, ValueError, AttributeError):
        earlier = []
    for name in earlier:
        if name not in files and "/" not in name and (out_dir / name).is_file():
            (out_dir / name).unlink()
    for name, content in files.items():
        if isinstance(content, bytes):
            (out_dir / name).write_bytes(content)
        else:
            (out_dir / name).write_text(content, encoding="utf-8")
    manifest.write_text(json.dumps({"about": about, "files": sorted(files)}, indent=2) + "\n", encoding="utf-8")
