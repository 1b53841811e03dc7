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
from experiments.leaderboard import print_leaderboard, write_report
from experiments.store import DatasetMismatch, ResultsStore
from experiments.sweep import SweepConfigError, load_config, parse_args, run_sweep


def _console() -> Console:
    """A console wide enough for the leaderboard even when the output is a log file or a pipe
    (Rich assumes 80 columns there and would truncate planner names and scores)."""
    return Console() if sys.stdout.isatty() else Console(width=140)


def sweep_main(args: list[str]) -> int:
    """Run a sweep, then print its leaderboard and where the store, report and MLflow UI are."""
    console = _console()
    try:
        cfg = load_config(*parse_args(args))
        outcome = run_sweep(cfg)
    except (SweepConfigError, ClusterConfigError, DatasetMismatch) as exc:
        print(f"mobilepa sweep: {exc}", file=sys.stderr)
        return 2
    except ServerStartupError as exc:  # a vLLM server the sweep started never became ready; no episode ran
        print(f"mobilepa sweep: {exc}", file=sys.stderr)
        return 1
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
    for failure in outcome.failures:
        console.print(f"[red]unit failed {failure.attempts} times[/red]: {failure.key}: {failure.error}")
    if outcome.infra_retried or outcome.infra_errors:
        console.print(f"infrastructure errors: {outcome.infra_retried} episode run(s) retried, "
                      f"{len(outcome.infra_errors)} key(s) still infra_error; no planner was charged for them")
    for key in outcome.infra_errors:
        console.print(f"[yellow]infra_error after retries[/yellow]: {key} (re-run the sweep to retry it)")
    if outcome.tracking_error:
        console.print(f"[yellow]MLflow failed while logging ({outcome.tracking_error}); every result is in "
                      f"{Path(config['store']).resolve()}: run `mobilepa report --sync --store {config['store']}` "
                      "when MLflow is back[/yellow]")
    return 1 if outcome.failures or outcome.infra_errors or outcome.tracking_error else 0


def report_main(args: list[str]) -> int:
    """Leaderboard across everything in a results store."""
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
