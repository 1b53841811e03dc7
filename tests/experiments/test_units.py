"""A worker's split loader: tasks parsed once per process; the collector tuned, and what a worker
holds for good kept out of its walks, only in worker processes a sweep starts (never on import, on
loading tasks, or in the driver)."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from experiments.execution import units
from experiments.execution.units import (
    WORKER_GC_THRESHOLD,
    WorkerGC,
    freeze_warm_state,
    split_tasks,
    split_tasks_for_unit,
)
from experiments.plan.model import Cell

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def collector():
    """The collector as it was, back after the test (a test here tunes this process as a worker's)."""
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_importing_and_loading_tasks_leave_the_collector_alone() -> None:
    code = (
        "import gc; before = gc.get_threshold()\n"
        "import experiments.execution.run, experiments.execution.sweep, planners, sandbox.suite as s\n"
        "import experiments.execution.units as u\n"
        "s.load_split('handwritten.jsonl'); u.split_tasks('handwritten.jsonl', None, None)\n"
        "u.split_tasks_for_unit('handwritten.jsonl', None, None)\n"
        "assert gc.get_threshold() == before and gc.get_freeze_count() == 0, "
        "(gc.get_threshold(), gc.get_freeze_count())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_split_tasks_are_parsed_once_and_frozen_only_in_a_tuned_worker(collector, monkeypatch) -> None:
    split_tasks.cache_clear()
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    tasks = split_tasks_for_unit("handwritten.jsonl", None, None)
    assert tasks and gc.get_freeze_count() == 0 and gc.get_threshold() == (700, 10, 10)  # not a worker
    split_tasks.cache_clear()
    monkeypatch.setattr(units, "_tuned", False)
    units.tune_worker_process()  # what WorkerGC does in a worker process
    freezes: list[int] = []
    freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (freezes.append(1), freeze())[1])
    tasks = split_tasks_for_unit("handwritten.jsonl", None, None)
    assert tasks and len(freezes) == 1 and gc.get_freeze_count() > len(tasks)  # each task: several objects
    assert gc.get_threshold() == WORKER_GC_THRESHOLD
    # The count itself can drop as frozen objects of other threads die, so the calls are what is counted.
    assert split_tasks_for_unit("handwritten.jsonl", None, None) is tasks and len(freezes) == 1


def test_worker_gc_tunes_the_workers_processes_and_not_the_driver(collector) -> None:
    gc.set_threshold(700, 10, 10)
    WorkerGC().setup(None)  # in the driver's own process (a thread-based cluster's worker): nothing
    assert gc.get_threshold() == (700, 10, 10) and not units.worker_process_tuned()
    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        client.register_plugin(WorkerGC(), name=WorkerGC.name)
        tuned = client.run(
            lambda: (
                __import__("gc").get_threshold(),
                __import__("experiments.execution.units").execution.units.worker_process_tuned(),
            )
        )
    assert [tuple(t) for t, _ in tuned.values()] == [WORKER_GC_THRESHOLD] and all(ok for _, ok in tuned.values())
    assert gc.get_threshold() == (700, 10, 10)


def test_a_worker_freezes_its_warm_state_once_after_its_first_unit(collector) -> None:
    freeze_warm_state.cache_clear()
    gc.unfreeze()
    survivors = [[i] for i in range(100)]  # stand for the pooled connections a unit leaves
    freeze_warm_state()
    frozen = gc.get_freeze_count()
    walked = {id(o) for o in gc.get_objects()}  # what a full collection still walks
    assert frozen >= len(survivors) and not any(id(s) in walked for s in survivors)
    later = [[i] for i in range(100)]
    freeze_warm_state()  # later units: nothing more is frozen (frozen objects may still be freed)
    assert gc.get_freeze_count() <= frozen
    walked = {id(o) for o in gc.get_objects()}
    assert all(id(s) in walked for s in later)


# ---- progress per episode ------------------------------------------------------------------------------


def _cell(planner_config: dict[str, object]) -> Cell:
    return Cell("p", "handwritten", "both", 0, planner_config, "handwritten.jsonl", None, None, "h", 8, 15)


def test_a_model_planner_s_units_are_one_round_of_its_endpoint_s_requests() -> None:
    from experiments.execution.sweep import unit_size

    assert unit_size(_cell({"kind": "openai", "concurrency": 4}), 128) == 4
    assert unit_size(_cell({"kind": "openai", "concurrency": 256}), 128) == 128
    assert unit_size(_cell({"kind": "oracle"}), 128) == 128


def _announce_all(cell: Cell, records: list[dict[str, object]]) -> int:
    for record in records:
        units.announce(cell, record)
    return len(records)


def test_the_driver_counts_each_episode_as_its_worker_announces_it_and_once() -> None:
    """The episodes of a unit still running move the progress (a unit of slow model episodes took 19.5
    minutes to show anything); what no announcement brought is counted from the unit's records, once."""
    import threading

    from experiments.execution.sweep import _episodes_seen

    cell = _cell({"kind": "openai"})
    unit = units.WorkUnit(cell, ("a", "b", "c", "d"), "planners:build_planner")
    other = units.WorkUnit(_cell({"kind": "openai"}), ("e",), "planners:build_planner")
    advanced: list[tuple[bool, bool]] = []
    arrived = threading.Event()

    def advance(passed: bool, unscorable: bool) -> None:
        advanced.append((passed, unscorable))
        if len(advanced) == 2:
            arrived.set()

    def record(key: str, passed: bool, termination: str = "finished") -> dict[str, object]:
        return {"task_id": key, "passed": passed, "scorable": termination != "infra_error", "termination": termination}

    records = [record("a", True), record("b", False), record("c", False, "infra_error"), record("x", True)]
    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster,
        Client(cluster) as client,
        _episodes_seen(client, [unit, other], advance) as seen,
    ):
        assert client.submit(_announce_all, cell, records).result(timeout=60) == 4
        assert arrived.wait(timeout=60), "a and b, announced by the worker: no unit result needed"
        seen(cell.label, "a", True, False)  # the unit's records arrive: a was counted already
        seen(cell.label, "d", True, False)  # never announced: counted now
    assert sorted(advanced) == [(False, False), (True, False), (True, False)]  # c (infra) and x (not ours): not
