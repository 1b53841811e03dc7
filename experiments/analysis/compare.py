"""The comparison behind ``mobilepa compare A B`` and the per-cell analysis of ``mobilepa report``: the statistics of
``experiments.analysis.stats`` over a results store.

Episodes are read one cell at a time (their trajectories are decompressed for the behaviour metrics),
and joined with their tasks for the tag axes: the task file is the one the store recorded for the
split, used only while it still hashes to what the store recorded, so tags never come from another
version of the suite.
"""

from __future__ import annotations

import gzip
import io
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from sqlalchemy import select

from experiments.analysis.stats import UNITS, Facts, analyse, paired, row_facts
from experiments.results.store import ResultsStore, datasets, file_sha256, record_key
from sandbox.suite import TASK_DIR
from sandbox.tasks import Task, load_tasks

Cell = tuple[str, str, str, int]  # planner, split, condition, seed


def store_tasks(store: ResultsStore) -> dict[str, dict[str, Task]]:
    """split -> task id -> task, for every split whose task file is unchanged since the store was filled."""
    with store.engine.connect() as conn:
        known = conn.execute(select(datasets)).mappings().all()
    tasks = {}
    for d in known:
        path = TASK_DIR / d["file"]
        if path.is_file() and file_sha256(path) == d["sha256"]:
            tasks[d["split"]] = {t.task_id: t for t in load_tasks(path)}
    return tasks


def cells(store: ResultsStore, **where: Any) -> list[Cell]:
    return sorted({(r["planner"], r["split"], r["condition"], r["seed"]) for r in store.rows(**where)})


def cell_facts(
    store: ResultsStore, cell: Cell, tasks: dict[str, dict[str, Task]], keys: set[tuple[Any, ...]] | None = None
) -> list[Facts]:
    """Facts of a cell's episodes; ``keys``: only those whose store key is among them (the others'
    trajectories are never decompressed)."""
    planner, split, condition, seed = cell
    by_id = tasks.get(split, {})
    return [
        row_facts(r, json.loads(gzip.decompress(r["trajectory"])), by_id.get(r["task_id"].partition("@")[0]))
        for r in store.rows(with_trajectories=True, planner=planner, split=split, condition=condition, seed=seed)
        if keys is None or record_key(r) in keys
    ]


# ---- the report's analysis -----------------------------------------------------------------------------


def sweep_analysis(store: ResultsStore, keys: set[tuple[Any, ...]] | None = None) -> dict[str, Any]:
    """``analysis.json``'s document: every cell's full analysis, and per planner/split/condition over its
    seeds (Overall and categories with intervals, pass^k, failure causes, breakdowns, tokens), with the
    unit each figure counts. ``keys``: only these episodes (a sweep's, or a report's selection), else
    every episode of the store."""
    tasks = store_tasks(store)
    doc: dict[str, Any] = {"units": UNITS, "cells": {}, "groups": {}}
    groups: dict[tuple[str, str, str], list[Facts]] = defaultdict(list)
    for cell in sorted({k[:4] for k in keys}) if keys is not None else cells(store):
        facts = cell_facts(store, cell, tasks, keys)
        groups[cell[:3]].extend(facts)
        result = analyse(facts, seed=cell[3])
        del result["units"]  # once, at the top
        doc["cells"]["/".join(map(str, cell[:3])) + f"/seed{cell[3]}"] = result
    for (planner, split, condition), facts in groups.items():
        result = analyse(facts)
        doc["groups"][f"{planner}/{split}/{condition}"] = {
            k: result[k] for k in ("overall", "pass_hat_k", "taxonomy", "breakdowns", "tokens")
        }
    return doc


