"""``mobilepa sweep`` and ``mobilepa report``: the printing side of the sweep machinery."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rich.console import Console

from cluster.dask_runner import ClusterConfigError
from cluster.vllm import ServerStartupError
from experiments.compare import report_analysis
from experiments.leaderboard import ReportError, check_report_dir, print_leaderboard, write_report
from experiments.store import DatasetMismatch, ResultsStore, SettingsMismatch, StoreError
from experiments.sweep import SweepConfigError, load_config, parse_args, run_sweep


LISTED = 10  # infra_error keys listed one by one; cells are summed up below them


def _console() -> Console:
    """A console wide enough for the leaderboard even when the output is a log file or a pipe
    (Rich assumes 80 columns there and would truncate planner names and scores)."""
    return Console() if sys.stdout.isatty() else Console(width=180)


def sweep_main(args: list[str]) -> int:
    """Run a sweep, then print its leaderboard and where the store, report and MLflow UI are.

    Exit codes: 0 every key of the grid has its result and everything was written down; 1 the sweep ran
    but something is missing (each missing cell named, with its planner's endpoint), or a vLLM server
    never became ready; 2 the sweep could not start, or could not store its results (a bad config, an
    unreachable scheduler, an unusable store or report folder: one line naming the key or path);
    130 interrupted (what was stored stays; the same command finishes the rest)."""
    console = _console()
    try:
        cfg = load_config(*parse_args(args))
        outcome = run_sweep(cfg)
    except (SweepConfigError, ClusterConfigError, DatasetMismatch, SettingsMismatch, StoreError, ReportError) as exc:
        print(f"mobilepa sweep: {exc}", file=sys.stderr)
        return 2
    except ServerStartupError as exc:  # a vLLM server the sweep started never became ready; no episode ran
        print(f"mobilepa sweep: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mobilepa sweep: interrupted; every result that came back is in the store, and the same command "
              "runs only what is missing", file=sys.stderr)
        return 130
    config = outcome.plan.config
    for name, service in outcome.services.items():
        console.print(f"vLLM server for {name}: {service.base_url} on worker {service.worker} (log {service.log}; "
                      "stopped)")
    rate = f" ({outcome.ran / outcome.run_s:.0f} episodes/s while running)" if outcome.run_s > 0 else ""
    console.print(f"sweep {config['name']}: ran {outcome.ran} episodes, {outcome.skipped} already finished, "
                  f"{outcome.wall_s:.1f} s{rate}")
    if outcome.report is not None:
        board, md, html = outcome.report
        print_leaderboard(board, console)
        console.print(f"report: {md.resolve()}  {html.resolve()}")
    console.print(f"results store: {Path(config['store']).resolve()}")
    if outcome.parent_run_id:
        uri = os.environ.get("MLFLOW_TRACKING_URI") or config["tracking"]["uri"]
        console.print(f"MLflow: {uri} (parent run {outcome.parent_run_id}); browse with `make ui` "
                      f"or `.venv/bin/mlflow ui --backend-store-uri {uri}`")

    def say(line: str) -> None:  # one line each, never wrapped: logs and pipes keep them whole
        console.print(line, soft_wrap=True)

    if outcome.lost:
        say(f"[red]cluster lost[/red]: {outcome.lost}")
    for failure in outcome.failures:
        say(f"[red]unit failed after {failure.attempts} attempts[/red]: {failure.key}: {failure.error}")
    if outcome.infra_retried or outcome.infra_errors:
        say(f"infrastructure errors: {outcome.infra_retried} episode run(s) retried, {len(outcome.infra_errors)} "
            "key(s) still infra_error; no planner was charged for them")
    for key in outcome.infra_errors[:LISTED]:
        say(f"[yellow]infra_error after retries[/yellow]: {key}")
    if len(outcome.infra_errors) > LISTED:
        say(f"[yellow]infra_error after retries[/yellow]: … and {len(outcome.infra_errors) - LISTED} more keys")
    for gap in outcome.gaps:
        say(f"[yellow]missing[/yellow] {gap.describe()}")
    if outcome.report_error:
        say(f"[yellow]{outcome.report_error}[/yellow]; the results are in the store: "
            f"`mobilepa report --store {config['store']} --out <folder>` writes it later")
    if outcome.tracking_error:
        say(f"[yellow]MLflow failed while logging ({outcome.tracking_error}); every result is in "
            f"{Path(config['store']).resolve()}: run `mobilepa report --sync --store {config['store']}` "
            "when MLflow is back[/yellow]")
    if not outcome.complete:
        missing = sum(g.missing for g in outcome.gaps)
        why = [f"{missing} key(s) of {len(outcome.gaps)} cell(s) missing (the same command runs only them)"] \
            if missing else []
        why += ["the report not written"] * bool(outcome.report_error)
        why += ["MLflow not updated"] * bool(outcome.tracking_error)
        say(f"[red]sweep incomplete[/red]: {'; '.join(why)}")
        return 1
    return 0


def report_main(args: list[str]) -> int:
    """Leaderboard across everything in a results store (any store: cells without a scorable episode are
    shown as such); a store or folder that cannot be used is one line naming it (exit 2)."""
    parser = argparse.ArgumentParser(prog="mobilepa report")
    parser.add_argument("--store", default="outputs/results.db", help="results store (SQLite)")
    parser.add_argument("--out", default="outputs/report", help="folder for leaderboard.md/.html and plots")
    parser.add_argument("--split", help="only this split")
    parser.add_argument("--sync", action="store_true",
                        help="log to MLflow every sweep in the store that could not be logged when it ran")
    ns = parser.parse_args(args)
    if not Path(ns.store).is_file():
        print(f"mobilepa report: no results store at {ns.store}; run `mobilepa sweep` first", file=sys.stderr)
        return 2
    try:
        if not ns.sync:
            check_report_dir(Path(ns.out))
        store = ResultsStore(Path(ns.store))
        try:
            if ns.sync:
                return _sync(store)
            rows = store.rows(**({"split": ns.split} if ns.split else {}))
            if not rows:
                print(f"mobilepa report: {ns.store} holds no episodes" + (f" of split {ns.split}" if ns.split else ""),
                      file=sys.stderr)
                return 2
            board, md, html = write_report(rows, Path(ns.out))
            console = _console()
            print_leaderboard(board, console)
            analysis = report_analysis(store, Path(ns.out), ns.split, console)  # reads trajectories cell by cell
        finally:
            store.close()
    except (StoreError, ReportError) as exc:
        print(f"mobilepa report: {exc}", file=sys.stderr)
        return 2
    console.print(f"report: {md.resolve()}  {html.resolve()}  {analysis.resolve()}")
    return 0


def _sync(store: ResultsStore) -> int:
    from mlflow.exceptions import MlflowException
    from omegaconf import OmegaConf

    from experiments.sweep import plan_sweep
    from experiments.tracking import TrackingUnavailable, sync_store

    try:
        parents = sync_store(store, lambda config: plan_sweep(OmegaConf.create(config)))
    except (MlflowException, OSError, TrackingUnavailable, SweepConfigError) as exc:
        print(f"mobilepa report --sync: {exc}", file=sys.stderr)
        return 1
    print(f"logged {len(parents)} sweep(s) to MLflow" + (f": parent runs {', '.join(parents)}" if parents else
                                                          " (nothing was waiting)"))
    return 0
