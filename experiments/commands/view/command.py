"""``mobilepa view``'s command line: list, show one episode, or two side by side; ``--html DIR`` writes pages."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from experiments.analysis.stats import CAUSES
from experiments.commands.view.episode import gather
from experiments.commands.view.pages import write_html, write_pair
from experiments.commands.view.sources import (
    DEFAULT_RUNS,
    DEFAULT_STORE,
    VERDICTS,
    Filters,
    Source,
    ViewError,
    find_episode,
    open_source,
)
from experiments.commands.view.terminal import Out, PlainOut, RichOut, print_listing, write_episode
from experiments.commands.view.terminal import write_pair as print_pair


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mobilepa view",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="List the episodes of a run folder or a results store, or show one verdict first: the "
        "verdict with its gates and reasons, then the conversation as the model saw it with its own replies, each "
        "call with its envelope, the state diff. Two KEYs show two episodes of a task side by side.",
        epilog="examples:\n"
        "  mobilepa view --run outputs/run --planner noop --verdict fail    # list\n"
        "  mobilepa view hw_basic_001 --store outputs/results.db --planner oracle --seed 0\n"
        "  mobilepa view oracle/mini/both/0/basic-1.1-01                      # an id from the listing\n"
        "  mobilepa view oracle/mini/both/0/basic-1.1-01 noop/mini/both/0/basic-1.1-01   # side by side\n"
        "  mobilepa view --store outputs/results.db --split mini --html outputs/view",
    )
    p.add_argument(
        "targets",
        nargs="*",
        metavar="[SOURCE] [KEY [KEY]]",
        help="KEY: the episode to show: its id (planner/split/condition/seed/key), episode key or task id; two "
        "KEYs: side by side; SOURCE: a run folder or a store file, as --run or --store",
    )
    source = p.add_mutually_exclusive_group()
    source.add_argument("--run", type=Path, help="a run folder, or a folder holding run folders (outputs/run)")
    source.add_argument("--store", type=Path, help=f"a results store (default {DEFAULT_STORE}, else {DEFAULT_RUNS})")
    p.add_argument("--planner")
    p.add_argument("--split")
    p.add_argument("--condition", help="the run's condition (both, sor, mtsr, default)")
    p.add_argument("--seed", type=int)
    p.add_argument("--verdict", choices=VERDICTS)
    p.add_argument("--category", help="basic, subagent, memory or skill")
    p.add_argument("--termination", help="finished, truncated, context_overflow, prompt_overflow or infra_error")
    p.add_argument(
        "--cause",
        choices=CAUSES,
        metavar="CAUSE",
        help=f"the failure cause of mobilepa report's taxonomy: {', '.join(CAUSES)}",
    )
    p.add_argument("--reason", metavar="SUBSTRING", help="only episodes with a reason containing this (any case)")
    p.add_argument("--limit", type=int, default=200, help="most rows listed (default 200; 0: all)")
    p.add_argument(
        "--html",
        type=Path,
        metavar="DIR",
        help="write DIR/index.html and one page per matching episode (with two KEYs also their side-by-side "
        "page under DIR/pairs/) instead of printing",
    )
    return p


def main(argv: list[str]) -> int:
    p = parser()
    args = p.parse_args(argv)
    targets = list(args.targets)
    if targets and Path(targets[0]).exists():
        if args.run is not None or args.store is not None:
            p.error(f"{targets[0]}: a source is given twice (with --run or --store)")
        path = Path(targets.pop(0))
        args.run, args.store = (path, None) if path.is_dir() else (None, path)
    if len(targets) > 2:
        p.error(
            f"expected [SOURCE] [KEY [KEY]], got {' '.join(args.targets)} (SOURCE: an existing folder or store file)"
        )
    filters = Filters(
        args.planner,
        args.split,
        args.condition,
        args.seed,
        args.verdict,
        args.category,
        args.termination,
        args.cause,
        args.reason,
    )
    console = Console(highlight=False) if sys.stdout.isatty() else None
    try:
        source = open_source(args.run, args.store)
    except ViewError as exc:
        print(f"mobilepa view: {exc}", file=sys.stderr)
        return 2
    try:
        return _show(source, filters, targets, args.html, args.limit, console)
    except ViewError as exc:
        print(f"mobilepa view: {exc}", file=sys.stderr)
        return 2
    finally:
        source.close()


def _show(
    source: Source, filters: Filters, keys: list[str], html_dir: Path | None, limit: int, console: Console | None
) -> int:
    every = source.rows()
    rows = [r for r in every if filters.match(r)]
    out: Out = RichOut(console) if console is not None else PlainOut(sys.stdout)
    if len(keys) == 2:
        left, right = (find_episode(rows, key) for key in keys)
        if left["id"] == right["id"]:
            raise ViewError(f"both KEYs name {left['id']}: give two episodes")
        if html_dir:
            write_html(source, [left, right], html_dir)
            pair = write_pair(source, left, right, html_dir, ("../index.html", "both episodes"))
            print(f"side by side: {pair.resolve()}")
            return 0
        print_pair(out, gather(left, source.trajectory(left)), gather(right, source.trajectory(right)), console)
        return 0
    if keys:
        row = find_episode(rows, keys[0])
        if html_dir:
            write_html(source, [row], html_dir)
            print(f"episode: {(html_dir / 'index.html').resolve()}")
            return 0
        write_episode(out, gather(row, source.trajectory(row)))
        return 0
    if not rows:
        print(f"mobilepa view: no episode matches the filters ({len(every)} in {source.label})", file=sys.stderr)
        return 1
    if html_dir:
        print(f"episodes: {write_html(source, rows, html_dir).resolve()} ({len(rows)} pages)")
        return 0
    shown = rows if limit <= 0 else rows[:limit]
    print_listing(shown, source.label, console)
    if len(shown) < len(rows):
        print(f"listed {len(shown)} of {len(rows)}; --limit 0 lists all, filters narrow", file=sys.stderr)
    return 0