def print_analysis(doc: dict[str, Any], console: Console) -> None:
    """The per-cell and per-group analysis as two narrow tables (each fits a 100-column console)."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in ("cell", "Overall [95 % CI]", "fmt err %", "recovered", "tokens/ep"):
        table.add_column(column, no_wrap=True)
    causes = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    causes.add_column("cell", no_wrap=True)
    causes.add_column("pass^k, k=1…", no_wrap=True)
    causes.add_column("top failure causes (episodes)")
    for label, result in doc["cells"].items():
        table.add_row(label, _overall(result), _format_rate(result), _recovered(result), _tokens(result))
        causes.add_row(label, "", _causes(result))
    for group, result in doc["groups"].items():
        label = f"{group} (all seeds)"
        table.add_row(label, _overall(result), "", "", _tokens(result))
        causes.add_row(label, " ".join(f"{v:.1f}" for v in result["pass_hat_k"].values()), _causes(result))
    console.print("[bold]Per cell: Overall with its 95 % bootstrap interval, behaviour[/bold]", soft_wrap=True)
    console.print(table)
    console.print()
    console.print(
        "[bold]Per cell: pass^k over base tasks (seeds and SOR/MTSR runs as repeats), the most frequent "
        "failure causes[/bold]",
        soft_wrap=True,
    )
    console.print(causes)


def _overall(result: dict[str, Any]) -> str:
    o = result["overall"]
    return "–" if o["value"] is None else f"{o['value']:.1f} [{o['ci'][0]:.1f}, {o['ci'][1]:.1f}]"


def _causes(result: dict[str, Any], top: int = 3) -> str:
    causes: dict[str, int] = defaultdict(int)
    for per_planner in result["taxonomy"].values():
        for cause, n in per_planner.items():
            causes[cause] += n
    return ", ".join(f"{c} {n}" for c, n in sorted(causes.items(), key=lambda x: -x[1])[:top]) or "–"


def _format_rate(result: dict[str, Any]) -> str:
    rate = result["behaviour"]["format_errors"]["rate"]
    return "–" if rate is None else f"{rate:.2f}"


def _recovered(result: dict[str, Any]) -> str:
    met = result["behaviour"]["recovery"].values()
    return f"{sum(t['passed'] for t in met)}/{sum(t['total'] for t in met)}" if met else "–"


def _tokens(result: dict[str, Any]) -> str:
    t = result["tokens"]
    parts = [
        f"{name} {t[kind]['per_episode']:.0f}"
        for kind, name in (("prompt_tokens", "in"), ("completion_tokens", "out"), ("cached_prompt_tokens", "cached"))
        if t[kind]
    ]
    return " ".join(parts) or "–"


# ---- mobilepa compare ---------------------------------------------------------------------------------


class CompareError(ValueError):
    """The store cannot answer the comparison as asked; the message says what to give."""


def _choose(kind: str, options: set[str], given: str | None) -> str:
    if given is not None:
        if given not in options:
            raise CompareError(
                f"--{kind} {given}: both planners have episodes only in {', '.join(sorted(options)) or 'none'}"
            )
        return given
    if len(options) != 1:
        raise CompareError(
            f"both planners have episodes in {kind}s {', '.join(sorted(options)) or 'none'}; choose one with --{kind}"
        )
    return next(iter(options))


def compare(
    store: ResultsStore,
    a: str,
    b: str,
    *,
    split: str | None = None,
    condition: str | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """A against B on the episodes both have (same split, condition, episode key and seed)."""
    if a == b:
        raise CompareError("compare two different planners")
    mine = {p: cells(store, planner=p) for p in (a, b)}
    for p, found in mine.items():
        if not found:
            raise CompareError(f"the store holds no episodes of planner {p!r}")
    split = _choose("split", {c[1] for c in mine[a]} & {c[1] for c in mine[b]}, split)
    condition = _choose(
        "condition", {c[2] for c in mine[a] if c[1] == split} & {c[2] for c in mine[b] if c[1] == split}, condition
    )
    tasks = store_tasks(store)
    facts = {
        p: [f for c in mine[p] if c[1:3] == (split, condition) for f in cell_facts(store, c, tasks)] for p in (a, b)
    }
    result = paired(facts[a], facts[b], resamples=resamples, seed=seed)
    return {
        "a": a,
        "b": b,
        "split": split,
        "condition": condition,
        "seeds": sorted({c[3] for c in mine[a]} & {c[3] for c in mine[b]}),
        **result,
    }


def compare_plot(result: dict[str, Any]) -> bytes:
    """Per-category and Overall differences (A − B, points) with their paired-bootstrap intervals, as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(result["rows"])
    rows = [result["rows"][n] for n in names]
    fig, ax = plt.subplots(figsize=(6, 0.5 * len(names) + 1.5))
    y = range(len(names))
    diffs = [r["difference"] for r in rows]
    ax.errorbar(
        diffs,
        list(y),
        xerr=[[d - r["ci"][0] for d, r in zip(diffs, rows)], [r["ci"][1] - d for d, r in zip(diffs, rows)]],
        fmt="o",
        capsize=4,
        color="tab:blue",
    )
    ax.axvline(0, color="grey", linewidth=1)
    ax.set_yticks(list(y), [f"{n} (p={r['p']:.3g})" for n, r in zip(names, rows)])
    ax.invert_yaxis()
    ax.set_xlabel(f"{result['a']} − {result['b']} (points, 95 % paired bootstrap)")
    ax.set_title(f"{result['split']}/{result['condition']}, seeds {','.join(map(str, result['seeds']))}")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return buffer.getvalue()


def compare_table(result: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    header = [
        "",
        result["a"],
        result["b"],
        "difference [95 % CI]",
        f"tasks {result['a']} better",
        f"tasks {result['b']} better",
        "p (tasks)",
        "tasks",
        "episodes",
    ]
    body = [
        [
            name,
            f"{r['a']:.2f}",
            f"{r['b']:.2f}",
            f"{r['difference']:+.2f} [{r['ci'][0]:+.2f}, {r['ci'][1]:+.2f}]",
            str(r["a_better"]),
            str(r["b_better"]),
            f"{r['p']:.3g}",
            str(r["tasks"]),
            str(r["episodes"]),
        ]
        for name, r in result["rows"].items()
    ]
    return header, body


def write_compare(result: dict[str, Any], out_dir: Path) -> tuple[Path, Path, Path]:
    """``compare.json``, ``compare.md`` (table and the tasks either passed more often) and ``compare.png``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    header, body = compare_table(result)
    md = [
        f"# {result['a']} vs {result['b']} on {result['split']}/{result['condition']}",
        "",
        f"{result['episodes']} paired episodes of {result['tasks']} tasks (seeds "
        f"{', '.join(map(str, result['seeds']))}); rates in percent of episodes; difference = {result['a']} − "
        f"{result['b']} with a paired bootstrap over tasks ({result['resamples']} resamples, seed {result['seed']}); "
        f"p: {result['test']}. A task is better for a planner that passed more of its shared episodes.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(r) + " |" for r in body),
        "",
        f"## Tasks {result['a']} passed more often",
        "",
        *(f"- {k}" for k in result["flips"]["a_better"]),
        "",
        f"## Tasks {result['b']} passed more often",
        "",
        *(f"- {k}" for k in result["flips"]["b_better"]),
        "",
        "![differences](compare.png)",
        "",
    ]
    paths = out_dir / "compare.json", out_dir / "compare.md", out_dir / "compare.png"
    paths[0].write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    paths[1].write_text("\n".join(md), encoding="utf-8")
    paths[2].write_bytes(compare_plot(result))
    return paths
