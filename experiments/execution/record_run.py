"""``mobilepa run`` recorded like a one-cell sweep: its episodes into a results store (``store=PATH``) and,
with ``tracking=mlflow``, an MLflow parent and child run; off by default.

The cell is the sweep's (planner, split, condition, seed) with the same settings check, so a run and a
sweep of the same cell share stored results, ``mobilepa report`` shows it, and a later sweep skips its
finished keys. ``limit=``/``task_ids=`` make it a quick run, recorded as such (see ``selection``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from experiments.episodes.loop import EpisodeResult
from experiments.execution.units import task_fingerprint
from experiments.plan.model import Cell
from experiments.results.provenance import cell_provenance, now
from experiments.results.store import GOLD_PLANNERS, ResultsStore, episode_record, file_sha256

RUN_KEYS = ("store", "tracking")


def run_override(arg: str) -> str:
    """``store=PATH`` -> ``++store=PATH``; ``tracking=mlflow`` -> ``+tracking=mlflow`` (the group the sweep
    uses, added to the run's config); anything else unchanged."""
    key, sep, value = arg.partition("=")
    if not sep or key != key.lstrip("+~"):
        return arg
    if key == "store":
        return f"++store={value}"
    if key == "tracking":
        return f"+tracking={value}"
    return arg


def wants_recording(cfg: DictConfig) -> bool:
    return bool(cfg.get("store")) or bool((cfg.get("tracking") or {}).get("enabled"))


def run_plan(cfg: DictConfig, results: Sequence[EpisodeResult], split_file: str, sha256: str) -> Any:
    """The one-cell sweep ``Plan`` of a finished run (its episode keys those that ran)."""
    from experiments.plan.model import Plan

    planner_config: dict[str, Any] = OmegaConf.to_container(cfg.planner, resolve=True)  # type: ignore[assignment]
    from experiments.execution.config import run_condition, run_variant

    condition = run_condition(cfg)
    tracking = (
        OmegaConf.to_container(cfg.tracking, resolve=True)
        if cfg.get("tracking")
        else {"enabled": False, "uri": None, "experiment": None, "trace_sample": 0}
    )
    store = str(cfg.get("store") or "outputs/results.db")
    config: dict[str, Any] = {
        "name": str(cfg.get("name") or f"run-{cfg.planner.name}-{cfg.split.name}"),
        "planners": [str(cfg.planner.name)],
        "splits": [str(cfg.split.name)],
        "seeds": [int(cfg.seed)],
        "conditions": [condition],
        "t_max": int(cfg.t_max),
        "concurrency": int(cfg.concurrency),
        "planner_factory": "planners:build_planner",
        "store": store,
        "report_dir": str(Path(store).parent / "report"),
        "tracking": tracking,
        "cluster": {"kind": "none (mobilepa run)"},
        **{
            k: OmegaConf.to_container(cfg[k]) if OmegaConf.is_config(cfg[k]) else cfg[k]
            for k in ("limit", "task_ids")
            if cfg.get(k) is not None
        },
    }
    keys = [r.key or r.task.task_id for r in results]
    if config.keys() & {"limit", "task_ids"}:
        config["selected"] = {f"{cfg.split.name}/{condition}": keys}
    cell = Cell(
        str(cfg.planner.name),
        str(cfg.split.name),
        condition,
        int(cfg.seed),
        planner_config,
        split_file,
        tuple(cfg.split.categories) if cfg.split.categories else None,
        cfg.split.get("subset"),
        sha256,
        int(cfg.concurrency),
        int(cfg.t_max),
        run_variant(cfg).model_path,
    )
    return Plan([cell], {(cell.split, condition): keys}, {cell.split: (split_file, sha256)}, config)


def record_run(
    cfg: DictConfig,
    results: Sequence[EpisodeResult],
    split_file: str,
    task_file: Path,
    started: str | None = None,
    ended: Mapping[str, dt.datetime] | None = None,
) -> list[str]:
    """Store the run's episodes (and log them to MLflow when tracking is on); the lines to print. Each row
    names the run's provenance record (``started``: when the run began; ``ended``: episode key -> when it ended)."""
    plan = run_plan(cfg, results, split_file, file_sha256(task_file))
    (cell,) = plan.cells
    config = plan.config
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
    store = ResultsStore(Path(config["store"]))
    lines = []
    try:
        store.check_dataset(cell.split, split_file, cell.dataset_hash)
        store.check_settings({(cell.planner, cell.split, cell.condition, cell.seed): plan.settings(cell)})
        store.record_provenance({pid: prov})
        store.upsert(records)
        lines.append(f"results store: {Path(config['store']).resolve()} ({len(records)} episodes of {cell.label})")
        tracker = None
        if config["tracking"].get("enabled"):
            from experiments.reporting.tracking import log_sweep, start_tracking

            tracker = start_tracking(plan)
        import time

        config["recorded_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        from experiments.results.secrets import redacted

        store.record_sweep(plan.sweep_key, redacted(config), tracked=tracker is not None)
        if tracker is not None:
            parent = log_sweep(tracker, store)
            lines.append(
                f"MLflow: {config['tracking']['uri']}, experiment "
                f"{config['tracking'].get('experiment') or config['name']} (parent run {parent})"
            )
    finally:
        store.close()
    return lines
