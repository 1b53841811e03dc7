"""Sweep cells and work units, and the function a Dask worker runs on a unit.

Only names, ids and the (small) planner config travel to the worker: it loads the split's tasks
itself, once per worker process, and builds the planner per unit, inside the unit's event loop,
because a planner that holds connections is bound to the loop that opened them.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from distributed import get_worker
from distributed.diagnostics.plugin import WorkerPlugin

from experiments.episodes.loop import run_many
from experiments.plan.model import Cell
from experiments.results.store import GOLD_PLANNERS, episode_record, task_fingerprint
from planners.base import Planner
from sandbox.suite import load_split
from sandbox.tasks import Task


@dataclass(frozen=True)
class WorkUnit:
    cell: Cell
    task_ids: tuple[str, ...]  # episode keys (``<task_id>@<condition>`` for a skill task run twice)
    planner_factory: str

    @property
    def key(self) -> str:
        return f"{self.cell.label}/{self.task_ids[0]}+{len(self.task_ids)}"


EPISODE_TOPIC = "mobilepa-episode"
"""The Dask event topic a worker announces each episode on as it ends (``announce``), so the driver's
progress moves per episode, not per unit (a unit of slow model episodes can take many minutes)."""


def announce(cell: Cell, record: dict[str, Any]) -> None:
    """Tell the driver an episode ended (in a Dask worker; elsewhere there is no driver to tell)."""
    try:
        worker = get_worker()
    except ValueError:
        return
    worker.log_event(
        EPISODE_TOPIC,
        {
            "cell": cell.label,
            "key": record["task_id"],
            "passed": bool(record["passed"]),
            "scorable": bool(record["scorable"]),
            "infra_error": record["termination"] == "infra_error",
        },
    )


WORKER_GC_THRESHOLD = (10_000, 10, 10)  # gc.set_threshold in a worker process (CPython's default: 700, 10, 10)
_tuned = False  # this process is a worker process a sweep started, its collector tuned (WorkerGC)


class WorkerGC(WorkerPlugin):
    """Tunes the garbage collector of each worker process of a cluster the toolkit starts, and only
    there: never the driver's (a user's notebook, a test, a thread-based local cluster's workers, which
    share the driver's process), never on import or when tasks are loaded.

    In such a worker the youngest generation is collected every 10,000 allocations instead of 700
    (``WORKER_GC_THRESHOLD``): with a hundred episodes in flight most young objects die by reference
    counting before such a pass, so the event loop pauses less often; and what the process holds for
    good (a split's tasks once parsed, the warm state after its first unit) is frozen out of the
    collector's sight (``split_tasks_for_unit``, ``freeze_warm_state``)."""

    name = "mobilepa-worker-gc"

    def __init__(self) -> None:
        self.driver_pid = os.getpid()

    def setup(self, worker: Any) -> None:
        if os.getpid() != self.driver_pid:
            tune_worker_process()


def tune_worker_process() -> None:
    """This process runs units for good: the collector's thresholds for it (see ``WorkerGC``)."""
    global _tuned
    _tuned = True
    gc.set_threshold(*WORKER_GC_THRESHOLD)


def worker_process_tuned() -> bool:
    return _tuned


@lru_cache(maxsize=16)
def split_tasks(file: str, categories: tuple[str, ...] | None, subset: str | None) -> dict[str, Task]:
    """The split's tasks by id, parsed once per process."""
    return {t.task_id: t for t in load_split(file, categories, subset)}


def split_tasks_for_unit(file: str, categories: tuple[str, ...] | None, subset: str | None) -> dict[str, Task]:
    """``split_tasks``, and in a tuned worker process the tasks just parsed frozen out of the collector's
    sight (``gc.freeze``): otherwise every full collection walks those millions of objects (the tasks,
    the tool registry and its schemas, the table metadata), and with a hundred episodes in flight one
    such pass held the event loop for 0.3 s, late for every reply waiting on it."""
    parsed = split_tasks.cache_info().misses
    tasks = split_tasks(file, categories, subset)
    if _tuned and split_tasks.cache_info().misses != parsed:
        gc.collect()  # garbage frozen now would never be collected
        gc.freeze()
    return tasks


def resolve_factory(path: str) -> Callable[[Mapping[str, Any]], Planner]:
    """``module:function``; a plugin point for planners that live outside this package."""
    module, _, name = path.partition(":")
    if not module or not name:
        raise ValueError(f"planner_factory: expected 'module:function', got {path!r}")
    factory = getattr(importlib.import_module(module), name, None)
    if not callable(factory):
        raise TypeError(f"planner_factory: {path!r} is not a callable")
    return factory


@lru_cache(maxsize=1)
def freeze_warm_state() -> None:
    """Once per process, after its first unit: collect the garbage, then freeze what survives (pooled
    connections holding their worlds, their prepared statements, compiled SQL), which stays for the
    process's life. A full collection walked those 140,000 objects in 80-180 ms, stalling every episode
    in flight; frozen, the one that follows walks only what is new. Pooled objects are still freed by
    reference counting when dropped; only a frozen object that later ends in a reference cycle stays."""
    gc.collect()
    gc.freeze()


def run_unit(unit: WorkUnit) -> list[dict[str, Any]]:
    """Run a unit's episodes concurrently under asyncio; return one store record per episode."""
    cell = unit.cell
    tasks = split_tasks_for_unit(cell.split_file, cell.categories, cell.subset)
    chosen = [tasks[i] for i in dict.fromkeys(key.split("@")[0] for key in unit.task_ids)]
    factory = resolve_factory(unit.planner_factory)
    replays_gold = cell.planner_config.get("kind") in GOLD_PLANNERS

    async def drive() -> list[dict[str, Any]]:
        planner = factory(cell.planner_config)
        records = []
        try:
            async for result in run_many(
                chosen,
                planner,
                concurrency=cell.concurrency,
                t_max=cell.t_max,
                condition=cell.condition,
                keys=set(unit.task_ids),
                retrieval_model=cell.retrieval_model,
            ):
                records.append(
                    episode_record(
                        result,
                        planner=cell.planner,
                        split=cell.split,
                        condition=cell.condition,
                        seed=cell.seed,
                        dataset_hash=cell.dataset_hash,
                        task_hash=task_fingerprint(result.task, replays_gold),
                    )
                )
                announce(cell, records[-1])
        finally:
            close = getattr(planner, "aclose", None)
            if close is not None:
                await close()
        return records

    records = asyncio.run(drive())
    if _tuned:
        freeze_warm_state()
    return records
