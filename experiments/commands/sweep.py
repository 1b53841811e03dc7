"""``mobilepa sweep`` and ``mobilepa report``: the printing side of the sweep machinery."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from experiments.analysis.compare import print_analysis, sweep_analysis
from experiments.analysis.cost import with_costs
from experiments.analysis.studies import report_study_lines
from experiments.plan.model import (
    DEFAULT_STORE,
    GRID_KEYS,
    Plan,
    SweepConfigError,
    axes_text,
    default_report_dir,
    recorded_time,
    refined_conditions,
    sweep_about,
)
from experiments.plan.selection import describe as describe_selection
from experiments.reporting.console import LOG_NAME, library_logs
from experiments.reporting.leaderboard import ReportError, check_report_dir, print_leaderboard, write_report
from experiments.reporting.progress import speed
from experiments.results.secrets import redacted
from experiments.results.store import (
    DatasetMismatch,
    ResultsStore,
    SettingsMismatch,
    StoreError,
    prepare_store_folder,
    record_key,
)
from planners.preflight import planned_budget

LISTED = 10  # infra_error keys listed one by one; cells are summed up below them


def _console() -> Console:
    """A console wide enough for the leaderboard even when the output is a log file or a pipe
    (Rich assumes 80 columns there and would truncate planner names and scores)."""
    return Console() if sys.stdout.isatty() else Console(width=180)


def describe_plan(plan: Plan) -> list[str]:
    """What ``mobilepa sweep --dry-run`` prints: the grid, each cell with its episodes, the total, the
    endpoints each planner will call, the cluster and where results would go."""
    from cluster.services import needs_server
    from experiments.execution.sweep import cluster_summary, first_requests

    chosen = describe_selection(plan.record)
    lines = [
        f"sweep {plan.name} (dry run: nothing is run, stored or logged)",
        "grid: "
        + " × ".join(f"{key} {','.join(map(str, plan.record[key]))}" for key in GRID_KEYS.values())
        + axes_text(plan.record)
        + f" = {len(plan.cells)} cell(s)"
        + (f"; {chosen}" if chosen else ""),
    ]
    width = max(len(c.label) for c in plan.cells)
    lines.append("cells (episodes each):")
    total = 0
    for cell in plan.cells:
        n = len(plan.task_ids[(cell.split, cell.condition)])
        total += n
        lines.append(f"  {cell.label:<{width}}  {n}")
    lines.append(f"episodes: {total} in all (those already finished in {plan.store} are skipped when it runs)")
    lines.append("endpoints:")
    for name, cell in {c.planner: c for c in plan.cells}.items():
        planner = cell.planner_config
        if planner.get("kind") == "litellm":
            where = f"LiteLLM, model {planner.get('model')} at {planner.get('base_url') or 'the provider'}"
        elif planner.get("kind") != "openai":
            where = f"in process ({planner.get('kind')}, no endpoint)"
        elif needs_server(planner):
            gpus = (planner.get("vllm") or {}).get("gpus") or 1
            where = f"vLLM started on a GPU worker (GPU={gpus}) for model {planner.get('model')}"
        else:
            where = f"{planner.get('base_url')} (model {planner.get('model')})"
        lines.append(f"  {name}: {where}")
    configs = {c.planner: c.planner_config for c in plan.cells}
    for label, observations in first_requests(plan.cells, plan.task_ids).items():  # no server asked: the estimate
        budget = planned_budget({**configs[label], "name": label}, observations)
        lines.append(budget.summary())
        if refusal := budget.refusal():
            lines.append(f"  {refusal}" + ("" if plan.work.allow_prompt_overflow else " (the sweep would stop)"))
    lines.append(f"cluster: {cluster_summary(plan.cluster)}")
    mlflow = (
        (
            f"MLflow {os.environ.get('MLFLOW_TRACKING_URI') or plan.tracking.uri}, experiment "
            f"{plan.tracking.experiment or plan.name}"
        )
        if plan.tracking.enabled
        else "MLflow off"
    )
    lines.append(f"results: store {plan.store}, report {plan.report_dir}, {mlflow}")
    return lines


def sweep_main(args: list[str]) -> int:
    """Run a sweep, then print its leaderboard and where the store, report and MLflow UI are.

    Exit codes: 0 every key of the grid has its result and everything was written down; 1 the sweep ran
    but something is missing (each missing cell named, with its planner's endpoint), a vLLM server
    never became ready, or the disk filled up (what was stored is kept); 2 the sweep could not start,
    or could not store its results (a bad config, an unreachable scheduler, an unusable store or report
    folder: one line naming the key or path);
    130 interrupted (what was stored stays; the same command finishes the rest)."""
    # the cluster, the vLLM services and the sweep's machinery only when a sweep runs (not for report, or --help)
    from cluster.dask_runner import ClusterConfigError
    from cluster.vllm import ServerStartupError
    from experiments.commands.plans import sweep_plan
    from experiments.execution.sweep import PreflightFailed, check_local_resources, run_sweep

    console = _console()
    dry_run = "--dry-run" in args
    args = [a for a in args if a != "--dry-run"]
    try:
        plan = sweep_plan(args)
        if dry_run:
            for line in describe_plan(plan):
                console.print(line, soft_wrap=True, highlight=False, markup=False)
            check_local_resources(plan)  # a server no worker of a local cluster can host: as the sweep would say
            return 0
        store_path = plan.store or DEFAULT_STORE
        prepare_store_folder(store_path)  # the log file goes beside the store
        log = store_path.parent / LOG_NAME
        with library_logs(
            log, title=f"mobilepa sweep {' '.join(redacted(args))}", import_mlflow=plan.tracking.enabled
        ) as log:
            outcome = run_sweep(plan)
    except (SweepConfigError, ClusterConfigError, DatasetMismatch, SettingsMismatch, StoreError, ReportError) as exc:
        print(f"mobilepa sweep: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 2)  # 1: a full disk
    except (ServerStartupError, PreflightFailed) as exc:  # a server never became ready, or failed its pre-flight
        print(f"mobilepa sweep: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            "mobilepa sweep: interrupted; every result that came back is in the store, and the same command "
            "runs only what is missing",
            file=sys.stderr,
        )
        return 130
    plan = outcome.plan
    for name, service in outcome.services.items():
        console.print(
            f"vLLM server for {name}: {service.base_url} on worker {service.worker} (log {service.log}; stopped)"
        )
    rate = f" ({speed(outcome.ran, outcome.run_s)})" if outcome.run_s > 0 else ""
    logging = f", logging to MLflow {outcome.tracking_s:.1f} s" if plan.tracking.enabled else ""
    console.print(
        f"sweep {plan.name}: ran {outcome.ran} episodes, {outcome.skipped} already finished; episodes "
        f"{outcome.run_s:.1f} s{rate}{logging}, {outcome.wall_s:.1f} s in all (checks, cluster start and "
        "report included)",
        soft_wrap=True,
    )
    if outcome.report is not None:
        board, folder = outcome.report
        print_leaderboard(board, console)
        for line in report_study_lines(folder):  # the retrieval curve and ablation deltas, when swept
            console.print(line, soft_wrap=True, highlight=False, markup=False)
        console.print(f"report: {folder.resolve()} (leaderboard.md, .html, .txt, analysis.json)", soft_wrap=True)
    console.print(f"results store: {store_path.resolve()}", soft_wrap=True)
    if outcome.parent_run_id:
        uri = os.environ.get("MLFLOW_TRACKING_URI") or plan.tracking.uri
        console.print(
            f"MLflow: {uri}, experiment {plan.tracking.experiment or plan.name} "
            f"(parent run {outcome.parent_run_id}); {browse_hint(str(uri))}",
            soft_wrap=True,
        )
    console.print(f"library log: {log.resolve()}", soft_wrap=True)

    def say(line: str) -> None:  # one line each, never wrapped: logs and pipes keep them whole
        console.print(line, soft_wrap=True)

    if outcome.lost:
        say(f"[red]cluster lost[/red]: {outcome.lost}; {lost_advice(plan.cluster, plan.store or DEFAULT_STORE)}")
    for failure in outcome.failures:
        say(f"[red]unit failed after {failure.attempts} attempts[/red]: {failure.key}: {failure.error}")
    if outcome.infra_retried or outcome.infra_errors:
        say(
            f"infrastructure errors: {outcome.infra_retried} episode run(s) retried, {len(outcome.infra_errors)} "
            "key(s) still infra_error; no planner was charged for them"
        )
    for key in outcome.infra_errors[:LISTED]:
        say(f"[yellow]infra_error after retries[/yellow]: {key}")
    if len(outcome.infra_errors) > LISTED:
        say(f"[yellow]infra_error after retries[/yellow]: … and {len(outcome.infra_errors) - LISTED} more keys")
    for gap in outcome.gaps:
        say(f"[yellow]missing[/yellow] {gap.describe()}")
    if outcome.report_error:
        say(
            f"[yellow]{outcome.report_error}[/yellow]; the results are in the store: "
            f"`mobilepa report --store {store_path} --out <folder>` writes it later"
        )
    if outcome.tracking_error:
        say(
            f"[yellow]MLflow failed while logging ({outcome.tracking_error}); every result is in "
            f"{store_path.resolve()}: run `mobilepa report --sync --store {store_path}` "
            "when MLflow is back[/yellow]"
        )
    if not outcome.complete:
        missing = sum(g.missing for g in outcome.gaps)
        why = (
            [f"{missing} key(s) of {len(outcome.gaps)} cell(s) missing (the same command runs only them)"]
            if missing
            else []
        )
        why += ["the report not written"] * bool(outcome.report_error)
        why += ["MLflow not updated"] * bool(outcome.tracking_error)
        say(f"[red]sweep incomplete[/red]: {'; '.join(why)}")
        return 1
    return 0


def browse_hint(uri: str) -> str:
    """How to look at the runs: a tracking server shows them itself; a local store needs ``mlflow ui``."""
    if uri.startswith(("http://", "https://")):
        return f"browse them at {uri}"
    return f"browse with `mlflow ui --backend-store-uri {uri}`"


def lost_advice(cluster: Mapping[str, Any], store: Path) -> str:
    """What happened to the workers when the cluster went away, and what to run."""
    if cluster.get("kind") == "address":
        return (
            f"the workers of the scheduler at {cluster.get('address')} exit on their own once they lose it "
            f"(dask worker's --death-timeout); start `dask scheduler` and `dask worker {cluster.get('address')}` "
            f"again, then run the same command: what {store} holds is kept and only the missing keys run"
        )
    return (
        "the worker processes this sweep started are stopped with it; run the same command: it starts a new "
        f"cluster, keeps what {store} holds and runs only the missing keys"
    )


def report_main(args: list[str]) -> int:
    """The leaderboard of one sweep (the latest the store recorded, or ``--sweep``), or of an explicit
    selection (``--all``, ``--split``, ``--planner``); every table and plot labelled with its split. A store
    or folder that cannot be used is one line naming it (exit 2)."""
    parser = argparse.ArgumentParser(prog="mobilepa report", description=report_main.__doc__)
    parser.add_argument("--store", default="outputs/results.db", help="results store (SQLite)")
    parser.add_argument(
        "--out",
        help="folder for the report (default: the sweep's own, <store folder>/reports/<sweep name>; for a "
        "selection <store folder>/reports/<what it selects>)",
    )
    parser.add_argument("--sweep", help="the sweep to report, by name or key (default: the latest one)")
    parser.add_argument("--all", action="store_true", help="every episode of the store instead of one sweep")
    parser.add_argument("--split", help="only this split (with no --sweep: of the whole store)")
    parser.add_argument(
        "--planner", action="append", help="only this planner (repeatable; with no --sweep: of the whole store)"
    )
    parser.add_argument(
        "--sync",
        action="store_true",
        help="log to MLflow every sweep in the store that could not be logged when it ran",
    )
    ns = parser.parse_args(args)
    if not Path(ns.store).is_file():
        print(f"mobilepa report: no results store at {ns.store}; run `mobilepa sweep` first", file=sys.stderr)
        return 2
    try:
        if ns.out is not None and not ns.sync:
            check_report_dir(Path(ns.out))
        store = ResultsStore(Path(ns.store))
        try:
            if ns.sync:
                with library_logs(Path(ns.store).parent / LOG_NAME, title="mobilepa report --sync", import_mlflow=True):
                    return _sync(store)
            scope = report_scope(store, sweep=ns.sweep, everything=ns.all, split=ns.split, planners=ns.planner)
            if not scope.rows:
                print(f"mobilepa report: {ns.store} holds no episodes of {scope.about}", file=sys.stderr)
                return 2
            out = Path(ns.out) if ns.out is not None else scope.folder
            check_report_dir(out)
            console = _console()
            console.print(f"report about {scope.about}", soft_wrap=True, highlight=False, markup=False)
            from experiments.commands.rescore import stale_verdicts

            stale = stale_verdicts(scope.rows, ns.store)
            for line in (*scope.notes, *([stale] if stale else [])):
                console.print(line, soft_wrap=True, highlight=False, markup=False)
            analysis = sweep_analysis(store, {record_key(r) for r in scope.rows})
            board, _ = write_report(
                with_costs(scope.rows, store.provenance()), out, about=scope.about, analysis=analysis
            )
            print_leaderboard(board, console)
            for line in report_study_lines(out):  # the retrieval curve and ablation deltas, when swept
                console.print(line, soft_wrap=True, highlight=False, markup=False)
            print_analysis(analysis, console)
        finally:
            store.close()
    except (StoreError, ReportError, ReportScopeError) as exc:
        print(f"mobilepa report: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 2)  # 1: a full disk
    console.print(f"report: {out.resolve()} (leaderboard.md, .html, .txt, analysis.json)", soft_wrap=True)
    return 0


class ReportScopeError(ValueError):
    """``--sweep`` names no sweep of the store; the message lists those it has."""


@dataclass(frozen=True)
class ReportScope:
    """What a report is about: its rows, one line saying so, its folder by default, and notes to print."""

    rows: list[dict[str, Any]]
    about: str
    folder: Path
    notes: tuple[str, ...] = ()


def report_scope(
    store: ResultsStore,
    *,
    sweep: str | None = None,
    everything: bool = False,
    split: str | None = None,
    planners: list[str] | None = None,
) -> ReportScope:
    """The rows a report is about: the sweep named (by name or key; of several sweeps of that name the
    latest, and a note naming the others), else with ``everything``, ``split`` or ``planners`` the store's
    rows so selected, else the latest sweep the store recorded (every row, when it recorded none). A
    sweep's report goes to its own ``report_dir``; a selection's to a folder named after it."""
    where = {"split": split} if split else {}
    chosen = f"{', split ' + split if split else ''}{', planner(s) ' + ','.join(planners) if planners else ''}"
    recorded = store.recorded_sweeps()
    if sweep is None and (everything or split or planners or not recorded):
        rows = [r for r in store.rows(**where) if not planners or r["planner"] in planners]
        splits = ", ".join(sorted({r["split"] for r in rows}))
        name = "-".join(["store", *([split] if split else []), *(planners or [])])
        about = f"every episode of {store.path}{chosen}" + (f" (splits {splits})" if splits else "")
        return ReportScope(rows, about, default_report_dir(store.path, name))
    notes: tuple[str, ...] = ()
    if sweep is None:
        key, config = max(recorded, key=lambda kc: recorded_time(kc[1]))
    else:
        named = [(k, c) for k, c in recorded if c.get("name") == sweep or k.startswith(sweep)]
        if not named:
            names = ", ".join(sorted({str(c.get("name")) for _, c in recorded})) or "none"
            raise ReportScopeError(f"--sweep {sweep}: no such sweep in the store; its sweeps: {names}")
        key, config = max(named, key=lambda kc: recorded_time(kc[1]))
        others = sorted(k for k, _ in named if k != key)
        if others:
            notes = (
                f"--sweep {sweep}: {len(named)} sweeps match; reporting the latest, key {key} "
                f"(the others: --sweep {', --sweep '.join(others)})",
            )
    rows = [r for r in _recorded_rows(store, config, where) if not planners or r["planner"] in planners]
    folder = Path(config.get("report_dir") or default_report_dir(store.path, str(config["name"])))
    return ReportScope(rows, sweep_about(config) + f" [key {key}]" + chosen, folder, notes)


def _recorded_rows(store: ResultsStore, config: dict[str, Any], where: dict[str, Any]) -> list[dict[str, Any]]:
    """A recorded sweep's rows: its cells, and for a quick run (limit=, task_ids=) only its tasks."""
    cells = {
        (str((config.get("labels") or {}).get(p, p)), str(sp), str(c), int(seed))  # the names results carry
        for p in config["planners"]
        for sp in config["splits"]
        for c in refined_conditions(config)
        for seed in config["seeds"]
    }
    rows = [r for r in store.rows(**where) if record_key(r)[:4] in cells]
    selected = config.get("selected")  # a quick run (limit=, task_ids=): only the episodes it chose
    if not selected:
        return rows
    keys = {(split_condition, key) for split_condition, keys in selected.items() for key in keys}
    return [r for r in rows if (f"{r['split']}/{r['condition']}", r["task_id"]) in keys]


def _sync(store: ResultsStore) -> int:
    from omegaconf import OmegaConf

    from experiments.commands.plans import plan_sweep
    from experiments.reporting.tracking import MLFLOW_ERRORS, mlflow_failure, sync_store

    try:
        parents = sync_store(store, lambda config: plan_sweep(OmegaConf.create(config)))  # type: ignore[arg-type]
    except SweepConfigError as exc:
        print(f"mobilepa report --sync: {exc}", file=sys.stderr)
        return 1
    except MLFLOW_ERRORS as exc:
        print(f"mobilepa report --sync: {mlflow_failure(exc)}", file=sys.stderr)
        return 1
    print(
        f"logged {len(parents)} sweep(s) to MLflow"
        + (f": parent runs {', '.join(parents)}" if parents else " (nothing was waiting)")
    )
    return 0
