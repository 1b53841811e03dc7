"""``mobilepa compare A B``: two planners of a results store on the same episodes, as a table on the
console and ``compare.json``/``.md``/``.png``; ``--html`` adds ``compare.html``, which links every flipping
episode to its two trajectories side by side (``pairs/``), with the flipping episodes' own pages and
index beside it (``mobilepa view``'s pages)."""

from __future__ import annotations

import argparse
import base64
import html
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from experiments.analysis.compare import CompareError, compare, compare_table, write_compare
from experiments.commands.view.pages import page, write_html, write_pair
from experiments.commands.view.sources import StoreSource
from experiments.results.store import ResultsStore


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="mobilepa compare", description="two planners of a results store on the same episodes"
    )
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--store", default="outputs/results.db", help="results store (SQLite)")
    parser.add_argument("--split", help="the split (needed when both planners ran several)")
    parser.add_argument("--condition", help="the skill condition (needed when both ran several)")
    parser.add_argument("--out", help="folder for compare.json/.md/.png (default outputs/compare/A-vs-B)")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0, help="the bootstrap's seed")
    parser.add_argument("--flips", type=int, default=20, help="tasks printed per side that one passed more often")
    parser.add_argument(
        "--html",
        action="store_true",
        help="also write compare.html into the --out folder: every flipping episode linked to its two "
        "trajectories side by side",
    )
    ns = parser.parse_args(args)
    if not Path(ns.store).is_file():
        print(f"mobilepa compare: no results store at {ns.store}; run `mobilepa sweep` first", file=sys.stderr)
        return 2
    store = ResultsStore(Path(ns.store))
    try:
        result = compare(
            store, ns.a, ns.b, split=ns.split, condition=ns.condition, resamples=ns.resamples, seed=ns.seed
        )
    except (CompareError, ValueError) as exc:
        print(f"mobilepa compare: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    out = Path(ns.out or f"outputs/compare/{ns.a}-vs-{ns.b}")
    paths = [*write_compare(result, out)]
    if ns.html:
        paths.append(write_compare_html(result, Path(ns.store), out))
    console = Console() if sys.stdout.isatty() else Console(width=140)
    header, body = compare_table(result)
    table = Table(
        title=f"{ns.a} vs {ns.b} on {result['split']}/{result['condition']}: {result['episodes']} paired "
        f"episodes of {result['tasks']} tasks, seeds {','.join(map(str, result['seeds']))}"
    )
    for column in header:
        table.add_column(column)
    for row in body:
        table.add_row(*row)
    console.print(table)
    console.print(f"p: {result['test']}", soft_wrap=True)
    for side in ("a_better", "b_better"):
        flips = result["flips"][side]
        shown = ", ".join(flips[: ns.flips]) + (f" … (+{len(flips) - ns.flips})" if len(flips) > ns.flips else "")
        console.print(f"tasks {result[side[0]]} passed more often ({len(flips)}): {shown or '–'}")
    console.print("written: " + "  ".join(str(p.resolve()) for p in paths))
    return 0


def write_compare_html(result: dict[str, Any], store: Path, out_dir: Path) -> Path:
    """``compare.html``: the table, the plot and the flipping episodes, each linked to its side-by-side page
    (``pairs/``, A on the left); the flipping episodes' pages and their index go beside it."""
    source = StoreSource(store)
    try:
        rows = {
            (r["planner"], r["seed"], r["key"]): r
            for r in source.rows()
            if (r["split"], r["condition"]) == (result["split"], result["condition"])
        }
        pairs: dict[str, list[tuple[str, dict[str, Any], dict[str, Any]]]] = {}
        for side, flips in result["episode_flips"].items():
            pairs[side] = []
            for flip in flips:
                key, _, seed = flip.rpartition("#")
                left, right = rows[(result["a"], int(seed), key)], rows[(result["b"], int(seed), key)]
                pairs[side].append((flip, left, right))
        chosen = [r for found in pairs.values() for _, left, right in found for r in (left, right)]
        if chosen:
            write_html(source, chosen, out_dir)
        links = {
            flip: write_pair(source, left, right, out_dir, ("../compare.html", "the comparison")).relative_to(out_dir)
            for found in pairs.values()
            for flip, left, right in found
        }
    finally:
        source.close()
    header, body = compare_table(result)
    table = (
        "<table><thead><tr>"
        + "".join(f"<th>{html.escape(h)}</th>" for h in header)
        + "</tr></thead><tbody>"
        + "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in body)
        + "</tbody></table>"
    )
    sections = []
    for side, found in pairs.items():
        winner, loser = (result["a"], result["b"]) if side == "a_only" else (result["b"], result["a"])
        items = "".join(
            f"<tr><td class='nowrap'><a href='{html.escape(links[flip].as_posix())}'>{html.escape(flip)}</a></td>"
            f"<td class='nowrap'>{html.escape((right if side == 'a_only' else left)['cause'] or '')}</td>"
            f"<td>{html.escape(next(iter((right if side == 'a_only' else left)['reasons']), ''))}</td></tr>"
            for flip, left, right in found
        )
        sections.append(
            f"<h2 id='{side}'>Episodes passed by {html.escape(winner)} only ({len(found)})</h2>"
            + (
                f"<table><thead><tr><th>episode#seed (side by side)</th><th>{html.escape(loser)}'s failure cause</th>"
                f"<th>its first reason</th></tr></thead><tbody>{items}</tbody></table>"
                if found
                else "<p class='dim'>none</p>"
            )
        )
    png = base64.b64encode((out_dir / "compare.png").read_bytes()).decode()  # written by write_compare
    flipping = " <a href='index.html'>The flipping episodes</a>, sortable and searchable." if links else ""
    title = f"{result['a']} vs {result['b']} on {result['split']}/{result['condition']}"
    body_html = (
        f"<h1>{html.escape(title)}</h1><p>{result['episodes']} paired episodes of {result['tasks']} tasks, seeds "
        f"{', '.join(map(str, result['seeds']))}; rates in percent; difference = A − B with a paired bootstrap "
        f"over tasks; p: {html.escape(result['test'])}.{flipping}</p>{table}"
        f"<img alt='differences' src='data:image/png;base64,{png}'>{''.join(sections)}"
    )
    path = out_dir / "compare.html"
    path.write_text(page(title, body_html), encoding="utf-8")
    return path
