"""``mobilepa run`` recorded like a one-cell sweep: its episodes into a results store (``store=PATH``) and,
with ``tracking=mlflow``, an MLflow parent and child run; off by default.

The cell is the sweep's (planner, split, condition, seed) with the same settings check, so a run and a
sweep of the same cell share stored results, ``mobilepa report`` shows it, and a later sweep skips its
finished keys. ``limit=``/``task_ids=`` make it a quick run, recorded as such (see ``selection``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from experiments.episodes.loop import EpisodeResult
from experiments.plan.model import DEFAULT_STORE, Plan, recorded_now
from experiments.results.provenance import cell_provenance, now
from experiments.results.store import GOLD_PLANNERS, ResultsStore, episode_record, task_fingerprint
from sandbox.suite import task_path


def check_recording(plan: Plan) -> None:
    """Before any work: the store opens and takes this cell (same task file, same settings), so a run is
    never lost to a store it could not be written to afterwards (StoreError, DatasetMismatch,
    SettingsMismatch name the problem in one line)."""
    (cell,) = plan.cells
    store = ResultsStore(plan.store or DEFAULT_STORE)
    try:
        store.check_dataset(cell.split, cell.split_file, cell.dataset_hash)
        store.check_settings({(cell.planner, cell.split, cell.condition, cell.seed): plan.settings(cell)})
    finally:
        store.close()
    if plan.tracking.enabled:  # a tracking store MLflow cannot open: TrackingUnavailable, one line
        from experiments.reporting.tracking import check_tracking_store, tracking_uri

        check_tracking_store(tracking_uri(plan.tracking), str(plan.store or DEFAULT_STORE))


def record_run(
    plan: Plan,
    results: Sequence[EpisodeResult],
    started: str | None = None,
    ended: Mapping[str, dt.datetime] | None = None,
) -> list[str]:
    """Store the run's episodes (and log them to MLflow when tracking is on); the lines to print. Each row
    names the run's provenance record (``started``: when the run began; ``ended``: episode key -> when it ended)."""
    (cell,) = plan.cells
    task_file = task_path(cell.split_file)
    replays_gold = cell.planner_config.get("kind") in GOLD_PLANNERS
    ((pid, prov),) = cell_provenance(
        [cell],
        started=started or now(),
        sweep_key=plan.sweep_key,
        task_files={cell.split: (task_file, cell.dataset_hash)},
    ).values()
    prov["ended"] = now()
    records = [
        episode_record(
            r,
            planner=cell.planner,
            split=cell.split,
            condition=cell.condition,
            seed=cell.seed,
            dataset_hash=cell.dataset_hash,
            task_hash=task_fingerprint(r.task, replays_gold),
            provenance_id=pid,
            ended=(ended or {}).get(r.key or r.task.task_id),
        )
        for r in results
    ]
    path = plan.store or DEFAULT_STORE
    store = ResultsStore(path)
    lines = []
    try:
        store.check_dataset(cell.split, cell.split_file, cell.dataset_hash)
        store.check_settings({(cell.planner, cell.split, cell.condition, cell.seed): plan.settings(cell)})
        store.record_provenance({pid: prov})
        store.upsert(records)
        lines.append(f"results store: {path.resolve()} ({len(records)} episodes of {cell.label})")
        plan = plan.with_record(recorded_at=recorded_now())
        store.record_sweep(plan.sweep_key, plan.record, tracked=plan.tracking.enabled)  # waits for --sync until logged
        if plan.tracking.enabled:
            from experiments.reporting.tracking import MLFLOW_ERRORS, log_sweep, mlflow_failure, start_tracking

            try:
                parent = log_sweep(start_tracking(plan), store)
            except MLFLOW_ERRORS as exc:
                lines.append(
                    f"MLflow failed ({mlflow_failure(exc)}); the episodes are in the store: "
                    f"`mobilepa report --sync --store {path}` logs them when MLflow is back"
                )
            else:
                lines.append(
                    f"MLflow: {plan.tracking.uri}, experiment {plan.tracking.experiment or plan.name} "
                    f"(parent run {parent})"
                )
    finally:
        store.close()
    return lines
