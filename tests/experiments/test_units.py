"""A worker's split loader: tasks parsed once per process, and kept out of the collector's walks."""

from __future__ import annotations

import gc

from experiments.units import WORKER_GC_THRESHOLD, freeze_warm_state, split_tasks


def test_split_tasks_are_parsed_once_and_frozen_out_of_full_collections() -> None:
    split_tasks.cache_clear()
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    tasks = split_tasks("handwritten.jsonl", None, None)
    assert tasks and gc.get_freeze_count() > len(tasks)  # each task is several tracked objects
    assert gc.get_threshold() == WORKER_GC_THRESHOLD
    assert split_tasks("handwritten.jsonl", None, None) is tasks


def test_a_worker_freezes_its_warm_state_once_after_its_first_unit() -> None:
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
